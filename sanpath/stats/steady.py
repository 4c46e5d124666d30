"""Is a run at steady state? Warm-up detection, trend tests and interval diagnostics.

Pure functions over per-batch series (numpy arrays in time order); nothing here knows
about SANs. The simulator calls them while it runs (to end its warm-up and to decide when
its intervals are tight enough) and once at the end (to say what is still wrong).

* :func:`mser` - the MSER truncation point (White 1997; Franklin and White 2008): the
  number of leading batches whose removal makes the remaining mean most precise. JMT (Java
  Modelling Tools) applies it to batches of five observations, "MSER-5"; sanpath applies it
  to its own batches, whatever their size.
* :func:`settled` - MSER found its truncation point well inside the series: what follows
  it looks stationary.
* :func:`trend` - a rank test (Kendall's tau against time) for a series that still climbs
  or falls: a queue that keeps growing, a cache still filling.
* :func:`interval_doubts` - why a batch-means interval may be narrower than it should be:
  correlated batches (lag-1 autocorrelation) or skewed batch means (a heavy tail whose
  batches are not yet nearly normal).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

__all__ = [
    "RELAXATIONS_PER_BATCH",
    "SETTLE_FRACTION",
    "Trend",
    "interval_doubts",
    "kendall_against_time",
    "mser",
    "relative_half_width",
    "relaxation_time",
    "settled",
    "short_batches",
    "trend",
]

FloatArray = npt.NDArray[np.float64]

SETTLE_FRACTION = 0.4
"""A series has settled when MSER truncates at most this share of it, so that at least 60%
of the data looks stationary (MSER itself only searches the first half, where its statistic
is reliable; a series still climbing makes it cut as much as it may)."""

TREND_P = 0.001
"""A trend is called when Kendall's tau against time is this unlikely for a stationary
series (two-sided p-value): strict, so long runs of a steady system do not warn by chance."""


def mser(values: Sequence[float] | FloatArray) -> int:
    """The MSER truncation point of a series of batch means.

    For each candidate ``d`` in ``0 .. n // 2`` MSER computes
    ``sum((x[d:] - mean(x[d:])) ** 2) / (n - d) ** 2``, the squared standard error of the
    mean of what is left after dropping the first ``d`` values, and returns the ``d`` that
    minimises it.

    Parameters
    ----------
    values : sequence of float
        Batch means in time order (non-finite values are treated as the series' median).

    Returns
    -------
    int
        Number of leading values to discard (0 for fewer than 4 values).
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    if n < 4:
        return 0
    bad = ~np.isfinite(x)
    if bad.any():
        x = np.where(bad, np.median(x[~bad]) if (~bad).any() else 0.0, x)
    # suffix sums: S1[d] = sum(x[d:]), S2[d] = sum(x[d:] ** 2)
    s1 = np.cumsum(x[::-1])[::-1]
    s2 = np.cumsum((x * x)[::-1])[::-1]
    d = np.arange(n // 2 + 1)
    m = (n - d).astype(np.float64)
    sse = s2[d] - s1[d] ** 2 / m
    stat = np.maximum(sse, 0.0) / (m * m)
    return int(np.argmin(stat))


def settled(values: Sequence[float] | FloatArray, fraction: float = SETTLE_FRACTION) -> bool:
    """True when MSER truncates at most ``fraction`` of the series (at least 8 values).

    A series that is still climbing or falling makes MSER cut as much as it may (half the
    series); one that has levelled off is cut near its start.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if x.size < 8:
        return False
    return mser(x) <= fraction * x.size


class Trend(NamedTuple):
    """A rank test of a series against time."""

    tau: float
    """Kendall's tau between the values and their order (-1 falling .. +1 climbing)."""
    p_value: float
    """The two-sided p-value of "no trend"; 1 when the test cannot run (a constant or short
    series)."""
    change: float
    """Mean of the last quarter minus mean of the first quarter (the series' unit)."""

    @property
    def significant(self) -> bool:
        """True when the trend is clear (p below ``TREND_P``, 0.001)."""
        return self.p_value < TREND_P


def _discordant_pairs(ranks: Sequence[int]) -> int:
    """Pairs ``i < j`` with ``ranks[i] > ranks[j]`` (dense ranks from 1), by a Fenwick tree."""
    size = max(ranks, default=0)
    tree = [0] * (size + 1)
    out = 0
    for seen, r in enumerate(ranks):
        not_above = 0  # earlier values at or below r
        i = r
        while i > 0:
            not_above += tree[i]
            i -= i & -i
        out += seen - not_above
        i = r
        while i <= size:
            tree[i] += 1
            i += i & -i
    return out


def _kendall_exact_p(n: int, concordant: int) -> float:
    """Two-sided exact p-value of Kendall's tau for ``n`` untied values with ``concordant``
    concordant pairs: the distribution of inversions of a random permutation (Kendall, "Rank
    Correlation Methods", 4th ed., 1970), as ``scipy.stats.kendalltau`` computes it."""
    total = n * (n - 1) // 2
    c = min(concordant, total - concordant)
    if n <= 2:
        return 1.0
    if c == 0:
        return 2.0 / math.factorial(n) if n < 171 else 0.0
    if c == 1:
        return 2.0 / math.factorial(n - 1) if n < 172 else 0.0
    if 4 * c == n * (n - 1):
        return 1.0
    counts = np.zeros(c + 1)
    counts[0:2] = 1.0
    for j in range(3, n + 1):
        counts = np.cumsum(counts) if n < 171 else np.cumsum(counts) / j
        if j <= c:
            counts[j:] -= counts[: c + 1 - j]
    prob = 2.0 * float(np.sum(counts)) / math.factorial(n) if n < 171 else float(np.sum(counts))
    return min(max(prob, 0.0), 1.0)


def kendall_against_time(values: Sequence[float] | FloatArray) -> tuple[float, float]:
    """Kendall's tau-b of ``values`` against their order, and its two-sided p-value.

    The figures of ``scipy.stats.kendalltau(range(n), values)`` (without loading
    scipy.stats): the exact p-value for untied values when ``n <= 33`` or all but one pair
    agree, else the normal approximation with the tie-corrected variance (Kendall 1970).
    ``(nan, nan)`` for fewer than 2 values or all values equal.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    n = x.size
    total = n * (n - 1) // 2
    if n < 2:
        return math.nan, math.nan
    order = np.argsort(x, kind="mergesort")
    ranks = np.empty(n, dtype=np.intp)
    ranks[order] = np.r_[True, x[order][1:] != x[order][:-1]].cumsum()
    counts = np.bincount(ranks).astype(np.int64)
    counts = counts[counts > 1]
    ties = int((counts * (counts - 1) // 2).sum())
    if ties == total:
        return math.nan, math.nan
    discordant = _discordant_pairs(ranks.tolist())
    score = total - ties - 2 * discordant  # concordant minus discordant pairs
    tau = min(1.0, max(-1.0, score / math.sqrt(total) / math.sqrt(total - ties)))
    if ties == 0 and (n <= 33 or min(discordant, total - discordant) <= 1):
        return tau, _kendall_exact_p(n, total - discordant)
    m = n * (n - 1.0)
    tied = float((counts * (counts - 1.0) * (2 * counts + 5)).sum())
    variance = (m * (2 * n + 5) - tied) / 18.0
    return tau, math.erfc(abs(score) / math.sqrt(variance) / math.sqrt(2.0))


def trend(values: Sequence[float] | FloatArray) -> Trend:
    """Kendall's tau of ``values`` against time, its p-value and the change it amounts to."""
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size < 8 or float(np.ptp(x)) == 0.0:
        return Trend(0.0, 1.0, 0.0)
    tau, p = kendall_against_time(x)
    if not math.isfinite(p):
        return Trend(0.0, 1.0, 0.0)
    q = max(1, x.size // 4)
    return Trend(tau, p, float(x[-q:].mean() - x[:q].mean()))


def relative_half_width(interval: tuple[float, float], estimate: float) -> float:
    """Half the interval's width over the estimate (inf when either is not finite or zero)."""
    lo, hi = interval
    if not (math.isfinite(lo) and math.isfinite(hi) and math.isfinite(estimate)) or not estimate:
        return math.inf
    return (hi - lo) / 2.0 / abs(estimate)


def interval_doubts(values: Sequence[float] | FloatArray) -> list[str]:
    """Why an interval from these batch values may be too narrow (empty: no doubt).

    * correlated batches: lag-1 autocorrelation above ``2 / sqrt(k)`` (about the 97.5% point
      of its distribution for independent batches);
    * skewed batches: sample skewness beyond ``2 * sqrt(6 / k)`` (twice its standard error
      for normal batches), the sign of a heavy tail that the batches have not yet averaged
      out: the t interval assumes nearly normal batch means.
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    k = x.size
    out: list[str] = []
    if k < 8 or float(np.ptp(x)) == 0.0:
        return out
    d = x - x.mean()
    den = float(d @ d)
    rho = float(d[:-1] @ d[1:]) / den if den > 0 else 0.0
    if rho > 2.0 / math.sqrt(k):
        out.append(f"batches are correlated (lag-1 autocorrelation {rho:.2f} over {k} batches)")
    skew = float(np.mean(d**3)) / float(np.mean(d**2)) ** 1.5  # as scipy.stats.skew
    if abs(skew) > 2.0 * math.sqrt(6.0 / k):
        out.append(
            f"batch means are skewed (skewness {skew:.2f} over {k} batches: a heavy tail the "
            "batches have not averaged out yet)"
        )
    return out


RELAXATIONS_PER_BATCH = 10.0
"""A batch should last at least this many relaxation times of the busiest queue. Chosen from
the coverage of the exact mean response time by the 95% intervals of M/M/1 runs (300 runs
each, 20 batches a run; "quiet" runs are those whose batches raise no other doubt):

* 80% busy, 20,000 I/Os, batches of 14 relaxation times: 471 of 500 cover (94%);
* 90% busy, 20,000 I/Os, 3.2 relaxation times: 274 of 300 (91%);
* 90% busy, 50,000 I/Os, 8: 282 of 300 (94%), but the quiet runs only 133 of 147 (90%);
* 90% busy, 100,000 I/Os, 16: 285 of 300 (95%), the quiet runs 185 of 195 (95%).
"""


def relaxation_time(service_s: float, utilization: float) -> float:
    """The relaxation time of an M/M/1 queue, seconds: ``S / (1 - sqrt(rho))**2`` for mean
    service time ``S`` (seconds) and utilization ``rho`` (Morse 1955, "Stochastic properties
    of waiting lines"; Whitt 1989 uses it to plan simulation run lengths). It is how long the
    queue takes to forget where it was: batch means of batches much shorter than it are
    correlated however the batches look, because a busy period longer than the run has not
    yet happened in it. Infinite at or above full utilization."""
    if utilization >= 1.0:
        return math.inf
    return service_s / (1.0 - math.sqrt(utilization)) ** 2


def short_batches(
    queues: Sequence[tuple[str, float, float]], window_s: float, batches: int
) -> tuple[str, float, float, float] | None:
    """The queue whose relaxation time the batches are too short for, or None.

    ``queues``: (name, utilization per server, mean service time per server in seconds) of
    each queueing station; ``window_s`` the measured window and ``batches`` its number of
    batches. Returns (name, utilization, relaxation time, batch length), seconds, for the
    queue with the longest relaxation time when a batch lasts fewer than
    :data:`RELAXATIONS_PER_BATCH` of it.
    """
    if batches < 1 or window_s <= 0:
        return None
    worst: tuple[str, float, float] | None = None
    for name, utilization, service_s in queues:
        if not (utilization > 0.0 and service_s > 0.0):
            continue
        tau = relaxation_time(service_s, utilization)
        if worst is None or tau > worst[2]:
            worst = (name, utilization, tau)
    batch_s = window_s / batches
    if worst is None or batch_s >= RELAXATIONS_PER_BATCH * worst[2]:
        return None
    return worst[0], worst[1], worst[2], batch_s
