"""Output files (sanpath.files): checked before work starts, written whole or not at all."""

from __future__ import annotations

import errno
import os
import re
import shutil
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


def test_an_existing_file_is_refused_unless_forced(tmp_path: Path) -> None:
    mine = tmp_path / "notes.yaml"
    mine.write_text("# by hand\n")
    with pytest.raises(OutputError, match=r"notes\.yaml: already exists; .*--force"):
        check_output(mine, (".yaml",))
    assert check_output(mine, (".yaml",), force=True) == mine
    with pytest.raises(OutputError, match="appeared while sanpath worked"):
        write_text(mine, "new\n", replace=False)  # it exists at the moment of the rename
    assert mine.read_text() == "# by hand\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.yaml"]
    fresh = write_text(tmp_path / "fresh.yaml", "new\n", replace=False)
    assert fresh.read_text() == "new\n"


def test_no_room_is_refused_before_the_work(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    usage = shutil.disk_usage(tmp_path)
    monkeypatch.setattr(shutil, "disk_usage", lambda _: usage._replace(free=4096))
    with pytest.raises(OutputError, match=r"only 4\.1 kB free in .*needs about 1\.0 MB"):
        check_output(tmp_path / "t.csv", (".csv",), "sweep table")
    assert check_output(tmp_path / "t.csv", (".csv",), space=1000) == tmp_path / "t.csv"


def test_a_full_disk_leaves_the_old_file_and_says_so(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    target = tmp_path / "table.csv"
    target.write_text("old\n")
    synced: list[int] = []
    real_fsync = os.fsync

    def full(handle: int) -> None:
        synced.append(handle)
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)
    with pytest.raises(OutputError, match=r"table\.csv: not written: No space left on device"):
        write_text(target, "new\n")
    assert synced  # the bytes are flushed before the rename
    assert target.read_text() == "old\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["table.csv"]
    monkeypatch.setattr(os, "fsync", real_fsync)
    assert write_text(target, "new\n").read_text() == "new\n"
