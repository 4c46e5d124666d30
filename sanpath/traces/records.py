"""What every trace reader gives: batches of records, located errors, and the line source.

A block trace is a list of I/O records: when the I/O arrived, on which device (volume,
disk, file), at which byte offset, how many bytes, read or write. A reader turns a trace
file into a stream of :class:`Batch` es of up to ``batch`` records each, so a multi-gigabyte
trace is never held in memory: only one batch of numbers and the reader's small state
(pending issues of blkparse, the device names seen so far) at a time.

Times in a batch are seconds from the start of the replayed span: the trace's own first
record, or ``start`` seconds after it (:class:`Window`). Offsets and sizes are bytes.

A file that does not read is a :class:`TraceError` naming the file, the line, the column
(1-based character position of the field) and what was expected.
"""

from __future__ import annotations

import gzip
import math
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Protocol

import numpy as np

SECTOR = 512
"""Bytes per sector, the unit of blkparse and Tencent CBS offsets and sizes."""


class TraceError(ValueError):
    """A trace file that cannot be read: ``file:line:column: where: message``."""

    def __init__(
        self, source: str, line: int | None, column: int | None, where: str, message: str
    ) -> None:
        self.source = source
        self.line = line
        self.column = column
        self.where = where
        self.message = message
        at = source
        if line is not None:
            at += f":{line}:{column or 1}"
        super().__init__(f"{at}: {where}: {message}" if where else f"{at}: {message}")


@dataclass(frozen=True)
class Batch:
    """Up to a few thousand consecutive records of a trace, as numpy arrays.

    ``time`` (float64, s from the start of the replayed span), ``device`` (int32, index into
    the reader's ``devices``), ``offset`` and ``size`` (int64, bytes), ``write`` (bool).
    """

    time: np.ndarray
    device: np.ndarray
    offset: np.ndarray
    size: np.ndarray
    write: np.ndarray

    def __len__(self) -> int:
        return len(self.time)


@dataclass(frozen=True)
class Window:
    """Which records of a trace are replayed and how they are read.

    ``start`` and ``end`` (s from the trace's first record) keep the records that arrived in
    ``[start, end)``; ``devices`` (names as the trace spells them) keeps only those devices'
    records (None: every device). ``time_unit`` (seconds per unit), ``offset_unit`` and
    ``size_unit`` (bytes per unit) apply to formats whose units are not fixed by their tool
    (``csv``; ``spc``'s block size); None takes the format's own.
    """

    start: float = 0.0
    end: float | None = None
    devices: frozenset[str] | None = None
    time_unit: float | None = None
    offset_unit: int | None = None
    size_unit: int | None = None
    columns: tuple[tuple[str, str], ...] = ()
    """``csv``: (role, column name) pairs naming the columns (``sanpath.traces.tables``)."""


@dataclass
class Tally:
    """What a reader has seen besides the records it gave: skipped records and response times.

    ``skipped`` counts records left out by reason (trims, flushes, other devices, outside
    the window, ...). ``responses`` holds, for reads and for writes, the count and the sum of
    the response times (s) the trace recorded, where it records them (MSR, blkparse D to C,
    a ``csv`` latency column).
    """

    skipped: dict[str, int] = field(default_factory=dict)
    responses: list[list[float]] = field(default_factory=lambda: [[0, 0.0], [0, 0.0]])
    out_of_order: int = 0
    """Records that arrived before the record above them (replayed at once)."""
    lines: int = 0

    def skip(self, reason: str, n: int = 1) -> None:
        """Count ``n`` records left out for ``reason``."""
        self.skipped[reason] = self.skipped.get(reason, 0) + n

    def response(self, write: bool, seconds: float) -> None:
        """Count one recorded response time."""
        cell = self.responses[1 if write else 0]
        cell[0] += 1
        cell[1] += seconds

    def mean_response(self, write: bool) -> float | None:
        """Mean recorded response time of reads or writes (s), None when none was recorded."""
        n, total = self.responses[1 if write else 0]
        return total / n if n else None


MAX_LINE = 1 << 20
"""The longest line a trace reader takes (1 Mi characters): a longer one is no trace (a
binary file, or a compressed bomb of one endless line)."""


def open_text(path: str | Path) -> IO[str]:
    """The trace file as text lines (``.gz`` files decompressed on the fly; a UTF-8 byte
    order mark, as Excel writes it, is dropped). A pipe or a device is refused (an
    :class:`OSError`): a trace is read more than once."""
    p = Path(path)
    if p.exists() and not stat.S_ISREG(p.stat().st_mode) and not p.is_dir():
        raise OSError(f"{p} is not a regular file (a pipe or a device)")
    if p.suffix.lower() == ".gz":
        return gzip.open(p, "rt", encoding="utf-8-sig", errors="strict", newline=None)
    return p.open("r", encoding="utf-8-sig", errors="strict", newline=None)


def numbered_lines(path: str | Path) -> Iterator[tuple[int, str]]:
    """(1-based line number, line without its end) of a text file; located read errors."""
    source = str(path)
    lineno = 0
    try:
        with open_text(path) as handle:
            for lineno, line in enumerate(iter(lambda: handle.readline(MAX_LINE), ""), 1):
                if len(line) == MAX_LINE and not line.endswith("\n"):
                    raise TraceError(
                        source,
                        lineno,
                        1,
                        "",
                        f"a line longer than {MAX_LINE:,} characters: not a text trace",
                    )
                yield lineno, line.rstrip("\r\n")
    except FileNotFoundError:
        raise TraceError(source, None, None, "", "file not found") from None
    except IsADirectoryError:
        raise TraceError(source, None, None, "", "is a directory, expected a trace file") from None
    except UnicodeDecodeError:
        raise TraceError(
            source, lineno + 1, 1, "", "not text (UTF-8): is it a binary trace?"
        ) from None
    except (OSError, EOFError) as exc:
        raise TraceError(
            source, lineno + 1 if lineno else None, None, "", f"cannot read: {exc}"
        ) from None


def column_of(line: str, index: int, sep: str | None) -> int:
    """1-based character column where field ``index`` of ``line`` starts.

    ``sep`` is the field separator (None: runs of white space, as ``str.split()``).
    """
    if sep is not None:
        parts = line.split(sep)
        return sum(len(p) + len(sep) for p in parts[: min(index, len(parts))]) + 1
    column = 0
    count = -1
    in_field = False
    for column, char in enumerate(line):
        if char.isspace():
            in_field = False
        elif not in_field:
            in_field = True
            count += 1
            if count == index:
                return column + 1
    return len(line) + 1


def whole(
    text: str, what: str, source: str, lineno: int, line: str, index: int, sep: str | None
) -> int:
    """``text`` as a whole number >= 0, or a located error about ``what`` (field ``index``)."""
    return int(_number(int, "a whole number", text, what, source, lineno, line, index, sep))


def real(
    text: str, what: str, source: str, lineno: int, line: str, index: int, sep: str | None
) -> float:
    """``text`` as a finite number >= 0, or a located error about ``what``."""
    return float(_number(float, "a number", text, what, source, lineno, line, index, sep))


def _number(
    cast: type[int] | type[float],
    expected: str,
    text: str,
    what: str,
    source: str,
    lineno: int,
    line: str,
    index: int,
    sep: str | None,
) -> float:
    try:
        value = cast(text)
    except ValueError:
        message = _not_number(text, expected)
    else:
        if math.isfinite(value) and value >= 0:
            return value
        message = f"{text!r}: expected a finite number, not negative"
    raise TraceError(source, lineno, column_of(line, index, sep), what, message)


def _not_number(text: str, expected: str) -> str:
    stripped = text.strip()
    if not stripped:
        return f"empty: expected {expected}"
    if stripped[0].isdigit() and not stripped.replace(".", "", 1).isdigit():
        return f"{text!r} is not {expected}: expected digits only, without a unit"
    return f"{text!r} is not {expected}"


class Columns:
    """The records of one batch being gathered, as Python lists, and the reader's devices."""

    __slots__ = ("device", "index", "names", "offset", "size", "time", "write")

    def __init__(self) -> None:
        self.time: list[float] = []
        self.device: list[int] = []
        self.offset: list[int] = []
        self.size: list[int] = []
        self.write: list[bool] = []
        self.names: list[str] = []
        """Device names in order of first appearance (indices of ``device``)."""
        self.index: dict[str, int] = {}

    def device_index(self, name: str) -> int:
        """The index of device ``name`` (a new one is added)."""
        i = self.index.get(name)
        if i is None:
            i = self.index[name] = len(self.names)
            self.names.append(name)
        return i

    def take(self) -> Batch:
        """The gathered records as a :class:`Batch`; the lists start again."""
        batch = Batch(
            np.array(self.time, dtype=np.float64),
            np.array(self.device, dtype=np.int32),
            np.array(self.offset, dtype=np.int64),
            np.array(self.size, dtype=np.int64),
            np.array(self.write, dtype=np.bool_),
        )
        self.time, self.device, self.offset, self.size, self.write = [], [], [], [], []
        return batch


class Sink(Protocol):
    """What a format's parser writes its records to: the reader it runs under
    (:class:`sanpath.traces.reader.TraceReader`), as the parser sees it."""

    path: Path
    """The trace file."""
    source: str
    """The file, for located errors."""
    window: Window
    """The span of the trace replayed."""
    format: str
    """The trace format's name."""
    tally: Tally
    """What was skipped, and the responses the trace recorded."""

    def add(self, t: float, device: str, offset: int, size: int, write: bool) -> bool:
        """One I/O record: ``t`` s from the trace's origin, bytes; whether it is kept."""
        ...
