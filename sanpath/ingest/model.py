"""What a measurement file says, in one shape for every tool that wrote it.

A reader (one module per format) turns a file into a :class:`Measured`: one
:class:`Sample` per device and interval, in SI units (per second, bytes, seconds), with the
columns it read. Picking the interval and turning samples into workloads is
:mod:`sanpath.ingest.workload`'s job; readers only read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sanpath.spec import Problem, ScenarioError

ADAPTER_PREFIX = "adapter:"
"""Device-name prefix of an HBA's counters (esxtop's Physical Disk Adapter object): they are
read, but not turned into workloads (their load is their disks')."""


@dataclass(frozen=True, slots=True)
class Sample:
    """Counters of one device over one interval (rates per second, bytes, seconds).

    ``start`` is seconds from the first sample of the file (0 for the first); ``seconds`` is
    the interval's length. Latencies are means per I/O as the tool reports them; None where
    the tool has no such counter.
    """

    device: str
    start: float
    seconds: float
    read_iops: float
    write_iops: float
    read_bytes_per_s: float
    write_bytes_per_s: float
    read_latency_s: float | None = None
    write_latency_s: float | None = None
    queue_length: float | None = None
    """Mean I/Os outstanding at the device (perfmon Avg. Disk Queue Length, iostat aqu-sz)."""
    host: str | None = None
    """The host the counter was taken on, where the file says."""
    device_latency_s: float | None = None
    """esxtop DAVG: time in the device (HBA, fabric, array) per command."""
    kernel_latency_s: float | None = None
    """esxtop KAVG: time in the VMkernel per command (includes QAVG)."""
    queue_latency_s: float | None = None
    """esxtop QAVG: time queued in the VMkernel per command."""
    guest_latency_s: float | None = None
    """esxtop GAVG: DAVG + KAVG, what the guest sees."""
    active: float | None = None
    """esxtop ACTV: commands active in the device (driver and beyond)."""
    queued: float | None = None
    """esxtop QUED: commands queued in the VMkernel."""
    queue_depth: float | None = None
    """esxtop DQLEN: the device queue depth."""
    utilization: float | None = None
    """Fraction of the interval the device was busy (iostat %util / 100)."""
    latency_p50_s: float | None = None
    """fio: the median latency (s) of the direction with more I/Os, where fio reports it."""
    latency_p99_s: float | None = None
    """fio: the 99th percentile latency (s) of the direction with more I/Os."""

    @property
    def iops(self) -> float:
        """Reads plus writes per second."""
        return self.read_iops + self.write_iops

    @property
    def bytes_per_s(self) -> float:
        """Bytes read plus written per second."""
        return self.read_bytes_per_s + self.write_bytes_per_s

    @property
    def read_fraction(self) -> float:
        """Share of I/Os that are reads (NaN without I/O)."""
        total = self.iops
        return self.read_iops / total if total > 0 else math.nan


@dataclass(frozen=True)
class JobSpec:
    """A load as fio describes it (a job file or the job options of a JSON result).

    Sizes in bytes, rates per second, times in seconds. ``block_sizes`` and
    ``write_block_sizes`` are ``(size, weight)`` mixes (weights sum to 1); the write mix is
    None when reads and writes share one.
    """

    name: str
    read_fraction: float
    random_fraction: float
    block_sizes: tuple[tuple[int, float], ...]
    write_block_sizes: tuple[tuple[int, float], ...] | None = None
    iodepth: int = 1
    numjobs: int = 1
    rate_iops: float | None = None
    """Total I/Os per second per job (fio ``rate_iops``, reads plus writes), or None."""
    poisson: bool = False
    """fio ``rate_process=poisson``: arrivals are Poisson rather than evenly spaced."""
    thinktime_s: float = 0.0
    ramp_time_s: float = 0.0
    runtime_s: float | None = None
    size: int | None = None
    offset: int = 0
    filenames: tuple[str, ...] = ()
    random_distribution: str = "random"
    """fio ``random_distribution`` as written (``random``, ``zipf:1.2``, ``zoned:60/10:...``)."""
    access: dict[str, Any] | None = None
    """The workload ``access`` mapping ``random_distribution`` stands for (None: uniform)."""
    percentage_random: tuple[float, float] = (1.0, 1.0)
    """fio ``percentage_random`` of reads and of writes as fractions (0 for sequential jobs)."""
    unsupported: tuple[str, ...] = ()
    """Options present in the job that sanpath cannot model (named in a warning)."""
    given: frozenset[str] = frozenset()
    """The options the job (or its global section) spelled out, by fio's own names (aliases
    such as ``blocksize`` read as ``bs``); the others took fio's defaults."""


@dataclass(frozen=True)
class Measured:
    """Everything read from one file.

    ``samples`` come from interval counters (perfmon, iostat, esxtop) or a fio result (one
    sample per job, the whole run as one interval); ``jobs`` from fio job files or the job
    options in a fio JSON result. ``columns`` maps each figure read to the column or key it
    came from (written into the scenario's comments).
    """

    source: str
    format: str
    samples: Sequence[Sample] = ()
    jobs: tuple[JobSpec, ...] = ()
    columns: dict[str, str] = field(default_factory=dict)
    warnings: tuple[str, ...] = ()

    @property
    def devices(self) -> list[str]:
        """Device names in order of first appearance."""
        names = getattr(self.samples, "device_names", None)  # a SampleTable knows them
        if names is not None:
            return list(names)
        seen: dict[str, None] = {}
        for s in self.samples:
            seen.setdefault(s.device, None)
        return list(seen)


def bad_file(
    source: str, line: int | None, column: int | None, where: str, message: str
) -> ScenarioError:
    """A located error about an input file: ``file:line:col where: message``.

    ``where`` names the column, key or option. The CLI prints it and exits with code 2.
    """
    return ScenarioError([Problem(source, line, column, where, message)])
