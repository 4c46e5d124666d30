"""Per-interval time series of completions (IOPS, MB/s, latency mean, p50, p99, max,
QUEUE FULL events) for dashboards and plots. Times are float seconds.
"""

from __future__ import annotations

import math
from array import array

import numpy as np
import numpy.typing as npt

from sanpath.stats.histogram import LatencyHistogram

__all__ = ["Column", "TimeSeries"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

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
