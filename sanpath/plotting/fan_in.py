"""Fan-in: many hosts onto one array port, and what each host gets as hosts are added."""

from __future__ import annotations

import pandas as pd
from matplotlib.axes import Axes
from matplotlib.lines import Line2D
from matplotlib.ticker import FuncFormatter, StrMethodFormatter

from sanpath.plotting.draw import AxesLike, band, metric_line, new_axes_grid
from sanpath.plotting.style import (
    IOPS_LABEL,
    LATENCY_LABEL,
    add_legend,
    int_label,
    key_legend,
    legend_title,
    palette,
    short_name,
    thousands,
)
from sanpath.plotting.tables import (
    SweepLike,
    aggregate,
    column_floats,
    line_keys,
    resolve_keys,
    split_lines,
    sweep_data,
    to_numbers,
)

__all__ = ["fan_in"]


def fan_in(
    sweep: SweepLike,
    x: str = "hosts.0.count",
    port_queue_depth: int | None = None,
    commands_per_host: int | None = None,
    axes: AxesLike | None = None,
    hue: str | None = None,
) -> tuple[Axes, Axes, Axes]:
    """Many hosts onto one array port: what each host gets as hosts are added.

    Three panels sharing the host-count axis: aggregate IOPS; IOPS per host (IOPS / hosts);
    p99 latency with the QUEUE FULL count per run (``qfull``) on a twin right axis (the
    Figure's last Axes when the function made the Figure). Returns the three panels.

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

    frame = aggregate(
        data,
        [*data.keys, x, *keys],
        ["iops", "per_host_iops", "latency_ms_p99", "qfull"],
        {"per_host_iops": per_host},
    )
    ax_total, ax_host, ax_lat = new_axes_grid(axes, 3, rows=True, figsize=(6.4, 8.0))
    ax_q = ax_lat.twinx()
    lines = split_lines(frame, x, keys)
    colors = palette(len(lines))
    for line, color in zip(lines, colors, strict=True):
        for target, metric in ((ax_total, "iops"), (ax_host, "per_host_iops")):
            metric_line(target, line, metric, color)
        ax_lat.plot(
            line.x, column_floats(line.frame, "latency_ms_p99"), marker="o", ms=4, color=color
        )
        band(ax_lat, line.x, line.frame, "latency_ms_p99", color)
        ax_q.plot(
            line.x,
            column_floats(line.frame, "qfull"),
            ls=":",
            marker="x",
            ms=5,
            color=color,
            label="_qfull",
        )
    ax_total.set_ylabel("aggregate " + IOPS_LABEL)
    ax_host.set_ylabel(IOPS_LABEL + " per host")
    ax_lat.set_ylabel("p99 " + LATENCY_LABEL)
    ax_q.set_ylabel("QUEUE FULL (count per run)")
    ax_lat.set_xlabel(short_name(x))
    for target in (ax_total, ax_host):
        thousands(target)
    for target in (ax_total, ax_host, ax_lat, ax_q):
        target.set_ylim(bottom=0)
    for target in (ax_total, ax_host, ax_lat):
        target.grid(True, alpha=0.3)
        target.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: int_label(v)))
    ax_q.yaxis.set_major_formatter(StrMethodFormatter("{x:,.0f}"))

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
    key_legend(
        ax_lat,
        [
            Line2D([], [], color="0.3", marker="o", ms=4, label="p99 latency (left)"),
            Line2D([], [], color="0.3", ls=":", marker="x", ms=5, label="QUEUE FULL (right)"),
        ],
    )
    return ax_total, ax_host, ax_lat
