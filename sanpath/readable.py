"""Numbers and names for people: how tables, plots and pages show figures.

* :func:`number` writes a figure with thousands separators and three significant digits
  (``61,200``, ``24.4``, ``0.853``), whole numbers exact (``2,048``), never in scientific
  notation;
* :func:`figure` rounds a measured figure to three significant digits at any magnitude
  (``27,200``, ``75.2``) and :func:`plus_minus` writes its 95% interval as ``±2.4%``;
* :func:`percent` writes a share or a signed relative error (``86%``, ``+4.5%``);
* :func:`duration`, :func:`rate` and :func:`size` write seconds, bytes per second and bytes
  as people read them (``2 µs``, ``850 MB/s``, ``512 KiB``);
* :func:`short_name` gives a dotted scenario key a plain label
  (``hosts.0.hbas.0.queue_depth`` is ``HBA queue depth``);
* :func:`column_label` gives a result column a label with its unit (``latency_ms_p99`` is
  ``p99 latency (ms)``);
* :func:`table` shows a DataFrame with those labels and numbers, its key columns first: in a
  notebook or on the documentation site as an HTML table whose first column stays in view when
  the table scrolls inside its own box, and as aligned text elsewhere.
"""

from __future__ import annotations

import html
import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

__all__ = [
    "Table",
    "column_label",
    "duration",
    "figure",
    "number",
    "percent",
    "plus_minus",
    "rate",
    "short_name",
    "size",
    "table",
]

SIGNIFICANT = 3
"""Significant digits of a figure that is not a whole number."""

ZERO = 1e-9
"""Figures smaller than this in magnitude are written ``0`` (rounding noise such as
``2.9e-16``)."""

_LATENCY_STATS = {
    "mean": "mean",
    "p50": "p50",
    "p90": "p90",
    "p99": "p99",
    "p99_9": "p99.9",
    "max": "max",
}

_COLUMNS: dict[str, str] = {
    "iops": "IOPS",
    "read_iops": "read IOPS",
    "write_iops": "write IOPS",
    "mb_per_s": "MB/s",
    "qfull": "QUEUE FULL",
    "port_qfull": "port QUEUE FULL",
    "lun_qfull": "LUN QUEUE FULL",
    "retries": "retries",
    "commands": "commands",
    "split_children": "split commands",
    "sim_seconds": "simulated s",
    "ios": "I/Os",
    "replicate": "replicate",
    "replicates": "replicates",
    "seed": "seed",
    "twin_iops": "twin IOPS",
    "utilization": "busy",
    "mean_queue": "mean queue",
    "mean_in_station": "mean in station",
    "mean_wait_ms": "mean wait (ms)",
    "mean_service_ms": "mean service (ms)",
    "throughput": "throughput (per s)",
    "completions": "completions",
    "rejected": "rejected",
    "credit_starved": "credit-starved",
    "frames_discarded": "frames discarded",
    "fairness_jain": "Jain's fairness",
    "fairness_max_min": "busiest / least served",
    "commands_per_io": "commands per I/O",
    "commands_per_s": "commands per s",
    "qfull_per_s": "QUEUE FULL per s",
    "per_host_iops": "IOPS per host",
}
"""Labels of result columns that need more than their words."""


def number(value: Any, digits: int = SIGNIFICANT) -> str:
    """A figure for people: thousands separators, ``digits`` significant digits.

    Whole numbers are written whole (``12,810``, ``2,048``: counts stay exact); other
    figures with ``digits`` significant digits at any magnitude (``61,200``, ``24.4``,
    ``0.853``, ``1.50``); magnitudes under :data:`ZERO` as ``0``. Missing values (None, NaN)
    are ``-``; infinities ``inf``. Text is returned as it is.

    >>> number(61155.7), number(24.368), number(2.914e-16), number(12810.0)
    ('61,200', '24.4', '0', '12,810')
    """
    if value is None or isinstance(value, str):
        return "-" if value is None else value
    if isinstance(value, bool):
        return "yes" if value else "no"
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if math.isnan(x):
        return "-"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if abs(x) < ZERO:
        return "0"
    if x.is_integer():
        return f"{round(x):,d}"
    return figure(x, digits)


def figure(value: Any, digits: int = SIGNIFICANT) -> str:
    """A measured figure for people: ``digits`` significant digits at every magnitude, with
    thousands separators and never in scientific notation (``27,200``, ``75.2``,
    ``0.0134``), whole numbers included: a simulated IOPS of 27,201 is known to a few
    percent, so its last digits say nothing. Exact counts are :func:`number`'s.

    >>> figure(27201.1), figure(75.235), figure(0.013412), figure(5358.48), figure(2.0)
    ('27,200', '75.2', '0.0134', '5,360', '2.00')
    """
    if value is None or isinstance(value, str | bool):
        return number(value, digits)
    try:
        x = float(value)
    except (TypeError, ValueError):
        return str(value)
    if not math.isfinite(x) or abs(x) < ZERO:
        return number(x, digits)
    exponent = math.floor(math.log10(abs(x)))
    rounded = round(x, digits - 1 - exponent)
    exponent = math.floor(math.log10(abs(rounded)))  # 999.6 rounds up to 1,000
    decimals = max(0, digits - 1 - exponent)
    return f"{rounded:,.{decimals}f}"


def plus_minus(value: float, interval: Sequence[float] | None) -> str:
    """A 95% interval around ``value`` as its larger half-width in percent of the value
    (``±2.4%``, ``±0.4%``); ``""`` without an interval or a value to relate it to.

    >>> plus_minus(27201.1, (26544.5, 27857.6))
    '±2.4%'
    """
    if interval is None or len(interval) != 2 or not value or not math.isfinite(value):
        return ""
    lo, hi = float(interval[0]), float(interval[1])
    if not (math.isfinite(lo) and math.isfinite(hi)):
        return ""
    half = max(abs(value - lo), abs(hi - value)) / abs(value)
    return f"±{100 * half:.{1 if half < 0.1 else 0}f}%"


_DURATIONS = (("ns", 1e-9), ("µs", 1e-6), ("ms", 1e-3), ("s", 1.0))
_RATES = (("B/s", 1.0), ("kB/s", 1e3), ("MB/s", 1e6), ("GB/s", 1e9), ("TB/s", 1e12))
_SIZES = (("B", 1), ("KiB", 1 << 10), ("MiB", 1 << 20), ("GiB", 1 << 30), ("TiB", 1 << 40))


def _scaled(value: float, scales: Sequence[tuple[str, float]], digits: int) -> str:
    """``value`` in the largest unit of ``scales`` that keeps it at 1 or more, with a space."""
    if value is None or not math.isfinite(value):
        return "-" if value is None or math.isnan(value) else "unlimited"
    unit, scale = scales[0]
    for name, factor in scales:
        if abs(value) >= factor * (1 - 5e-4):
            unit, scale = name, factor
    x = value / scale
    text = figure(x, digits)
    if "." in text:  # 2.00 us reads as 2 us: trailing zeros of a setting carry nothing
        text = text.rstrip("0").rstrip(".")
    return f"{text} {unit}"


def duration(seconds: float, digits: int = SIGNIFICANT) -> str:
    """A duration for people (``2 µs``, ``1.5 ms``, ``20 s``).

    >>> duration(2e-6), duration(0.0015), duration(20.0)
    ('2 µs', '1.5 ms', '20 s')
    """
    return _scaled(seconds, _DURATIONS, digits)


def rate(bytes_per_s: float | None, digits: int = SIGNIFICANT) -> str:
    """A data rate for people, in SI units (``850 MB/s``); None is ``unlimited``.

    >>> rate(850e6), rate(1.6e9), rate(None)
    ('850 MB/s', '1.6 GB/s', 'unlimited')
    """
    return "unlimited" if bytes_per_s is None else _scaled(bytes_per_s, _RATES, digits)


def size(nbytes: int | float, digits: int = SIGNIFICANT) -> str:
    """A size for people, in binary units (``512 KiB``, ``8 GiB``, ``1.5 MiB``).

    >>> size(512 * 1024), size(8 << 30), size(1536 * 1024)
    ('512 KiB', '8 GiB', '1.5 MiB')
    """
    return _scaled(float(nbytes), _SIZES, digits)


def percent(value: float, signed: bool = False, digits: int = 0) -> str:
    """A share (1.0 is 100%) as a percentage; ``signed`` adds ``+`` to gains (``+4.5%``)."""
    if value is None or not math.isfinite(value):
        return "-"
    sign = "+" if signed else ""
    return f"{100 * value:{sign}.{digits}f}%"


def short_name(key: str) -> str:
    """A readable name for a dotted scenario key, for legend titles, axes and table headers.

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


def column_label(column: str) -> str:
    """A result or sweep column as a header: plain words with the unit.

    >>> column_label("latency_ms_p99"), column_label("twin_latency_ms_mean")
    ('p99 latency (ms)', 'twin mean latency (ms)')
    >>> column_label("hosts.0.hbas.0.queue_depth"), column_label("mb_per_s")
    ('HBA queue depth', 'MB/s')
    """
    name = str(column)
    if "." in name:
        return short_name(name)
    if name in _COLUMNS:
        return _COLUMNS[name]
    if name.startswith("twin_") and "latency_ms_" in name:
        return "twin " + column_label(name.removeprefix("twin_"))
    for direction in ("read", "write"):
        stat = name.removeprefix(f"{direction}_latency_ms_")
        if name.startswith(f"{direction}_latency_ms_") and stat in _LATENCY_STATS:
            return f"{_LATENCY_STATS[stat]} {direction} latency (ms)"
    for kind, words in (
        ("latency", "latency"),
        ("command_latency", "command latency"),
        ("exchange", "exchange time"),
    ):
        stem = f"{kind}_ms_"
        if name.startswith(stem) and name.removeprefix(stem) in _LATENCY_STATS:
            return f"{_LATENCY_STATS[name.removeprefix(stem)]} {words} (ms)"
    if name.startswith("breakdown_ms_"):
        return f"{_words(name.removeprefix('breakdown_ms_'))} (ms)"
    if name.endswith("_ms"):
        return f"{_words(name.removesuffix('_ms'))} (ms)"
    return _words(name)


def _words(name: str) -> str:
    """``lun_queue`` as ``LUN queue``: underscores as spaces, acronyms in capitals."""
    acronyms = {
        "hba": "HBA",
        "lun": "LUN",
        "pcie": "PCIe",
        "io": "I/O",
        "ios": "I/Os",
        "iops": "IOPS",
        "qfull": "QUEUE FULL",
    }
    return " ".join(acronyms.get(w, w) for w in name.split("_"))


@dataclass(frozen=True)
class Table:
    """A table for people: labelled headers, formatted cells, key columns first.

    Shown as HTML in a notebook (``_repr_html_``: a ``div.sanpath-table`` that scrolls inside
    itself when it is too wide, the key columns marked ``key`` and numbers right-aligned) and
    as aligned text by ``str()``. ``frame`` holds the cells as text, under their labels.
    """

    frame: pd.DataFrame
    keys: int
    """How many of the first columns are key columns (what a row is about)."""
    numeric: tuple[bool, ...]
    """Per column, whether it holds numbers (right-aligned)."""

    def _repr_html_(self) -> str:
        def cell(tag: str, i: int, text: str) -> str:
            classes = (["key"] if i < self.keys else []) + (["num"] if self.numeric[i] else [])
            align = ' style="text-align: right"' if self.numeric[i] else ""
            attr = f' class="{" ".join(classes)}"' if classes else ""
            return f"<{tag}{attr}{align}>{html.escape(text)}</{tag}>"

        head = "".join(cell("th", i, str(c)) for i, c in enumerate(self.frame.columns))
        body = "".join(
            "<tr>" + "".join(cell("td", i, str(v)) for i, v in enumerate(row)) + "</tr>"
            for row in self.frame.itertuples(index=False)
        )
        return (
            '<div class="sanpath-table"><table>'
            f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
        )

    def __str__(self) -> str:
        columns = [str(c) for c in self.frame.columns]
        rows = [[str(v) for v in row] for row in self.frame.itertuples(index=False)]
        widths = [max([len(c), *(len(r[i]) for r in rows)]) for i, c in enumerate(columns)]

        def line(cells: Sequence[str]) -> str:
            return "  ".join(
                c.rjust(w) if self.numeric[i] else c.ljust(w)
                for i, (c, w) in enumerate(zip(cells, widths, strict=True))
            ).rstrip()

        return "\n".join([line(columns), *(line(r) for r in rows)])

    def __repr__(self) -> str:
        return str(self)


def _is_numeric(values: Iterable[Any]) -> bool:
    seen = False
    for v in values:
        if v is None or (isinstance(v, float) and math.isnan(v)):
            continue
        if isinstance(v, bool) or (not isinstance(v, int | float) and not hasattr(v, "__float__")):
            return False
        seen = True
    return seen


def table(
    frame: pd.DataFrame,
    keys: Sequence[str] | None = None,
    labels: Mapping[str, str] | None = None,
    digits: int = SIGNIFICANT,
    percent_columns: Sequence[str] = (),
) -> Table:
    """``frame`` for people (see :class:`Table`).

    Parameters
    ----------
    frame
        Any DataFrame; a named index (``by_host``'s ``name``) becomes the first column.
    keys
        The columns that say what a row is about, moved to the front (default: the named
        index and every dotted scenario key, in their order).
    labels
        Headers to use instead of :func:`column_label`'s.
    digits
        Significant digits of figures below 1,000 (:func:`number`).
    percent_columns
        Columns holding shares (1.0 is 100%), written as whole percentages.
    """
    import pandas as pd

    data = frame.reset_index() if frame.index.name is not None else frame.reset_index(drop=True)
    columns = [str(c) for c in data.columns]
    data.columns = pd.Index(columns)
    if keys is None:
        named = [str(frame.index.name)] if frame.index.name is not None else []
        keys = [*named, *(c for c in columns if "." in c and c not in named)]
    missing = [k for k in keys if k not in columns]
    if missing:
        raise KeyError(f"no column(s) {missing} in the table; it has {columns}")
    order = [*keys, *(c for c in columns if c not in keys)]
    data = data[order]
    numeric = tuple(_is_numeric(data[c].tolist()) for c in order)
    cells: dict[str, list[str]] = {}
    names: dict[str, str] = {}
    for c in order:
        label = (labels or {}).get(c) or column_label(c)
        names[c] = label if label not in names.values() else f"{label} ({c})"
    for c in order:
        if c in percent_columns:
            cells[names[c]] = [percent(float(v)) for v in data[c]]
        else:
            cells[names[c]] = [number(v, digits) for v in data[c]]
    return Table(pd.DataFrame(cells), len(keys), numeric)
