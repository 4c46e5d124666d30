"""The twin's result, :class:`TwinPrediction`, and the helpers that add notes to it."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from sanpath.readable import figure, percent

__all__ = ["TwinPrediction", "note_once", "with_note"]


@dataclass(frozen=True)
class TwinPrediction:
    """The twin's mean-value prediction for one scenario.

    Attributes
    ----------
    iops
        Application I/Os per second.
    mb_per_s
        Throughput in 10^6 bytes per second.
    latency_ms_mean
        Mean application I/O latency (ms), host queueing included; ``math.inf`` when an open
        loop offers more than the path can carry.
    bottleneck
        The station group whose busiest member is the most utilised (a simulator station
        name such as ``array.r5.drives``).
    utilization
        Mean utilisation per server of every station group with work to do, keyed by the
        simulator's station names.
    population
        Closed loop: the effective number of commands inside the path (after the queue-depth
        limits) that the MVA was solved for; None for an open loop.
    notes
        Every approximation applied, in words.
    breakdown_ms
        Mean milliseconds per I/O in each layer of ``sanpath.results.LAYERS`` (path
        order), as ``breakdown_ms`` of a run; they sum to ``latency_ms_mean``. Empty where the
        latency is infinite.
    """

    iops: float
    mb_per_s: float
    latency_ms_mean: float
    bottleneck: str
    utilization: dict[str, float]
    population: int | None
    notes: tuple[str, ...]
    breakdown_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (infinite latency becomes None)."""

        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "iops": finite(self.iops),
            "mb_per_s": finite(self.mb_per_s),
            "latency_ms_mean": finite(self.latency_ms_mean),
            "bottleneck": self.bottleneck,
            "utilization": {k: finite(v) for k, v in self.utilization.items()},
            "population": self.population,
            "breakdown_ms": {k: finite(v) for k, v in self.breakdown_ms.items()},
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """A few readable lines (what ``sanpath run --analytic`` prints)."""
        lines = [
            "analytic twin (mean-value prediction)",
            f"  IOPS      {figure(self.iops):>12}",
            f"  MB/s      {figure(self.mb_per_s):>12}   (10^6 bytes/s)",
            f"  latency   {figure(self.latency_ms_mean):>12} ms mean",
            f"  bottleneck {self.bottleneck} "
            f"({percent(self.utilization.get(self.bottleneck, 0.0))})",
        ]
        if self.population is not None:
            lines.append(f"  population {self.population} commands inside the path")
        if self.notes:
            lines.append("  notes:")
            lines += [f"    - {note}" for note in self.notes]
        return "\n".join(lines)


def note_once(notes: list[str], text: str) -> None:
    """Append ``text`` to ``notes`` unless it is there already."""
    if text not in notes:
        notes.append(text)


def with_note(p: TwinPrediction, note: str) -> TwinPrediction:
    """``p`` with ``note`` added to its notes (unless it is there already)."""
    if note in p.notes:
        return p
    return dataclasses.replace(p, notes=(*p.notes, note))
