"""What commands cost the array's back end: drive operations, service times, latency.

A rough model of the drives and RAID behind each pool, shared by the rules that compare the
proposal's queue depths and links with what the drives can do (SP005, SP010, SP011). Times are
in seconds, rates in bytes or operations per second.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sanpath.advice.analysis import INF, PathAnalysis, commands_per_io_mean
from sanpath.layout import queue_gain, read_hits
from sanpath.spec import HddSpec, PoolSpec, Scenario, SsdSpec, TextbookDriveSpec


def parallel_units(pool: PoolSpec) -> int:
    """Operations a pool's drives can serve at once (spindles, flash units, servers)."""
    drive = pool.drive
    per = 1
    if isinstance(drive, SsdSpec):
        per = drive.units
    elif isinstance(drive, TextbookDriveSpec):
        per = drive.servers
    return per * pool.drives * pool.groups


def _ops_per_command(pool: PoolSpec, size: int) -> int:
    """Drive operations a read of ``size`` bytes needs (elements touched, at most every
    data position of the pool)."""
    return max(1, min(-(-size // pool.stripe_element), pool.data_drives * pool.groups))


def _op_time(pool: PoolSpec, nbytes: float, sequential: bool, write: bool) -> float:
    """Estimated service time of one drive operation, seconds."""
    drive = pool.drive
    if isinstance(drive, HddSpec):
        t = drive.overhead + nbytes / ((drive.media_rate_outer + drive.media_rate_inner) / 2)
        if not sequential:
            t += drive.average_seek + 30.0 / drive.rpm
        return t
    if isinstance(drive, SsdSpec):
        base = drive.write_time if write else drive.read_time
        return base + nbytes / (drive.bandwidth / drive.units)
    return drive.service.mean_s


def _write_ops(pool: PoolSpec, k: int, full_row: bool) -> float:
    """Drive operations of one write touching ``k`` data elements (RAID write penalty)."""
    level = pool.raid
    if level == "raid0":
        return float(k)
    if level in ("raid1", "raid10"):
        return 2.0 * k
    parity = 1 if level == "raid5" else 2
    rows = max(1.0, k / pool.data_drives)
    if full_row:
        return k + parity * rows
    return 2.0 * (k + parity * rows)


@dataclass(frozen=True)
class _Mix:
    """What one front-end command costs a pool, averaged over the workloads on it."""

    backend_ops: float
    """Drive operations per command that the host's queue depth drives (misses, bypasses)."""
    drive_seconds: float
    """Drive busy time per command while the host waits (read misses, uncached writes);
    writes the write-back cache absorbs are left out: they cost the drives only when
    destaged, after the host has its answer."""
    op_time: float
    """Mean time of one operation."""
    random_share: float
    """Share of commands from random workloads."""


def _bypass(s: Scenario, size: int) -> bool:
    """Whether a write of ``size`` bytes goes past the write-back cache to the drives."""
    cache = s.array.cache
    if not cache.write_back:
        return True
    if cache.write_aside is not None and size > cache.write_aside:
        return True
    return size > cache.write_back


def pool_mix(pa: PathAnalysis, pool_index: int, weights: Mapping[tuple[int, int], float]) -> _Mix:
    """Mix of the commands on a pool, weighting each (host, LUN) pair by ``weights``."""
    s = pa.scenario
    pool = s.array.pools[pool_index]
    if any(math.isinf(x) for x in weights.values()):
        # unbounded pairs dominate: weigh them equally, the bounded ones not at all
        weights = {k: (1.0 if math.isinf(x) else 0.0) for k, x in weights.items()}
    total = ops_sum = drive_sum = random_w = 0.0
    hits = read_hits(s)
    for (g, li), weight in weights.items():
        if pa.luns[li].pool_index != pool_index or weight <= 0:
            continue
        ws = pa.workloads.get((g, li), [])
        gi = pa.luns[li].group
        own = []
        for w in ws:
            d = (
                w.threads * w.outstanding_per_lun * commands_per_io_mean(pa, g, w)
                if w.closed
                else (w.rate or 0.0) * commands_per_io_mean(pa, g, w)
            )
            own.append(d)
        denom = sum(own) or 1.0
        for w, d in zip(ws, own, strict=True):
            wi = next(i for i, x in enumerate(s.workloads) if x is w)
            hit = hits.get((wi, gi), 0.0)
            share = weight * d / denom
            seq = w.pattern == "sequential"
            for size, frac in pa.command_sizes(g, w):
                k = _ops_per_command(pool, size)
                t_read = _op_time(pool, size / k, seq, write=False)
                t_write = _op_time(pool, size / k, seq, write=True)
                row = pool.data_drives * pool.stripe_element
                full = seq and size % row == 0
                wops = _write_ops(pool, k, full)
                r = w.read_fraction
                wops = wops if _bypass(s, size) else 0.0
                backend = r * (1 - hit) * k + (1 - r) * wops
                drive = r * (1 - hit) * k * t_read + (1 - r) * wops * t_write
                c = share * frac
                total += c
                ops_sum += c * backend
                drive_sum += c * drive
                if not seq:
                    random_w += c
    if total <= 0:
        return _Mix(0.0, 0.0, 0.0, 0.0)
    op_time = drive_sum / ops_sum if ops_sum > 0 else 0.0
    return _Mix(ops_sum / total, drive_sum / total, op_time, random_w / total)


def pair_loads(pa: PathAnalysis, loads: Sequence[float]) -> dict[tuple[int, int], float]:
    """Commands per (host group, LUN) over all instances, capped at the LUN's limit."""
    s = pa.scenario
    out: dict[tuple[int, int], float] = {}
    for r, route in enumerate(pa.routes):
        if route.active:
            key = (route.group, route.lun)
            out[key] = out.get(key, 0.0) + s.hosts[route.group].count * loads[r]
    per_lun: dict[int, float] = {}
    for (_, li), x in out.items():
        per_lun[li] = per_lun.get(li, 0.0) + x
    for key, x in list(out.items()):
        li = key[1]
        limit = pa.luns[li].limit
        total = per_lun[li]
        if limit is None or total <= limit:
            continue
        if math.isinf(total):
            unbounded = sum(1 for (_, lj), y in out.items() if lj == li and math.isinf(y))
            out[key] = limit / unbounded if math.isinf(x) else 0.0
        else:
            out[key] = x * limit / total
    return out


def _gain(pool: PoolSpec, per_unit: float) -> float:
    """Throughput gain of a drive with ``per_unit`` operations queued (its scheduler's
    reordering, :func:`~sanpath.layout.geometry.queue_gain`, applied to the whole operation
    as the twin's first-order estimate does)."""
    drive = pool.drive
    if isinstance(drive, HddSpec):
        return queue_gain(drive, per_unit)
    return 1.0


def estimate_latency(pa: PathAnalysis, loads: Sequence[float]) -> dict[int, float]:
    """Little's-law estimate of the time a command spends in the array, per pool (seconds).

    N commands in a pool that completes X(N) per second spend about N / X(N) there (never
    less than one drive operation plus the controller's time). X(N) is the smaller of the
    drives' rate, parallel units x SPTF gain / drive seconds per command, and the pool's
    share of the controller's rate, cores / io_time. Writes the write-back cache absorbs cost
    nothing here (true while the cache has room).
    """
    s = pa.scenario
    pairs = pair_loads(pa, loads)
    n_total = sum(pairs.values())
    ctrl = s.array.controller
    io_time = ctrl.io_time.mean_s
    ctrl_rate = ctrl.cores / io_time if io_time > 0 else INF
    out: dict[int, float] = {}
    for pi, pool in enumerate(s.array.pools):
        mine = {k: v for k, v in pairs.items() if pa.luns[k[1]].pool_index == pi}
        n = sum(mine.values())
        if n <= 0:
            continue
        mix = pool_mix(pa, pi, mine)
        u = parallel_units(pool)
        x_pool = INF
        if mix.drive_seconds > 0:
            ops_per_cmd = mix.drive_seconds / mix.op_time if mix.op_time > 0 else 1.0
            x_pool = u * _gain(pool, n * ops_per_cmd / u) / mix.drive_seconds
        x = min(x_pool, ctrl_rate * n / n_total)
        floor = mix.op_time + io_time
        out[pi] = max(floor, n / x) if x > 0 else INF
    return out


def back_end_stream(pool: PoolSpec, read_fraction: float) -> float:
    """Bytes/s a pool can stream sequentially (reads from every holder, writes from data)."""
    drive = pool.drive
    if isinstance(drive, HddSpec):
        per = (drive.media_rate_outer + drive.media_rate_inner) / 2.0
    elif isinstance(drive, SsdSpec):
        per = drive.bandwidth
    else:
        return INF
    readers = pool.drives if pool.raid != "raid1" else 2
    reads = readers * pool.groups * per
    writes = pool.data_drives * pool.groups * per
    return read_fraction * reads + (1.0 - read_fraction) * writes
