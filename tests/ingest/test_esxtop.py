"""esxtop batch-mode reader: the sample file, units, latency choices and located errors."""

from __future__ import annotations

import csv
from pathlib import Path

import pytest

from sanpath.ingest import esxtop
from sanpath.spec import ScenarioError
from tests.conftest import SCENARIOS
from tests.ingest.peak import read_with_peak

SAMPLE = SCENARIOS / "measured" / "esxtop_batch.csv"
D1 = "naa.600508b1001c3a7e5b2f4d8e9a000001"
D2 = "naa.600508b1001c3a7e5b2f4d8e9a000002"
MIB = 1024 * 1024


def raw_rows() -> tuple[list[str], list[list[str]]]:
    with SAMPLE.open(newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], rows[1:]


def cell(header: list[str], row: list[str], obj: str, counter: str) -> float:
    return float(row[header.index(f"\\\\esx01\\{obj}\\{counter}")])


def test_sample_file_devices_and_blank_row() -> None:
    m = esxtop.read(SAMPLE)
    assert m.format == "esxtop"
    assert m.devices == ["adapter:vmhba1", D1, D2]
    counts = {d: sum(1 for s in m.samples if s.device == d) for d in m.devices}
    assert counts == {"adapter:vmhba1": 10, D1: 10, D2: 9}
    assert len(m.warnings) == 1
    assert ":11:" in m.warnings[0] and D2 in m.warnings[0] and "blank" in m.warnings[0]
    assert all(s.host == "esx01" for s in m.samples)


@pytest.mark.parametrize("row_index", [0, 3, 9])
def test_interval_totals_from_raw_numbers(row_index: int) -> None:
    header, rows = raw_rows()
    row = rows[row_index]
    obj = f"Physical Disk SCSI Device({D1})"
    reads = cell(header, row, obj, "Reads/sec")
    writes = cell(header, row, obj, "Writes/sec")
    mb_read = cell(header, row, obj, "MBytes Read/sec")
    mb_written = cell(header, row, obj, "MBytes Written/sec")
    expected_iops = reads + writes
    expected_mb_s = (mb_read + mb_written) * MIB / 1e6
    expected_mean_size = (mb_read + mb_written) * MIB / expected_iops

    m = esxtop.read(SAMPLE)
    s = [x for x in m.samples if x.device == D1][row_index]
    assert s.start == pytest.approx(5.0 * row_index)
    assert s.seconds == pytest.approx(5.0)
    assert s.iops == pytest.approx(expected_iops)
    assert s.bytes_per_s / 1e6 == pytest.approx(expected_mb_s)
    assert s.read_fraction == pytest.approx(reads / expected_iops)
    assert s.bytes_per_s / s.iops == pytest.approx(expected_mean_size)
    # the sample file is an 8 KiB load: MBytes are 2^20 bytes, so the mean size comes out 8192
    assert expected_mean_size == pytest.approx(8192, rel=2e-3)


def test_latencies_in_seconds_and_queues() -> None:
    header, rows = raw_rows()
    row = rows[2]
    obj = f"Physical Disk SCSI Device({D1})"
    s = [x for x in esxtop.read(SAMPLE).samples if x.device == D1][2]
    ms = 1e-3
    assert s.device_latency_s == pytest.approx(
        cell(header, row, obj, "Average Driver MilliSec/Command") * ms
    )
    assert s.kernel_latency_s == pytest.approx(
        cell(header, row, obj, "Average Kernel MilliSec/Command") * ms
    )
    assert s.queue_latency_s == pytest.approx(
        cell(header, row, obj, "Average Queue MilliSec/Command") * ms
    )
    assert s.guest_latency_s == pytest.approx(
        cell(header, row, obj, "Average Guest MilliSec/Command") * ms
    )
    assert s.read_latency_s == pytest.approx(
        cell(header, row, obj, "Average Guest MilliSec/Read") * ms
    )
    assert s.write_latency_s == pytest.approx(
        cell(header, row, obj, "Average Guest MilliSec/Write") * ms
    )
    actv = cell(header, row, obj, "Active Commands")
    qued = cell(header, row, obj, "Queued Commands")
    assert (s.active, s.queued) == (pytest.approx(actv), pytest.approx(qued))
    assert s.queue_length == pytest.approx(actv + qued)
    assert s.queue_depth == cell(header, row, obj, "Device Q Depth")
    adapter = [x for x in esxtop.read(SAMPLE).samples if x.device == "adapter:vmhba1"][2]
    ad_obj = "Physical Disk Adapter(vmhba1)"
    assert adapter.queue_depth == cell(header, row, ad_obj, "Adapter Q Depth")
    assert adapter.read_iops == pytest.approx(cell(header, row, ad_obj, "Reads/sec"))


HEAD = '"(PDH-CSV 4.0) (UTC)(0)"'


def write(tmp_path: Path, counters: list[str], rows: list[list[str]], head: str = HEAD) -> Path:
    obj = "\\\\h1\\Physical Disk SCSI Device(naa.1)\\"
    lines = [",".join([head, *(f'"{obj}{c}"' for c in counters)])]
    lines += [",".join(f'"{c}"' for c in row) for row in rows]
    path = tmp_path / "esxtop.csv"
    path.write_text("\n".join(lines) + "\n")
    return path


RATES = ["Reads/sec", "Writes/sec", "MBytes Read/sec", "MBytes Written/sec"]


def test_latency_fallbacks(tmp_path: Path) -> None:
    counters = [*RATES, "Average Guest MilliSec/Command"]
    path = write(tmp_path, counters, [["01/02/2026 10:00:00", "10", "5", "1", "1", "4.00"]])
    (s,) = esxtop.read(path).samples
    assert s.read_latency_s == s.write_latency_s == pytest.approx(0.004)
    assert s.queue_length is None and s.device_latency_s is None

    counters = [
        *RATES,
        "Average Guest MilliSec/Command",
        "Average Driver MilliSec/Read",
        "Average Kernel MilliSec/Read",
    ]
    row = ["01/02/2026 10:00:00", "10", "5", "1", "1", "4.00", "2.50", "0.25"]
    m = esxtop.read(write(tmp_path, counters, [row]))
    (s,) = m.samples
    assert s.read_latency_s == pytest.approx(0.00275)  # Driver + Kernel per read
    assert s.write_latency_s == pytest.approx(0.004)  # no per-write figure: GAVG
    assert s.seconds == 5.0 and "one sample" in m.warnings[0]


def located(exc: pytest.ExceptionInfo[ScenarioError]) -> tuple[str, int | None, int | None]:
    (problem,) = exc.value.problems
    return problem.source, problem.line, problem.column


def test_wrong_header(tmp_path: Path) -> None:
    path = write(tmp_path, RATES, [["01/02/2026 10:00:00", "1", "1", "1", "1"]], head='"Time"')
    with pytest.raises(ScenarioError, match="PDH-CSV") as exc:
        esxtop.read(path)
    assert located(exc) == (str(path), 1, 1)


def test_truncated_line(tmp_path: Path) -> None:
    rows = [["01/02/2026 10:00:00", "1", "1", "1", "1"], ["01/02/2026 10:00:05", "1", "1"]]
    path = write(tmp_path, RATES, rows)
    with pytest.raises(ScenarioError, match="truncated") as exc:
        esxtop.read(path)
    line3 = path.read_text().splitlines()[2]
    assert located(exc) == (str(path), 3, len(line3) + 1)
    assert "MBytes Read/sec" in exc.value.problems[0].path


@pytest.mark.parametrize("bad", ["abc", "12ms", "1,5"])
def test_non_numeric_cell(tmp_path: Path, bad: str) -> None:
    rows = [
        ["01/02/2026 10:00:00", "1", "1", "1", "1"],
        ["01/02/2026 10:00:05", "1", bad, "1", "1"],
    ]
    path = write(tmp_path, RATES, rows)
    with pytest.raises(ScenarioError, match="not a number") as exc:
        esxtop.read(path)
    line3 = path.read_text().splitlines()[2]
    column = line3.index(f'"{bad}"') + 1
    assert located(exc) == (str(path), 3, column)
    assert exc.value.problems[0].path == "naa.1\\Writes/sec"


def test_blank_among_numbers_and_bad_time(tmp_path: Path) -> None:
    path = write(tmp_path, RATES, [["01/02/2026 10:00:00", "1", " ", "1", "1"]])
    with pytest.raises(ScenarioError, match="blank") as exc:
        esxtop.read(path)
    assert located(exc)[1:] == (2, path.read_text().splitlines()[1].index('" "') + 1)
    path = write(tmp_path, RATES, [["2026-01-02 10:00", "1", "1", "1", "1"]])
    with pytest.raises(ScenarioError, match="MM/DD/YYYY") as exc:
        esxtop.read(path)
    assert located(exc)[1:] == (2, 1)


def test_missing_rate_counter_and_no_disks(tmp_path: Path) -> None:
    path = write(tmp_path, RATES[:3], [["01/02/2026 10:00:00", "1", "1", "1"]])
    with pytest.raises(ScenarioError, match="MBytes Written/sec") as exc:
        esxtop.read(path)
    assert located(exc)[1] == 1
    other = tmp_path / "cpu.csv"
    other.write_text(
        f'{HEAD},"\\\\h\\Physical Cpu(0)\\% Processor Time"\n"01/02/2026 10:00:00","1"\n'
    )
    with pytest.raises(ScenarioError, match="no disk counters"):
        esxtop.read(other)


def test_a_long_batch_file_is_streamed(tmp_path: Path) -> None:
    """Rows are read one at a time and the samples kept as columns: the peak of Python
    allocations stays under twice the file's size, the samples' own columns (reading it
    whole held its text, its lines and every row's cells: more than ten times), and the
    samples are those of the shipped file, repeated."""
    from datetime import datetime, timedelta

    lines = (SCENARIOS / "measured" / "esxtop_batch.csv").read_text().splitlines()
    header, rows = lines[0], [row for row in lines[1:] if row.strip()]
    row = rows[1]
    stamp = row[1 : row.index('"', 1)]
    start = datetime.strptime(stamp, "%m/%d/%Y %H:%M:%S")
    path = tmp_path / "long.csv"
    with path.open("w") as out:
        out.write(header + "\n")
        for k in range(3_000):
            when = (start + timedelta(seconds=5 * k)).strftime("%m/%d/%Y %H:%M:%S")
            out.write(row.replace(stamp, when, 1) + "\n")
    measured, peak = read_with_peak(esxtop.read, path)
    one = esxtop.read(SCENARIOS / "measured" / "esxtop_batch.csv")
    per_row = len({s.device for s in one.samples})
    assert len(measured.samples) == 3_000 * per_row
    assert measured.samples[-1].start == 5.0 * 2_999 and measured.samples[0].seconds == 5.0
    assert peak < 2 * path.stat().st_size, (peak, path.stat().st_size)
