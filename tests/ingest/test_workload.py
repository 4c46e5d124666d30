"""Choosing the interval and turning counters into workloads (hand-built samples, no reader)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import sanpath
from sanpath.ingest import JobSpec, Measured, Sample
from sanpath.ingest.interval import aggregate, choose
from sanpath.ingest.load import import_scenario
from sanpath.ingest.workload import Placement, alike, from_jobs, from_samples, size_mix
from sanpath.spec import ScenarioError


def sample(
    device: str,
    start: float,
    reads: float,
    writes: float,
    read_size: float = 8192,
    write_size: float = 65536,
    seconds: float = 15.0,
    read_ms: float = 4.0,
    write_ms: float = 1.0,
    queue: float = 6.0,
) -> Sample:
    return Sample(
        device=device,
        start=start,
        seconds=seconds,
        read_iops=reads,
        write_iops=writes,
        read_bytes_per_s=reads * read_size,
        write_bytes_per_s=writes * write_size,
        read_latency_s=read_ms / 1e3,
        write_latency_s=write_ms / 1e3,
        queue_length=queue,
    )


def measured(*samples: Sample) -> Measured:
    return Measured(
        "perf.csv",
        "perfmon",
        samples=samples,
        columns={"read_iops": r"\\db\PhysicalDisk(1 E:)\Disk Reads/sec"},
        warnings=("3 samples had a gap",),
    )


# sdb is busiest at 15 s, sdc at 30 s; the sum peaks at 15 s (1600 + 900 > 1000 + 1400).
FILE = measured(
    sample("sdb", 0, 500, 100),
    sample("sdb", 15, 1200, 400, read_ms=8.0),
    sample("sdb", 30, 300, 100),
    sample("sdc", 0, 200, 200, 4096, 4096),
    sample("sdc", 15, 500, 400, 4096, 4096),
    sample("sdc", 30, 1000, 400, 4096, 4096),
)


def test_peak_iops_picks_the_interval_with_the_highest_total() -> None:
    chosen = choose(FILE, "peak-iops")
    assert chosen.start == 15
    assert chosen.samples["sdb"].read_iops == 1200
    assert chosen.samples["sdc"].iops == 900
    assert "15..30 s" in chosen.description


def test_peak_mb_picks_the_interval_with_the_most_bytes() -> None:
    big = measured(sample("sdb", 0, 100, 0, 1 << 20), sample("sdb", 15, 5000, 0, 4096))
    assert choose(big, "peak-mb").start == 0
    assert choose(big, "peak-iops").start == 15


def test_mean_is_time_weighted_for_rates_and_io_weighted_for_latency() -> None:
    long_quiet = sample("d", 0, 100, 0, seconds=30.0, read_ms=10.0, queue=1.0)
    short_busy = sample("d", 30, 1000, 0, seconds=10.0, read_ms=2.0, queue=5.0)
    got = choose(measured(long_quiet, short_busy), "mean").samples["d"]
    assert got.read_iops == pytest.approx((100 * 30 + 1000 * 10) / 40)
    reads = (100 * 30, 1000 * 10)
    assert got.read_latency_s == pytest.approx((reads[0] * 0.010 + reads[1] * 0.002) / sum(reads))
    assert got.queue_length == pytest.approx((1 * 30 + 5 * 10) / 40)
    assert got.seconds == 40


def test_start_end_takes_the_samples_starting_in_the_span() -> None:
    chosen = choose(FILE, "10..40")
    sdb = chosen.samples["sdb"]
    assert sdb.read_iops == pytest.approx((1200 + 300) / 2)
    assert choose(FILE, "0:15..0:30").samples["sdb"].read_iops == 1200
    assert choose(FILE, "30..").samples["sdc"].read_iops == 1000


def test_an_empty_span_is_a_located_error() -> None:
    with pytest.raises(ScenarioError) as err:
        choose(FILE, "300..400")
    text = str(err.value)
    assert text.startswith("perf.csv:")
    assert "interval 300..400 has no samples; the file covers 0..45 s" in text
    with pytest.raises(ScenarioError, match="not an interval"):
        choose(FILE, "peak")


def test_aggregate_of_one_sample_is_that_sample() -> None:
    s = sample("x", 0, 10, 5)
    assert aggregate([s]).read_iops == s.read_iops
    assert aggregate([s]).write_latency_s == s.write_latency_s


def mix_mean(mix: list[list[float]]) -> float:
    return sum(size * weight for size, weight in mix) / sum(w for _, w in mix)


@pytest.mark.parametrize(
    ("reads", "writes", "read_size", "write_size"),
    [(700, 300, 8192, 65536), (1000, 0, 4300, 0), (10, 990, 3000, 1234), (1, 1, 700.5, 1e6)],
)
def test_size_mix_keeps_the_mean_within_a_percent(
    reads: float, writes: float, read_size: float, write_size: float
) -> None:
    mix, _ = size_mix(reads, writes, reads * read_size, writes * write_size)
    exact = (reads * read_size + writes * write_size) / (reads + writes)
    assert mix_mean(mix) == pytest.approx(exact, rel=0.01)
    assert all(size % 512 == 0 for size, _ in mix)


def test_alike_devices_merge_into_one_workload() -> None:
    a, b = sample("a", 0, 1000, 500), sample("b", 0, 1100, 520)
    c = sample("c", 0, 1000, 500, read_size=32768)
    assert alike(a, b) and not alike(a, c)
    placement = Placement(hosts=1, lun_counts={"A": 1, "B": 1, "C": 1})
    loads = from_samples({"a": a, "b": b, "c": c}, {"a": "A", "b": "B", "c": "C"}, placement)
    assert [w.data["luns"] for w in loads] == [["A", "B"], ["C"]]
    assert "merged" in loads[0].comment
    assert loads[0].data["rate"] == pytest.approx(a.iops + b.iops)


def test_closed_loop_takes_outstanding_from_the_queue_length() -> None:
    s = sample("a", 0, 1000, 0, queue=16.0)
    placement = Placement(hosts=2, lun_counts={"A": 4})
    (w,) = from_samples({"a": s}, {"a": "A"}, placement, load="closed")
    assert w.data["outstanding"] == 2 and "rate" not in w.data


def test_large_sizes_are_sequential() -> None:
    s = sample("a", 0, 100, 0, read_size=256 * 1024)
    (w,) = from_samples({"a": s}, {"a": "A"}, Placement(1, {"A": 1}))
    assert w.data["pattern"] == "sequential"


def test_fio_jobs_become_closed_loops_with_their_mix() -> None:
    job = JobSpec(
        "oltp",
        read_fraction=0.7,
        random_fraction=0.8,
        block_sizes=((8192, 1.0),),
        write_block_sizes=((65536, 1.0),),
        iodepth=16,
        numjobs=4,
    )
    (w,) = from_jobs([job], {"oltp": "data"}, Placement(1, {"data": 1}))
    assert w.data["outstanding"] == 16 and w.data["threads"] == 4
    assert w.data["block_size"] == [[8192, 1.0]]
    assert w.data["write_block_size"] == [[65536, 1.0]]
    assert w.data["pattern"] == "random" and w.data["random_fraction"] == pytest.approx(0.8)
    assert "write_block_size" in w.comment


def written_figures(path: Path) -> tuple[float, float, float, float]:
    """Total IOPS, MB/s, read fraction and mean size of a written scenario (one host)."""
    scenario = sanpath.load_scenario(path)
    rates = [w.rate or 0.0 for w in scenario.workloads]
    iops = sum(rates)
    mb = sum(r * w.mean_block_size for r, w in zip(rates, scenario.workloads, strict=True))
    reads = sum(r * w.read_fraction for r, w in zip(rates, scenario.workloads, strict=True))
    return iops, mb / 1e6, reads / iops, mb / iops


@pytest.mark.parametrize("interval", ["peak-iops", "mean", "20..50"])
def test_written_scenario_reproduces_the_interval(tmp_path: Path, interval: str) -> None:
    out = tmp_path / "new.yaml"
    import_scenario([FILE], out=out, interval=interval)
    chosen = choose(FILE, interval).samples.values()
    iops = sum(s.iops for s in chosen)
    mb = sum(s.bytes_per_s for s in chosen) / 1e6
    reads = sum(s.read_iops for s in chosen) / iops
    got = written_figures(out)
    assert got[0] == pytest.approx(iops, rel=0.01)
    assert got[1] == pytest.approx(mb, rel=0.01)
    assert got[2] == pytest.approx(reads, rel=0.01)
    assert got[3] == pytest.approx(mb * 1e6 / iops, rel=0.01)
    scenario = sanpath.load_scenario(out)
    assert scenario.reference is not None
    points = {p.metric: p for p in scenario.reference.points}
    assert points["iops"].role == "measured" and points["iops"].value == pytest.approx(
        iops, rel=1e-4
    )
    assert points["mb_per_s"].value == pytest.approx(mb, rel=1e-4)
    assert math.isfinite(points["latency_ms_mean"].value or math.nan)
