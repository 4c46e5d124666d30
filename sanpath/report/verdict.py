"""What a report says first: the verdict, the findings to act on, and the run read for people.

:func:`verdict` answers "does the path do what it must?": against a stated latency target it
meets it, is at risk (less than :data:`AT_RISK_GROWTH` of growth before it breaks, or a
headroom search that has not resolved it) or fails it; without a target it says how far the
throughput can grow before the busiest server or link saturates. :func:`top_findings` picks
the findings of ``sanpath check`` to act on first. :func:`write_cache_note` says when the
write-back cache was full.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

from sanpath.advice import CheckReport, Finding
from sanpath.readable import figure, number, percent
from sanpath.results import HeadroomResult, RunResult

__all__ = [
    "AT_RISK_GROWTH",
    "SATURATED",
    "Verdict",
    "top_findings",
    "verdict",
    "write_cache_note",
]

AT_RISK_GROWTH = 1.25
"""A load that meets its target but cannot grow by this factor before the target breaks is
*at risk* (a planning margin of 25%, the report's own choice: assumed, not sourced)."""

SATURATED = 0.95
"""The share of the time from which a busy server or link is saturated (more load only
lengthens its queue)."""

Level = Literal["meets", "at risk", "fails", "headroom", "saturated"]


@dataclass(frozen=True)
class Verdict:
    """The report's first words: ``level`` (``meets``, ``at risk`` or ``fails`` a stated
    target; ``headroom`` or ``saturated`` without one), the sentence that says it, and the
    facts that qualify it (not steady, the check's errors, a full write cache)."""

    level: Level
    sentence: str
    qualifiers: tuple[str, ...] = ()


def _saturating(result: RunResult) -> tuple[str, str, float] | None:
    """The busiest server or link of the run: (kind, station, utilization). Slots (queues)
    fill without doing work, so they do not set how far the throughput can grow."""
    for b in result.bottlenecks:
        if b.station_kind != "slots":
            return b.kind, b.station, b.utilization
    return None


def _against_slo(result: RunResult, h: HeadroomResult) -> tuple[Level, str]:
    slos = " and ".join(s.text for s in h.slos)
    per_workload = {n: g.latency_ms for n, g in result.groups.get("workloads", {}).items()}
    broken = [s for s in h.slos if not s.met(s.read(result.latency_ms, per_workload))]
    first = f"the {h.bottleneck} saturates first" if h.bottleneck else ""
    if broken or h.growth < 1.0:
        shown = broken or list(h.slos)
        values = ", ".join(
            f"{s.measure} {figure(s.read(result.latency_ms, per_workload))} ms" for s in shown
        )
        return "fails", (
            f"Fails {slos} at its own load ({values})" + (f"; {first}" if first else "") + "."
        )
    grow = h.answer_text
    breaks = f"{h.binding or 'a target'} breaks" + (f"; {first}" if first else "")
    if h.growth_twin >= h.growth_limit and h.growth >= h.growth_limit:
        return "meets", f"Meets {slos}, with no target broken up to x{figure(h.growth)} the load."
    if not h.resolved:  # a bracket: safe only if its lower end is
        level: Level = "meets" if h.growth >= AT_RISK_GROWTH else "at risk"
        head = "Meets" if level == "meets" else "At risk: meets"
        more = (
            f" (about {h.to_resolve} more simulation(s) would resolve it)"
            if h.upper is not None and h.to_resolve
            else ""
        )
        return level, f"{head} {slos} today; the load can grow {grow} before {breaks}{more}."
    if h.growth < AT_RISK_GROWTH:
        return "at risk", (
            f"At risk: meets {slos} today, but the load can grow only {grow} before {breaks}."
        )
    return "meets", f"Meets {slos}: the load can grow {grow} before {breaks}."


def _without_slo(result: RunResult) -> tuple[Level, str]:
    busiest = _saturating(result)
    if busiest is None or busiest[2] <= 0:
        return "headroom", "Nothing on the path did measurable work: no headroom to state."
    kind, station, busy = busiest
    if busy >= SATURATED:
        return "saturated", (
            f"No headroom: the {kind} ({station}) are busy {percent(busy)} of the time, so "
            "more load only lengthens the queues in front of them."
        )
    grow = 1.0 / busy - 1.0
    return "headroom", (
        f"The path has about {percent(grow)} headroom before the {kind} ({station}) "
        f"saturate: they are busy {percent(busy)} of the time now (an estimate from that "
        "share; sanpath report --slo finds the growth a latency target allows by simulation)."
    )


def write_cache_note(result: RunResult) -> str | None:
    """A sentence when writes found the write-back cache full (forced flushes): how many,
    and what the cache layer cost; None when no write waited for room."""
    forced = int(result.counters.get("forced_flushes", 0))
    cached = int(result.counters.get("cached_writes", 0))
    if forced <= 0:
        return None
    share = forced / cached if cached else 1.0
    cache_ms = float(result.breakdown_ms.get("cache", 0.0))
    mean = float(result.latency_ms.get("mean", math.nan))
    cost = (
        f" The cache layer, where those writes wait, adds {figure(cache_ms)} ms to the mean "
        f"I/O ({percent(cache_ms / mean)} of its {figure(mean)} ms)."
        if mean > 0 and cache_ms > 0
        else ""
    )
    every = "every one" if forced >= cached else percent(share)
    return (
        f"The write cache is full: {number(forced)} of the {number(cached)} cached writes "
        f"({every}) found no room and waited for a destage to the drives (a forced flush), "
        "so writes go at the drives' pace, not the cache's." + cost
    )


def top_findings(check: CheckReport | None, most: int = 3) -> list[Finding]:
    """The findings to act on first: errors, then warnings, those with a fix before those
    without, at most ``most``."""
    if check is None:
        return []
    ranked = [f for f in check.findings if f.severity in ("error", "warning")]
    ranked.sort(key=lambda f: (f.severity != "error", f.fix is None))
    return ranked[:most]


def verdict(
    result: RunResult, headroom: HeadroomResult | None = None, check: CheckReport | None = None
) -> Verdict:
    """The verdict on ``result``: against ``headroom``'s targets when there are any, else the
    headroom before the busiest server or link saturates; qualified by the run's steadiness,
    ``check``'s errors and a full write cache."""
    level, sentence = (
        _against_slo(result, headroom) if headroom is not None else _without_slo(result)
    )
    qualifiers: list[str] = []
    if not result.steady:
        qualifiers.append(
            "The run did not reach steady state: these figures are not the long-run "
            "behaviour (see the warnings under the headline results)."
        )
    if check is not None:
        counts = check.counts()
        names = {"error": "error", "warning": "warning", "info": "note"}
        found = [
            f"{counts[s]} {names[s]}{'s' if counts[s] > 1 else ''}" for s in counts if counts[s]
        ]
        if found:
            qualifiers.append(f"sanpath check finds {', '.join(found)}: the first are below.")
        else:
            qualifiers.append("sanpath check finds nothing to change.")
    cache = write_cache_note(result)
    if cache is not None:
        qualifiers.append(cache)
    return Verdict(level, sentence, tuple(qualifiers))
