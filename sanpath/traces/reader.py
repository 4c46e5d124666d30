"""Reading a trace file of any supported format as a stream of record batches.

:class:`TraceReader` reads the file line by line, hands each line to its format's parser
(:mod:`~sanpath.traces.fio_iolog`, :mod:`~sanpath.traces.blkparse`,
:mod:`~sanpath.traces.tables`), keeps the records of the :class:`~sanpath.traces.records.Window`
and gives them in :class:`~sanpath.traces.records.Batch` es. Nothing but one batch and the
parser's small state is held, whatever the file's size.

Times: every parser gives a record's time in seconds from the trace's own origin (its first
I/O record, of any device); the reader keeps ``[start, end)`` of that clock and gives times
from ``start``. Records out of time order are kept where they are (the replay issues them at
once) and counted.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Protocol

from sanpath.traces.records import Batch, Columns, Tally, TraceError, Window, numbered_lines

FORMATS = ("fio-iolog", "blkparse", "msr", "spc", "alibaba", "tencent", "csv")
"""Trace formats (``workloads.N.trace.format``, ``sanpath import --format``)."""

BATCH = 8192
"""Records per batch by default: a few hundred kilobytes of arrays."""


class Parser(Protocol):
    """A format's line parser: calls :meth:`TraceReader.add` for each I/O record."""

    def line(self, lineno: int, text: str) -> None:
        """Parse one line (1-based number, without its end)."""

    def finish(self, lineno: int) -> None:
        """The file ended after line ``lineno``: give what is held back."""


class TraceReader:
    """The records of trace file ``path`` in ``format``, in batches (see the module notes).

    ``devices`` names the devices seen so far (indices of a batch's ``device``), in order of
    first appearance; ``tally`` counts what was skipped and the response times recorded.
    Iterate :meth:`batches` once.
    """

    def __init__(
        self,
        path: str | Path,
        format: str,
        window: Window | None = None,
        batch: int = BATCH,
    ) -> None:
        if format not in FORMATS:
            raise TraceError(
                str(path),
                None,
                None,
                "format",
                f"unknown format {format!r}: expected one of " + ", ".join(FORMATS),
            )
        self.path = Path(path)
        self.source = str(path)
        self.format = format
        self.window = window or Window()
        self.batch = batch
        self.tally = Tally()
        self.columns = Columns()
        self.records = 0
        """Records given so far."""
        self.last_time = -1.0
        self.first_time: float | None = None
        """Time (s from the replayed span's start) of the first record given."""
        self._start = self.window.start
        self._end = self.window.end
        self._devices = self.window.devices
        self.parser = _parser(format, self)

    @property
    def devices(self) -> list[str]:
        """Device names given so far, by index."""
        return self.columns.names

    def add(self, t: float, device: str, offset: int, size: int, write: bool) -> bool:
        """One I/O record from the parser: ``t`` s from the trace's origin, bytes; whether
        it is kept (inside the window, a device replayed)."""
        if t < self._start:
            self.tally.skip("before the start of the window")
            return False
        end = self._end
        if end is not None and t >= end:
            self.tally.skip("after the end of the window")
            return False
        wanted = self._devices
        if wanted is not None and device not in wanted:
            self.tally.skip("device not replayed (not in map)")
            return False
        t -= self._start
        if t < self.last_time:
            self.tally.out_of_order += 1
        else:
            self.last_time = t
        if self.first_time is None:
            self.first_time = t
        cols = self.columns
        cols.time.append(t)
        cols.device.append(cols.device_index(device))
        cols.offset.append(offset)
        cols.size.append(size)
        cols.write.append(write)
        return True

    def batches(self) -> Iterator[Batch]:
        """The records, ``batch`` at a time (the last batch may be shorter)."""
        cols = self.columns
        parser = self.parser
        size = self.batch
        lineno = 0
        for lineno, text in numbered_lines(self.path):
            parser.line(lineno, text)
            if len(cols.time) >= size:
                self.records += len(cols.time)
                yield cols.take()
        self.tally.lines = lineno
        parser.finish(lineno)
        if cols.time:
            self.records += len(cols.time)
            yield cols.take()


def _parser(format: str, reader: TraceReader) -> Parser:
    if format == "fio-iolog":
        from sanpath.traces.fio_iolog import FioIolog

        return FioIolog(reader)
    if format == "blkparse":
        from sanpath.traces.blkparse import Blkparse

        return Blkparse(reader)
    from sanpath.traces.tables import table_parser

    return table_parser(format, reader)


def check(path: str | Path, format: str, window: Window | None = None, lines: int = 2000) -> None:
    """Read the first ``lines`` lines of a trace; a :class:`TraceError` if they do not read.

    A trace that ends within them without an I/O record is an error too (nothing to replay).
    """
    reader = TraceReader(path, format, window, batch=1 << 30)
    parser = reader.parser
    lineno = 0
    for lineno, text in numbered_lines(reader.path):
        parser.line(lineno, text)
        if lineno >= lines:
            return
    parser.finish(lineno)
    if not reader.columns.time:
        raise TraceError(reader.source, lineno or None, None, "", empty_message(reader))


def empty_message(reader: TraceReader) -> str:
    """Why a trace gave no records: what was skipped, or that it holds none."""
    skipped = reader.tally.skipped
    if skipped:
        parts = ", ".join(f"{n:,} {why}" for why, n in skipped.items())
        return f"no I/O record to replay ({parts})"
    return f"no I/O record: not a {reader.format} trace, or an empty one"
