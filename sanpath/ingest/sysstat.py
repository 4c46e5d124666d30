"""What sysstat's columns mean, and its JSON (``iostat -o JSON``) and ``sadf -d`` output.

Column names, units and JSON keys as sysstat writes them (checked against sysstat's
``iostat.c`` ``write_disk_stat_header``/``write_json_ext_stat`` and ``activity.c``'s
``disk_act.hdr_line``, 9.1 to 12.7): kB is 1024 bytes, a sector 512 bytes, latencies
(``await``, ``r_await``, ``w_await``) are milliseconds, request sizes ``areq-sz``/``rareq-sz``
are kB and the older ``avgrq-sz`` sectors. :mod:`sanpath.ingest.iostat` reads the text
reports and dispatches here.
"""

from __future__ import annotations

import calendar
import itertools
import json
import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sanpath.ingest.model import Measured, Sample, bad_file
from sanpath.ingest.text import read_text

_KIB = 1024.0
_SECTOR = 512.0
_BYTES = {"kB": _KIB, "MB": _KIB**2, "GB": _KIB**3, "sec": _SECTOR, "_sec": _SECTOR}
_NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")

_TIME_FORMATS = (
    "%m/%d/%Y %I:%M:%S %p",
    "%m/%d/%y %I:%M:%S %p",
    "%m/%d/%Y %H:%M:%S",
    "%m/%d/%y %H:%M:%S",
    "%d/%m/%Y %H:%M:%S",
    "%d/%m/%y %H:%M:%S",
    "%d.%m.%Y %H:%M:%S",
    "%d.%m.%y %H:%M:%S",
    "%Y-%m-%d %H:%M:%S",
    "%Y-%m-%dT%H:%M:%S%z",
)


def parse_time(text: str) -> float | None:
    """Seconds for a sysstat time stamp (``%x %X`` in common locales, ISO, epoch), or None.

    Only differences matter, so local times are taken as they are written. A trailing time
    zone name (``UTC``, as ``sadf`` writes it) is dropped.
    """
    s = text.strip()
    if s.isdigit():
        return float(s)
    zone = re.fullmatch(r"(.*\d)\s+[A-Za-z][A-Za-z+\-0-9]*", s)
    if zone and not s.endswith(("AM", "PM")):
        s = zone.group(1)
    for fmt in _TIME_FORMATS:
        try:
            when = datetime.strptime(s, fmt)
        except ValueError:
            continue
        if when.tzinfo is not None:
            return when.timestamp()
        return float(calendar.timegm(when.timetuple()))
    return None


def number(text: str) -> float | None:
    """A plain decimal number (a decimal comma allowed, as iostat writes it in some locales)."""
    s = text.replace(",", ".") if re.fullmatch(r"[+-]?\d+,\d+", text) else text
    return float(s) if _NUMBER.fullmatch(s) else None


def _bytes_column(names: Sequence[str], prefix: str, old: str) -> tuple[str, float] | None:
    for unit, factor in _BYTES.items():
        if f"{prefix}{unit}/s" in names:
            return f"{prefix}{unit}/s", factor
    if old in names:
        return old, _SECTOR
    if f"{prefix}kB" in names:  # sysstat 11.5 JSON: "rkB", "wkB"
        return f"{prefix}kB", _KIB
    return None


def _first(names: Sequence[str], *candidates: str) -> str | None:
    return next((c for c in candidates if c in names), None)


@dataclass(frozen=True)
class Layout:
    """Which column gives which figure, and its factor to SI units."""

    read_bytes: tuple[str, float]
    write_bytes: tuple[str, float]
    read_iops: str | None
    write_iops: str | None
    tps: str | None
    discard_bytes: tuple[str, float] | None
    read_latency: str | None
    write_latency: str | None
    queue: str | None
    util: str | None

    @classmethod
    def of(cls, names: Sequence[str]) -> Layout | str:
        """The layout of these column names, or what is missing."""
        rb = _bytes_column(names, "r", "rd_sec/s")
        wb = _bytes_column(names, "w", "wr_sec/s")
        if rb is None or wb is None:
            side = "read" if rb is None else "write"
            return (
                f"no {side} throughput column (expected one of rkB/s, rMB/s, rsec/s, rd_sec/s "
                "and its w counterpart, as iostat -x or sadf -d -- -d write them)"
            )
        r, w = _first(names, "r/s", "r"), _first(names, "w/s", "w")
        tps = _first(names, "tps")
        if (r is None or w is None) and tps is None:
            return "no r/s and w/s columns and no tps column: cannot count I/Os"
        both = _first(names, "await")
        return cls(
            read_bytes=rb,
            write_bytes=wb,
            read_iops=r if w is not None else None,
            write_iops=w if r is not None else None,
            tps=tps,
            discard_bytes=_bytes_column(names, "d", "\0"),
            read_latency=_first(names, "r_await") or both,
            write_latency=_first(names, "w_await") or both,
            queue=_first(names, "aqu-sz", "avgqu-sz"),
            util=_first(names, "%util", "util"),
        )

    @property
    def split_by_bytes(self) -> bool:
        return self.read_iops is None

    @property
    def needed(self) -> list[str]:
        """The columns a row must have."""
        names: list[str | None] = [self.read_bytes[0], self.write_bytes[0]]
        names += [self.tps] if self.split_by_bytes else [self.read_iops, self.write_iops]
        names += [self.discard_bytes[0]] if self.discard_bytes and self.split_by_bytes else []
        names += [self.read_latency, self.write_latency, self.queue, self.util]
        return [n for n in names if n is not None]

    def columns(self) -> dict[str, str]:
        """Figure -> the column it came from (units noted where they are not SI)."""
        rb, wb = self.read_bytes[0], self.write_bytes[0]
        cols = {"read_bytes_per_s": rb, "write_bytes_per_s": wb}
        if self.split_by_bytes:
            total = " + ".join([rb, wb] + ([self.discard_bytes[0]] if self.discard_bytes else []))
            cols["read_iops"] = f"{self.tps} × {rb} / ({total})"
            cols["write_iops"] = f"{self.tps} × {wb} / ({total})"
        else:
            cols["read_iops"], cols["write_iops"] = str(self.read_iops), str(self.write_iops)
        for key, name, unit in (
            ("read_latency_s", self.read_latency, " (ms)"),
            ("write_latency_s", self.write_latency, " (ms)"),
            ("queue_length", self.queue, ""),
            ("utilization", self.util, " (%)"),
        ):
            if name is not None:
                cols[key] = name + unit
        return cols

    def warnings(self, source: str) -> list[str]:
        out = []
        if self.split_by_bytes:
            out.append(
                f"{source}: no separate r/s and w/s, only {self.tps}: reads and writes were "
                f"split by their share of bytes ({self.read_bytes[0]}, {self.write_bytes[0]}), "
                "which assumes reads and writes have the same mean size (areq-sz)"
            )
        if self.read_latency == "await" or self.write_latency == "await":
            out.append(
                f"{source}: no r_await/w_await, only await: reads and writes were given the "
                "same latency"
            )
        return out

    def sample(
        self, v: Mapping[str, float], device: str, host: str | None, start: float, seconds: float
    ) -> Sample:
        """One sample from a row's values (column name -> number as written)."""
        rb = v[self.read_bytes[0]] * self.read_bytes[1]
        wb = v[self.write_bytes[0]] * self.write_bytes[1]
        if self.read_iops is not None and self.write_iops is not None:
            r, w = v[self.read_iops], v[self.write_iops]
        else:
            db = v[self.discard_bytes[0]] * self.discard_bytes[1] if self.discard_bytes else 0.0
            total = rb + wb + db
            tps = v[str(self.tps)]
            r, w = (tps * rb / total, tps * wb / total) if total > 0 else (0.0, 0.0)

        def ms(name: str | None) -> float | None:
            return v[name] / 1000.0 if name is not None else None

        return Sample(
            device=device,
            start=start,
            seconds=seconds,
            read_iops=r,
            write_iops=w,
            read_bytes_per_s=rb,
            write_bytes_per_s=wb,
            read_latency_s=ms(self.read_latency),
            write_latency_s=ms(self.write_latency),
            queue_length=v[self.queue] if self.queue else None,
            host=host,
            utilization=v[self.util] / 100.0 if self.util else None,
        )


def _where(text: str, pos: int) -> tuple[int, int]:
    line = text.count("\n", 0, pos) + 1
    return line, pos - (text.rfind("\n", 0, pos) + 1) + 1


def read_json(source: str, text: str) -> Measured:
    """``iostat -x -t -o JSON``: ``{"sysstat": {"hosts": [{"nodename", "statistics"}]}}``."""
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        raise bad_file(source, e.lineno, e.colno, "JSON", e.msg) from None
    disk_at = [m.start() for m in re.finditer(r'"disk_device"', text)]
    stat_at = [m.start() for m in re.finditer(r'"disk"\s*:', text)]

    def fail(pos: int, key: str, message: str) -> Exception:
        at = text.find(f'"{key}"', pos)
        line, col = _where(text, at if at >= 0 else pos)
        return bad_file(source, line, col, key, message)

    hosts = data.get("sysstat", {}).get("hosts") if isinstance(data, dict) else None
    if not isinstance(hosts, list) or not hosts:
        raise fail(0, "sysstat", 'not sysstat JSON: expected {"sysstat": {"hosts": [...]}}')
    samples: list[Sample] = []
    warnings: list[str] = []
    layout: Layout | None = None
    n_disk = n_stat = 0
    for host in hosts:
        node = host.get("nodename") if isinstance(host, dict) else None
        stats = host.get("statistics") if isinstance(host, dict) else None
        if not isinstance(stats, list):
            raise fail(0, "statistics", 'each host needs a "statistics" list')
        reports: list[tuple[float, list[tuple[str, dict[str, float], int]]]] = []
        for stat in stats:
            pos = stat_at[n_stat] if n_stat < len(stat_at) else 0
            n_stat += 1
            disks = stat.get("disk") if isinstance(stat, dict) else None
            if not isinstance(disks, list):
                raise fail(pos, "disk", 'no "disk" list: run iostat with -x (or -d)')
            stamp = stat.get("timestamp")
            when = parse_time(stamp) if isinstance(stamp, str) else None
            if when is None:
                at = text.rfind('"timestamp"', 0, pos)
                raise fail(
                    at if at >= 0 else pos,
                    "timestamp",
                    f"no time stamp or not one sysstat writes ({stamp!r}): run iostat with -t",
                )
            rows = []
            for disk in disks:
                dpos = disk_at[n_disk] if n_disk < len(disk_at) else pos
                n_disk += 1
                if not isinstance(disk, dict) or not isinstance(disk.get("disk_device"), str):
                    raise fail(dpos, "disk_device", "each disk needs a disk_device name")
                if layout is None:
                    found = Layout.of(list(disk))
                    if isinstance(found, str):
                        raise fail(dpos, "disk_device", found)
                    layout = found
                values = {}
                for key, value in disk.items():
                    if key == "disk_device":
                        continue
                    if isinstance(value, bool) or not isinstance(value, (int, float)):
                        raise fail(dpos, key, f"not a number: {value!r}")
                    if not math.isfinite(value) or value < 0:
                        raise fail(dpos, key, f"{value}: expected a finite number >= 0")
                    values[key] = float(value)
                for key in layout.needed:
                    if key not in values:
                        raise fail(dpos, "disk_device", f"no {key!r} key for {disk['disk_device']}")
                rows.append((disk["disk_device"], values, dpos))
            reports.append((when, rows))
        if len(reports) < 2:
            raise fail(stat_at[0] if stat_at else 0, "statistics", ONLY_SINCE_BOOT)
        warnings.append(skipped_since_boot(source))
        t0 = reports[0][0]
        for (prev, _), (when, rows) in itertools.pairwise(reports):
            if when <= prev:
                raise fail(0, "timestamp", "time stamps do not advance")
            assert layout is not None
            for device, values, _pos in rows:
                samples.append(layout.sample(values, device, node, prev - t0, when - prev))
    if layout is None or not samples:
        raise fail(0, "disk", "no disk statistics in this file")
    return Measured(
        source, "iostat", tuple(samples), (), layout.columns(), _w(layout, source, warnings)
    )


ONLY_SINCE_BOOT = (
    "only the first report, the average since boot, not an interval: run iostat with an "
    "interval and a count of 2 or more (iostat -x -t 5 13) and keep all reports"
)


def skipped_since_boot(source: str) -> str:
    return f"{source}: skipped the first report: iostat's first report is the average since boot"


def _w(layout: Layout, source: str, warnings: list[str]) -> tuple[str, ...]:
    return (*warnings, *layout.warnings(source))


def fields(line: str, sep: str | None) -> list[tuple[str, int]]:
    """The fields of a line with their 1-based columns (``sep`` None: split on blanks)."""
    if sep is None:
        return [(m.group(), m.start() + 1) for m in re.finditer(r"\S+", line)]
    out, col = [], 1
    for part in line.split(sep):
        out.append((part, col))
        col += len(part) + len(sep)
    return out


def values_of(
    source: str, lineno: int, line: str, cells: list[tuple[str, int]], names: Sequence[str]
) -> dict[str, float]:
    """Numbers of a row's cells under their column names; a located error if one is not."""
    if len(cells) < len(names):
        missing = names[len(cells)]
        raise bad_file(
            source,
            lineno,
            len(line) + 1,
            missing,
            f"line ends after {len(cells)} of {len(names)} columns: no {missing} (truncated?)",
        )
    if len(cells) > len(names):
        raise bad_file(
            source,
            lineno,
            cells[len(names)][1],
            "line",
            f"{len(cells)} fields, the header has {len(names)}",
        )
    out = {}
    for name, (cell, col) in zip(names, cells, strict=True):
        value = number(cell)
        if value is None or value < 0:
            raise bad_file(
                source,
                lineno,
                col,
                name,
                f"{cell!r} is not a plain non-negative number (sysstat writes numbers "
                "without units)",
            )
        out[name] = value
    return out


def read_sadf(source: str, text: str) -> Measured:
    """``sadf -d -- -d [-p]``: ``# hostname;interval;timestamp;DEV;...`` then records."""
    layout: Layout | None = None
    names: list[str] = []
    samples: list[tuple[float, float, str, str, dict[str, float]]] = []
    warnings: list[str] = []
    others: dict[str, int] = {}
    active: str | None = None
    for lineno, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if line.startswith("#"):
            if line.startswith("# hostname;"):
                heads = line[2:].split(";")
                active = heads[3] if len(heads) > 3 else "?"
                if active == "DEV":
                    found = Layout.of(heads[4:])
                    if isinstance(found, str):
                        raise bad_file(source, lineno, 3, "header", found)
                    layout, names = found, heads[4:]
            continue
        if active is None:
            raise bad_file(
                source, lineno, 1, "header", "data before a '# hostname;interval;timestamp;' header"
            )
        cells = fields(line, ";")
        if len(cells) > 3 and cells[3][0].startswith("LINUX-RESTART"):
            warnings.append(f"{source}:{lineno}: skipped a LINUX-RESTART record")
            continue
        if active != "DEV":
            others[active] = others.get(active, 0) + 1
            continue
        if len(cells) < 4:
            raise bad_file(source, lineno, len(line) + 1, "DEV", "line ends before the device")
        interval = number(cells[1][0])
        if interval is None or interval <= 0:
            raise bad_file(source, lineno, cells[1][1], "interval", "not a positive number")
        when = parse_time(cells[2][0])
        if when is None:
            raise bad_file(
                source, lineno, cells[2][1], "timestamp", f"not a time stamp: {cells[2][0]!r}"
            )
        values = values_of(source, lineno, line, cells[4:], names)
        samples.append((when - interval, interval, cells[0][0], cells[3][0], values))
    if layout is None:
        raise bad_file(
            source, 1, 1, "DEV", "no block device (DEV) records: write them with sadf -d -- -d"
        )
    if others:
        listed = ", ".join(f"{k} ({n} lines)" for k, n in others.items())
        warnings.append(f"{source}: ignored other sar activities: {listed}")
    t0 = min(s[0] for s in samples) if samples else 0.0
    out = tuple(layout.sample(v, dev, host, t - t0, sec) for t, sec, host, dev, v in samples)
    return Measured(source, "iostat", out, (), layout.columns(), _w(layout, source, warnings))


def load(path: Any) -> tuple[str, str]:
    """The file's name and text (UTF-8 or UTF-16, see :mod:`sanpath.ingest.text`), or a
    located error where it does not decode."""
    return str(path), read_text(path)
