"""The array cache: read hits, read-ahead, write-back with destaging, write-aside.

* Random reads hit with probability ``read_hit``; a hit costs ``hit_time`` and no disk I/O.
* Read-ahead: the cache watches each LUN for sequential streams (a read starting where an
  earlier one ended). Once a stream is seen, it keeps ``read_ahead`` bytes prefetched ahead
  of the reader with large back-end reads, so the reader is served from cache and waits
  only when it catches up with a prefetch still in flight (:class:`ReadAhead`, kept beside
  the LUN in :mod:`sanpath.sim.components.array`).
* Write-back: a write of at most ``write_aside`` bytes is copied into cache and
  acknowledged; the dirty data is destaged through RAID in the background, pool by pool.
  Destaging starts above the low watermark and its concurrency rises with the dirty level
  to the pool's full ``destage_concurrency`` at the high watermark (see :class:`Cache`);
  when the dirty space is full, writes wait for a destage to free room (a forced flush). A
  write that continues a dirty extent still waiting for its destage joins it (up to the
  LUN's ``destage_merge`` bytes), whatever was written in between, so sequential streams destage
  as full stripes even when several of them interleave (several backup files on one LUN).
* Write-aside: larger writes bypass the cache and go straight through RAID; the host waits
  for the drives (CLARiiON/VNX: 2048 blocks = 1 MiB by default).
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable, Generator

import simpy

# ReadAhead: a LUN's read-ahead, kept beside the LUN (sanpath.sim.components.array, which
# imports nothing of this module) and named here too, with the rest of the cache
from sanpath.sim.components.array import Lun
from sanpath.sim.components.array import ReadAhead as ReadAhead
from sanpath.sim.components.raid import RaidPool
from sanpath.spec import CacheSpec, PoolSpec


class _Extent:
    """Dirty bytes [offset, offset + size) of one LUN, waiting to be destaged."""

    __slots__ = ("lun", "offset", "size")

    def __init__(self, lun: Lun, offset: int, size: int) -> None:
        self.lun = lun
        self.offset = offset
        self.size = size


class Backlog:
    """Dirty data a pool's destage queue starts with (a preconditioned cache).

    The extents are made one at a time, when destaging reaches them, by ``draw``: so the
    dirty space of even a very large cache costs no memory up front. They are older than
    any write of the run and destage first.
    """

    __slots__ = ("draw", "remaining")

    def __init__(self, nbytes: int, draw: Callable[[], tuple[Lun, int, int]]) -> None:
        self.remaining = nbytes
        """Bytes of the backlog not yet handed to a destage."""
        self.draw = draw
        """The next extent: (LUN, offset in the LUN, size in bytes)."""


class Destager:
    """The destage queue of one RAID pool: its dirty extents and the writes in flight."""

    __slots__ = ("active", "backlog", "concurrency", "extents", "pool", "waiting")

    def __init__(self, pool: RaidPool, concurrency: int) -> None:
        self.pool = pool
        self.concurrency = concurrency
        """Destage writes in flight at full speed."""
        self.active = 0
        self.waiting = 0
        """Host writes to this pool waiting for room in the full cache (forced flushes)."""
        self.backlog: Backlog | None = None
        self.extents: deque[_Extent] = deque()
        """Dirty extents in the order they were first written (the destage order)."""


DESTAGE_PER_DRIVE = 4
"""Destage writes in flight per drive of a pool at full speed, when
``destage_concurrency`` is not given.

Gill and Modha ("WOW: Wise Ordering for Writes", USENIX FAST 2005, section 4.4) keep up to
MAXQUEUE = 20 destages outstanding on one RAID-5 array, "to utilize the full throughput
potential" of its drives: enough queued writes for each drive's own scheduler to reorder.
Spread over a 4+1 group that is 4 per drive."""


def destage_concurrency(spec: CacheSpec, pool: PoolSpec) -> int:
    """Destage writes in flight at full speed on ``pool`` (``spec.destage_concurrency`` or
    :data:`DESTAGE_PER_DRIVE` per drive of the pool)."""
    if spec.destage_concurrency is not None:
        return spec.destage_concurrency
    return DESTAGE_PER_DRIVE * pool.drives * pool.groups


class Cache:
    """The array's shared cache (one per array); destaging is per RAID pool.

    The dirty space is shared by every LUN; each pool destages its own dirty extents, with
    up to its ``concurrency`` writes in flight. How many of those may run follows the dirty
    level (the way WOW varies the destage rate between its thresholds): none at or below
    ``low_watermark``, rising linearly to all of them at ``high_watermark`` and above, and
    all of them while writes wait for room. A write that finds the cache full waits for a
    forced flush: it adds one destage of its pool's oldest dirty data to those in flight,
    so a full cache keeps at least as many writes at the drives as write-through would. A
    cache whose writes arrive faster than the drives can destage them thus settles full and
    delivers what the back end can do with the RAID write penalty, never less than the same
    drives without the cache (and more where destage merging forms full stripes).
    """

    def __init__(self, env: simpy.Environment, spec: CacheSpec) -> None:
        self.env = env
        self.spec = spec
        self.capacity = spec.write_back or 0
        self.write_aside = spec.write_aside
        self.dirty = 0
        self.low = spec.low_watermark * self.capacity
        self.high = spec.high_watermark * self.capacity
        self.destagers: dict[RaidPool, Destager] = {}
        self.tails: dict[tuple[Lun, int], _Extent] = {}
        """Extents that can still grow, by (LUN, offset where the next write would join)."""
        self.space_waiters: deque[tuple[Lun, int, int, simpy.Event]] = deque()
        self.forced_flushes = 0
        self.dirty_peak = 0
        self.absorbed = 0
        """Bytes written into the cache since the start of the run."""
        self.destaged = 0
        """Bytes destaged since the start of the run."""
        """The most dirty bytes seen (a cache that never reached its low watermark never
        destaged: its figures are the filling transient)."""

    def add_pool(self, pool: RaidPool, spec: PoolSpec) -> None:
        """Give ``pool`` a destage queue (every pool a LUN can write to needs one)."""
        self.destagers[pool] = Destager(pool, destage_concurrency(self.spec, spec))

    def precondition(
        self, pool: RaidPool, nbytes: int, draw: Callable[[], tuple[Lun, int, int]]
    ) -> None:
        """Start the run with ``nbytes`` of ``pool``'s dirty data waiting for destage.

        ``draw`` makes the extents as destaging reaches them (see :class:`Backlog`). The
        dirty level rises by ``nbytes`` at once; destaging starts when the level asks for it.
        """
        if nbytes <= 0:
            return
        destager = self.destagers[pool]
        if destager.backlog is None:
            destager.backlog = Backlog(nbytes, draw)
        else:
            destager.backlog.remaining += nbytes
        self.dirty += nbytes
        self.dirty_peak = max(self.dirty_peak, self.dirty)
        self._kick()

    def absorbs(self, size: int) -> bool:
        """True when a write of ``size`` bytes goes into write-back cache."""
        return (
            self.capacity > 0
            and (self.write_aside is None or size <= self.write_aside)
            and size <= self.capacity
        )

    @property
    def active(self) -> int:
        """Destage writes in flight, every pool together."""
        return sum(d.active for d in self.destagers.values())

    def reserve(self, lun: Lun, offset: int, size: int) -> simpy.Event | None:
        """Put a write into cache; returns an event when it must wait for room."""
        if self.dirty + size <= self.capacity and not self.space_waiters:
            self._admit(lun, offset, size)
            return None
        self.forced_flushes += 1
        event = simpy.Event(self.env)
        self.space_waiters.append((lun, offset, size, event))
        self.destagers[lun.pool].waiting += 1
        self._kick()
        return event

    def _admit(self, lun: Lun, offset: int, size: int) -> None:
        self.dirty += size
        self.absorbed += size
        if self.dirty > self.dirty_peak:
            self.dirty_peak = self.dirty
        extent = self.tails.pop((lun, offset), None)
        if extent is not None and extent.size + size <= lun.destage_merge:
            extent.size += size
        else:
            extent = _Extent(lun, offset, size)
            self.destagers[lun.pool].extents.append(extent)
        if extent.size < lun.destage_merge:
            self.tails[lun, extent.offset + extent.size] = extent
        self._kick()

    def _share(self) -> float:
        """Fraction of each pool's destage concurrency allowed at the current dirty level."""
        if self.dirty >= self.high or self.space_waiters:
            return 1.0
        if self.dirty <= self.low:
            return 0.0
        return (self.dirty - self.low) / (self.high - self.low)

    def _kick(self) -> None:
        share = self._share()
        if share == 0.0:
            return
        for destager in self.destagers.values():
            # a write waiting for room flushes for itself: one more destage in flight each
            allowed = max(1, math.ceil(share * destager.concurrency)) + destager.waiting
            backlog = destager.backlog
            while backlog is not None and destager.active < allowed:
                lun, offset, size = backlog.draw()
                size = min(size, backlog.remaining)
                backlog.remaining -= size
                if backlog.remaining <= 0:
                    destager.backlog = backlog = None
                destager.active += 1
                self.env.process(self._destage(destager, lun, offset, size))
            extents = destager.extents
            while extents and destager.active < allowed:
                extent = extents.popleft()
                lun, offset, size = extent.lun, extent.offset, extent.size
                if self.tails.get((lun, offset + size)) is extent:
                    del self.tails[lun, offset + size]
                destager.active += 1
                self.env.process(self._destage(destager, lun, offset, size))

    def _destage(
        self, destager: Destager, lun: Lun, offset: int, size: int
    ) -> Generator[simpy.Event]:
        yield from lun.pool.write(lun.base + offset, size)
        destager.active -= 1
        self.dirty -= size
        self.destaged += size
        # Let writers waiting for room in, in order (a forced flush ends for them).
        while self.space_waiters and self.dirty + self.space_waiters[0][2] <= self.capacity:
            w_lun, w_offset, w_size, event = self.space_waiters.popleft()
            self.destagers[w_lun.pool].waiting -= 1
            self._admit(w_lun, w_offset, w_size)
            event.succeed()
        self._kick()
