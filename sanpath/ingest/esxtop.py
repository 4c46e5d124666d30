"""esxtop batch mode (``esxtop -b``): perfmon-style CSV of every counter on an ESXi host.

The first header cell is ``(PDH-CSV 4.0) (UTC)(0)``; every other one a counter path
``\\\\host\\Object(instance)\\Counter``; each row starts with a ``MM/DD/YYYY HH:MM:SS``
timestamp. Disks are the objects ``Physical Disk SCSI Device`` (esxtop 4.x and later; also
read: ``Physical Disk`` and ``Physical Disk NFS Volume``), adapters ``Physical Disk Adapter``
(kept apart as devices named ``adapter:vmhba1``). Other objects (paths, worlds, partitions,
virtual disks, CPU, memory, network) are not read, so their cells are not checked.

Counters read (the names esxtop writes): ``Reads/sec``, ``Writes/sec``, ``MBytes Read/sec``,
``MBytes Written/sec`` (MB = 2^20 bytes), ``Average {Driver,Kernel,Guest,Queue}
MilliSec/{Command,Read,Write}`` (DAVG, KAVG, GAVG, QAVG; ms), ``Active Commands`` (ACTV),
``Queued Commands`` (QUED), ``Device Q Depth`` / ``Adapter Q Depth`` (DQLEN).

Read and write latency: Guest per read/write if the file has it, else Driver + Kernel per
read/write, else GAVG per command. A blank cell (``" "``) is no data: a device whose rates are
all blank in a row is left out of that row with a warning; a blank among numbers is an error.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from sanpath.ingest.model import ADAPTER_PREFIX, Measured, Sample, bad_file
from sanpath.ingest.table import SampleTable
from sanpath.ingest.text import text_lines

MIB = 2**20
"""esxtop's MBytes: 2^20 bytes."""

DEVICE_OBJECTS = ("Physical Disk SCSI Device", "Physical Disk", "Physical Disk NFS Volume")
ADAPTER_OBJECT = "Physical Disk Adapter"
RATES = {
    "read_iops": "Reads/sec",
    "write_iops": "Writes/sec",
    "read_mb": "MBytes Read/sec",
    "write_mb": "MBytes Written/sec",
}
OTHERS = {
    "commands": "Commands/sec",
    "davg": "Average Driver MilliSec/Command",
    "kavg": "Average Kernel MilliSec/Command",
    "gavg": "Average Guest MilliSec/Command",
    "qavg": "Average Queue MilliSec/Command",
    "davg_r": "Average Driver MilliSec/Read",
    "davg_w": "Average Driver MilliSec/Write",
    "kavg_r": "Average Kernel MilliSec/Read",
    "kavg_w": "Average Kernel MilliSec/Write",
    "gavg_r": "Average Guest MilliSec/Read",
    "gavg_w": "Average Guest MilliSec/Write",
    "actv": "Active Commands",
    "qued": "Queued Commands",
    "dqlen": "Device Q Depth",
    "aqlen": "Adapter Q Depth",
}
_COUNTERS = {name: key for key, name in {**RATES, **OTHERS}.items()}
_PATH = re.compile(
    r"\\\\(?P<host>[^\\]+)\\(?P<object>[^\\(]+)\((?P<inst>.*)\)\\(?P<counter>[^\\]+)"
)
_TIME_FORMATS = ("%m/%d/%Y %H:%M:%S", "%m/%d/%Y %H:%M:%S.%f")
_DEFAULT_DELAY_S = 5.0
"""esxtop's default delay (``-d``), assumed for a file of one row."""


def split_line(line: str, number: int, source: str) -> list[tuple[str, int]]:
    """The cells of one CSV line with the 1-based column each starts at."""
    cells: list[tuple[str, int]] = []
    i = 0
    while True:
        start = i
        if i < len(line) and line[i] == '"':
            out = []
            i += 1
            while True:
                if i >= len(line):
                    raise bad_file(source, number, start + 1, "", "unterminated quoted cell")
                if line[i] == '"':
                    if line[i + 1 : i + 2] == '"':
                        out.append('"')
                        i += 2
                        continue
                    i += 1
                    break
                out.append(line[i])
                i += 1
            text = "".join(out)
            if i < len(line) and line[i] != ",":
                raise bad_file(source, number, i + 1, "", "expected a comma after a quoted cell")
        else:
            end = line.find(",", i)
            end = len(line) if end < 0 else end
            text, i = line[i:end], end
        cells.append((text, start + 1))
        if i >= len(line):
            return cells
        i += 1


@dataclass
class _Device:
    name: str
    host: str
    adapter: bool
    columns: dict[str, int] = field(default_factory=dict)


def _header(cells: list[tuple[str, int]], source: str) -> list[_Device]:
    first = cells[0][0] if cells else ""
    if not first.startswith("(PDH-CSV 4.0)"):
        raise bad_file(
            source, 1, 1, first[:40],
            "not esxtop batch output: expected the first header cell "
            '"(PDH-CSV 4.0) (UTC)(0)" (esxtop -b)',
        )  # fmt: skip
    devices: dict[tuple[str, str], _Device] = {}
    for index, (text, _) in enumerate(cells[1:], start=1):
        m = _PATH.fullmatch(text)
        if m is None or m["counter"] not in _COUNTERS:
            continue
        adapter = m["object"] == ADAPTER_OBJECT
        if not adapter and m["object"] not in DEVICE_OBJECTS:
            continue
        name = f"{ADAPTER_PREFIX}{m['inst']}" if adapter else m["inst"]
        dev = devices.setdefault((m["host"], name), _Device(name, m["host"], adapter))
        dev.columns.setdefault(_COUNTERS[m["counter"]], index)
    if not devices:
        raise bad_file(
            source, 1, 1, "",
            "no disk counters: expected columns like "
            "\\\\host\\Physical Disk SCSI Device(naa...)\\Reads/sec",
        )  # fmt: skip
    for dev in devices.values():
        missing = [RATES[k] for k in RATES if k not in dev.columns]
        if missing:
            raise bad_file(
                source, 1, 1, dev.name,
                f"no {', '.join(missing)} column for this device: export the disk "
                "throughput counters (esxtop -b -a)",
            )  # fmt: skip
    return list(devices.values())


def _time(text: str, number: int, column: int, source: str) -> datetime:
    for fmt in _TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), fmt)
        except ValueError:
            continue
    raise bad_file(
        source, number, column, "timestamp",
        f"{text!r} is not a time: expected MM/DD/YYYY HH:MM:SS",
    )  # fmt: skip


def read(path: str | Path) -> Measured:
    """Disk and adapter samples of an esxtop batch-mode CSV.

    The file is streamed row by row (a row waits only for the next one, which gives the
    first row its interval); the samples are kept as columns
    (:class:`~sanpath.ingest.table.SampleTable`).
    """
    source = str(path)
    with text_lines(path) as lines:
        first_line = next(lines, None)
        if first_line is None:
            raise bad_file(source, 1, 1, "", "empty file: expected esxtop -b output")
        header = split_line(first_line[1], 1, source)
        devices = _header(header, source)
        reader = _Rows(source, header, devices)
        for number, line in lines:
            if line.strip():
                reader.add(number, line)
        return reader.finish()


class _Rows:
    """Rows turned into samples: each when the next one gives its interval."""

    def __init__(self, source: str, header: list[tuple[str, int]], devices: list[_Device]):
        self.source = source
        self.header = header
        self.devices = devices
        self.table = SampleTable()
        self.warnings: list[str] = []
        self.pending: tuple[int, datetime, list[tuple[str, int]]] | None = None
        self.first: datetime | None = None
        self.last: datetime | None = None

    def add(self, number: int, line: str) -> None:
        """A row of the file (not blank)."""
        source, header = self.source, self.header
        cells = split_line(line, number, source)
        if len(cells) < len(header):
            raise bad_file(
                source, number, len(line) + 1, header[len(cells)][0],
                f"truncated row: {len(cells)} cells, the header has {len(header)}",
            )  # fmt: skip
        if len(cells) > len(header):
            raise bad_file(
                source, number, cells[len(header)][1], "",
                f"{len(cells)} cells, the header has {len(header)}",
            )  # fmt: skip
        when = _time(cells[0][0], number, cells[0][1], source)
        if self.pending is not None:  # the first row: the second gives its interval
            first = self.pending
            self.pending = None
            self._emit(first, (when - first[1]).total_seconds())
        if self.first is None:
            self.first = when
            self.pending = (number, when, cells)
            return
        assert self.last is not None
        self._emit((number, when, cells), (when - self.last).total_seconds())

    def _emit(self, row: tuple[int, datetime, list[tuple[str, int]]], seconds: float) -> None:
        number, when, cells = row
        if seconds <= 0:
            raise bad_file(
                self.source, number, cells[0][1], "timestamp",
                "time does not advance from the row before",
            )  # fmt: skip
        assert self.first is not None
        start = (when - self.first).total_seconds()
        for dev in self.devices:
            sample = _sample(dev, cells, self.header, number, self.source, start, seconds)
            if sample is None:
                self.warnings.append(
                    f"{self.source}:{number}: {dev.name}: every rate is blank; the row is skipped"
                )
            else:
                self.table.append(sample)
        self.last = when

    def finish(self) -> Measured:
        """The samples read, once every row is in."""
        if self.first is None:
            raise bad_file(self.source, 2, 1, "", "no samples after the header")
        if self.pending is not None:  # a single row
            seconds = _DEFAULT_DELAY_S
            self.warnings.append(f"{self.source}: one sample; its interval assumed {seconds:g} s")
            row, self.pending = self.pending, None
            self._emit(row, seconds)
        return Measured(
            self.source, "esxtop", self.table, (), _columns(self.devices), tuple(self.warnings)
        )


def _sample(
    dev: _Device,
    cells: list[tuple[str, int]],
    header: list[tuple[str, int]],
    number: int,
    source: str,
    start: float,
    seconds: float,
) -> Sample | None:
    values: dict[str, float | None] = {}
    for key, index in dev.columns.items():
        text, column = cells[index]
        stripped = text.strip()
        if not stripped:
            values[key] = None
            continue
        try:
            value = float(stripped)
        except ValueError:
            counter = header[index][0].rsplit("\\", 1)[-1]
            raise bad_file(
                source,
                number,
                column,
                f"{dev.name}\\{counter}",
                f"{text!r} is not a number: expected a plain number in esxtop's unit",
            ) from None
        if value < 0 or value != value:
            counter = header[index][0].rsplit("\\", 1)[-1]
            raise bad_file(source, number, column, f"{dev.name}\\{counter}", "expected >= 0")
        values[key] = value
    rates = [values[k] for k in RATES]
    if all(v is None for v in rates):
        return None
    for key in RATES:
        if values[key] is None:
            text, column = cells[dev.columns[key]]
            raise bad_file(
                source, number, column, f"{dev.name}\\{RATES[key]}",
                "blank among numbers: expected a number",
            )  # fmt: skip

    def ms(key: str) -> float | None:
        v = values.get(key)
        return None if v is None else v / 1000.0

    def both(a: str, b: str) -> float | None:
        x, y = ms(a), ms(b)
        return None if x is None or y is None else x + y

    def pick(*options: float | None) -> float | None:
        return next((o for o in options if o is not None), None)

    read_latency = pick(ms("gavg_r"), both("davg_r", "kavg_r"), ms("gavg"))
    write_latency = pick(ms("gavg_w"), both("davg_w", "kavg_w"), ms("gavg"))
    active, queued = values.get("actv"), values.get("qued")
    queue_length = None if active is None else active + (queued or 0.0)
    return Sample(
        device=dev.name,
        start=start,
        seconds=seconds,
        read_iops=values["read_iops"] or 0.0,
        write_iops=values["write_iops"] or 0.0,
        read_bytes_per_s=(values["read_mb"] or 0.0) * MIB,
        write_bytes_per_s=(values["write_mb"] or 0.0) * MIB,
        read_latency_s=read_latency,
        write_latency_s=write_latency,
        queue_length=queue_length,
        host=dev.host,
        device_latency_s=ms("davg"),
        kernel_latency_s=ms("kavg"),
        queue_latency_s=ms("qavg"),
        guest_latency_s=ms("gavg"),
        active=active,
        queued=queued,
        queue_depth=values.get("aqlen" if dev.adapter else "dqlen"),
    )


def _columns(devices: list[_Device]) -> dict[str, str]:
    keys = {k for dev in devices for k in dev.columns}
    obj = "\\\\<host>\\Physical Disk SCSI Device(<device>)\\"
    figures = {
        "read_iops": RATES["read_iops"],
        "write_iops": RATES["write_iops"],
        "read_bytes_per_s": f"{RATES['read_mb']} x 2^20",
        "write_bytes_per_s": f"{RATES['write_mb']} x 2^20",
        "device_latency_s": OTHERS["davg"] + " / 1000",
        "kernel_latency_s": OTHERS["kavg"] + " / 1000",
        "queue_latency_s": OTHERS["qavg"] + " / 1000",
        "guest_latency_s": OTHERS["gavg"] + " / 1000",
        "active": OTHERS["actv"],
        "queued": OTHERS["qued"],
        "queue_depth": OTHERS["dqlen"] + " (adapters: Adapter Q Depth)",
        "queue_length": f"{OTHERS['actv']} + {OTHERS['qued']}",
    }
    needs = {"device_latency_s": "davg", "kernel_latency_s": "kavg", "queue_latency_s": "qavg"}
    needs |= {"guest_latency_s": "gavg", "active": "actv", "queued": "qued"}
    needs |= {"queue_length": "actv"}
    columns = {f: obj + c for f, c in figures.items() if needs.get(f, "read_iops") in keys}
    for d in ("r", "w"):
        figure = "read_latency_s" if d == "r" else "write_latency_s"
        counter = "Read" if d == "r" else "Write"
        if f"gavg_{d}" in keys:
            columns[figure] = obj + f"Average Guest MilliSec/{counter} / 1000"
        elif f"davg_{d}" in keys and f"kavg_{d}" in keys:
            columns[figure] = (
                obj + f"Average Driver MilliSec/{counter} + Kernel MilliSec/{counter}, / 1000"
            )
        elif "gavg" in keys:
            columns[figure] = obj + OTHERS["gavg"] + " / 1000"
    return columns
