"""Streaming statistics: nothing here knows about SANs, and nothing imports sanpath.

Everything is fed once per simulated I/O for runs of any length, so memory stays flat (or
grows per batch or per interval, never per I/O), and the per-I/O hot paths
(:meth:`LatencyHistogram.record`, :meth:`BatchMeans.add`, :meth:`TimeSeries.add`) cost a
handful of Python operations. Times and latencies are float seconds unless a name says
otherwise (``*_ms`` milliseconds, ``*_ns`` integer nanoseconds).

* :mod:`~sanpath.stats.histogram` - log-linear latency histogram (fio's buckets);
* :mod:`~sanpath.stats.intervals` - Student-t and sectioning intervals, the t quantile, lag-1
  autocorrelation;
* :mod:`~sanpath.stats.batches` - batch means over completions;
* :mod:`~sanpath.stats.timeseries` - per-interval figures for dashboards;
* :mod:`~sanpath.stats.steady` - MSER warm-up, trend tests, doubts about an interval.
"""

from sanpath.stats.batches import BatchMeans, BatchValues
from sanpath.stats.histogram import DEFAULT_BITS, FLUSH_EVERY, MAX_NS_BITS, LatencyHistogram
from sanpath.stats.intervals import lag1_autocorrelation, mean_ci, section_ci, t_quantile
from sanpath.stats.steady import (
    RELAXATIONS_PER_BATCH,
    interval_doubts,
    mser,
    relative_half_width,
    relaxation_time,
    settled,
    short_batches,
    trend,
)
from sanpath.stats.timeseries import TimeSeries

__all__ = [
    "DEFAULT_BITS",
    "FLUSH_EVERY",
    "MAX_NS_BITS",
    "RELAXATIONS_PER_BATCH",
    "BatchMeans",
    "BatchValues",
    "LatencyHistogram",
    "TimeSeries",
    "interval_doubts",
    "lag1_autocorrelation",
    "mean_ci",
    "mser",
    "relative_half_width",
    "relaxation_time",
    "section_ci",
    "settled",
    "short_batches",
    "t_quantile",
    "trend",
]
