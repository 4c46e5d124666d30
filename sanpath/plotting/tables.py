"""From a sweep table to the points and lines a plot draws.

Sweep plots take a :class:`~sanpath.results.SweepResult` or a DataFrame: a sweep
table (one row per point and replicate, the varied keys before ``replicate``), a
:meth:`~sanpath.results.SweepResult.summary`, or any frame whose dotted column names
(``workloads.0.outstanding``) are the varied keys. Replicates are averaged per point; with
more than one replicate the 95 % Student-t interval of the mean is drawn as a band (lines) or
as error bars (points, bars).

Lines: the points that share the value of ``hue`` form one line, and the legend is titled
with the hue key's short name (:func:`~sanpath.readable.short_name`). Any other varied key
that changes within a line also tells lines apart; keys varied together with ``x`` (a
``zip`` or a tuple key in the grid) do not. Keys may be given with ``*`` for list indices
(``hosts.*.hbas.*.queue_depth`` matches the column ``hosts.0.hbas.0.queue_depth`` and the
other way round). When the *default* ``x`` or ``hue`` of a function is not a column of the
table (a sweep that does not vary it), ``hue`` falls back to none and the ``x`` of
:func:`~sanpath.plotting.iops_vs_outstanding` to the first varied key; a key given explicitly
must exist, and so must the ``x`` of :func:`~sanpath.plotting.fan_in` (host counts) and
:func:`~sanpath.plotting.transfer_size` (sizes).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeAlias

import numpy as np
import numpy.typing as npt
import pandas as pd

from sanpath.results import SweepResult
from sanpath.units import UnitError, format_bytes, parse_bytes


class PlotInputError(ValueError):
    """A file or object that cannot be plotted (the CLI turns it into exit code 2)."""


SweepLike: TypeAlias = SweepResult | pd.DataFrame
"""What sweep plots accept: a SweepResult, its ``table``, its ``summary()``."""
FloatArray: TypeAlias = npt.NDArray[np.float64]

_SIZE_FIELDS = {
    "block_size",
    "max_transfer",
    "max_io_size",
    "stripe_element",
    "write_back",
    "write_aside",
}
"""Scenario fields whose values are sizes, shown in KiB/MiB."""


@dataclass
class SweepData:
    """A sweep table and what is known about it."""

    table: pd.DataFrame
    keys: list[str]
    attrs: dict[str, Any]
    summarised: bool


def sweep_data(sweep: SweepLike) -> SweepData:
    """The table, varied keys and attrs of a SweepResult or DataFrame (see the module)."""
    if isinstance(sweep, SweepResult):
        attrs = {str(k): v for k, v in sweep.table.attrs.items()}
        attrs.update(sweep.attrs)
        attrs.setdefault("scenario", sweep.scenario_name)
        data = SweepData(sweep.table, [str(k) for k in sweep.keys], attrs, False)
    elif isinstance(sweep, pd.DataFrame):
        cols = [str(c) for c in sweep.columns]
        attrs = {str(k): v for k, v in sweep.attrs.items()}
        if "replicate" in cols:
            data = SweepData(sweep, cols[: cols.index("replicate")], attrs, False)
        elif "replicates" in cols:
            data = SweepData(sweep, cols[: cols.index("replicates")], attrs, True)
        else:
            data = SweepData(sweep, [c for c in cols if "." in c], attrs, False)
    else:
        raise TypeError(f"expected a SweepResult or a pandas DataFrame, got {type(sweep).__name__}")
    if data.table.empty:
        raise PlotInputError("the sweep table is empty: nothing to plot")
    return data


def match_key(name: str, columns: Iterable[str]) -> str | None:
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


def resolve_keys(
    data: SweepData, x: str | None, x_default: str | None, hue: str | None, hue_default: str | None
) -> tuple[str, str | None]:
    """Columns for ``x`` and ``hue``, applying the default fall-backs of the module docs."""
    columns = [str(c) for c in data.table.columns]
    hue_col = match_key(hue, columns) if hue is not None else None
    if hue is not None and hue_col is None and hue != hue_default:
        raise PlotInputError(missing_message(hue, data))
    x_col = match_key(x, columns) if x is not None else None
    if x_col is None:
        if x is not None and x != x_default:
            raise PlotInputError(missing_message(x, data))
        candidates = [k for k in data.keys if k != hue_col]
        if not candidates:
            wanted = x if x is not None else "a varied key"
            raise PlotInputError(missing_message(wanted, data))
        x_col = candidates[0]
    if hue_col == x_col:
        raise PlotInputError(f"x and hue are the same key {x_col!r}")
    return x_col, hue_col


def missing_message(name: str, data: SweepData) -> str:
    """Why a key the caller asked for cannot be plotted, and what the table varies."""
    return (
        f"the sweep table has no column {name!r}; varied keys: {data.keys or 'none'} "
        "(give another key with x=/hue=, or --x/--hue)"
    )


def aggregate(
    data: SweepData,
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


def is_missing(value: Any) -> bool:
    """True for None and NaN-like cells."""
    if value is None:
        return True
    try:
        return bool(pd.isna(value))
    except (TypeError, ValueError):
        return False


def to_number(value: Any) -> float:
    """A table cell as a float: numbers as they are, sizes such as ``8KiB`` in bytes."""
    if is_missing(value):
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


def to_numbers(values: Iterable[Any], key: str) -> FloatArray:
    """The values of ``key`` as floats (see :func:`to_number`); an error for text."""
    values = list(values)
    out = np.array([to_number(v) for v in values], dtype=np.float64)
    bad = [v for v, n in zip(values, out, strict=True) if not is_missing(v) and math.isnan(n)]
    if bad:
        raise PlotInputError(f"{key}: values must be numbers or sizes, got {bad[0]!r}")
    return out


def sort_key(value: Any) -> tuple[int, float, str]:
    """Order of key values: numbers and sizes by value, then text, then missing."""
    number = to_number(value)
    if is_missing(value):
        return (2, 0.0, "")
    if math.isnan(number):
        return (1, 0.0, str(value))
    return (0, number, "")


def format_value(value: Any, key: str = "") -> str:
    """A key's value for legends and tick labels (sizes in KiB/MiB, whole floats as ints)."""
    if is_missing(value):
        return "none"
    leaf = key.rsplit(".", 1)[-1]
    number = to_number(value)
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


def line_keys(data: SweepData, x: str, hue: str | None) -> list[str]:
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
class Line:
    """One line of a plot: its legend label, its points and their x values."""

    label: str
    frame: pd.DataFrame
    x: FloatArray


def split_lines(frame: pd.DataFrame, x: str, keys: Sequence[str]) -> list[Line]:
    """Split aggregated points into lines, each sorted by ``x``."""
    if keys:
        parts = list(frame.groupby(list(keys), sort=False, dropna=False))
        parts.sort(key=lambda p: tuple(sort_key(v) for v in _as_tuple(p[0])))
    else:
        parts = [((), frame)]
    out = []
    for key, part in parts:
        values = _as_tuple(key)
        label = ", ".join(format_value(v, k) for k, v in zip(keys, values, strict=True))
        xs = to_numbers(part[x].tolist(), x)
        order = np.argsort(xs, kind="stable")
        out.append(Line(label, part.iloc[order].reset_index(drop=True), xs[order]))
    return out


def _as_tuple(key: Any) -> tuple[Any, ...]:
    return key if isinstance(key, tuple) else (key,)


def column_floats(frame: pd.DataFrame, name: str) -> FloatArray:
    """A column as floats, NaN where a cell is not a number."""
    return pd.to_numeric(frame[name], errors="coerce").to_numpy(dtype=np.float64)


def error_bars(frame: pd.DataFrame, metric: str) -> FloatArray | None:
    """Asymmetric error bars (2 x n) from ``_lo``/``_hi``, or None without intervals."""
    lo, hi = column_floats(frame, f"{metric}_lo"), column_floats(frame, f"{metric}_hi")
    if not (np.isfinite(lo).any() and np.isfinite(hi).any()):
        return None
    mid = column_floats(frame, metric)
    err = np.vstack([mid - lo, hi - mid])
    return np.where(np.isfinite(err), np.maximum(err, 0.0), 0.0)
