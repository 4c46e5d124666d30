"""How the pictures look: axis labels, layer colours, legends and axis scales.

Units: latency in milliseconds, throughput in 10^6 bytes per second (as vendors quote
``MB/s``), I/O sizes in binary units (``8KiB``, ``1MiB``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from matplotlib import colormaps, rcParams
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.lines import Line2D
from matplotlib.ticker import (
    FixedLocator,
    FuncFormatter,
    LogFormatterSciNotation,
    NullLocator,
    ScalarFormatter,
)

from sanpath.readable import short_name, tick
from sanpath.units import format_bytes

# Axis labels.
IOPS_LABEL = "IOPS"
LATENCY_LABEL = "latency (ms)"
EXCHANGE_LABEL = "exchange completion time (ms)"
MBPS_LABEL = "MB/s (10^6 B/s)"
COMMANDS_LABEL = "commands/s"


BAND_ALPHA = 0.2
"""Opacity of the 95 % confidence bands around lines."""


def legend_title(keys: Sequence[str]) -> str:
    """The legend title for lines told apart by ``keys``: their short names."""
    return ", ".join(short_name(k) for k in keys)


def palette(n: int) -> list[str]:
    """``n`` line colours: the colour cycle, or viridis when there are more lines."""
    cycle = [to_hex(c) for c in rcParams["axes.prop_cycle"].by_key().get("color", [])]
    if n <= len(cycle):
        return cycle[:n]
    cmap = colormaps["viridis"]
    return [to_hex(cmap(i / max(n - 1, 1))) for i in range(n)]


def int_label(v: float) -> str:
    """A tick or annotation number (:func:`sanpath.readable.tick`: ``1,024``, ``0.5``)."""
    return tick(v)


def size_label(v: float) -> str:
    """A tick of an I/O-size axis in binary units (``64KiB``, ``1MiB``)."""
    return format_bytes(int(v)) if v >= 0 and float(v).is_integer() else tick(v)


TICKS = FuncFormatter(lambda v, _pos: tick(v))
"""Tick labels as :func:`sanpath.readable.tick` writes them (``12,000``, ``0.5``)."""


def thousands(ax: Axes, axis: str = "y") -> None:
    """Tick labels with thousands separators (``12,000``) on the y (or x) axis."""
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(TICKS)


def readable_ticks(ax: Axes) -> None:
    """Every linear axis of ``ax`` left with matplotlib's default numbers (``1200``,
    ``1e6`` as an offset) gets :data:`TICKS` instead; axes a plot labelled itself (sizes,
    hosts, log scales) keep their labels."""
    for axis in (ax.xaxis, ax.yaxis):
        if type(axis.get_major_formatter()) in (ScalarFormatter, LogFormatterSciNotation):
            axis.set_major_formatter(TICKS)


LEGEND_ROOM = 0.2
"""Share of a panel's height kept free of data at its top, for a one-row legend."""


def legend_clear_of_data(
    ax: Axes, handles: Sequence[Any], labels: Sequence[str], twins: Sequence[Axes] = ()
) -> Any:
    """A one-row legend in the panel's upper left, with the y range of ``ax`` and of its
    ``twins`` (twinx Axes) raised so that the top :data:`LEGEND_ROOM` of the panel holds
    no data: the legend never covers a line."""
    for target in (ax, *twins):
        low, high = target.get_ylim()
        if target.get_yscale() == "log" and low > 0 and high > 0:
            span = math.log10(high) - math.log10(low)
            target.set_ylim(low, 10 ** (math.log10(low) + span / (1 - LEGEND_ROOM)))
        else:
            target.set_ylim(low, low + (high - low) / (1 - LEGEND_ROOM))
    return ax.legend(
        handles,
        labels,
        loc="upper left",
        ncol=len(labels),
        fontsize="small",
        framealpha=0.9,
        borderaxespad=0.3,
        columnspacing=1.2,
    )


def log2_axis(ax: Axes, values: Iterable[float], fmt: Callable[[float], str]) -> None:
    """Log2 x axis with ticks on the swept values (at most ~12 of them)."""
    ticks = sorted({float(v) for v in values if math.isfinite(v)})
    if not ticks or ticks[0] <= 0:
        return
    ax.set_xscale("log", base=2)
    if len(ticks) > 12:
        step = math.ceil(len(ticks) / 12)
        ticks = ticks[::step]
    ax.xaxis.set_major_locator(FixedLocator(ticks))
    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: fmt(v)))
    ax.xaxis.set_minor_locator(NullLocator())


def log_ms_axis(ax: Axes) -> None:
    """Log x axis with plain numbers (0.5, 1, 2, 5, 10 ...) rather than powers of ten (for
    latencies in ms, and any other ratio or figure spanning decades)."""
    ax.set_xscale("log")

    def minor(v: float, _pos: Any) -> str:
        if v <= 0:
            return ""
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6)
        return tick(v) if mantissa in (2.0, 5.0) else ""

    ax.xaxis.set_major_formatter(TICKS)
    ax.xaxis.set_minor_formatter(FuncFormatter(minor))


def add_legend(ax: Axes, title: str, **kwargs: Any) -> None:
    """A legend of the labelled artists, unless it would name a single untitled line."""
    handles, labels = ax.get_legend_handles_labels()
    if len(handles) > 1 or (handles and title):
        ax.legend(handles, labels, title=title or None, **kwargs)


def key_legend(ax: Axes, handles: list[Line2D]) -> Any:
    """A legend of line styles in the panel's upper left corner (titles sit above the panel)."""
    return ax.legend(
        handles=handles, loc="upper left", fontsize="small", framealpha=0.85, borderaxespad=0.4
    )


def subtitle(name: Any = None, workload: Any = None, extra: str = "") -> str:
    """The one-line subtitle of a plot: the scenario, what it simulated, and ``extra``.

    >>> subtitle("fan-in", "16 hosts x 4 LUNs: 8KiB random reads, 32 outstanding per LUN")
    'fan-in: 16 hosts x 4 LUNs: 8KiB random reads, 32 outstanding per LUN'
    """
    parts = [str(p) for p in (name, workload) if p]
    text = ": ".join(parts) if parts else "scenario not recorded"
    return f"{text}; {extra}" if extra else text


def set_titles(top: Axes, title: str, sub: str, own_figure: bool) -> None:
    """Title a plot: ``title`` above the figure (when the plot made it) and the subtitle
    ``sub`` above the top panel, left-aligned; on Axes given by the caller both go in that
    panel's own title, so a figure the caller arranged keeps its layout."""
    fig = top.get_figure(root=True)
    for ax in fig.axes if own_figure and fig is not None else [top]:
        readable_ticks(ax)
    if own_figure and fig is not None:
        fig.suptitle(title, fontweight="bold", fontsize="large", x=0.02, ha="left")
        top.set_title(sub, loc="left", fontsize="small", color="0.3", wrap=True)
    else:
        top.set_title(f"{title}\n{sub}", loc="left", fontsize="medium", wrap=True)


def sweep_subtitle(attrs: Mapping[str, Any], extra: str = "") -> str:
    """The subtitle of a sweep plot from its table's ``attrs`` (``scenario``, ``workload``)."""
    return subtitle(attrs.get("scenario"), attrs.get("workload"), extra)
