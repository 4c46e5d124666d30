"""Measured points as a CSV table: one row per setting, its dotted keys and its figures.

The table ``sanpath calibrate --measured`` reads besides a fio result. Its header names
the columns: ``label`` (optional, the point's name), figures (the names the caller accepts,
e.g. ``iops``, ``latency_ms_mean``) and settings (any other name: a dotted scenario key such
as ``workloads.0.outstanding``). Each further line is one point. A setting's cell is a YAML
value (``4``, ``8k``, ``random``); a figure's cell a finite number, not negative. An empty
cell leaves that column out of the point. Every error names the file, line, column and column
name.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sanpath.ingest.model import bad_file
from sanpath.ingest.text import counter, csv_cells, row_cells

__all__ = ["MeasuredRow", "read_points"]


@dataclass(frozen=True)
class MeasuredRow:
    """One point of the table: its label, settings (dotted key -> value) and figures."""

    label: str
    settings: dict[str, Any]
    figures: dict[str, float]
    line: int
    """The point's line in the file (1-based)."""


def _setting(text: str, source: str, line: int, column: int, name: str) -> Any:
    """A setting's cell as a YAML value (safe: no tags that build objects)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe", pure=True).load(text)
    except (YAMLError, ValueError) as exc:
        reason = " ".join(str(exc).split("\n")[0].split())
        raise bad_file(source, line, column, name, f"{text!r} is not a value ({reason})") from None
    if value is None:
        raise bad_file(source, line, column, name, f"{text!r} is not a value")
    return value


def read_points(text: str, source: str, figures: Sequence[str]) -> list[MeasuredRow]:
    """The points of CSV ``text`` (see the module docstring); ``figures`` are the column
    names read as figures.

    Raises
    ------
    ScenarioError
        Located at the file, line, column and column name: no header, no figure column, a
        name given twice, a line with more or fewer cells than the header, a setting that is
        not a value, a figure that is not a finite number >= 0, no points.
    """
    lines = text.splitlines()
    head = next((i for i, line in enumerate(lines) if line.strip()), None)
    if head is None:
        raise bad_file(source, 1, 1, "header", "empty file: expected a header of column names")
    header = [(name.strip(), col) for name, col in csv_cells(source, head + 1, lines[head])]
    names = [name for name, _ in header]
    for name, col in header:
        if not name:
            raise bad_file(source, head + 1, col, "header", "a column without a name")
        if names.count(name) > 1:
            raise bad_file(source, head + 1, col, name, "this column name is given twice")
    if not any(name in figures for name in names):
        raise bad_file(
            source,
            head + 1,
            1,
            "header",
            f"no figure column; expected one of {', '.join(figures)}",
        )
    rows: list[MeasuredRow] = []
    for lineno, line in enumerate(lines[head + 1 :], head + 2):
        if not line.strip():
            continue
        cells = row_cells(source, lineno, line, header)
        settings: dict[str, Any] = {}
        found: dict[str, float] = {}
        label = ""
        for (name, _), (cell, col) in zip(header, cells, strict=True):
            if not cell.strip():
                continue
            if name == "label":
                label = cell.strip()
            elif name in figures:
                found[name] = counter(cell, source, lineno, col, name)
            else:
                settings[name] = _setting(cell, source, lineno, col, name)
        if not found:
            raise bad_file(source, lineno, 1, "", "the point has no figure")
        label = label or ", ".join(f"{k}={v}" for k, v in settings.items()) or f"row {lineno}"
        rows.append(MeasuredRow(label, settings, found, lineno))
    if not rows:
        raise bad_file(source, len(lines), 1, "", "no points below the header")
    return rows
