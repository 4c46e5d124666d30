"""What a run will cost, estimated before it starts: peak memory and wall time.

A scenario that validates can still be impossible to run: ten million hosts, a trillion
I/Os, an open loop offered a million times what the array can carry. :func:`estimate` counts
what ``sanpath.sim.topology`` and the engine would build and how many events the run would
process, from the validated scenario alone (no simulation, well under a millisecond per host
group); :func:`check` refuses a run beyond :data:`MAX_MEMORY_BYTES` (or the memory the
machine has available) or :data:`MAX_SECONDS`, with a :class:`~sanpath.spec.scenario.ScenarioError`
located at the field that drives the estimate (``hosts.0.count``, ``run.ios``,
``run.max_ios``, ``workloads.0.rate``, ...) and naming the override: ``--force`` on the
command line, ``force=True`` in Python.

**What is counted.**

* **Topology.** Host instances (``hosts.N.count``), their HBA ports, and paths: for every
  host, every LUN its workloads use and every (HBA port, array port) pair the zoning and
  the LUN's ports allow (each path has its own host queue). LUNs and drives.
* **Processes.** A closed loop keeps one SimPy process per outstanding I/O: hosts x LUNs x
  threads x outstanding. An open loop has one arrival process per host and one process per
  I/O in flight: by Little's law the rate times the latency while the load is below the
  path's capacity; beyond it the backlog grows for the whole run.
* **Run length.** ``run.ios``; ``run.max_ios`` for a run that stops on precision (the cap: the
  worst case); ``run.duration`` times an IOPS guess for a fixed simulated time; plus
  ``run.warmup_ios`` (an auto warm-up may add more, up to ``run.max_ios``); at most what
  ``run.max_time`` allows. Schedules count at their largest ``outstanding`` and ``rate``.
* **Work per I/O.** Commands per I/O (splits at ``min(max_io_size, max_transfer)``, the
  write side of a copy job) and drive operations per I/O (stripe elements touched, the RAID
  write penalty, read hits skipped).

The IOPS guess is the smaller of what the load offers (the closed-loop population over the
unloaded latency, or the open-loop rate) and a capacity bound (drives with their RAID
penalty and read hits, controller cores, front-end ports, host links): optimistic on
purpose, so that only a load far beyond anything the path can carry counts as overload.

**Calibration.** Measured with ``sanpath.sim.engine.run(..., trace_memory=True)`` (peak traced
bytes) and ``result.wall_seconds`` on the compiled core at commit 1565cd4, on one core of a
shared 2-core machine (timings vary by about 30% from run to run):

* Memory, from short runs of the quickstart (1 host, 8 LUNs, 2 HBA ports x 4 array ports,
  queue limits off so nothing is refused): 1, 10, 100 and 1,000 hosts peaked at 1.2, 8.2, 78
  and 770 MB (0.77 MB per host: 64 paths, 8 sources, 64 processes); 8 to 4,096 outstanding
  per LUN added 1.6 kB per process; 1 to 64 threads 69 kB per source and process; 8 to 800
  LUNs 87 kB per LUN (8 paths, 1 source, 1 process); 1 to 16 HBA ports 1.9 kB per path; 6 to
  600 RAID groups 1.4 kB per drive; open loops of 100,000 and 400,000 I/O per s against a
  path that carries 16,000 held 12,000 and 48,000 I/Os in flight at 22 and 78 MB (1.6 kB
  each). vi_queue_depth_2012 grew by 230 bytes per write its 2 GiB write-back cache kept
  dirty (13 MB after 10 s, 45 MB after 40 s). The shipped scenarios peak at 0.9
  (qd_sweep_2007) to 19 MB (hpux_max_q_depth) traced, in a process of about 150 MB resident
  with sanpath and its libraries imported (:data:`BASE_BYTES`).
* Time, from the shipped scenarios (fixed ``run.ios``; vi_queue_depth_2012 for 30 s) and
  four variants of the quickstart (70% writes, writes without cache, 256 KiB and 1 MiB
  sequential): a fit weighted by relative error gives 19.5 us per command and 1.1 us per
  drive operation, within 0.4 to 1.3 times every measured run (quickstart 16 us per I/O,
  backup_2013 93 us, split_and_unbalanced 390 us with 8 commands per I/O). Runs swamped by
  QUEUE FULL retries cost more than counted (fan_in 30 us, oversubscribed_port 142 us per
  I/O); building cost 50 us per path, source and process at 1,000 hosts (superlinear: the
  garbage collector walks every object). The pure-Python core is 2.5 to 3 times slower.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Final

from sanpath.sim.control import UNSTABLE_MIN_IOS, UNSTABLE_WINDOW
from sanpath.spec import (
    HddSpec,
    HostSpec,
    PoolSpec,
    Problem,
    Scenario,
    ScenarioError,
    SsdSpec,
    WorkloadSpec,
    locate_field,
    lun_groups_used,
    visible_ports,
)
from sanpath.units import format_duration

__all__ = [
    "MAX_MEMORY_BYTES",
    "MAX_SECONDS",
    "Estimate",
    "available_memory",
    "check",
    "estimate",
]

# -- limits --------------------------------------------------------------------------------

MAX_MEMORY_BYTES: Final = 8e9
"""Refuse a run estimated to need more memory than this, bytes (8 GB)."""
MEMORY_SHARE: Final = 0.9
"""... or more than this share of the memory the machine has available right now."""
MAX_SECONDS: Final = 3600.0
"""Refuse a run estimated to take longer than this, wall seconds (1 hour)."""

# -- calibrated constants ------------------------------------------------------------------

BASE_BYTES: Final = 150e6
"""Resident memory of a Python process with sanpath and its libraries imported, bytes."""
BYTES_PER_HOST: Final = 9e3
"""A host instance with its HBA cards, CPU servers, links and samplers, bytes."""
BYTES_PER_PATH: Final = 1.9e3
"""One path (route, its host queue and HBA slot pool), bytes."""
BYTES_PER_SOURCE: Final = 67e3
"""One I/O source (a workload thread on one host and LUN, with its random stream), bytes."""
BYTES_PER_PROCESS: Final = 1.6e3
"""One closed-loop SimPy process (generator and pending event), bytes."""
BYTES_PER_IN_FLIGHT: Final = 1.7e3
"""One open-loop I/O in flight (its process, command and queued request), bytes."""
BYTES_PER_LUN: Final = 3e3
"""One LUN (its queue and cache state), bytes."""
BYTES_PER_DRIVE: Final = 1.4e3
"""One drive (its server, command queue and positioning state), bytes."""
BYTES_PER_DIRTY_WRITE: Final = 230.0
"""One write held dirty in a write-back cache, bytes."""
BYTES_PER_INTERVAL: Final = 2e3
"""One interval of the time series (``run.record_interval``), bytes."""

SECONDS_PER_COMMAND: Final = 19.5e-6
"""Wall time per command sent down the path, seconds."""
SECONDS_PER_DRIVE_OP: Final = 1.1e-6
"""Wall time per drive operation (a stripe element read or written), seconds."""
SECONDS_PER_ARRIVAL: Final = 30e-6
"""Wall time per open-loop arrival that only joins a backlog, seconds."""
SECONDS_PER_BUILT: Final = 50e-6
"""Wall time to build one path or source, or to start one process, seconds."""
SECONDS_PER_INTERVAL: Final = 1e-3
"""Wall time per time-series interval (every station is sampled), seconds."""

HDD_QUEUE_GAIN: Final = 2.0
"""How much a deep SPTF queue can raise a hard disk's random IOPS over FIFO (optimistic)."""
RAID_WRITE_OPS: Final = {"raid0": 1, "raid1": 2, "raid10": 2, "raid5": 4, "raid6": 6}
"""Drive operations per element of a small random write (the RAID write penalty)."""


@dataclass(frozen=True)
class Estimate:
    """What one run of a scenario is expected to cost, and what drives it.

    Memory in bytes, time in wall seconds; counts are whole-run totals.
    """

    hosts: int
    paths: int
    luns: int
    drives: int
    processes: int
    in_flight: float
    iops: float
    ios: float
    arrivals: float
    commands_per_io: float
    drive_ops_per_io: float
    memory_bytes: float
    seconds: float
    memory_field: str
    seconds_field: str
    length: str
    """How the run's length was counted, e.g. ``run.max_ios = 2,000,000 (precision cap)``."""
    parts: dict[str, float] = field(default_factory=dict)

    def text(self) -> str:
        """One line: memory, time, and the counts behind them."""
        flight = f", {self.in_flight:,.0f} open-loop I/Os in flight" if self.in_flight else ""
        counts = ", ".join(
            _count(n, what)
            for n, what in (
                (self.hosts, "host"),
                (self.paths, "path"),
                (self.luns, "LUN"),
                (self.drives, "drive"),
                (self.processes, "I/O process"),
            )
        )
        return (
            f"about {_bytes(self.memory_bytes)} of memory and {format_duration(self.seconds)} "
            f"of wall time ({counts}{flight}; {self.ios:,.0f} I/Os at about "
            f"{self.iops:,.0f} I/O per simulated s, {_count(self.commands_per_io, 'command')} "
            f"each; {self.length})"
        )


def _count(n: float, what: str) -> str:
    """``1 host``, ``64 paths``, ``2.5 commands``."""
    number = f"{int(n):,}" if n == int(n) else f"{n:,.3g}"
    plural = "" if n == 1 else ("es" if what.endswith("s") else "s")
    return f"{number} {what}{plural}"


def _bytes(n: float) -> str:
    return f"{n / 1e9:,.3g} GB" if n >= 1e9 else f"{n / 1e6:,.3g} MB"


def available_memory() -> float | None:
    """Memory the machine has available now (MemAvailable on Linux), bytes; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024.0
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


# -- the path's capacity (an optimistic IOPS bound) -------------------------------------------


def _drive_busy(pool: PoolSpec, size: float, sequential: bool) -> float:
    """Seconds one drive operation of ``size`` bytes keeps a drive of ``pool`` busy."""
    drive = pool.drive
    if isinstance(drive, HddSpec):
        media = (drive.media_rate_outer + drive.media_rate_inner) / 2.0
        positioning = 0.0 if sequential else drive.average_seek + 30.0 / drive.rpm
        return (positioning + drive.overhead) / HDD_QUEUE_GAIN + size / media
    if isinstance(drive, SsdSpec):
        return max(drive.read_time / drive.units, size / drive.bandwidth)
    return drive.service.mean_s / drive.servers


def _pool_of(s: Scenario, w: WorkloadSpec) -> tuple[PoolSpec, float]:
    """The pool the workload's first LUN group lives on, and that group's read-hit fraction."""
    groups = [g for g in s.array.luns if w.luns == "all" or g.name in w.luns]
    group = groups[0]
    pool = next(p for p in s.array.pools if p.name == group.pool)
    hit = s.array.cache.read_hit if group.read_hit is None else group.read_hit
    return pool, hit


def _per_io(s: Scenario, w: WorkloadSpec, host: HostSpec) -> tuple[float, float, float, float]:
    """Commands, drive operations, drive-busy seconds and unloaded latency (s) per I/O."""
    limits = [x for x in (host.max_io_size, *(h.max_transfer for h in host.hbas)) if x]
    split = min(limits) if limits else None
    copies = 1.0 + (w.copy_to.ratio if w.copy_to is not None else 0.0)
    pool, hit = _pool_of(s, w)
    sequential = w.pattern == "sequential"
    commands = ops = busy = 0.0
    for size, weight in w.block_size:
        pieces = math.ceil(size / split) if split else 1
        commands += weight * pieces * copies
        elements = min(math.ceil(size / pool.stripe_element), pool.data_drives * pool.groups)
        op_size = size / elements
        reads = w.read_fraction * (1.0 - hit) * elements
        writes = (1.0 - w.read_fraction) * elements
        writes *= pool.drives / pool.data_drives if sequential else RAID_WRITE_OPS[pool.raid]
        writes += (copies - 1.0) * elements * pool.drives / pool.data_drives
        ops += weight * (reads + writes)
        busy += weight * (reads + writes) * _drive_busy(pool, op_size, sequential)
    hba = host.hbas[0]
    cache = s.array.cache
    link = min(x for x in (hba.speed, s.array.port_speed, math.inf) if x is not None)
    one_op = _drive_busy(pool, min(w.mean_block_size, pool.stripe_element), sequential)
    read = (1.0 - hit) * one_op + hit * cache.hit_time
    write_time = cache.hit_time if cache.write_time is None else cache.write_time
    write = write_time if cache.write_back else 2.0 * one_op
    latency = (
        host.io_time.mean_s
        + (hba.command_time.mean_s + s.array.controller.io_time.mean_s) * commands
        + w.mean_block_size * copies / link
        + w.read_fraction * read
        + (1.0 - w.read_fraction) * write
    )
    return commands, ops, busy, latency


def _capacity(s: Scenario, w: WorkloadSpec, hosts: int, host: HostSpec) -> float:
    """An optimistic bound on the I/O per second workload ``w`` alone can get, 1/s."""
    commands, _, busy, _ = _per_io(s, w, host)
    pool, _ = _pool_of(s, w)
    drives = sum(p.drives * p.groups for p in s.array.pools if p.name == pool.name)
    bounds = [drives / busy if busy > 0 else math.inf]
    controller = s.array.controller
    if controller.io_time.mean_s > 0:
        bounds.append(controller.cores / (controller.io_time.mean_s * commands))
    size = w.mean_block_size * (1.0 + (w.copy_to.ratio if w.copy_to is not None else 0.0))
    if s.array.port_speed is not None:
        bounds.append(2.0 * s.array.ports * s.array.port_speed / size)
    if controller.bandwidth is not None:
        bounds.append(controller.bandwidth / size)
    speeds = [h.speed * h.count * h.ports for h in host.hbas if h.speed is not None]
    if len(speeds) == len(host.hbas):
        bounds.append(2.0 * hosts * sum(speeds) / size)
    return min(bounds)


# -- counting ------------------------------------------------------------------------------


def _largest(factors: Iterable[tuple[float, str]]) -> str:
    """The field of the largest factor of a product."""
    return max(factors, key=lambda f: f[0])[1]


def _schedule_max(s: Scenario, wi: int, key: str, value: float) -> float:
    """The largest value ``workloads.wi.key`` takes, counting the schedule."""
    pattern = re.compile(rf"workloads\.({wi}|\*)\.{key}")
    for change in s.schedule:
        for name, new in change.set.items():
            if pattern.fullmatch(name) and isinstance(new, int | float):
                value = max(value, float(new))
    return value


@dataclass(frozen=True)
class _Load:
    """One workload, counted: what it builds and what it asks of the path."""

    sources: int
    """I/O sources (one random stream each): hosts x LUNs x threads."""
    processes: int
    """Closed-loop processes (hosts x LUNs x threads x outstanding), or arrival processes."""
    offered: float
    """I/O per second the load asks for (closed loop: population over unloaded latency)."""
    capacity: float
    latency: float
    commands: float
    ops: float
    field: str
    """The field that scales its processes (closed) or its rate (open)."""


def _load(s: Scenario, wi: int, w: WorkloadSpec) -> _Load:
    host_ids = [i for i, h in enumerate(s.hosts) if w.hosts == "all" or h.name in w.hosts]
    lun_ids = [i for i, g in enumerate(s.array.luns) if w.luns == "all" or g.name in w.luns]
    n_hosts = sum(s.hosts[i].count for i in host_ids)
    n_luns = sum(s.array.luns[i].count for i in lun_ids)
    host = s.hosts[host_ids[0]]
    commands, ops, _, latency = _per_io(s, w, host)
    capacity = _capacity(s, w, n_hosts, host)
    top_host = max(host_ids, key=lambda i: s.hosts[i].count)
    top_lun = max(lun_ids, key=lambda i: s.array.luns[i].count)
    factors = [
        (float(s.hosts[top_host].count), f"hosts.{top_host}.count"),
        (float(s.array.luns[top_lun].count), f"array.luns.{top_lun}.count"),
        (float(w.threads), f"workloads.{wi}.threads"),
    ]
    if w.closed:
        outstanding = int(_schedule_max(s, wi, "outstanding", float(w.outstanding_per_lun)))
        sources, processes = (
            n_hosts * n_luns * w.threads,
            n_hosts * n_luns * w.threads * outstanding,
        )
        offered = processes / latency if latency > 0 else math.inf
        where = _largest([*factors, (float(outstanding), f"workloads.{wi}.outstanding")])
    else:
        sources, processes, where = n_hosts * n_luns, n_hosts, f"workloads.{wi}.rate"
        offered = _schedule_max(s, wi, "rate", w.rate or 0.0) * n_hosts
    return _Load(sources, processes, offered, capacity, latency, commands, ops, where)


def _paths(s: Scenario) -> tuple[int, str]:
    """Paths over every host instance, and the field that scales the most of them."""
    lun_field = _largest(
        (float(g.count), f"array.luns.{i}.count") for i, g in enumerate(s.array.luns)
    )
    total, most, where = 0, -1, lun_field
    for i, host in enumerate(s.hosts):
        visible = [set(ports) for ports in visible_ports(s, host)]
        per_host = 0
        for name in lun_groups_used(s, host.name):
            group = next(g for g in s.array.luns if g.name == name)
            shown = set(range(s.array.ports)) if group.ports == "all" else set(group.ports)
            per_host += group.count * sum(len(seen & shown) for seen in visible)
        total += host.count * per_host
        if host.count * per_host > most:
            most = host.count * per_host
            luns = max(g.count for g in s.array.luns)
            where = f"hosts.{i}.count" if host.count >= luns else lun_field
    return total, where


def _run_length(s: Scenario, iops: float) -> tuple[float, float, str, str]:
    """Measured I/Os, warm-up I/Os, the field that sets the length, and how it was counted."""
    run = s.run
    if run.ios is not None:
        measured, where, how = float(run.ios), "run.ios", f"run.ios = {run.ios:,}"
    elif run.duration is not None:
        measured = run.duration * iops
        where = "run.duration"
        how = f"run.duration = {format_duration(run.duration)} at the IOPS guess"
    else:
        measured, where = float(run.max_ios), "run.max_ios"
        how = f"run.max_ios = {run.max_ios:,}, the cap of a run that stops on precision"
    warmup = float(run.warmup_ios)
    if run.max_time is not None and iops > 0:
        allowed = run.max_time * iops
        if measured + warmup > allowed:
            measured, warmup = max(allowed - warmup, 0.0), min(warmup, allowed)
            where, how = "run.max_time", f"{how}, cut by run.max_time"
    if warmup > measured:
        where = "run.warmup_ios"
    return measured, warmup, where, how


def estimate(s: Scenario) -> Estimate:
    """Estimate the peak memory (bytes) and wall time (s) of one run of ``s``."""
    memory: dict[str, tuple[float, str]] = {}
    seconds: dict[str, tuple[float, str]] = {}
    hosts = sum(h.count for h in s.hosts)
    memory["hosts"] = (
        hosts * BYTES_PER_HOST,
        _largest((float(h.count), f"hosts.{i}.count") for i, h in enumerate(s.hosts)),
    )
    paths, path_field = _paths(s)
    memory["paths"] = (paths * BYTES_PER_PATH, path_field)
    seconds["paths"] = (paths * SECONDS_PER_BUILT, path_field)
    luns = sum(g.count for g in s.array.luns)
    memory["luns"] = (
        luns * BYTES_PER_LUN,
        _largest((float(g.count), f"array.luns.{i}.count") for i, g in enumerate(s.array.luns)),
    )
    drives = sum(p.drives * p.groups for p in s.array.pools)
    memory["drives"] = (
        drives * BYTES_PER_DRIVE,
        _largest((float(p.groups), f"array.pools.{i}.groups") for i, p in enumerate(s.array.pools)),
    )

    loads = [_load(s, wi, w) for wi, w in enumerate(s.workloads)]
    for wi, load in enumerate(loads):
        built = load.sources + load.processes
        memory[f"sources{wi}"] = (
            load.sources * BYTES_PER_SOURCE + load.processes * BYTES_PER_PROCESS,
            load.field,
        )
        seconds[f"build{wi}"] = (built * SECONDS_PER_BUILT, load.field)
    got = [min(load.offered, load.capacity) for load in loads]
    total = sum(got)
    iops = min(total, max(load.capacity for load in loads))
    commands = sum(g * load.commands for g, load in zip(got, loads, strict=True))
    ops = sum(g * load.ops for g, load in zip(got, loads, strict=True))
    commands_per_io = commands / total if total > 0 else 1.0
    ops_per_io = ops / total if total > 0 else 0.0

    measured, warmup, length_field, how = _run_length(s, iops)
    ios = measured + warmup
    sim_seconds = ios / iops if iops > 0 else 0.0
    if s.run.duration is not None:
        sim_seconds = s.run.duration + (warmup / iops if iops > 0 else 0.0)
    if s.run.max_time is not None:
        sim_seconds = min(sim_seconds, s.run.max_time)
    per_io = SECONDS_PER_COMMAND * commands_per_io + SECONDS_PER_DRIVE_OP * ops_per_io
    seconds["run"] = (ios * per_io, length_field)
    writes = [g * (1.0 - w.read_fraction) for g, w in zip(got, s.workloads, strict=True)]
    if s.array.cache.write_back and sum(writes) > 0:  # dirty writes held until destaged
        written = sum(x * w.mean_block_size for x, w in zip(writes, s.workloads, strict=True))
        dirty = min(s.array.cache.write_back * sum(writes) / written, ios * sum(writes) / total)
        memory["cache"] = (dirty * BYTES_PER_DIRTY_WRITE, "array.cache.write_back")

    in_flight = arrivals = 0.0
    for wi, (w, load) in enumerate(zip(s.workloads, loads, strict=True)):
        if w.closed:
            continue
        if load.offered <= load.capacity:  # Little's law, with the queueing of the load
            busy = load.offered / load.capacity if load.capacity > 0 else 0.0
            flight = load.offered * load.latency / max(1.0 - busy, 0.05)
            late = 0.0
        else:  # the backlog grows until the run ends; every arrival is an event
            horizon = sim_seconds
            if s.run.warmup == "auto" and not s.schedule:
                # an automatic warm-up stops an open loop that cannot keep up early
                # (sanpath.sim.control): a few times the arrivals it watches for, then a short
                # measured window
                horizon = min(
                    horizon,
                    4 * UNSTABLE_MIN_IOS / load.offered + UNSTABLE_WINDOW / load.capacity,
                )
            flight = (load.offered - load.capacity) * horizon
            late = load.offered * horizon
        in_flight += flight
        arrivals += late
        memory[f"flight{wi}"] = (flight * BYTES_PER_IN_FLIGHT, load.field)
        seconds[f"arrivals{wi}"] = (late * SECONDS_PER_ARRIVAL, load.field)
    if s.run.record_interval is not None:
        intervals = sim_seconds / s.run.record_interval
        memory["series"] = (intervals * BYTES_PER_INTERVAL, "run.record_interval")
        seconds["series"] = (intervals * SECONDS_PER_INTERVAL, "run.record_interval")
    return Estimate(
        hosts=hosts,
        paths=paths,
        luns=luns,
        drives=drives,
        processes=sum(load.processes for load in loads),
        in_flight=in_flight,
        iops=iops,
        ios=ios,
        arrivals=arrivals,
        commands_per_io=commands_per_io,
        drive_ops_per_io=ops_per_io,
        memory_bytes=BASE_BYTES + sum(b for b, _ in memory.values()),
        seconds=sum(t for t, _ in seconds.values()),
        memory_field=max(memory.values(), key=lambda m: m[0])[1],
        seconds_field=max(seconds.values(), key=lambda t: t[0])[1],
        length=how,
        parts={k: v for k, (v, _) in {**memory, **seconds}.items()},
    )


def check(
    s: Scenario,
    *,
    source: str | Path = "<scenario>",
    runs_at_once: int = 1,
    context: str = "",
) -> Estimate:
    """Estimate ``s`` and refuse it beyond the limits; return the estimate otherwise.

    Parameters
    ----------
    s
        A validated scenario.
    source
        Where it came from (a YAML path locates the error's line), for the message.
    runs_at_once
        Runs sharing the machine's memory (a sweep's local worker processes).
    context
        Prefix of the message, e.g. ``"sweep point hosts.0.count=64: "``.

    Raises
    ------
    ScenarioError
        At the field driving the estimate, giving the estimate and the override to use.
    """
    est = estimate(s)
    memory = est.memory_bytes * max(runs_at_once, 1)
    limit, why = MAX_MEMORY_BYTES, f"sanpath's limit of {_bytes(MAX_MEMORY_BYTES)}"
    available = available_memory()
    if available is not None and MEMORY_SHARE * available < limit:
        limit, why = MEMORY_SHARE * available, f"the {_bytes(available)} this machine has free"
    if memory > limit:
        problem = (est.memory_field, f"needs more memory than {why}")
    elif est.seconds > MAX_SECONDS:
        problem = (
            est.seconds_field,
            f"would take longer than sanpath's limit of {format_duration(MAX_SECONDS)}",
        )
    else:
        return est
    path, reason = problem
    shared = f" ({runs_at_once} runs at once)" if runs_at_once > 1 else ""
    message = (
        f"{context}this run {reason}: estimated {est.text()}{shared}. Make it smaller here, "
        "or pass --force (command line) or force=True (Python) to run it anyway"
    )
    raise ScenarioError([Problem(str(source), *locate_field(source, path), path, message)])
