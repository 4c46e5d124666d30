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


MIN_TAIL_IOS = 20
"""A latency percentile is shown to people only when at least this many measured I/Os lie
beyond it (p99.9 from 20,000 I/Os on): fewer, and one slow I/O more or less moves it."""


def beyond(ios: int, quantile: float) -> int:
    """How many of ``ios`` measured I/Os lie beyond the ``quantile`` (0.999 for p99.9)."""
    return math.floor(ios * (1.0 - quantile) + 1e-9)


def tail_note(ios: int, key: str) -> str | None:
    """Why percentile ``key`` (``p99_9``) of ``ios`` measured I/Os is not shown (None when
    :data:`MIN_TAIL_IOS` of them lie beyond it, or ``key`` is no percentile)."""
    q = PERCENTILES.get(key)
    if q is None or q <= 0.5:
        return None
    n = beyond(ios, q)
    if n >= MIN_TAIL_IOS:
        return None
    needed = round(MIN_TAIL_IOS / (1.0 - q))
    return f"only {n:,} of the {ios:,} measured I/Os lie beyond it; it needs {needed:,} (run.ios)"


def finite(value: float) -> float | None:
    """``value``, or None where JSON has no number for it (NaN, infinity)."""
    return value if math.isfinite(value) else None
