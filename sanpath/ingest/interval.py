"""Which span of a measurement file becomes the scenario: ``sanpath import --interval``.

* ``peak-iops``: the interval with the highest IOPS summed over the devices (the first such
  interval on a tie); ``peak-mb``: the same for bytes per second.
* ``mean``: every interval of the file, each device aggregated over all of its samples.
* ``START..END``: the samples that start in ``[START, END)``, both given as elapsed time
  from the first sample of the file: seconds (``300..400``), a duration with a unit
  (``5min..10min``) or ``[H:]MM:SS`` (``0:05:00..0:06:40``). Either end may be left out
  (``300..`` runs to the end). Samples carry no wall-clock time (readers keep only
  :attr:`~sanpath.ingest.model.Sample.start`), so a clock time of day is not accepted.

How samples of one device are aggregated over a span (:func:`aggregate`): rates (IOPS,
bytes per second) are time-weighted means, i.e. the I/Os (bytes) of the span over its
seconds; latencies are I/O-weighted means (read latency weighted by the reads, write latency
by the writes, esxtop's DAVG/KAVG/QAVG/GAVG by all I/Os), so they are what the mean I/O
saw; queue length, ACTV, QUED, DQLEN and utilisation are time-weighted means. A mean I/O
size is then bytes over I/Os (what :mod:`sanpath.ingest.workload` derives).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sanpath.ingest.model import Measured, Sample, bad_file
from sanpath.ingest.table import SampleTable, table_of

CHOICES = ("peak-iops", "peak-mb", "mean")
"""Named intervals (besides ``START..END``)."""

_EPS = 1e-6


@dataclass(frozen=True)
class Chosen:
    """The chosen span: one aggregated :class:`Sample` per device, and what was chosen."""

    samples: dict[str, Sample]
    description: str
    """For the scenario's comments, e.g. ``peak-iops: the interval 120..135 s``."""
    start: float
    end: float


def aggregate(samples: Sequence[Sample]) -> Sample:
    """One device's samples over a span as one :class:`Sample` (see the module notes)."""
    if not samples:
        raise ValueError("aggregate needs at least one sample")
    table = table_of(samples)
    return _aggregate(table, np.arange(len(table)))


def _aggregate(table: SampleTable, rows: np.ndarray) -> Sample:
    """The samples ``rows`` of ``table`` (one device's) as one :class:`Sample`."""

    def col(name: str) -> np.ndarray:
        values: np.ndarray = table.column(name)[rows]
        return values

    seconds = col("seconds")
    weights = seconds if seconds.sum() > 0 else np.ones(len(rows))

    def rate(name: str) -> float:
        return float((col(name) * weights).sum() / weights.sum())

    def weighted(name: str, by: np.ndarray) -> float | None:
        values = col(name)
        finite = np.isfinite(values)
        if not finite.any():
            return None
        values = values[finite]
        x = by[finite] * weights[finite]
        total = x.sum()
        if total <= 0:
            return float(values.mean())
        return float((values * x).sum() / total)

    reads, writes = col("read_iops"), col("write_iops")
    ios = reads + writes
    once = np.ones(len(rows))
    first = table[int(rows[0])]
    return Sample(
        device=first.device,
        start=float(col("start").min()),
        seconds=float(seconds.sum()),
        read_iops=rate("read_iops"),
        write_iops=rate("write_iops"),
        read_bytes_per_s=rate("read_bytes_per_s"),
        write_bytes_per_s=rate("write_bytes_per_s"),
        read_latency_s=weighted("read_latency_s", reads),
        write_latency_s=weighted("write_latency_s", writes),
        queue_length=weighted("queue_length", once),
        host=first.host,
        device_latency_s=weighted("device_latency_s", ios),
        kernel_latency_s=weighted("kernel_latency_s", ios),
        queue_latency_s=weighted("queue_latency_s", ios),
        guest_latency_s=weighted("guest_latency_s", ios),
        active=weighted("active", once),
        queued=weighted("queued", once),
        queue_depth=weighted("queue_depth", once),
        utilization=weighted("utilization", once),
    )


def choose(measured: Measured, interval: str = "peak-iops") -> Chosen:
    """Pick the span ``interval`` of ``measured`` and aggregate it per device.

    The samples are handled as columns (:class:`~sanpath.ingest.table.SampleTable`), so a
    file of millions of intervals costs a few arrays, not an object per sample.

    Raises
    ------
    ScenarioError
        Located at the file, for an ``interval`` that does not parse, a span with no samples
        or a file with no samples at all.
    """
    if not measured.samples:
        raise bad_file(measured.source, None, None, "--interval", "the file holds no samples")
    table = table_of(measured.samples)
    starts = table.column("start")
    ends = starts + table.column("seconds")
    first = float(starts.min())
    last = float(ends.max())
    # intervals: samples grouped by start time, to the millisecond
    keys, interval_of = np.unique(np.round(starts, 3), return_inverse=True)
    text = interval.strip()
    if text in ("peak-iops", "peak-mb"):
        names = ("read_iops", "write_iops")
        if text == "peak-mb":
            names = ("read_bytes_per_s", "write_bytes_per_s")
        value = table.column(names[0]) + table.column(names[1])
        totals = np.bincount(interval_of, weights=value, minlength=len(keys))
        index = int(np.argmax(totals))  # the earliest of the highest
        best = float(keys[index])
        rows = np.flatnonzero(interval_of == index)
        end = float(ends[rows].max())
        what = "IOPS" if text == "peak-iops" else "bytes per second"
        description = (
            f"{text}: the interval {_show(best - first)}..{_show(end - first)} s, the one of "
            f"{len(keys)} with the highest {what} summed over the devices"
        )
        return _chosen(table, rows, description, best, end)
    if text == "mean":
        description = (
            f"mean: all {len(keys)} interval(s), "
            f"{_show(0.0)}..{_show(last - first)} s (rates over time, latency per I/O)"
        )
        return _chosen(table, np.arange(len(table)), description, first, last)
    lo, hi = parse_span(measured.source, text)
    hi = math.inf if hi is None else hi
    since = starts - first
    rows = np.flatnonzero((lo - _EPS <= since) & (since < hi - _EPS))
    shown = f"{_show(lo)}..{'' if math.isinf(hi) else _show(hi)}"
    if not rows.size:
        raise bad_file(
            measured.source,
            None,
            None,
            "--interval",
            f"interval {shown} has no samples; the file covers "
            f"{_show(0.0)}..{_show(last - first)} s",
        )
    end = float(ends[rows].max())
    begin = float(starts[rows].min())
    description = (
        f"{shown}: {len(np.unique(interval_of[rows]))} interval(s) starting in that span, "
        f"{_show(begin - first)}..{_show(end - first)} s from the first "
        "sample (rates over time, latency per I/O)"
    )
    return _chosen(table, rows, description, begin, end)


def _chosen(
    table: SampleTable, rows: np.ndarray, description: str, start: float, end: float
) -> Chosen:
    """The samples ``rows`` of ``table`` aggregated per device, devices in order of first
    appearance."""
    devices = table.device_codes()[rows]
    codes, firsts = np.unique(devices, return_index=True)
    names = table.device_names
    per_device = {
        names[int(code)]: _aggregate(table, rows[devices == code])
        for code in codes[np.argsort(firsts)]
    }
    return Chosen(per_device, description, start, end)


def _show(seconds: float) -> str:
    return f"{seconds:.0f}" if abs(seconds - round(seconds)) < 1e-9 else f"{seconds:.3g}"


_CLOCK = re.compile(r"^(?:(\d+):)?(\d+):(\d+(?:\.\d*)?)$")


def _elapsed(source: str, text: str) -> float:
    from sanpath.units import UnitError, parse_duration

    text = text.strip()
    match = _CLOCK.match(text)
    if match:
        hours, minutes, seconds = match.groups()
        return int(hours or 0) * 3600 + int(minutes) * 60 + float(seconds)
    try:
        value = float(text)
    except ValueError:
        try:
            value = parse_duration(text)
        except UnitError:
            raise bad_file(
                source,
                None,
                None,
                "--interval",
                f"{text!r} is not a time: give seconds from the first sample (300), a "
                "duration (5min) or [H:]MM:SS; or one of " + ", ".join(CHOICES),
            ) from None
    if not math.isfinite(value) or value < 0:
        raise bad_file(source, None, None, "--interval", f"{text!r} must be 0 or more")
    return value


def parse_span(source: str, text: str) -> tuple[float, float | None]:
    """``START..END`` as (start, end or None) seconds; a located error naming ``source``."""
    if ".." not in text:
        raise bad_file(
            source,
            None,
            None,
            "--interval",
            f"{text!r} is not an interval: expected {', '.join(CHOICES)} or START..END "
            "(seconds from the first sample)",
        )
    left, right = text.split("..", 1)
    lo = _elapsed(source, left) if left.strip() else 0.0
    hi = _elapsed(source, right) if right.strip() else None
    if hi is not None and hi <= lo:
        raise bad_file(source, None, None, "--interval", f"{text!r}: END must be after START")
    return lo, hi
