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
from dataclasses import dataclass, replace
from datetime import datetime
from pathlib import Path

from sanpath.ingest.model import Measured, Sample, bad_file

_HEAD = re.compile(r"\(PDH-CSV 4\.0\) \((.*)\)\((-?\d+)\)")
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
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


def _cells(source: str, lineno: int, line: str) -> list[tuple[str, int]]:
    """The cells of a CSV line and their 1-based columns (double quotes, "" inside)."""
    out: list[tuple[str, int]] = []
    i, n = 0, len(line)
    while True:
        start = i
        if i < n and line[i] == '"':
            value, i = [], i + 1
            while True:
                j = line.find('"', i)
                if j < 0:
                    raise bad_file(
                        source, lineno, start + 1, "cell", "unterminated quote (truncated line?)"
                    )
                value.append(line[i:j])
                if line.startswith('""', j):
                    value.append('"')
                    i = j + 2
                    continue
                i = j + 1
                break
            cell = "".join(value)
            if i < n and line[i] != ",":
                raise bad_file(source, lineno, i + 1, "cell", "text after a closing quote")
        else:
            j = line.find(",", i)
            j = n if j < 0 else j
            cell, i = line[i:j], j
        out.append((cell, start + 1))
        if i >= n:
            return out
        i += 1


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
    """Samples per disk instance and interval from a perfmon/relog CSV file."""
    source = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as e:
        raise bad_file(source, None, None, "file", e.strerror or str(e)) from None
    try:
        if raw.startswith((b"\xff\xfe", b"\xfe\xff")):
            text = raw.decode("utf-16")
        else:
            text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        at = raw[: e.start].count(b"\n") + 1
        raise bad_file(source, at, 1, "file", "not UTF-8 or UTF-16 text") from None
    lines = text.splitlines()
    if not lines or not lines[0].strip():
        raise bad_file(source, 1, 1, "header", "empty file: expected a perfmon CSV header")
    header = _cells(source, 1, lines[0])
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

    rows: list[tuple[int, float, list[tuple[str, int]]]] = []
    for lineno, line in enumerate(lines[1:], 2):
        if not line.strip():
            continue
        cells = _cells(source, lineno, line)
        if len(cells) != len(header):
            where = header[min(len(cells), len(header) - 1)][0]
            col = len(line) + 1 if len(cells) < len(header) else cells[len(header)][1]
            raise bad_file(
                source,
                lineno,
                col,
                where,
                f"{len(cells)} cells, the header has {len(header)} (truncated line?)",
            )
        when = _time(cells[0][0])
        if when is None:
            raise bad_file(
                source,
                lineno,
                cells[0][1],
                header[0][0],
                f"{cells[0][0]!r} is not a time stamp MM/DD/YYYY HH:MM:SS.mmm",
            )
        if rows and when <= rows[-1][1]:
            raise bad_file(source, lineno, cells[0][1], "time", "time stamps do not advance")
        rows.append((lineno, when, cells))
    if len(rows) < 2:
        raise bad_file(
            source, len(lines), 1, "rows", "fewer than two rows: the interval is unknown"
        )

    def value(lineno: int, cells: list[tuple[str, int]], index: int | None) -> float | None:
        if index is None:
            return None
        text_value, col = cells[index]
        if not text_value.strip():
            return None
        if not _NUMBER.fullmatch(text_value.strip()):
            raise bad_file(
                source,
                lineno,
                col,
                header[index][0],
                f"{text_value!r} is not a number (perfmon writes plain numbers, seconds for "
                "Avg. Disk sec/...)",
            )
        return float(text_value)

    samples: list[Sample] = []
    t0 = rows[0][1] - (rows[1][1] - rows[0][1])
    for k, (lineno, when, cells) in enumerate(rows):
        seconds = when - (rows[k - 1][1] if k else t0)
        rate_cells = [found[(obj, i)][f] for i in instances for f in _RATES.values()]
        if all(not cells[i][0].strip() for i in rate_cells):
            warnings.append(
                f"{source}:{lineno}: skipped a row with no rates (perfmon's first sample)"
            )
            continue
        for inst in instances:
            idx = found[(obj, inst)]
            got = {
                f: value(lineno, cells, idx.get(f)) for f in (*_RATES.values(), *_OTHERS.values())
            }
            if any(got[f] is None for f in _RATES.values()):
                warnings.append(f"{source}:{lineno}: skipped {obj}({inst}): a rate is blank")
                continue
            queue = got["queue_length"] if got["queue_length"] is not None else got["current_queue"]
            samples.append(
                Sample(
                    device=inst,
                    start=when - seconds - t0,
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
    if samples:
        first = min(s.start for s in samples)
        samples = [replace(s, start=s.start - first) for s in samples]
    return Measured(source, "perfmon", tuple(samples), (), columns, tuple(warnings))
