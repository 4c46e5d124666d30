"""Streaming statistics for the simulator: latency histograms, batch means, time series.

Everything here is designed to be fed once per simulated I/O for runs of arbitrary
length, so memory stays flat (or grows only per *batch* / per *interval*, never per I/O)
and the per-I/O hot paths (:meth:`LatencyHistogram.record`, :meth:`BatchMeans.add`,
:meth:`TimeSeries.add`) cost a handful of Python operations.

All times and latencies are ``float`` seconds unless a name says otherwise
(``*_ms`` = milliseconds, ``*_ns`` = integer nanoseconds).

Contents
--------
LatencyHistogram
    Log-linear histogram in the style of fio's ``stat.h`` (``plat`` buckets): exact
    count/mean/min/max plus quantiles with a relative error of at most
    ``2 ** -(bits + 1)`` (0.39 % for the default ``bits=7``).
BatchMeans
    Non-overlapping batch means over completions for Student-t confidence intervals
    of steady-state throughput (IOPS) and mean latency.
TimeSeries
    Per-interval counters (IOPS, MB/s, mean and p99 latency, QFULL events) for
    dashboards and plots.
mean_ci, lag1_autocorrelation
    Plain helpers for intervals over batches or independent replicates and for
    diagnosing batches that are too small (correlated).
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Sequence
from functools import lru_cache
from typing import NamedTuple

import numpy as np
import numpy.typing as npt
import scipy.stats

__all__ = [
    "DEFAULT_BITS",
    "FLUSH_EVERY",
    "MAX_NS_BITS",
    "BatchMeans",
    "BatchValues",
    "LatencyHistogram",
    "TimeSeries",
    "lag1_autocorrelation",
    "mean_ci",
    "section_ci",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: Linear buckets per power-of-two group are ``2 ** DEFAULT_BITS``; fio uses 6, we use 7
#: so that the quantile relative error bound is ``2 ** -8`` ~= 0.39 %.
DEFAULT_BITS = 7
#: Values are bucketed in integer nanoseconds in ``[0, 2 ** MAX_NS_BITS)``, i.e. up to
#: about 1100 s (18.3 min). Larger values land in the last bucket (exact max is kept).
MAX_NS_BITS = 40
#: :meth:`LatencyHistogram.record` buffers this many values before a vectorised flush.
FLUSH_EVERY = 8192

_NS_PER_S = 1e9
_S_PER_NS = 1e-9
_MAX_NS = (1 << MAX_NS_BITS) - 1


# ---------------------------------------------------------------------------------------
# Log-linear latency histogram
# ---------------------------------------------------------------------------------------


def _n_buckets(bits: int) -> int:
    """Number of buckets for ``bits`` linear bits covering ``[0, 2**MAX_NS_BITS)`` ns."""
    return (MAX_NS_BITS - bits + 1) << bits


@lru_cache(maxsize=8)
def _bucket_tables(bits: int) -> tuple[IntArray, FloatArray]:
    """Bucket lower edges and representative values, both in nanoseconds.

    Parameters
    ----------
    bits : int
        Linear bits per power-of-two group.

    Returns
    -------
    edges_ns : ndarray of int64, shape (n_buckets + 1,)
        Lower edge of every bucket plus the upper edge of the last one (ns).
        Bucket ``i`` holds the integers ``edges_ns[i] <= v < edges_ns[i + 1]``.
    values_ns : ndarray of float64, shape (n_buckets,)
        Value reported for a bucket (ns): the value itself for the exact buckets
        (``i < 2 ** (bits + 1)``, width 1 ns), the midpoint ``lo + width / 2`` otherwise
        (as fio's ``plat_idx_to_val``).
    """
    nb = _n_buckets(bits)
    val = 1 << bits
    idx = np.arange(nb, dtype=np.int64)
    eb = np.maximum((idx >> bits) - 1, 0)  # "error bits": log2 of the bucket width
    lo = np.where(idx < val, idx, (val + (idx & (val - 1))) << eb)
    width = np.int64(1) << eb
    edges = np.empty(nb + 1, dtype=np.int64)
    edges[:-1] = lo
    edges[-1] = lo[-1] + width[-1]
    values = np.where(idx < 2 * val, lo.astype(np.float64), lo + width / 2.0)
    edges.setflags(write=False)
    values.setflags(write=False)
    return edges, values


def _bucket_index(ns: IntArray, bits: int) -> IntArray:
    """Vectorised fio-style bucket index of non-negative integer nanoseconds.

    Parameters
    ----------
    ns : ndarray of int64
        Values in ns, already clamped to ``[0, 2**MAX_NS_BITS - 1]``.
    bits : int
        Linear bits per power-of-two group.

    Returns
    -------
    ndarray of int64
        Bucket indices in ``[0, n_buckets)``.
    """
    val = 1 << bits
    # Exact for ns < 2**53; frexp exponent e gives 2**(e-1) <= ns < 2**e.
    msb = np.frexp(ns.astype(np.float64))[1].astype(np.int64) - 1
    eb = np.maximum(msb - bits, 0)
    grouped = ((eb + 1) << bits) + ((ns >> eb) & (val - 1))
    return np.where(ns < 2 * val, ns, grouped)


class LatencyHistogram:
    """Log-linear latency histogram with exact count, mean, min and max.

    Values are rounded to integer nanoseconds and counted in buckets laid out as in fio
    (``stat.h``): values below ``2 ** (bits + 1)`` ns have one bucket each; above that,
    every power-of-two range ``[2**m, 2**(m+1))`` is split into ``2 ** bits`` equal
    buckets. A reported quantile is the midpoint of its bucket, so its relative error is
    at most ``2 ** -(bits + 1)`` (plus 0.5 ns of rounding); it is further clipped to the
    exact ``[min, max]``, which can only reduce the error. The range is
    ``[0, 2**40)`` ns (~1100 s); larger values are counted in the last bucket but still
    contribute exactly to :attr:`mean` and :attr:`max`.

    Memory is constant: ``n_buckets`` int64 counters (4352 buckets = 34 KiB for
    ``bits=7``; 1152 = 9 KiB for ``bits=5``) plus a buffer of at most
    :data:`FLUSH_EVERY` pending Python floats.

    Parameters
    ----------
    bits : int, default 7
        Linear bits per power-of-two group (fio uses 6). Must be in ``1..12``.

    Notes
    -----
    :meth:`record` only appends to a list; every :data:`FLUSH_EVERY` values (and before
    any read) the buffer is converted and counted with :func:`numpy.bincount`.
    Negative or non-finite values are detected at that flush and raise
    :class:`ValueError` (the valid values of the batch are kept).
    """

    __slots__ = ("_bits", "_buf", "_count", "_counts", "_max", "_min", "_sum")

    def __init__(self, bits: int = DEFAULT_BITS) -> None:
        if not 1 <= bits <= 12:
            raise ValueError(f"bits must be in 1..12, got {bits}")
        self._bits = bits
        self._counts: IntArray = np.zeros(_n_buckets(bits), dtype=np.int64)
        self._buf: list[float] = []
        self._count = 0
        self._sum = 0.0
        self._min = math.inf
        self._max = -math.inf

    # -- recording ---------------------------------------------------------------------

    def record(self, seconds: float) -> None:
        """Record one latency (hot path: a list append, amortised vectorised flush).

        Parameters
        ----------
        seconds : float
            Latency in seconds, ``>= 0``.
        """
        buf = self._buf
        buf.append(seconds)
        if len(buf) >= FLUSH_EVERY:
            self._flush()

    def record_many(self, values: npt.ArrayLike) -> None:
        """Record many latencies at once.

        Parameters
        ----------
        values : array_like of float
            Latencies in seconds, all ``>= 0`` and finite.

        Raises
        ------
        ValueError
            If any value is negative or non-finite (the valid ones are recorded).
        """
        self._ingest(np.asarray(values, dtype=np.float64).ravel())

    def _flush(self) -> None:
        if self._buf:
            arr = np.asarray(self._buf, dtype=np.float64)
            self._buf = []
            self._ingest(arr)

    def _ingest(self, arr: FloatArray) -> None:
        if arr.size == 0:
            return
        ok = np.isfinite(arr) & (arr >= 0.0)
        n_bad = arr.size - int(np.count_nonzero(ok))
        if n_bad:
            arr = arr[ok]
        if arr.size:
            ns = np.rint(np.minimum(arr * _NS_PER_S, float(_MAX_NS))).astype(np.int64)
            idx = _bucket_index(ns, self._bits)
            self._counts += np.bincount(idx, minlength=self._counts.size)
            self._count += int(arr.size)
            self._sum += float(arr.sum())
            self._min = min(self._min, float(arr.min()))
            self._max = max(self._max, float(arr.max()))
        if n_bad:
            raise ValueError(f"{n_bad} negative or non-finite latency value(s) rejected")

    def reset(self) -> None:
        """Forget all recorded values (keeps ``bits`` and the allocated counters)."""
        self._buf = []
        self._counts.fill(0)
        self._count = 0
        self._sum = 0.0
        self._min = math.inf
        self._max = -math.inf

    def merge(self, other: LatencyHistogram) -> LatencyHistogram:
        """Return a new histogram holding the values of ``self`` and ``other``.

        Parameters
        ----------
        other : LatencyHistogram
            Histogram with the same ``bits``.

        Returns
        -------
        LatencyHistogram
            New object; neither input is modified (apart from flushing buffers).
        """
        if other.bits != self._bits:
            raise ValueError(f"cannot merge histograms with bits {self._bits} and {other.bits}")
        self._flush()
        other._flush()
        out = LatencyHistogram(self._bits)
        out._counts = self._counts + other._counts
        out._count = self._count + other._count
        out._sum = self._sum + other._sum
        out._min = min(self._min, other._min)
        out._max = max(self._max, other._max)
        return out

    # -- summary -----------------------------------------------------------------------

    @property
    def bits(self) -> int:
        """Linear bits per power-of-two group."""
        return self._bits

    @property
    def count(self) -> int:
        """Number of recorded values."""
        return self._count + len(self._buf)

    @property
    def mean(self) -> float:
        """Exact mean latency in seconds (running sum, not buckets); nan if empty."""
        self._flush()
        return self._sum / self._count if self._count else math.nan

    @property
    def total(self) -> float:
        """Exact sum of the recorded latencies in seconds."""
        self._flush()
        return self._sum

    @property
    def min(self) -> float:
        """Exact minimum latency in seconds; nan if empty."""
        self._flush()
        return self._min if self._count else math.nan

    @property
    def max(self) -> float:
        """Exact maximum latency in seconds; nan if empty."""
        self._flush()
        return self._max if self._count else math.nan

    @property
    def counts(self) -> IntArray:
        """Copy of the bucket counters, int64, shape ``(n_buckets,)``."""
        self._flush()
        return self._counts.copy()

    def quantile(self, q: float) -> float:
        """Estimate the ``q`` quantile (inverted-CDF definition) in seconds.

        Parameters
        ----------
        q : float
            Probability in ``[0, 1]``.

        Returns
        -------
        float
            Representative value of the bucket holding the order statistic of rank
            ``ceil(q * count)`` (as ``np.quantile(..., method="inverted_cdf")``),
            clipped to ``[min, max]``; nan if the histogram is empty.
        """
        return self.quantiles([q])[0]

    def quantiles(self, qs: Sequence[float] | FloatArray) -> list[float]:
        """Estimate several quantiles at once (one cumulative sum).

        Parameters
        ----------
        qs : sequence of float
            Probabilities in ``[0, 1]``.

        Returns
        -------
        list of float
            Quantiles in seconds, see :meth:`quantile`.
        """
        q = np.asarray(qs, dtype=np.float64).ravel()
        if np.any(~((q >= 0.0) & (q <= 1.0))):
            raise ValueError("quantile probabilities must be in [0, 1]")
        self._flush()
        n = self._count
        if n == 0:
            return [math.nan] * q.size
        # Same 0-based order statistic as numpy's "inverted_cdf": ceil(n*q - 1).
        k = np.clip(np.ceil(n * q - 1.0), 0, n - 1).astype(np.int64)
        cum = np.cumsum(self._counts)
        b = np.searchsorted(cum, k + 1, side="left")
        vals = _bucket_tables(self._bits)[1][b] * _S_PER_NS
        return [float(v) for v in np.clip(vals, self._min, self._max)]

    def bucket_edges(self) -> FloatArray:
        """Bucket edges in seconds, shape ``(n_buckets + 1,)``.

        Bucket ``i`` holds values that round to an integer number of ns in
        ``[edges[i], edges[i + 1])``.
        """
        return _bucket_tables(self._bits)[0].astype(np.float64) * _S_PER_NS

    def bucket_values(self) -> FloatArray:
        """Representative value (midpoint, or exact value for 1 ns buckets) per bucket, s."""
        return _bucket_tables(self._bits)[1] * _S_PER_NS

    def cdf(self) -> tuple[FloatArray, FloatArray]:
        """Empirical CDF for plotting, restricted to non-empty buckets.

        Returns
        -------
        latency_s : ndarray of float64
            Representative latency (s) of every non-empty bucket, increasing.
        fraction : ndarray of float64
            Fraction of values in that bucket or below, ending at 1.0.
            Both arrays are empty if nothing was recorded.
        """
        self._flush()
        nz = np.flatnonzero(self._counts)
        if self._count == 0:
            return np.empty(0, dtype=np.float64), np.empty(0, dtype=np.float64)
        frac = np.cumsum(self._counts[nz]) / float(self._count)
        return self.bucket_values()[nz], frac.astype(np.float64)

    def __repr__(self) -> str:
        return (
            f"LatencyHistogram(bits={self._bits}, count={self.count}, "
            f"mean={self.mean:.6g}s, max={self.max:.6g}s)"
        )


# ---------------------------------------------------------------------------------------
# Confidence intervals
# ---------------------------------------------------------------------------------------


def mean_ci(values: Sequence[float] | FloatArray, confidence: float = 0.95) -> tuple[float, float]:
    """Student-t confidence interval for the mean of (approximately) iid values.

    Use it over batch means of one run or over per-replicate results of independent
    runs.

    Parameters
    ----------
    values : sequence of float
        Observations (any unit; the interval has the same unit).
    confidence : float, default 0.95
        Two-sided confidence level in ``(0, 1)``.

    Returns
    -------
    (low, high) : tuple of float
        ``mean -/+ t_{(1+c)/2, n-1} * s / sqrt(n)`` with the sample standard deviation
        ``s`` (ddof=1); ``(nan, nan)`` with fewer than 2 values.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    if n < 2:
        return math.nan, math.nan
    m = float(x.mean())
    s = float(x.std(ddof=1))
    t = float(scipy.stats.t.ppf(0.5 + confidence / 2.0, n - 1))
    half = t * s / math.sqrt(n)
    return m - half, m + half


def lag1_autocorrelation(values: Sequence[float] | FloatArray) -> float:
    """Lag-1 sample autocorrelation, to check that batch means are nearly independent.

    Values well above ~0.1 (for a few dozen batches) mean the batches are too short and
    :func:`mean_ci` will be too narrow; increase the batch size.

    Parameters
    ----------
    values : sequence of float
        Series in time order (e.g. per-batch IOPS).

    Returns
    -------
    float
        ``sum((x_i - m)(x_{i+1} - m)) / sum((x_i - m)**2)``; nan with fewer than 3
        values or zero variance.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size < 3:
        return math.nan
    d = x - x.mean()
    den = float(np.dot(d, d))
    if den == 0.0:
        return math.nan
    return float(np.dot(d[:-1], d[1:])) / den


# ---------------------------------------------------------------------------------------
# Batch means
# ---------------------------------------------------------------------------------------


class BatchValues(NamedTuple):
    """Per-batch values of a :class:`BatchMeans`, one element per closed batch."""

    t_start: FloatArray
    """Batch start time, s (end of the previous batch, or the :meth:`~BatchMeans.start` time)."""
    t_end: FloatArray
    """Completion time of the batch's last I/O, s."""
    completions: IntArray
    """Completions in the batch."""
    iops: FloatArray
    """Throughput ``count / (t_end - t_start)``, I/O per second."""
    latency_mean: FloatArray
    """Mean latency of the batch's completions, s."""


class BatchMeans:
    """Streaming non-overlapping batch means over completions (steady-state CIs).

    Completions are grouped, in completion order, into consecutive batches of
    ``batch_size``; per batch we keep the start and end time, the count and the latency
    sum (32 bytes per batch, in compact arrays), optionally a coarse latency histogram (for
    intervals of percentiles) and a few numbers describing the system's state when the batch
    closed (:meth:`set_state`, e.g. dirty cache bytes and I/Os in flight). :meth:`finish`
    folds the partial batch at the end into the last one, so the batches cover the whole
    measured window.

    Parameters
    ----------
    batch_size : int
        Completions per batch (>= 1). Choose it so that :func:`lag1_autocorrelation` of
        the batch values is small; 10-30 batches or more are needed for useful
        intervals.
    max_batches : int or None, default None
        If given (even, >= 2), memory is bounded: whenever ``max_batches`` batches are
        closed, adjacent pairs are merged and ``batch_size`` doubles, so
        ``max_batches / 2 <= n_batches < max_batches`` afterwards. With ``None`` the
        number of batches grows as ``completions / batch_size``.
    hist_bits : int or None, default None
        Keep a latency histogram with this many linear bits per batch (5: 1152 buckets,
        9 KiB a batch, quantiles within 1.6%), for :meth:`quantiles`.

    Notes
    -----
    The time origin of the first batch is 0.0 until :meth:`start` is called.
    """

    __slots__ = (
        "_c_count",
        "_c_end",
        "_c_hist",
        "_c_lat",
        "_c_start",
        "_c_state",
        "_hist",
        "_lat",
        "_max_batches",
        "_n",
        "_size",
        "_t_start",
    )

    def __init__(
        self, batch_size: int, *, max_batches: int | None = None, hist_bits: int | None = None
    ) -> None:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        if max_batches is not None and (max_batches < 2 or max_batches % 2):
            raise ValueError(f"max_batches must be an even number >= 2, got {max_batches}")
        self._size = batch_size
        self._max_batches = max_batches
        self._t_start = 0.0
        self._n = 0
        self._lat = 0.0
        self._hist: LatencyHistogram | None = (
            None if hist_bits is None else LatencyHistogram(hist_bits)
        )
        self._c_start = array("d")
        self._c_end = array("d")
        self._c_count = array("q")
        self._c_lat = array("d")
        self._c_hist: list[IntArray] = []
        self._c_state: list[tuple[float, ...]] = []

    def start(self, t: float) -> None:
        """Discard everything recorded so far and open the first batch at ``t``.

        Parameters
        ----------
        t : float
            Time origin in seconds, typically the end of the warm-up.
        """
        self._t_start = t
        self._n = 0
        self._lat = 0.0
        if self._hist is not None:
            self._hist.reset()
        self._c_start = array("d")
        self._c_end = array("d")
        self._c_count = array("q")
        self._c_lat = array("d")
        self._c_hist = []
        self._c_state = []

    def add(self, t_done: float, latency: float) -> bool:
        """Account one completed I/O (hot path); True when it closed a batch.

        Parameters
        ----------
        t_done : float
            Completion time in seconds; calls must come in completion order.
        latency : float
            Its latency in seconds.
        """
        self._lat += latency
        self._n += 1
        hist = self._hist
        if hist is not None:
            hist.record(latency)
        if self._n >= self._size:
            self._close(t_done)
            return True
        return False

    def set_state(self, values: tuple[float, ...]) -> None:
        """Record the system's state at the end of the batch that just closed.

        Parameters
        ----------
        values : tuple of float
            The same quantities, in the same order, at every batch (any units).
        """
        if len(self._c_state) < len(self._c_end):
            self._c_state.append(values)
        elif self._c_state:
            self._c_state[-1] = values

    def finish(self, t_end: float) -> None:
        """End the window at ``t_end``: the open batch joins the last closed one.

        Afterwards the batches cover ``[start, t_end]`` and hold every completion, so an
        estimate over the whole window and one over the batches are the same figure. With no
        closed batch, the open one becomes the only batch.
        """
        if not self._c_end:
            if self._n:
                self._close(t_end)
            return
        i = len(self._c_end) - 1
        self._c_end[i] = t_end
        self._c_count[i] += self._n
        self._c_lat[i] += self._lat
        if self._hist is not None:
            self._c_hist[i] = self._c_hist[i] + self._hist.counts
            self._hist.reset()
        self._t_start = t_end
        self._n = 0
        self._lat = 0.0

    def _close(self, t_end: float) -> None:
        self._c_start.append(self._t_start)
        self._c_end.append(t_end)
        self._c_count.append(self._n)
        self._c_lat.append(self._lat)
        if self._hist is not None:
            self._c_hist.append(self._hist.counts)
            self._hist.reset()
        self._t_start = t_end
        self._n = 0
        self._lat = 0.0
        if self._max_batches is not None and len(self._c_end) >= self._max_batches:
            self._halve()

    def _halve(self) -> None:
        """Merge adjacent pairs of batches and double the batch size."""
        m = len(self._c_end) // 2 * 2
        start = np.frombuffer(self._c_start, dtype=np.float64)[:m]
        end = np.frombuffer(self._c_end, dtype=np.float64)[:m]
        cnt = np.frombuffer(self._c_count, dtype=np.int64)[:m]
        lat = np.frombuffer(self._c_lat, dtype=np.float64)[:m]
        new_start, new_end = array("d", start[0::2]), array("d", end[1::2])
        new_cnt = array("q", (cnt[0::2] + cnt[1::2]).tolist())
        new_lat = array("d", lat[0::2] + lat[1::2])
        self._c_start, self._c_end, self._c_count, self._c_lat = (
            new_start,
            new_end,
            new_cnt,
            new_lat,
        )
        if self._c_hist:
            h = self._c_hist
            self._c_hist = [h[i] + h[i + 1] for i in range(0, m, 2)]
        if self._c_state:
            st = self._c_state
            self._c_state = [st[i + 1] for i in range(0, min(m, len(st) - 1), 2)]
        self._size *= 2

    @property
    def batch_size(self) -> int:
        """Current completions per batch (doubles on each merge with ``max_batches``)."""
        return self._size

    @property
    def n_batches(self) -> int:
        """Number of closed batches."""
        return len(self._c_end)

    @property
    def open_count(self) -> int:
        """Completions in the open (not yet closed) batch."""
        return self._n

    def batch_values(self) -> BatchValues:
        """Per-batch arrays of the closed batches (copies).

        Returns
        -------
        BatchValues
            ``t_start``, ``t_end`` (s), ``completions``, ``iops`` (1/s), ``latency_mean`` (s).
            A batch of zero duration has infinite ``iops``.
        """
        start = np.array(self._c_start, dtype=np.float64)
        end = np.array(self._c_end, dtype=np.float64)
        cnt = np.array(self._c_count, dtype=np.int64)
        lat = np.array(self._c_lat, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            iops = cnt / (end - start)
            lat_mean = lat / cnt
        return BatchValues(start, end, cnt, iops, lat_mean)

    def states(self) -> FloatArray:
        """The recorded states, one row per closed batch that has one (shape (n, k))."""
        if not self._c_state:
            return np.empty((0, 0), dtype=np.float64)
        return np.array(self._c_state, dtype=np.float64)

    def quantiles(self, q: float) -> FloatArray:
        """The ``q`` quantile of each closed batch's latencies, seconds (needs ``hist_bits``)."""
        if self._hist is None:
            raise ValueError("quantiles per batch need BatchMeans(..., hist_bits=...)")
        bits = self._hist.bits
        values = _bucket_tables(bits)[1] * _S_PER_NS
        out = np.empty(len(self._c_hist), dtype=np.float64)
        for i, counts in enumerate(self._c_hist):
            n = int(counts.sum())
            if n == 0:
                out[i] = math.nan
                continue
            k = min(max(math.ceil(n * q - 1.0), 0), n - 1)
            out[i] = values[int(np.searchsorted(np.cumsum(counts), k + 1, side="left"))]
        return out

    def iops_ci(self, confidence: float = 0.95) -> tuple[float, float]:
        """Interval of the window's throughput by sectioning (see :func:`section_ci`).

        Parameters
        ----------
        confidence : float, default 0.95
            Two-sided confidence level.

        Returns
        -------
        (low, high) : tuple of float
            I/O per second, centred on total completions over total time;
            ``(nan, nan)`` with fewer than 2 batches.
        """
        v = self.batch_values()
        if len(v.completions) < 2:
            return math.nan, math.nan
        total = float(v.t_end[-1] - v.t_start[0])
        estimate = float(v.completions.sum()) / total if total > 0 else math.nan
        return section_ci(estimate, v.iops, confidence, in_time_order=True)

    def mean_ci(self, confidence: float = 0.95) -> tuple[float, float]:
        """Interval of the window's mean latency by sectioning (see :func:`section_ci`).

        Parameters
        ----------
        confidence : float, default 0.95
            Two-sided confidence level.

        Returns
        -------
        (low, high) : tuple of float
            Seconds, centred on the mean over every completion in the batches;
            ``(nan, nan)`` with fewer than 2 batches.
        """
        v = self.batch_values()
        if len(v.completions) < 2:
            return math.nan, math.nan
        estimate = float(np.sum(np.array(self._c_lat))) / float(v.completions.sum())
        return section_ci(estimate, v.latency_mean, confidence, in_time_order=True)


def section_ci(
    estimate: float,
    sections: Sequence[float] | FloatArray,
    confidence: float = 0.95,
    *,
    in_time_order: bool = False,
) -> tuple[float, float]:
    """Confidence interval by sectioning: the whole run's estimate, the sections' spread.

    ``estimate`` is the figure over the whole window (total I/Os over total time, the mean
    of every latency, a quantile of every latency); ``sections`` are the same figure
    computed on each batch. The interval is ``estimate -/+ t * s / sqrt(k)`` with ``s`` the
    sections' standard deviation: it always contains the estimate, and for ratio figures it
    avoids the bias of averaging per-batch ratios (Asmussen and Glynn, "Stochastic
    Simulation", 2007, section III.5a).

    With ``in_time_order`` the sections are consecutive batches of one run, which can still
    be correlated when they are short: the half-width is then widened by
    ``sqrt((1 + phi) / (1 - phi))`` for a positive lag-1 autocorrelation ``phi`` of the
    sections (at most 0.8), the variance of the mean of an AR(1) series, as the Skart
    batch-means procedure does (Tafazzoli, Wilson, Lada and Steiger, INFORMS Journal on
    Computing 23(2), 2011).

    Parameters
    ----------
    estimate : float
        The whole-window figure (any unit).
    sections : sequence of float
        The figure per batch, same unit.
    confidence : float, default 0.95
        Two-sided confidence level in ``(0, 1)``.
    in_time_order : bool, default False
        The sections are consecutive batches of one run (widen for their correlation).

    Returns
    -------
    (low, high) : tuple of float
        ``(nan, nan)`` with fewer than 2 sections or a non-finite estimate.
    """
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    x = np.asarray(sections, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    k = x.size
    if k < 2 or not math.isfinite(estimate):
        return math.nan, math.nan
    s = float(x.std(ddof=1))
    t = float(scipy.stats.t.ppf(0.5 + confidence / 2.0, k - 1))
    half = t * s / math.sqrt(k)
    if in_time_order and k >= 3:
        phi = min(max(lag1_autocorrelation(x), 0.0), 0.8) if s > 0 else 0.0
        half *= math.sqrt((1.0 + phi) / (1.0 - phi))
    return estimate - half, estimate + half


# ---------------------------------------------------------------------------------------
# Per-interval time series
# ---------------------------------------------------------------------------------------

Column = FloatArray | IntArray


class TimeSeries:
    """Per-interval counters of completions for dashboards.

    Time is cut into half-open intervals ``[t0 + k*interval, t0 + (k+1)*interval)``
    (a completion exactly on a boundary may fall either side because of float
    rounding). Only the current interval is open; completions must arrive in
    completion order and closing an interval reduces it to five numbers.

    Memory: 56 bytes per closed interval (count, bytes, latency sum, p50, p99, max, QFULL
    in compact arrays) plus one open :class:`LatencyHistogram` with ``hist_bits`` (5 by
    default: 1152 buckets = 9 KiB, p99 relative error <= 1/64 ~= 1.6 %) that is reset
    and reused for every interval.

    Parameters
    ----------
    interval : float
        Interval length in seconds (> 0).
    t0 : float, default 0.0
        Start of the first interval, seconds.
    hist_bits : int, default 5
        Linear bits of the per-interval histogram used for the p50 and p99.
    """

    __slots__ = (
        "_bytes",
        "_c_bytes",
        "_c_lat",
        "_c_max",
        "_c_n",
        "_c_p50",
        "_c_p99",
        "_c_qfull",
        "_cur",
        "_hist",
        "_interval",
        "_lat",
        "_max",
        "_n",
        "_qfull",
        "_t0",
    )

    def __init__(self, interval: float, t0: float = 0.0, *, hist_bits: int = 5) -> None:
        if not interval > 0.0:
            raise ValueError(f"interval must be > 0, got {interval}")
        self._interval = float(interval)
        self._t0 = float(t0)
        self._cur = 0
        self._n = 0
        self._bytes = 0
        self._lat = 0.0
        self._max = 0.0
        self._qfull = 0
        self._hist = LatencyHistogram(hist_bits)
        self._c_n = array("q")
        self._c_bytes = array("q")
        self._c_lat = array("d")
        self._c_p50 = array("d")
        self._c_p99 = array("d")
        self._c_max = array("d")
        self._c_qfull = array("q")

    @property
    def interval(self) -> float:
        """Interval length in seconds."""
        return self._interval

    @property
    def t0(self) -> float:
        """Start of the first interval in seconds."""
        return self._t0

    def add(self, t_done: float, latency: float, nbytes: int, qfull: int = 0) -> None:
        """Account one completed I/O (hot path).

        Parameters
        ----------
        t_done : float
            Completion time in seconds (non-decreasing across calls, ``>= t0``).
        latency : float
            Latency in seconds.
        nbytes : int
            Bytes transferred.
        qfull : int, default 0
            QFULL / TASK SET FULL events to charge to the same interval.

        Raises
        ------
        ValueError
            If ``t_done`` lies in an interval that is already closed (or before ``t0``).
        """
        k = int((t_done - self._t0) // self._interval)
        if k != self._cur:
            self._advance(k)
        self._n += 1
        self._bytes += nbytes
        self._lat += latency
        if latency > self._max:
            self._max = latency
        self._qfull += qfull
        self._hist.record(latency)

    def add_qfull(self, t: float) -> None:
        """Count one QFULL event at time ``t`` (may be in an already closed interval).

        Parameters
        ----------
        t : float
            Event time in seconds, ``>= t0``.
        """
        k = int((t - self._t0) // self._interval)
        if k == self._cur:
            self._qfull += 1
        elif k > self._cur:
            self._advance(k)
            self._qfull += 1
        elif k >= 0:
            self._c_qfull[k] += 1
        else:
            raise ValueError(f"QFULL at t={t} s is before t0={self._t0} s")

    def _advance(self, k: int) -> None:
        """Close the open interval and any empty ones before interval ``k``."""
        if k < self._cur:
            raise ValueError(
                f"completion in interval {k} but interval {self._cur} is already open "
                "(completions must be added in time order, at or after t0)"
            )
        self._close_current()
        for _ in range(self._cur + 1, k):
            self._append_row(0, 0, 0.0, (math.nan, math.nan, math.nan), 0)
        self._cur = k

    def _append_row(
        self, n: int, nbytes: int, lat: float, quantiles: tuple[float, float, float], qfull: int
    ) -> None:
        self._c_n.append(n)
        self._c_bytes.append(nbytes)
        self._c_lat.append(lat)
        p50, p99, top = quantiles
        self._c_p50.append(p50)
        self._c_p99.append(p99)
        self._c_max.append(top)
        self._c_qfull.append(qfull)

    def _open_quantiles(self) -> tuple[float, float, float]:
        """(p50, p99, max) of the open interval, seconds (NaN when it is empty)."""
        if not self._n:
            return math.nan, math.nan, math.nan
        p50, p99 = self._hist.quantiles([0.5, 0.99])
        return p50, p99, self._max

    def _close_current(self) -> None:
        self._append_row(self._n, self._bytes, self._lat, self._open_quantiles(), self._qfull)
        self._hist.reset()
        self._n = 0
        self._bytes = 0
        self._lat = 0.0
        self._max = 0.0
        self._qfull = 0

    def to_columns(self, t_end: float | None = None) -> dict[str, Column]:
        """Table of the intervals so far (non-destructive; can be called mid-run).

        Parameters
        ----------
        t_end : float or None, default None
            End of the observation window, seconds. If given, the table covers
            ``[t0, t_end)`` (empty intervals are appended as needed) and the rates of a
            last, partial interval are divided by its actual length. If None, the open
            interval is included only if something was recorded in it and its rates use
            the full ``interval``.

        Returns
        -------
        dict of str to ndarray
            ``t_start_s`` (s), ``iops`` (1/s), ``mb_per_s`` (10**6 bytes/s),
            ``latency_ms_mean``, ``latency_ms_p50``, ``latency_ms_p99`` and ``latency_ms_max``
            (ms, nan for intervals without completions) as float64, ``qfull`` (events) as
            int64.
        """
        n = np.array(self._c_n, dtype=np.int64)
        nbytes = np.array(self._c_bytes, dtype=np.int64)
        lat = np.array(self._c_lat, dtype=np.float64)
        p50 = np.array(self._c_p50, dtype=np.float64)
        p99 = np.array(self._c_p99, dtype=np.float64)
        top = np.array(self._c_max, dtype=np.float64)
        qfull = np.array(self._c_qfull, dtype=np.int64)
        rows = len(n)
        if t_end is not None:
            want = math.ceil((t_end - self._t0) / self._interval)
            rows = max(rows + 1 if (self._n or self._qfull) else rows, want)
        elif self._n or self._qfull:
            rows += 1
        if rows > len(n):
            pad = rows - len(n)
            n = np.concatenate([n, np.zeros(pad, dtype=np.int64)])
            nbytes = np.concatenate([nbytes, np.zeros(pad, dtype=np.int64)])
            lat = np.concatenate([lat, np.zeros(pad, dtype=np.float64)])
            p50 = np.concatenate([p50, np.full(pad, math.nan)])
            p99 = np.concatenate([p99, np.full(pad, math.nan)])
            top = np.concatenate([top, np.full(pad, math.nan)])
            qfull = np.concatenate([qfull, np.zeros(pad, dtype=np.int64)])
            if self._cur < rows:
                c = self._cur
                n[c] = self._n
                nbytes[c] = self._bytes
                lat[c] = self._lat
                p50[c], p99[c], top[c] = self._open_quantiles()
                qfull[c] = self._qfull
        t_start = self._t0 + self._interval * np.arange(rows, dtype=np.float64)
        dur = np.full(rows, self._interval)
        if t_end is not None and rows and t_start[-1] < t_end < t_start[-1] + self._interval:
            dur[-1] = t_end - t_start[-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            iops = n / dur
            mbps = nbytes / dur / 1e6
            lat_ms = np.where(n > 0, lat / n * 1e3, math.nan)
        return {
            "t_start_s": t_start,
            "iops": iops.astype(np.float64),
            "mb_per_s": mbps.astype(np.float64),
            "latency_ms_mean": lat_ms.astype(np.float64),
            "latency_ms_p50": p50 * 1e3,
            "latency_ms_p99": p99 * 1e3,
            "latency_ms_max": top * 1e3,
            "qfull": qfull,
        }
