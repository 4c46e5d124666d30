"""Output files (sanpath.files): checked before work starts, written whole or not at all."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

import pytest

from sanpath.files import OutputError, atomic_path, check_output, write_text


def test_check_output_names_what_is_wrong(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=rf"{re.escape(str(tmp_path))}: is a directory"):
        check_output(tmp_path, (".csv",), "sweep table")
    with pytest.raises(OutputError, match=r"directory .*missing does not exist"):
        check_output(tmp_path / "missing" / "t.csv", (".csv",))
    with pytest.raises(OutputError, match=r"t\.txt: cannot write a sweep table with '\.txt'"):
        check_output(tmp_path / "t.txt", (".csv", ".json"), "sweep table")
    with pytest.raises(OutputError, match="no extension"):
        check_output(tmp_path / "t", (".csv",))
    file = tmp_path / "plain"
    file.write_text("x")
    with pytest.raises(OutputError, match="is not a directory"):
        check_output(file / "t.csv", (".csv",))
    assert check_output(tmp_path / "T.CSV", (".csv",)) == tmp_path / "T.CSV"
    assert list(tmp_path.iterdir()) == [file]  # the probe leaves nothing behind


def test_check_output_refuses_an_unwritable_place(tmp_path: Path) -> None:
    with pytest.raises(OutputError, match=r"/proc/sanpath\.csv: cannot write in /proc"):
        check_output("/proc/sanpath.csv", (".csv",))
    if os.geteuid() != 0:  # root may write anywhere
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        try:
            with pytest.raises(OutputError, match="cannot write in"):
                check_output(locked / "t.csv")
        finally:
            locked.chmod(0o700)
    readonly = tmp_path / "readonly.csv"
    readonly.write_text("keep")
    readonly.chmod(0o444)
    if os.geteuid() != 0:
        with pytest.raises(OutputError, match="read-only"):
            check_output(readonly)


def test_atomic_write_replaces_whole_or_not_at_all(tmp_path: Path) -> None:
    target = tmp_path / "table.csv"
    target.write_text("old\n")
    target.chmod(0o640)
    with pytest.raises(RuntimeError), atomic_path(target) as tmp:
        tmp.write_text("half a ta")
        assert tmp.parent == tmp_path and tmp.suffix == ".csv"
        raise RuntimeError("interrupted")
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]  # no temporary left
    write_text(target, "new\n")
    assert target.read_text() == "new\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640  # permissions kept
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]
