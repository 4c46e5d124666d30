"""RAID mapping: where a pool's bytes live, and the drive operations an I/O becomes.

Pure arithmetic over a :class:`~sanpath.spec.scenario.PoolSpec`, shared by the simulator's
RAID pools (:mod:`sanpath.sim.components.raid`) and the analytic twin. A pool is ``groups``
RAID groups of ``drives`` drives each. The pool's address space is cut into stripe rows of
``data_drives x stripe_element`` bytes; consecutive rows go to consecutive groups (the way a
striped metaLUN spreads over its RAID groups), or, with a ``slice``, consecutive slices of
that many bytes do (a virtual pool that allocates LUNs in slices: 1 GiB on an EMC VNX), so
a sequential stream stays in one group for a slice.

* RAID 0: each element on one drive; a write costs one drive write.
* RAID 1 / 10: mirrored pairs; a read goes to one copy, a write to both (write penalty 2).
* RAID 5: one rotating parity element per row (left-symmetric). A write covering whole rows
  is a full-stripe write (data + parity, no reads); a smaller write is a read-modify-write:
  read old data and old parity, then write both (penalty 4 for one element).
* RAID 6: two rotating parity elements (P, Q): a small write reads and writes data, P and Q
  (penalty 6).

Operations on the same drive at contiguous offsets are merged (:func:`merge`), so a large
I/O costs one command per member drive.

:meth:`RaidLayout.read_commands` and :meth:`RaidLayout.write_commands` give the drive
commands of a read and of a write, merged and in the order the simulator submits them, row
by row with the member tables computed once per pool (they run for every back-end I/O of a
run); the twin counts the same commands (:func:`command_lengths`). The layout test checks
them against the mapping stated element by element.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from sanpath.spec import PoolSpec

WRITE_PENALTY: Final = {"raid0": 1, "raid1": 2, "raid10": 2, "raid5": 4, "raid6": 6}
"""Drive operations per element of a small random write, by RAID level (the write penalty:
the mirror's two writes, RAID 5's read-modify-write of data and parity, RAID 6's of P and Q)."""

DESTAGE_PER_DRIVE: Final = 4
"""Destage writes in flight per drive of a pool at full speed, when the cache's
``destage_concurrency`` is not given.

Gill and Modha ("WOW: Wise Ordering for Writes", USENIX FAST 2005, sections 4.4 and 5.1) keep
up to MAXQUEUE = 20 destages outstanding on a RAID-5 array of five disks, "to utilize the full
throughput potential" of its drives: enough queued writes for each drive's own scheduler to
reorder, 4 per drive."""

_Range = tuple[int, int]  # (drive offset, length) in bytes
Spans = dict[int, list[int]]
"""Drive commands by drive (numbered ``group x drives + member``), drives in the order an I/O
first reaches them: the byte ranges as a flat ``[start, stop, start, stop, ...]`` list, a
range that continues the one before already joined to it (:func:`ranges` merges the rest)."""


class RaidLayout:
    """Where a pool's bytes live: the pure mapping, shared by the simulator and the twin."""

    def __init__(self, spec: PoolSpec) -> None:
        self.level = spec.raid
        self.width = spec.drives
        self.element = spec.stripe_element
        self.data_drives = spec.data_drives
        self.groups = spec.groups
        self.row_bytes = self.data_drives * self.element
        self.slice_rows = 1 if spec.slice is None else spec.slice // self.row_bytes
        """Consecutive rows that stay in one group before the next group takes over."""
        self.data_table = [
            [self.data_members(r, j) for j in range(self.data_drives)] for r in range(self.width)
        ]
        """Member drives of data element ``j`` of a row, by (row mod drives, ``j``)."""
        self.single_copy = self.level not in ("raid1", "raid10")
        """Each data element on one drive (no mirror copy to choose)."""
        self._parity = [self.parity_members(r) for r in range(self.width)]
        """Parity members of a row, by row mod drives."""

    def locate(self, unit: int) -> tuple[int, int, int]:
        """(group, row within the group, data index in the row) of pool element ``unit``."""
        row_global, j = divmod(unit, self.data_drives)
        slice_index, row_in_slice = divmod(row_global, self.slice_rows)
        row = (slice_index // self.groups) * self.slice_rows + row_in_slice
        return slice_index % self.groups, row, j

    def data_members(self, row: int, j: int) -> tuple[int, ...]:
        """Member drive(s) holding data element ``j`` of ``row`` (both copies for mirrors)."""
        level = self.level
        if level == "raid0":
            return (j,)
        if level in ("raid1", "raid10"):
            return (2 * j, 2 * j + 1)
        width = self.width
        p = (width - 1) - (row % width)
        if level == "raid5":
            return ((p + 1 + j) % width,)
        return ((p + 2 + j) % width,)  # raid6: P at p, Q at p + 1

    def members(self, row: int, j: int) -> tuple[int, ...]:
        """:meth:`data_members` from the pool's table (made once)."""
        return self.data_table[row % self.width][j]

    def parity_members(self, row: int) -> tuple[int, ...]:
        """Member drive(s) holding the parity of ``row`` (none for RAID 0 and mirrors)."""
        if self.level == "raid5":
            return ((self.width - 1) - (row % self.width),)
        if self.level == "raid6":
            p = (self.width - 1) - (row % self.width)
            return (p, (p + 1) % self.width)
        return ()

    def _place(self, row_global: int) -> tuple[int, int]:
        """(drive number of the group's member 0, row within the group) of pool row
        ``row_global``."""
        slice_index, row_in_slice = divmod(row_global, self.slice_rows)
        row = (slice_index // self.groups) * self.slice_rows + row_in_slice
        return (slice_index % self.groups) * self.width, row

    def read_commands(
        self, offset: int, size: int, pick: Callable[[int, tuple[int, ...]], int] | None = None
    ) -> Spans:
        """The drive reads of a read of ``size`` bytes at pool ``offset``, by drive number
        (see :data:`Spans`); ``pick(group, copies)`` chooses a mirror copy (default the
        first)."""
        spans: Spans = {}
        element = self.element
        data_drives = self.data_drives
        width = self.width
        pos = offset
        end = offset + size
        slice_rows = self.slice_rows
        row_global, j = divmod(pos // element, data_drives)
        within = pos % element
        first, row = self._place(row_global)
        while pos < end:
            members_of = self.data_table[row % width]
            base = row * element
            while j < data_drives and pos < end:
                length = element - within
                if length > end - pos:
                    length = end - pos
                members = members_of[j]
                if len(members) == 1 or pick is None:
                    member = members[0]
                else:
                    member = pick(first // width, members)
                start = base + within
                _add(spans, first + member, start, start + length)
                pos += length
                within = 0
                j += 1
            j = 0
            row_global += 1
            if row_global % slice_rows:
                row += 1  # the slice goes on: the group's next row
            else:
                first, row = self._place(row_global)
        return spans

    def write_commands(self, offset: int, size: int) -> tuple[Spans, Spans]:
        """The drive reads (read-modify-write) and writes of a write of ``size`` bytes at
        pool ``offset``, by the level, by drive number (see :data:`Spans`)."""
        reads: Spans = {}
        writes: Spans = {}
        element = self.element
        row_bytes = self.row_bytes
        width = self.width
        pos = offset
        end = offset + size
        while pos < end:
            row_global = pos // row_bytes
            row_start = row_global * row_bytes
            a = pos - row_start  # the bytes [a, b) of the row
            b = end - row_start if end - row_start < row_bytes else row_bytes
            first, row = self._place(row_global)
            base = row * element
            members_of = self.data_table[row % width]
            parity = self._parity[row % width]
            full_row = len(parity) > 0 and a == 0 and b == row_bytes
            rmw = len(parity) > 0 and not full_row
            j0 = a // element
            j1 = (b - 1) // element
            for j in range(j0, j1 + 1):
                lo = a if j == j0 else j * element
                hi = b if j == j1 else (j + 1) * element
                start = base + lo - j * element
                stop = start + hi - lo
                for m in members_of[j]:
                    _add(writes, first + m, start, stop)
                    if rmw:
                        _add(reads, first + m, start, stop)
            if parity:
                if full_row:
                    p_start, p_stop = base, base + element
                elif j0 == j1:
                    p_start, p_stop = base + a - j0 * element, base + b - j0 * element
                else:
                    p_start, p_stop = base, base + element
                for p in parity:
                    _add(writes, first + p, p_start, p_stop)
                    if rmw:
                        _add(reads, first + p, p_start, p_stop)
            pos = row_start + b
        return reads, writes


def _add(spans: Spans, drive: int, start: int, stop: int) -> None:
    """Add bytes [start, stop) to ``drive``'s flat [start, stop, start, stop, ...] list,
    extending the last range when the new one continues it."""
    bounds = spans.get(drive)
    if bounds is None:
        spans[drive] = [start, stop]
    elif bounds[-1] == start:
        bounds[-1] = stop
    else:
        bounds.append(start)
        bounds.append(stop)


def ranges(bounds: list[int]) -> list[_Range]:
    """The drive commands of one drive's flat ``[start, stop, ...]`` list of :data:`Spans`:
    (offset, length) ranges, merged (:func:`merge`)."""
    if len(bounds) == 2:
        return [(bounds[0], bounds[1] - bounds[0])]
    return merge([(bounds[i], bounds[i + 1] - bounds[i]) for i in range(0, len(bounds), 2)])


def merge(ranges: list[_Range]) -> list[_Range]:
    """Merge contiguous or overlapping (offset, length) ranges."""
    if len(ranges) == 1:
        return ranges
    ranges = sorted(ranges)
    out = [ranges[0]]
    for start, length in ranges[1:]:
        last_start, last_len = out[-1]
        if start <= last_start + last_len:
            out[-1] = (last_start, max(last_start + last_len, start + length) - last_start)
        else:
            out.append((start, length))
    return out


def command_lengths(spans: Spans) -> list[int]:
    """Lengths of the drive commands of ``spans`` (bytes), drive by drive."""
    return [length for bounds in spans.values() for _, length in ranges(bounds)]
