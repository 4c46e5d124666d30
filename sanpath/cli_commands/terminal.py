"""What the command line prints cannot drive the terminal.

Names come from scenario and measurement files, and a name holding control characters
(``ESC ] 0 ;`` retitles a terminal window, ``ESC [ 2 J`` clears it, ``BEL`` rings) would act
on the terminal that prints it. :func:`printable` writes every control character but tab,
newline and carriage return as a visible escape (``\\x1b``); :class:`Escaped` applies it to
everything written to a stream, and :func:`sanpath.cli.main` wraps standard output and
standard error in it while a command runs (:func:`escaped_output`).
"""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Iterator
from typing import Any, TextIO

__all__ = ["Escaped", "escaped_output", "printable"]

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]")


def printable(text: str) -> str:
    """``text`` with its control characters (but tab, newline, carriage return) as ``\\xNN``."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group()):02x}", text)


class Escaped:
    """A text stream that writes :func:`printable` text to ``stream``; everything else (flush,
    isatty, encoding, ...) is the stream's own."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        """Write ``text`` escaped; return the length of ``text`` (as a stream does)."""
        self.stream.write(printable(text))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def escaped_output() -> Iterator[None]:
    """Standard output and standard error :class:`Escaped` for the block (a stream the block
    puts in their place, e.g. ``os.devnull`` after a broken pipe, stays)."""
    out, err = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = Escaped(out), Escaped(err)
    try:
        yield
    finally:
        if isinstance(sys.stdout, Escaped):
            sys.stdout = out
        if isinstance(sys.stderr, Escaped):
            sys.stderr = err
