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
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from sanpath.ingest.model import Measured, Sample, bad_file

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
    seconds = sum(s.seconds for s in samples)
    if seconds <= 0:
        seconds = float(len(samples))
        weights = [1.0] * len(samples)
    else:
        weights = [s.seconds for s in samples]

    def rate(get: Callable[[Sample], float]) -> float:
        return sum(get(s) * w for s, w in zip(samples, weights, strict=True)) / sum(weights)

    def weighted(
        get: Callable[[Sample], float | None], by: Callable[[Sample], float]
    ) -> float | None:
        pairs = [
            (value, by(s) * w)
            for s, w in zip(samples, weights, strict=True)
            if (value := get(s)) is not None and math.isfinite(value)
        ]
        total = sum(p[1] for p in pairs)
        if not pairs:
            return None
        if total <= 0:
            return sum(p[0] for p in pairs) / len(pairs)
        return sum(v * x for v, x in pairs) / total

    def timed(get: Callable[[Sample], float | None]) -> float | None:
        return weighted(get, lambda _s: 1.0)

    def ios(s: Sample) -> float:
        return s.iops

    first = samples[0]
    return Sample(
        device=first.device,
        start=min(s.start for s in samples),
        seconds=sum(s.seconds for s in samples),
        read_iops=rate(lambda s: s.read_iops),
        write_iops=rate(lambda s: s.write_iops),
        read_bytes_per_s=rate(lambda s: s.read_bytes_per_s),
        write_bytes_per_s=rate(lambda s: s.write_bytes_per_s),
        read_latency_s=weighted(lambda s: s.read_latency_s, lambda s: s.read_iops),
        write_latency_s=weighted(lambda s: s.write_latency_s, lambda s: s.write_iops),
        queue_length=timed(lambda s: s.queue_length),
        host=first.host,
        device_latency_s=weighted(lambda s: s.device_latency_s, ios),
        kernel_latency_s=weighted(lambda s: s.kernel_latency_s, ios),
        queue_latency_s=weighted(lambda s: s.queue_latency_s, ios),
        guest_latency_s=weighted(lambda s: s.guest_latency_s, ios),
        active=timed(lambda s: s.active),
        queued=timed(lambda s: s.queued),
        queue_depth=timed(lambda s: s.queue_depth),
        utilization=timed(lambda s: s.utilization),
    )


def choose(measured: Measured, interval: str = "peak-iops") -> Chosen:
    """Pick the span ``interval`` of ``measured`` and aggregate it per device.

    Raises
    ------
    ScenarioError
        Located at the file, for an ``interval`` that does not parse, a span with no samples
        or a file with no samples at all.
    """
    samples = measured.samples
    if not samples:
        raise bad_file(measured.source, None, None, "--interval", "the file holds no samples")
    first = min(s.start for s in samples)
    last = max(s.start + s.seconds for s in samples)
    text = interval.strip()
    if text in ("peak-iops", "peak-mb"):
        key: Callable[[Sample], float] = (
            (lambda s: s.iops) if text == "peak-iops" else (lambda s: s.bytes_per_s)
        )
        starts = _by_start(samples)
        best = max(starts, key=lambda t: (sum(key(s) for s in starts[t]), -t))
        chosen = starts[best]
        end = max(s.start + s.seconds for s in chosen)
        what = "IOPS" if text == "peak-iops" else "bytes per second"
        description = (
            f"{text}: the interval {_show(best - first)}..{_show(end - first)} s, the one of "
            f"{len(starts)} with the highest {what} summed over the devices"
        )
        return _chosen(chosen, description, best, end)
    if text == "mean":
        description = (
            f"mean: all {len(_by_start(samples))} interval(s), "
            f"{_show(0.0)}..{_show(last - first)} s (rates over time, latency per I/O)"
        )
        return _chosen(samples, description, first, last)
    lo, hi = parse_span(measured.source, text)
    hi = math.inf if hi is None else hi
    inside = [s for s in samples if lo - _EPS <= s.start - first < hi - _EPS]
    shown = f"{_show(lo)}..{'' if math.isinf(hi) else _show(hi)}"
    if not inside:
        raise bad_file(
            measured.source,
            None,
            None,
            "--interval",
            f"interval {shown} has no samples; the file covers "
            f"{_show(0.0)}..{_show(last - first)} s",
        )
    end = max(s.start + s.seconds for s in inside)
    description = (
        f"{shown}: {len(_by_start(inside))} interval(s) starting in that span, "
        f"{_show(min(s.start for s in inside) - first)}..{_show(end - first)} s from the first "
        "sample (rates over time, latency per I/O)"
    )
    return _chosen(inside, description, min(s.start for s in inside), end)


def _chosen(samples: Iterable[Sample], description: str, start: float, end: float) -> Chosen:
    per_device: dict[str, list[Sample]] = {}
    for s in samples:
        per_device.setdefault(s.device, []).append(s)
    return Chosen({d: aggregate(group) for d, group in per_device.items()}, description, start, end)


def _by_start(samples: Iterable[Sample]) -> dict[float, list[Sample]]:
    """Samples grouped by interval (start time, to the millisecond)."""
    out: dict[float, list[Sample]] = {}
    for s in samples:
        out.setdefault(round(s.start, 3), []).append(s)
    return out


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
