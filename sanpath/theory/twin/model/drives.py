"""Drive service and RAID work: what one command costs a pool's drives.

A *work vector* (:data:`Work`) accumulates the visits of one kind of command to one station
with the first and second moments of their service; :class:`DriveModel` gives the service of
one back-end operation (seek, rotation, transfer of a hard disk; an SSD; a textbook server),
and :func:`drive_work` the RAID operations of a command of any size (the layout of
:mod:`sanpath.layout.raid`, as the simulator's RAID controller issues them). Times in seconds,
sizes in bytes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from sanpath.layout import (
    CYLINDERS,
    DESTAGE_PER_DRIVE,
    SPTF_GAMMA,
    RaidLayout,
    command_lengths,
    queue_gain,
    seek_curve,
    split_sizes,
)
from sanpath.spec import CacheSpec, HddSpec, PoolSpec, SsdSpec, TextbookDriveSpec

__all__ = [
    "F1",
    "P1",
    "PH",
    "ROT",
    "SFF",
    "SFP",
    "SPP",
    "SPTF_GAMMA",
    "DriveModel",
    "V",
    "Work",
    "add_work",
    "drive_model",
    "drive_work",
    "new_work",
    "scale_into",
]


# --------------------------------------------------------------------------------------------
# Work vectors and drive service models
# --------------------------------------------------------------------------------------------

Work = list[float]
"""Accumulated visits of one kind of command to one station (the ``V``... fields)."""

V, F1, P1, SFF, SFP, SPP, PH, ROT = range(8)
"""Fields of a work vector: visits, fixed demand, SPTF-scalable (positioning) demand,
second-moment parts (fixed^2 + var, fixed x positioning, positioning^2 + var), for drives
the number of phases (operations in one phase run in parallel) and, for destages in sweep
order, their revolutions (s): each waits the least of the rotational waits of the destages
queued at its drive, a revolution / (queued + 1), with the queue the solution finds."""


def new_work() -> Work:
    return [0.0] * 8


def add_work(
    acc: Work, v: float, f: float, p: float = 0.0, vf: float = 0.0, vp: float = 0.0
) -> None:
    acc[V] += v
    acc[F1] += v * f
    acc[P1] += v * p
    acc[SFF] += v * (f * f + vf)
    acc[SFP] += v * f * p
    acc[SPP] += v * (p * p + vp)


def scale_into(dst: Work, src: Work, k: float) -> None:
    for i in range(len(src)):
        dst[i] += k * src[i]


@dataclass(frozen=True)
class DriveModel:
    """Per-operation service of one pool's drives: fixed part, positioning, variances."""

    kind: str  # "hdd", "ssd", "textbook"
    servers: int  # per drive
    overhead: float = 0.0
    seek_mean: float = 0.0
    seek_var: float = 0.0
    rev: float = 0.0
    inv_rate: float = 0.0  # E[1 / media rate]
    tcq: int = 1
    gains: tuple[float, ...] = ()
    """``gains[j]``: how many times faster a drive positions with ``j`` commands queued
    (``j = 0..tcq``, :func:`~sanpath.layout.geometry.queue_gain`); empty when its scheduler
    does not reorder (FIFO)."""
    sptf_window: int = 0
    """SPTF: the commands its scheduler considers (the gain is ``min(q, window)^0.27``,
    exactly, between the table's points too); 0 for the other schedulers."""
    read_time: float = 0.0
    write_time: float = 0.0
    per_unit: float = 0.0
    mean: float = 0.0
    scv: float = 0.0
    sweep_dirty: float = 0.0
    """Bytes of the pool's dirty data a sweep orders at full throttle (the cache's high
    watermark); 0 when destages go in arrival order."""
    sweep_depth: float = 0.0
    """Destage writes in flight per drive at full throttle (``destage_concurrency`` over the
    pool's drives)."""
    span: float = 1.0
    """Fraction of the stroke the pool's LUNs occupy (where dirty data can be)."""
    write_curve: tuple[float, float, float] = (0.0, 0.0, 0.0)
    """(track, A, B) of a write's seek curve, s."""
    drives: int = 1

    def sweep_position(self, extent: int, touched: int) -> float:
        """Seek (s) of one destage operation in sweep order.

        The dirty extents a drive holds (``extent`` bytes each, ``touched`` drives per
        destage) lie ``span`` / their count apart, so the arm moves that far between
        destages (a write seek). Its rotational wait is the least of those of the destages
        queued at the drive in that narrow band (:data:`ROT`, :meth:`destage_depth`).
        """
        per_drive = max(self.sweep_dirty / extent * touched / self.drives, 1.0)
        gap = self.span / per_drive
        track, a, b = self.write_curve
        return track + a * gap + b * math.sqrt(gap) if gap * CYLINDERS >= 1.0 else 0.0

    def destage_depth(self, touched: int) -> float:
        """Destage operations queued at a drive at full throttle (``sweep_depth`` writes of
        ``touched`` drives each); 0 when destages go in arrival order."""
        return self.sweep_depth * touched if self.sweep_dirty > 0 else 0.0

    def op(
        self, nbytes: int, write: bool, mode: str, position: float | None = None
    ) -> tuple[float, float, float, float]:
        """(fixed, positioning, fixed variance, positioning variance) of one operation.

        ``mode``: ``random`` (seek over the active region and half a revolution),
        ``seq`` (a sequential stream: reads skip positioning by read look-ahead, writes wait
        half a revolution on average). A ``position`` given (a destage in sweep order,
        :meth:`sweep_position`) is the seek, fixed: the drive's queue already gave what
        reordering gains; its rotational wait is counted apart (:data:`ROT`).
        """
        if self.kind == "hdd":
            fixed = self.overhead + nbytes * self.inv_rate
            rot_var = self.rev * self.rev / 12.0
            if position is not None:
                return fixed + position, 0.0, 0.0, 0.0
            if mode == "seq":
                if write:
                    return fixed, self.rev / 2.0, 0.0, rot_var
                return fixed, 0.0, 0.0, 0.0
            return fixed, self.seek_mean + self.rev / 2.0, 0.0, self.seek_var + rot_var
        if self.kind == "ssd":
            return (self.write_time if write else self.read_time) + nbytes / self.per_unit, 0, 0, 0
        return self.mean, 0.0, self.scv * self.mean * self.mean, 0.0


def _seek_moments(spec: HddSpec, intervals: list[tuple[float, float]]) -> tuple[float, float]:
    """Mean and variance of the seek time between two uniform points of the active region."""
    track, a, b = seek_curve(spec)
    if len(intervals) == 1:
        f = intervals[0][1] - intervals[0][0]
        if f * CYLINDERS < 1.0:
            return 0.0, 0.0
        # distance = f y, y triangular on [0, 1]: E[y] = 1/3, E[y^2] = 1/6, E[sqrt y] = 8/15,
        # E[y^1.5] = 8/35.
        e_d, e_d2, e_s, e_d15 = f / 3.0, f * f / 6.0, 8.0 * math.sqrt(f) / 15.0, 8.0 * f**1.5 / 35
        mean = track + a * e_d + b * e_s
        second = (
            track * track
            + a * a * e_d2
            + b * b * e_d
            + 2 * track * a * e_d
            + 2 * track * b * e_s
            + 2 * a * b * e_d15
        )
        return mean, max(second - mean * mean, 0.0)
    # Several disjoint regions: integrate numerically over a fine grid.
    bins = 400
    edges = np.linspace(0.0, 1.0, bins + 1)
    weight = np.zeros(bins)
    for lo, hi in intervals:
        overlap = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0.0, None)
        weight += overlap
    weight /= weight.sum()
    centres = (edges[:-1] + edges[1:]) / 2.0
    dist = np.abs(centres[:, None] - centres[None, :])
    np.fill_diagonal(dist, 1.0 / bins / 3.0)
    t = np.where(dist * CYLINDERS < 1.0, 0.0, track + a * dist + b * np.sqrt(dist))
    pair = weight[:, None] * weight[None, :]
    mean = float((pair * t).sum())
    return mean, max(float((pair * t * t).sum()) - mean * mean, 0.0)


def drive_model(
    pool: PoolSpec, intervals: list[tuple[float, float]], cache: CacheSpec | None = None
) -> DriveModel:
    """The service of ``pool``'s drives over the active ``intervals`` of their stroke; with
    ``cache`` destaging in sweep order, the positioning its destages get
    (:meth:`DriveModel.sweep_position`)."""
    spec = pool.drive
    if isinstance(spec, HddSpec):
        seek_mean, seek_var = _seek_moments(spec, intervals)
        outer = spec.media_rate_outer
        span = spec.media_rate_outer - spec.media_rate_inner
        total = sum(hi - lo for lo, hi in intervals)
        inv = 0.0
        for lo, hi in intervals:
            if span > 0 and hi > lo:
                part = math.log((outer - span * lo) / (outer - span * hi)) / span
            else:
                part = (hi - lo) / (outer - span * lo)
            inv += part
        inv_rate = inv / total if total > 0 else 1.0 / outer
        gains: tuple[float, ...] = ()
        if spec.scheduler != "fifo":
            span = total if total > 0 else 1.0
            gains = tuple(queue_gain(spec, float(j), span) for j in range(spec.queue_depth + 1))
        return DriveModel(
            kind="hdd",
            servers=1,
            overhead=spec.overhead,
            seek_mean=seek_mean,
            seek_var=seek_var,
            rev=60.0 / spec.rpm,
            inv_rate=inv_rate,
            tcq=spec.queue_depth,
            gains=gains,
            sptf_window=spec.window if spec.scheduler == "sptf" else 0,
            **_sweep(pool, cache, total),
        )
    if isinstance(spec, SsdSpec):
        return DriveModel(
            kind="ssd",
            servers=spec.units,
            read_time=spec.read_time,
            write_time=spec.write_time,
            per_unit=spec.bandwidth / spec.units,
        )
    assert isinstance(spec, TextbookDriveSpec)
    return DriveModel(
        kind="textbook", servers=spec.servers, mean=spec.service.mean_s, scv=spec.service.scv
    )


def _sweep(pool: PoolSpec, cache: CacheSpec | None, span: float) -> dict[str, Any]:
    """The :class:`DriveModel` fields of destaging in sweep order (none in arrival order)."""
    if cache is None or not cache.write_back or cache.destage_order != "sweep":
        return {}
    spec = pool.drive
    assert isinstance(spec, HddSpec)
    drives = pool.drives * pool.groups
    concurrency = cache.destage_concurrency or DESTAGE_PER_DRIVE * drives
    return {
        "sweep_dirty": float(cache.write_back) * cache.high_watermark,
        "sweep_depth": concurrency / drives,
        "span": span if span > 0 else 1.0,
        "write_curve": seek_curve(spec, write=True),
        "drives": drives,
    }


TOUCHED: dict[str, int] = {"raid0": 1, "raid1": 2, "raid10": 2, "raid5": 2, "raid6": 3}
"""Drives one small destage keeps busy, by RAID level (a mirror's two copies; data and
parity, P and Q)."""


# --------------------------------------------------------------------------------------------
# RAID: back-end operations of one command (the layout of sanpath.sim.components.raid)
# --------------------------------------------------------------------------------------------


def _raid_phases(pool: PoolSpec, offset: int, size: int, write: bool) -> list[list[int]]:
    """Operation sizes per phase (phases run one after the other, operations in parallel)."""
    layout = RaidLayout(pool)
    if not write:
        return [command_lengths(layout.read_commands(offset, size))]  # any copy: same count
    rmw, writes = layout.write_commands(offset, size)
    phases = [command_lengths(rmw)] if rmw else []
    phases.append(command_lengths(writes))
    return phases


_drive_cache: dict[tuple[Any, ...], tuple[Work, Work]] = {}


def drive_work(
    pool: PoolSpec,
    model: DriveModel,
    base: int,
    size: int,
    limit: int | None,
    write: bool,
    kind: str,
    mode: str,
    extent: int,
) -> tuple[Work, Work]:
    """Back-end work per command of an I/O of ``size``: (foreground, background).

    ``kind``: ``read`` (RAID read of the command), ``prefetch`` (read-ahead chunks of
    ``extent`` bytes), ``write`` (RAID write with its penalty), ``absorbed`` (write-back:
    destaged later in extents of ``extent`` bytes, background work).
    """
    key = (pool, model, base, size, limit, write, kind, mode, extent)
    hit = _drive_cache.get(key)
    if hit is not None:
        return hit
    fg, bg = new_work(), new_work()
    children = split_sizes(size, limit)
    if kind in ("prefetch", "absorbed"):
        # Work in extents (chunks) of `extent` bytes, per byte of the command.
        samples = max(1, min(64, -(-2 * pool.data_drives * pool.stripe_element // extent)))
        per = new_work()
        position = None
        if kind == "absorbed" and mode == "random" and model.sweep_dirty > 0:
            position = model.sweep_position(extent, TOUCHED[pool.raid])
        for i in range(samples):
            phases = _raid_phases(pool, base + i * extent, extent, write=kind == "absorbed")
            _phase_work(per, phases, model, kind == "absorbed", mode, 1.0 / samples, position)
        command_bytes = sum(children) / len(children)
        scale_into(bg if kind == "absorbed" else fg, per, command_bytes / extent)
    else:
        samples = max(1, min(256, -(-2 * pool.data_drives * pool.stripe_element // size)))
        n_cmds = samples * len(children)
        for i in range(samples):
            offset = base + i * size
            for part in children:
                phases = _raid_phases(pool, offset, part, write)
                _phase_work(fg, phases, model, write, mode, 1.0 / n_cmds)
                offset += part
    _drive_cache[key] = (fg, bg)
    if len(_drive_cache) > 4096:
        _drive_cache.clear()
    return fg, bg


def _phase_work(
    acc: Work,
    phases: list[list[int]],
    model: DriveModel,
    write: bool,
    mode: str,
    v: float,
    position: float | None = None,
) -> None:
    last = len(phases) - 1
    for i, ops in enumerate(phases):
        op_write = write and i == last  # read-modify-write: the reads come first
        acc[PH] += v
        for nbytes in ops:
            f, p, vf, vp = model.op(nbytes, op_write, mode, position)
            add_work(acc, v, f, p, vf, vp)
            if position is not None:
                acc[ROT] += v * model.rev
