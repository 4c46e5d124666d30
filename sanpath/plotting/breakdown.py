"""Where the latency went: the latency-breakdown layers of each sweep point, stacked."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from sanpath.plotting.draw import new_axes
from sanpath.plotting.style import (
    LATENCY_LABEL,
    palette,
    set_titles,
    sweep_subtitle,
)
from sanpath.plotting.tables import (
    PlotInputError,
    SweepLike,
    aggregate,
    column_floats,
    error_bars,
    format_value,
    is_missing,
    match_key,
    missing_message,
    sort_key,
    sweep_data,
)
from sanpath.readable import short_name
from sanpath.results import LAYER_COLORS, LAYER_LABELS

__all__ = ["VISIBLE_SHARE", "breakdown"]

MAX_WIDTH = 11.0
"""Inches: a sweep of many points gets narrower bars, not a wider picture."""

MAX_ASPECT = 2.2
"""Width over height at most: the picture stays readable on a page and a screen."""

VISIBLE_SHARE = 0.005
"""A layer whose time stays below this share of the tallest bar at every point would be too
thin to see: it is left out (and named in the subtitle), so the legend lists only what is
drawn."""


def breakdown(
    sweep: SweepLike,
    x: str | None = None,
    ax: Axes | None = None,
    drop_empty: bool = True,
) -> Axes:
    """Where the latency went: stacked bars of the ``breakdown_ms_*`` layers per point.

    One bar per sweep point, ordered by ``x`` (default: the first varied key) and grouped,
    with a gap and a label under each group, by the other varied keys; stacked in
    path order (host queue at the bottom, drive on top) with a fixed colour per layer
    (:data:`~sanpath.results.station.LAYER_COLORS`). The stack adds up to the mean latency;
    with replicates an error bar on top shows the 95 % interval of that total.
    ``drop_empty`` leaves out layers too thin to see at every point (below
    :data:`~sanpath.plotting.breakdown.VISIBLE_SHARE` of the tallest bar), naming them in the
    subtitle.
    """
    data = sweep_data(sweep)
    columns = [str(c) for c in data.table.columns if str(c).startswith("breakdown_ms_")]
    if not columns:
        raise PlotInputError("the sweep table has no breakdown_ms_* columns")
    known = [f"breakdown_ms_{layer}" for layer in LAYER_COLORS]
    columns = [c for c in known if c in columns] + [c for c in columns if c not in known]
    if x is None:
        x_col = data.keys[0] if data.keys else None
    else:
        x_col = match_key(x, data.table.columns)
        if x_col is None:
            raise PlotInputError(missing_message(x, data))
    others = [k for k in data.keys if k != x_col]
    keys = [x_col, *others] if x_col is not None else others
    others = [k for k in others if data.table[k].nunique(dropna=False) > 1]

    def total(t: pd.DataFrame) -> pd.Series:
        numeric = pd.DataFrame({c: pd.to_numeric(t[c], errors="coerce") for c in columns})
        return numeric.sum(axis=1, min_count=1)

    frame = aggregate(data, keys, [*columns, "_total"], {"_total": total})
    # Bars grouped by the other varied keys (a gap between groups), ordered by x within.
    group_keys = others
    sort_keys = [*group_keys, x_col] if x_col is not None else group_keys
    if sort_keys:
        order = sorted(
            range(len(frame)),
            key=lambda i: tuple(sort_key(frame[k].iloc[i]) for k in sort_keys),
        )
        frame = frame.iloc[order].reset_index(drop=True)
    dropped: list[str] = []
    if drop_empty:
        tallest = float(np.nan_to_num(column_floats(frame, "_total")).max(initial=0.0))
        kept = [
            c
            for c in columns
            if np.nan_to_num(column_floats(frame, c)).max(initial=0.0) > VISIBLE_SHARE * tallest
        ]
        dropped = [
            c for c in columns if c not in kept and np.nan_to_num(column_floats(frame, c)).any()
        ]
        columns = kept or columns
    groups = [
        tuple(frame[k].iloc[i] for k in group_keys) for i in range(len(frame))
    ]  # one tuple per bar
    positions = np.zeros(len(frame), dtype=np.float64)
    for i in range(1, len(frame)):
        gap = 0.0 if _same(groups[i], groups[i - 1]) else 0.8
        positions[i] = positions[i - 1] + 1.0 + gap
    width = float(positions[-1]) + 1.0 if len(frame) else 1.0
    own = ax is None
    wide = min(MAX_WIDTH, max(6.4, 0.32 * width + 3.5))
    ax = new_axes(ax, (wide, max(4.6, wide / MAX_ASPECT)))
    bottom = np.zeros(len(frame))
    extra = palette(10)
    for i, column in enumerate(columns):
        layer = column.removeprefix("breakdown_ms_")
        heights = np.nan_to_num(column_floats(frame, column))
        ax.bar(
            positions,
            heights,
            0.7,
            bottom=bottom,
            color=LAYER_COLORS.get(layer, extra[i % len(extra)]),
            label=LAYER_LABELS.get(layer, layer.replace("_", " ")),
            edgecolor="white",
            linewidth=0.5,
        )
        bottom = bottom + heights
    err = error_bars(frame, "_total")
    if err is not None:
        ax.errorbar(positions, bottom, yerr=err, fmt="none", ecolor="black", capsize=3, lw=1)
    if x_col is not None:
        labels = [format_value(frame[x_col].iloc[i], x_col) for i in range(len(frame))]
    else:
        labels = ["run"] * len(frame)
    ax.set_xticks(positions, labels, fontsize="small" if len(frame) > 20 else None)
    ax.set_xlim(-0.6, width - 0.4)
    if group_keys:
        start = 0
        for i in range(1, len(frame) + 1):
            if i == len(frame) or not _same(groups[i], groups[start]):
                text = ", ".join(
                    f"{short_name(k)} {format_value(v, k)}"
                    for k, v in zip(group_keys, groups[start], strict=True)
                )
                ax.annotate(
                    text,
                    xy=((positions[start] + positions[i - 1]) / 2, 0.0),
                    xycoords=("data", "axes fraction"),
                    xytext=(0, -20),
                    textcoords="offset points",
                    ha="center",
                    va="top",
                    fontsize="small",
                    gid="group",
                )
                start = i
    ax.set_xlabel(short_name(x_col) if x_col is not None else "", labelpad=18 if group_keys else 4)
    ax.set_ylabel("mean " + LATENCY_LABEL + " per I/O")
    ax.grid(True, axis="y", alpha=0.3)
    ax.set_axisbelow(True)
    handles, names = ax.get_legend_handles_labels()
    bars = [(h, n) for h, n in zip(handles, names, strict=True) if not isinstance(h, Line2D)]
    ax.legend(
        [h for h, _ in reversed(bars)],
        [n for _, n in reversed(bars)],
        title="layer",
        loc="upper left",
        bbox_to_anchor=(1.01, 1.0),
    )
    thin = ", ".join(
        LAYER_LABELS.get(c.removeprefix("breakdown_ms_"), c.removeprefix("breakdown_ms_"))
        for c in dropped
    )
    note = f"not drawn, under {VISIBLE_SHARE:.1%} of the latency: {thin}" if thin else ""
    set_titles(
        ax,
        "Where the time goes: mean latency per I/O, layer by layer",
        sweep_subtitle(data.attrs, note),
        own,
    )
    return ax


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal key values, counting missing (None/NaN) as equal to missing."""
    return all(
        (is_missing(u) and is_missing(v)) or (not is_missing(u) and u == v)
        for u, v in zip(a, b, strict=True)
    )
