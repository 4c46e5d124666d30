"""Latency targets (SLOs): ``p99<20ms``, ``oltp:mean<=5ms``, read, checked and judged.

:func:`parse_slo` reads a target, :class:`Slo` holds it and reads its figure from a run's
latencies, :func:`verdict` judges a simulated figure with its 95% interval against it.
Latencies are in milliseconds.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SLO_METRICS", "Slo", "SloError", "parse_slo", "verdict"]

SLO_METRICS = ("mean", "p50", "p90", "p99", "p99_9", "max")
"""Latency figures an SLO can name (the keys of ``RunResult.latency_ms``)."""

_UNITS_MS = {"s": 1e3, "ms": 1.0, "us": 1e-3, "µs": 1e-3}
_SLO = re.compile(r"^\s*(?:([^:<>=]+?)\s*:)?\s*([A-Za-z0-9_.]+)\s*(<=|<|>=|>|=+)?\s*(.*?)\s*$")
_NUMBER = re.compile(r"^([0-9]*\.?[0-9]+(?:[eE][-+]?[0-9]+)?)\s*([A-Za-zµ]*)$")
_GRAMMAR = (
    "write METRIC<LIMIT or METRIC<=LIMIT, e.g. p99<20ms or mean<=5ms, or WORKLOAD:METRIC<LIMIT "
    "for one workload, e.g. oltp:p99<2ms"
)


class SloError(ValueError):
    """A latency target that cannot be read; the message says what is wrong and the grammar."""


@dataclass(frozen=True)
class Slo:
    """A latency target: ``metric op limit_ms``, e.g. p99 below 20 ms, of every I/O or of
    one workload's.

    Attributes
    ----------
    metric
        One of ``SLO_METRICS``.
    op
        ``<`` (strictly below) or ``<=``.
    limit_ms
        The limit in milliseconds.
    workload
        The workload whose I/Os the target is for (None: all I/Os together).
    """

    metric: str
    op: str
    limit_ms: float
    workload: str | None = None

    @property
    def text(self) -> str:
        """The target as written back, e.g. ``p99<20ms`` or ``oltp:p99<2ms``."""
        return f"{self.measure}{self.op}{self.limit_ms:g}ms"

    @property
    def measure(self) -> str:
        """What the target measures, the metric or ``workload:metric`` (e.g. ``oltp:p99``)."""
        return self.metric if self.workload is None else f"{self.workload}:{self.metric}"

    def read(
        self,
        latency_ms: Mapping[str, float],
        workloads: Mapping[str, Mapping[str, float]] | None = None,
    ) -> float:
        """The target's figure (ms) from a run's latencies of all I/Os (``latency_ms``) and
        per workload (``workloads``: name -> latencies); NaN when it is not there."""
        if self.workload is None:
            return float(latency_ms.get(self.metric, math.nan))
        return float((workloads or {}).get(self.workload, {}).get(self.metric, math.nan))

    @property
    def key(self) -> str:
        """The sweep-table column of the metric, e.g. ``latency_ms_p99``."""
        return f"latency_ms_{self.metric}"

    def met(self, value_ms: float) -> bool:
        """True when a latency of ``value_ms`` milliseconds meets the target."""
        if not math.isfinite(value_ms):
            return False
        return value_ms < self.limit_ms if self.op == "<" else value_ms <= self.limit_ms

    def to_dict(self) -> dict[str, Any]:
        """``{"slo", "metric", "op", "limit_ms"}``, and ``"workload"`` when it names one."""
        out: dict[str, Any] = {
            "slo": self.text,
            "metric": self.metric,
            "op": self.op,
            "limit_ms": self.limit_ms,
        }
        if self.workload is not None:
            out["workload"] = self.workload
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Slo:
        """The inverse of :meth:`to_dict`."""
        workload = data.get("workload")
        return cls(
            str(data["metric"]),
            str(data["op"]),
            float(data["limit_ms"]),
            None if workload is None else str(workload),
        )


def parse_slo(text: str) -> Slo:
    """Read a latency target: ``METRIC<LIMIT`` or ``METRIC<=LIMIT``, optionally for one
    workload: ``WORKLOAD:METRIC<LIMIT``.

    ``METRIC`` is one of ``mean, p50, p90, p99, p99_9, max`` (``p99.9`` is read as
    ``p99_9``); ``LIMIT`` is a positive number with a unit, ``ms``, ``us`` or ``s``:
    ``p99<20ms``, ``mean<=500us``, ``max < 0.1s``, ``oltp:p99<2ms`` (the p99 of workload
    ``oltp``'s I/Os alone; whether the scenario has that workload is checked where the
    target is used).

    Raises
    ------
    SloError
        Saying what is wrong with ``text``.
    """
    if not isinstance(text, str) or not text.strip():
        raise SloError(f"empty SLO: {_GRAMMAR}")
    match = _SLO.match(text)
    if match is None:  # pragma: no cover - the pattern matches any text
        raise SloError(f"cannot read SLO {text!r}: {_GRAMMAR}")
    workload, metric, op, rest = match.group(1), match.group(2), match.group(3), match.group(4)
    metric = metric.lower()
    metric = "p99_9" if metric == "p99.9" else metric
    if metric not in SLO_METRICS:
        raise SloError(
            f"SLO {text!r}: unknown metric {metric!r}; use one of {', '.join(SLO_METRICS)}"
        )
    if op is None:
        raise SloError(f"SLO {text!r}: no comparison; {_GRAMMAR}")
    if op not in ("<", "<="):
        raise SloError(
            f"SLO {text!r}: {op!r} is not allowed: a latency target is an upper limit, use < or <="
        )
    number = _NUMBER.match(rest)
    if number is None:
        raise SloError(f"SLO {text!r}: cannot read the limit {rest!r}; {_GRAMMAR}")
    unit = number.group(2)
    if unit not in _UNITS_MS:
        said = f"unknown unit {unit!r}" if unit else "the limit has no unit"
        raise SloError(f"SLO {text!r}: {said}; give ms, us or s, e.g. {metric}<20ms")
    limit = float(number.group(1)) * _UNITS_MS[unit]
    if not (math.isfinite(limit) and limit > 0):
        raise SloError(f"SLO {text!r}: the limit must be a positive number of ms, us or s")
    return Slo(metric, op, limit, workload)


def verdict(slo: Slo, value: float, interval: Sequence[float] | None) -> str:
    """``meets``, ``fails``, or ``at the limit`` when the 95% interval contains the limit."""
    if interval is not None and interval[0] <= slo.limit_ms <= interval[1]:
        side = "below" if slo.met(value) else "above"
        return f"at the limit (the 95% interval contains it; the estimate is {side})"
    return "meets" if slo.met(value) else "fails"
