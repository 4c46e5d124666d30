"""Measured counters (or fio jobs) as scenario workloads and measured reference points.

From interval counters (:func:`from_samples`), each device, or each group of devices that
look alike (:func:`alike`), becomes one workload over the LUN groups they map to:

* **open loop by default**: ``rate`` is the measured IOPS. Interval counters record the load
  the application offered and the system carried; replaying that rate asks the model
  whether the modelled path carries it, and at what latency. A closed loop would instead make
  the model's throughput an output that depends on the (unknown) think time of the
  application. ``--load closed`` gives ``outstanding`` from the measured queue length
  (divided over the hosts and LUNs the workload covers; from Little's law, IOPS x latency,
  when the file has no queue length).
* ``read_fraction`` from the read and write counts;
* ``block_size`` a mix of the mean read size and the mean write size (bytes over I/Os),
  weighted by the read and write I/O counts and rounded to 512-byte sectors; where rounding
  would move a direction's mean by more than 0.5%, its size is split between the two
  neighbouring sector multiples with weights that keep the mean exact, so the scenario's
  mean size and MB/s reproduce the file's;
* ``pattern`` random unless the mean size is 128 KiB or more: the counters do not record
  addresses, and small I/Os on a shared array are mostly random while large ones are
  mostly streams.

From fio jobs (:func:`from_jobs`) the workload is what fio was told to do: ``outstanding`` =
iodepth, ``threads`` = numjobs, ``rate`` from ``rate_iops``, the block-size mix from
``bs``/``bssplit``. :func:`measured_points` turns the chosen span into ``role: measured``
reference points (totals over the devices).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sanpath.ingest.model import JobSpec, Sample
from sanpath.spec import MAX_IO_SIZE

SECTOR = 512
LARGE = 128 * 1024
"""Mean I/O size from which an imported workload is taken as sequential."""

ALIKE_READ_FRACTION = 0.05
ALIKE_SIZE = 0.10
ALIKE_IOPS = 0.20

OPEN_THROUGHPUT_TOLERANCE = 0.1
"""In an open loop the model carries the offered rate: throughput should match within
Poisson noise of a short run and sector rounding, unless the modelled path saturates."""
CLOSED_THROUGHPUT_TOLERANCE = 0.25
LATENCY_TOLERANCE = 0.25
"""Latency depends on the topology and its calibration, and interval counters average over
bursts the model's Poisson arrivals do not have: a wider band than throughput's."""


@dataclass
class Workload:
    """One workload as written into the scenario, with the comment written above it."""

    data: dict[str, Any]
    comment: str
    devices: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Placement:
    """Where the workloads run: hosts issuing them, LUNs per LUN group."""

    hosts: int
    lun_counts: Mapping[str, int]


def _round(value: float) -> float:
    return float(f"{value:.6g}")


def _direction(
    mean: float, share: float, out: dict[int, float], notes: list[str], what: str
) -> None:
    if share <= 0 or not math.isfinite(mean) or mean <= 0:
        return
    if mean > MAX_IO_SIZE:
        notes.append(f"mean {what} size {mean:.0f} B capped at {MAX_IO_SIZE} B")
        mean = float(MAX_IO_SIZE)
    nearest = max(SECTOR, round(mean / SECTOR) * SECTOR)
    if abs(nearest - mean) <= 0.005 * mean:
        out[nearest] = out.get(nearest, 0.0) + share
        return
    low = max(SECTOR, math.floor(mean / SECTOR) * SECTOR)
    high = low + SECTOR
    up = min(1.0, max(0.0, (mean - low) / SECTOR))
    for size, weight in ((low, 1 - up), (high, up)):
        if weight > 0:
            out[size] = out.get(size, 0.0) + share * weight


def size_mix(
    read_iops: float, write_iops: float, read_bps: float, write_bps: float
) -> tuple[list[list[float]], list[str]]:
    """The block-size mix ``[[size, weight], ...]`` for counters, and notes on capping.

    Reads at their mean size (bytes over I/Os) weighted by the share of reads, writes
    likewise; sizes in 512-byte sectors (see the module notes).
    """
    total = read_iops + write_iops
    notes: list[str] = []
    out: dict[int, float] = {}
    if total > 0:
        if read_iops > 0:
            _direction(read_bps / read_iops, read_iops / total, out, notes, "read")
        if write_iops > 0:
            _direction(write_bps / write_iops, write_iops / total, out, notes, "write")
    if not out:
        out[8192] = 1.0
    return [[size, _round(weight)] for size, weight in sorted(out.items())], notes


def mean_size(s: Sample) -> float:
    """Bytes per I/O (NaN without I/O)."""
    return s.bytes_per_s / s.iops if s.iops > 0 else math.nan


def alike(a: Sample, b: Sample) -> bool:
    """Same read fraction (+-0.05), mean sizes within 10% and IOPS within 20%."""
    if a.iops <= 0 or b.iops <= 0:
        return False
    if abs(a.read_fraction - b.read_fraction) > ALIKE_READ_FRACTION:
        return False
    sa, sb = mean_size(a), mean_size(b)
    if abs(sa - sb) > ALIKE_SIZE * max(sa, sb):
        return False
    return abs(a.iops - b.iops) <= ALIKE_IOPS * max(a.iops, b.iops)


def _total(samples: Sequence[Sample]) -> Sample:
    """Devices side by side as one: rates summed."""
    return Sample(
        device="+".join(s.device for s in samples),
        start=samples[0].start,
        seconds=samples[0].seconds,
        read_iops=sum(s.read_iops for s in samples),
        write_iops=sum(s.write_iops for s in samples),
        read_bytes_per_s=sum(s.read_bytes_per_s for s in samples),
        write_bytes_per_s=sum(s.write_bytes_per_s for s in samples),
    )


def _outstanding(samples: Sequence[Sample]) -> float | None:
    total = 0.0
    for s in samples:
        if s.queue_length is not None and math.isfinite(s.queue_length):
            total += s.queue_length
            continue
        latency = _latency(s)
        if latency is None:
            return None
        total += s.iops * latency
    return total


def _latency(s: Sample) -> float | None:
    parts = [(s.read_iops, s.read_latency_s), (s.write_iops, s.write_latency_s)]
    used = [(n, lat) for n, lat in parts if n > 0]
    if not used or any(lat is None for _, lat in used):
        return None
    return sum(n * (lat or 0.0) for n, lat in used) / sum(n for n, _ in used)


def _name(devices: Sequence[str]) -> str:
    return devices[0] if len(devices) == 1 else "+".join(devices)


def from_samples(
    samples: Mapping[str, Sample],
    luns: Mapping[str, str],
    placement: Placement,
    load: str = "open",
    merge: bool = True,
) -> list[Workload]:
    """Workloads for the devices of ``samples`` (those ``luns`` maps to a LUN group).

    Devices that look alike (:func:`alike`) become one workload over their LUN groups when
    ``merge``. ``load`` is ``open`` (rate) or ``closed`` (outstanding).

    Raises
    ------
    ValueError
        ``closed`` for a device with neither a queue length nor latencies.
    """
    groups: list[list[Sample]] = []
    for device, sample in samples.items():
        if device not in luns or sample.iops <= 0:
            continue
        for group in groups:
            if merge and alike(group[0], sample):
                group.append(sample)
                break
        else:
            groups.append([sample])
    workloads = []
    for group in groups:
        devices = [s.device for s in group]
        total = _total(group)
        mix, notes = size_mix(
            total.read_iops, total.write_iops, total.read_bytes_per_s, total.write_bytes_per_s
        )
        lun_groups = list(dict.fromkeys(luns[d] for d in devices))
        size = mean_size(total)
        data: dict[str, Any] = {"name": _name(devices), "hosts": "all", "luns": lun_groups}
        lines = [
            f"{', '.join(devices)}: {total.iops:.6g} IOPS, {total.bytes_per_s / 1e6:.4g} MB/s, "
            f"{100 * total.read_fraction:.1f}% reads, mean size {size:.0f} B"
        ]
        if len(group) > 1:
            lines.append(
                f"{len(group)} devices that look alike (read fraction within "
                f"{ALIKE_READ_FRACTION}, mean sizes within {ALIKE_SIZE:.0%}, IOPS within "
                f"{ALIKE_IOPS:.0%}) merged into one workload, spread evenly over their LUNs"
            )
        if load == "closed":
            queue = _outstanding(group)
            if queue is None:
                raise ValueError(
                    f"--load closed: device {devices[0]} has neither a queue length nor "
                    "latencies to take the outstanding I/Os from; use --load open"
                )
            luns_covered = sum(placement.lun_counts.get(g, 1) for g in lun_groups)
            per_lun = queue / (max(1, placement.hosts) * max(1, luns_covered))
            data["threads"] = 1
            data["outstanding"] = max(1, round(per_lun))
            lines.append(
                f"closed loop (--load closed): outstanding = measured queue length {queue:.3g} "
                f"over {placement.hosts} host(s) x {luns_covered} LUN(s), rounded"
            )
        else:
            data["rate"] = _round(total.iops / max(1, placement.hosts))
            lines.append(
                "open loop: rate = the measured IOPS (per host, over "
                f"{placement.hosts} host(s)), the load the application offered, which the "
                "modelled path must carry"
            )
        data["read_fraction"] = _round(total.read_fraction)
        data["block_size"] = mix
        large = size >= LARGE
        data["pattern"] = "sequential" if large else "random"
        lines.append(
            f"block_size: mean read and write sizes in 512 B sectors, weighted by I/O counts; "
            f"pattern {data['pattern']} because the mean size is "
            f"{'at least' if large else 'under'} 128 KiB (counters do not record addresses)"
        )
        lines += notes
        workloads.append(Workload(data, "\n".join(lines), devices))
    return workloads


def _mix(sizes: Sequence[tuple[int, float]]) -> list[list[float]]:
    """A ``(size, weight)`` mix as written in a scenario, sizes in order."""
    return [[size, _round(w)] for size, w in sorted(sizes) if w > 0]


def from_jobs(
    jobs: Sequence[JobSpec], luns: Mapping[str, str], placement: Placement
) -> list[Workload]:
    """One workload per fio job (those ``luns`` maps to a LUN group), as fio was told to run."""
    workloads = []
    for job in jobs:
        if job.name not in luns:
            continue
        notes = [f"fio job {job.name}"]
        rf = job.read_fraction
        data: dict[str, Any] = {"name": job.name, "hosts": "all", "luns": [luns[job.name]]}
        data["threads"] = job.numjobs
        if job.rate_iops is not None:
            data["rate"] = _round(job.rate_iops * job.numjobs / max(1, placement.hosts))
            notes.append(
                f"open loop: rate = rate_iops x numjobs ({job.rate_iops:g} x {job.numjobs})"
                + ("" if job.poisson else "; fio spaced them evenly, the model's are Poisson")
            )
        else:
            data["outstanding"] = job.iodepth
            notes.append("closed loop: outstanding = iodepth, threads = numjobs")
        data["read_fraction"] = _round(rf)
        data["block_size"] = _mix(job.block_sizes)
        if job.write_block_sizes is not None and 0 < rf < 1:
            data["write_block_size"] = _mix(job.write_block_sizes)
            notes.append("bssplit per direction: block_size for reads, write_block_size for writes")
        share = job.random_fraction
        data["pattern"] = "random" if share > 0 else "sequential"
        if 0 < share < 1:
            data["random_fraction"] = _round(share)
            read_p, write_p = job.percentage_random
            if 0 < rf < 1 and read_p != write_p:
                notes.append(
                    f"percentage_random {100 * read_p:.0f}/{100 * write_p:.0f} for reads/writes: "
                    "random_fraction is their mix, weighted by the read fraction"
                )
        if job.access is not None:
            if share > 0:
                data["access"] = job.access
            else:
                notes.append(
                    f"random_distribution {job.random_distribution}: the job is sequential"
                )
        if job.thinktime_s > 0:
            if "rate" in data:
                notes.append(
                    f"thinktime {job.thinktime_s:g} s left out: the open loop's rate paces it"
                )
            else:
                data["think_time"] = f"{job.thinktime_s * 1e6:.6g}us"
                notes.append("think_time = thinktime, after every completed I/O of each slot")
        if job.unsupported:
            notes.append("options not modelled: " + ", ".join(job.unsupported))
        workloads.append(Workload(data, "\n".join(notes), [job.name]))
    return workloads


def measured_points(samples: Sequence[Sample], load: str = "open") -> list[dict[str, Any]]:
    """``role: measured`` reference points: totals over ``samples`` (one per device)."""
    if not samples:
        return []
    total = _total(samples)
    throughput = OPEN_THROUGHPUT_TOLERANCE if load == "open" else CLOSED_THROUGHPUT_TOLERANCE
    points = []

    def point(label: str, metric: str, value: float, tolerance: float) -> None:
        if math.isfinite(value) and value > 0:
            points.append(
                {
                    "label": label,
                    "set": {},
                    "metric": metric,
                    "value": _round(value),
                    "role": "measured",
                    "tolerance": tolerance,
                }
            )

    point("measured IOPS", "iops", total.iops, throughput)
    point("measured MB/s", "mb_per_s", total.bytes_per_s / 1e6, throughput)
    esx = _esxtop_note(samples)
    means: dict[str, tuple[float, float]] = {}
    for what in ("read", "write"):
        pairs = [
            (getattr(s, f"{what}_iops"), getattr(s, f"{what}_latency_s"))
            for s in samples
            if getattr(s, f"{what}_iops") > 0
        ]
        if pairs and all(lat is not None for _, lat in pairs):
            n = sum(c for c, _ in pairs)
            means[what] = (n, sum(c * (lat or 0.0) for c, lat in pairs) / n)
    for what, (_, mean) in means.items():
        point(
            f"measured {what} latency{esx}",
            f"{what}_latency_ms_mean",
            1e3 * mean,
            LATENCY_TOLERANCE,
        )
    directions = [d for d, n in (("read", total.read_iops), ("write", total.write_iops)) if n > 0]
    if directions and all(d in means for d in directions):
        n = sum(means[d][0] for d in directions)
        mean = sum(means[d][0] * means[d][1] for d in directions) / n
        point(f"measured latency{esx}", "latency_ms_mean", 1e3 * mean, LATENCY_TOLERANCE)
    return points


def _esxtop_note(samples: Sequence[Sample]) -> str:
    """`` (DAVG 1.2 ms + KAVG 0.05 ms)`` where esxtop gave them, else empty."""
    parts = []
    for name, attribute in (("DAVG", "device_latency_s"), ("KAVG", "kernel_latency_s")):
        pairs = [
            (s.iops, getattr(s, attribute))
            for s in samples
            if getattr(s, attribute) is not None and s.iops > 0
        ]
        if pairs:
            n = sum(c for c, _ in pairs)
            value = sum(c * (v or 0.0) for c, v in pairs) / n if n else math.nan
            parts.append(f"{name} {1e3 * value:.3g} ms")
    return f" ({' + '.join(parts)})" if parts else ""
