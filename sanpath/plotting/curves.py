"""Load curves of a sweep: IOPS against outstanding I/Os, and latency against IOPS."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from matplotlib.axes import Axes
from matplotlib.lines import Line2D

from sanpath.plotting.draw import band, new_axes
from sanpath.plotting.style import (
    IOPS_LABEL,
    LATENCY_LABEL,
    add_legend,
    int_label,
    key_legend,
    legend_title,
    log2_axis,
    palette,
    set_titles,
    sweep_subtitle,
    thousands,
)
from sanpath.plotting.tables import (
    PlotInputError,
    SweepData,
    SweepLike,
    aggregate,
    column_floats,
    error_bars,
    line_keys,
    match_key,
    missing_message,
    resolve_keys,
    split_lines,
    sweep_data,
)
from sanpath.readable import short_name

__all__ = ["find_knee", "iops_vs_outstanding", "latency_vs_iops"]


def iops_vs_outstanding(
    sweep: SweepLike,
    x: str = "workloads.0.outstanding",
    hue: str | None = "hosts.0.hbas.0.queue_depth",
    ax: Axes | None = None,
) -> Axes:
    """IOPS against outstanding I/Os, one line per ``hue`` value, on a log2 x axis.

    The chart of Linchi Shea's 2007 QueueDepth post: with the HBA queue depth too low, IOPS
    stop growing with the load however many I/Os the application keeps in flight.
    """
    data = sweep_data(sweep)
    x, hue = resolve_keys(data, x, "workloads.0.outstanding", hue, "hosts.0.hbas.0.queue_depth")
    keys = line_keys(data, x, hue)
    frame = aggregate(data, [*data.keys, x, *keys], ["iops"])
    own = ax is None
    ax = new_axes(ax)
    lines = split_lines(frame, x, keys)
    colors = palette(len(lines))
    for line, color in zip(lines, colors, strict=True):
        ax.plot(
            line.x,
            column_floats(line.frame, "iops"),
            marker="o",
            ms=4,
            color=color,
            label=line.label or "IOPS",
        )
        band(ax, line.x, line.frame, "iops", color)
    log2_axis(ax, np.concatenate([line.x for line in lines]), int_label)
    ax.set_xlabel(short_name(x) + (" (log2 scale)" if ax.get_xscale() == "log" else ""))
    ax.set_ylabel(IOPS_LABEL)
    thousands(ax)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    add_legend(ax, legend_title(keys), loc="best")
    by = f", by {legend_title(keys)}" if keys else ""
    set_titles(ax, f"IOPS against {short_name(x)}{by}", sweep_subtitle(data.attrs), own)
    return ax


def latency_vs_iops(
    sweep: SweepLike,
    hue: str | None = None,
    ax: Axes | None = None,
    mark_knee: bool = True,
    percentile: str | None = "p99",
    load: str | None = None,
) -> Axes:
    """The hockey stick: mean latency against IOPS as the load grows, one line per ``hue``.

    Parameters
    ----------
    sweep
        A sweep that varies the load (``workloads.0.outstanding`` or ``workloads.0.rate``).
    hue
        Key that tells lines apart (default: every varied key except the load).
    mark_knee
        Circle the knee of each mean-latency line, found by :func:`find_knee` (the point of
        maximum curvature: farthest below the chord from the lightest to the heaviest load,
        with both axes scaled to [0, 1]).
    percentile
        Also draw this latency percentile dashed (``"p50"``, ``"p90"``, ``"p99"``,
        ``"p99_9"``, ``"max"``); None for the mean only.
    load
        Key whose values order the points along a line (default: the first varied key that
        is not ``hue``, preferring one ending in ``outstanding`` or ``rate``).
    """
    data = sweep_data(sweep)
    hue_col = match_key(hue, data.table.columns) if hue is not None else None
    if hue is not None and hue_col is None:
        raise PlotInputError(missing_message(hue, data))
    load_col = _load_key(data, load, hue_col)
    keys = line_keys(data, load_col, hue_col) if load_col else ([hue_col] if hue_col else [])
    metrics = ["iops", "latency_ms_mean"]
    pcol = None
    if percentile is not None:
        pcol = f"latency_ms_{percentile.removeprefix('latency_ms_')}"
        metrics.append(pcol)
    frame = aggregate(data, [*data.keys, *keys], metrics)
    if load_col is None:
        frame = frame.assign(_load=np.arange(len(frame), dtype=np.float64))
        load_col = "_load"
    own = ax is None
    ax = new_axes(ax)
    lines = split_lines(frame, load_col, keys)
    colors = palette(len(lines))
    knees = 0
    replicated = False
    for line, color in zip(lines, colors, strict=True):
        iops = column_floats(line.frame, "iops")
        mean = column_floats(line.frame, "latency_ms_mean")
        ax.plot(iops, mean, marker="o", ms=4, color=color, label=line.label or "mean latency")
        if pcol is not None:
            ax.plot(
                iops,
                column_floats(line.frame, pcol),
                ls="--",
                lw=1.2,
                color=color,
                label="_" + pcol,
            )
        xerr = error_bars(line.frame, "iops")
        yerr = error_bars(line.frame, "latency_ms_mean")
        if xerr is not None or yerr is not None:
            replicated = True
            ax.errorbar(iops, mean, xerr=xerr, yerr=yerr, fmt="none", ecolor=color, lw=1)
        if mark_knee:
            k = find_knee(iops, mean)
            if k >= 0:
                knees += 1
                ax.plot(
                    [iops[k]],
                    [mean[k]],
                    ls="none",
                    marker="o",
                    ms=12,
                    mfc="none",
                    mec=color,
                    mew=2,
                    label="_knee",
                    gid="knee",
                )
    ax.set_xlabel(IOPS_LABEL)
    ax.set_ylabel(LATENCY_LABEL)
    thousands(ax, "x")
    ax.set_xlim(left=0)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    style = [Line2D([], [], color="0.3", marker="o", ms=4, label="mean")]
    if pcol is not None:
        style.append(Line2D([], [], color="0.3", ls="--", label=pcol.removeprefix("latency_ms_")))
    if knees:
        style.append(
            Line2D([], [], ls="none", marker="o", ms=10, mfc="none", mec="0.3", mew=2, label="knee")
        )
    if replicated:
        style.append(Line2D([], [], color="0.3", lw=1, label="95% CI"))
    style_legend = key_legend(ax, style)
    title = legend_title(keys)
    if len(lines) > 1 or title:
        ax.add_artist(style_legend)
        add_legend(ax, title, loc="upper left", bbox_to_anchor=(1.01, 1.0))
    heading = "Latency against IOPS"
    if load_col.endswith("outstanding"):
        heading += " as outstanding I/Os grow"
    elif load_col != "_load":
        heading += f" as the load grows ({short_name(load_col)})"
    if title:
        heading += f", by {title}"
    set_titles(ax, heading, sweep_subtitle(data.attrs), own)
    return ax


def _load_key(data: SweepData, load: str | None, hue: str | None) -> str | None:
    if load is not None:
        col = match_key(load, data.table.columns)
        if col is None:
            raise PlotInputError(missing_message(load, data))
        return col
    candidates = [k for k in data.keys if k != hue and k in data.table.columns]
    for key in candidates:
        if key.endswith(("outstanding", "rate")):
            return key
    return candidates[0] if candidates else None


def find_knee(x: Sequence[float] | npt.ArrayLike, y: Sequence[float] | npt.ArrayLike) -> int:
    """Index of the knee of a latency-throughput curve, or -1 if it has none.

    The knee is the point of maximum curvature found geometrically (the "Kneedle" rule of
    Satopää et al., 2011): scale both axes to [0, 1] over the line's points, draw the
    straight chord from the first to the last point, and take the point farthest from the
    chord on its lower-right side (below it for a curve that bends upwards). On a hockey
    stick this is the corner: the last point where more load still buys throughput cheaply,
    before latency climbs steeply.

    Parameters
    ----------
    x, y
        The curve in load order (e.g. IOPS and mean latency as the outstanding I/Os grow);
        ``x`` need not be monotone (IOPS may fall back past saturation). Points with a
        non-finite coordinate are ignored.

    Returns
    -------
    int
        Index into the original sequences; -1 with fewer than three finite points or when
        no point lies below the chord (a straight or downward-bending curve).
    """
    xs = np.asarray(x, dtype=np.float64).ravel()
    ys = np.asarray(y, dtype=np.float64).ravel()
    if xs.shape != ys.shape:
        raise ValueError(f"x and y need the same length, got {xs.size} and {ys.size}")
    index = np.flatnonzero(np.isfinite(xs) & np.isfinite(ys))
    if index.size < 3:
        return -1
    px, py = xs[index], ys[index]
    span_x = float(px.max() - px.min())
    span_y = float(py.max() - py.min())
    if span_x <= 0.0 or span_y <= 0.0:
        return -1
    nx = (px - px.min()) / span_x
    ny = (py - py.min()) / span_y
    dx, dy = nx[-1] - nx[0], ny[-1] - ny[0]
    length = math.hypot(dx, dy)
    if length == 0.0:
        return -1
    # Distance to the chord, positive on its lower-right side (cross product sign).
    below = (dx * (ny - ny[0]) - dy * (nx - nx[0])) / length
    below = -below
    below[0] = below[-1] = -np.inf
    best = int(np.argmax(below))
    if not below[best] > 1e-9:
        return -1
    return int(index[best])
