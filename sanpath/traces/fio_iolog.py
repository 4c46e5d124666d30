"""fio I/O logs (``fio --write_iolog=FILE``), versions 2 and 3, as fio's ``iolog.c`` reads them.

The first line is ``fio version 2 iolog`` or ``fio version 3 iolog``. Then one action per
line, white-space separated (fio reads them with ``sscanf("%256s ...")``, so a file name has
no spaces):

* version 3 (what fio 3.31 and later write, ``iolog.c`` ``log_io_u``/``log_file``):
  ``TIME FILE ACTION OFFSET LENGTH`` for an I/O and ``TIME FILE ACTION`` for a file action,
  where ``TIME`` is ``utime_since_now(&td->io_log_start_time)``: **microseconds** since fio
  started the log;
* version 2: ``FILE ACTION OFFSET LENGTH`` and ``FILE ACTION``, no time stamps.

I/O actions are ``read``, ``write``, ``trim``, ``sync``, ``datasync`` (fio's ``io_ddir_name``;
only reads and writes move data, the others are counted and left out) and, in version 2
only, ``wait``. fio's replay (``read_iolog_get``) compares a ``wait``'s value with
``mtime_since_genesis()`` and sleeps the difference times 1000 microseconds: the value is the
time in **milliseconds** from the start before which the next I/Os may not go. (fio's
HOWTO describes it as microseconds since the previous wait; sanpath follows the code.) A
version-2 record's time is the last ``wait`` before it (0 before any). File actions are
``add``, ``open`` and ``close``. ``OFFSET`` and ``LENGTH`` are bytes.

A version-2 log without ``wait`` lines records no arrival times: fio replays it as fast as
``iodepth`` allows, and so should a closed loop (``workloads.N.outstanding``).

The device of a record is its file name.
"""

from __future__ import annotations

from sanpath.traces.records import Sink, TraceError, column_of, whole

VERSION_LINES = {"fio version 2 iolog": 2, "fio version 3 iolog": 3}
FILE_ACTIONS = ("add", "open", "close")
SKIPPED_ACTIONS = {
    "trim": "trims",
    "sync": "syncs (no data)",
    "datasync": "syncs (no data)",
    "sync_file_range": "syncs (no data)",
    "syncfs": "syncs (no data)",
}


class FioIolog:
    """Parser of one fio iolog (see the module notes)."""

    def __init__(self, reader: Sink) -> None:
        self.reader = reader
        self.source = reader.source
        self.version = 0
        self.origin: float | None = None
        self.wait = 0.0
        """Version 2: time of the last ``wait`` (s)."""

    def line(self, lineno: int, text: str) -> None:
        """One line of the log."""
        if not self.version:
            head = text.strip()
            if head in VERSION_LINES:
                self.version = VERSION_LINES[head]
                return
            if not head:
                return
            what = (
                "fio version 1 logs are no longer read by fio itself"
                if head.startswith("fio version")
                else f"first line {head[:60]!r}"
            )
            raise TraceError(
                self.source,
                lineno,
                1,
                "header",
                f"{what}: expected 'fio version 2 iolog' or 'fio version 3 iolog' "
                "(a log written by fio --write_iolog)",
            )
        fields = text.split()
        if not fields:
            return
        v3 = self.version == 3
        first = 1 if v3 else 0
        n = len(fields) - first
        if n == 2:
            action = fields[first + 1]
            if action in FILE_ACTIONS:
                if v3:
                    whole(fields[0], "time", self.source, lineno, text, 0, None)
                return
            if action in SKIPPED_ACTIONS or action in ("read", "write", "wait"):
                raise TraceError(
                    self.source,
                    lineno,
                    len(text) + 1,
                    "offset",
                    f"{action} needs an offset and a length: the line is truncated",
                )
            self._bad_action(lineno, text, first + 1, action)
        if n == 3 and fields[first + 1] in ("read", "write", "wait", *SKIPPED_ACTIONS):
            raise TraceError(
                self.source,
                lineno,
                len(text) + 1,
                "length",
                f"{fields[first + 1]} needs an offset and a length: the line is truncated",
            )
        if n != 4:
            layout = "TIME FILE ACTION [OFFSET LENGTH]" if v3 else "FILE ACTION [OFFSET LENGTH]"
            raise TraceError(
                self.source,
                lineno,
                column_of(text, min(len(fields), first + 4), None),
                "line",
                f"{len(fields)} fields: expected {layout} (fio version {self.version} iolog)",
            )
        action = fields[first + 1]
        offset = whole(fields[first + 2], "offset", self.source, lineno, text, first + 2, None)
        if action == "wait":
            if v3:
                self.reader.tally.skip("waits (not allowed in version 3; fio ignores them)")
            else:
                self.wait = offset * 1e-3
            return
        length = whole(fields[first + 3], "length", self.source, lineno, text, first + 3, None)
        if action not in ("read", "write"):
            if action in SKIPPED_ACTIONS:
                self.reader.tally.skip(SKIPPED_ACTIONS[action])
                return
            self._bad_action(lineno, text, first + 1, action)
        if length == 0:
            self.reader.tally.skip("I/Os of no bytes")
            return
        if v3:
            t = whole(fields[0], "time", self.source, lineno, text, 0, None) * 1e-6
        else:
            t = self.wait
        if self.origin is None:
            self.origin = t
        self.reader.add(t - self.origin, fields[first], offset, length, action == "write")

    def _bad_action(self, lineno: int, text: str, index: int, action: str) -> None:
        raise TraceError(
            self.source,
            lineno,
            column_of(text, index, None),
            "action",
            f"unknown action {action!r}: expected read, write, trim, sync, datasync"
            + (", wait" if self.version == 2 else "")
            + " or a file action (add, open, close)",
        )

    def finish(self, lineno: int) -> None:
        """The log ended: it must have had its version line."""
        if not self.version:
            raise TraceError(
                self.source,
                1,
                1,
                "header",
                "empty file: expected 'fio version 2 iolog' or 'fio version 3 iolog'",
            )


def version_of(first_line: str) -> int | None:
    """2 or 3 for an iolog's first line, else None."""
    return VERSION_LINES.get(first_line.strip())
