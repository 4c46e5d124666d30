"""What the command line prints cannot drive the terminal.

Names come from scenario and measurement files, and a name holding control characters
(``ESC ] 0 ;`` retitles a terminal window, ``ESC [ 2 J`` clears it, ``BEL`` rings) would act
on the terminal that prints it. :func:`printable` writes every control character but tab,
newline and carriage return as a visible escape (``\\x1b``); :class:`Escaped` applies it to
everything written to a stream, and :func:`sanpath.cli.main` wraps standard output and
standard error in it while a command runs.
"""

from __future__ import annotations

import re
from typing import Any, TextIO

__all__ = ["Escaped", "printable"]

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
