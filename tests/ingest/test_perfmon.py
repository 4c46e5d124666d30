"""The perfmon CSV reader: hand-computed figures of the sample file, units, located errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanpath.ingest import perfmon
from sanpath.spec import ScenarioError

ROOT = Path(__file__).resolve().parents[2]
SAMPLE = ROOT / "scenarios" / "measured" / "perfmon_sql.csv"
HEAD = '"(PDH-CSV 4.0) (W. Europe Standard Time)(-60)"'
COUNTERS = [
    "Disk Reads/sec",
    "Disk Writes/sec",
    "Disk Read Bytes/sec",
    "Disk Write Bytes/sec",
    "Avg. Disk sec/Read",
    "Avg. Disk sec/Write",
    "Avg. Disk Queue Length",
]


def _file(tmp_path: Path, rows: list[str], objects: tuple[str, ...] = ("PhysicalDisk",)) -> Path:
    paths = [f'"\\\\H1\\{o}(0 C:)\\{c}"' for o in objects for c in COUNTERS]
    path = tmp_path / "p.csv"
    path.write_text("\n".join([",".join([HEAD, *paths]), *rows]) + "\n")
    return path


def _row(stamp: str, cells: list[str]) -> str:
    return ",".join(f'"{c}"' for c in [stamp, *cells])


GOOD = ["100", "50", "819200", "1638400", "0.004", "0.002", "0.5"]


def _problem(path: Path) -> tuple[int | None, int | None, str]:
    with pytest.raises(ScenarioError) as info:
        perfmon.read(path)
    (problem,) = info.value.problems
    assert problem.source == str(path)
    return problem.line, problem.column, problem.path


def test_sample_file_peak_interval() -> None:
    m = perfmon.read(SAMPLE)
    assert m.format == "perfmon"
    assert m.devices == ["1 E:", "2 F:"]  # _Total skipped
    assert any("first sample" in w for w in m.warnings)
    assert {s.host for s in m.samples} == {"SQLPROD01"}
    e = [s for s in m.samples if s.device == "1 E:"]
    assert len(e) == 12
    assert [s.start for s in e[:3]] == [0.0, pytest.approx(15.0), pytest.approx(30.001)]
    # row 9 of the file (7th interval, 14:01:45.125): the peak; raw cells as written
    peak = e[6]
    assert peak.seconds == pytest.approx(14.998)  # 14:01:30.127 -> 14:01:45.125
    reads, writes, rbytes, wbytes = 5360.0, 1190.0, 175636480.0, 38993920.0
    assert peak.iops == pytest.approx(reads + writes)
    assert peak.bytes_per_s / 1e6 == pytest.approx((rbytes + wbytes) / 1e6)
    assert peak.read_fraction == pytest.approx(reads / (reads + writes))
    assert peak.read_bytes_per_s / peak.read_iops == pytest.approx(32 * 1024)  # 32 KiB reads
    assert peak.read_latency_s == pytest.approx(0.0087)  # perfmon writes seconds already
    assert peak.write_latency_s == pytest.approx(0.0034)
    assert peak.queue_length == pytest.approx(50.678)  # Avg. rather than Current (38)
    assert max(e, key=lambda s: s.iops) is peak


def test_first_row_interval_is_the_seconds_and_total_only(tmp_path: Path) -> None:
    rows = [_row("01/15/2024 10:00:00.000", GOOD), _row("01/15/2024 10:00:05.000", GOOD)]
    paths = [f'"\\\\H1\\PhysicalDisk(_Total)\\{c}"' for c in COUNTERS]
    path = tmp_path / "t.csv"
    path.write_text("\n".join([",".join([HEAD, *paths]), *rows]) + "\n")
    m = perfmon.read(path)
    assert m.devices == ["_Total"]
    assert [(s.start, s.seconds) for s in m.samples] == [(0.0, 5.0), (5.0, 5.0)]
    assert m.samples[0].read_bytes_per_s / m.samples[0].read_iops == 8192


def test_logical_disk_ignored_with_a_warning(tmp_path: Path) -> None:
    rows = [_row(f"01/15/2024 10:00:0{k}.000", GOOD + GOOD) for k in (0, 5)]
    m = perfmon.read(_file(tmp_path, rows, ("PhysicalDisk", "LogicalDisk")))
    assert any("LogicalDisk" in w for w in m.warnings)
    assert len(m.samples) == 2


@pytest.mark.parametrize(
    ("rows", "where"),
    [
        (
            [_row("01/15/2024 10:00:00.000", GOOD), _row("01/15/2024 10:00:05.000", GOOD[:4])],
            (3, None),
        ),
        (
            [
                _row("01/15/2024 10:00:00.000", GOOD),
                _row("01/15/2024 10:00:05.000", ["12ms", *GOOD[1:]]),
            ],
            (3, 27),
        ),
        (
            [
                _row("01/15/2024 10:00:00.000", GOOD),
                _row("01/15/2024 10:00:05.000", [*GOOD[:4], "abc", *GOOD[5:]]),
            ],
            (3, None),
        ),
        ([_row("15.01.2024 10:00:00", GOOD), _row("01/15/2024 10:00:05.000", GOOD)], (2, 1)),
    ],
    ids=["truncated", "unit-in-cell", "non-numeric", "bad-time"],
)
def test_bad_rows_are_located(
    tmp_path: Path, rows: list[str], where: tuple[int, int | None]
) -> None:
    line, column, _ = _problem(_file(tmp_path, rows))
    assert line == where[0]
    if where[1] is not None:
        assert column == where[1]
    assert column is not None and column > 0


def test_non_numeric_names_the_counter(tmp_path: Path) -> None:
    rows = [
        _row("01/15/2024 10:00:00.000", GOOD),
        _row("01/15/2024 10:00:05.000", [*GOOD[:4], "abc", *GOOD[5:]]),
    ]
    line, column, where = _problem(_file(tmp_path, rows))
    text = rows[1]
    assert (line, column) == (3, text.index('"abc"') + 1)
    assert where.endswith("Avg. Disk sec/Read")


def test_bad_headers_and_empty_file(tmp_path: Path) -> None:
    empty = tmp_path / "e.csv"
    empty.write_text("")
    assert _problem(empty)[:2] == (1, 1)
    wrong = tmp_path / "w.csv"
    wrong.write_text(
        '"Time","\\\\H1\\PhysicalDisk(0 C:)\\Disk Reads/sec"\n"01/15/2024 10:00:00.000","1"\n'
    )
    assert _problem(wrong) == (1, 1, "header")
    no_disk = tmp_path / "n.csv"
    no_disk.write_text(f'{HEAD},"\\\\H1\\Processor(_Total)\\% Processor Time"\n')
    assert _problem(no_disk)[0] == 1
    only_blank = _file(tmp_path, [_row("01/15/2024 10:00:00.000", [" "] * 7)])
    assert _problem(only_blank)[0] is not None
