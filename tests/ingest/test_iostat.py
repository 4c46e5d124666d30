"""The sysstat readers (iostat -x text, iostat JSON, sadf -d): hand-computed figures, errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanpath.ingest import iostat
from sanpath.spec import ScenarioError
from tests.ingest.peak import read_with_peak

MEASURED = Path(__file__).resolve().parents[2] / "scenarios" / "measured"
KIB, SECTOR = 1024, 512
BANNER = "Linux 5.15.0 (h1) \t01/15/2024 \t_x86_64_\t(4 CPU)\n\n"
OLD = (
    "Device:         rrqm/s   wrqm/s     r/s     w/s   rsec/s  "
    " wsec/s avgrq-sz avgqu-sz   await r_await w_await  svctm  %util\n"
)
OLD_ROW = (
    "sda              0.00     0.00  100.00   50.00  1600.00 "
    " 6400.00    53.33     0.30    2.00    2.50    1.00   0.50  7.50\n"
)
MID = (
    "Device            r/s     w/s     rMB/s     wMB/s   rrqm/s   wrqm/s"
    "  %rrqm  %wrqm r_await w_await aqu-sz rareq-sz wareq-sz  svctm  %util\n"
)
MID_ROW = (
    "sda            200.00  100.00     12.50      3.125    0.00    "
    " 0.00   0.00   0.00    1.00    2.00   0.40    64.00    32.00   0.30  9.00\n"
)


def _problem(path: Path) -> tuple[int | None, int | None, str]:
    with pytest.raises(ScenarioError) as info:
        iostat.read(path)
    (problem,) = info.value.problems
    assert problem.source == str(path)
    return problem.line, problem.column, problem.path


def _write(tmp_path: Path, text: str, name: str = "io.txt") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def _reports(header: str, row: str, times: tuple[str, ...] = ("10:00:00", "10:00:10")) -> str:
    return BANNER + "".join(f"01/15/2024 {t}\n{header}{row}\n" for t in times)


def test_current_columns_peak_report() -> None:
    m = iostat.read(MEASURED / "iostat_x.txt")
    assert m.devices == ["sdb", "sdc"] and len(m.samples) == 14  # 8 reports, first skipped
    assert any("since boot" in w for w in m.warnings)
    assert {s.host for s in m.samples} == {"dbhost01"}
    # the 5th report (02:00:20 PM) as written: r/s 5240, rkB/s 167680, w/s 1490, wkB/s 47680
    sdb = [s for s in m.samples if s.device == "sdb"]
    peak = sdb[3]
    assert (peak.start, peak.seconds) == (15.0, 5.0)
    assert peak.iops == pytest.approx(5240 + 1490)
    assert peak.bytes_per_s / 1e6 == pytest.approx((167680 + 47680) * KIB / 1e6)
    assert peak.read_fraction == pytest.approx(5240 / 6730)
    assert peak.read_bytes_per_s / peak.read_iops == pytest.approx(32 * KIB)  # rareq-sz 32
    assert (peak.read_latency_s, peak.write_latency_s) == pytest.approx((0.0078, 0.0029))
    assert peak.queue_length == pytest.approx(45.19)  # aqu-sz as written
    assert peak.utilization == pytest.approx(0.992)


def test_old_columns_sectors_in_avgrq_sz() -> None:
    m = iostat.read(MEASURED / "iostat_x_old.txt")
    assert m.devices == ["sda", "sdd"] and len(m.samples) == 8
    assert m.columns["queue_length"] == "avgqu-sz"
    # 2nd kept report of sdd (09:30:20 AM): r/s 860, w/s 2010, rkB/s 27520, wkB/s 16080,
    # avgrq-sz 30.39 sectors
    sdd = [s for s in m.samples if s.device == "sdd"][1]
    assert sdd.seconds == 10.0
    assert sdd.iops == pytest.approx(2870)
    assert sdd.bytes_per_s == pytest.approx((27520 + 16080) * KIB)
    assert sdd.bytes_per_s / sdd.iops == pytest.approx(30.39 * SECTOR, rel=1e-3)
    assert sdd.read_latency_s == pytest.approx(0.0043)


def test_sectors_and_megabytes(tmp_path: Path) -> None:
    old = iostat.read(_write(tmp_path, _reports(OLD, OLD_ROW)))
    (s,) = old.samples
    assert s.read_bytes_per_s == 1600 * SECTOR and s.write_bytes_per_s == 6400 * SECTOR
    assert s.bytes_per_s / s.iops == pytest.approx(53.33 * SECTOR, rel=1e-3)
    mid = iostat.read(_write(tmp_path, _reports(MID, MID_ROW), "mid.txt"))
    (s,) = mid.samples
    assert s.read_bytes_per_s == 12.5 * KIB * KIB
    assert s.read_bytes_per_s / s.read_iops == 64 * KIB  # rareq-sz in kB
    assert s.write_latency_s == pytest.approx(0.002)


def test_json_and_sadf() -> None:
    j = iostat.read(MEASURED / "iostat.json")
    assert j.devices == ["nvme0n1", "nvme1n1"] and len(j.samples) == 6
    # 3rd statistics entry (16:20:20): r/s 4210, rkB/s 67360, w/s 1380, wkB/s 44160
    s = j.samples[2]
    assert (s.device, s.host, s.start, s.seconds) == ("nvme0n1", "web07", 10.0, 10.0)
    assert s.iops == pytest.approx(5590)
    assert s.bytes_per_s == pytest.approx((67360 + 44160) * KIB)
    assert s.read_fraction == pytest.approx(4210 / 5590)
    d = iostat.read(MEASURED / "sadf_d.csv")
    assert d.devices == ["sdb", "sdc"] and len(d.samples) == 12
    assert any("share of bytes" in w for w in d.warnings)
    # 13:04:00 sdb: tps 5610, rkB/s 67320, wkB/s 22440, areq-sz 16, await 6.80
    s = d.samples[6]
    assert (s.device, s.start, s.seconds) == ("sdb", 180.0, 60.0)
    assert s.iops == pytest.approx(5610)
    assert s.read_fraction == pytest.approx(67320 / (67320 + 22440))
    assert s.bytes_per_s / s.iops == pytest.approx(16 * KIB)
    assert s.read_latency_s == s.write_latency_s == pytest.approx(0.0068)


def test_bad_text_files_are_located(tmp_path: Path) -> None:
    assert _problem(_write(tmp_path, "")) == (1, 1, "file")
    only_boot = _write(tmp_path, _reports(OLD, OLD_ROW, ("10:00:00",)), "b.txt")
    assert _problem(only_boot)[:2] == (3, 1)
    wrong = _write(tmp_path, _reports("Dev r/s w/s\n", "sda 1 2\n"), "w.txt")
    assert _problem(wrong)[:2] == (4, 1)
    missing = _write(tmp_path, _reports("Device r/s w/s\n", "sda 1 2\n"), "m.txt")
    assert _problem(missing) == (4, 1, "header")
    truncated = _write(tmp_path, _reports(OLD, OLD_ROW[:60] + "\n"), "t.txt")
    line, column, where = _problem(truncated)
    assert (line, column, where) == (5, 61, "avgrq-sz")
    unit = _write(
        tmp_path, _reports(OLD, OLD_ROW.replace("   2.00    2.50", " 2.00ms    2.50")), "u.txt"
    )
    line, column, where = _problem(unit)
    assert (line, where) == (5, "await") and column == OLD_ROW.index("2.00    2.50") - 1
    text = _write(tmp_path, _reports(OLD, OLD_ROW.replace("100.00", "  many")), "x.txt")
    assert _problem(text) == (5, OLD_ROW.index("100.00") + 3, "r/s")


def test_bad_json_and_sadf_are_located(tmp_path: Path) -> None:
    broken = _write(tmp_path, '{"sysstat": {"hosts": [\n{"nodename": "x",, }]}}', "b.json")
    assert _problem(broken)[:2] == (2, 18)
    good = (MEASURED / "iostat.json").read_text()
    bad = good.replace('"r/s": 4210.00', '"r/s": "12ms"')
    line, column, where = _problem(_write(tmp_path, bad, "v.json"))
    assert where == "r/s" and good.splitlines()[line - 1].find('"r/s": 4210.00') == column - 1
    head = good.split("\t\t\t\t},\n\t\t\t\t{")[0] + "\t\t\t\t}\n\t\t\t]\n\t\t}\n\t]\n}}\n"
    assert _problem(_write(tmp_path, head, "one.json"))[2] == "statistics"
    sadf = (MEASURED / "sadf_d.csv").read_text().splitlines()
    sadf[3] = sadf[3].replace(";2.00;", ";2.00ms;")
    line, column, where = _problem(_write(tmp_path, "\n".join(sadf) + "\n", "s.csv"))
    assert (line, where) == (4, "await") and column == sadf[3].index("2.00ms") + 1
    sadf[3] = sadf[3].rsplit(";", 3)[0]
    assert _problem(_write(tmp_path, "\n".join(sadf) + "\n", "s2.csv"))[:2] == (4, len(sadf[3]) + 1)


def _long_report(tmp_path: Path, reports: int) -> Path:
    """The shipped iostat -x -t sample's second report repeated ``reports`` times, 5 s apart."""
    text = Path("scenarios/measured/iostat_x.txt").read_text().splitlines()
    banner = next(line for line in text if line.startswith("Linux "))
    start = next(i for i, line in enumerate(text) if line.endswith("02:00:05 PM"))
    block = text[start + 1 : start + 7]  # avg-cpu, its values, blank, header, two rows
    lines = [banner, ""]
    for r in range(reports):
        seconds = 5 * r
        lines.append(
            f"01/15/2024 {2 + seconds // 3600:02d}:{seconds // 60 % 60:02d}:{seconds % 60:02d} PM"
        )
        lines += [*block, ""]
    path = tmp_path / "long.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_a_long_text_report_is_streamed(tmp_path: Path) -> None:
    """Reading holds one report's rows at a time and keeps the samples as columns: the peak
    of Python allocations stays under the file's own size (reading it whole would hold the
    text, its lines and every report's rows)."""
    path = _long_report(tmp_path, 2_000)
    measured, peak = read_with_peak(iostat.read, path)
    assert len(measured.samples) == 2 * 1_999  # the first report is the since-boot average
    assert measured.samples[0].start == 0.0 and measured.samples[-1].seconds == 5.0
    assert peak < path.stat().st_size / 2, (peak, path.stat().st_size)


def test_a_byte_that_does_not_decode_late_in_a_report_is_located(tmp_path: Path) -> None:
    path = _long_report(tmp_path, 50)
    data = path.read_bytes()
    cut = data.index(b"sdc", len(data) // 2)
    path.write_bytes(data[:cut] + b"\xff" + data[cut:])
    line = data[:cut].count(b"\n") + 1
    with pytest.raises(ScenarioError) as caught:
        iostat.read(path)
    assert f"long.txt:{line}:" in str(caught.value)
