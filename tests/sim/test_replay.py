"""Trace replay through the simulator: every record, its time, its place, in order.

The figures to meet come from the trace itself (:func:`sanpath.traces.summarize` or the
file's text), not from an earlier run: every record issued and completed, bytes conserved,
the open loop's arrival rate equal to the trace's times ``speed``, the closed loop's I/Os in
flight equal to its depth, each device on the LUN ``map`` names.
"""

from __future__ import annotations

from collections.abc import Generator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import sanpath
from sanpath.sim.engine import Simulation
from sanpath.spec import load_scenario
from sanpath.traces import summarize
from tests.conftest import SCENARIOS

MEASURED = SCENARIOS / "measured"
NAMED = {
    "columns": {
        "time": "time_ms",
        "device": "lun",
        "op": "rw",
        "size": "bytes",
        "latency": "latency_ms",
    },
    "time_unit": "ms",
}
SAMPLES = [
    ("msr_hm_0.csv", "msr", {}),
    ("spc_financial.spc", "spc", {}),
    ("alibaba.csv", "alibaba", {}),
    ("tencent_cbs.csv", "tencent", {}),
    ("fio_iolog_v3.log", "fio-iolog", {}),
    ("blkparse_sdb.txt", "blkparse", {}),
    ("trace_named.csv", "csv", NAMED),
]


def scenario(
    trace: dict[str, Any],
    *,
    rate: float | None = 100.0,
    outstanding: int | None = None,
    luns: tuple[str, ...] = ("data",),
    lun_size: str = "1TiB",
    run: dict[str, Any] | None = None,
    read_ahead: str = "0",
) -> dict[str, Any]:
    """A small SSD array with one LUN group per name in ``luns``, replaying ``trace``."""
    workload: dict[str, Any] = {"name": "replay", "luns": list(luns), "trace": trace}
    if outstanding is not None:
        workload["outstanding"] = outstanding
    else:
        workload["rate"] = rate
    return {
        "name": "replay",
        "seed": 1,
        "run": run or {"warmup_ios": 0},
        "hosts": [{"name": "h", "hbas": [{"count": 1, "ports": 2, "queue_depth": 64}]}],
        "array": {
            "ports": 2,
            "controller": {"cores": 2, "io_time": "20us"},
            "cache": {"read_ahead": read_ahead},
            "pools": [{"name": "p", "raid": "raid5", "drives": 5, "groups": 20, "drive": "ssd"}],
            "luns": [{"name": n, "pool": "p", "size": lun_size} for n in luns],
        },
        "workloads": [workload],
    }


@pytest.mark.parametrize(("sample", "fmt", "extra"), SAMPLES, ids=[s[1] for s in SAMPLES])
def test_every_record_completes_and_bytes_are_conserved(
    sample: str, fmt: str, extra: dict[str, Any]
) -> None:
    trace = {"file": str(MEASURED / sample), "format": fmt, **extra}
    s = summarize(
        MEASURED / sample, fmt, load_scenario(scenario(trace)).workloads[0].trace.window()
    )  # type: ignore[union-attr]
    result = sanpath.run(scenario(trace))
    totals = result.totals
    assert totals["ios_issued"] == totals["ios_completed"] == s.records
    assert totals["bytes_issued"] == totals["bytes_completed"] == s.bytes
    replayed = result.extra["trace"]["replay"]
    assert replayed["records"] == replayed["completed"] == s.records
    assert replayed["bytes"] == s.bytes and replayed["passes"] == 1
    assert result.run_info["stopped_by"] == "trace" and result.ios == s.records


@pytest.mark.parametrize("speed", [0.5, 1.0, 2.0, 3.0])
def test_open_loop_arrival_rate_is_the_traces_times_speed(speed: float) -> None:
    path = MEASURED / "msr_hm_0.csv"
    s = summarize(path, "msr")
    result = sanpath.run(scenario({"file": str(path), "format": "msr", "speed": speed}))
    replayed = result.extra["trace"]["replay"]
    assert replayed["arrival_rate"] == pytest.approx(s.iops * speed, rel=1e-9)
    assert replayed["last_issue_s"] - replayed["first_issue_s"] == pytest.approx(
        s.duration / speed, rel=1e-9
    )


def test_closed_loop_keeps_n_in_flight_in_trace_order(tmp_path: Path) -> None:
    trace = tmp_path / "t.csv"
    lines = [
        f"{i * 1e-3:.3f},{(i * 7919 % 5000) * 8192},8192,{'w' if i % 3 else 'r'}"
        for i in range(600)
    ]
    trace.write_text("time,offset,size,op\n" + "\n".join(lines) + "\n")
    spec = load_scenario(scenario({"file": str(trace), "format": "csv"}, outstanding=6))
    sim = Simulation(spec)
    inner = sim.load.traces.io
    seen: list[int] = []
    flight = [0, 0]

    def counted(*args: Any) -> Generator[Any, Any, Any]:
        seen.append(args[2])
        flight[0] += 1
        flight[1] = max(flight[1], flight[0])
        yield from inner(*args)
        flight[0] -= 1

    sim.load.traces.io = counted
    result = sim.run()
    assert flight[1] == 6  # threads x outstanding x one LUN
    assert seen == [(i * 7919 % 5000) * 8192 for i in range(600)]
    assert result.totals["ios_completed"] == 600 and result.run_info["stopped_by"] == "trace"


def test_map_puts_each_device_on_its_lun_and_leaves_the_others_out() -> None:
    path = MEASURED / "alibaba.csv"
    rows = [line.split(",") for line in path.read_text().splitlines()]
    both = {"file": str(path), "format": "alibaba", "map": {"419": "a", "420": "b"}}
    result = sanpath.run(scenario(both, luns=("a", "b")))
    luns = result.groups["luns"]
    for device, lun in (("419", "a"), ("420", "b")):
        mine = [r for r in rows if r[0] == device]
        assert luns[lun].reads + luns[lun].writes == len(mine)
        assert luns[lun].bytes_read + luns[lun].bytes_written == sum(int(r[3]) for r in mine)
    only = {"file": str(path), "format": "alibaba", "map": {420: "b"}}
    result = sanpath.run(scenario(only, luns=("a", "b")))
    assert result.totals["ios_completed"] == sum(1 for r in rows if r[0] == "420")
    assert result.extra["trace"]["replay"]["skipped"] == {
        "device not replayed (not in map)": sum(1 for r in rows if r[0] == "419")
    }


def sequential_and_random(tmp_path: Path) -> tuple[Path, Path]:
    seq, rnd = tmp_path / "seq.csv", tmp_path / "rnd.csv"
    head = "time,offset,size,op\n"
    seq.write_text(head + "".join(f"{i * 2e-4:.4f},{i * 65536},65536,r\n" for i in range(3000)))
    rnd.write_text(
        head + "".join(f"{i * 2e-4:.4f},{(i * 7919 % 3000) * 65536},65536,r\n" for i in range(3000))
    )
    return seq, rnd


def test_the_address_stream_reaches_the_cache(tmp_path: Path) -> None:
    seq, rnd = sequential_and_random(tmp_path)
    hits = []
    for path in (seq, rnd):
        trace = {"file": str(path), "format": "csv"}
        result = sanpath.run(scenario(trace, rate=5000, read_ahead="4MiB"))
        hits.append(result.counters["read_ahead_hits"])
    # the same sizes and times: only the offsets differ, and only the sequential one streams
    assert hits[0] > 2500 and hits[1] < 30


def test_the_arrivals_are_the_same_for_every_seed() -> None:
    trace = {"file": str(MEASURED / "spc_financial.spc"), "format": "spc"}
    one = sanpath.run(scenario(trace), seed=1).extra["trace"]["replay"]
    two = sanpath.run(scenario(trace), seed=2).extra["trace"]["replay"]
    again = sanpath.run(scenario(trace), seed=1)
    assert {k: one[k] for k in ("records", "bytes", "first_issue_s", "last_issue_s")} == {
        k: two[k] for k in ("records", "bytes", "first_issue_s", "last_issue_s")
    }
    assert again.latency_ms == sanpath.run(scenario(trace), seed=1).latency_ms


def test_run_length_rules(tmp_path: Path) -> None:
    seq, _ = sequential_and_random(tmp_path)
    trace = {"file": str(seq), "format": "csv"}
    short = sanpath.run(scenario(trace, rate=5000, run={"ios": 500, "warmup_ios": 100}))
    assert short.run_info["stopped_by"] == "ios" and short.ios == 500
    assert any("stopped before the trace ended" in w for w in short.warnings)
    longer = sanpath.run(scenario(trace, rate=5000, run={"ios": 5000, "warmup_ios": 100}))
    assert longer.run_info["stopped_by"] == "trace" and longer.ios == 2900
    assert any("the trace ended after 2,900 measured I/Os" in w for w in longer.warnings)
    looped = sanpath.run(
        scenario({**trace, "loop": True}, rate=5000, run={"ios": 7000, "warmup_ios": 100})
    )
    assert looped.run_info["stopped_by"] == "ios" and looped.extra["trace"]["replay"]["passes"] == 3
    warm = sanpath.run(scenario(trace, rate=5000, run={"warmup_ios": 5000}))
    assert warm.ios == 0 and any("ended during the warm-up" in w for w in warm.warnings)
    assert warm.run_info["warmup"] == "fixed"


def test_offsets_past_the_lun_wrap_and_are_counted() -> None:
    path = MEASURED / "alibaba.csv"
    result = sanpath.run(scenario({"file": str(path), "format": "alibaba"}, lun_size="1GiB"))
    top = max(int(r.split(",")[2]) + int(r.split(",")[3]) for r in path.read_text().split())
    wrapped = result.extra["trace"]["replay"]["wrapped"]
    assert top > 1024**3 and wrapped > 0
    assert any(f"{wrapped:,} trace records lay past the end" in w for w in result.warnings)


@settings(
    max_examples=10, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    records=st.lists(
        st.tuples(
            st.floats(0.0, 5e-3, allow_nan=False),  # gap to the previous record, s
            st.integers(0, 1 << 20),  # offset, in 4 KiB blocks
            st.sampled_from([512, 4096, 8192, 65536, 1 << 20, 3 << 20]),
            st.booleans(),
        ),
        min_size=2,
        max_size=60,
    ),
    speed=st.sampled_from([0.5, 1.0, 4.0]),
    closed=st.booleans(),
)
def test_any_trace_is_replayed_whole(
    tmp_path: Path, records: list[tuple[float, int, int, bool]], speed: float, closed: bool
) -> None:
    lines, t = [], 0.0
    for gap, block, size, write in records:
        t += gap
        lines.append(f"{t:.9f},{block * 4096},{size},{'w' if write else 'r'}")
    path = tmp_path / "any.csv"
    path.write_text("time,offset,size,op\n" + "\n".join(lines) + "\n")
    trace = {"file": str(path), "format": "csv", "speed": speed}
    result = sanpath.run(scenario(trace, outstanding=3 if closed else None))
    s = summarize(path, "csv")
    assert result.totals["ios_completed"] == s.records == len(records)
    assert result.totals["bytes_completed"] == sum(r[2] for r in records)
    replayed = result.extra["trace"]["replay"]
    if not closed and s.duration > 0:
        assert replayed["arrival_rate"] == pytest.approx(s.iops * speed, rel=1e-6)
