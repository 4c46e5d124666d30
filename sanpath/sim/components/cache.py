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
from sanpath.sim.components.destage import Destager, Extent, Sweep, destage_concurrency
from sanpath.sim.components.drive import Yielding
from sanpath.sim.components.raid import RaidPool
from sanpath.spec import CacheSpec, PoolSpec


class Cache:
    """The array's shared cache (one per array); destaging is per RAID pool.

    The dirty space is shared by every LUN; each pool destages its own dirty extents, with
    up to its ``concurrency`` writes in flight. How many of those may run follows the dirty
    level (the way WOW varies the destage rate between its thresholds): none at or below
    ``low_watermark``, rising linearly to all of them at ``high_watermark`` and above, and
    all of them while writes wait for room. With ``read_priority``, below the high watermark
    (and while no write waits for room) a hard disk serves the host operations queued at
    it before the destage operations beside them. A write that finds the cache full waits for a
    forced flush: it adds one destage of its pool's next dirty data to those in flight,
    so a full cache keeps at least as many writes at the drives as write-through would. A
    cache whose writes arrive faster than the drives can destage them thus settles full and
    delivers what the back end can do with the RAID write penalty, never less than the same
    drives without the cache (and more where destage merging forms full stripes and the
    sweep order shortens the drives' seeks).
    """

    def __init__(self, env: simpy.Environment, spec: CacheSpec) -> None:
        self.env = env
        self.spec = spec
        self.capacity = spec.write_back or 0
        self.write_aside = spec.write_aside
        self.sweep = spec.destage_order == "sweep"
        self.coalesce = spec.destage_coalesce
        self.flush_per_write = spec.forced_flush_destages
        self.read_priority = spec.read_priority
        self.yielding = Yielding()
        """On while the destages wait for the host's operations at the drives."""
        self.dirty = 0
        self.low = spec.low_watermark * self.capacity
        self.high = spec.high_watermark * self.capacity
        self.destagers: dict[RaidPool, Destager] = {}
        self.space_waiters: deque[tuple[Lun, int, int, simpy.Event]] = deque()
        self.forced_flushes = 0
        self.dirty_peak = 0
        """The most dirty bytes seen (a cache that never reached its low watermark never
        destaged: its figures are the filling transient)."""
        self.absorbed = 0
        """Bytes written into the cache since the start of the run."""
        self.destaged = 0
        """Bytes destaged since the start of the run."""

    def add_pool(self, pool: RaidPool, spec: PoolSpec) -> None:
        """Give ``pool`` a destage queue (every pool a LUN can write to needs one)."""
        self.destagers[pool] = Destager(pool, destage_concurrency(self.spec, spec), self.sweep)

    def precondition(
        self, pool: RaidPool, nbytes: int, draw: Callable[[], tuple[Lun, int, int]]
    ) -> None:
        """Start the run with ``nbytes`` of ``pool``'s dirty data waiting for destage.

        ``draw`` gives the extents, (LUN, offset, size), until they add up to ``nbytes``:
        each is admitted as a write would be, open to joins, so the run starts with dirty
        extents of the kind it keeps, at their cost in memory (a long run's set settles at
        somewhat more of them: its small extents stay longer in some RAID groups).
        The dirty level rises by ``nbytes`` at once; destaging starts when the level asks
        for it.
        """
        if nbytes <= 0:
            return
        remaining = nbytes
        while remaining > 0:
            lun, offset, size = draw()
            size = min(size, remaining)
            remaining -= size
            self._join(lun, offset, size)
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
        self._join(lun, offset, size)
        self._kick()

    def _join(self, lun: Lun, offset: int, size: int) -> None:
        """Add dirty bytes [offset, offset + size) of ``lun``: to the extent they continue
        or run into, else as a new extent queued for destage."""
        # Extents join within one aligned block of the LUN's merge size (whole rows), as a
        # cache's write groups are whole stripes: a stream whose extent went early (a partial
        # row) keeps its later extents on row boundaries.
        merge, base = lun.destage_merge, lun.base
        destager = self.destagers[lun.pool]
        openings = destager.openings
        # an extent this write continues: it ends where the write starts, in the block where
        # the write ends (an extent open to joins lies in one block)
        before = openings.find((base + offset + size - 1) // merge, lun, offset, ending=True)
        start = before.offset if before is not None else offset
        block = (base + start) // merge
        # an extent this write runs into: it starts where the write ends, in the same block
        after = openings.find(block, lun, offset + size, ending=False) if self.coalesce else None
        if before is not None:
            extent = before
            extent.recent = True
            extent.size += size
            if after is not None:  # the write fills the gap: one extent of the three
                extent.size += after.size
                after.gone = True
                openings.remove(block, after)
        elif after is not None:  # grows down
            if self.sweep:  # queued again at its new start, as a new entry
                after.gone = True
                openings.remove(block, after)
                extent = Extent(lun, offset, after.size + size)
                destager.push(extent)
                openings.add(block, extent)
            else:
                extent = after
                extent.offset = offset
                extent.size += size
            extent.recent = True
        else:
            extent = Extent(lun, offset, size)
            destager.push(extent)
            if self._open(extent, merge, base):
                openings.add(block, extent)
            return
        if not self._open(extent, merge, base):
            openings.remove(block, extent)

    def _open(self, extent: Extent, merge: int, base: int) -> bool:
        """True while writes may still join ``extent``: it lies in one block of the merge
        size and does not fill it (with ``destage_coalesce``, writes join either end;
        without, only its end)."""
        start = base + extent.offset
        end = start + extent.size
        if start // merge != (end - 1) // merge:
            return False
        return end % merge != 0 or (self.coalesce and start % merge != 0)

    def _share(self) -> float:
        """Fraction of each pool's destage concurrency allowed at the current dirty level."""
        if self.dirty >= self.high or self.space_waiters:
            return 1.0
        if self.dirty <= self.low:
            return 0.0
        return (self.dirty - self.low) / (self.high - self.low)

    def _kick(self) -> None:
        share = self._share()
        self.yielding.on = self.read_priority and share < 1.0
        if share == 0.0:
            return
        for destager in self.destagers.values():
            # with forced_flush_destages a write waiting for room flushes for itself: one more
            # destage in flight each; without, a full cache destages at full throttle (WOW)
            extra = destager.waiting if self.flush_per_write else 0
            if destager.sweeps:
                self._kick_sweeps(destager, share, extra)
                continue
            allowed = max(1, math.ceil(share * destager.concurrency)) + extra
            while destager.active < allowed:
                extent = destager.pop_oldest()
                if extent is None:
                    break
                self._start(destager, None, extent)

    def _kick_sweeps(self, destager: Destager, share: float, extra: int) -> None:
        """Start the destages ``share`` of the pool's concurrency (and ``extra`` more) allow,
        shared evenly between the pool's RAID groups (sweep order)."""
        sweeps = destager.sweeps
        allowed = max(1, math.ceil(share * destager.concurrency / len(sweeps)))
        for sweep in sweeps:
            while sweep.active < allowed:
                extent = sweep.pop()
                if extent is None:
                    break
                self._start(destager, sweep, extent)
        if extra <= 0:
            return
        beyond = destager.active - sum(min(sweep.active, allowed) for sweep in sweeps)
        idle = 0  # groups in a row with nothing to destage
        while beyond < extra and idle < len(sweeps):
            sweep = sweeps[destager.turn]
            destager.turn = (destager.turn + 1) % len(sweeps)
            extent = sweep.pop()
            if extent is None:
                idle += 1
                continue
            idle = 0
            self._start(destager, sweep, extent)
            beyond += 1

    def _start(self, destager: Destager, sweep: Sweep | None, extent: Extent) -> None:
        """Start the destage of ``extent`` (of ``sweep``'s group in sweep order)."""
        lun, offset, size = extent.lun, extent.offset, extent.size
        # no longer open to joins
        destager.openings.remove((lun.base + offset) // lun.destage_merge, extent)
        destager.active += 1
        if sweep is not None:
            sweep.active += 1
        self.env.process(self._destage(destager, sweep, lun, offset, size))

    def _destage(
        self, destager: Destager, sweep: Sweep | None, lun: Lun, offset: int, size: int
    ) -> Generator[simpy.Event]:
        yield from lun.pool.write(lun.base + offset, size, self.yielding)
        destager.active -= 1
        if sweep is not None:
            sweep.active -= 1
        self.dirty -= size
        self.destaged += size
        # Let writers waiting for room in, in order (a forced flush ends for them).
        while self.space_waiters and self.dirty + self.space_waiters[0][2] <= self.capacity:
            w_lun, w_offset, w_size, event = self.space_waiters.popleft()
            self.destagers[w_lun.pool].waiting -= 1
            self._admit(w_lun, w_offset, w_size)
            event.succeed()
        self._kick()
