"""The destage queues of the array cache (:mod:`sanpath.sim.components.cache`): the dirty
extents of each RAID pool waiting for their destage, in ``arrival`` order (oldest first) or
in ``sweep`` order (WOW's CSCAN with its recency bit, one sweep per RAID group), and a
preconditioned cache's backlog.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections import deque
from collections.abc import Callable
from heapq import heappop, heappush

from sanpath.layout.raid import DESTAGE_PER_DRIVE
from sanpath.sim.components.array import Lun
from sanpath.sim.components.raid import RaidPool
from sanpath.spec import CacheSpec, PoolSpec


class Extent:
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

    def take(self) -> Extent:
        """The next extent."""
        i = (self.start + self.taken) % len(self.keys)
        self.taken += 1
        lun = self.luns[self.lun_of[i]]
        return Extent(lun, self.keys[i] - lun.base, self.sizes[i])


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
        self.ahead: list[tuple[int, int, Extent]] = []
        """(pool address, sequence, extent) at or after the pointer, a heap."""
        self.behind: list[tuple[int, int, Extent]] = []
        """The same, before the pointer (taken once the sweep starts again)."""
        self.seq = 0
        self.backlogs: list[SortedBacklog] = []

    def push(self, extent: Extent) -> None:
        """Queue ``extent`` (again, with its new start, after it grew down)."""
        key = extent.lun.base + extent.offset
        self.seq += 1
        heappush(self.ahead if key >= self.pointer else self.behind, (key, self.seq, extent))

    def pop(self) -> Extent | None:
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
        self.extents: deque[Extent] = deque()
        """Arrival order: dirty extents in the order they were first written."""
        self.sweeps = [Sweep() for _ in range(pool.layout.groups)] if sweep else []
        """Sweep order: one sweep per RAID group (empty in arrival order)."""
        self.turn = 0
        """Sweep order: the group whose turn it is for a destage beyond the even shares."""

    def group(self, key: int) -> int:
        """The RAID group holding pool address ``key``."""
        layout = self.pool.layout
        return layout.locate(key // layout.element)[0]

    def push(self, extent: Extent) -> None:
        """Queue ``extent`` for destage (again, with its new start, after it grew down)."""
        if self.sweeps:
            self.sweeps[self.group(extent.lun.base + extent.offset)].push(extent)
        else:
            self.extents.append(extent)

    def pop_oldest(self) -> Extent | None:
        """Arrival order: the oldest extent (marked gone), or None when nothing waits."""
        backlog = self.backlog
        if backlog is not None:
            lun, offset, size = backlog.draw()
            size = min(size, backlog.remaining)
            backlog.remaining -= size
            if backlog.remaining <= 0:
                self.backlog = None
            return Extent(lun, offset, size)
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
