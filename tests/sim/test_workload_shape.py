"""Workload shape (sanpath.sim.load with sanpath.layout.access): skewed offsets, random
fraction, per-direction sizes, think time, and the read hit ratio derived from skew."""

from __future__ import annotations

import itertools
from collections import Counter
from typing import Any

import numpy as np
import pytest

import sanpath
from sanpath.layout import AccessModel, hot_mass, read_hits
from sanpath.sim.sources import make_source
from sanpath.sim.streams import Streams
from sanpath.spec import AccessSpec, WorkloadSpec
from sanpath.theory import textbook
from sanpath.theory.twin import predict

KiB = 1 << 10
ZIPF = {"dist": "zipf", "theta": 1.2}
PARETO = {"dist": "pareto", "h": 0.2}
ZONED = {"dist": "zoned", "zones": [[60, 10], [30, 20], [10, 70]]}


def offsets(
    workload: dict[str, Any], n: int, lun: int = 1000 * 8 * KiB, seed: int = 1
) -> list[tuple[int, bool, int]]:
    """``n`` I/Os of one source of ``workload`` on a LUN of ``lun`` bytes."""
    spec = WorkloadSpec.model_validate({"outstanding": 1, **workload})
    source = make_source(spec, lun, Streams(seed), "w.lun.t0")
    return [source.next_io() for _ in range(n)]


# -- skewed addresses -----------------------------------------------------------------------


def test_zoned_puts_each_zone_share_in_its_part_of_the_span() -> None:
    ios = offsets({"access": ZONED}, 40_000)
    span = 1000 * 8 * KiB
    zones = Counter(0 if o < 0.1 * span else 1 if o < 0.3 * span else 2 for _, _, o in ios)
    expected = [0.6, 0.3, 0.1]
    chi2 = sum((zones[z] - 40_000 * p) ** 2 / (40_000 * p) for z, p in enumerate(expected))
    assert chi2 < 13.8  # chi-square, 2 degrees of freedom, p = 0.001
    assert zones[0] / 40_000 == pytest.approx(0.6, abs=0.01)


@pytest.mark.parametrize("access", [ZIPF, PARETO, ZONED, {"dist": "zipf", "theta": 0.8}])
def test_hottest_blocks_take_the_share_the_distribution_gives(access: dict[str, Any]) -> None:
    n = 200_000
    counts = sorted(Counter(o for _, _, o in offsets({"access": access}, n)).values())[::-1]
    model = AccessModel(AccessSpec.model_validate(access), 1000)
    for c in (0.01, 0.1, 0.3):
        top = sum(counts[: int(c * 1000)]) / n
        assert top == pytest.approx(model.hot_mass(c), abs=0.02)


def test_offsets_stay_aligned_and_inside_the_span() -> None:
    ios = offsets({"access": ZIPF, "block_size": {"8KiB": 0.5, "64KiB": 0.5}}, 20_000)
    for size, _, offset in ios:
        assert offset % size == 0 and 0 <= offset <= 1000 * 8 * KiB - size


def test_zipf_ranks_match_the_exact_partial_sums() -> None:
    # far past the exactly summed head: the midpoint integral keeps the curve
    model = AccessModel(AccessSpec(dist="zipf", theta=0.9), 10**7)
    exact_head = sum(i**-0.9 for i in range(1, 20_001))
    assert model._harmonic(20_000) == pytest.approx(exact_head, rel=1e-7)
    u = np.random.default_rng(3).random(200_000)
    ranks = model.ranks(u)
    for c in (1e-4, 1e-3, 1e-2, 0.1):
        assert float(np.mean(ranks < c * 10**7)) == pytest.approx(model.hot_mass(c), abs=0.005)


def test_pareto_h_is_fios_hot_fraction() -> None:
    # h = 0.2: the hottest 20% of the blocks take 80% of the accesses
    assert hot_mass(AccessSpec(dist="pareto", h=0.2), 10**6, 0.2) == pytest.approx(0.8)


def test_same_seed_same_offsets_other_seed_others() -> None:
    a = offsets({"access": ZIPF, "random_fraction": 0.5}, 5000, seed=7)
    assert a == offsets({"access": ZIPF, "random_fraction": 0.5}, 5000, seed=7)
    assert a != offsets({"access": ZIPF, "random_fraction": 0.5}, 5000, seed=8)


# -- random fraction and sizes --------------------------------------------------------------


@pytest.mark.parametrize("pattern", ["random", "sequential"])
def test_random_fraction_gives_that_share_of_jumps(pattern: str) -> None:
    ios = offsets({"random_fraction": 0.3, "pattern": pattern}, 20_000, lun=10**6 * 8 * KiB)
    jumps = sum(1 for (s0, _, o0), (_, _, o1) in itertools.pairwise(ios) if o1 != o0 + s0)
    assert jumps / (len(ios) - 1) == pytest.approx(0.3, abs=0.015)


def test_pattern_alone_is_unchanged() -> None:
    seq = offsets({"pattern": "sequential"}, 100)
    assert [o for _, _, o in seq] == [i * 8 * KiB for i in range(100)]
    assert offsets({"pattern": "random", "random_fraction": 1.0}, 500) == offsets({}, 500)


def test_per_direction_sizes_give_each_direction_its_mean() -> None:
    ios = offsets(
        {
            "read_fraction": 0.7,
            "read_block_size": {"8KiB": 0.5, "64KiB": 0.5},
            "write_block_size": "4KiB",
        },
        40_000,
    )
    reads = [s for s, w, _ in ios if not w]
    writes = [s for s, w, _ in ios if w]
    assert len(reads) / len(ios) == pytest.approx(0.7, abs=0.01)
    assert sum(reads) / len(reads) == pytest.approx(36 * KiB, rel=0.02)
    assert set(writes) == {4 * KiB}
    spec = WorkloadSpec.model_validate(
        {"read_fraction": 0.7, "read_block_size": "64KiB", "write_block_size": "4KiB"}
    )
    assert spec.mean_block_size == pytest.approx(0.7 * 64 * KiB + 0.3 * 4 * KiB)


# -- think time -----------------------------------------------------------------------------


def think_loop(think: Any, n: int = 4) -> dict[str, Any]:
    drive = {"dist": "exponential", "mean": "1ms"}
    data = textbook.closed_path(n, drive_time=drive, ios=40_000, warmup_ios=2_000)
    if think is not None:
        data["workloads"][0]["think_time"] = think
    return data


def test_think_time_follows_littles_law_and_the_twin_agrees() -> None:
    plain = sanpath.run(think_loop(None))
    result = sanpath.run(think_loop("4ms"))
    r = result.latency_ms["mean"] / 1e3
    assert result.iops == pytest.approx(4 / (r + 0.004), rel=0.02)  # N / (R + Z)
    assert result.iops < 0.8 * plain.iops
    twin = predict(think_loop("4ms"))
    assert twin.iops == pytest.approx(result.iops, rel=0.03)
    assert twin.latency_ms_mean == pytest.approx(result.latency_ms["mean"], rel=0.05)


def test_think_time_distribution_and_twin_without_think_unchanged() -> None:
    result = sanpath.run(think_loop({"dist": "exponential", "mean": "2ms"}, n=2))
    r = result.latency_ms["mean"] / 1e3
    assert result.iops == pytest.approx(2 / (r + 0.002), rel=0.03)
    assert predict(think_loop(None)).iops == pytest.approx(4000.0 / 4.0, rel=1e-9)


# -- read hit derived from skew ---------------------------------------------------------------


def cached(access: dict[str, Any], read_cache: str | None, read_hit: float | None = None) -> Any:
    data = textbook.free_path(ios=20_000, warmup_ios=2_000)
    data["array"]["pools"][0]["drive"] = {"model": "textbook", "service": "1ms"}
    data["array"]["luns"][0]["size"] = "10GiB"
    data["array"]["cache"] = {"read_cache": read_cache, "read_hit": read_hit}
    data["workloads"][0]["access"] = access
    return data


def derived(access: dict[str, Any], read_cache: str | None) -> float:
    return read_hits(sanpath.load_scenario(cached(access, read_cache)))[0, 0]


def test_derived_hit_rises_with_skew_and_with_cache_size() -> None:
    sizes = ["10MiB", "100MiB", "1GiB", "5GiB"]
    for access in ({"dist": "uniform"}, ZIPF, PARETO, ZONED):
        hits = [derived(access, size) for size in sizes]
        assert hits == sorted(hits) and hits[0] < hits[-1] <= 1.0
    for size in sizes:
        thetas = [derived({"dist": "zipf", "theta": t}, size) for t in (0.5, 0.8, 1.0, 1.2, 1.5)]
        assert thetas == sorted(thetas)
        assert derived({"dist": "uniform"}, size) < thetas[0]
    assert derived({"dist": "uniform"}, "1GiB") == pytest.approx(0.1)
    assert derived(ZONED, "1GiB") == pytest.approx(0.6)
    assert derived(ZIPF, None) == 0.0  # no read cache, no hits (as before)


def test_written_read_hit_wins_and_the_simulator_hits_as_derived() -> None:
    s = sanpath.load_scenario(cached(ZONED, "1GiB", read_hit=0.25))
    assert read_hits(s)[0, 0] == 0.25
    result = sanpath.run(cached(ZONED, "1GiB"))
    counters = result.to_dict()["counters"]
    assert counters["cache_hits"] / counters["commands"] == pytest.approx(0.6, abs=0.02)
    # a hit costs nothing here, a miss 1 ms: the mean latency is the miss share
    assert result.latency_ms["mean"] == pytest.approx(0.4, abs=0.03)
    assert predict(cached(ZONED, "1GiB")).latency_ms_mean == pytest.approx(0.4, rel=0.02)


# -- validation -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        (
            {"rate": 100, "outstanding": None, "think_time": "1ms"},
            "workloads.0.think_time",
            "closed loop",
        ),
        ({"access": {"dist": "zipf"}}, "workloads.0.access", "needs theta"),
        ({"access": {"dist": "uniform", "h": 0.2}}, "workloads.0.access", "no parameters"),
        ({"access": {"dist": "pareto", "h": 1.0}}, "workloads.0.access.h", "less than 1"),
        (
            {"access": {"dist": "zoned", "zones": [[60, 10], [30, 20]]}},
            "workloads.0.access",
            "add up to 90",
        ),
        ({"access": ZIPF, "pattern": "sequential"}, "workloads.0.access", "random_fraction"),
        ({"random_fraction": 1.5}, "workloads.0.random_fraction", ""),
        ({"read_block_size": "2GiB"}, "workloads.0.read_block_size", "too large"),
    ],
)
def test_bad_shapes_are_located(change: dict[str, Any], path: str, words: str) -> None:
    data = textbook.free_path()
    data["workloads"][0].update(change)
    with pytest.raises(sanpath.ScenarioError) as exc:
        sanpath.load_scenario(data)
    problems = exc.value.problems
    assert any(p.path == path and words in p.message for p in problems), problems
