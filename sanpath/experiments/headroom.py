"""How much more load fits before a latency target breaks: :func:`headroom`.

The load of a scenario grows by a factor ``g`` (1 = as written) in one of three ways:
``rate`` multiplies the open-loop arrival rates, ``hosts`` the host counts and
``outstanding`` the closed-loop outstanding I/Os (the last two are whole numbers: they are
rounded, and the factor reported is the one realised). The answer is the largest ``g`` at
which every SLO holds.

1. **Twin.** The analytic twin (:mod:`sanpath.theory.twin`) predicts the mean latency at
   any ``g`` in milliseconds of computing, so the largest passing factor is bracketed by
   doubling or halving and then narrowed by bisection (regula falsi with the Illinois
   rule, see :func:`~sanpath.experiments.growth.boundary`) to a relative 1e-10, or to
   neighbouring whole numbers. The twin predicts means only: a percentile SLO is read with
   the exponential-tail rule ``p_q = mean x ln(1 / (1 - q))`` (exact for an M/M/1 queue,
   whose response time is exponential; pessimistic for low-variance service), and ``max``
   with the p99.9 rule.
2. **Simulation.** The simulator runs at that factor until the 95% interval of every SLO
   metric is within ``precision`` of its estimate (same seed for every run). Each SLO then
   meets (the interval below the limit), fails (above it) or is at the limit (the interval
   contains it). At the limit, the factor is the answer as closely as the simulation can
   tell. Otherwise the twin is corrected by the simulated-to-predicted ratio of each
   metric and solved again for the next factor (at most three times, or a third of, the
   last one); once a passing and a failing factor are known, the simulated latencies are
   interpolated between them instead. At most ``simulations`` runs; the answer is the
   factor at the limit, or else the largest simulated factor that met every SLO. When none
   met them, the answer is the corrected twin's below the smallest failing factor, not
   simulated, and the notes say so. When the runs run out before the passing and the
   failing factor are within ``tolerance`` of each other (or neighbouring whole numbers),
   the answer is not resolved: it is the bracket between them (``upper``), with the number
   of bisections that would narrow it (``to_resolve``).

Two more figures come from the twin's curve. The **knee** is the growth factor at which
the power, IOPS divided by mean latency (Kleinrock's measure), is largest: below it more
load buys proportionally more throughput than latency, above it latency grows faster than
throughput; for an M/M/1 queue it falls at 50% utilization, for a closed loop near the
population that just fills the busiest station. **Saturation** is the smallest factor at
which the twin's busiest station group is 99% utilized (or an open loop overflows).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sanpath.experiments.growth import (
    SATURATION,
    Growth,
    TwinCurve,
    boundary,
    curve,
    growth_of,
    knee,
    predicted_ms,
)
from sanpath.layout import station_roles
from sanpath.results import (
    KIND_OF_LAYER,
    Bottleneck,
    HeadroomResult,
    RunResult,
    SimulatedPoint,
    Slo,
    SloError,
    parse_slo,
    rank_bottlenecks,
    status,
    verdict,
)
from sanpath.spec import Scenario, ScenarioError, load_scenario
from sanpath.theory.twin import TwinPrediction

__all__ = ["headroom"]


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


class _Budget:
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
            from sanpath.sim.budget import estimate

            est = estimate(spec)
            per_io = est.seconds / est.ios if est.ios > 0 else 1e-4
            if core() == "python":
                per_io *= PURE_PYTHON_SLOWDOWN
        return share / max(per_io, 1e-9)

    def learn(self, result: RunResult) -> None:
        """Take the wall seconds per I/O from a finished run."""
        done = result.ios + int(result.run_info.get("warmup_ios", 0) or 0)
        if done > 0 and result.wall_seconds > 0:
            self.per_io = result.wall_seconds / done


def _simulate(
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
        budget.check(spec, context=f"growth x{growth.realised(g):.4g}: ")
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


def _check_workloads(spec: Scenario, slos: Sequence[Slo]) -> None:
    """Refuse an SLO that names a workload the scenario does not have."""
    names = [w.name for w in spec.workloads]
    for s in slos:
        if s.workload is not None and s.workload not in names:
            raise SloError(
                f"SLO {s.text!r}: the scenario has no workload {s.workload!r}; its workloads "
                f"are {', '.join(names)}"
            )


def _as_slos(slo: str | Slo | Sequence[str | Slo]) -> tuple[Slo, ...]:
    items = [slo] if isinstance(slo, str | Slo) else list(slo)
    if not items:
        raise SloError("give at least one SLO, e.g. p99<20ms")
    return tuple(s if isinstance(s, Slo) else parse_slo(s) for s in items)


def headroom(
    scenario: Scenario | str | Path | Mapping[str, Any],
    slo: str | Slo | Sequence[str | Slo],
    *,
    grow: str = "rate",
    overrides: Mapping[str, Any] | None = None,
    seed: int | None = None,
    simulations: int = 6,
    precision: float = 0.03,
    tolerance: float = 0.02,
    force: bool = False,
    progress: bool | None = False,
    budget: float = BUDGET_SECONDS,
) -> HeadroomResult:
    """The largest growth of the load that still meets every SLO (see the module docstring).

    Parameters
    ----------
    scenario
        A Scenario, a YAML path or a dict.
    slo
        One target or several, e.g. ``"p99<20ms"`` or ``["p99<20ms", "mean<5ms"]``; every
        one must hold (see :func:`sanpath.results.headroom.parse_slo`).
    grow
        ``rate`` (open-loop arrival rates), ``hosts`` (host counts) or ``outstanding``
        (closed-loop outstanding I/Os per thread per LUN).
    overrides
        Dotted keys to change first, e.g. ``{"array.controller.cores": 4}``.
    seed
        Seed of the simulated runs (default the scenario's); every run uses it.
    simulations
        Most simulated runs (0: the twin's answer only).
    precision
        Relative half-width of the 95% interval each run stops at, e.g. 0.03 for +/-3%.
    tolerance
        Stop refining once the largest passing and the smallest failing simulated factors
        are this close (relative).
    force
        Simulate even runs estimated beyond the memory or time limits.
    progress
        Progress bar for each run on standard error (see :func:`sanpath.run`).
    budget
        Wall seconds the simulated runs may take together (default ten minutes): each run
        is capped at its share (``run.max_ios``, and ``run.max_time`` for open loops) and
        checked against the memory and time limits before it starts; when the budget is
        spent the answer is the bracket found so far.

    Raises
    ------
    SloError
        For an SLO that cannot be read (before anything runs).
    ValueError
        For a ``grow`` the workloads cannot take.
    """
    slos = _as_slos(slo)
    if simulations < 0:
        raise ValueError(f"simulations must be 0 or more, not {simulations}")
    if not 0.0 < precision < 1.0:
        raise ValueError(f"precision must be a fraction between 0 and 1, not {precision}")
    if not budget > 0.0:
        raise ValueError(f"budget must be a positive number of seconds, not {budget}")
    spec = load_scenario(scenario, overrides)
    _check_workloads(spec, slos)
    notes: list[str] = []
    if spec.schedule:
        notes.append("schedule ignored: the headroom is for the settings at time zero")
    spec = spec.model_copy(update={"sweep": None, "schedule": ()})
    growth = growth_of(spec, grow)
    twin = TwinCurve(spec, growth)
    tails = any(s.metric != "mean" or s.workload is not None for s in slos)
    if tails:
        notes.append(
            "the twin predicts the mean latency of all I/Os: before a simulation its "
            "percentiles use the exponential-tail rule p_q = mean x ln(1/(1-q)) (max as "
            "p99.9) and a workload's figures the mean of all; each simulation scales the "
            "twin by what it found (a twin with no headroom at all is checked at the "
            "scenario's own load)"
        )
    g_twin = boundary(
        lambda g: twin.passes(g, slos, {}), growth, score=lambda g: twin.excess(g, slos, {})
    )
    saturation = boundary(lambda g: twin.load(g) < 0.0, growth, score=twin.load)
    top = 2.0 * saturation if 0.0 < saturation < growth.limit else max(g_twin, 1.0) * 4.0
    knee_at = knee(twin, min(top, growth.limit))
    answer = g_twin
    points: list[SimulatedPoint] = []
    results: dict[float, RunResult] = {}
    correction: dict[str, float] = {}
    bracket = Bracket()
    if simulations and g_twin < growth.limit:
        start = g_twin if g_twin > 0.0 else growth.realised(1.0)
        answer, points, results, correction, capped = _refine(
            spec, growth, twin, slos, start, g_twin, seed, simulations, precision, tolerance,
            force, progress, notes, _Budget(budget),
        )  # fmt: skip
        bracket = _bracket(answer, points, slos, growth, tolerance)
        if capped and not bracket.resolved:  # more runs would go where none is safe
            bracket = Bracket(bracket.upper, False, 0)
        if not bracket.resolved:
            notes.append(bracket.note(answer))
    elif g_twin >= growth.limit:
        notes.append(f"no SLO breaks up to x{growth.limit:g}: nothing to confirm by simulation")
    elif g_twin == 0.0:
        notes.append("the SLOs fail even at the smallest load: there is no headroom")
    if growth.integer:
        what = "host counts" if grow == "hosts" else "outstanding I/Os"
        notes.append(f"{what} are whole numbers: the factor is the rounded one, x{answer:.4g}")
    at = twin.at(answer if answer > 0 else growth.realised(1e-9))
    util = at.utilization.get(at.bottleneck, 0.0)
    sim_top = rank_bottlenecks(results[answer].stations) if answer in results else ()
    if sim_top:
        first = sim_top[0]
    else:
        role = station_roles(spec).get(at.bottleneck)
        kind = KIND_OF_LAYER[role.layer] if role is not None else at.bottleneck
        station_kind = role.kind if role is not None else "server"
        first = Bottleneck(kind, at.bottleneck, station_kind, util, util, 1)
    if 0.0 < saturation < growth.limit:
        later = twin.at(saturation).bottleneck
        if later != at.bottleneck:
            notes.append(f"at saturation (x{saturation:.4g}) the twin's busiest station is {later}")
    notes += [f"twin: {n}" for n in at.notes]
    curve_top = max(1.5 * answer, 1.25 * (knee_at or 0.0), 1.0)
    if answer < saturation < growth.limit:
        curve_top = min(curve_top, saturation)  # an open loop's latency is infinite beyond
    confirmed = next((p for p in points if p.growth == answer), None)
    return HeadroomResult(
        name=spec.name,
        grow=grow,
        slos=slos,
        base=dict(growth.base),
        growth=answer,
        growth_twin=g_twin,
        growth_limit=growth.limit,
        knee=knee_at,
        saturation=saturation if 0.0 < saturation < growth.limit else None,
        binding=_binding(slos, at, confirmed, correction),
        bottleneck=at.bottleneck,
        bottleneck_utilization=util,
        bottleneck_simulated=f"{first.kind}: {first.station}" if sim_top else "",
        meaning=first.saturating,
        curve=curve(twin, slos, min(curve_top, growth.limit)),
        simulated=tuple(points),
        realised=growth.values(answer) if answer > 0 else {},
        notes=tuple(notes),
        seed=seed if seed is not None else spec.seed,
        upper=bracket.upper,
        resolved=bracket.resolved,
        to_resolve=bracket.to_resolve,
    )


@dataclass(frozen=True)
class Bracket:
    """What the simulations pinned down: the answer lies below ``upper`` (the smallest
    simulated factor above it that broke an SLO; None when none did), ``resolved`` when the
    two are within the search's tolerance or neighbouring whole numbers (or the answer's
    interval contains the limit), else ``to_resolve`` more simulations (bisections) would
    narrow it that far."""

    upper: float | None = None
    resolved: bool = True
    to_resolve: int = 0

    def note(self, answer: float) -> str:
        """The bracket in words, for the notes."""
        if self.upper is None:
            return (
                f"not resolved: x{answer:.4g} met every SLO and no larger factor was "
                "simulated, so the answer is at least that"
            )
        more = (
            f"about {self.to_resolve} more simulation(s) would narrow it (--simulations)"
            if self.to_resolve
            else "the simulations stop short of saturation, so it stays a bracket"
        )
        return (
            f"not resolved: the answer lies between x{answer:.4g} (met) and x{self.upper:.4g} "
            f"(broke); {more}"
        )


def _bracket(
    answer: float,
    points: Sequence[SimulatedPoint],
    slos: Sequence[Slo],
    growth: Growth,
    tolerance: float,
) -> Bracket:
    """The bracket the simulated ``points`` leave around ``answer`` (see :class:`Bracket`)."""
    at = next((p for p in points if math.isclose(p.growth, answer, rel_tol=1e-12)), None)
    if at is None or answer <= 0.0:  # the twin's answer, or none: the notes say so
        return Bracket()
    if status(at, slos) == "at the limit":
        return Bracket()
    broke = [p.growth for p in points if p.growth > answer and status(p, slos) != "meets"]
    if not broke:
        return Bracket(None, False, 0)
    upper = min(broke)
    if upper / answer - 1.0 <= tolerance:
        return Bracket(upper)
    steps = math.ceil(math.log2(math.log(upper / answer) / math.log1p(tolerance)))
    if growth.integer:  # whole numbers: bisect the ones between the two
        low, high = growth.values(answer), growth.values(upper)
        between = max(round(high[k] - low[k]) - 1 for k in low)
        if between <= 0:
            return Bracket(upper)  # neighbouring whole numbers: nothing between them
        steps = min(steps, math.ceil(math.log2(between + 1)))
    return Bracket(upper, False, max(steps, 1))


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


def _refine(
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
    budget: _Budget,
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
            point, result = _simulate(
                spec, growth, g, slos, seed, precision, force, progress, limits
            )
        except ScenarioError as exc:
            reason = "; ".join(p.message for p in exc.problems)
            notes.append(f"x{growth.realised(g):.4g} was not simulated: {reason}")
            break
        budget.learn(result)
        points.append(point)
        results[point.growth] = result
        if not point.finished:
            notes.append(
                f"the run at x{point.growth:.4g} was cut short by the budget "
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
            f"not simulated above x{ceiling:.4g}: there the busiest station would be more "
            f"than {SIMULATION_CEILING:.0%} busy (an open loop's latency has no steady value "
            "near saturation); the answer is at least the largest factor that met the SLOs"
        )
    else:
        capped = False
    if edge is not None:
        answer = edge
        notes.append(
            f"simulation at x{edge:.4g}: the 95% interval contains the SLO limit, so this "
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


def _binding(
    slos: Sequence[Slo],
    p: TwinPrediction,
    confirmed: SimulatedPoint | None,
    correction: Mapping[str, float],
) -> str:
    """The SLO closest to its limit at the answer (simulated when there is a point there)."""

    def ratio(s: Slo) -> float:
        if confirmed is not None:
            value = confirmed.value(s)
        else:
            value = predicted_ms(p, s) * correction.get(s.text, 1.0)
        return value / s.limit_ms if math.isfinite(value) else math.inf

    return max(slos, key=ratio).text


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
