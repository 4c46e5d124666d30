"""How big a run is, counted from the validated scenario alone, for :mod:`sanpath.sim.budget`.

Nothing here is in bytes or seconds of wall time (that is :mod:`sanpath.sim.cost`): these
are the counts the cost is made of, each with the field that drives it.

* **Topology.** :func:`paths`: for every host, every LUN its workloads use and every (HBA
  port, array port) pair the zoning and the LUN's ports allow.
* **Loads.** :func:`load`: the I/O sources and SimPy processes a workload builds, the I/O
  per second it offers, and the commands and drive operations each of its I/Os costs
  (:func:`per_io`), beside an optimistic bound on what the path can carry
  (:func:`capacity`: drives with their RAID penalty and read hits, controller cores,
  front-end ports, host links).
* **Run length.** :func:`run_length`: measured and warm-up I/Os, and how they were counted.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Final

from sanpath.layout import WRITE_PENALTY, command_limit, read_hit
from sanpath.spec import (
    HddSpec,
    HostSpec,
    PoolSpec,
    Scenario,
    SsdSpec,
    WorkloadSpec,
    lun_groups_used,
    visible_ports,
)
from sanpath.units import format_duration

HDD_QUEUE_GAIN: Final = 2.0
"""How much a deep SPTF queue can raise a hard disk's random IOPS over FIFO (optimistic)."""


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
    wi = next(i for i, x in enumerate(s.workloads) if x is w)
    gi = next(i for i, g in enumerate(s.array.luns) if g is group)
    return pool, read_hit(s, wi, gi)


def per_io(s: Scenario, w: WorkloadSpec, host: HostSpec) -> tuple[float, float, float, float]:
    """Commands, drive operations, drive-busy seconds and unloaded latency (s) per I/O."""
    split = command_limit(host)
    copies = 1.0 + (w.copy_to.ratio if w.copy_to is not None else 0.0)
    pool, hit = _pool_of(s, w)
    sequential = w.pattern == "sequential"
    commands = ops = busy = 0.0
    for size, weight in w.size_mix:
        pieces = math.ceil(size / split) if split else 1
        commands += weight * pieces * copies
        elements = min(math.ceil(size / pool.stripe_element), pool.data_drives * pool.groups)
        op_size = size / elements
        reads = w.read_fraction * (1.0 - hit) * elements
        writes = (1.0 - w.read_fraction) * elements
        writes *= pool.drives / pool.data_drives if sequential else WRITE_PENALTY[pool.raid]
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


def capacity(s: Scenario, w: WorkloadSpec, hosts: int, host: HostSpec) -> float:
    """An optimistic bound on the I/O per second workload ``w`` alone can get, 1/s."""
    commands, _, busy, _ = per_io(s, w, host)
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


def largest(factors: Iterable[tuple[float, str]]) -> str:
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
class Load:
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


def load(s: Scenario, wi: int, w: WorkloadSpec) -> Load:
    """Count workload ``wi`` (``w``) of ``s``."""
    host_ids = [i for i, h in enumerate(s.hosts) if w.hosts == "all" or h.name in w.hosts]
    lun_ids = [i for i, g in enumerate(s.array.luns) if w.luns == "all" or g.name in w.luns]
    n_hosts = sum(s.hosts[i].count for i in host_ids)
    n_luns = sum(s.array.luns[i].count for i in lun_ids)
    host = s.hosts[host_ids[0]]
    commands, ops, _, latency = per_io(s, w, host)
    bound = capacity(s, w, n_hosts, host)
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
        where = largest([*factors, (float(outstanding), f"workloads.{wi}.outstanding")])
    else:
        sources, processes, where = n_hosts * n_luns, n_hosts, f"workloads.{wi}.rate"
        offered = _schedule_max(s, wi, "rate", w.rate or 0.0) * n_hosts
    return Load(sources, processes, offered, bound, latency, commands, ops, where)


def paths(s: Scenario) -> tuple[int, str]:
    """Paths over every host instance, and the field that scales the most of them."""
    lun_field = largest(
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


def run_length(s: Scenario, iops: float) -> tuple[float, float, str, str]:
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
