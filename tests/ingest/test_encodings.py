"""Measured data is never silently wrong (issue 36, case 3): a negative or NaN counter is a
located error, not a biased mean; a byte order mark or UTF-16 reads as the plain file; an
esxtop file whose disk columns start after 64 KiB is still recognised."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from sanpath.ingest import esxtop, perfmon
from sanpath.ingest.load import HEAD_CHARS, detect, load
from sanpath.spec import ScenarioError
from sanpath.traces import Window, summarize
from tests.conftest import SCENARIOS

MEASURED = SCENARIOS / "measured"
PERFMON = MEASURED / "perfmon_sql.csv"


def _cell(path: Path, line: int, column: int, value: str) -> Path:
    """``path`` with the quoted cell ``column`` (0-based) of ``line`` (1-based) set."""
    lines = path.read_text().splitlines()
    cells = lines[line - 1].split('","')
    cells[column] = value if column else '"' + value
    lines[line - 1] = '","'.join(cells)
    out = path.with_name("changed-" + path.name) if path.parent == MEASURED else path
    out.write_text("\n".join(lines) + "\n")
    return out


@pytest.mark.parametrize("value", ["-512.000000", "nan", "-nan", "inf"])
def test_a_negative_or_nan_perfmon_counter_is_located(tmp_path: Path, value: str) -> None:
    path = tmp_path / "perfmon.csv"
    shutil.copy(PERFMON, path)
    _cell(path, 5, 1, value)  # line 5, Disk Reads/sec of disk 1 E:
    with pytest.raises(ScenarioError) as info:
        perfmon.read(path)
    (problem,) = info.value.problems
    assert (problem.line, problem.column) == (5, 27)
    assert problem.path == "\\\\SQLPROD01\\PhysicalDisk(1 E:)\\Disk Reads/sec"
    assert ("below 0" if value.startswith("-5") else "finite") in problem.message


def test_utf16_and_a_bom_read_as_the_plain_perfmon_file(tmp_path: Path) -> None:
    plain = perfmon.read(PERFMON)
    text = PERFMON.read_text()
    for name, raw in (
        ("relog.csv", text.encode("utf-16")),  # what relog writes on Windows
        ("bom.csv", b"\xef\xbb\xbf" + text.encode()),
    ):
        path = tmp_path / name
        path.write_bytes(raw)
        assert detect(path) == "perfmon"
        assert load([path], "auto").samples == plain.samples, name


def test_esxtop_disk_columns_after_64_kib_are_detected(tmp_path: Path) -> None:
    lines = (MEASURED / "esxtop_batch.csv").read_text().splitlines()
    pad = 2 * HEAD_CHARS // 60  # columns of about 60 characters: twice the head
    names = [f'"\\\\esx01\\Memory\\Padding counter number {i:06d} (KBytes)"' for i in range(pad)]
    first, *rest = lines
    stamp, _, others = first.partition(",")
    wide = [",".join([stamp, *names, others])]
    for line in rest:
        when, _, values = line.partition(",")
        wide.append(",".join([when, *(['"0"'] * pad), values]))
    path = tmp_path / "esxtop.csv"
    path.write_text("\n".join(wide) + "\n")
    assert first.index("Physical Disk") < HEAD_CHARS < wide[0].index("Physical Disk")
    assert detect(path) == "esxtop"
    assert load([path], "auto").samples == esxtop.read(MEASURED / "esxtop_batch.csv").samples


def test_a_bom_keeps_the_first_trace_record_and_the_first_column(tmp_path: Path) -> None:
    msr = tmp_path / "hm_0.csv"
    msr.write_bytes(b"\xef\xbb\xbf" + (MEASURED / "msr_hm_0.csv").read_bytes())
    assert summarize(msr, "msr").records == 30  # not 29
    named = tmp_path / "named.csv"
    named.write_bytes(b"\xef\xbb\xbf" + (MEASURED / "trace_named.csv").read_bytes())
    window = Window(
        time_unit=1e-3,
        columns=(("time", "time_ms"), ("device", "lun"), ("op", "rw"), ("size", "bytes")),
    )
    plain = summarize(MEASURED / "trace_named.csv", "csv", window)
    assert summarize(named, "csv", window).records == plain.records > 0
