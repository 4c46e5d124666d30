"""Answers a planner can trust: steady state or a loud warning, honest intervals, a write-back
cache that sustains what its drives can, unstable open loops named as such."""

from __future__ import annotations

from typing import Any

import pytest
import scipy.stats

from sanpath.sim import run
from sanpath.spec import Scenario, load_scenario
from sanpath.theory import queues as analytic
from sanpath.theory import textbook
from sanpath.theory.explain import explain
from sanpath.theory.textbook import free_path
from sanpath.theory.twin import predict
from tests.conftest import SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"


def _mm1(rate: float = 500.0, service_ms: float = 1.0, **run: Any) -> Scenario:
    """M/M/1 behind a free path: Poisson arrivals, exponential service, FCFS."""
    data = textbook.open_queue(rate, {"dist": "exponential", "mean": f"{service_ms}ms"})
    data["run"] = {"warmup": "fixed", "warmup_ios": 1000, **run}
    return load_scenario(data)


REPS = 100
LOW, HIGH = (int(scipy.stats.binom.ppf(q, REPS, 0.95)) for q in (0.005, 0.995))


@pytest.mark.slow
@pytest.mark.parametrize(
    "length", [{"ios": 8000}, {"ios": None, "duration": "16s"}], ids=["ios", "duration"]
)
def test_fixed_length_intervals_cover_the_exact_mm1_answer_95_percent_of_the_time(
    length: dict[str, Any],
) -> None:
    """M/M/1 at half load (exact: 500 IOPS, a mean of 2 ms): over REPS independent
    replications of a run of fixed length (I/Os or simulated time), the 95% intervals of
    both figures contain the exact value a number of times inside the central 99% band of
    a Binomial(REPS, 0.95)."""
    scenario = _mm1(**length)
    exact = {"iops": 500.0, "latency_ms_mean": analytic.mm1(500.0, 1000.0).response * 1e3}
    hits = dict.fromkeys(exact, 0)
    for r in range(REPS):
        result = run(scenario, replicate=r)
        for key, value in exact.items():
            lo, hi = result.ci95[key]
            hits[key] += lo <= value <= hi
    for key in exact:
        assert LOW <= hits[key] <= HIGH, (key, hits[key], LOW, HIGH)


@pytest.mark.slow
def test_the_half_width_shrinks_like_one_over_root_n() -> None:
    """Four times the I/Os halve the interval: the mean half-widths over eight independent
    replications of M/M/1 at half load, 3,000 against 12,000 measured I/Os."""

    def mean_half_widths(ios: int) -> dict[str, float]:
        scenario = _mm1(ios=ios)
        widths = {"iops": 0.0, "latency_ms_mean": 0.0}
        for r in range(8):
            result = run(scenario, replicate=r)
            for key in widths:
                lo, hi = result.ci95[key]
                widths[key] += (hi - lo) / 2 / 8
        return widths

    short, long = mean_half_widths(3000), mean_half_widths(12_000)
    for key in short:
        assert 1.5 <= short[key] / long[key] <= 2.7, (key, short[key] / long[key])


# -- the write-back cache at steady state --------------------------------------------------


def _textbook_cache(cache: str | None, pattern: str, precision: float = 0.015) -> dict[str, Any]:
    """Ten textbook drives (exponential 5 ms, FCFS: no reordering) in two RAID 5 4+1 groups,
    a closed loop of 64 I/Os per LUN on four LUNs, 70% writes."""
    data = free_path("plateau", ios=1, warmup_ios=2000)
    data["run"] = {"precision": {"metric": "iops", "half_width": precision}, "warmup_ios": 2000}
    data["array"]["pools"] = [
        {
            "name": "pool",
            "raid": "raid5",
            "drives": 5,
            "groups": 2,
            "stripe_element": "64KiB",
            "drive": {"dist": "exponential", "mean": "5ms"},
        }
    ]
    data["array"]["luns"] = [{"name": "lun", "count": 4, "pool": "pool"}]
    data["array"]["cache"] = {"write_back": cache} if cache else {}
    data["workloads"] = [
        {
            "name": "w",
            "outstanding": 64,
            "block_size": "8KiB",
            "read_fraction": 0.3,
            "pattern": pattern,
        }
    ]
    return data


def _overlap(a: Any, b: Any) -> tuple[float, float]:
    """(gap between the two runs' IOPS, sum of their 95% half-widths)."""
    halves = sum((r.ci95["iops"][1] - r.ci95["iops"][0]) / 2 for r in (a, b))
    return abs(a.iops - b.iops), halves


@pytest.mark.slow
def test_a_full_cache_sustains_what_the_drives_do_without_it() -> None:
    """Random 8 KiB writes cannot coalesce, and these drives (FCFS, exponential) gain
    nothing from order or depth: once the cache is full it can only pass on what the drives
    destage, with the RAID 5 write penalty.

    With a destage added for each write waiting for room (``forced_flush_destages``) the
    drives see at least the write-through queue, so the full cache does what the same drives
    do without it, within the intervals (never the collapse a throttled destage gave). At
    WOW's fixed depth (4 destages a drive, 2 drive operations each in flight) the drives idle
    when their queues empty: a balanced closed network of K = 10 FCFS exponential stations
    with N = 80 customers runs at N / (N + K - 1) = 0.90 of its drives' rate (Buzen), less
    the read-modify-write's fork-join wait that formula leaves out; the host reads in the
    queues only add customers. So the default is at most what the drives do, and no less
    than 0.85 of it."""
    without = run(_textbook_cache(None, "random"))
    flushing = _textbook_cache("64MiB", "random")
    flushing["array"]["cache"]["forced_flush_destages"] = True
    full = run(flushing)
    assert full.steady and without.steady
    assert full.counters["forced_flushes"] > 0  # the cache was full
    gap, halves = _overlap(full, without)
    assert gap <= halves, (full.iops, without.iops)
    wow = run(_textbook_cache("64MiB", "random"))
    assert wow.steady and wow.counters["forced_flushes"] > 0
    assert wow.ci95["iops"][0] <= without.ci95["iops"][1]
    assert wow.ci95["iops"][1] >= 0.85 * without.ci95["iops"][0], (wow.iops, without.iops)


@pytest.mark.slow
def test_a_cache_that_merges_sequential_writes_into_full_stripes_beats_no_cache() -> None:
    without = run(_textbook_cache(None, "sequential", precision=0.03))
    cached = run(_textbook_cache("64MiB", "sequential", precision=0.03))
    assert cached.ci95["iops"][0] > 1.5 * without.ci95["iops"][1]


@pytest.mark.slow
@pytest.mark.parametrize("read_fraction", [0.5, 0.7, 0.9])
def test_the_twin_predicts_the_write_back_plateau(read_fraction: float) -> None:
    overrides = {
        "workloads.0.read_fraction": read_fraction,
        "array.cache.write_back": "128MiB",
        "run.ios": None,
        "run.duration": "15s",
    }
    sim = run(QUICKSTART, overrides=overrides)
    twin = predict(load_scenario(QUICKSTART, overrides))
    assert sim.steady
    assert twin.iops == pytest.approx(sim.iops, rel=0.08)
    no_cache = run(QUICKSTART, overrides={**overrides, "array.cache.write_back": None})
    assert sim.ci95["iops"][0] >= no_cache.ci95["iops"][0]  # never less than without cache


# -- steady state or a loud warning -----------------------------------------------------------


def test_a_run_that_ends_inside_the_cache_fill_says_so_and_how_long_to_run() -> None:
    """The reproduction: 30% writes into an empty 1 GiB write-back cache, a fixed warm-up:
    the measured window ends long before the cache fills."""
    result = run(
        QUICKSTART,
        overrides={
            "workloads.0.read_fraction": 0.7,
            "run.warmup": "fixed",
            "run.precondition": False,
            "run.ios": 20_000,
        },
    )
    assert not result.steady
    note = " ".join(result.warnings)
    assert "never started destaging" in note and "cache-filling transient" in note
    assert "high watermark after about" in note
    assert "NOT STEADY STATE" in result.summary()
    assert result.flat()["steady"] is False
    assert result.to_dict()["steady"] is False


@pytest.mark.slow
def test_the_auto_warm_up_waits_for_the_cache_and_measures_the_plateau() -> None:
    overrides = {"workloads.0.read_fraction": 0.7, "array.cache.write_back": "128MiB"}
    result = run(QUICKSTART, overrides={**overrides, "run.ios": 20_000, "run.precondition": False})
    assert result.steady, result.warnings
    info = result.run_info
    assert info["warmup"] == "auto" and info["warmup_settled"]
    # the cache took tens of seconds to fill; the warm-up went past it
    assert info["warmup_seconds"] > 10.0
    twin = predict(load_scenario(QUICKSTART, overrides))
    assert twin.iops == pytest.approx(result.iops, rel=0.1)


@pytest.mark.slow
def test_an_open_loop_beyond_the_path_is_reported_unstable_with_its_bottleneck() -> None:
    overrides = {"workloads.0.outstanding": None, "workloads.0.rate": 40_000}
    scenario = load_scenario(QUICKSTART, overrides)
    result = explain(scenario, run(scenario))
    assert not result.steady
    assert result.run_info["unstable"] and result.run_info["stopped_by"] == "unstable"
    text = " ".join(result.warnings)
    assert "UNSTABLE" in text and "array.r5.drives" in text
    assert result.ios < 20_000  # stopped early: no endless run for a growing queue


@pytest.mark.slow
def test_precision_stopping_stops_when_the_interval_is_tight() -> None:
    data = free_path("mm1", ios=1, warmup_ios=1000)
    data["run"] = {"precision": {"metric": "latency_ms_mean", "half_width": 0.05}}
    data["workloads"] = [{"name": "poisson", "rate": 500.0, "block_size": 4096}]
    data["array"]["pools"][0]["drive"] = {
        "model": "textbook",
        "service": {"dist": "exponential", "mean": "1ms"},
    }
    result = run(data)
    info = result.run_info
    assert info["stopped_by"] == "precision"
    assert info["precision"]["latency_ms_mean"] <= 0.05
    lo, hi = result.ci95["latency_ms_mean"]
    assert (hi - lo) / 2 <= 0.05 * result.latency_ms["mean"] * 1.0001
    tighter = run(data, overrides={"run.precision.half_width": 0.02})
    assert tighter.run_info["precision"]["latency_ms_mean"] <= 0.02
    assert tighter.ios >= 2 * result.ios  # lengths double between checks


@pytest.mark.slow
def test_precision_on_a_percentile_uses_batch_histograms() -> None:
    data = free_path("mm1", ios=1, warmup_ios=1000)
    data["run"] = {"precision": {"metric": ["latency_ms_p99", "iops"], "half_width": 0.05}}
    data["workloads"] = [{"name": "poisson", "rate": 500.0, "block_size": 4096}]
    data["array"]["pools"][0]["drive"] = {
        "model": "textbook",
        "service": {"dist": "exponential", "mean": "1ms"},
    }
    result = run(data)
    assert result.run_info["stopped_by"] == "precision"
    assert set(result.run_info["precision"]) == {"latency_ms_p99", "iops"}
    assert result.run_info["precision"]["latency_ms_p99"] <= 0.05


def test_a_progress_bar_follows_a_run(capsys: pytest.CaptureFixture[str]) -> None:
    from sanpath.sim.progress import RunProgress

    seen: list[str] = []

    class Recording(RunProgress):
        def _show(self, fraction: float, text: str) -> None:
            seen.append(text)
            super()._show(fraction, text)

    from sanpath.sim.engine import Simulation

    scenario = load_scenario(QUICKSTART, {"run.ios": 4000})
    sim = Simulation(scenario)
    bar = Recording("quickstart", disable=False)
    sim.measure.progress = bar
    sim.run()
    bar.close()
    assert any(text.startswith("warming up") for text in seen)
    assert any(text.endswith("of 4,000 I/Os") for text in seen)
    assert run(scenario, progress=True).ios == 4000  # the bar on the public API
