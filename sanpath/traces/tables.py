"""Comma-separated block traces: MSR Cambridge, SPC (UMass), Alibaba, Tencent CBS, plain CSV.

One record per line, fields separated by commas; a first line of column names is passed
over where the format has none of its own (the published files have no header).

* ``msr``: ``Timestamp,Hostname,DiskNumber,Type,Offset,Size,ResponseTime`` (SNIA IOTTA's
  MSR Cambridge traces, README of the distribution): ``Timestamp`` when the I/O was issued in
  Windows filetime (100 ns ticks), ``Type`` ``Read`` or ``Write``, ``Offset`` and ``Size`` in
  bytes, ``ResponseTime`` in 100 ns ticks. The device is ``Hostname_DiskNumber`` (as the
  files are named, e.g. ``src1_2``).
* ``spc``: ``ASU,LBA,Size,Opcode,Timestamp[,...]`` (SPC Trace File Format Specification
  1.0.1, as the UMass Trace Repository's Financial and WebSearch traces use it): the ASU
  (application specific unit) is the device, ``LBA`` in 512-byte blocks (``offset_unit``
  for another block size), ``Size`` in bytes, ``Opcode`` ``r``/``R`` or ``w``/``W``,
  ``Timestamp`` seconds from the start of the trace; further optional fields are allowed.
* ``alibaba``: ``device_id,opcode,offset,length,timestamp`` (github.com/alibaba/block-traces,
  README): opcode ``R`` or ``W``, offset and length in bytes, timestamp in microseconds.
* ``tencent``: ``Timestamp,Offset,Size,IOType,VolumeID`` (SNIA IOTTA's Tencent CBS traces,
  README): Unix time in whole seconds, offset and size in 512-byte sectors, IOType ``0``
  read or ``1`` write, the volume is the device. The time stamps are whole seconds, so the
  I/Os of one second are spread evenly over it, in file order (else every second would
  arrive as one burst).
* ``csv``: a header line names the columns; ``columns`` maps the roles ``time``, ``offset``,
  ``size``, ``op`` and the optional ``device`` and ``latency`` to column names (by default
  the role names themselves). ``time_unit`` (seconds per unit, default 1), ``offset_unit``
  and ``size_unit`` (bytes per unit, default 1) give the units. ``op`` is ``r``/``read``/``0``
  or ``w``/``write``/``1`` (any case); ``t``/``trim``/``discard``/``flush``/``sync`` rows are
  counted and left out. A ``latency`` column (in ``time_unit``) gives response times.

Sizes of 0 bytes are counted and left out. Numbers are digits only: a unit in a field
(``4096B``, ``8KiB``) is a located error.
"""

from __future__ import annotations

from collections.abc import Callable

from sanpath.traces.records import SECTOR, Sink, TraceError, real, whole

TICK = 1e-7
"""Seconds per Windows filetime tick."""

LAYOUTS = {
    "msr": ("Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"),
    "spc": ("ASU", "LBA", "Size", "Opcode", "Timestamp"),
    "alibaba": ("device_id", "opcode", "offset", "length", "timestamp"),
    "tencent": ("Timestamp", "Offset", "Size", "IOType", "VolumeID"),
}
"""The fields of each fixed layout, in order."""

ROLES = ("time", "offset", "size", "op", "device", "latency")
"""Roles of a ``csv`` trace's columns (``time``, ``offset``, ``size`` and ``op`` required)."""

READS = ("r", "read", "0")
WRITES = ("w", "write", "1")
NO_DATA = ("t", "trim", "d", "discard", "f", "flush", "sync")


class Table:
    """Parser of one comma-separated trace (see the module notes)."""

    def __init__(self, reader: Sink, names: tuple[str, ...], extra: bool = False) -> None:
        self.reader = reader
        self.source = reader.source
        self.names = names
        self.n = len(names)
        self.extra = extra
        """Further fields after the named ones are allowed (SPC's optional fields)."""
        self.started = False
        self.origin: float | int | None = None

    def line(self, lineno: int, text: str) -> None:
        """One line: a header (first line only), a record, or blank."""
        if not text.strip():
            return
        fields = text.split(",")
        count_ok = len(fields) == self.n or (self.extra and len(fields) > self.n)
        if not self.started:
            self.started = True
            first = fields[0].strip().lstrip("+-")
            if count_ok and not first.replace(".", "", 1).isdigit():
                return  # a line of column names
        if not count_ok:
            self._wrong_count(lineno, text, fields)
        self._row(lineno, text, fields)

    def _wrong_count(self, lineno: int, text: str, fields: list[str]) -> None:
        if len(fields) < self.n:
            column = len(text) + 1
            what = "too few fields (is the line truncated?)"
        else:
            column = sum(len(f) + 1 for f in fields[: self.n]) + 1
            what = "too many fields"
        raise TraceError(
            self.source,
            lineno,
            column,
            self.names[min(len(fields), self.n - 1)],
            f"{len(fields)} fields, {what}: expected {self.n} ({','.join(self.names)}; "
            f"format {self.reader.format})",
        )

    def _row(self, lineno: int, text: str, fields: list[str]) -> None:
        raise NotImplementedError  # pragma: no cover - every format sets its own

    def _op(
        self,
        text: str,
        lineno: int,
        line: str,
        index: int,
        reads: tuple[str, ...],
        writes: tuple[str, ...],
    ) -> bool:
        value = text.strip()
        if value in reads:
            return False
        if value in writes:
            return True
        raise TraceError(
            self.source,
            lineno,
            sum(len(f) + 1 for f in line.split(",")[:index]) + 1,
            self.names[index],
            f"{text!r}: expected {' or '.join(dict.fromkeys(reads + writes))}",
        )

    def _add(self, t: float, device: str, offset: int, size: int, write: bool) -> bool:
        """Give a record to the reader; whether it was kept (a size of 0 is not)."""
        if size == 0:
            self.reader.tally.skip("I/Os of no bytes")
            return False
        return self.reader.add(t, device, offset, size, write)

    def finish(self, lineno: int) -> None:
        """Nothing held back (Tencent's last second is given by its own parser)."""
        return


class Msr(Table):
    """MSR Cambridge / SNIA CSV."""

    def __init__(self, reader: Sink) -> None:
        super().__init__(reader, LAYOUTS["msr"])

    def _row(self, lineno: int, text: str, f: list[str]) -> None:
        src = self.source
        ticks = whole(f[0], "Timestamp", src, lineno, text, 0, ",")
        write = self._op(f[3], lineno, text, 3, ("Read",), ("Write",))
        offset = whole(f[4], "Offset", src, lineno, text, 4, ",")
        size = whole(f[5], "Size", src, lineno, text, 5, ",")
        response = whole(f[6], "ResponseTime", src, lineno, text, 6, ",")
        disk = whole(f[2], "DiskNumber", src, lineno, text, 2, ",")
        if self.origin is None:
            self.origin = ticks
        device = f"{f[1].strip()}_{disk}"
        if self._add((ticks - int(self.origin)) * TICK, device, offset, size, write):
            self.reader.tally.response(write, response * TICK)


class Spc(Table):
    """SPC trace file format (UMass)."""

    def __init__(self, reader: Sink) -> None:
        super().__init__(reader, LAYOUTS["spc"], extra=True)
        unit = reader.window.offset_unit
        self.block = SECTOR if unit is None else unit

    def _row(self, lineno: int, text: str, f: list[str]) -> None:
        src = self.source
        asu = whole(f[0], "ASU", src, lineno, text, 0, ",")
        lba = whole(f[1], "LBA", src, lineno, text, 1, ",")
        size = whole(f[2], "Size", src, lineno, text, 2, ",")
        write = self._op(f[3], lineno, text, 3, ("r", "R"), ("w", "W"))
        t = real(f[4], "Timestamp", src, lineno, text, 4, ",")
        if self.origin is None:
            self.origin = t
        self._add(t - self.origin, str(asu), lba * self.block, size, write)


class Alibaba(Table):
    """Alibaba block traces (2020)."""

    def __init__(self, reader: Sink) -> None:
        super().__init__(reader, LAYOUTS["alibaba"])

    def _row(self, lineno: int, text: str, f: list[str]) -> None:
        src = self.source
        device = whole(f[0], "device_id", src, lineno, text, 0, ",")
        write = self._op(f[1], lineno, text, 1, ("R",), ("W",))
        offset = whole(f[2], "offset", src, lineno, text, 2, ",")
        size = whole(f[3], "length", src, lineno, text, 3, ",")
        us = whole(f[4], "timestamp", src, lineno, text, 4, ",")
        if self.origin is None:
            self.origin = us
        self._add((us - int(self.origin)) * 1e-6, str(device), offset, size, write)


class Tencent(Table):
    """Tencent CBS traces: whole-second time stamps spread over their second."""

    def __init__(self, reader: Sink) -> None:
        super().__init__(reader, LAYOUTS["tencent"])
        self.second: int | None = None
        self.held: list[tuple[str, int, int, bool]] = []

    def _row(self, lineno: int, text: str, f: list[str]) -> None:
        src = self.source
        second = whole(f[0], "Timestamp", src, lineno, text, 0, ",")
        offset = whole(f[1], "Offset", src, lineno, text, 1, ",")
        size = whole(f[2], "Size", src, lineno, text, 2, ",")
        write = self._op(f[3], lineno, text, 3, ("0",), ("1",))
        volume = whole(f[4], "VolumeID", src, lineno, text, 4, ",")
        if self.origin is None:
            self.origin = second
        if second != self.second:
            self._release()
            self.second = second
        self.held.append((str(volume), offset * SECTOR, size * SECTOR, write))

    def _release(self) -> None:
        """Give the held second's records, spread evenly over that second."""
        if self.second is None or not self.held:
            return
        base = float(self.second - int(self.origin or 0))
        step = 1.0 / len(self.held)
        for i, (device, offset, size, write) in enumerate(self.held):
            self._add(base + i * step, device, offset, size, write)
        self.held = []

    def finish(self, lineno: int) -> None:
        """Give the last second's records."""
        self._release()


class PlainCsv(Table):
    """A CSV trace with named columns (see the module notes)."""

    def __init__(self, reader: Sink) -> None:
        window = reader.window
        self.roles = dict(window.columns)
        for role in ROLES[:4]:
            self.roles.setdefault(role, role)
        super().__init__(reader, tuple(self.roles.values()), extra=True)
        self.time_unit = 1.0 if window.time_unit is None else window.time_unit
        self.offset_unit = 1 if window.offset_unit is None else window.offset_unit
        self.size_unit = 1 if window.size_unit is None else window.size_unit
        self.at: dict[str, int] = {}
        self.header: list[str] = []
        self.stem = reader.path.name.split(".")[0]

    def line(self, lineno: int, text: str) -> None:
        """The header names the columns; then the records."""
        if self.started:
            super().line(lineno, text)
            return
        if not text.strip():
            return
        self.started = True
        self.header = [h.strip() for h in text.split(",")]
        where = {name: i for i, name in enumerate(self.header)}
        missing = [f"{role}={name!r}" for role, name in self.roles.items() if name not in where]
        if missing:
            raise TraceError(
                self.source,
                lineno,
                1,
                "header",
                f"no column for {', '.join(missing)} among {', '.join(self.header)}: name "
                "the columns with trace.columns (role: column name)",
            )
        self.at = {role: where[name] for role, name in self.roles.items()}
        self.n = len(self.header)
        self.names = tuple(self.header)
        self.extra = False

    def _row(self, lineno: int, text: str, f: list[str]) -> None:
        src = self.source
        at = self.at
        names = self.names
        i = at["op"]
        op = f[i].strip().lower()
        if op in NO_DATA:
            self.reader.tally.skip("trims, flushes and syncs")
            return
        if op not in READS and op not in WRITES:
            raise TraceError(
                src,
                lineno,
                sum(len(x) + 1 for x in f[:i]) + 1,
                names[i],
                f"{f[i]!r}: expected r, read or 0 (read), w, write or 1 (write), or a trim, "
                "discard, flush or sync",
            )
        write = op in WRITES
        i = at["time"]
        t = real(f[i], names[i], src, lineno, text, i, ",") * self.time_unit
        i = at["offset"]
        offset = whole(f[i], names[i], src, lineno, text, i, ",") * self.offset_unit
        i = at["size"]
        size = whole(f[i], names[i], src, lineno, text, i, ",") * self.size_unit
        device = f[at["device"]].strip() if "device" in at else self.stem
        latency = None
        if "latency" in at:
            i = at["latency"]
            latency = real(f[i], names[i], src, lineno, text, i, ",") * self.time_unit
        if self.origin is None:
            self.origin = t
        if self._add(t - self.origin, device, offset, size, write) and latency is not None:
            self.reader.tally.response(write, latency)

    def finish(self, lineno: int) -> None:
        """A CSV trace needs its header line."""
        if not self.started:
            raise TraceError(self.source, 1, 1, "header", "empty file: expected a header line")


def table_parser(format: str, reader: Sink) -> Table:
    """The parser of comma-separated ``format``."""
    parsers: dict[str, Callable[[Sink], Table]] = {
        "msr": Msr,
        "spc": Spc,
        "alibaba": Alibaba,
        "tencent": Tencent,
        "csv": PlainCsv,
    }
    return parsers[format](reader)
