"""sysstat ``iostat -x -t`` reports (text), and its JSON and ``sadf -d`` output, as samples.

Text: the banner (``Linux 5.15.0 (host) 01/15/2024 _x86_64_ (16 CPU)``), then per report a
time stamp line (``-t``), an optional ``avg-cpu:`` block and a ``Device`` header with one row
per device. Any of sysstat's ``-x`` column sets is read by name (current ``r/s rkB/s ...
aqu-sz %util``, 12.0-12.1's ``r/s w/s rkB/s wkB/s ... svctm %util``, 9.x-11.x's ``rrqm/s
wrqm/s r/s w/s rkB/s wkB/s avgrq-sz avgqu-sz await r_await w_await svctm %util``), with
``-k`` (kB/s), ``-m`` (MB/s) or sectors (``rsec/s``); ``--pretty`` (device last) too. Lines
starting with ``#`` are comments (sysstat writes none).

iostat's first report is the average since boot: with more than one report it is skipped
with a warning; a file with only that report is refused. Output of ``iostat -y`` (no blank
line after the banner: sysstat prints it only when the since-boot report follows) keeps
its first report, whose interval is taken equal to the second's. An interval is the time
between its report's time stamp and the previous one. Lines starting with ``{`` mean JSON,
``# hostname;`` sadf -d: :mod:`sanpath.ingest.sysstat` reads those.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path

from sanpath.ingest.model import Measured, Sample, bad_file
from sanpath.ingest.sysstat import (
    ONLY_SINCE_BOOT,
    Layout,
    fields,
    load,
    parse_time,
    read_json,
    read_sadf,
    skipped_since_boot,
    values_of,
)

_BANNER = re.compile(r"^\S+ \S+ \(([^)]*)\)")


@dataclass
class _Report:
    line: int
    time: float
    rows: list[tuple[str, dict[str, float]]] = field(default_factory=list)


def read(path: str | Path) -> Measured:
    """Samples from an iostat text report, ``iostat -o JSON`` or ``sadf -d -- -d`` file."""
    source, text = load(path)
    first = next((ln for ln in text.splitlines() if ln.strip()), None)
    if first is None:
        raise bad_file(source, 1, 1, "file", "empty file: expected iostat -x -t output")
    if first.lstrip().startswith("{"):
        return read_json(source, text)
    if any(ln.startswith("# hostname;") for ln in text.splitlines()):
        return read_sadf(source, text)
    return _read_text(source, text)


def _read_text(source: str, text: str) -> Measured:
    lines = text.splitlines()
    host: str | None = None
    omit_since_boot = False
    reports: list[_Report] = []
    layout: Layout | None = None
    names: list[str] = []
    pretty = in_rows = cpu_values = seen_content = False
    for lineno, line in enumerate(lines, 1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            in_rows = False
            continue
        if not seen_content:
            seen_content = True
            banner = _BANNER.match(stripped)
            if banner and parse_time(stripped) is None:
                host = banner.group(1)
                omit_since_boot = lineno < len(lines) and bool(lines[lineno].strip())
                continue
        if stripped.startswith("avg-cpu:"):
            cpu_values = True
            continue
        if cpu_values:
            cpu_values = False
            continue
        cells = fields(line, None)
        heads = [c for c, _ in cells]
        if heads[0] in ("Device", "Device:") or heads[-1] == "Device":
            if not reports:
                raise bad_file(
                    source,
                    lineno,
                    1,
                    "time stamp",
                    "a report without a time stamp: run iostat with -t (iostat -x -t 5 13)",
                )
            pretty = heads[0] not in ("Device", "Device:")
            names = heads[:-1] if pretty else heads[1:]
            found = Layout.of(names)
            if isinstance(found, str):
                raise bad_file(source, lineno, 1, "header", found)
            if "tps" in names and "rkB/s" not in names and "rMB/s" not in names:
                raise bad_file(source, lineno, 1, "header", "not an iostat -x report")
            layout, in_rows = found, True
            continue
        when = parse_time(stripped)
        if when is not None:
            reports.append(_Report(lineno, when))
            in_rows = False
            continue
        if in_rows and layout is not None:
            device, row = (cells[-1], cells[:-1]) if pretty else (cells[0], cells[1:])
            values = values_of(source, lineno, line, row, names)
            reports[-1].rows.append((device[0], values))
            continue
        raise bad_file(
            source,
            lineno,
            cells[0][1],
            "line",
            f"unexpected {heads[0]!r}: expected a time stamp (-t), avg-cpu: or a 'Device' "
            "header of iostat -x",
        )
    if layout is None:
        raise bad_file(source, 1, 1, "header", "no 'Device' header: not iostat -x output")
    reports = [r for r in reports if r.rows]
    if not reports:
        raise bad_file(source, 1, 1, "Device", "no device rows")
    for prev, cur in itertools.pairwise(reports):
        if cur.time <= prev.time:
            raise bad_file(source, cur.line, 1, "time stamp", "time stamps do not advance")
    warnings: list[str] = []
    if omit_since_boot:
        if len(reports) < 2:
            raise bad_file(
                source, reports[0].line, 1, "time stamp", "one report: its interval is unknown"
            )
        spans = [reports[1].time - reports[0].time] + [
            cur.time - prev.time for prev, cur in itertools.pairwise(reports)
        ]
        kept = list(zip(reports, spans, strict=True))
    else:
        if len(reports) < 2:
            raise bad_file(source, reports[0].line, 1, "time stamp", ONLY_SINCE_BOOT)
        warnings.append(skipped_since_boot(source))
        kept = [(cur, cur.time - prev.time) for prev, cur in itertools.pairwise(reports)]
    t0 = kept[0][0].time - kept[0][1]
    samples: list[Sample] = []
    for report, seconds in kept:
        start = report.time - seconds - t0
        samples.extend(layout.sample(v, dev, host, start, seconds) for dev, v in report.rows)
    return Measured(
        source,
        "iostat",
        tuple(samples),
        (),
        layout.columns(),
        (*warnings, *layout.warnings(source)),
    )
