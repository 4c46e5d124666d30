"""Transfer size: throughput and commands on the wire against the I/O size."""

from __future__ import annotations

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from sanpath.plotting.draw import AxesLike, metric_line, new_axes_grid
from sanpath.plotting.style import (
    COMMANDS_LABEL,
    MBPS_LABEL,
    add_legend,
    legend_title,
    log2_axis,
    palette,
    set_titles,
    size_label,
    sweep_subtitle,
    thousands,
)
from sanpath.plotting.tables import (
    PlotInputError,
    SweepLike,
    aggregate,
    line_keys,
    resolve_keys,
    split_lines,
    sweep_data,
)
from sanpath.readable import short_name

__all__ = ["transfer_size"]


def transfer_size(
    sweep: SweepLike,
    x: str = "workloads.0.block_size",
    hue: str | None = "hosts.0.hbas.0.max_transfer",
    axes: AxesLike | None = None,
) -> tuple[Axes, Axes]:
    """MB/s and commands per second against I/O size, one line per HBA max transfer.

    Two panels: throughput (10^6 B/s) and commands on the wire per second (``commands /
    sim_seconds``; an I/O larger than the max transfer is split into several commands). The
    x axis is log2 with ticks in KiB/MiB.
    """
    data = sweep_data(sweep)
    x, hue = resolve_keys(data, x, None, hue, "hosts.0.hbas.0.max_transfer")
    keys = line_keys(data, x, hue)

    def per_second(t: pd.DataFrame) -> pd.Series:
        seconds = pd.to_numeric(t["sim_seconds"], errors="coerce")
        return pd.to_numeric(t["commands"], errors="coerce") / seconds.where(seconds > 0)

    if "sim_seconds" not in data.table.columns or "commands" not in data.table.columns:
        raise PlotInputError("the sweep table needs 'commands' and 'sim_seconds' columns")
    frame = aggregate(
        data, [*data.keys, x, *keys], ["mb_per_s", "commands_per_s"], {"commands_per_s": per_second}
    )
    own = axes is None
    ax_mb, ax_cmd = new_axes_grid(axes, 2, rows=False, figsize=(11.0, 4.6))
    lines = split_lines(frame, x, keys)
    colors = palette(len(lines))
    for line, color in zip(lines, colors, strict=True):
        for target, metric in ((ax_mb, "mb_per_s"), (ax_cmd, "commands_per_s")):
            metric_line(target, line, metric, color)
    sizes = np.concatenate([line.x for line in lines])
    for target in (ax_mb, ax_cmd):
        log2_axis(target, sizes, size_label)
        target.set_xlabel("I/O size" if x.endswith("block_size") else short_name(x))
        target.set_ylim(bottom=0)
        target.grid(True, alpha=0.3)
    ax_mb.set_ylabel(MBPS_LABEL)
    ax_cmd.set_ylabel(COMMANDS_LABEL)
    thousands(ax_cmd)
    add_legend(ax_mb, legend_title(keys), loc="best")
    by = f", by {legend_title(keys)}" if keys else ""
    what = "I/O size" if x.endswith("block_size") else short_name(x)
    set_titles(
        ax_mb,
        f"Throughput and commands per second against {what}{by}",
        sweep_subtitle(data.attrs),
        own,
    )
    return ax_mb, ax_cmd
