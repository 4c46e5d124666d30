"""blkparse's default text output (``blktrace -d DEV -o - | blkparse -i -``) as I/O records.

Every event line starts with the header blkparse writes in ``process_default``
(``blkparse_fmt.c``): ``"%3d,%-3d %2d %8d %5d.%09lu %5u %2s %3s "``, i.e. the device
``MAJOR,MINOR``, the CPU, a sequence number, the time ``SECONDS.NANOSECONDS`` since the trace
started, the process id, the action and the RWBS flags. Block I/O events then go on with
``SECTOR + SECTORS`` in 512-byte sectors (and, with ``-t``, an elapsed time in brackets), then
the process name or the error.

* **D** (issued to the driver) is a record: it arrives at its time, at byte ``SECTOR x 512``,
  of ``SECTORS x 512`` bytes; the device is ``MAJOR,MINOR``. D is where the I/O leaves the
  host's block layer for the device, so the replay sends it into the modelled path there.
* **C** (complete) of the same device and sector ends the oldest pending D there: the time
  between them is the device's response time (a measured figure of the import; counted for
  the records kept, those of the window and the devices replayed).

RWBS (``fill_rwbs``): an optional leading ``F`` (pre-flush), then ``D`` (discard), ``W``
(write), ``R`` (read) or ``N`` (no data), then optional ``F`` (FUA), ``A``, ``S``, ``M``.
Only ``R`` and ``W`` move data; discards, flushes and zone commands are counted and left out,
as are SCSI pass-through commands (no ``+ SECTORS``). Other actions (Q, G, I, M, P, U, A, X,
...) and lines that are not events (the per-CPU and total summary blkparse prints at the end)
are passed over.
"""

from __future__ import annotations

import re

from sanpath.traces.records import SECTOR, Sink, TraceError, column_of, whole

DEVICE = re.compile(r"\d+,\d+")
MAX_PENDING = 1 << 20
"""Issued I/Os waiting for their completion, at most: beyond, response times are no longer
paired (a trace of D events without their C events)."""

_SKIP = {"D": "discards", "N": "requests without data (flushes)", "Z": "zone commands"}


class Blkparse:
    """Parser of blkparse's default output (see the module notes)."""

    def __init__(self, reader: Sink) -> None:
        self.reader = reader
        self.source = reader.source
        self.origin: float | None = None
        self.pending: dict[tuple[str, int], list[tuple[float, bool]]] = {}
        self.n_pending = 0
        self.events = 0

    def line(self, lineno: int, text: str) -> None:
        """One line of blkparse output."""
        fields = text.split()
        if not fields or not DEVICE.fullmatch(fields[0]):
            return  # not an event: blank, a summary line, a message
        if len(fields) < 7:
            raise TraceError(
                self.source,
                lineno,
                len(text) + 1,
                "event",
                f"{len(fields)} fields: expected 'MAJ,MIN CPU SEQUENCE SECONDS.NANOSECONDS PID "
                "ACTION RWBS ...' (blkparse's default output; is the line truncated?)",
            )
        self.events += 1
        action = fields[5]
        if action != "D" and action != "C":
            return
        rwbs = fields[6]
        op = rwbs[1] if rwbs[0] == "F" and len(rwbs) > 1 else rwbs[0]
        if len(fields) < 9 or fields[8] != "+":
            if action == "D":
                self.reader.tally.skip("commands without sectors (pass-through, flushes)")
            return
        if len(fields) < 10:
            raise TraceError(
                self.source,
                lineno,
                len(text) + 1,
                "sectors",
                "expected 'SECTOR + SECTORS' after the RWBS flags: the line is truncated",
            )
        t = self._time(fields[3], lineno, text)
        sector = whole(fields[7], "sector", self.source, lineno, text, 7, None)
        sectors = whole(fields[9], "sectors", self.source, lineno, text, 9, None)
        device = fields[0]
        if op != "R" and op != "W":
            if action == "D":
                self.reader.tally.skip(_SKIP.get(op, f"RWBS {rwbs}"))
            return
        write = op == "W"
        key = (device, sector)
        if action == "C":
            waiting = self.pending.get(key)
            if waiting:
                t_issue, _ = waiting.pop(0)
                if not waiting:
                    del self.pending[key]
                self.n_pending -= 1
                self.reader.tally.response(write, max(0.0, t - t_issue))
            return
        if sectors == 0:
            self.reader.tally.skip("I/Os of no bytes")
            return
        if self.origin is None:
            self.origin = t
        kept = self.reader.add(t - self.origin, device, sector * SECTOR, sectors * SECTOR, write)
        if kept and self.n_pending < MAX_PENDING:
            self.pending.setdefault(key, []).append((t, write))
            self.n_pending += 1

    def _time(self, text: str, lineno: int, line: str) -> float:
        seconds, dot, nanoseconds = text.partition(".")
        if not dot or not seconds.isdigit() or not nanoseconds.isdigit():
            raise TraceError(
                self.source,
                lineno,
                column_of(line, 3, None),
                "time",
                f"{text!r}: expected SECONDS.NANOSECONDS since the trace started (e.g. "
                "0.000283350)",
            )
        return int(seconds) + int(nanoseconds) * 10.0 ** -len(nanoseconds)

    def finish(self, lineno: int) -> None:
        """Nothing is held back: records are given at their D event."""
        return
