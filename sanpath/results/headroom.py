"""How much more load fits: latency targets (SLOs) and the headroom answer, as pure data.

:func:`~sanpath.results.slo.parse_slo` reads a latency target such as ``p99<20ms``;
:class:`HeadroomResult` is what
:func:`sanpath.headroom` found (the growth factor, the knee, the component that saturates
first, the twin's curve and the simulated points), readable back from its own JSON so that
``sanpath plot --kind headroom`` can draw it. Latencies are in milliseconds; growth factors
are plain multiples of the scenario's own load (1 = the load as written).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sanpath.readable import figure, number, plus_minus
from sanpath.results.slo import Slo

__all__ = [
    "GROWTH_KINDS",
    "HeadroomResult",
    "SimulatedPoint",
    "status",
]

GROWTH_KINDS = ("rate", "hosts", "outstanding")
"""What grows: open-loop arrival rates, host counts, or closed-loop outstanding I/Os."""


@dataclass(frozen=True)
class SimulatedPoint:
    """A simulated run at one growth factor.

    Attributes
    ----------
    growth
        The growth factor simulated (the realised one for integer knobs).
    iops
        Simulated application I/Os per second.
    latency_ms
        Simulated latency (ms): ``mean, p50, p90, p99, p99_9, max``.
    ci95
        95% interval (ms) of each SLO measure that has one (keyed by ``Slo.measure``:
        ``p99``, or ``oltp:p99`` for one workload's; ``max`` has none).
    verdict
        Per SLO text: ``meets``, ``fails``, or ``at the limit`` when the 95% interval
        contains the limit (see ``verdict``).
    meets
        True when the point estimates meet every SLO.
    ios
        Measured application I/Os.
    bottleneck
        The run's first bottleneck, ``kind: station (utilization)``.
    workloads
        Simulated latency (ms) of each workload an SLO names: name -> ``mean, p50, ...``.
    stopped_by
        What ended the run (``precision``, ``max_ios``, ``max_time``, ``unstable``, ...): a
        run cut short by the search's budget did not reach its precision (``finished``
        is False); an ``unstable`` one found an open loop the path cannot carry, so it fails
        every SLO (its figures are of the I/Os that completed, not a steady latency).
    utilization
        The simulated utilization of the busiest server station (fraction; NaN unknown).
    """

    growth: float
    iops: float
    latency_ms: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    verdict: dict[str, str]
    meets: bool
    ios: int
    bottleneck: str = ""
    workloads: dict[str, dict[str, float]] = field(default_factory=dict)
    stopped_by: str = ""
    utilization: float = math.nan

    @property
    def finished(self) -> bool:
        """False when the budget cut the run short of its precision (``max_ios`` or
        ``max_time``): its figures are then rougher than asked for."""
        return self.stopped_by not in ("max_ios", "max_time")

    def value(self, slo: Slo) -> float:
        """The simulated figure ``slo`` is about (ms; NaN when not simulated)."""
        return slo.read(self.latency_ms, self.workloads)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict."""
        return {
            "growth": self.growth,
            "iops": self.iops,
            "latency_ms": {k: _finite(v) for k, v in self.latency_ms.items()},
            "ci95": {k: [lo, hi] for k, (lo, hi) in self.ci95.items()},
            "verdict": dict(self.verdict),
            "meets": self.meets,
            "ios": self.ios,
            "bottleneck": self.bottleneck,
            "workloads": {
                w: {k: _finite(v) for k, v in values.items()}
                for w, values in self.workloads.items()
            },
            "stopped_by": self.stopped_by,
            "utilization": _finite(self.utilization),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SimulatedPoint:
        """The inverse of :meth:`to_dict`."""
        return cls(
            growth=float(data["growth"]),
            iops=float(data["iops"]),
            latency_ms={k: _num(v) for k, v in data["latency_ms"].items()},
            ci95={k: (float(v[0]), float(v[1])) for k, v in data.get("ci95", {}).items()},
            verdict=dict(data.get("verdict", {})),
            meets=bool(data["meets"]),
            ios=int(data.get("ios", 0)),
            bottleneck=str(data.get("bottleneck", "")),
            workloads={
                w: {k: _num(v) for k, v in values.items()}
                for w, values in data.get("workloads", {}).items()
            },
            stopped_by=str(data.get("stopped_by", "")),
            utilization=_num(data.get("utilization")),
        )


@dataclass(frozen=True)
class HeadroomResult:
    """How far the load can grow before a latency target breaks.

    Attributes
    ----------
    name
        The scenario's name.
    grow
        What grows: ``rate``, ``hosts`` or ``outstanding`` (see ``GROWTH_KINDS``).
    slos
        The latency targets, all of which must hold.
    base
        The grown knobs at growth 1: dotted scenario key -> value (I/Os per second per host
        for rates, hosts, outstanding I/Os per thread per LUN).
    growth
        The answer: the largest growth factor that meets every SLO, as the simulation
        confirmed it (the twin's when nothing was simulated).
    growth_twin
        The twin's answer (its mean latency, and percentiles by the exponential-tail rule).
    growth_limit
        The largest factor searched; ``growth_twin`` equal to it means no SLO broke below it.
    knee
        Growth factor at the knee of the twin's curve: where the power, IOPS divided by mean
        latency, is largest (None when the curve has no maximum in the range searched).
    saturation
        Growth factor at which the twin's busiest station reaches full utilization (None
        when it does not within the range searched).
    binding
        The SLO that breaks first above the answer.
    bottleneck
        The station group the twin finds busiest at the answer.
    bottleneck_utilization
        Its utilization there (fraction).
    bottleneck_simulated
        The simulated run's first bottleneck at the answer, ``kind: station``.
    meaning
        One sentence on what saturating that component means.
    curve
        The twin's curve: ``growth``, ``iops``, ``latency_ms_mean``, ``utilization`` (of the
        busiest station) and, per SLO metric, ``latency_ms_<metric>`` (ms; None where
        infinite).
    simulated
        The simulated points, in the order they were run.
    realised
        The grown knobs at the answer: dotted key -> value (integers for hosts and
        outstanding I/Os).
    notes
        How the answer was found and what was approximated, in words.
    seed
        The seed of the simulated runs.
    upper
        The smallest simulated factor above the answer that broke an SLO: the answer lies
        between ``growth`` and ``upper`` (None when no larger factor broke).
    resolved
        False when the simulations ran out before narrowing the answer to the search's
        tolerance: the answer is then the bracket ``growth`` to ``upper`` (or at least
        ``growth`` without ``upper``), not a figure.
    to_resolve
        About how many more simulations (bisections) would resolve it.
    """

    name: str
    grow: str
    slos: tuple[Slo, ...]
    base: dict[str, float]
    growth: float
    growth_twin: float
    growth_limit: float
    knee: float | None
    saturation: float | None
    binding: str
    bottleneck: str
    bottleneck_utilization: float
    bottleneck_simulated: str
    meaning: str
    curve: dict[str, list[float | None]]
    simulated: tuple[SimulatedPoint, ...] = ()
    realised: dict[str, float] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    seed: int | None = None
    upper: float | None = None
    resolved: bool = True
    to_resolve: int = 0

    @property
    def answer_text(self) -> str:
        """The answer as a planner should read it: ``x1.42``, or the bracket when it is not
        resolved (``between x1 and x1.63, not resolved``, ``at least x2``)."""
        if self.resolved:
            return f"x{number(self.growth)}"
        if self.upper is None:
            return f"at least x{number(self.growth)} (not resolved)"
        return f"between x{number(self.growth)} and x{number(self.upper)}, not resolved"

    @property
    def confirmed(self) -> SimulatedPoint | None:
        """The simulated point at the answer, or None when nothing was simulated there."""
        for point in self.simulated:
            if math.isclose(point.growth, self.growth, rel_tol=1e-9):
                return point
        return None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (what ``sanpath headroom --json`` prints)."""
        confirmed = self.confirmed
        return {
            "kind": "headroom",
            "name": self.name,
            "grow": self.grow,
            "slos": [s.to_dict() for s in self.slos],
            "base": dict(self.base),
            "growth": self.growth,
            "growth_twin": self.growth_twin,
            "growth_limit": self.growth_limit,
            "realised": dict(self.realised),
            "knee": self.knee,
            "saturation": self.saturation,
            "binding": self.binding,
            "bottleneck": self.bottleneck,
            "bottleneck_utilization": self.bottleneck_utilization,
            "bottleneck_simulated": self.bottleneck_simulated,
            "meaning": self.meaning,
            "confirmed": None if confirmed is None else confirmed.to_dict(),
            "simulated": [p.to_dict() for p in self.simulated],
            "curve": {k: [_finite(v) for v in vs] for k, vs in self.curve.items()},
            "notes": list(self.notes),
            "seed": self.seed,
            "upper": self.upper,
            "resolved": self.resolved,
            "to_resolve": self.to_resolve,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> HeadroomResult:
        """The inverse of :meth:`to_dict` (e.g. for a plot of a saved ``--json`` output).

        Raises
        ------
        KeyError, TypeError, ValueError
            When ``data`` is not a headroom result.
        """
        if data.get("kind") != "headroom":
            raise ValueError("not a headroom result (from sanpath headroom --json)")

        def opt(value: Any) -> float | None:
            return None if value is None else float(value)

        return cls(
            name=str(data["name"]),
            grow=str(data["grow"]),
            slos=tuple(Slo.from_dict(s) for s in data["slos"]),
            base={k: float(v) for k, v in data["base"].items()},
            growth=float(data["growth"]),
            growth_twin=float(data["growth_twin"]),
            growth_limit=float(data["growth_limit"]),
            knee=opt(data.get("knee")),
            saturation=opt(data.get("saturation")),
            binding=str(data.get("binding", "")),
            bottleneck=str(data.get("bottleneck", "")),
            bottleneck_utilization=float(data.get("bottleneck_utilization") or 0.0),
            bottleneck_simulated=str(data.get("bottleneck_simulated", "")),
            meaning=str(data.get("meaning", "")),
            curve={k: [opt(v) for v in vs] for k, vs in data["curve"].items()},
            simulated=tuple(SimulatedPoint.from_dict(p) for p in data.get("simulated", [])),
            realised={k: float(v) for k, v in data.get("realised", {}).items()},
            notes=tuple(str(n) for n in data.get("notes", [])),
            seed=None if data.get("seed") is None else int(data["seed"]),
            upper=opt(data.get("upper")),
            resolved=bool(data.get("resolved", True)),
            to_resolve=int(data.get("to_resolve", 0)),
        )

    def summary(self) -> str:
        """Readable lines (what ``sanpath headroom`` prints)."""
        slos = " and ".join(s.text for s in self.slos)
        lines = [f"headroom of {self.name}: grow {_WHAT[self.grow]} while {slos}"]
        if self.growth_twin >= self.growth_limit:
            lines.append(
                f"  no SLO breaks up to x{number(self.growth_limit)}, the largest growth searched"
            )
        upper = None if self.resolved else self.upper
        knobs = _knobs(self.base, self.realised, upper)
        lines.append(f"  answer      {self.answer_text}  ({knobs})")
        if not self.resolved and self.upper is not None and self.to_resolve:
            lines.append(
                f"              about {self.to_resolve} more simulation(s) would narrow it "
                "(--simulations)"
            )
        if 0.0 < self.growth < 1.0:
            lines.append("              below 1: the SLOs already break at the scenario's own load")
        lines.append(f"  twin        x{number(self.growth_twin)}  (analytic, by bisection)")
        if self.binding:
            lines.append(f"  binding     {self.binding} breaks first")
        confirmed = self.confirmed
        if confirmed is not None:
            lines.append(
                f"  simulated   x{number(confirmed.growth)}: {number(confirmed.iops)} IOPS"
            )
            for slo in self.slos:
                lines.append("    " + _point_line(confirmed, slo))
        elif self.simulated:
            lines.append("  simulated   no simulated factor met every SLO")
        if self.knee is not None:
            lines.append(f"  knee        x{number(self.knee)}  (largest IOPS / mean latency)")
        if self.saturation is not None:
            lines.append(f"  saturation  x{number(self.saturation)}  (busiest station full)")
        lines.append(
            f"  saturates first: {self.bottleneck} ({100 * self.bottleneck_utilization:.0f}% "
            "at the answer, twin)"
            + (f"; simulation: {self.bottleneck_simulated}" if self.bottleneck_simulated else "")
        )
        if self.meaning:
            lines.append(f"  meaning     {self.meaning}")
        if len(self.simulated) > 1:
            lines.append("  simulated points")
            for p in sorted(self.simulated, key=lambda q: q.growth):
                state = status(p, self.slos)
                values = ", ".join(f"{s.measure} {figure(p.value(s))} ms" for s in self.slos)
                cut = "" if p.finished else f", cut short by {p.stopped_by}"
                cut = ", unstable: the queue grows" if p.stopped_by == "unstable" else cut
                factor = f"x{number(p.growth)}"
                lines.append(f"    {factor:<11} {state:<13} {values}  ({p.ios:,} I/Os{cut})")
        if self.notes:
            lines.append("  notes")
            lines += [f"    - {n}" for n in self.notes]
        return "\n".join(lines)


_WHAT = {
    "rate": "the arrival rate",
    "hosts": "the number of hosts",
    "outstanding": "the outstanding I/Os",
}


def _knobs(
    base: Mapping[str, float], realised: Mapping[str, float], upper: float | None = None
) -> str:
    """Each grown knob, as written -> at the answer (``to`` its value at ``upper``, the
    factor that broke, when the answer is a bracket)."""
    parts = []
    for key, value in base.items():
        new = realised.get(key)
        shown = f"{key} {number(value)}"
        if new is not None:
            shown += f" -> {number(new)}"
            if upper is not None:
                shown += f" to {number(value * upper)}"
        parts.append(shown)
    return "; ".join(parts)


def _point_line(p: SimulatedPoint, slo: Slo) -> str:
    value = p.value(slo)
    ci = p.ci95.get(slo.measure)
    spread = plus_minus(value, ci)
    interval = f" {spread} (95% CI)" if spread else " (no interval)"
    verdict = p.verdict.get(slo.text, "")
    return f"{slo.text:<14} {slo.measure} {figure(value)} ms{interval}: {verdict}"


def _finite(value: float | None) -> float | None:
    return value if value is not None and math.isfinite(value) else None


def _num(value: Any) -> float:
    return math.nan if value is None else float(value)


def status(point: SimulatedPoint, slos: Sequence[Slo]) -> str:
    """``meets``, ``fails``, or ``at the limit`` (an interval contains a limit, none fails);
    a run that found its open loop unstable fails whatever its figures."""
    if point.stopped_by == "unstable":
        return "fails"  # an open loop it cannot carry: the latency grows without bound
    states = []
    for s in slos:
        value = point.value(s)
        ci = point.ci95.get(s.measure)
        if ci is not None and ci[0] <= s.limit_ms <= ci[1]:
            states.append("at the limit")
        else:
            states.append("meets" if s.met(value) else "fails")
    if "fails" in states:
        return "fails"
    return "at the limit" if "at the limit" in states else "meets"
