"""The load along a growth axis, and what the analytic twin says along it.

Used by :func:`sanpath.experiments.headroom.headroom`: :class:`Growth` names the dotted keys a
growth factor scales (open-loop rates, host counts, closed-loop outstanding I/Os),
:class:`TwinCurve` caches the twin's predictions along that axis, :func:`boundary` finds the
largest factor at which a test still holds, :func:`knee` the factor of largest power, and
:func:`curve` samples the twin's latency curve for a plot. Latencies are in milliseconds.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sanpath.results import GROWTH_KINDS, Slo
from sanpath.spec import MAX_HOSTS, Scenario
from sanpath.theory.twin import TwinPrediction, predict_many

__all__ = [
    "SATURATION",
    "TAIL_FACTOR",
    "Growth",
    "TwinCurve",
    "boundary",
    "curve",
    "growth_of",
    "knee",
    "predicted_ms",
]

TAIL_FACTOR = {
    "mean": 1.0,
    "p50": math.log(2.0),
    "p90": math.log(10.0),
    "p99": math.log(100.0),
    "p99_9": math.log(1000.0),
    "max": math.log(1000.0),
}
"""The twin's percentile as a multiple of its mean latency (exponential-tail rule)."""

SATURATION = 0.99
"""Utilization of the busiest station group at which the twin calls the path saturated."""

RATE_LIMIT = 1e6
"""Largest growth factor searched for rates."""
COUNT_LIMIT = 4096
"""Largest host count per group, and outstanding I/Os per thread per LUN, searched."""


@dataclass(frozen=True)
class Growth:
    """What grows and how: the dotted keys and their values at growth 1.

    Attributes
    ----------
    kind
        ``rate``, ``hosts`` or ``outstanding``.
    base
        Dotted key -> value at growth 1 (I/Os per second per host, hosts, or outstanding
        I/Os per thread per LUN).
    integer
        True when the values are whole numbers (rounded half up, at least 1).
    limit
        The largest growth factor searched.
    """

    kind: str
    base: dict[str, float]
    integer: bool
    limit: float

    def values(self, g: float) -> dict[str, float]:
        """The knob values at growth ``g``."""
        if self.integer:
            return {k: float(max(1, math.floor(v * g + 0.5))) for k, v in self.base.items()}
        return {k: v * g for k, v in self.base.items()}

    def realised(self, g: float) -> float:
        """The growth factor the rounded values give (``g`` itself for rates)."""
        if not self.integer:
            return g
        return sum(self.values(g).values()) / sum(self.base.values())

    def overrides(self, g: float) -> dict[str, Any]:
        """Dotted overrides that set the knobs to their values at ``g``."""
        return {k: (int(v) if self.integer else float(v)) for k, v in self.values(g).items()}

    def step_up(self, g: float) -> float:
        """The smallest factor above ``g`` whose rounded values differ from those at ``g``."""
        return min((math.floor(v * g + 0.5) + 0.5) / v for v in self.base.values()) * (1 + 1e-12)

    def step_down(self, g: float) -> float:
        """The largest factor below ``g`` whose rounded values differ (0 when none)."""
        return max((math.floor(v * g + 0.5) - 0.5) / v for v in self.base.values()) * (1 - 1e-12)


def growth_of(scenario: Scenario, grow: str) -> Growth:
    """The knobs ``grow`` scales in ``scenario``.

    Raises
    ------
    ValueError
        For an unknown ``grow``, or a load that ``grow`` cannot scale (rates of closed
        loops, outstanding I/Os of open loops).
    """
    closed = [i for i, w in enumerate(scenario.workloads) if w.closed]
    opened = [i for i, w in enumerate(scenario.workloads) if not w.closed]
    if grow == "rate":
        if closed:
            names = ", ".join(scenario.workloads[i].name for i in closed)
            raise ValueError(
                f"--grow rate scales open-loop arrival rates, but {names} "
                f"{'is a closed loop' if len(closed) == 1 else 'are closed loops'} (outstanding "
                "I/Os), not rate-driven: use --grow outstanding or --grow hosts"
            )
        base = {f"workloads.{i}.rate": float(scenario.workloads[i].rate or 0.0) for i in opened}
        return Growth("rate", base, False, RATE_LIMIT)
    if grow == "outstanding":
        if opened:
            names = ", ".join(scenario.workloads[i].name for i in opened)
            raise ValueError(
                f"--grow outstanding scales closed-loop outstanding I/Os, but {names} "
                f"{'is an open loop' if len(opened) == 1 else 'are open loops'} (a rate): use "
                "--grow rate or --grow hosts"
            )
        base = {
            f"workloads.{i}.outstanding": float(scenario.workloads[i].outstanding_per_lun)
            for i in closed
        }
        return Growth("outstanding", base, True, COUNT_LIMIT / max(base.values()))
    if grow == "hosts":
        base = {f"hosts.{i}.count": float(h.count) for i, h in enumerate(scenario.hosts)}
        return Growth("hosts", base, True, min(COUNT_LIMIT, MAX_HOSTS) / max(base.values()))
    raise ValueError(f"--grow must be one of {', '.join(GROWTH_KINDS)}, not {grow!r}")


def predicted_ms(p: TwinPrediction, slo: Slo) -> float:
    """The twin's estimate of ``slo``'s metric (ms): the mean, or the exponential-tail rule."""
    return p.latency_ms_mean * TAIL_FACTOR[slo.metric]


class TwinCurve:
    """The twin's predictions along the growth axis, cached by the realised knob values."""

    def __init__(self, scenario: Scenario, growth: Growth) -> None:
        self.scenario = scenario
        self.growth = growth
        self.cache: dict[tuple[float, ...], TwinPrediction] = {}
        self.seen: dict[tuple[float, ...], float] = {}
        """Knob values -> the realised factor, for every prediction made."""

    def _key(self, g: float) -> tuple[float, ...]:
        return tuple(self.growth.values(g).values())

    def prefetch(self, factors: Sequence[float]) -> None:
        """Predict every factor not cached yet in one call (a sweep of loads is solved at once)."""
        todo: dict[tuple[float, ...], float] = {}
        for g in factors:
            key = self._key(g)
            if key not in self.cache:
                todo.setdefault(key, g)
        if todo:
            preds = predict_many(self.scenario, [self.growth.overrides(g) for g in todo.values()])
            for (key, g), p in zip(todo.items(), preds, strict=True):
                self.cache[key] = p
                self.seen[key] = self.growth.realised(g)

    def at(self, g: float) -> TwinPrediction:
        """The twin's prediction at growth ``g``."""
        self.prefetch([g])
        return self.cache[self._key(g)]

    def excess(self, g: float, slos: Sequence[Slo], correction: Mapping[str, float]) -> float:
        """max over the SLOs of (predicted / limit - 1): at most 0 when every one holds."""
        p = self.at(g)
        return max(predicted_ms(p, s) * correction.get(s.text, 1.0) / s.limit_ms - 1 for s in slos)

    def passes(self, g: float, slos: Sequence[Slo], correction: Mapping[str, float]) -> bool:
        """True when the (corrected) twin meets every SLO at ``g``."""
        p = self.at(g)
        return all(s.met(predicted_ms(p, s) * correction.get(s.text, 1.0)) for s in slos)

    def load(self, g: float) -> float:
        """How far the busiest station group is from saturation (> 0: saturated)."""
        p = self.at(g)
        if not math.isfinite(p.latency_ms_mean):
            return math.inf
        return max(p.utilization.values(), default=0.0) - SATURATION

    def power(self, g: float) -> float:
        """IOPS divided by mean latency (ms) at ``g``; 0 when the latency is infinite."""
        p = self.at(g)
        lat = p.latency_ms_mean
        return p.iops / lat if math.isfinite(lat) and lat > 0 else 0.0


def boundary(
    ok: Callable[[float], bool],
    growth: Growth,
    start: float = 1.0,
    score: Callable[[float], float] | None = None,
) -> float:
    """The largest factor for which ``ok`` holds (``ok`` true below, false above).

    From ``start`` the factor doubles (or halves) until ``ok`` changes, then the bracket is
    narrowed by the Illinois rule (regula falsi on ``score``, which is at most 0 where ``ok``
    holds; plain bisection where it is infinite or not given) to a relative 1e-10, or to
    neighbouring whole numbers. 0.0 when ``ok`` fails even at the smallest load;
    ``growth.limit`` when it never fails.
    """
    limit = growth.limit
    if ok(start):
        lo = start
        while True:
            if lo >= limit:
                return limit
            hi = min(2.0 * lo, limit)
            if not ok(hi):
                break
            lo = hi
    else:
        lo, hi = start / 2.0, start
        while not ok(lo):
            if lo < 1e-9 or (growth.integer and growth.realised(lo) == growth.realised(hi)):
                return 0.0
            lo, hi = lo / 2.0, lo
    s_lo, s_hi = (score(lo), score(hi)) if score is not None else (math.nan, math.nan)
    kept = ""
    for _ in range(400):
        if hi / lo - 1.0 <= 1e-10:
            break
        if math.isfinite(s_lo) and math.isfinite(s_hi) and s_hi > s_lo:
            mid = lo - s_lo * (hi - lo) / (s_hi - s_lo)
        else:
            mid = math.sqrt(lo * hi)
        if not lo < mid < hi:
            mid = math.sqrt(lo * hi)
        if growth.integer:
            if growth.values(mid) == growth.values(lo):
                mid = growth.step_up(mid)
            elif growth.values(mid) == growth.values(hi):
                mid = growth.step_down(mid)
            if not lo < mid < hi or growth.values(mid) in (growth.values(lo), growth.values(hi)):
                break  # neighbouring whole numbers
        s_mid = score(mid) if score is not None else math.nan
        if ok(mid):
            lo, s_lo = mid, s_mid
            if kept == "hi":
                s_hi /= 2.0
            kept = "hi"
        else:
            hi, s_hi = mid, s_mid
            if kept == "lo":
                s_lo /= 2.0
            kept = "lo"
    return growth.realised(lo)


def knee(twin: TwinCurve, top: float) -> float | None:
    """The factor of largest power (IOPS / mean latency) on the twin's curve, below ``top``.

    An octave grid from ``top / 2**24`` to ``top``, then a golden-section search between the
    best grid point's neighbours (whole numbers for hosts and outstanding I/Os). None when the
    largest power is at either end of the grid (for whole numbers, the smallest load, one host
    or one outstanding I/O, can be the knee).
    """
    grid = sorted({twin.growth.realised(top * 2.0**-k) for k in range(25)})
    twin.prefetch(grid)
    powers = [twin.power(g) for g in grid]
    best = max(range(len(grid)), key=lambda i: powers[i])
    if powers[best] <= 0.0 or best == len(grid) - 1:
        return None
    if best == 0:  # the smallest whole-number load, or no maximum for a rate
        return grid[0] if twin.growth.integer else None
    a, b = grid[best - 1], grid[best + 1]
    golden = (math.sqrt(5.0) - 1.0) / 2.0
    if twin.growth.integer:
        within = sorted({twin.growth.realised(a + (b - a) * i / 32.0) for i in range(33)})
        if len(within) <= 12:
            twin.prefetch(within)
            return max(within, key=lambda g: (twin.power(g), -g))
    while b / a - 1.0 > 1e-7:
        c, d = b - golden * (b - a), a + golden * (b - a)
        if twin.growth.integer and twin.growth.values(c) == twin.growth.values(d):
            break
        if twin.power(c) >= twin.power(d):
            b = d
        else:
            a = c
    middle = twin.growth.realised((a + b) / 2.0)
    return max({middle, twin.growth.realised(a), twin.growth.realised(b)}, key=twin.power)


def curve(twin: TwinCurve, slos: Sequence[Slo], top: float) -> dict[str, list[float | None]]:
    """The twin's curve up to ``top``: growth, IOPS, latencies (ms), busiest utilization.

    Forty evenly spaced factors (solved together for rates and outstanding I/Os; twelve for
    host counts, each of which the twin maps afresh), and every factor the search predicted.
    """
    n = 12 if twin.growth.kind == "hosts" else 40
    grid = {twin.growth.realised(top * i / n) for i in range(1, n + 1)}
    twin.prefetch(sorted(grid))
    grid |= {g for g in twin.seen.values() if top / n <= g <= top}
    metrics = sorted({s.metric for s in slos} - {"mean"}, key=list(TAIL_FACTOR).index)
    out: dict[str, list[float | None]] = {
        "growth": [],
        "iops": [],
        "latency_ms_mean": [],
        "utilization": [],
    }
    for m in metrics:
        out[f"latency_ms_{m}"] = []
    for g in sorted(grid):
        p = twin.at(g)
        out["growth"].append(g)
        out["iops"].append(p.iops)
        out["latency_ms_mean"].append(_finite(p.latency_ms_mean))
        out["utilization"].append(max(p.utilization.values(), default=0.0))
        for m in metrics:
            out[f"latency_ms_{m}"].append(_finite(p.latency_ms_mean * TAIL_FACTOR[m]))
    return out


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None
