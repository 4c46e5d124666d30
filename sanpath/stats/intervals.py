"""Confidence intervals: Student-t over independent values, sectioning over batches.

Plain functions over numpy arrays (any unit; the interval has the unit of its input).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import scipy.stats

__all__ = ["lag1_autocorrelation", "mean_ci", "section_ci"]

FloatArray = npt.NDArray[np.float64]


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
