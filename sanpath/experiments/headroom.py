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

The runs are bounded (:mod:`sanpath.experiments.headroom_search`): a wall-time ``budget``
shared among them, each run checked against the memory and time limits before it starts,
and, with an open loop, no factor at which the busiest station would be more than 95% busy
(the twin's figure, then the simulation's own); a run that finds the loop unstable fails
every SLO. A twin with no headroom at all is checked by a simulation at x1. An SLO may
name one workload (``oltp:p99<2ms``): its figure is then that workload's I/Os alone.

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
    Growth,
    TwinCurve,
    boundary,
    curve,
    growth_of,
    knee,
    predicted_ms,
)
from sanpath.experiments.headroom_search import BUDGET_SECONDS, Budget, refine
from sanpath.layout import station_roles
from sanpath.readable import number
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
)
from sanpath.spec import Scenario, load_scenario
from sanpath.theory.twin import TwinPrediction

__all__ = ["headroom"]


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
        one must hold (see :func:`sanpath.results.slo.parse_slo`).
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
        answer, points, results, correction, capped = refine(
            spec, growth, twin, slos, start, g_twin, seed, simulations, precision, tolerance,
            force, progress, notes, Budget(budget),
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
        notes.append(f"{what} are whole numbers: the factor is the rounded one, x{number(answer)}")
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
            notes.append(
                f"at saturation (x{number(saturation)}) the twin's busiest station is {later}"
            )
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
                f"not resolved: x{number(answer)} met every SLO and no larger factor was "
                "simulated, so the answer is at least that"
            )
        more = (
            f"about {self.to_resolve} more simulation(s) would narrow it (--simulations)"
            if self.to_resolve
            else "the simulations stop short of saturation, so it stays a bracket"
        )
        return (
            f"not resolved: the answer lies between x{number(answer)} (met) and "
            f"x{number(self.upper)} (broke); {more}"
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
