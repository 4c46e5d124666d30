"""Latency and byte counts per group (host, workload, LUN, ...), in flat memory.

One :class:`GroupedLatency` keeps, for every group of every dimension and each direction
(read, write): the count, the bytes, the exact sum, sum of squares, minimum and maximum of
the latencies, and a log-linear histogram (fio's buckets, :mod:`~sanpath.stats.histogram`).
A dimension is a way to group the I/Os (say hosts, workloads and LUNs); each recorded I/O
names its group in every dimension at once, so one call per I/O feeds all of them.

The hot path, :meth:`GroupedLatency.add`, appends one tuple to a list; every
:data:`~sanpath.stats.histogram.FLUSH_EVERY` I/Os (and before any read) the buffer is
counted in place (:func:`numpy.add.at`, :func:`numpy.bincount`). Memory:
``4 * n_buckets(bits)`` bytes of counters per group and direction (8.8 KiB for the default
``bits=6``, fio's own resolution: quantiles within 0.8%), so a thousand hosts cost 18 MB;
plus six float64 figures per group and direction.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from sanpath.stats.histogram import FLUSH_EVERY, LatencyHistogram, bucket_index, n_buckets

__all__ = ["GROUP_BITS", "GroupedLatency"]

GROUP_BITS = 6
"""Linear bits of the per-group histograms (fio's resolution: quantile error <= 0.78%)."""

FloatArray = npt.NDArray[np.float64]

_COUNT, _BYTES, _SUM, _SUMSQ, _MIN, _MAX = range(6)


class GroupedLatency:
    """Per-group latency figures for ``sizes[d]`` groups in each dimension ``d``.

    Row ``2 * group + write`` of a dimension holds that group's reads (``write`` 0) or
    writes (1). Latencies are seconds, sizes bytes.
    """

    __slots__ = ("_buf", "_counts", "_figures", "_flush_at", "bits", "sizes")

    def __init__(self, sizes: Sequence[int], bits: int = GROUP_BITS) -> None:
        self.sizes = tuple(int(n) for n in sizes)
        self.bits = bits
        self._flush_at = FLUSH_EVERY * (len(self.sizes) + 3)
        nb = n_buckets(bits)
        self._counts = [np.zeros((2 * n, nb), dtype=np.int32) for n in self.sizes]
        self._figures = [self._empty_figures(2 * n) for n in self.sizes]
        self._buf: list[float] = []
        """Unflushed I/Os, one after the other: the group of each dimension, write (0 or 1),
        seconds, bytes (a flat list: numpy reads it several times faster than rows)."""

    @staticmethod
    def _empty_figures(rows: int) -> FloatArray:
        out = np.zeros((6, rows), dtype=np.float64)
        out[_MIN] = math.inf
        out[_MAX] = -math.inf
        return out

    def add(self, groups: tuple[int, ...], write: bool, seconds: float, nbytes: int) -> None:
        """Count one I/O of ``nbytes`` that took ``seconds``, in group ``groups[d]`` of each
        dimension ``d``."""
        buf = self._buf
        buf.extend(groups)
        buf.append(1.0 if write else 0.0)
        buf.append(seconds)
        buf.append(float(nbytes))
        if len(buf) >= self._flush_at:
            self._flush()

    def reset(self) -> None:
        """Forget everything recorded (a new measurement window)."""
        self._buf = []
        # fresh zeros rather than filled ones: the system hands them out page by page as
        # they are first counted in (a thousand hosts' counters are 18 MB, most untouched)
        self._counts = [np.zeros(c.shape, dtype=c.dtype) for c in self._counts]
        self._figures = [self._empty_figures(2 * n) for n in self.sizes]

    def _flush(self) -> None:
        if not self._buf:
            return
        k = len(self.sizes)
        data = np.asarray(self._buf, dtype=np.float64).reshape(-1, k + 3)
        self._buf = []
        write = data[:, k].astype(np.int64)
        seconds = data[:, k + 1]
        nbytes = data[:, k + 2]
        buckets = bucket_index(seconds, self.bits)
        nb = n_buckets(self.bits)
        for d, n in enumerate(self.sizes):
            rows = 2 * data[:, d].astype(np.int64) + write
            # counted in place: a bincount over every bucket of a thousand hosts' rows would
            # build (and zero) a 36 MB array at every flush
            np.add.at(self._counts[d].reshape(-1), rows * nb + buckets, 1)
            fig = self._figures[d]
            fig[_COUNT] += np.bincount(rows, minlength=2 * n)
            fig[_BYTES] += np.bincount(rows, weights=nbytes, minlength=2 * n)
            fig[_SUM] += np.bincount(rows, weights=seconds, minlength=2 * n)
            fig[_SUMSQ] += np.bincount(rows, weights=seconds * seconds, minlength=2 * n)
            np.minimum.at(fig[_MIN], rows, seconds)
            np.maximum.at(fig[_MAX], rows, seconds)

    # -- reading -----------------------------------------------------------------------------

    def count(self, dim: int, group: int, write: bool) -> int:
        """I/Os recorded for ``group`` of dimension ``dim`` in one direction."""
        self._flush()
        return int(self._figures[dim][_COUNT, 2 * group + int(write)])

    def nbytes(self, dim: int, group: int, write: bool) -> int:
        """Bytes of those I/Os."""
        self._flush()
        return int(self._figures[dim][_BYTES, 2 * group + int(write)])

    def totals(self, dim: int, groups: Sequence[int], write: bool) -> tuple[int, int]:
        """(:meth:`count`, :meth:`nbytes`) of ``groups`` together in one direction (a host
        group of a thousand hosts read at once)."""
        self._flush()
        rows = [2 * g + int(write) for g in groups]
        fig = self._figures[dim]
        count = sum(int(x) for x in fig[_COUNT, rows].tolist())
        return count, sum(int(x) for x in fig[_BYTES, rows].tolist())

    def sum_of_squares(self, dim: int, groups: Sequence[int], write: bool) -> float:
        """Sum of the squared latencies (s^2) of ``groups`` in one direction."""
        self._flush()
        rows = [2 * g + int(write) for g in groups]
        return float(self._figures[dim][_SUMSQ, rows].sum())

    def single(self, dim: int, group: int, write: bool) -> tuple[int, int, float, LatencyHistogram]:
        """One group's I/Os in one direction: (count, bytes, sum of squared latencies in s^2,
        histogram), as :meth:`count`, :meth:`nbytes`, :meth:`sum_of_squares` and
        :meth:`histogram` give them, read at once (a thousand hosts at the end of a run)."""
        self._flush()
        row = 2 * group + int(write)
        fig = self._figures[dim]
        count = int(fig[_COUNT, row])
        if count == 0:  # nothing in this direction (a read-only host's writes): empty
            empty = LatencyHistogram.empty(self.bits)
            return 0, int(fig[_BYTES, row]), float(fig[_SUMSQ, row]), empty
        histogram = LatencyHistogram.from_counts(
            self.bits,
            self._counts[dim][row],
            total=float(fig[_SUM, row]),
            minimum=float(fig[_MIN, row]),
            maximum=float(fig[_MAX, row]),
        )
        return count, int(fig[_BYTES, row]), float(fig[_SUMSQ, row]), histogram

    def histogram(
        self, dim: int, groups: Sequence[int], directions: Sequence[bool] = (False, True)
    ) -> LatencyHistogram:
        """The latencies of ``groups`` of dimension ``dim`` (in ``directions``) as one
        histogram with exact count, mean, minimum and maximum."""
        self._flush()
        rows = [2 * g + int(w) for g in groups for w in directions]
        fig = self._figures[dim][:, rows]
        counts = self._counts[dim][_evenly(rows)].sum(axis=0, dtype=np.int64)
        return LatencyHistogram.from_counts(
            self.bits,
            counts,
            total=float(fig[_SUM].sum()),
            minimum=float(fig[_MIN].min()) if rows else math.inf,
            maximum=float(fig[_MAX].max()) if rows else -math.inf,
        )


def _evenly(rows: list[int]) -> list[int] | slice:
    """``rows`` as a slice when they are evenly spaced (every host of a group in one
    direction): numpy reads the rows of a slice in place, where a list of rows copies
    them (a thousand hosts' bucket counters are 18 MB). Integer counts add up to the same
    numbers either way."""
    n = len(rows)
    if n < 2:
        return rows
    step = rows[1] - rows[0]
    if step <= 0:
        return rows
    for i in range(2, n):
        if rows[i] - rows[i - 1] != step:
            return rows
    return slice(rows[0], rows[-1] + 1, step)
