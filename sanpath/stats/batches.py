"""Streaming non-overlapping batch means over completions (steady-state intervals).

Fed once per completed I/O; memory grows per batch (or is bounded with ``max_batches``),
never per I/O. Times and latencies are float seconds.
"""

from __future__ import annotations

import math
from array import array
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from sanpath.stats.histogram import LatencyHistogram, bucket_values_s
from sanpath.stats.intervals import section_ci

__all__ = ["BatchMeans", "BatchValues"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


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
        values = bucket_values_s(bits)
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
