"""Headroom that cannot run away: a ceiling below saturation, a wall-time budget, unstable
runs that fail, p99 from simulation, SLOs of one workload.

The open M/M/1 queue of ``test_headroom`` (service 1 ms, 250 arrivals per second) saturates
at x4; its busiest station is 95% busy at x3.8.
"""

from __future__ import annotations

import time
from typing import Any

import pytest

import sanpath
from sanpath.experiments.headroom_search import SIMULATION_CEILING
from sanpath.results import SimulatedPoint, SloError, parse_slo, status
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

MU = 1000.0
LAMBDA0 = 250.0


def mm1(ios: int = 20_000) -> dict[str, Any]:
    return textbook.open_queue(LAMBDA0, {"dist": "exponential", "mean": "1ms"}, ios=ios)


def test_no_factor_is_simulated_near_saturation() -> None:
    # mean<50ms holds up to (1000 - 20) / 250 = x3.92, 98% busy: above the ceiling, so the
    # search stops at about x3.8 and says the answer is at least the largest factor it met
    start = time.monotonic()
    result = sanpath.headroom(mm1(), "mean<50ms", simulations=4, precision=0.1, budget=20.0)
    assert time.monotonic() - start < 20.0 + 15.0  # the budget, and the twin's own work
    assert result.growth_twin == pytest.approx(3.92, rel=1e-3)
    top = max(p.growth for p in result.simulated)
    assert top <= 1.02 * SIMULATION_CEILING * MU / LAMBDA0
    assert result.growth == top and not result.resolved and result.upper is None
    assert any("not simulated above" in n for n in result.notes)


def test_a_spent_budget_ends_the_search_with_what_it_has() -> None:
    start = time.monotonic()
    result = sanpath.headroom(mm1(), "mean<2ms", simulations=6, budget=0.05)
    assert time.monotonic() - start < 30.0
    assert result.simulated == ()
    assert result.growth == result.growth_twin  # not confirmed, and the notes say so
    assert any("budget" in n for n in result.notes)
    assert any("not confirmed" in n for n in result.notes)


def test_an_unstable_run_fails_every_slo_whatever_its_figures() -> None:
    slo = parse_slo("p99<2ms")
    point = SimulatedPoint(1.0, 1e6, {"p99": 1.0}, {}, {}, True, 10_000, stopped_by="unstable")
    assert status(point, [slo]) == "fails"
    assert status(SimulatedPoint(1.0, 1e6, {"p99": 1.0}, {}, {}, True, 10_000), [slo]) == "meets"
    cut = SimulatedPoint(1.0, 1e6, {"p99": 1.0}, {}, {}, True, 10_000, stopped_by="max_time")
    assert not cut.finished and point.finished


def test_a_twin_without_headroom_is_checked_by_simulation() -> None:
    # M/D/1: the exponential-tail rule puts the p99 of a 1 ms service at 4.6 ms even with no
    # queue, so the twin answers x0; the simulation at today's load meets p99<3ms and the
    # search finds the headroom the rule hid
    data = textbook.open_queue(200.0, "1ms", ios=20_000, warmup_ios=2_000)
    result = sanpath.headroom(data, "p99<3ms", simulations=4, precision=0.05)
    assert result.growth_twin == 0.0
    assert result.simulated[0].growth == 1.0 and result.simulated[0].meets
    assert result.growth > 1.2


def test_an_slo_of_one_workload() -> None:
    assert parse_slo("oltp:p99<2ms").workload == "oltp"
    assert parse_slo(" oltp : p99 < 2ms").text == "oltp:p99<2ms"
    assert parse_slo("p99<2ms").workload is None
    data = mm1()
    first = dict(data["workloads"][0], name="oltp", rate=LAMBDA0 / 2)
    data["workloads"] = [first, dict(first, name="bulk")]
    with pytest.raises(SloError, match="no workload 'scan'; its workloads are oltp, bulk"):
        sanpath.headroom(data, "scan:p99<2ms", simulations=0)
    # both share one M/M/1 queue, so each has its mean: the answer is x2, as for all I/Os
    result = sanpath.headroom(data, "oltp:mean<2ms", simulations=2, precision=0.05)
    point = result.simulated[0]
    assert set(point.workloads) == {"oltp"}
    assert point.value(result.slos[0]) == point.workloads["oltp"]["mean"]
    assert point.workloads["oltp"]["mean"] != point.latency_ms["mean"]
    assert result.growth == pytest.approx(2.0, rel=0.1)
    assert "oltp:mean<2ms" in result.summary()
    again = type(result).from_dict(result.to_dict())
    assert again.slos == result.slos and again.simulated[0].workloads == point.workloads


@pytest.mark.slow
def test_all_flash_headroom_returns_within_its_budget() -> None:
    # modern_afa at 400,000 IOPS (the backup as an open loop, so the rate can grow): the
    # twin's p99<2ms answer (x2.99) lies above its own saturation (x2.97) and one front-end
    # port saturates first in simulation; the search stays below saturation, within budget
    budget = 150.0
    start = time.process_time()
    result = sanpath.headroom(
        SCENARIOS / "modern_afa.yaml",
        "p99<2ms",
        overrides={"workloads.1.outstanding": None, "workloads.1.rate": 400},
        budget=budget,
    )
    spent = time.process_time() - start
    assert spent < budget + 60.0, f"{spent:.0f} s of CPU"
    assert result.saturation is not None and result.growth_twin > result.saturation
    assert all(p.growth < result.saturation for p in result.simulated)
    assert 2.0 < result.growth < result.saturation
    met = [p for p in result.simulated if p.meets]
    assert met and all(p.utilization <= 0.97 for p in met)
