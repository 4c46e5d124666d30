"""Pictures of sweeps and runs: the charts of the published experiments.

Every function draws on the ``ax`` (or ``axes``) it is given, or on a new
:class:`matplotlib.figure.Figure` it makes itself. Nothing touches pyplot's global state, so
the functions work headless (Agg), in scripts and in notebooks; they return the Axes they
drew on (``ax.figure`` is the Figure; :func:`save` writes it as PNG).

Sweep plots take a :class:`~sanpath.results.SweepResult` or a DataFrame: a sweep
table (one row per point and replicate, the varied keys before ``replicate``), a
:meth:`~sanpath.results.SweepResult.summary`, or any frame whose dotted column names
(``workloads.0.outstanding``) are the varied keys. Replicates are averaged per point; with
more than one replicate the 95 % Student-t interval of the mean is drawn as a band (lines) or
as error bars (points, bars).

Lines: the points that share the value of ``hue`` form one line, and the legend is titled
with the hue key's short name (:func:`short_name`). Any other varied key that changes
within a line also tells lines apart; keys varied together with ``x`` (a ``zip`` or a tuple
key in the grid) do not. Keys may be given with ``*`` for list indices
(``hosts.*.hbas.*.queue_depth`` matches the column ``hosts.0.hbas.0.queue_depth`` and the
other way round). When the *default* ``x`` or ``hue`` of a function is not a column of the
table (a sweep that does not vary it), ``hue`` falls back to none and the ``x`` of
:func:`iops_vs_outstanding` to the first varied key; a key given explicitly must exist, and
so must the ``x`` of :func:`fan_in` (host counts) and :func:`transfer_size` (sizes).

Units: latency in milliseconds, throughput in 10^6 bytes per second (as vendors quote
``MB/s``), I/O sizes in binary units (``8KiB``, ``1MiB``).
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd
from matplotlib import colormaps, rcParams
from matplotlib.axes import Axes
from matplotlib.colors import to_hex
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.ticker import FixedLocator, FuncFormatter, NullLocator, StrMethodFormatter

from sanpath.files import atomic_path, check_output
from sanpath.results import RunResult, SweepResult
from sanpath.units import UnitError, format_bytes, parse_bytes

__all__ = [
    "KINDS",
    "LAYER_COLORS",
    "PlotInputError",
    "SweepPlots",
    "breakdown",
    "dashboard",
    "fan_in",
    "find_knee",
    "iops_vs_outstanding",
    "latency_cdf",
    "latency_vs_iops",
    "plot_files",
    "save",
    "short_name",
    "transfer_size",
]

SweepLike: TypeAlias = SweepResult | pd.DataFrame
"""What sweep plots accept: a SweepResult, its ``table``, its ``summary()``."""
RunLike: TypeAlias = RunResult | Mapping[str, Any]
"""What run plots accept: a RunResult or the dict of ``RunResult.to_dict()`` (JSON)."""
AxesLike: TypeAlias = Sequence[Axes] | npt.NDArray[Any]
FloatArray: TypeAlias = npt.NDArray[np.float64]

IOPS_LABEL = "IOPS"
LATENCY_LABEL = "latency (ms)"
EXCHANGE_LABEL = "exchange completion time (ms)"
MBPS_LABEL = "MB/s (10^6 B/s)"
COMMANDS_LABEL = "commands/s"

LAYER_COLORS: dict[str, str] = {
    "host_queue": "#8c8c8c",
    "hba": "#1f77b4",
    "pcie": "#17becf",
    "fabric": "#2ca02c",
    "array_port": "#bcbd22",
    "controller": "#ff7f0e",
    "cache": "#e377c2",
    "lun_queue": "#9467bd",
    "drive": "#d62728",
}
"""Fixed colour of each latency-breakdown layer (``breakdown_ms_<layer>``), in path order."""

_LAYER_NAMES = {
    "host_queue": "host queue",
    "hba": "HBA",
    "pcie": "PCIe",
    "fabric": "fabric",
    "array_port": "array port",
    "controller": "controller",
    "cache": "cache",
    "lun_queue": "LUN queue",
    "drive": "drive",
}
_SIZE_FIELDS = {
    "block_size",
    "max_transfer",
    "max_io_size",
    "stripe_element",
    "write_back",
    "write_aside",
}
_BAND_ALPHA = 0.2


class PlotInputError(ValueError):
    """A file or object that cannot be plotted (the CLI turns it into exit code 2)."""


# -- small public helpers ------------------------------------------------------------------


def short_name(key: str) -> str:
    """A readable name for a dotted scenario key, for legend titles and axis labels.

    >>> short_name("hosts.0.hbas.0.queue_depth")
    'HBA queue depth'
    >>> short_name("workloads.0.outstanding")
    'outstanding I/Os'
    >>> short_name("hosts.0.count")
    'hosts'
    """
    parts = [p for p in str(key).split(".") if p and not p.isdigit() and p != "*"]
    if not parts:
        return str(key)
    leaf = parts[-1]
    words = leaf.replace("_", " ")
    head = parts[0] if len(parts) > 1 else ""
    if leaf == "outstanding":
        return "outstanding I/Os"
    if head == "hosts" and leaf == "count":
        return "hosts"
    if "hbas" in parts[:-1]:
        return f"HBA {words}"
    if "luns" in parts[:-1]:
        return f"LUN {words}"
    if head == "hosts":
        return f"host {words}"
    if head == "array":
        return f"array {words}"
    return words


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


# -- loading and aggregating sweep tables ---------------------------------------------------


@dataclass
class _Data:
    """A sweep table and what is known about it."""

    table: pd.DataFrame
    keys: list[str]
    attrs: dict[str, Any]
    summarised: bool


def _data(sweep: SweepLike) -> _Data:
    if isinstance(sweep, SweepResult):
        attrs = {str(k): v for k, v in sweep.table.attrs.items()}
        attrs.update(sweep.attrs)
        data = _Data(sweep.table, [str(k) for k in sweep.keys], attrs, False)
    elif isinstance(sweep, pd.DataFrame):
        cols = [str(c) for c in sweep.columns]
        attrs = {str(k): v for k, v in sweep.attrs.items()}
        if "replicate" in cols:
            data = _Data(sweep, cols[: cols.index("replicate")], attrs, False)
        elif "replicates" in cols:
            data = _Data(sweep, cols[: cols.index("replicates")], attrs, True)
        else:
            data = _Data(sweep, [c for c in cols if "." in c], attrs, False)
    else:
        raise TypeError(f"expected a SweepResult or a pandas DataFrame, got {type(sweep).__name__}")
    if data.table.empty:
        raise PlotInputError("the sweep table is empty: nothing to plot")
    return data


def _match(name: str, columns: Iterable[str]) -> str | None:
    """The column called ``name``, or one that matches it with ``*`` for list indices."""
    columns = [str(c) for c in columns]
    if name in columns:
        return name
    parts = name.split(".")
    for column in columns:
        cparts = column.split(".")
        if len(cparts) == len(parts) and all(
            a == b or a == "*" or b == "*" for a, b in zip(parts, cparts, strict=True)
        ):
            return column
    return None


def _resolve(
    data: _Data, x: str | None, x_default: str | None, hue: str | None, hue_default: str | None
) -> tuple[str, str | None]:
    """Columns for ``x`` and ``hue``, applying the default fall-backs of the module docs."""
    columns = [str(c) for c in data.table.columns]
    hue_col = _match(hue, columns) if hue is not None else None
    if hue is not None and hue_col is None and hue != hue_default:
        raise PlotInputError(_missing(hue, data))
    x_col = _match(x, columns) if x is not None else None
    if x_col is None:
        if x is not None and x != x_default:
            raise PlotInputError(_missing(x, data))
        candidates = [k for k in data.keys if k != hue_col]
        if not candidates:
            wanted = x if x is not None else "a varied key"
            raise PlotInputError(_missing(wanted, data))
        x_col = candidates[0]
    if hue_col == x_col:
        raise PlotInputError(f"x and hue are the same key {x_col!r}")
    return x_col, hue_col


def _missing(name: str, data: _Data) -> str:
    return (
        f"the sweep table has no column {name!r}; varied keys: {data.keys or 'none'} "
        "(give another key with x=/hue=, or --x/--hue)"
    )


def _aggregate(
    data: _Data,
    keys: Sequence[str],
    metrics: Sequence[str],
    derived: Mapping[str, Callable[[pd.DataFrame], pd.Series]] | None = None,
) -> pd.DataFrame:
    """One row per point: the keys, ``replicates``, and ``<m>, <m>_lo, <m>_hi`` per metric."""
    table = data.table
    if derived:
        table = table.assign(**{name: fn(table) for name, fn in derived.items()})
    missing = [m for m in metrics if m not in table.columns]
    if missing:
        raise PlotInputError(f"the sweep table has no column(s) {missing}")
    keys = list(dict.fromkeys(keys))
    if data.summarised:
        out = table.copy()
        for m in metrics:
            for suffix in ("_lo", "_hi"):
                if f"{m}{suffix}" not in out.columns:
                    out[f"{m}{suffix}"] = math.nan
        if "replicates" not in out.columns:
            out["replicates"] = 1
        return out
    from sanpath.stats import mean_ci

    if keys:
        groups: Iterable[tuple[Any, pd.DataFrame]] = table.groupby(keys, sort=False, dropna=False)
    else:
        groups = [((), table)]
    rows = []
    for key, frame in groups:
        values = key if isinstance(key, tuple) else (key,)
        row: dict[str, Any] = dict(zip(keys, values, strict=True))
        row["replicates"] = len(frame)
        for m in metrics:
            column = pd.to_numeric(frame[m], errors="coerce").to_numpy(dtype=np.float64)
            column = column[np.isfinite(column)]
            row[m] = float(column.mean()) if column.size else math.nan
            lo, hi = mean_ci(column) if column.size > 1 else (math.nan, math.nan)
            row[f"{m}_lo"], row[f"{m}_hi"] = lo, hi
        rows.append(row)
    return pd.DataFrame(rows)


def _is_missing(value: Any) -> bool:
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def _number(value: Any) -> float:
    """A table cell as a float: numbers as they are, sizes such as ``8KiB`` in bytes."""
    if _is_missing(value):
        return math.nan
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, int | float | np.integer | np.floating):
        return float(value)
    text = str(value).strip()
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return float(parse_bytes(text))
    except (UnitError, ValueError, TypeError):
        return math.nan


def _numbers(values: Iterable[Any], key: str) -> FloatArray:
    values = list(values)
    out = np.array([_number(v) for v in values], dtype=np.float64)
    bad = [v for v, n in zip(values, out, strict=True) if not _is_missing(v) and math.isnan(n)]
    if bad:
        raise PlotInputError(f"{key}: values must be numbers or sizes, got {bad[0]!r}")
    return out


def _sort_key(value: Any) -> tuple[int, float, str]:
    number = _number(value)
    if _is_missing(value):
        return (2, 0.0, "")
    if math.isnan(number):
        return (1, 0.0, str(value))
    return (0, number, "")


def _fmt_value(value: Any, key: str = "") -> str:
    """A key's value for legends and tick labels (sizes in KiB/MiB, whole floats as ints)."""
    if _is_missing(value):
        return "none"
    leaf = key.rsplit(".", 1)[-1]
    number = _number(value)
    if leaf in _SIZE_FIELDS and math.isfinite(number) and number >= 0 and number.is_integer():
        return format_bytes(int(number))
    if isinstance(value, str):
        return value
    if math.isfinite(number):
        return str(int(number)) if number.is_integer() else f"{number:g}"
    return str(value)


def _determined(table: pd.DataFrame, by: Sequence[str], key: str) -> bool:
    """True if ``key`` takes a single value wherever the ``by`` columns are equal."""
    if not by:
        return table[key].nunique(dropna=False) <= 1
    counts = table.groupby(list(by), dropna=False, sort=False)[key].nunique(dropna=False)
    return bool(counts.max() <= 1)


def _line_keys(data: _Data, x: str, hue: str | None) -> list[str]:
    """Keys that tell lines apart: ``hue``, then other varied keys not tied to x or hue."""
    chosen = [hue] if hue is not None else []
    for key in data.keys:
        if key in (x, hue) or key not in data.table.columns:
            continue
        if _determined(data.table, [x], key) or (chosen and _determined(data.table, chosen, key)):
            continue
        chosen.append(key)
    return chosen


@dataclass
class _Line:
    label: str
    frame: pd.DataFrame
    x: FloatArray


def _lines(frame: pd.DataFrame, x: str, line_keys: Sequence[str]) -> list[_Line]:
    """Split aggregated points into lines, each sorted by ``x``."""
    if line_keys:
        parts = list(frame.groupby(list(line_keys), sort=False, dropna=False))
        parts.sort(key=lambda p: tuple(_sort_key(v) for v in _as_tuple(p[0])))
    else:
        parts = [((), frame)]
    out = []
    for key, part in parts:
        values = _as_tuple(key)
        label = ", ".join(_fmt_value(v, k) for k, v in zip(line_keys, values, strict=True))
        xs = _numbers(part[x].tolist(), x)
        order = np.argsort(xs, kind="stable")
        out.append(_Line(label, part.iloc[order].reset_index(drop=True), xs[order]))
    return out


def _as_tuple(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


def _legend_title(keys: Sequence[str]) -> str:
    return ", ".join(short_name(k) for k in keys)


# -- drawing helpers -----------------------------------------------------------------------


def _new_axes(ax: Axes | None, figsize: tuple[float, float] = (6.4, 4.4)) -> Axes:
    if ax is not None:
        return ax
    fig = Figure(figsize=figsize, layout="constrained")
    return fig.add_subplot()


def _new_axes_grid(
    axes: AxesLike | None,
    n: int,
    *,
    rows: bool,
    figsize: tuple[float, float],
    sharex: bool = True,
) -> tuple[Axes, ...]:
    if axes is not None:
        flat = list(np.asarray(axes, dtype=object).ravel())
        if len(flat) != n or not all(isinstance(a, Axes) for a in flat):
            raise ValueError(f"axes: expected {n} Axes, got {len(flat)}")
        return tuple(flat)
    fig = Figure(figsize=figsize, layout="constrained")
    grid = fig.subplots(n, 1, sharex=sharex) if rows else fig.subplots(1, n, sharex=sharex)
    return tuple(np.asarray(grid, dtype=object).ravel())


def _colors(n: int) -> list[str]:
    cycle = [to_hex(c) for c in rcParams["axes.prop_cycle"].by_key().get("color", [])]
    if n <= len(cycle):
        return cycle[:n]
    cmap = colormaps["viridis"]
    return [to_hex(cmap(i / max(n - 1, 1))) for i in range(n)]


def _column(frame: pd.DataFrame, name: str) -> FloatArray:
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64)


def _band(ax: Axes, x: FloatArray, frame: pd.DataFrame, metric: str, color: str) -> None:
    lo, hi = _column(frame, f"{metric}_lo"), _column(frame, f"{metric}_hi")
    if np.isfinite(lo).any() and np.isfinite(hi).any():
        ax.fill_between(x, lo, hi, color=color, alpha=_BAND_ALPHA, linewidth=0, label="_95% CI")


def _metric_line(ax: Axes, line: _Line, metric: str, color: str) -> None:
    """One line of ``metric`` against x, with its 95% band when there are replicates."""
    ax.plot(
        line.x,
        _column(line.frame, metric),
        marker="o",
        ms=4,
        color=color,
        label=line.label or metric.replace("_", " "),
    )
    _band(ax, line.x, line.frame, metric, color)


def _log2_axis(ax: Axes, values: Iterable[float], fmt: Callable[[float], str]) -> None:
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


def _thousands(ax: Axes, axis: str = "y") -> None:
    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_formatter(StrMethodFormatter("{x:,.0f}"))


def _int_label(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else f"{v:g}"


def _size_label(v: float) -> str:
    return format_bytes(int(v)) if v >= 0 and float(v).is_integer() else f"{v:g}"


def _legend(ax: Axes, title: str, **kwargs: Any) -> None:
    handles, labels = ax.get_legend_handles_labels()
    if len(handles) > 1 or (handles and title):
        ax.legend(handles, labels, title=title or None, **kwargs)


def _key_legend(ax: Axes, handles: list[Line2D]) -> Any:
    """A one-row legend of line styles just above the axes, clear of the data."""
    return ax.legend(
        handles=handles,
        loc="lower left",
        bbox_to_anchor=(0.0, 1.0),
        ncols=len(handles),
        frameon=False,
        fontsize="small",
        borderaxespad=0.2,
    )


def _log_ms_axis(ax: Axes) -> None:
    """Log x axis with plain numbers (0.5, 1, 2, 5, 10 ...) rather than powers of ten."""
    ax.set_xscale("log")

    def minor(v: float, _pos: Any) -> str:
        if v <= 0:
            return ""
        mantissa = round(v / 10 ** math.floor(math.log10(v)), 6)
        return f"{v:g}" if mantissa in (2.0, 5.0) else ""

    ax.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: f"{v:g}"))
    ax.xaxis.set_minor_formatter(FuncFormatter(minor))


def _figure_of(target: Figure | Axes | AxesLike) -> Figure:
    if isinstance(target, Figure):
        return target
    if isinstance(target, Axes):
        fig = target.get_figure(root=True)
    else:
        flat = list(np.asarray(target, dtype=object).ravel())
        if not flat or not isinstance(flat[0], Axes):
            raise TypeError("expected a Figure, an Axes or a sequence of Axes")
        fig = flat[0].get_figure(root=True)
    if not isinstance(fig, Figure):
        raise TypeError("the Axes belongs to no Figure")
    return fig


def picture_path(path: str | Path) -> Path:
    """Check a picture's path before drawing: ``.png`` added when it has no extension.

    Raises
    ------
    OutputError
        For a directory, a missing or unwritable directory, or an extension matplotlib
        cannot write (the message lists the ones it can).
    """
    path = Path(path)
    if not path.suffix and not path.is_dir():
        path = path.with_suffix(".png")
    formats = sorted(Figure().canvas.get_supported_filetypes())
    return check_output(path, tuple(f".{f}" for f in formats), "picture")


def save(fig_or_ax: Figure | Axes | AxesLike, path: str | Path) -> Path:
    """Save the Figure of ``fig_or_ax`` (a Figure, an Axes or several) as PNG, atomically.

    dpi 120 and a tight bounding box; a path without extension gets ``.png`` (another
    extension, e.g. ``.svg``, picks that format; see :func:`picture_path`). Returns the path
    written.
    """
    path = picture_path(path)
    with atomic_path(path) as tmp:
        _figure_of(fig_or_ax).savefig(
            tmp, dpi=120, bbox_inches="tight", format=path.suffix[1:].lower()
        )
    return path


# -- sweep plots ---------------------------------------------------------------------------


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
    data = _data(sweep)
    x, hue = _resolve(data, x, "workloads.0.outstanding", hue, "hosts.0.hbas.0.queue_depth")
    keys = _line_keys(data, x, hue)
    frame = _aggregate(data, [*data.keys, x, *keys], ["iops"])
    ax = _new_axes(ax)
    lines = _lines(frame, x, keys)
    colors = _colors(len(lines))
    for line, color in zip(lines, colors, strict=True):
        ax.plot(
            line.x,
            _column(line.frame, "iops"),
            marker="o",
            ms=4,
            color=color,
            label=line.label or "IOPS",
        )
        _band(ax, line.x, line.frame, "iops", color)
    _log2_axis(ax, np.concatenate([line.x for line in lines]), _int_label)
    ax.set_xlabel(short_name(x) + (" (log2 scale)" if ax.get_xscale() == "log" else ""))
    ax.set_ylabel(IOPS_LABEL)
    _thousands(ax)
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    _legend(ax, _legend_title(keys), loc="best")
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
    data = _data(sweep)
    hue_col = _match(hue, data.table.columns) if hue is not None else None
    if hue is not None and hue_col is None:
        raise PlotInputError(_missing(hue, data))
    load_col = _load_key(data, load, hue_col)
    keys = _line_keys(data, load_col, hue_col) if load_col else ([hue_col] if hue_col else [])
    metrics = ["iops", "latency_ms_mean"]
    pcol = None
    if percentile is not None:
        pcol = f"latency_ms_{percentile.removeprefix('latency_ms_')}"
        metrics.append(pcol)
    frame = _aggregate(data, [*data.keys, *keys], metrics)
    if load_col is None:
        frame = frame.assign(_load=np.arange(len(frame), dtype=np.float64))
        load_col = "_load"
    ax = _new_axes(ax)
    lines = _lines(frame, load_col, keys)
    colors = _colors(len(lines))
    knees = 0
    replicated = False
    for line, color in zip(lines, colors, strict=True):
        iops = _column(line.frame, "iops")
        mean = _column(line.frame, "latency_ms_mean")
        ax.plot(iops, mean, marker="o", ms=4, color=color, label=line.label or "mean latency")
        if pcol is not None:
            ax.plot(iops, _column(line.frame, pcol), ls="--", lw=1.2, color=color, label="_" + pcol)
        xerr = _errors(line.frame, "iops")
        yerr = _errors(line.frame, "latency_ms_mean")
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
    _thousands(ax, "x")
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
    style_legend = _key_legend(ax, style)
    title = _legend_title(keys)
    if len(lines) > 1 or title:
        ax.add_artist(style_legend)
        style_legend.set_clip_on(False)  # add_artist clips to the Axes; keep it in layout
        _legend(ax, title, loc="best")
    return ax


def _load_key(data: _Data, load: str | None, hue: str | None) -> str | None:
    if load is not None:
        col = _match(load, data.table.columns)
        if col is None:
            raise PlotInputError(_missing(load, data))
        return col
    candidates = [k for k in data.keys if k != hue and k in data.table.columns]
    for key in candidates:
        if key.endswith(("outstanding", "rate")):
            return key
    return candidates[0] if candidates else None


def _errors(frame: pd.DataFrame, metric: str) -> FloatArray | None:
    """Asymmetric error bars (2 x n) from ``_lo``/``_hi``, or None without intervals."""
    lo, hi = _column(frame, f"{metric}_lo"), _column(frame, f"{metric}_hi")
    if not (np.isfinite(lo).any() and np.isfinite(hi).any()):
        return None
    mid = _column(frame, metric)
    err = np.vstack([mid - lo, hi - mid])
    return np.where(np.isfinite(err), np.maximum(err, 0.0), 0.0)


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
    (:data:`~sanpath.plotting.core.LAYER_COLORS`). The stack adds up to the mean latency;
    with replicates an error bar on top shows the 95 % interval of that total.
    ``drop_empty`` leaves out layers that are zero at every point.
    """
    data = _data(sweep)
    columns = [str(c) for c in data.table.columns if str(c).startswith("breakdown_ms_")]
    if not columns:
        raise PlotInputError("the sweep table has no breakdown_ms_* columns")
    known = [f"breakdown_ms_{layer}" for layer in LAYER_COLORS]
    columns = [c for c in known if c in columns] + [c for c in columns if c not in known]
    if x is None:
        x_col = data.keys[0] if data.keys else None
    else:
        x_col = _match(x, data.table.columns)
        if x_col is None:
            raise PlotInputError(_missing(x, data))
    others = [k for k in data.keys if k != x_col]
    keys = [x_col, *others] if x_col is not None else others
    others = [k for k in others if data.table[k].nunique(dropna=False) > 1]

    def total(t: pd.DataFrame) -> pd.Series:
        numeric = pd.DataFrame({c: pd.to_numeric(t[c], errors="coerce") for c in columns})
        return numeric.sum(axis=1, min_count=1)

    frame = _aggregate(data, keys, [*columns, "_total"], {"_total": total})
    # Bars grouped by the other varied keys (a gap between groups), ordered by x within.
    group_keys = others
    sort_keys = [*group_keys, x_col] if x_col is not None else group_keys
    if sort_keys:
        order = sorted(
            range(len(frame)),
            key=lambda i: tuple(_sort_key(frame[k].iloc[i]) for k in sort_keys),
        )
        frame = frame.iloc[order].reset_index(drop=True)
    if drop_empty:
        kept = [c for c in columns if np.nan_to_num(_column(frame, c)).any()]
        columns = kept or columns
    groups = [
        tuple(frame[k].iloc[i] for k in group_keys) for i in range(len(frame))
    ]  # one tuple per bar
    positions = np.zeros(len(frame), dtype=np.float64)
    for i in range(1, len(frame)):
        gap = 0.0 if _same(groups[i], groups[i - 1]) else 0.8
        positions[i] = positions[i - 1] + 1.0 + gap
    width = float(positions[-1]) + 1.0 if len(frame) else 1.0
    ax = _new_axes(ax, (min(16.0, max(6.4, 0.45 * width + 3.5)), 4.6))
    bottom = np.zeros(len(frame))
    extra = _colors(10)
    for i, column in enumerate(columns):
        layer = column.removeprefix("breakdown_ms_")
        heights = np.nan_to_num(_column(frame, column))
        ax.bar(
            positions,
            heights,
            0.7,
            bottom=bottom,
            color=LAYER_COLORS.get(layer, extra[i % len(extra)]),
            label=_LAYER_NAMES.get(layer, layer.replace("_", " ")),
            edgecolor="white",
            linewidth=0.5,
        )
        bottom = bottom + heights
    err = _errors(frame, "_total")
    if err is not None:
        ax.errorbar(positions, bottom, yerr=err, fmt="none", ecolor="black", capsize=3, lw=1)
    if x_col is not None:
        labels = [_fmt_value(frame[x_col].iloc[i], x_col) for i in range(len(frame))]
    else:
        labels = ["run"] * len(frame)
    ax.set_xticks(positions, labels, fontsize="small" if len(frame) > 20 else None)
    ax.set_xlim(-0.6, width - 0.4)
    if group_keys:
        start = 0
        for i in range(1, len(frame) + 1):
            if i == len(frame) or not _same(groups[i], groups[start]):
                text = ", ".join(
                    f"{short_name(k)} {_fmt_value(v, k)}"
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
    return ax


def _same(a: tuple[Any, ...], b: tuple[Any, ...]) -> bool:
    """Equal key values, counting missing (None/NaN) as equal to missing."""
    return all(
        (_is_missing(u) and _is_missing(v)) or (not _is_missing(u) and u == v)
        for u, v in zip(a, b, strict=True)
    )


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
    data = _data(sweep)
    x, hue = _resolve(data, x, None, hue, None)
    keys = _line_keys(data, x, hue)

    def per_host(t: pd.DataFrame) -> pd.Series:
        hosts = pd.Series(_numbers(t[x].tolist(), x), index=t.index)
        return pd.to_numeric(t["iops"], errors="coerce") / hosts

    frame = _aggregate(
        data,
        [*data.keys, x, *keys],
        ["iops", "per_host_iops", "latency_ms_p99", "qfull"],
        {"per_host_iops": per_host},
    )
    ax_total, ax_host, ax_lat = _new_axes_grid(axes, 3, rows=True, figsize=(6.4, 8.0))
    ax_q = ax_lat.twinx()
    lines = _lines(frame, x, keys)
    colors = _colors(len(lines))
    for line, color in zip(lines, colors, strict=True):
        for target, metric in ((ax_total, "iops"), (ax_host, "per_host_iops")):
            _metric_line(target, line, metric, color)
        ax_lat.plot(line.x, _column(line.frame, "latency_ms_p99"), marker="o", ms=4, color=color)
        _band(ax_lat, line.x, line.frame, "latency_ms_p99", color)
        ax_q.plot(
            line.x,
            _column(line.frame, "qfull"),
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
        _thousands(target)
    for target in (ax_total, ax_host, ax_lat, ax_q):
        target.set_ylim(bottom=0)
    for target in (ax_total, ax_host, ax_lat):
        target.grid(True, alpha=0.3)
        target.xaxis.set_major_formatter(FuncFormatter(lambda v, _pos: _int_label(v)))
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
            f"port queue {_int_label(float(depth))}\n= {limit:g} hosts x {_int_label(float(per))}",
            xy=(limit, 0.0),
            xycoords=("data", "axes fraction"),
            xytext=(4, 4),
            textcoords="offset points",
            va="bottom",
            fontsize="small",
        )
    _legend(ax_total, _legend_title(keys), loc="best")
    _key_legend(
        ax_lat,
        [
            Line2D([], [], color="0.3", marker="o", ms=4, label="p99 latency (left)"),
            Line2D([], [], color="0.3", ls=":", marker="x", ms=5, label="QUEUE FULL (right)"),
        ],
    )
    return ax_total, ax_host, ax_lat


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
    data = _data(sweep)
    x, hue = _resolve(data, x, None, hue, "hosts.0.hbas.0.max_transfer")
    keys = _line_keys(data, x, hue)

    def per_second(t: pd.DataFrame) -> pd.Series:
        seconds = pd.to_numeric(t["sim_seconds"], errors="coerce")
        return pd.to_numeric(t["commands"], errors="coerce") / seconds.where(seconds > 0)

    if "sim_seconds" not in data.table.columns or "commands" not in data.table.columns:
        raise PlotInputError("the sweep table needs 'commands' and 'sim_seconds' columns")
    frame = _aggregate(
        data, [*data.keys, x, *keys], ["mb_per_s", "commands_per_s"], {"commands_per_s": per_second}
    )
    ax_mb, ax_cmd = _new_axes_grid(axes, 2, rows=False, figsize=(11.0, 4.4))
    lines = _lines(frame, x, keys)
    colors = _colors(len(lines))
    for line, color in zip(lines, colors, strict=True):
        for target, metric in ((ax_mb, "mb_per_s"), (ax_cmd, "commands_per_s")):
            _metric_line(target, line, metric, color)
    sizes = np.concatenate([line.x for line in lines])
    for target in (ax_mb, ax_cmd):
        _log2_axis(target, sizes, _size_label)
        target.set_xlabel("I/O size" if x.endswith("block_size") else short_name(x))
        target.set_ylim(bottom=0)
        target.grid(True, alpha=0.3)
    ax_mb.set_ylabel(MBPS_LABEL)
    ax_cmd.set_ylabel(COMMANDS_LABEL)
    _thousands(ax_cmd)
    _legend(ax_mb, _legend_title(keys), loc="best")
    return ax_mb, ax_cmd


# -- run plots -----------------------------------------------------------------------------


def _run_dict(result: RunLike) -> Mapping[str, Any]:
    if isinstance(result, RunResult):
        return result.to_dict()
    if isinstance(result, Mapping):
        return result
    raise TypeError(f"expected a RunResult or a run dict, got {type(result).__name__}")


def _floats(values: Iterable[Any]) -> FloatArray:
    return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)


_DASHBOARD_LINES: dict[str, tuple[tuple[str, str, str, float, str], ...]] = {
    "latency": (
        ("latency_ms_mean", "C0", "-", 1.2, "mean"),
        ("latency_ms_p99", "C3", "--", 1.0, "p99"),
    ),
    "exchange": (
        ("exchange_ms_p50", "C2", "-", 1.0, "p50"),
        ("exchange_ms_mean", "C0", "-", 1.2, "mean"),
        ("exchange_ms_p99", "C3", "--", 1.0, "p99"),
        ("exchange_ms_max", "C3", ":", 1.0, "max"),
    ),
}
"""The top panel's lines per ``times``: (time-series column, colour, style, width, label)."""


def dashboard(
    run_result: RunLike, axes: AxesLike | None = None, times: str = "latency"
) -> tuple[Axes, Axes, Axes]:
    """A run over time, like the Virtual Instruments dashboard of the 2012 queue-depth test.

    Three panels sharing the simulated-time axis: times on top; throughput (MB/s, IOPS on a
    twin right axis) in the middle; the scheduled settings (``schedule:`` changes, one step
    line per key) at the bottom. Dotted vertical lines mark every change. Needs
    ``run.record_interval`` in the scenario (the time series).

    Parameters
    ----------
    run_result
        A RunResult or the dict of ``RunResult.to_dict()`` (``sanpath run --json``).
    times
        ``latency``: the application I/Os' latency (mean and p99 per interval).
        ``exchange``: the exchange completion time a switch probe sees (p50, mean, p99 and
        maximum per interval, log scale, ms), with QUEUE FULL answers per second on a twin
        right axis when there were any: the view that shows an unstable queue.
    """
    if times not in _DASHBOARD_LINES:
        raise PlotInputError(f"times must be 'latency' or 'exchange', not {times!r}")
    data = _run_dict(run_result)
    series = data.get("timeseries")
    if not isinstance(series, Mapping) or "t_start_s" not in series:
        raise PlotInputError("the run has no time series: set run.record_interval in the scenario")
    t = _floats(series["t_start_s"])
    step = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    mid = t + step / 2
    t_end = float(t[-1] + step) if t.size else 0.0
    ax_lat, ax_tp, ax_set = _new_axes_grid(axes, 3, rows=True, figsize=(8.0, 7.5))

    if times == "exchange" and "exchange_ms_mean" not in series:
        raise PlotInputError("the run's time series has no exchange times")
    for column, color, style, width, label in _DASHBOARD_LINES[times]:
        ax_lat.plot(mid, _floats(series[column]), color=color, ls=style, lw=width, label=label)
    handles, labels = ax_lat.get_legend_handles_labels()
    if times == "exchange":
        ax_lat.set_yscale("log")
        low, high = ax_lat.get_ylim()
        ax_lat.set_ylim(low, high * 30)  # room for the legend above the lines
        ax_lat.set_ylabel(EXCHANGE_LABEL)
        qfull = _floats(series.get("qfull", []))
        if qfull.size == t.size and qfull.size and float(qfull.max()) > 0 and step > 0:
            ax_qfull = ax_lat.twinx()
            ax_qfull.fill_between(
                mid, qfull / step, step="mid", color="0.6", alpha=0.35, label="QUEUE FULL/s"
            )
            ax_qfull.set_ylabel("QUEUE FULL per s")
            ax_qfull.set_ylim(0, float((qfull / step).max()) * 1.6)  # below the legend
            ax_qfull.set_zorder(ax_lat.get_zorder() - 1)  # the shading behind the lines
            ax_lat.patch.set_visible(False)
            _thousands(ax_qfull)
            h2, l2 = ax_qfull.get_legend_handles_labels()
            handles, labels = handles + h2, labels + l2
        what = "exchange times"
    else:
        ax_lat.set_ylabel(LATENCY_LABEL)
        ax_lat.set_ylim(bottom=0)
        what = "latency"
    ax_lat.legend(handles, labels, loc="upper left", fontsize="small", ncol=len(labels))
    ax_lat.set_title(f"{data.get('name', 'run')}: {what}, throughput and settings over time")

    ax_tp.plot(mid, _floats(series["mb_per_s"]), color="C0", lw=1.2, label="MB/s")
    ax_iops = ax_tp.twinx()
    ax_iops.plot(mid, _floats(series["iops"]), color="C1", lw=1.0, ls="--", label="IOPS")
    ax_tp.set_ylabel(MBPS_LABEL)
    ax_iops.set_ylabel(IOPS_LABEL)
    _thousands(ax_iops)
    ax_tp.set_ylim(bottom=0)
    ax_iops.set_ylim(bottom=0)
    h1, l1 = ax_tp.get_legend_handles_labels()
    h2, l2 = ax_iops.get_legend_handles_labels()
    ax_tp.legend(h1 + h2, l1 + l2, loc="upper left", fontsize="small")

    settings = [dict(s) for s in data.get("settings", []) or []]
    by_key: dict[str, list[tuple[float, float]]] = {}
    for item in settings:
        by_key.setdefault(str(item["key"]), []).append((float(item["t_s"]), _number(item["value"])))
    changes = sorted({t_s for steps in by_key.values() for t_s, _ in steps if t_s > 0})
    colors = _colors(len(by_key))
    for (key, steps), color in zip(by_key.items(), colors, strict=True):
        steps.sort(key=lambda s: s[0])
        xs = [s[0] for s in steps] + [max(t_end, steps[-1][0])]
        ys = [s[1] for s in steps] + [steps[-1][1]]
        ax_set.plot(xs, ys, drawstyle="steps-post", color=color, lw=1.8, label=short_name(key))
        for t_s, value in steps:
            if math.isfinite(value):
                ax_set.annotate(
                    _int_label(value),
                    (t_s, value),
                    xytext=(3, 3),
                    textcoords="offset points",
                    fontsize="small",
                    color=color,
                )
    if by_key:
        ax_set.set_ylabel(short_name(next(iter(by_key))) if len(by_key) == 1 else "setting")
        ax_set.set_ylim(bottom=0, top=ax_set.get_ylim()[1] * 1.15)
        if len(by_key) > 1:
            ax_set.legend(loc="upper left", fontsize="small")
    else:
        ax_set.text(
            0.5, 0.5, "no scheduled settings", ha="center", va="center", transform=ax_set.transAxes
        )
        ax_set.set_ylabel("setting")
    for target in (ax_lat, ax_tp, ax_set):
        for t_s in changes:
            target.axvline(t_s, color="0.5", ls=":", lw=1, label="_change", gid="change")
        target.grid(True, alpha=0.3)
    ax_set.set_xlabel("simulated time (s)")
    ax_set.set_xlim(0, t_end if t_end > 0 else None)
    return ax_lat, ax_tp, ax_set


def _cdf(result: RunLike) -> tuple[FloatArray, FloatArray]:
    if isinstance(result, RunResult):
        cdf: Any = result.latency_cdf()
    elif isinstance(result, Mapping):
        cdf = result.get("latency_cdf")
    else:
        raise TypeError(f"expected a RunResult or a run dict, got {type(result).__name__}")
    if not isinstance(cdf, Mapping) or "fraction" not in cdf or "latency_ms" not in cdf:
        raise PlotInputError("the run has no latency_cdf (expected RunResult.to_dict() output)")
    return _floats(cdf["latency_ms"]), _floats(cdf["fraction"])


def _is_run(value: Any) -> bool:
    return isinstance(value, RunResult) or (
        isinstance(value, Mapping) and isinstance(value.get("latency_cdf"), Mapping)
    )


def latency_cdf(
    results: RunLike | Mapping[str, RunLike] | Sequence[RunLike],
    ax: Axes | None = None,
    labels: Sequence[str] | None = None,
) -> Axes:
    """Latency CDFs, one line per run, on a log latency axis (ms).

    Parameters
    ----------
    results
        ``{label: run}``, a list of runs, or one run; a run is a RunResult or the dict of
        ``RunResult.to_dict()``. Lines come from :meth:`RunResult.latency_cdf`.
    labels
        Line labels for a list (default: each run's scenario name).
    """
    items: list[tuple[str | None, RunLike]]
    if isinstance(results, RunResult):
        items = [(None, results)]
    elif isinstance(results, Mapping):
        if _is_run(results):
            items = [(None, results)]
        else:
            items = [(str(k), v) for k, v in results.items()]
    else:
        items = [(None, r) for r in results]
    if not items:
        raise PlotInputError("no runs to plot")
    if labels is not None:
        if len(labels) != len(items):
            raise ValueError(f"labels: expected {len(items)}, got {len(labels)}")
        items = [(str(label), r) for label, (_, r) in zip(labels, items, strict=True)]
    ax = _new_axes(ax)
    colors = _colors(len(items))
    for i, ((label, result), color) in enumerate(zip(items, colors, strict=True)):
        latency, fraction = _cdf(result)
        if label is None:
            name = result.name if isinstance(result, RunResult) else result.get("name")
            label = str(name) if name else f"run {i}"
            if len(items) > 1:
                label = f"{label} #{i}" if _duplicate(items, i) else label
        keep = np.isfinite(latency) & np.isfinite(fraction) & (latency > 0)
        ax.plot(latency[keep], fraction[keep], color=color, lw=1.6, label=label)
    _log_ms_axis(ax)
    ax.set_xlabel(LATENCY_LABEL + ", log scale")
    ax.set_ylabel("cumulative fraction of I/Os")
    ax.set_ylim(0, 1.02)
    ax.axhline(0.99, color="0.6", ls=":", lw=1, label="_p99")
    ax.annotate(
        "p99",
        (0.0, 0.99),
        xycoords=("axes fraction", "data"),
        xytext=(3, -10),
        textcoords="offset points",
        fontsize="small",
        color="0.4",
    )
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(title="run", loc="lower right")
    return ax


def _duplicate(items: Sequence[tuple[str | None, RunLike]], i: int) -> bool:
    def name(r: RunLike) -> Any:
        return r.name if isinstance(r, RunResult) else r.get("name")

    return sum(1 for _, r in items if name(r) == name(items[i][1])) > 1


# -- bound to a sweep ------------------------------------------------------------------------


class SweepPlots:
    """The sweep plots bound to one sweep (``SweepResult.plot``).

    >>> ax = result.plot.latency_vs_iops(hue="hosts.0.hbas.0.queue_depth")  # doctest: +SKIP
    >>> result.plot.save(ax, "hockey.png")                                   # doctest: +SKIP
    """

    def __init__(self, sweep: SweepLike) -> None:
        self.sweep = sweep

    def iops_vs_outstanding(
        self,
        x: str = "workloads.0.outstanding",
        hue: str | None = "hosts.0.hbas.0.queue_depth",
        ax: Axes | None = None,
    ) -> Axes:
        """See :func:`sanpath.plotting.iops_vs_outstanding`."""
        return iops_vs_outstanding(self.sweep, x, hue, ax=ax)

    def latency_vs_iops(
        self,
        hue: str | None = None,
        ax: Axes | None = None,
        mark_knee: bool = True,
        percentile: str | None = "p99",
        load: str | None = None,
    ) -> Axes:
        """See :func:`sanpath.plotting.latency_vs_iops`."""
        return latency_vs_iops(
            self.sweep, hue, ax=ax, mark_knee=mark_knee, percentile=percentile, load=load
        )

    def breakdown(self, x: str | None = None, ax: Axes | None = None) -> Axes:
        """See :func:`sanpath.plotting.breakdown`."""
        return breakdown(self.sweep, x, ax=ax)

    def fan_in(
        self,
        x: str = "hosts.0.count",
        port_queue_depth: int | None = None,
        commands_per_host: int | None = None,
        axes: AxesLike | None = None,
    ) -> tuple[Axes, Axes, Axes]:
        """See :func:`sanpath.plotting.fan_in`."""
        return fan_in(self.sweep, x, port_queue_depth, commands_per_host, axes=axes)

    def transfer_size(
        self,
        x: str = "workloads.0.block_size",
        hue: str | None = "hosts.0.hbas.0.max_transfer",
        axes: AxesLike | None = None,
    ) -> tuple[Axes, Axes]:
        """See :func:`sanpath.plotting.transfer_size`."""
        return transfer_size(self.sweep, x, hue, axes=axes)

    @staticmethod
    def save(fig_or_ax: Figure | Axes | AxesLike, path: str | Path) -> Path:
        """See :func:`sanpath.plotting.save`."""
        return save(fig_or_ax, path)


# -- files (the ``sanpath plot`` command) -----------------------------------------------------

KINDS = (
    "iops-vs-outstanding",
    "latency-vs-iops",
    "breakdown",
    "fan-in",
    "transfer-size",
    "dashboard",
    "exchange-dashboard",
    "cdf",
)
"""Plot kinds of ``sanpath plot --kind``."""

_RUN_KINDS = ("dashboard", "exchange-dashboard", "cdf")


def _load_sweep(path: Path) -> SweepResult:
    what = f"{path}: not a sweep table written by SweepResult.save (.csv or .json)"
    try:
        result = SweepResult.load(path)
    except FileNotFoundError:
        raise PlotInputError(f"{path}: no such file") from None
    except KeyError:
        hint = ""
        try:
            if "latency_cdf" in json.loads(path.read_text()):
                hint = "; it is a run JSON: use --kind dashboard or cdf"
        except (OSError, ValueError, TypeError):
            pass
        raise PlotInputError(what + hint) from None
    except (OSError, ValueError, TypeError) as exc:
        detail = " ".join(str(exc).split())
        raise PlotInputError(f"{what}: {detail}") from None
    if result.table.empty or "iops" not in result.table.columns:
        raise PlotInputError(f"{what} (no 'iops' column)")
    return result


def _load_run(path: Path) -> dict[str, Any]:
    try:
        payload = json.loads(path.read_text())
    except FileNotFoundError:
        raise PlotInputError(f"{path}: no such file") from None
    except (OSError, ValueError) as exc:
        detail = " ".join(str(exc).split())
        raise PlotInputError(
            f"{path}: not a run JSON (from sanpath run --json): {detail}"
        ) from None
    if not isinstance(payload, dict) or not isinstance(payload.get("latency_cdf"), dict):
        raise PlotInputError(f"{path}: not a run JSON (from sanpath run --json)")
    return payload


def plot_files(
    files: Sequence[str | Path],
    kind: str,
    out: str | Path,
    *,
    x: str | None = None,
    hue: str | None = None,
    port_queue_depth: int | None = None,
    commands_per_host: int | None = None,
) -> Path:
    """Draw result files as one picture and save it (what ``sanpath plot`` runs).

    Sweep kinds read one table written by :meth:`SweepResult.save`; ``dashboard`` and
    ``exchange-dashboard`` read one run JSON and ``cdf`` one or more. Raises
    :class:`PlotInputError` (a ValueError) for files that cannot be plotted.
    """
    if kind not in KINDS:
        raise PlotInputError(f"unknown plot kind {kind!r}; choose from {', '.join(KINDS)}")
    paths = [Path(f) for f in files]
    if not paths:
        raise PlotInputError("give a result file")
    if len(paths) > 1 and kind != "cdf":
        raise PlotInputError(f"--kind {kind} draws one file; only cdf takes several")
    if kind in _RUN_KINDS and (x is not None or hue is not None):
        raise PlotInputError(f"--x and --hue apply to sweep plots, not {kind}")
    out = picture_path(out)
    target: Axes | tuple[Axes, ...]
    if kind == "cdf":
        runs = [_load_run(p) for p in paths]
        labels = [p.stem for p in paths]
        if len(set(labels)) < len(labels):
            labels = [str(p) for p in paths]
        target = latency_cdf(runs, labels=labels)
    elif kind in ("dashboard", "exchange-dashboard"):
        run = _load_run(paths[0])
        if not isinstance(run.get("timeseries"), dict):
            raise PlotInputError(f"{paths[0]}: the run has no time series; set run.record_interval")
        target = dashboard(run, times="exchange" if kind == "exchange-dashboard" else "latency")
    else:
        sweep = _load_sweep(paths[0])
        try:
            target = _sweep_plot(sweep, kind, x, hue, port_queue_depth, commands_per_host)
        except PlotInputError as exc:
            raise PlotInputError(f"{paths[0]}: {exc}") from None
    try:
        return save(target, out)
    except OSError as exc:
        raise PlotInputError(f"cannot write {out}: {exc}") from None


def _sweep_plot(
    sweep: SweepResult,
    kind: str,
    x: str | None,
    hue: str | None,
    port_queue_depth: int | None,
    commands_per_host: int | None,
) -> Axes | tuple[Axes, ...]:
    kwargs: dict[str, Any] = {}
    if x is not None:
        kwargs["x"] = x
    if hue is not None:
        kwargs["hue"] = hue
    if kind == "iops-vs-outstanding":
        return iops_vs_outstanding(sweep, **kwargs)
    if kind == "latency-vs-iops":
        if x is not None:
            kwargs["load"] = kwargs.pop("x")
        return latency_vs_iops(sweep, **kwargs)
    if kind == "breakdown":
        if hue is not None:
            raise PlotInputError("--hue does not apply to breakdown")
        return breakdown(sweep, **kwargs)
    if kind == "fan-in":
        return fan_in(
            sweep,
            port_queue_depth=port_queue_depth,
            commands_per_host=commands_per_host,
            **kwargs,
        )
    return transfer_size(sweep, **kwargs)
