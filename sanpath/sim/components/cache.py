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
from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Callable, Generator
from heapq import heappop, heappush

import simpy

from sanpath.layout.raid import DESTAGE_PER_DRIVE

# ReadAhead: a LUN's read-ahead, kept beside the LUN (sanpath.sim.components.array, which
# imports nothing of this module) and named here too, with the rest of the cache
from sanpath.sim.components.array import Lun
from sanpath.sim.components.array import ReadAhead as ReadAhead
from sanpath.sim.components.raid import RaidPool
from sanpath.spec import CacheSpec, PoolSpec


class _Extent:
    """Dirty bytes [offset, offset + size) of one LUN, waiting to be destaged."""

    __slots__ = ("gone", "lun", "offset", "recent", "size")

    def __init__(self, lun: Lun, offset: int, size: int) -> None:
        self.lun = lun
        self.offset = offset
        self.size = size
        self.gone = False
        """True once destaged or joined to a neighbour (a queue entry left behind is skipped)."""
        self.recent = False
        """WOW's recency bit: a write joined this extent since the sweep last passed it."""


class Backlog:
    """Dirty data a pool's destage queue starts with (a preconditioned cache), destaged in
    the order it was written (``destage_order: arrival``).

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


class SortedBacklog:
    """Dirty data a pool's destage queue starts with, held sorted by pool address for a
    sweep (``destage_order: sweep``): three flat arrays, about 20 bytes an extent.

    The sweep takes the extents in address order from the first at or after where it stood
    when the backlog was made, round to the start and on to where it began (a circular
    cursor), so a backlog made in the middle of a sweep waits its turn as the extents
    written then would.
    """

    __slots__ = ("keys", "lun_of", "luns", "sizes", "start", "taken")

    def __init__(self, extents: list[tuple[int, int, int]], luns: list[Lun], pointer: int):
        """``extents``: (pool address, size, index into ``luns``), any order."""
        extents.sort()
        self.keys = array("q", [e[0] for e in extents])
        """Pool address of each extent (bytes), ascending."""
        self.sizes = array("q", [e[1] for e in extents])
        self.lun_of = array("i", [e[2] for e in extents])
        self.luns = luns
        self.start = bisect_left(self.keys, pointer)
        """The first extent the sweep takes (the first at or after the pointer)."""
        self.taken = 0

    @property
    def remaining(self) -> int:
        """Extents not yet destaged."""
        return len(self.keys) - self.taken

    def peek(self, pointer: int) -> int:
        """Pool address of the next extent if the sweep at ``pointer`` may take it, else -1."""
        n = len(self.keys)
        if self.taken >= n:
            return -1
        key = self.keys[(self.start + self.taken) % n]
        return key if key >= pointer else -1

    def take(self) -> _Extent:
        """The next extent."""
        i = (self.start + self.taken) % len(self.keys)
        self.taken += 1
        lun = self.luns[self.lun_of[i]]
        return _Extent(lun, self.keys[i] - lun.base, self.sizes[i])


class Sweep:
    """The dirty extents of one RAID group in sweep order, and its destages in flight.

    The sweep order is the spatial order of Gill and Modha's WOW ("WOW: Wise Ordering for
    Writes", USENIX FAST 2005, section 3: CSCAN over the array's write groups): a pointer
    moves up the group's addresses, the next destage is the waiting extent at the lowest
    pool address at or after the pointer, and when none is left ahead the pointer goes back
    to the start. Within a RAID group a pool address maps to rows and then to drive offsets
    in the same order on every member, so each drive's destages arrive in ascending order,
    in a narrow band its own scheduler can reorder cheaply.

    WOW's recency bit (its Figure 4): an extent a write joined since the sweep last came by
    is skipped once, its bit cleared, and taken on the next turn. Rewrites of dirty data are
    the cache's ``write_hit``; what the bit keeps here is a sequential stream's extent still
    growing at its head, which would otherwise go as a partial row each time the sweep
    reaches it (and leave the stream's later extents unaligned to its rows). WOW's own
    exception for sequential writers (section 4.1: never set the bit on them, to free their
    whole stripes sooner) is left out: its write groups are whole stripes, an extent here
    is what the writes have joined so far.
    """

    __slots__ = ("active", "ahead", "backlogs", "behind", "pointer", "seq")

    def __init__(self) -> None:
        self.active = 0
        """Destage writes of this group in flight."""
        self.pointer = 0
        """The pool address the sweep has reached (bytes)."""
        self.ahead: list[tuple[int, int, _Extent]] = []
        """(pool address, sequence, extent) at or after the pointer, a heap."""
        self.behind: list[tuple[int, int, _Extent]] = []
        """The same, before the pointer (taken once the sweep starts again)."""
        self.seq = 0
        self.backlogs: list[SortedBacklog] = []

    def push(self, extent: _Extent) -> None:
        """Queue ``extent`` (again, with its new start, after it grew down)."""
        key = extent.lun.base + extent.offset
        self.seq += 1
        heappush(self.ahead if key >= self.pointer else self.behind, (key, self.seq, extent))

    def pop(self) -> _Extent | None:
        """The next extent to destage (marked gone), or None when nothing waits."""
        for turn in range(2):  # at most one turn back to the start
            ahead = self.ahead
            while ahead:
                key, _, extent = ahead[0]
                if extent.gone or extent.lun.base + extent.offset != key:
                    heappop(ahead)  # destaged, joined to another, or queued again lower down
                elif extent.recent:  # written since the sweep last came by: the next turn
                    extent.recent = False
                    heappop(ahead)
                    self.seq += 1
                    heappush(self.behind, (key, self.seq, extent))
                else:
                    break
            best = ahead[0][0] if ahead else -1
            chosen: SortedBacklog | None = None
            pointer = self.pointer
            for backlog in self.backlogs:
                key = backlog.peek(pointer)
                if key >= 0 and (best < 0 or key < best):
                    best, chosen = key, backlog
            if best >= 0:
                self.pointer = best
                if chosen is not None:
                    taken = chosen.take()
                    if chosen.remaining == 0:
                        self.backlogs.remove(chosen)
                    return taken
                extent = heappop(ahead)[2]
                extent.gone = True
                return extent
            if turn or (not self.behind and not self.backlogs):
                return None
            self.pointer = 0  # nothing ahead: the sweep starts again from the lowest address
            self.ahead, self.behind = self.behind, ahead
        return None


class Destager:
    """The destage queue of one RAID pool: its dirty extents and the writes in flight.

    ``arrival`` order destages the pool's oldest extent first. ``sweep`` order keeps one
    :class:`Sweep` per RAID group, as WOW keeps one per array: the pool's destages at full
    speed are shared evenly between its groups, so a sweep that follows one sequential
    stream cannot keep the others' groups idle.
    """

    __slots__ = (
        "active",
        "backlog",
        "concurrency",
        "extents",
        "pool",
        "sweeps",
        "turn",
        "waiting",
    )

    def __init__(self, pool: RaidPool, concurrency: int, sweep: bool = False) -> None:
        self.pool = pool
        self.concurrency = concurrency
        """Destage writes in flight at full speed."""
        self.active = 0
        self.waiting = 0
        """Host writes to this pool waiting for room in the full cache (forced flushes)."""
        self.backlog: Backlog | None = None
        self.extents: deque[_Extent] = deque()
        """Arrival order: dirty extents in the order they were first written."""
        self.sweeps = [Sweep() for _ in range(pool.layout.groups)] if sweep else []
        """Sweep order: one sweep per RAID group (empty in arrival order)."""
        self.turn = 0
        """Sweep order: the group whose turn it is for a destage beyond the even shares."""

    def group(self, key: int) -> int:
        """The RAID group holding pool address ``key``."""
        layout = self.pool.layout
        return layout.locate(key // layout.element)[0]

    def push(self, extent: _Extent) -> None:
        """Queue ``extent`` for destage (again, with its new start, after it grew down)."""
        if self.sweeps:
            self.sweeps[self.group(extent.lun.base + extent.offset)].push(extent)
        else:
            self.extents.append(extent)

    def pop_oldest(self) -> _Extent | None:
        """Arrival order: the oldest extent (marked gone), or None when nothing waits."""
        backlog = self.backlog
        if backlog is not None:
            lun, offset, size = backlog.draw()
            size = min(size, backlog.remaining)
            backlog.remaining -= size
            if backlog.remaining <= 0:
                self.backlog = None
            return _Extent(lun, offset, size)
        extents = self.extents
        while extents:
            extent = extents.popleft()
            if not extent.gone:
                extent.gone = True
                return extent
        return None


def destage_concurrency(spec: CacheSpec, pool: PoolSpec) -> int:
    """Destage writes in flight at full speed on ``pool`` (``spec.destage_concurrency`` or
    :data:`~sanpath.layout.raid.DESTAGE_PER_DRIVE` per drive of the pool)."""
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
        self.dirty = 0
        self.low = spec.low_watermark * self.capacity
        self.high = spec.high_watermark * self.capacity
        self.destagers: dict[RaidPool, Destager] = {}
        self.tails: dict[tuple[Lun, int], _Extent] = {}
        """Extents that can still grow, by (LUN, offset where the next write would join)."""
        self.heads: dict[tuple[Lun, int], _Extent] = {}
        """With ``destage_coalesce``: extents that can still grow down, by (LUN, offset where
        they start)."""
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

        ``draw`` makes the extents: as destaging reaches them in arrival order (see
        :class:`Backlog`), all at once in sweep order (:class:`SortedBacklog`). The dirty
        level rises by ``nbytes`` at once; destaging starts when the level asks for it.
        """
        if nbytes <= 0:
            return
        destager = self.destagers[pool]
        if destager.sweeps:
            luns: list[Lun] = []
            index: dict[Lun, int] = {}
            groups: list[list[tuple[int, int, int]]] = [[] for _ in destager.sweeps]
            remaining = nbytes
            while remaining > 0:
                lun, offset, size = draw()
                size = min(size, remaining)
                remaining -= size
                i = index.get(lun)
                if i is None:
                    i = index[lun] = len(luns)
                    luns.append(lun)
                key = lun.base + offset
                groups[destager.group(key)].append((key, size, i))
            for sweep, extents in zip(destager.sweeps, groups, strict=True):
                if extents:
                    sweep.backlogs.append(SortedBacklog(extents, luns, sweep.pointer))
        elif destager.backlog is None:
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
        # Extents join within one aligned block of the LUN's merge size (whole rows), as a
        # cache's write groups are whole stripes: a stream whose extent went early (a partial
        # row) keeps its later extents on row boundaries.
        merge, base = lun.destage_merge, lun.base
        before = self.tails.pop((lun, offset), None)  # an extent this write continues
        start = before.offset if before is not None else offset
        if (
            before is not None
            and (base + before.offset) // merge != (base + offset + size - 1) // merge
        ):
            self.tails[lun, offset] = before  # across a block's end: stays as it was
            before, start = None, offset
        after = None  # an extent this write runs into
        if self.coalesce:
            after = self.heads.pop((lun, offset + size), None)
            if after is not None:
                if (base + start) // merge != (base + after.offset + after.size - 1) // merge:
                    self.heads[lun, offset + size] = after  # another block: stays
                    after = None
                elif self.tails.get((lun, after.offset + after.size)) is after:
                    del self.tails[lun, after.offset + after.size]  # (none at a block's end)
        destager = self.destagers[lun.pool]
        if before is not None:
            extent = before
            extent.recent = True
            extent.size += size
            if after is not None:  # the write fills the gap: one extent of the three
                extent.size += after.size
                after.gone = True
        elif after is not None:
            extent = after  # grows down: in a sweep, queued again at its new start
            extent.recent = True
            extent.offset = offset
            extent.size += size
            if self.sweep:
                destager.push(extent)
        else:
            extent = _Extent(lun, offset, size)
            destager.push(extent)
        end = extent.offset + extent.size
        if (base + end) % merge:
            self.tails[lun, end] = extent
        elif self.tails.get((lun, end)) is extent:  # at its block's end: no more joins up
            del self.tails[lun, end]
        if self.coalesce:
            if (base + extent.offset) % merge:
                self.heads[lun, extent.offset] = extent
            elif self.heads.get((lun, extent.offset)) is extent:
                del self.heads[lun, extent.offset]
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

    def _start(self, destager: Destager, sweep: Sweep | None, extent: _Extent) -> None:
        """Start the destage of ``extent`` (of ``sweep``'s group in sweep order)."""
        lun, offset, size = extent.lun, extent.offset, extent.size
        # no longer open to joins (a backlog extent never was)
        if self.tails.get((lun, offset + size)) is extent:
            del self.tails[lun, offset + size]
        if self.heads.get((lun, offset)) is extent:
            del self.heads[lun, offset]
        destager.active += 1
        if sweep is not None:
            sweep.active += 1
        self.env.process(self._destage(destager, sweep, lun, offset, size))

    def _destage(
        self, destager: Destager, sweep: Sweep | None, lun: Lun, offset: int, size: int
    ) -> Generator[simpy.Event]:
        yield from lun.pool.write(lun.base + offset, size)
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
