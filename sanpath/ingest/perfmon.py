"""Windows Performance Monitor CSV (``relog -f csv``, perfmon's own CSV log) as samples.

The header's first cell is ``(PDH-CSV 4.0) (<time zone>)(<bias minutes>)``, the others
counter paths ``\\\\HOST\\PhysicalDisk(1 E:)\\Disk Reads/sec``; every row starts with a time
stamp ``MM/DD/YYYY HH:MM:SS.mmm``; a missing value is a blank (``" "``). Read per
PhysicalDisk or LogicalDisk instance (``_Total`` only when it is the only one): ``Disk
Reads/sec``, ``Disk Writes/sec``, ``Disk Read Bytes/sec``, ``Disk Write Bytes/sec``, ``Avg.
Disk sec/Read``, ``Avg. Disk sec/Write`` (seconds) and ``Avg. Disk Queue Length`` (else
``Current Disk Queue Length``). Counter names are the English ones Microsoft documents.

An interval ends at its row's time stamp and lasts until the previous row's (the first
row's lasts as long as the second's). A row whose rate counters are all blank (perfmon's
first sample) is skipped with a warning; so is one instance's row with a blank rate.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from sanpath.ingest.model import Measured, Sample, bad_file
from sanpath.ingest.table import SampleTable
from sanpath.ingest.text import counter, csv_cells, row_cells, text_lines

_HEAD = re.compile(r"\(PDH-CSV 4\.0\) \((.*)\)\((-?\d+)\)")
_EPOCH = datetime(1970, 1, 1)
_OBJECTS = ("PhysicalDisk", "LogicalDisk")
_RATES = {
    "Disk Reads/sec": "read_iops",
    "Disk Writes/sec": "write_iops",
    "Disk Read Bytes/sec": "read_bytes_per_s",
    "Disk Write Bytes/sec": "write_bytes_per_s",
}
_OTHERS = {
    "Avg. Disk sec/Read": "read_latency_s",
    "Avg. Disk sec/Write": "write_latency_s",
    "Avg. Disk Queue Length": "queue_length",
    "Current Disk Queue Length": "current_queue",
}


@dataclass(frozen=True)
class _Counter:
    host: str
    obj: str
    instance: str
    counter: str


def _counter(path: str) -> _Counter | None:
    if not path.startswith("\\\\") or path.count("\\") < 4:
        return None
    host, _, rest = path[2:].partition("\\")
    objinst, _, counter = rest.rpartition("\\")
    obj, paren, inst = objinst.partition("(")
    if paren and inst.endswith(")"):
        inst = inst[:-1]
    return _Counter(host, obj, inst, counter)


def _time(text: str) -> float | None:
    for fmt in ("%m/%d/%Y %H:%M:%S.%f", "%m/%d/%Y %H:%M:%S"):
        try:
            return (datetime.strptime(text.strip(), fmt) - _EPOCH).total_seconds()
        except ValueError:
            continue
    return None


def read(path: str | Path) -> Measured:
    """Samples per disk instance and interval from a perfmon/relog CSV file.

    The file is streamed line by line (any size; UTF-8 or UTF-16, see
    :mod:`sanpath.ingest.text`): only the samples are kept.
    """
    with text_lines(path) as lines:
        return _read(str(path), lines)


def _read(source: str, lines: Iterator[tuple[int, str]]) -> Measured:
    """The samples of a perfmon CSV given as (line number, text) pairs."""
    first = next(lines, None)
    if first is None or not first[1].strip():
        raise bad_file(source, 1, 1, "header", "empty file: expected a perfmon CSV header")
    header = csv_cells(source, 1, first[1])
    if not _HEAD.fullmatch(header[0][0]):
        raise bad_file(
            source,
            1,
            header[0][1],
            "header",
            f"first cell {header[0][0]!r} is not '(PDH-CSV 4.0) (<time zone>)(<bias>)': "
            "not a perfmon CSV (write one with relog -f csv)",
        )
    warnings: list[str] = []
    # (object, instance) -> figure -> column index
    found: dict[tuple[str, str], dict[str, int]] = {}
    hosts: dict[tuple[str, str], str] = {}
    for index, (path_text, _col) in enumerate(header[1:], 1):
        c = _counter(path_text)
        if c is None or c.obj not in _OBJECTS:
            continue
        figure = _RATES.get(c.counter) or _OTHERS.get(c.counter)
        if figure is not None:
            found.setdefault((c.obj, c.instance), {})[figure] = index
            hosts[(c.obj, c.instance)] = c.host
    objects = {obj for obj, _ in found}
    if not objects:
        raise bad_file(
            source,
            1,
            header[-1][1],
            "header",
            "no PhysicalDisk or LogicalDisk counters (Disk Reads/sec, ...) in English",
        )
    obj = "PhysicalDisk" if "PhysicalDisk" in objects else "LogicalDisk"
    if len(objects) > 1:
        warnings.append(f"{source}: read PhysicalDisk; LogicalDisk counters were ignored")
    instances = [inst for o, inst in found if o == obj]
    if len(instances) > 1:
        instances = [i for i in instances if i != "_Total"]
    for inst in instances:
        missing = [name for name, fig in _RATES.items() if fig not in found[(obj, inst)]]
        if missing:
            raise bad_file(
                source, 1, 1, "header", f"{obj}({inst}) has no {', '.join(missing)} counter"
            )
    columns = {fig: f"{obj}(*)\\{name}" for name, fig in (_RATES | _OTHERS).items()}
    current = columns.pop("current_queue")
    columns["queue_length"] += f" (else {current})"
    rate_cells = [found[(obj, i)][f] for i in instances for f in _RATES.values()]
    figures = (*_RATES.values(), *_OTHERS.values())

    def value(lineno: int, cells: list[tuple[str, int]], index: int | None) -> float | None:
        if index is None:
            return None
        text_value, col = cells[index]
        if not text_value.strip():
            return None
        return counter(
            text_value,
            source,
            lineno,
            col,
            header[index][0],
            hint=" (perfmon writes plain numbers, seconds for Avg. Disk sec/...)",
        )

    def row_samples(lineno: int, when: float, seconds: float, cells: list[tuple[str, int]]) -> None:
        if all(not cells[i][0].strip() for i in rate_cells):
            warnings.append(
                f"{source}:{lineno}: skipped a row with no rates (perfmon's first sample)"
            )
            return
        for inst in instances:
            idx = found[(obj, inst)]
            got = {f: value(lineno, cells, idx.get(f)) for f in figures}
            if any(got[f] is None for f in _RATES.values()):
                warnings.append(f"{source}:{lineno}: skipped {obj}({inst}): a rate is blank")
                continue
            queue = got["queue_length"] if got["queue_length"] is not None else got["current_queue"]
            if not origin:  # times advance: the first sample kept starts first
                origin.append(when - seconds)
            samples.append(
                Sample(
                    device=inst,
                    start=when - seconds - origin[0],
                    seconds=seconds,
                    read_iops=float(got["read_iops"] or 0.0),
                    write_iops=float(got["write_iops"] or 0.0),
                    read_bytes_per_s=float(got["read_bytes_per_s"] or 0.0),
                    write_bytes_per_s=float(got["write_bytes_per_s"] or 0.0),
                    read_latency_s=got["read_latency_s"],
                    write_latency_s=got["write_latency_s"],
                    queue_length=queue,
                    host=hosts[(obj, inst)],
                )
            )

    samples = SampleTable()  # columns: a million rows cost arrays, not objects
    origin: list[float] = []  # the start of the first sample kept
    pending: tuple[int, float, list[tuple[str, int]]] | None = None  # the first row
    previous: float | None = None
    rows = 0
    last_line = 1
    for lineno, line in lines:
        last_line = lineno
        if not line.strip():
            continue
        cells = row_cells(source, lineno, line, header)
        when = _time(cells[0][0])
        if when is None:
            raise bad_file(
                source,
                lineno,
                cells[0][1],
                header[0][0],
                f"{cells[0][0]!r} is not a time stamp MM/DD/YYYY HH:MM:SS.mmm",
            )
        if previous is not None and when <= previous:
            raise bad_file(source, lineno, cells[0][1], "time", "time stamps do not advance")
        rows += 1
        if pending is not None:  # the first row lasts as long as the second
            row_samples(pending[0], pending[1], when - pending[1], pending[2])
            pending = None
        if previous is None:
            pending = (lineno, when, cells)
        else:
            row_samples(lineno, when, when - previous, cells)
        previous = when
    if rows < 2:
        raise bad_file(source, last_line, 1, "rows", "fewer than two rows: the interval is unknown")
    return Measured(source, "perfmon", samples, (), columns, tuple(warnings))
