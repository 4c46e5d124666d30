"""The destage queues of the array cache (:mod:`sanpath.sim.components.cache`): the dirty
extents of each RAID pool waiting for their destage, in ``arrival`` order (oldest first) or
in ``sweep`` order (WOW's CSCAN with its recency bit, one sweep per RAID group).
"""

from __future__ import annotations

from collections import deque
from heapq import heappop, heappush

from sanpath.layout.raid import DESTAGE_PER_DRIVE
from sanpath.sim.components.array import Lun
from sanpath.sim.components.raid import RaidPool
from sanpath.spec import CacheSpec, PoolSpec


class Extent:
    """Dirty bytes [offset, offset + size) of one LUN, waiting to be destaged.

    In sweep order an extent is its own entry in its group's heap, ordered by pool address
    and then by when it was queued; it keeps both, so an entry costs one pointer.
    """

    __slots__ = ("gone", "key", "lun", "offset", "recent", "seq", "size")

    def __init__(self, lun: Lun, offset: int, size: int) -> None:
        self.lun = lun
        self.offset = offset
        self.size = size
        self.gone = False
        """True once destaged or joined to a neighbour (a queue entry left behind is skipped)."""
        self.recent = False
        """WOW's recency bit: a write joined this extent since the sweep last passed it."""
        self.key = 0
        """Sweep order: the pool address the extent was queued at (bytes)."""
        self.seq = 0
        """Sweep order: when it was queued (ties at one address go first come, first served)."""

    def __lt__(self, other: Extent) -> bool:
        return self.key < other.key or (self.key == other.key and self.seq < other.seq)


class Openings:
    """The extents of one pool that a write may still join, by the block of the LUN's merge
    size (whole rows) that holds them.

    A write joins an extent only within one aligned block (see the cache's
    :meth:`~sanpath.sim.components.cache.Cache.reserve`), so an extent open to joins lies in
    one block and is found there by its current start or end: one dictionary entry a block,
    not one an end, keeps a large dirty set small (a long run's memory is its cache's, not
    its length's).
    """

    __slots__ = ("blocks",)

    def __init__(self) -> None:
        self.blocks: dict[int, Extent | list[Extent]] = {}
        """Block number (pool address // merge size) -> its open extent, or its open extents
        oldest first when it has several (most blocks have one: a list would triple their
        cost)."""

    def find(self, block: int, lun: Lun, at: int, ending: bool) -> Extent | None:
        """The newest open extent of ``lun`` in ``block`` that ends at ``at`` (``ending``)
        or starts there (LUN bytes)."""
        found = self.blocks.get(block)
        if isinstance(found, Extent):  # most blocks: no list to walk
            return found if _edge_at(found, lun, at, ending) else None
        if found is not None:
            for extent in reversed(found):
                if _edge_at(extent, lun, at, ending):
                    return extent
        return None

    def add(self, block: int, extent: Extent) -> None:
        """Open ``extent`` (which lies in ``block``) to joins."""
        found = self.blocks.get(block)
        if found is None:
            self.blocks[block] = extent
        elif isinstance(found, Extent):
            self.blocks[block] = [found, extent]
        else:
            found.append(extent)

    def remove(self, block: int, extent: Extent) -> None:
        """Close ``extent`` to joins (nothing happens if it was not open)."""
        found = self.blocks.get(block)
        if found is extent:
            del self.blocks[block]
        elif isinstance(found, list) and extent in found:
            found.remove(extent)
            if len(found) == 1:
                self.blocks[block] = found[0]

    def __len__(self) -> int:
        return sum(1 if isinstance(f, Extent) else len(f) for f in self.blocks.values())


def _edge_at(extent: Extent, lun: Lun, at: int, ending: bool) -> bool:
    """True when ``extent`` is of ``lun`` and ends (``ending``) or starts at ``at``."""
    edge = extent.offset + extent.size if ending else extent.offset
    return edge == at and extent.lun is lun


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

    __slots__ = ("active", "ahead", "behind", "pointer", "seq")

    def __init__(self) -> None:
        self.active = 0
        """Destage writes of this group in flight."""
        self.pointer = 0
        """The pool address the sweep has reached (bytes)."""
        self.ahead: list[Extent] = []
        """Extents queued at or after the pointer, a heap (by pool address, then sequence)."""
        self.behind: list[Extent] = []
        """The same, before the pointer (taken once the sweep starts again)."""
        self.seq = 0

    def push(self, extent: Extent) -> None:
        """Queue ``extent`` (not already queued: one that grows down is queued anew as a new
        extent, since a heap entry's place cannot move)."""
        key = extent.key = extent.lun.base + extent.offset
        self.seq += 1
        extent.seq = self.seq
        heappush(self.ahead if key >= self.pointer else self.behind, extent)

    def pop(self) -> Extent | None:
        """The next extent to destage (marked gone), or None when nothing waits."""
        for turn in range(2):  # at most one turn back to the start
            ahead = self.ahead
            while ahead:
                extent = ahead[0]
                if extent.gone:
                    heappop(ahead)  # destaged, or joined to another
                elif extent.recent:  # written since the sweep last came by: the next turn
                    extent.recent = False
                    heappop(ahead)
                    self.seq += 1
                    extent.seq = self.seq
                    heappush(self.behind, extent)
                else:
                    break
            if ahead:
                extent = heappop(ahead)
                self.pointer = extent.key
                extent.gone = True
                return extent
            if turn or not self.behind:
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
        "concurrency",
        "extents",
        "openings",
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
        self.extents: deque[Extent] = deque()
        """Arrival order: dirty extents in the order they were first written."""
        self.sweeps = [Sweep() for _ in range(pool.layout.groups)] if sweep else []
        """Sweep order: one sweep per RAID group (empty in arrival order)."""
        self.turn = 0
        """Sweep order: the group whose turn it is for a destage beyond the even shares."""
        self.openings = Openings()
        """The pool's extents that writes may still join."""

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
