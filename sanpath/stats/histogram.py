"""Log-linear latency histogram in the style of fio's ``stat.h`` (``plat`` buckets).

Exact count, mean, minimum and maximum, and quantiles with a relative error of at most
``2 ** -(bits + 1)`` (0.39% for the default ``bits=7``), in constant memory however long
the run. Latencies are float seconds; buckets are integer nanoseconds.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt

__all__ = [
    "DEFAULT_BITS",
    "FLUSH_EVERY",
    "MAX_NS_BITS",
    "LatencyHistogram",
    "bucket_index",
    "bucket_values_s",
    "n_buckets",
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


@lru_cache(maxsize=8)
def _no_counts(bits: int) -> IntArray:
    """Zero bucket counters, read only, shared by the histograms of
    :meth:`LatencyHistogram.empty` (a histogram copies them before it counts a value)."""
    out = np.zeros(_n_buckets(bits), dtype=np.int64)
    out.setflags(write=False)
    return out


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
    ``FLUSH_EVERY`` pending Python floats.

    Parameters
    ----------
    bits : int, default 7
        Linear bits per power-of-two group (fio uses 6). Must be in ``1..12``.
    counts : ndarray of int64, optional
        Bucket counters (``n_buckets(bits)`` of them) the histogram takes as its own,
        without a copy; zeros by default. The count, sum, minimum and maximum stay empty
        (:meth:`from_counts` sets them).

    Notes
    -----
    :meth:`record` only appends to a list; every ``FLUSH_EVERY`` values (and before
    any read) the buffer is converted and counted with ``numpy.bincount``.
    Negative or non-finite values are detected at that flush and raise
    :class:`ValueError` (the valid values of the batch are kept).
    """

    __slots__ = ("_bits", "_buf", "_count", "_counts", "_max", "_min", "_sum")

    def __init__(self, bits: int = DEFAULT_BITS, *, counts: IntArray | None = None) -> None:
        if not 1 <= bits <= 12:
            raise ValueError(f"bits must be in 1..12, got {bits}")
        self._bits = bits
        nb = _n_buckets(bits)
        if counts is None:
            counts = np.zeros(nb, dtype=np.int64)
        elif counts.size != nb:
            raise ValueError(f"expected {nb} bucket counts, got {counts.size}")
        self._counts: IntArray = counts
        self._buf: list[float] = []
        self._count = 0
        self._sum = 0.0
        self._min = math.inf
        self._max = -math.inf

    @classmethod
    def from_counts(
        cls,
        bits: int,
        counts: npt.ArrayLike,
        total: float,
        minimum: float,
        maximum: float,
    ) -> LatencyHistogram:
        """A histogram holding bucket ``counts`` already counted elsewhere.

        ``total`` is the exact sum of the values (s), ``minimum`` and ``maximum`` their exact
        extremes (s); the count is the sum of ``counts``.
        """
        arr = np.array(counts, dtype=np.int64).ravel()  # a copy of its own
        out = cls(bits, counts=arr)
        out._count = int(arr.sum())
        if out._count:
            out._sum = float(total)
            out._min = float(minimum)
            out._max = float(maximum)
        return out

    @classmethod
    def empty(cls, bits: int = DEFAULT_BITS) -> LatencyHistogram:
        """An empty histogram whose zero counters are shared (read only) with the others made
        here until it records a value: a thousand hosts' results hold one for each direction
        a host sent nothing in, without 17 KiB of fresh memory each."""
        return cls(bits, counts=_no_counts(bits))

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
            counts = self._counts
            if not counts.flags.writeable:  # shared zeros (:meth:`empty`): its own from now
                counts = self._counts = counts.copy()
            counts += np.bincount(idx, minlength=counts.size)
            self._count += int(arr.size)
            self._sum += float(arr.sum())
            self._min = min(self._min, float(arr.min()))
            self._max = max(self._max, float(arr.max()))
        if n_bad:
            raise ValueError(f"{n_bad} negative or non-finite latency value(s) rejected")

    def reset(self) -> None:
        """Forget all recorded values (keeps ``bits`` and the allocated counters)."""
        self._buf = []
        if self._counts.flags.writeable:  # else the shared zeros of :meth:`empty`
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


def bucket_index(seconds: FloatArray, bits: int) -> IntArray:
    """Bucket index of each latency in ``seconds`` (finite, non-negative) for ``bits``."""
    ns = np.rint(np.minimum(seconds * _NS_PER_S, float(_MAX_NS))).astype(np.int64)
    return _bucket_index(ns, bits)


def n_buckets(bits: int) -> int:
    """Number of buckets of a histogram with ``bits`` linear bits."""
    return _n_buckets(bits)


def bucket_values_s(bits: int) -> FloatArray:
    """The value reported for each bucket of a histogram with ``bits`` linear bits, seconds."""
    return _bucket_tables(bits)[1] * _S_PER_NS
