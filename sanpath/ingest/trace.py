"""``sanpath import TRACE``: a block trace in, a scenario that replays it out.

The trace is read once from end to end (:func:`sanpath.traces.summarize`, flat memory) for
its summary; the written scenario then streams it again at every run. What is written:

* one LUN group per device of the trace (``--map DEVICE=LUN`` or, with ``--into``, the
  base's LUN groups in order), each as large as the highest byte the trace addresses on its
  device (rounded up to a GiB), so no record wraps around;
* one workload with ``trace: {file, format, map, ...}`` (the file's path relative to the
  written scenario) and, for the analytic twin and ``sanpath check``, the trace's own figures:
  ``rate`` (its mean arrival rate times ``--speed``; or ``outstanding`` with
  ``--outstanding N`` for a closed-loop replay), ``read_fraction``, the size mix of each
  direction (the twelve commonest sizes, the rest as their mean, so the mean size is exact),
  and ``random_fraction`` from the share of records that do not continue a recent one;
* ``reference:`` points with ``role: measured``: the trace's IOPS and MB/s and, where it
  records response times (MSR, blkparse D to C, a CSV latency column), the mean latency of
  reads, of writes and of both;
* the summary (records, span, IOPS over time, size mix, read fraction, sequentiality,
  footprint, response times, what was left out) in the comments, and printed.

``--interval``: the whole trace by default (or ``mean``); ``START..END`` replays that span
(seconds from the first record); ``peak-iops`` and ``peak-mb`` the busiest bucket of the
IOPS-over-time series.
"""

from __future__ import annotations

import dataclasses
import math
import os
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sanpath.ingest.interval import Chosen, parse_span
from sanpath.ingest.model import Measured, Sample, bad_file
from sanpath.ingest.scenario import (
    assign,
    base_facts,
    compose,
    dump,
    parse_map,
    placeholder,
    validate,
    wrap_comment,
)
from sanpath.ingest.workload import Placement, Workload, measured_points
from sanpath.spec import load_scenario
from sanpath.traces import FORMATS, Summary, TraceError, Window, summarize

GIB = 1024**3
TOP_SIZES = 12
"""Sizes of a direction written one by one; the rarer ones become their mean."""
TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "100ns": 1e-7}

_BLKPARSE = re.compile(r"^\d+,\d+\s+\d+\s+\d+\s+\d+\.\d+\s+\d+\s+\S+\s")
_NUMBER = re.compile(r"^\d+(\.\d+)?$")


def detect_trace(lines: Sequence[str]) -> str | None:
    """The trace format the first lines of a file show, or None."""
    text = [line.strip() for line in lines if line.strip()]
    if not text:
        return None
    if text[0] in ("fio version 2 iolog", "fio version 3 iolog"):
        return "fio-iolog"
    if any(_BLKPARSE.match(line) for line in text[:20]):
        return "blkparse"
    head = [f.strip() for f in text[0].split(",")]
    names = [h.lower() for h in head]
    if not _NUMBER.match(head[0]):
        if {"time", "offset", "size", "op"} <= set(names):
            return "csv"
        for fmt, layout in _LAYOUTS.items():
            if names == [n.lower() for n in layout]:
                return fmt
        if len(text) < 2:
            return None
        head = [f.strip() for f in text[1].split(",")]
    f = head
    if len(f) == 7 and f[3] in ("Read", "Write") and f[0].isdigit():
        return "msr"
    if len(f) == 5 and f[1] in ("R", "W") and f[0].isdigit() and f[4].isdigit():
        return "alibaba"
    if len(f) >= 5 and f[3] in ("r", "R", "w", "W") and f[0].isdigit() and _NUMBER.match(f[4]):
        return "spc"
    if len(f) == 5 and all(x.isdigit() for x in f) and f[3] in ("0", "1"):
        return "tencent"
    return None


_LAYOUTS = {
    "msr": ("Timestamp", "Hostname", "DiskNumber", "Type", "Offset", "Size", "ResponseTime"),
    "spc": ("ASU", "LBA", "Size", "Opcode", "Timestamp"),
    "alibaba": ("device_id", "opcode", "offset", "length", "timestamp"),
    "tencent": ("Timestamp", "Offset", "Size", "IOType", "VolumeID"),
}


@dataclass(frozen=True)
class TraceOptions:
    """How to read and replay an imported trace (``sanpath import`` flags)."""

    speed: float = 1.0
    outstanding: int | None = None
    columns: tuple[tuple[str, str], ...] = ()
    time_unit: str | None = None


def parse_columns(entries: Sequence[str]) -> tuple[tuple[str, str], ...]:
    """``["time=ts", ...]`` as (role, column) pairs; a malformed entry is a located error."""
    out = []
    for entry in entries:
        role, sep, name = entry.partition("=")
        if not sep or not role.strip() or not name.strip():
            raise bad_file("--columns", None, None, entry, "expected ROLE=COLUMN, e.g. time=ts")
        out.append((role.strip(), name.strip()))
    return tuple(out)


def _window(
    fmt: str, options: TraceOptions, start: float = 0.0, end: float | None = None
) -> Window:
    return Window(
        start=start,
        end=end,
        time_unit=None if options.time_unit is None else TIME_UNITS[options.time_unit],
        columns=options.columns,
    )


def _summary(path: Path, fmt: str, window: Window) -> Summary:
    try:
        return summarize(path, fmt, window)
    except TraceError as exc:
        raise bad_file(exc.source, exc.line, exc.column, exc.where, exc.message) from None


def read_trace(
    path: Path, fmt: str, interval: str | None, options: TraceOptions
) -> tuple[Summary, Window, str]:
    """The trace's summary over the chosen span, the span, and its description."""
    source = str(path)
    if options.time_unit is not None and options.time_unit not in TIME_UNITS:
        raise bad_file(
            "--time-unit", None, None, options.time_unit, f"expected {', '.join(TIME_UNITS)}"
        )
    if fmt != "csv" and (options.columns or options.time_unit):
        raise bad_file(source, None, None, "--columns", f"only for a csv trace, not {fmt}")
    text = (interval or "mean").strip()
    whole = _summary(path, fmt, _window(fmt, options))
    if text in ("mean", "all"):
        what = f"the whole trace, {_num(whole.duration)} s from its first record to its last"
        return whole, _window(fmt, options), what
    end: float | None
    if text in ("peak-iops", "peak-mb"):
        values = whole.counts if text == "peak-iops" else whole.bucket_bytes
        best = max(range(len(values)), key=lambda i: (values[i], -i))
        start, end = best * whole.bucket, (best + 1) * whole.bucket
        what = (
            f"{text}: {_num(start)}..{_num(end)} s, the busiest of {len(values)} buckets of "
            f"{_num(whole.bucket)} s by {'I/Os' if text == 'peak-iops' else 'bytes'}"
        )
    else:
        start, end = parse_span(source, text)
        what = f"{text}: the records from {_num(start)} s" + (
            f" to {_num(end)} s" if end is not None else " to the end"
        )
    window = _window(fmt, options, start, end)
    return _summary(path, fmt, window), window, what + " after the trace's first record"


def _num(x: float) -> str:
    return f"{x:.6g}"


def describe(s: Summary) -> list[str]:
    """The summary in words (for the scenario's comments and the command line)."""
    lines = [
        f"{s.records:,} records over {_num(s.duration)} s on {len(s.per_device)} device(s) "
        f"({', '.join(f'{d} {n:,}' for d, n in s.per_device.items())})",
    ]
    rates = s.rates()
    if len(rates) > 1:
        step = math.ceil(len(rates) / 24)
        shown = ", ".join(f"{r:.4g}" for r in _squeeze(rates, step))
        lines.append(
            f"IOPS over time ({_num(s.bucket * step)} s buckets): "
            f"mean {s.iops:.4g}, peak {max(rates):.4g}, lowest {min(rates):.4g}: {shown}"
        )
    else:
        lines.append(f"IOPS: mean {s.iops:.4g}")
    sizes: dict[int, int] = {}
    for table in (s.read_sizes, s.write_sizes):
        for size, n in table.items():
            sizes[size] = sizes.get(size, 0) + n
    top = sorted(sizes.items(), key=lambda x: -x[1])[:6]
    rest = s.records - sum(n for _, n in top)
    mix = ", ".join(f"{_size(size)} {100 * n / s.records:.1f}%" for size, n in top)
    lines.append(
        f"size mix: {mix}"
        + (f", others {100 * rest / s.records:.1f}%" if rest else "")
        + f" (mean {s.mean_size:,.0f} B)"
    )
    byte_share = s.bytes_read / s.bytes if s.bytes else math.nan
    lines.append(
        f"reads: {100 * s.read_fraction:.1f}% of the I/Os, {100 * byte_share:.1f}% of the bytes"
    )
    lines.append(
        f"sequential: {100 * s.sequential / s.records:.1f}% of the I/Os start where one of the "
        "last 16 I/Os of their device ended"
    )
    top_bytes = sum(f.top for f in s.footprints.values())
    lines.append(
        f"footprint: {_size(s.footprint)} touched (in blocks of at least 4 KiB) of "
        f"{_size(top_bytes)} addressed"
    )
    if s.read_response is not None or s.write_response is not None:
        parts = [
            f"{what} mean {1e3 * value:.3g} ms"
            for what, value in (("read", s.read_response), ("write", s.write_response))
            if value is not None
        ]
        lines.append("response times recorded in the trace: " + ", ".join(parts))
    if s.skipped:
        lines.append("left out: " + ", ".join(f"{n:,} {why}" for why, n in s.skipped.items()))
    if s.out_of_order:
        lines.append(f"{s.out_of_order:,} records out of time order (replayed at once)")
    return lines


def _squeeze(values: list[float], step: int) -> list[float]:
    """Each ``step`` neighbours averaged."""
    return [
        sum(values[i : i + step]) / len(values[i : i + step]) for i in range(0, len(values), step)
    ]


def _size(n: float) -> str:
    for unit, scale in (("GiB", GIB), ("MiB", 1024**2), ("KiB", 1024)):
        if n >= scale:
            value = n / scale
            return f"{value:.0f} {unit}" if value == int(value) else f"{value:.3g} {unit}"
    return f"{n:.0f} B"


def size_mix(sizes: Mapping[int, int]) -> list[list[float]]:
    """``[[size, weight], ...]``: the :data:`TOP_SIZES` commonest sizes, the rest as their
    mean size in 512-byte steps split so the mean stays exact."""
    total = sum(sizes.values())
    ranked = sorted(sizes.items(), key=lambda x: -x[1])
    out: dict[int, float] = {}
    for size, n in ranked[:TOP_SIZES]:
        out[size] = out.get(size, 0.0) + n / total
    rest = ranked[TOP_SIZES:]
    if rest:
        n_rest = sum(n for _, n in rest)
        mean = sum(size * n for size, n in rest) / n_rest
        low = max(512, math.floor(mean / 512) * 512)
        up = min(1.0, max(0.0, (mean - low) / 512))
        for size, weight in ((low, 1 - up), (low + 512, up)):
            if weight > 0:
                out[size] = out.get(size, 0.0) + weight * n_rest / total
    return [[size, float(f"{w:.9g}")] for size, w in sorted(out.items())]


def _name(text: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", text).strip("_") or "trace"


@dataclass(frozen=True)
class ImportedTrace:
    """What ``sanpath import`` wrote for a trace."""

    path: Path
    summary: Summary
    workload: Workload
    span: str
    notes: tuple[str, ...]
    text: str


def import_trace(
    path: str | Path,
    fmt: str,
    *,
    out: Path,
    into: str | Path | None = None,
    interval: str | None = None,
    map: Sequence[str] = (),
    options: TraceOptions = TraceOptions(),
    force: bool = False,
) -> ImportedTrace:
    """Read trace ``path`` (format ``fmt``) and write a scenario replaying it to ``out``
    (checked by the caller); see the module docstring. Nothing is written on error."""
    from sanpath.files import write_text

    path = Path(path)
    if fmt not in FORMATS:
        raise bad_file(str(path), None, None, "--format", f"{fmt!r} is not a trace format")
    summary, window, span = read_trace(path, fmt, interval, options)
    devices = list(summary.per_device)
    mapping = parse_map(map)
    if mapping and set(mapping) < set(devices):
        # the figures of the mapped devices only: the others are not replayed
        window = dataclasses.replace(window, devices=frozenset(mapping))
        summary = _summary(path, fmt, window)
    if into is not None:
        data, groups, placement = base_facts(into)
        luns, notes = assign(devices, mapping, groups, str(into))
        hosts: Any = [load_scenario(into).hosts[0].name]
    else:
        luns, notes = assign(devices, mapping, None, None)
        sizes = {d: max(GIB, -(-summary.top(d) // GIB) * GIB) for d in luns}
        data = placeholder(luns, sizes, out.stem)
        placement = Placement(hosts=1, lun_counts=dict.fromkeys(luns.values(), 1))
        hosts = "all"
    if not luns:
        raise bad_file(str(path), None, None, "--map", "no device of the trace is mapped")
    workload = _workload(path, fmt, out, summary, window, luns, hosts, options, span)
    if into is not None and placement.hosts > 1:
        notes.append(
            f"the trace is replayed by every host of host group {hosts[0]} (each one replays "
            "all of it)"
        )
    if len(luns) < len(devices):
        workload.comment += "\nonly the mapped devices are replayed"
    sample = _as_sample(summary, devices)
    points = measured_points([sample], "open" if options.outstanding is None else "closed")
    measured = Measured(str(path), fmt, warnings=())
    chosen = Chosen({}, span, window.start, window.end or math.nan)
    data["name"] = out.stem
    _run_section(data, summary.records)
    data = compose(measured, chosen, [workload], points, data, notes)
    text = dump(data)
    validate(text, out, out.resolve().parent)
    write_text(out, text, replace=force)
    return ImportedTrace(out, summary, workload, span, tuple(notes), text)


def _workload(
    path: Path,
    fmt: str,
    out: Path,
    s: Summary,
    window: Window,
    luns: Mapping[str, str],
    hosts: Any,
    options: TraceOptions,
    span: str,
) -> Workload:
    groups = list(dict.fromkeys(luns.values()))
    file = os.path.relpath(path.resolve(), out.resolve().parent)
    trace: dict[str, Any] = {"file": file, "format": fmt}
    if options.speed != 1.0:
        trace["speed"] = options.speed
    trace["map"] = dict(luns)
    if window.start:
        trace["start"] = float(f"{window.start:.9g}")
    if window.end is not None:
        trace["end"] = float(f"{window.end:.9g}")
    if options.columns:
        trace["columns"] = dict(options.columns)
    if options.time_unit is not None:
        trace["time_unit"] = options.time_unit
    data: dict[str, Any] = {"name": _name(path.name.split(".")[0]), "hosts": hosts, "luns": groups}
    lines = [f"Trace {path.name} ({fmt}): {span}.", *describe(s)]
    if options.outstanding is not None:
        data["outstanding"] = options.outstanding
        lines.append(
            f"closed loop (--outstanding): {options.outstanding} I/Os in flight per LUN, the "
            "records in trace order (their times are not used)"
        )
    else:
        if not math.isfinite(s.iops):
            raise bad_file(
                str(path),
                None,
                None,
                "--outstanding",
                "the trace records no arrival times (all records at one instant): replay it "
                "closed loop with --outstanding N",
            )
        data["rate"] = float(f"{s.iops * options.speed:.6g}")
        lines.append(
            "open loop: each record arrives at its recorded time"
            + (f" / speed {options.speed:g}" if options.speed != 1.0 else "")
            + "; rate (the trace's mean arrival rate) is what the analytic twin and sanpath "
            "check read"
        )
    data["read_fraction"] = float(f"{s.read_fraction:.6g}")
    if s.reads and s.writes:
        data["read_block_size"] = size_mix(s.read_sizes)
        data["write_block_size"] = size_mix(s.write_sizes)
    else:
        data["block_size"] = size_mix(s.read_sizes or s.write_sizes)
    random_share = 1.0 - s.sequential / s.records
    data["pattern"] = "random" if random_share >= 0.5 else "sequential"
    if 0.0 < random_share < 1.0:
        data["random_fraction"] = float(f"{random_share:.6g}")
    data["trace"] = trace
    lines.append(
        "read_fraction, the size mixes and random_fraction are the trace's own, for the "
        "analytic twin and sanpath check; the simulator replays every record as recorded"
    )
    return Workload(data, "\n".join(lines), list(luns))


WARMUP_SHARE = 10
"""The imported replay's warm-up: at most one record in this many (and at most 2,000)."""


def _run_section(data: Any, records: int) -> None:
    """A warm-up the trace can afford: the replay measures the rest of it."""
    from ruamel.yaml.comments import CommentedMap

    run = data.get("run")
    if not isinstance(run, dict):
        run = CommentedMap()
        keys = list(data)
        data.insert(keys.index("seed") + 1 if "seed" in keys else 1, "run", run)
    run["warmup_ios"] = min(2000, records // WARMUP_SHARE)
    data.yaml_set_comment_before_after_key(
        "run",
        before=wrap_comment(
            f"A trace run lasts as long as the trace: the first {run['warmup_ios']:,} of its "
            f"{records:,} records warm the path up, the rest are measured."
        ),
        indent=0,
    )


def _as_sample(s: Summary, devices: list[str]) -> Sample:
    """The trace's figures as one interval sample (for the measured reference points)."""
    iops = s.iops if math.isfinite(s.iops) else 0.0
    rf = s.read_fraction
    read_size = s.bytes_read / s.reads if s.reads else 0.0
    write_size = s.bytes_written / s.writes if s.writes else 0.0
    return Sample(
        device="+".join(devices),
        start=0.0,
        seconds=s.duration,
        read_iops=iops * rf,
        write_iops=iops * (1 - rf),
        read_bytes_per_s=iops * rf * read_size,
        write_bytes_per_s=iops * (1 - rf) * write_size,
        read_latency_s=s.read_response,
        write_latency_s=s.write_response,
    )
