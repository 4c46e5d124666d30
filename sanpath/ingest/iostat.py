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

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from sanpath.ingest.model import Measured, bad_file
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
from sanpath.ingest.table import SampleTable
from sanpath.ingest.text import text_lines

_BANNER = re.compile(r"^\S+ \S+ \(([^)]*)\)")


@dataclass
class _Report:
    line: int
    time: float
    rows: list[tuple[str, dict[str, float]]] = field(default_factory=list)


def read(path: str | Path) -> Measured:
    """Samples from an iostat text report, ``iostat -o JSON`` or ``sadf -d -- -d`` file.

    A text report is streamed line by line: only one report's rows are held at a time, and
    the samples are kept as columns (:class:`~sanpath.ingest.table.SampleTable`).
    """
    source = str(path)
    kind = _kind(path)
    if kind == "empty":
        raise bad_file(source, 1, 1, "file", "empty file: expected iostat -x -t output")
    if kind != "text":
        source, text = load(path)
        return read_json(source, text) if kind == "json" else read_sadf(source, text)
    with text_lines(path) as lines:
        return _read_lines(source, lines)


def _kind(path: str | Path) -> str:
    """``json``, ``sadf``, ``text`` or ``empty``, from the file's first lines: sadf -d puts
    its ``# hostname;`` header before any record (:func:`~sanpath.ingest.sysstat.read_sadf`
    refuses data before it), so the scan stops at the first line that is not a comment."""
    with text_lines(path) as lines:
        for _lineno, line in lines:
            if line.startswith("# hostname;"):
                return "sadf"
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                return "json" if stripped.startswith("{") else "text"
    return "empty"


class _Samples:
    """Reports turned into samples as soon as their interval is known.

    The first report waits for the second: with ``omit_since_boot`` (``iostat -y``) it is
    kept with the second's interval, otherwise it is the average since boot and dropped.
    """

    def __init__(self, source: str, omit_since_boot: bool) -> None:
        self.source = source
        self.omit_since_boot = omit_since_boot
        self.table = SampleTable()
        self.first: _Report | None = None
        self.previous: _Report | None = None
        self.t0 = 0.0
        self.warnings: list[str] = []

    def add(self, report: _Report, layout: Layout, host: str | None) -> None:
        """A report whose rows are all read (one without rows is ignored)."""
        if not report.rows:
            return
        previous = self.previous
        if previous is not None and report.time <= previous.time:
            raise bad_file(self.source, report.line, 1, "time stamp", "time stamps do not advance")
        self.previous = report
        if previous is None:
            self.first = report
            return
        seconds = report.time - previous.time
        if self.first is not None:  # the second report: the first one's interval is known
            first, self.first = self.first, None
            if self.omit_since_boot:
                self.t0 = first.time - seconds
                self._emit(first, seconds, layout, host)
            else:
                self.t0 = first.time
                self.warnings.append(skipped_since_boot(self.source))
        self._emit(report, seconds, layout, host)

    def _emit(self, report: _Report, seconds: float, layout: Layout, host: str | None) -> None:
        start = report.time - seconds - self.t0
        for dev, v in report.rows:
            self.table.append(layout.sample(v, dev, host, start, seconds))

    def finish(self) -> None:
        """Refuse a file whose reports give no interval."""
        if self.previous is None:
            raise bad_file(self.source, 1, 1, "Device", "no device rows")
        if self.first is not None:  # one report only
            line = self.first.line
            if self.omit_since_boot:
                raise bad_file(
                    self.source, line, 1, "time stamp", "one report: its interval is unknown"
                )
            raise bad_file(self.source, line, 1, "time stamp", ONLY_SINCE_BOOT)


def _read_lines(source: str, lines: Iterator[tuple[int, str]]) -> Measured:
    host: str | None = None
    omit_since_boot = False
    banner_line = 0  # the banner's line, until the next line says whether it is blank
    report: _Report | None = None
    samples: _Samples | None = None
    layout: Layout | None = None
    names: list[str] = []
    pretty = in_rows = cpu_values = seen_content = False

    def close() -> None:
        if report is not None and layout is not None:
            if samples is None:
                raise AssertionError("samples are set up before the first report")
            samples.add(report, layout, host)

    for lineno, line in lines:
        stripped = line.strip()
        if banner_line:
            omit_since_boot = bool(stripped)  # iostat -y: no blank line after the banner
            banner_line = 0
        if not stripped or stripped.startswith("#"):
            in_rows = False
            continue
        if not seen_content:
            seen_content = True
            banner = _BANNER.match(stripped)
            if banner and parse_time(stripped) is None:
                host = banner.group(1)
                banner_line = lineno
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
            if report is None:
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
            close()
            if samples is None:
                samples = _Samples(source, omit_since_boot)
            report = _Report(lineno, when)
            in_rows = False
            continue
        if in_rows and layout is not None and report is not None:
            device, row = (cells[-1], cells[:-1]) if pretty else (cells[0], cells[1:])
            values = values_of(source, lineno, line, row, names)
            report.rows.append((device[0], values))
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
    close()
    if samples is None:
        raise bad_file(source, 1, 1, "Device", "no device rows")
    samples.finish()
    return Measured(
        source,
        "iostat",
        samples.table,
        (),
        layout.columns(),
        (*samples.warnings, *layout.warnings(source)),
    )
