"""Fan-in: many hosts onto one array port, and what each host gets as hosts are added."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.patches import Patch

from sanpath.plotting.draw import AxesLike, band, metric_line, new_axes_grid
from sanpath.plotting.style import (
    BAND_ALPHA,
    IOPS_LABEL,
    LATENCY_LABEL,
    add_legend,
    int_label,
    legend_title,
    log2_axis,
    palette,
    set_titles,
    sweep_subtitle,
    thousands,
)
from sanpath.plotting.tables import (
    Line,
    SweepData,
    SweepLike,
    aggregate,
    column_floats,
    line_keys,
    resolve_keys,
    split_lines,
    sweep_data,
    to_numbers,
)
from sanpath.readable import short_name
from sanpath.results import SweepResult

__all__ = ["fan_in"]

SPREAD_LABEL = "lowest to highest host"


def _host_spread(data: SweepData, keys: Sequence[str], metric: str) -> pd.DataFrame | None:
    """Per point (``keys``): the lowest and highest host's ``metric``, as ``<metric>_low``
    and ``<metric>_high`` (means over replicates), from the table's per-host figures
    (``SweepResult.hosts``); None when the table has none."""
    hosts = SweepResult(data.table, list(data.keys)).hosts
    if hosts is None or hosts.empty or metric not in hosts.columns:
        return None
    keys = [k for k in dict.fromkeys(keys) if k in hosts.columns]
    by = [*keys, "replicate"] if "replicate" in hosts.columns else keys
    values = pd.to_numeric(hosts[metric], errors="coerce")
    per_run = values.groupby([hosts[k] for k in by], sort=False).agg(["min", "max"])
    spread = per_run.groupby(level=list(range(len(keys))), sort=False).mean()
    spread.columns = pd.Index([f"{metric}_low", f"{metric}_high"])
    return spread.reset_index()


def _spread_band(
    ax: Axes,
    line: Line,
    color: str,
    spread: pd.DataFrame | None,
    keys: tuple[str, Sequence[str]],
    metric: str,
) -> bool:
    """Shade the hosts' spread of ``metric`` along ``line``; False when there is none."""
    if spread is None:
        return False
    x, line_keys = keys
    on = [k for k in line_keys if k in spread.columns]
    mine = spread
    for k in on:
        mine = mine[mine[k].astype(str) == str(line.frame[k].iloc[0])]
    if mine.empty:
        return False
    xs = to_numbers(mine[x].tolist(), x)
    order = np.argsort(xs, kind="stable")
    low = column_floats(mine, f"{metric}_low")[order]
    high = column_floats(mine, f"{metric}_high")[order]
    ax.fill_between(
        xs[order], low, high, color=color, alpha=BAND_ALPHA, linewidth=0, label="_" + SPREAD_LABEL
    )
    return True


def fan_in(
    sweep: SweepLike,
    x: str = "hosts.0.count",
    port_queue_depth: int | None = None,
    commands_per_host: int | None = None,
    axes: AxesLike | None = None,
    hue: str | None = None,
) -> tuple[Axes, Axes, Axes]:
    """Many hosts onto one array port: what each host gets as hosts are added.

    Three panels sharing a log2 host-count axis: aggregate IOPS; IOPS per host (the mean,
    IOPS / hosts, with the lowest to the highest host shaded); p99 latency (the run's, with
    the hosts' p99 from lowest to highest shaded) and QUEUE FULL answers per simulated second
    (``qfull / sim_seconds``) on a twin right axis (the Figure's last Axes when the function
    made the Figure). The hosts' spread comes from the sweep's per-host figures
    (:obj:`~sanpath.results.SweepResult.hosts`) and is left out when the table has none.
    Returns the three panels.

    The port-queue limit is a dashed vertical line at ``port_queue_depth /
    commands_per_host`` hosts: to its right, hosts x commands per host (e.g. LUNs x per-LUN
    queue depth) can exceed what the port queue holds and the port answers QUEUE FULL. Both
    numbers default to ``attrs["port_queue_depth"]`` and ``attrs["commands_per_host"]`` of
    the SweepResult (or DataFrame); without both there is no line.
    """
    data = sweep_data(sweep)
    x, hue = resolve_keys(data, x, None, hue, None)
    keys = line_keys(data, x, hue)

    def per_host(t: pd.DataFrame) -> pd.Series:
        hosts = pd.Series(to_numbers(t[x].tolist(), x), index=t.index)
        return pd.to_numeric(t["iops"], errors="coerce") / hosts

    def qfull_rate(t: pd.DataFrame) -> pd.Series:
        seconds = pd.to_numeric(t["sim_seconds"], errors="coerce")
        return pd.to_numeric(t["qfull"], errors="coerce") / seconds.where(seconds > 0)

    per_second = "sim_seconds" in data.table.columns
    qfull = "qfull_per_s" if per_second else "qfull"
    derived = {"per_host_iops": per_host, **({"qfull_per_s": qfull_rate} if per_second else {})}
    frame = aggregate(
        data,
        [*data.keys, x, *keys],
        ["iops", "per_host_iops", "latency_ms_p99", qfull],
        derived,
    )
    own = axes is None
    ax_total, ax_host, ax_lat = new_axes_grid(axes, 3, rows=True, figsize=(7.0, 8.6))
    ax_q = ax_lat.twinx()
    lines = split_lines(frame, x, keys)
    colors = palette(len(lines))
    iops_spread = _host_spread(data, [x, *keys], "iops")
    p99_spread = _host_spread(data, [x, *keys], "latency_ms_p99")
    spread_drawn = False
    for line, color in zip(lines, colors, strict=True):
        metric_line(ax_total, line, "iops", color)
        ax_host.plot(
            line.x, column_floats(line.frame, "per_host_iops"), marker="o", ms=4, color=color
        )
        band(ax_host, line.x, line.frame, "per_host_iops", color)
        spread_drawn |= _spread_band(ax_host, line, color, iops_spread, (x, keys), "iops")
        ax_lat.plot(
            line.x, column_floats(line.frame, "latency_ms_p99"), marker="o", ms=4, color=color
        )
        band(ax_lat, line.x, line.frame, "latency_ms_p99", color)
        spread_drawn |= _spread_band(ax_lat, line, color, p99_spread, (x, keys), "latency_ms_p99")
        ax_q.plot(line.x, column_floats(line.frame, qfull), ls=":", marker="x", ms=5, color=color)
    ax_total.set_ylabel("aggregate " + IOPS_LABEL)
    ax_host.set_ylabel(IOPS_LABEL + " per host")
    ax_lat.set_ylabel("p99 " + LATENCY_LABEL)
    ax_q.set_ylabel("QUEUE FULL per s" if per_second else "QUEUE FULL (count per run)")
    ax_lat.set_xlabel(short_name(x) + " (log2 scale)")
    hosts = np.concatenate([line.x for line in lines])
    for target in (ax_total, ax_host, ax_lat):
        log2_axis(target, hosts, int_label)
        target.grid(True, alpha=0.3)
    for target in (ax_total, ax_host):
        thousands(target)
    for target in (ax_total, ax_host, ax_lat, ax_q):
        target.set_ylim(bottom=0)
    thousands(ax_q)

    attrs = data.attrs
    depth = port_queue_depth if port_queue_depth is not None else attrs.get("port_queue_depth")
    per = commands_per_host if commands_per_host is not None else attrs.get("commands_per_host")
    if depth is not None and per is not None and float(per) > 0:
        limit = float(depth) / float(per)
        for target in (ax_total, ax_host, ax_lat):
            target.axvline(
                limit, color="black", ls="--", lw=1, label="_port limit", gid="port-limit"
            )
        ax_total.annotate(
            f"port queue {int_label(float(depth))}\n= {limit:g} hosts x {int_label(float(per))}",
            xy=(limit, 0.0),
            xycoords=("data", "axes fraction"),
            xytext=(4, 4),
            textcoords="offset points",
            va="bottom",
            fontsize="small",
        )
    add_legend(ax_total, legend_title(keys), loc="best")
    shade = Patch(color="0.3", alpha=BAND_ALPHA, label=SPREAD_LABEL)
    mean = Line2D([], [], color="0.3", marker="o", ms=4, label="mean of the hosts")
    ax_host.legend(
        handles=[mean, shade] if spread_drawn else [mean], loc="upper right", fontsize="small"
    )
    handles: list[Line2D | Patch] = [
        Line2D([], [], color="0.3", marker="o", ms=4, label="p99 latency (left)")
    ]
    if spread_drawn:
        handles.append(Patch(color="0.3", alpha=BAND_ALPHA, label="hosts' p99, " + SPREAD_LABEL))
    what = "QUEUE FULL per s (right)" if per_second else "QUEUE FULL per run (right)"
    handles.append(Line2D([], [], color="0.3", ls=":", marker="x", ms=5, label=what))
    ax_lat.legend(handles=handles, loc="upper left", fontsize="small", framealpha=0.85)
    set_titles(
        ax_total,
        "Fan-in: aggregate IOPS, IOPS per host and the tail as hosts are added",
        sweep_subtitle(attrs),
        own,
    )
    return ax_total, ax_host, ax_lat
