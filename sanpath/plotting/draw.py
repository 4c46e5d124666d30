"""New figures, and a metric drawn as a line with its confidence band.

Every plot function draws on the ``ax`` (or ``axes``) it is given, or on a new
:class:`matplotlib.figure.Figure` it makes itself. Nothing touches pyplot's global state, so
the functions work headless (Agg), in scripts and in notebooks; they return the Axes they
drew on (``ax.figure`` is the Figure; :func:`~sanpath.plotting.save` writes it as PNG).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sanpath.plotting.style import BAND_ALPHA
from sanpath.plotting.tables import FloatArray, Line, column_floats

AxesLike: TypeAlias = Sequence[Axes] | npt.NDArray[Any]
"""Several Axes: a sequence or the array ``Figure.subplots`` returns."""


def new_axes(ax: Axes | None, figsize: tuple[float, float] = (6.4, 4.4)) -> Axes:
    """``ax``, or the Axes of a new Figure."""
    if ax is not None:
        return ax
    fig = Figure(figsize=figsize, layout="constrained")
    return fig.add_subplot()


def new_axes_grid(
    axes: AxesLike | None,
    n: int,
    *,
    rows: bool,
    figsize: tuple[float, float],
    sharex: bool = True,
) -> tuple[Axes, ...]:
    """The ``n`` Axes given, or the panels of a new Figure in a column (or a row)."""
    if axes is not None:
        flat = list(np.asarray(axes, dtype=object).ravel())
        if len(flat) != n or not all(isinstance(a, Axes) for a in flat):
            raise ValueError(f"axes: expected {n} Axes, got {len(flat)}")
        return tuple(flat)
    fig = Figure(figsize=figsize, layout="constrained")
    grid = fig.subplots(n, 1, sharex=sharex) if rows else fig.subplots(1, n, sharex=sharex)
    return tuple(np.asarray(grid, dtype=object).ravel())


def band(ax: Axes, x: FloatArray, frame: pd.DataFrame, metric: str, color: str) -> None:
    """The 95 % band of ``metric`` (``<metric>_lo`` to ``_hi``) when there are intervals."""
    lo, hi = column_floats(frame, f"{metric}_lo"), column_floats(frame, f"{metric}_hi")
    if np.isfinite(lo).any() and np.isfinite(hi).any():
        ax.fill_between(x, lo, hi, color=color, alpha=BAND_ALPHA, linewidth=0, label="_95% CI")


def metric_line(ax: Axes, line: Line, metric: str, color: str) -> None:
    """One line of ``metric`` against x, with its 95% band when there are replicates."""
    ax.plot(
        line.x,
        column_floats(line.frame, metric),
        marker="o",
        ms=4,
        color=color,
        label=line.label or metric.replace("_", " "),
    )
    band(ax, line.x, line.frame, metric, color)
