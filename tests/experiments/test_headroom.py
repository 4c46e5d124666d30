"""Headroom: the largest growth of the load that meets every SLO.

On an open M/M/1 queue the answer is exact. The response time is exponential with mean
1 / (mu - lambda), so a mean-latency SLO ``mean <= T`` holds up to lambda_max = mu - 1/T,
and the growth from a load lambda0 is (mu - 1/T) / lambda0. A p99 SLO holds up to
mu - ln(100)/T (the exponential's 99th percentile), the twin's exponential-tail rule. Kleinrock's
power lambda / (mean response) = lambda (mu - lambda) is largest at lambda = mu / 2: the knee.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

import pytest

import sanpath
from sanpath.experiments.growth import growth_of
from sanpath.results import HeadroomResult, SloError, parse_slo
from sanpath.spec import load_scenario
from sanpath.theory import textbook
from sanpath.theory.twin import predict
from tests.conftest import SCENARIOS

MU = 1000.0  # service rate, 1/s (mean service 1 ms)
LAMBDA0 = 250.0  # the scenario's arrival rate, 1/s


def mm1(ios: int = 20_000) -> dict[str, Any]:
    return textbook.open_queue(LAMBDA0, {"dist": "exponential", "mean": "1ms"}, ios=ios)


def test_mm1_mean_slo_is_exact_and_the_simulation_agrees() -> None:
    limit_ms = 2.0
    exact = (MU - 1.0 / (limit_ms / 1e3)) / LAMBDA0  # = 2.0
    result = sanpath.headroom(mm1(), "mean<=2ms", simulations=1, precision=0.03)
    assert result.growth_twin == pytest.approx(exact, rel=1e-3)
    assert result.realised["workloads.0.rate"] == pytest.approx(LAMBDA0 * exact, rel=1e-3)
    point = result.simulated[0]
    assert point.growth == pytest.approx(exact, rel=1e-3)
    lo, hi = point.ci95["mean"]
    # the simulated mean latency at the exact answer: its 95% interval holds the SLO limit
    assert lo <= limit_ms <= hi, f"[{lo:.4g}, {hi:.4g}] does not contain {limit_ms}"
    assert point.latency_ms["mean"] == pytest.approx(limit_ms, rel=0.06)
    assert result.confirmed is point
    assert result.growth == pytest.approx(exact, rel=1e-3)
    # the knee, where lambda (mu - lambda) is largest, and the 99% saturation point
    assert result.knee == pytest.approx(MU / 2 / LAMBDA0, rel=1e-3)
    assert result.saturation == pytest.approx(0.99 * MU / LAMBDA0, rel=1e-3)
    assert result.bottleneck == "array.pool.drives"
    assert result.bottleneck_simulated == "drives: array.pool.drives"
    assert "drives" in result.meaning


def test_mm1_p99_slo_twin_is_exact() -> None:
    limit_s = 0.010
    exact = (MU - math.log(100.0) / limit_s) / LAMBDA0
    result = sanpath.headroom(mm1(), "p99<10ms", simulations=0)
    assert result.growth == pytest.approx(exact, rel=1e-3)
    assert result.simulated == ()
    assert any("exponential-tail" in n for n in result.notes)


def test_a_tighter_slo_gives_less_headroom() -> None:
    growths = [
        sanpath.headroom(mm1(), f"mean<{t}ms", simulations=0).growth for t in (5, 3, 2, 1.5, 1.2)
    ]
    assert all(a > b for a, b in itertools.pairwise(growths)), growths
    # several SLOs: the tightest one binds
    both = sanpath.headroom(mm1(), ["mean<5ms", "p99<10ms"], simulations=0)
    assert both.growth == pytest.approx(
        sanpath.headroom(mm1(), "p99<10ms", simulations=0).growth, rel=1e-9
    )
    assert both.binding == "p99<10ms"


def test_closed_loop_grows_in_whole_outstanding_ios() -> None:
    exp = {"dist": "exponential"}
    data = textbook.closed_path(
        4, {**exp, "mean": "0.2ms"}, {**exp, "mean": "0.5ms"}, {**exp, "mean": "1ms"}
    )
    result = sanpath.headroom(data, "mean<10ms", grow="outstanding", simulations=0)
    n = result.realised["workloads.0.outstanding"]
    assert n == int(n) and n > 4
    assert result.growth == pytest.approx(n / 4)
    spec = load_scenario(data)

    def mean_ms(outstanding: int) -> float:
        return predict(
            spec.with_overrides({"workloads.0.outstanding": outstanding})
        ).latency_ms_mean

    assert mean_ms(int(n)) < 10 <= mean_ms(int(n) + 1)
    assert any("whole numbers" in note for note in result.notes)
    assert result.knee is not None and result.knee < result.growth_limit


def test_hosts_grow_in_whole_hosts() -> None:
    data = mm1()
    data["hosts"][0]["count"] = 2
    data["workloads"][0]["rate"] = 100.0  # per host: 200 I/Os per second in all
    result = sanpath.headroom(data, "mean<2.1ms", grow="hosts", simulations=0)
    # lambda_max = 1000 - 1/0.0021 = 523.8 I/Os per second: five hosts of 100 fit, six do not
    assert result.realised == {"hosts.0.count": 5.0}
    assert result.growth == pytest.approx(2.5)


def test_growth_that_the_workloads_cannot_take_is_refused() -> None:
    closed = load_scenario(SCENARIOS / "quickstart.yaml")
    with pytest.raises(ValueError, match="not rate-driven"):
        growth_of(closed, "rate")
    with pytest.raises(ValueError, match="open loop"):
        growth_of(load_scenario(mm1()), "outstanding")
    with pytest.raises(ValueError, match="--grow must be one of"):
        growth_of(closed, "drives")


@pytest.mark.parametrize(
    ("text", "metric", "op", "limit_ms"),
    [
        ("p99<20ms", "p99", "<", 20.0),
        ("mean<=500us", "mean", "<=", 0.5),
        (" max < 0.1s ", "max", "<", 100.0),
        ("p99.9<1ms", "p99_9", "<", 1.0),
        ("p50<=2.5e-1ms", "p50", "<=", 0.25),
    ],
)
def test_slo_grammar(text: str, metric: str, op: str, limit_ms: float) -> None:
    slo = parse_slo(text)
    assert (slo.metric, slo.op) == (metric, op)
    assert slo.limit_ms == pytest.approx(limit_ms)
    assert parse_slo(slo.text) == slo


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty SLO"),
        ("p98<1ms", "unknown metric 'p98'"),
        ("p99>1ms", "upper limit"),
        ("p99=1ms", "upper limit"),
        ("p99 1ms", "no comparison"),
        ("p99<20", "no unit"),
        ("p99<20min", "unknown unit 'min'"),
        ("p99<fastms", "cannot read the limit"),
        ("p99<-1ms", "cannot read the limit"),
        ("p99<0ms", "positive"),
    ],
)
def test_bad_slo_text_is_a_clear_error(text: str, message: str) -> None:
    with pytest.raises(SloError, match=message):
        parse_slo(text)
    with pytest.raises(ValueError, match=message):
        sanpath.headroom(mm1(), text)


def test_result_round_trips_through_its_dict() -> None:
    result = sanpath.headroom(mm1(), ["mean<2ms", "p99<12ms"], simulations=0)
    again = HeadroomResult.from_dict(result.to_dict())
    assert again.to_dict() == result.to_dict()
    assert "answer" in result.summary()
    with pytest.raises(ValueError, match="not a headroom result"):
        HeadroomResult.from_dict({"kind": "run"})


@pytest.mark.slow
def test_simulation_corrects_a_pessimistic_twin() -> None:
    # M/D/1: constant service makes the exponential-tail p99 of the twin far too high; the
    # simulation moves the answer up and confirms it.
    data = textbook.open_queue(200.0, "1ms", ios=20_000, warmup_ios=2_000)
    result = sanpath.headroom(data, "p99<5ms", simulations=4, precision=0.05)
    assert result.growth > 2 * result.growth_twin
    assert result.confirmed is not None
    assert not result.confirmed.verdict["p99<5ms"].startswith("fails")
    failing = [p.growth for p in result.simulated if p.verdict["p99<5ms"] == "fails"]
    assert all(g > result.growth for g in failing)


def test_an_unresolved_search_answers_with_a_bracket() -> None:
    # two simulations: x1 meets p99<60ms, the next factor (outstanding 8 -> 13) breaks it;
    # whole numbers lie between, so the answer is the bracket, not "x1" (no headroom)
    quickstart = SCENARIOS / "quickstart.yaml"
    result = sanpath.headroom(
        quickstart, "p99<60ms", grow="outstanding", simulations=2, precision=0.1
    )
    met = [p.growth for p in result.simulated if p.meets]
    broke = [p.growth for p in result.simulated if not p.meets]
    assert met == [result.growth] and broke and result.upper == min(broke)
    assert not result.resolved and result.to_resolve >= 1
    text = result.summary()
    lo, hi = sanpath.readable.number(result.growth), sanpath.readable.number(result.upper)
    assert f"answer      between x{lo} and x{hi}, not resolved" in text
    assert f"workloads.0.outstanding 8 -> 8 to {round(8 * result.upper)}" in text
    assert f"about {result.to_resolve} more simulation(s)" in text
    back = HeadroomResult.from_dict(result.to_dict())
    assert (back.upper, back.resolved, back.to_resolve) == (
        result.upper,
        result.resolved,
        result.to_resolve,
    )
    # given the simulations, the same search resolves it: neighbouring factors or the limit
    more = sanpath.headroom(
        quickstart, "p99<60ms", grow="outstanding", simulations=6, precision=0.1
    )
    assert more.resolved and more.answer_text == f"x{sanpath.readable.number(more.growth)}"
    assert result.growth <= more.growth <= result.upper
