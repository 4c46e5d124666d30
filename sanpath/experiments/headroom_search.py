"""The simulated runs of a headroom search, and what bounds them.

:func:`refine` runs the search's simulations (:func:`simulate_point` each) from a first
factor, correcting the analytic twin by each run, within a :class:`Budget` of wall time,
and never, with an open loop, at a factor where the busiest station would be more than
:data:`SIMULATION_CEILING` busy (see :mod:`sanpath.experiments.headroom` for the method).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from sanpath.experiments.growth import SATURATION, Growth, TwinCurve, boundary, predicted_ms
from sanpath.readable import number
from sanpath.results import (
    RunResult,
    SimulatedPoint,
    Slo,
    rank_bottlenecks,
    status,
    verdict,
)
from sanpath.spec import Scenario, ScenarioError

__all__ = ["BUDGET_SECONDS", "SIMULATION_CEILING", "Budget", "refine", "simulate_point"]

SIMULATION_CEILING = 0.95
"""With an open loop, no factor is simulated at which the busiest server station would be
more than this busy (fraction): near saturation a run's latency has no steady value to find
and its backlog grows without end. Before any simulation the twin says where that is;
after one, the simulated utilization, scaled with the load, does."""

BUDGET_SECONDS = 600.0
"""Default wall time the simulated runs of one search may take together, seconds."""

MIN_RUN_IOS = 5_000
"""Fewest I/Os (warm-up and measured) worth a simulated run; a budget that affords fewer
ends the search."""

PURE_PYTHON_SLOWDOWN = 3.0
"""How much slower the pure-Python core runs than the compiled one the run-time estimate
is calibrated on (:mod:`sanpath.sim.cost`), until a run of the search measures its own."""


class Budget:
    """The wall time the search's simulated runs may take, and what an I/O costs of it."""

    def __init__(self, seconds: float) -> None:
        import time

        self.clock = time.monotonic
        self.seconds = seconds
        self.started = self.clock()
        self.per_io: float | None = None  # measured wall seconds per simulated I/O

    @property
    def remaining(self) -> float:
        """Wall seconds left, at least 0."""
        return max(self.seconds - (self.clock() - self.started), 0.0)

    def affordable(self, spec: Scenario, share: float) -> float:
        """I/Os (warm-up and measured) a run of ``spec`` can take in ``share`` seconds."""
        per_io = self.per_io
        if per_io is None:
            from sanpath.compiled import core
            from sanpath.sim import budget

            est = budget.estimate(spec)
            per_io = est.seconds / est.ios if est.ios > 0 else 1e-4
            if core() == "python":
                per_io *= PURE_PYTHON_SLOWDOWN
        return share / max(per_io, 1e-9)

    def learn(self, result: RunResult) -> None:
        """Take the wall seconds per I/O from a finished run."""
        done = result.ios + int(result.run_info.get("warmup_ios", 0) or 0)
        if done > 0 and result.wall_seconds > 0:
            self.per_io = result.wall_seconds / done


def simulate_point(
    scenario: Scenario,
    growth: Growth,
    g: float,
    slos: Sequence[Slo],
    seed: int | None,
    precision: float,
    force: bool,
    progress: bool | None,
    limits: Mapping[str, Any] | None = None,
) -> tuple[SimulatedPoint, RunResult]:
    """Run the simulator at ``g`` until every SLO metric is known to ``precision`` (or
    until ``limits``, ``run.max_ios`` and ``run.max_time`` overrides, cut it short).

    Raises
    ------
    ScenarioError
        When the run is estimated beyond the memory or time limits (unless ``force``).
    """
    from sanpath.sim import budget, run

    keys = sorted({s.key for s in slos if s.metric != "max"}) or ["latency_ms_mean"]
    spec = scenario.with_overrides(
        {
            **growth.overrides(g),
            "run.ios": None,
            "run.duration": None,
            "run.precision": {"metric": keys, "half_width": precision},
            **(limits or {}),
        }
    )
    if not force:
        budget.check(spec, context=f"growth x{number(growth.realised(g))}: ")
    result = run(spec, seed=seed, force=True, progress=progress)
    reached = result.run_info.get("precision", {})
    per_workload = {
        name: dict(f.latency_ms)
        for name, f in result.groups.get("workloads", {}).items()
        if any(s.workload == name for s in slos)
    }
    ci: dict[str, tuple[float, float]] = {}
    for s in slos:
        value = s.read(result.latency_ms, per_workload)
        if s.workload is not None:
            continue  # the run's interval is of all I/Os together, not of one workload's
        if s.metric == "mean":
            ci["mean"] = result.ci95["latency_ms_mean"]
        elif s.key in reached and math.isfinite(reached[s.key]):
            w = float(reached[s.key])
            ci[s.metric] = (value * (1.0 - w), value * (1.0 + w))
    values = {s.text: s.read(result.latency_ms, per_workload) for s in slos}
    verdicts = {s.text: verdict(s, values[s.text], ci.get(s.measure)) for s in slos}
    unstable = result.run_info.get("stopped_by") == "unstable"
    if unstable:
        verdicts = {s.text: "fails (unstable: the queue grows without bound)" for s in slos}
    top = rank_bottlenecks(result.stations)
    busiest = next((b for b in top if b.station_kind != "slots"), None)
    point = SimulatedPoint(
        growth=growth.realised(g),
        iops=result.iops,
        latency_ms=dict(result.latency_ms),
        ci95=ci,
        verdict=verdicts,
        meets=not unstable and all(s.met(values[s.text]) for s in slos),
        ios=result.ios,
        bottleneck=(
            f"{top[0].kind}: {top[0].station} ({100 * top[0].utilization:.0f}%)" if top else ""
        ),
        workloads=per_workload,
        stopped_by=str(result.run_info.get("stopped_by", "")),
        utilization=busiest.utilization if busiest is not None else math.nan,
    )
    return point, result


def _open_loop(spec: Scenario) -> bool:
    return any(not w.closed for w in spec.workloads)


def _twin_ceiling(twin: TwinCurve, growth: Growth) -> float:
    """The factor at which the twin's busiest station is ``SIMULATION_CEILING`` busy."""
    excess = SIMULATION_CEILING - SATURATION  # twin.load is the utilization less SATURATION
    return boundary(lambda x: twin.load(x) < excess, growth, score=lambda x: twin.load(x) - excess)


def _below(growth: Growth, g: float, ceiling: float | None) -> float:
    """``g``, or the largest realisable factor at or below ``ceiling`` when it is above."""
    if ceiling is None or growth.realised(g) <= ceiling * (1.0 + 1e-12):
        return g
    g = ceiling
    while growth.integer and growth.realised(g) > ceiling and g > 0.0:
        g = growth.step_down(g)
    return g


def refine(
    spec: Scenario,
    growth: Growth,
    twin: TwinCurve,
    slos: Sequence[Slo],
    g_first: float,
    g_twin: float,
    seed: int | None,
    simulations: int,
    precision: float,
    tolerance: float,
    force: bool,
    progress: bool | None,
    notes: list[str],
    budget: Budget,
) -> tuple[float, list[SimulatedPoint], dict[float, RunResult], dict[str, float], bool]:
    """Simulate from ``g_first`` and refine with the corrected twin; see the module doc."""
    points: list[SimulatedPoint] = []
    results: dict[float, RunResult] = {}
    passed: float | None = None
    failed: float | None = None
    edge: float | None = None
    correction: dict[str, float] = {}
    opened = _open_loop(spec)
    ceiling = _twin_ceiling(twin, growth) if opened else None
    if ceiling is not None and ceiling <= 0.0:
        ceiling = None  # the twin sees no load it could carry: let the simulation say
    capped = False
    g = g_first
    for done in range(simulations):
        below = _below(growth, g, ceiling)
        if below != g:
            capped = True
            g = below
            near = [q.growth for q in points if abs(g / q.growth - 1.0) <= tolerance]
            if g <= 0.0 or near:
                break  # the ceiling is where a run already was: nothing safe left to try
        at_g = spec.with_overrides(growth.overrides(g))
        affordable = budget.affordable(at_g, budget.remaining / min(simulations - done, 3))
        if affordable < MIN_RUN_IOS:
            notes.append(
                f"the search's budget of {budget.seconds:g} s of simulation was spent after "
                f"{len(points)} run(s) (--budget)"
            )
            break
        limits: dict[str, Any] = {"run.max_ios": int(min(spec.run.max_ios, affordable / 2))}
        offered = twin.at(g).iops
        if opened and offered > 0.0:
            cap = affordable / offered
            limits["run.max_time"] = min(cap, spec.run.max_time or math.inf)
        try:
            point, result = simulate_point(
                spec, growth, g, slos, seed, precision, force, progress, limits
            )
        except ScenarioError as exc:
            reason = "; ".join(p.message for p in exc.problems)
            notes.append(f"x{number(growth.realised(g))} was not simulated: {reason}")
            break
        budget.learn(result)
        points.append(point)
        results[point.growth] = result
        if not point.finished:
            notes.append(
                f"the run at x{number(point.growth)} was cut short by the budget "
                f"({point.stopped_by}) before its interval reached +/-{precision:.0%}"
            )
        if opened and math.isfinite(point.utilization) and point.utilization > 0.0:
            ceiling = point.growth * SIMULATION_CEILING / point.utilization
        state = status(point, slos)
        if state == "at the limit":
            edge = point.growth
            break
        if state == "meets":
            passed = point.growth if passed is None else max(passed, point.growth)
        else:
            failed = point.growth if failed is None else min(failed, point.growth)
        if passed is not None and failed is not None and failed / passed - 1.0 <= tolerance:
            break
        p = twin.at(g)
        for s in slos:
            predicted = predicted_ms(p, s)
            simulated = point.value(s)
            if math.isfinite(predicted) and predicted > 0 and math.isfinite(simulated):
                correction[s.text] = simulated / predicted
        proposal = boundary(
            lambda x: twin.passes(x, slos, correction),
            growth,
            start=g,
            score=lambda x: twin.excess(x, slos, correction),
        )
        g = growth.realised(_next_factor(proposal, passed, failed, points, slos))
        tried = [q.growth for q in points]
        if growth.integer and any(math.isclose(g, t, rel_tol=1e-12) for t in tried):
            assert passed is not None or failed is not None
            g = growth.realised(
                math.sqrt(passed * failed)
                if passed is not None and failed is not None
                else (passed * 2.0 if passed is not None else (failed or 0.0) / 2.0)
            )
        if g <= 0.0 or any(math.isclose(g, t, rel_tol=1e-12) for t in tried):
            break  # whole numbers next to each other: nothing left between them
    if capped and ceiling is not None and passed is not None:
        notes.append(
            f"not simulated above x{number(ceiling)}: there the busiest station would be more "
            f"than {SIMULATION_CEILING:.0%} busy (an open loop's latency has no steady value "
            "near saturation); the answer is at least the largest factor that met the SLOs"
        )
    else:
        capped = False
    if edge is not None:
        answer = edge
        notes.append(
            f"simulation at x{number(edge)}: the 95% interval contains the SLO limit, so this "
            "is the answer as closely as the simulation can tell"
        )
    elif passed is not None:
        answer = passed
    elif not points:
        answer = g_twin
        notes.append("nothing was simulated: the answer is the twin's, not confirmed")
    elif any(math.isclose(g, q.growth, rel_tol=1e-12) for q in points):
        answer = 0.0  # every whole-number load down to the smallest missed an SLO
        notes.append("the SLOs fail in simulation even at the smallest load: no headroom")
    else:
        answer = max(g, 0.0)
        notes.append(
            "not confirmed: every simulated factor missed an SLO; the answer is the twin's, "
            "corrected by the last simulation, and was not simulated"
        )
    return answer, points, results, correction, capped


def _next_factor(
    proposal: float,
    passed: float | None,
    failed: float | None,
    points: Sequence[SimulatedPoint],
    slos: Sequence[Slo],
) -> float:
    """The next factor to simulate: inside the bracket, or at most a doubling beyond it.

    With a bracket (a passing and a failing factor), the simulated latencies are
    interpolated linearly to each failing SLO's limit and the smallest such factor is taken,
    kept a tenth of the bracket away from its ends; without one, the corrected twin's
    ``proposal``, at most three times (a third of) the factor simulated.
    """
    if passed is not None and failed is not None:
        below = next(q for q in points if q.growth == passed)
        above = next(q for q in points if q.growth == failed)
        guesses = []
        for s in slos:
            v1 = below.value(s)
            v2 = above.value(s)
            if math.isfinite(v1) and math.isfinite(v2) and v2 > v1 and not s.met(v2):
                guesses.append(passed + (s.limit_ms - v1) * (failed - passed) / (v2 - v1))
        guess = min(guesses) if guesses else proposal
        if not passed < guess < failed:
            guess = math.sqrt(passed * failed)
        margin = 0.1 * (failed - passed)
        return min(max(guess, passed + margin), failed - margin)
    if passed is not None:
        return min(max(proposal, 1.1 * passed), 3.0 * passed)
    assert failed is not None
    return max(min(proposal, failed / 1.1), failed / 3.0)
