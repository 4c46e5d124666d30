"""``sanpath import`` of block traces, and every sample's totals reproduced within 1%.

For traces the totals to meet are the trace's own (records over its span, bytes, reads),
computed by :func:`sanpath.traces.summarize`, which ``tests/traces`` checks against the
files' text. For interval counters they are the chosen interval's, summed over devices.
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest

import sanpath
from sanpath.cli import main
from sanpath.ingest.interval import choose
from sanpath.ingest.load import import_scenario, load
from sanpath.ingest.trace import TraceOptions, size_mix
from sanpath.spec import Scenario
from sanpath.traces import Window, summarize
from tests.conftest import SCENARIOS
from tests.ingest.test_import_cli import NAMED_COLUMNS, base_copy

MEASURED = SCENARIOS / "measured"
TRACES = [
    ("msr_hm_0.csv", "msr", TraceOptions(), Window()),
    ("spc_financial.spc", "spc", TraceOptions(), Window()),
    ("alibaba.csv", "alibaba", TraceOptions(), Window()),
    ("tencent_cbs.csv", "tencent", TraceOptions(), Window()),
    ("fio_iolog_v3.log", "fio-iolog", TraceOptions(), Window()),
    ("fio_iolog_v2.log", "fio-iolog", TraceOptions(outstanding=4), Window()),
    ("blkparse_sdb.txt", "blkparse", TraceOptions(), Window()),
    (
        "trace_named.csv",
        "csv",
        TraceOptions(columns=NAMED_COLUMNS, time_unit="ms"),
        Window(columns=NAMED_COLUMNS, time_unit=1e-3),
    ),
]


def figures(scenario: Scenario) -> tuple[float, float, float, float]:
    """IOPS, MB/s, read fraction and mean size the written workloads stand for."""
    rates = [w.rate or 0.0 for w in scenario.workloads]
    iops = sum(rates)
    mb = sum(r * w.mean_block_size for r, w in zip(rates, scenario.workloads, strict=True))
    reads = sum(r * w.read_fraction for r, w in zip(rates, scenario.workloads, strict=True))
    return iops, mb / 1e6, reads / iops, mb / iops


def copied(tmp_path: Path, name: str) -> Path:
    shutil.copy(MEASURED / name, tmp_path / name)
    return tmp_path / name


@pytest.mark.parametrize(
    ("sample", "fmt", "options", "window"), TRACES, ids=[f"{t[1]}-{t[0]}" for t in TRACES]
)
def test_an_imported_trace_reproduces_the_traces_totals(
    tmp_path: Path, sample: str, fmt: str, options: TraceOptions, window: Window
) -> None:
    path = copied(tmp_path, sample)
    out = tmp_path / "sub" / "replay.yaml"
    out.parent.mkdir()
    import_scenario([path], out=out, format=fmt, trace=options)
    s = summarize(path, fmt, window)
    scenario = sanpath.load_scenario(out)
    (w,) = scenario.workloads
    assert w.trace is not None and Path(w.trace.file) == path.resolve()
    assert "../" + sample in out.read_text()  # written relative to the scenario
    assert w.read_fraction == pytest.approx(s.read_fraction, rel=0.01)
    assert w.mean_block_size == pytest.approx(s.mean_size, rel=0.01)
    if options.outstanding is None:
        iops, mb, reads, size = figures(scenario)
        assert iops == pytest.approx(s.iops, rel=0.01)
        assert mb == pytest.approx(s.iops * s.mean_size / 1e6, rel=0.01)
        assert reads == pytest.approx(s.read_fraction, rel=0.01)
        assert size == pytest.approx(s.mean_size, rel=0.01)
        assert scenario.reference is not None
        points = {p.metric: p for p in scenario.reference.points}
        assert points["iops"].role == "measured"
        assert points["iops"].value == pytest.approx(s.iops, rel=1e-4)
        assert points["mb_per_s"].value == pytest.approx(
            s.bytes / s.records * s.iops / 1e6, rel=1e-4
        )
        if s.read_response is not None:
            assert points["read_latency_ms_mean"].value == pytest.approx(
                1e3 * s.read_response, rel=1e-4
            )
        assert ("latency_ms_mean" in points) == (s.responses > 0)
    else:
        assert w.outstanding == options.outstanding and w.rate is None
    # the scenario replays every record of the trace
    result = sanpath.run(out)
    assert result.totals["ios_completed"] == s.records
    assert result.totals["bytes_completed"] == s.bytes


def test_every_lun_holds_its_devices_addresses(tmp_path: Path) -> None:
    path = copied(tmp_path, "alibaba.csv")
    out = tmp_path / "a.yaml"
    import_scenario([path], out=out)
    s = summarize(path, "alibaba")
    scenario = sanpath.load_scenario(out)
    trace = scenario.workloads[0].trace
    assert trace is not None
    sizes = {g.name: g.size for g in scenario.array.luns}
    for device, lun in trace.targets.items():
        assert sizes[lun] is not None and sizes[lun] >= s.top(device)
    result = sanpath.run(out)
    assert result.extra["trace"]["alibaba"]["wrapped"] == 0


def test_a_span_and_the_peak(tmp_path: Path) -> None:
    path = copied(tmp_path, "tencent_cbs.csv")
    out = tmp_path / "t.yaml"
    import_scenario([path], out=out, interval="1..3")
    trace = sanpath.load_scenario(out).workloads[0].trace
    assert trace is not None and (trace.start, trace.end) == (1.0, 3.0)
    rows = [int(line.split(",")[0]) for line in path.read_text().split()]
    inside = sum(1 for t in rows if 1 <= t - rows[0] < 3)
    assert sanpath.run(out).totals["ios_completed"] == inside
    import_scenario([path], out=out, interval="peak-iops", force=True)
    trace = sanpath.load_scenario(out).workloads[0].trace
    counts = [sum(1 for t in rows if t - rows[0] == k) for k in range(5)]
    best = counts.index(max(counts))
    assert trace is not None and (trace.start, trace.end) == (best, best + 1)


def test_into_a_base_and_map(tmp_path: Path) -> None:
    base = base_copy(tmp_path)
    path = copied(tmp_path, "alibaba.csv")
    out = tmp_path / "into.yaml"
    import_scenario([path], out=out, into=base, map=["419=data", "420=logs"])
    text = out.read_text()
    assert "One database host" in text  # the base's comments
    scenario = sanpath.load_scenario(out)
    (w,) = scenario.workloads
    assert w.trace is not None and w.trace.targets == {"419": "data", "420": "logs"}
    assert w.hosts == ("db",) and set(w.luns) == {"data", "logs"}


def test_the_command_line_prints_the_summary(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copied(tmp_path, "blkparse_sdb.txt")
    out = tmp_path / "b.yaml"
    assert main(["import", str(path), "--speed", "2", "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    s = summarize(path, "blkparse")
    assert f"{s.records:,} records over" in printed and "size mix:" in printed
    assert "sequential:" in printed and "footprint:" in printed
    assert "response times recorded in the trace: read mean" in printed
    text = out.read_text()
    assert "# IOPS: mean" in text and "# footprint:" in text
    (w,) = sanpath.load_scenario(out).workloads
    assert w.trace is not None and w.trace.speed == 2.0
    assert w.rate == pytest.approx(2 * s.iops, rel=1e-5)


def test_size_mix_keeps_the_mean_exact() -> None:
    sizes = {512 * (i + 1): 100 - i for i in range(40)}
    mix = size_mix(sizes)
    assert len(mix) <= 14 and math.isclose(sum(w for _, w in mix), 1.0, rel_tol=1e-8)
    mean = sum(s * n for s, n in sizes.items()) / sum(sizes.values())
    assert sum(s * w for s, w in mix) == pytest.approx(mean, rel=1e-6)


COUNTERS = [
    ("perfmon_sql.csv", {}),
    ("iostat_x.txt", {}),
    ("iostat_x_old.txt", {}),
    ("iostat.json", {}),
    ("sadf_d.csv", {}),
    ("esxtop_batch.csv", {}),
]


@pytest.mark.parametrize(("sample", "extra"), COUNTERS, ids=[c[0] for c in COUNTERS])
@pytest.mark.parametrize("interval", ["peak-iops", "mean"])
def test_every_counter_sample_reproduces_its_interval(
    tmp_path: Path, sample: str, extra: dict[str, Any], interval: str
) -> None:
    path = copied(tmp_path, sample)
    out = tmp_path / "c.yaml"
    import_scenario([path], out=out, interval=interval, **extra)
    measured = load(path)
    chosen = choose(measured, interval).samples.values()
    disks = [s for s in chosen if not s.device.startswith("adapter:") and s.iops > 0]
    iops = sum(s.iops for s in disks)
    mb = sum(s.bytes_per_s for s in disks) / 1e6
    got = figures(sanpath.load_scenario(out))
    assert got[0] == pytest.approx(iops, rel=0.01)
    assert got[1] == pytest.approx(mb, rel=0.01)
    assert got[2] == pytest.approx(sum(s.read_iops for s in disks) / iops, rel=0.01)
    assert got[3] == pytest.approx(mb * 1e6 / iops, rel=0.01)


def test_a_fio_result_reproduces_each_job_and_the_totals(tmp_path: Path) -> None:
    path = copied(tmp_path, "fio_result.json")
    out = tmp_path / "f.yaml"
    import_scenario([path], out=out)
    jobs = {s.device: s for s in load(path).samples}
    scenario = sanpath.load_scenario(out)
    for w in scenario.workloads:  # closed loops at the jobs' iodepth: the mix is the job's
        job = jobs[w.name]
        assert w.read_fraction == pytest.approx(job.read_fraction, rel=0.01)
        assert w.mean_block_size == pytest.approx(job.bytes_per_s / job.iops, rel=0.01)
    assert scenario.reference is not None
    points = {p.metric: p.value for p in scenario.reference.points}
    assert points["iops"] == pytest.approx(sum(j.iops for j in jobs.values()), rel=0.01)
    assert points["mb_per_s"] == pytest.approx(
        sum(j.bytes_per_s for j in jobs.values()) / 1e6, rel=0.01
    )


def test_a_map_imports_the_figures_of_its_devices_only(tmp_path: Path) -> None:
    path = copied(tmp_path, "msr_hm_0.csv")
    two = tmp_path / "two.csv"
    other = [line.replace(",hm,0,", ",hm,1,") for line in path.read_text().splitlines()[::3]]
    two.write_text(path.read_text() + "\n".join(other) + "\n")
    out = tmp_path / "one.yaml"
    import_scenario([two], out=out, format="msr", map=["hm_0=data"])
    only = summarize(two, "msr", Window(devices=frozenset({"hm_0"})))
    everything = summarize(two, "msr")
    (w,) = sanpath.load_scenario(out).workloads
    assert only.records == 30 and everything.records == 40
    assert w.rate == pytest.approx(only.iops, rel=1e-5)
    assert w.read_fraction == pytest.approx(only.read_fraction, rel=1e-5)
    assert only.read_response == pytest.approx(summarize(path, "msr").read_response)
    assert "only the mapped devices are replayed" in out.read_text()


def test_a_closed_loop_import_needs_its_depth(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = copied(tmp_path, "spc_financial.spc")
    out = tmp_path / "c.yaml"
    assert main(["import", str(path), "--load", "closed", "--out", str(out)]) == 2
    assert "--outstanding N" in capsys.readouterr().err and not out.exists()
    assert main(["import", str(path), "--outstanding", "12", "--out", str(out)]) == 0
    (w,) = sanpath.load_scenario(out).workloads
    assert w.outstanding == 12 and w.rate is None
