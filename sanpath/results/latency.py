"""Latency summaries shared by every result: the percentiles reported and their dict."""

from __future__ import annotations

import math

from sanpath.stats import LatencyHistogram

PERCENTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99_9": 0.999}
"""The percentiles of every ``latency_ms`` dict (key: probability)."""


def latency_dict(hist: LatencyHistogram) -> dict[str, float]:
    """``mean``, the :data:`PERCENTILES` and ``max`` of ``hist`` in milliseconds (NaN when
    empty)."""
    if hist.count == 0:
        return {"mean": math.nan, **dict.fromkeys(PERCENTILES, math.nan), "max": math.nan}
    out = {"mean": hist.mean * 1e3}
    for key, value in zip(PERCENTILES, hist.quantiles(list(PERCENTILES.values())), strict=True):
        out[key] = value * 1e3
    out["max"] = hist.max * 1e3
    return out


def finite(value: float) -> float | None:
    """``value``, or None where JSON has no number for it (NaN, infinity)."""
    return value if math.isfinite(value) else None
