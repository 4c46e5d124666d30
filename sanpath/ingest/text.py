"""Measurement files as text: the checks and decoding every ingest reader shares.

A measured file is read only when it is a regular file (a FIFO would block forever and
``/dev/zero`` never ends) no larger than :data:`MAX_TEXT_BYTES`, and is decoded by its byte
order mark: UTF-16 (little or big endian, what ``relog`` and PowerShell write on Windows) or
UTF-8, with or without a BOM (Excel writes one). A byte that does not decode is an error
naming its line. Cells of a CSV line keep their column (:func:`csv_cells`), and a counter is
a finite number, not below its least value (:func:`counter`), or an error naming the file,
line, column and counter: a negative or NaN counter never reaches a mean.
"""

from __future__ import annotations

import codecs
import io
import math
import os
import re
import stat
from collections.abc import Generator, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TextIO

from sanpath.ingest.model import bad_file

__all__ = [
    "MAX_TEXT_BYTES",
    "checked_file",
    "counter",
    "csv_cells",
    "decode",
    "encoding_of",
    "open_text",
    "read_text",
    "row_cells",
]

MAX_TEXT_BYTES = 1 << 30
"""The largest measurement file read whole (1 GiB); streamed readers take any size."""

_UTF16 = (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE)
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")


def checked_file(path: str | Path, *, limit: int | None = MAX_TEXT_BYTES) -> int:
    """The size in bytes of ``path``, a regular file of at most ``limit`` bytes (None: any).

    Raises
    ------
    ScenarioError
        Naming the file: not found, a directory, not a regular file (a pipe, a device), not
        readable, or larger than ``limit``.
    """
    source = str(path)
    try:
        info = os.stat(path)
    except FileNotFoundError:
        raise bad_file(source, None, None, "", "file not found") from None
    except OSError as exc:
        raise bad_file(source, None, None, "", f"cannot read: {exc.strerror or exc}") from None
    if stat.S_ISDIR(info.st_mode):
        raise bad_file(source, None, None, "", "is a directory: give a file")
    if not stat.S_ISREG(info.st_mode):
        raise bad_file(
            source, None, None, "", "is not a regular file (a pipe or a device): give a file"
        )
    if limit is not None and info.st_size > limit:
        raise bad_file(
            source,
            None,
            None,
            "",
            f"is {info.st_size / 1e9:.3g} GB; sanpath reads files of this kind up to "
            f"{limit / 1e9:.3g} GB (split it, or keep the span you need)",
        )
    return info.st_size


def encoding_of(start: bytes) -> str:
    """``utf-16`` after a UTF-16 byte order mark, else ``utf-8-sig`` (a UTF-8 BOM dropped)."""
    return "utf-16" if start.startswith(_UTF16) else "utf-8-sig"


def decode(raw: bytes, source: str) -> str:
    """``raw`` as text by its byte order mark (see the module docstring).

    Raises
    ------
    ScenarioError
        Naming the line of the first byte that does not decode.
    """
    try:
        return raw.decode(encoding_of(raw[:4]))
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        column = exc.start - (raw.rfind(b"\n", 0, exc.start) + 1) + 1
        raise bad_file(
            source, line, column, "file", "not UTF-8 or UTF-16 text (save it as UTF-8)"
        ) from None


def read_text(path: str | Path, *, limit: int | None = MAX_TEXT_BYTES) -> str:
    """The whole text of a measurement file, checked (:func:`checked_file`) and decoded
    (:func:`decode`)."""
    checked_file(path, limit=limit)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise bad_file(str(path), None, None, "", f"cannot read: {exc.strerror or exc}") from None
    return decode(raw, str(path))


def open_text(path: str | Path, *, errors: str = "strict") -> TextIO:
    """A checked file (any size) opened for reading as text, decoded by its byte order mark;
    a byte that does not decode raises :class:`UnicodeDecodeError` as it is read (with
    ``errors="surrogateescape"`` it arrives as a lone surrogate in its line instead, which
    ``undecoded`` finds)."""
    checked_file(path, limit=None)
    handle = Path(path).open("rb")  # noqa: SIM115 - the wrapper returned owns it
    start = handle.read(4)
    handle.seek(0)
    return io.TextIOWrapper(handle, encoding=encoding_of(start), errors=errors, newline=None)


def undecoded(line: str) -> int:
    """The 1-based column of the first byte that did not decode in a line read with
    ``errors="surrogateescape"`` (0: none)."""
    if line.isascii():
        return 0
    found = _UNDECODED.search(line)
    return 0 if found is None else found.start() + 1


_UNDECODED = re.compile("[\udc80-\udcff]")
"""A byte ``errors="surrogateescape"`` could not decode, as the lone surrogate it becomes."""


@contextmanager
def text_lines(path: str | Path) -> Generator[Iterator[tuple[int, str]]]:
    """A checked file's lines (any size) as (line number from 1, text without its line
    break), read one at a time; a byte that does not decode is a located error at its line
    and column."""
    source = str(path)
    with open_text(path, errors="surrogateescape") as handle:

        def numbered() -> Iterator[tuple[int, str]]:
            for lineno, line in enumerate(handle, 1):
                column = undecoded(line)
                if column:
                    raise bad_file(
                        source,
                        lineno,
                        column,
                        "file",
                        "not UTF-8 or UTF-16 text (save it as UTF-8)",
                    )
                yield lineno, line.rstrip("\r\n")

        yield numbered()


def csv_cells(source: str, lineno: int, line: str) -> list[tuple[str, int]]:
    """The cells of a CSV line and their 1-based columns (double quotes, "" inside).

    Raises
    ------
    ScenarioError
        At the column of an unterminated quote or of text after a closing quote.
    """
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


def row_cells(
    source: str, lineno: int, line: str, header: Sequence[tuple[str, int]]
) -> list[tuple[str, int]]:
    """The cells of a CSV data line (:func:`csv_cells`), as many as the ``header`` has.

    Raises
    ------
    ScenarioError
        At the end of a short line (naming the first missing column) or at the first cell
        beyond the header.
    """
    cells = csv_cells(source, lineno, line)
    if len(cells) != len(header):
        where = header[min(len(cells), len(header) - 1)][0]
        col = len(line) + 1 if len(cells) < len(header) else cells[len(header)][1]
        raise bad_file(
            source,
            lineno,
            col,
            where,
            f"{len(cells)} cells, the header has {len(header)} (a truncated or long line?)",
        )
    return cells


def counter(
    text: str,
    source: str,
    line: int,
    column: int,
    where: str,
    *,
    least: float = 0.0,
    hint: str = "",
) -> float:
    """``text`` as a finite number of at least ``least``, else an error at ``line``:``column``.

    ``where`` names the counter (a column or key); ``hint`` is added to a message about text
    that is not a number.
    """
    plain = text.strip()
    if _NUMBER.fullmatch(plain):
        value = float(plain)
    elif plain.lower().lstrip("+-") in ("nan", "inf", "infinity", "1.#inf", "1.#qnan"):
        value = math.nan
    else:
        raise bad_file(source, line, column, where, f"{text!r} is not a number{hint}")
    if not math.isfinite(value):
        raise bad_file(source, line, column, where, f"{text.strip()}: expected a finite number")
    if value < least:
        raise bad_file(
            source,
            line,
            column,
            where,
            f"{text.strip()} is below {least:g}: a counter of I/Os, bytes, time or a queue "
            "cannot be negative",
        )
    return value
