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
"""

from __future__ import annotations

from collections.abc import Callable

from sanpath.spec import PoolSpec

_Range = tuple[int, int]  # (drive offset, length) in bytes
Ops = dict[tuple[int, int], list[_Range]]
"""Drive operations by (group, member drive): the byte ranges to read or write."""


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

    def parity_members(self, row: int) -> tuple[int, ...]:
        """Member drive(s) holding the parity of ``row`` (none for RAID 0 and mirrors)."""
        if self.level == "raid5":
            return ((self.width - 1) - (row % self.width),)
        if self.level == "raid6":
            p = (self.width - 1) - (row % self.width)
            return (p, (p + 1) % self.width)
        return ()

    def pieces(self, offset: int, size: int) -> list[tuple[int, int, int, int, int]]:
        """Split [offset, offset+size) into (group, row, j, in-element offset, length)."""
        out = []
        element = self.element
        end = offset + size
        pos = offset
        while pos < end:
            unit = pos // element
            within = pos - unit * element
            length = min(element - within, end - pos)
            group, row, j = self.locate(unit)
            out.append((group, row, j, within, length))
            pos += length
        return out

    def read_ops(
        self, offset: int, size: int, pick: Callable[[int, tuple[int, ...]], int] | None = None
    ) -> Ops:
        """Drive reads for a read; ``pick(group, copies)`` chooses a mirror copy (default the
        first)."""
        ops: Ops = {}
        element = self.element
        for group, row, j, within, length in self.pieces(offset, size):
            members = self.data_members(row, j)
            member = members[0] if pick is None or len(members) == 1 else pick(group, members)
            ops.setdefault((group, member), []).append((row * element + within, length))
        return ops

    def write_ops(self, offset: int, size: int) -> tuple[Ops, Ops]:
        """Drive reads (read-modify-write) and drive writes for a write, by the level."""
        reads: Ops = {}
        writes: Ops = {}
        rows: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
        for group, row, j, within, length in self.pieces(offset, size):
            rows.setdefault((group, row), []).append((j, within, length))
        element = self.element
        for (group, row), parts in rows.items():
            base = row * element
            parity = self.parity_members(row)
            full_row = bool(parity) and sum(length for _, _, length in parts) == self.row_bytes
            lo = min(within for _, within, _ in parts)
            hi = max(within + length for _, within, length in parts)
            for j, within, length in parts:
                for m in self.data_members(row, j):
                    writes.setdefault((group, m), []).append((base + within, length))
                    if parity and not full_row:
                        reads.setdefault((group, m), []).append((base + within, length))
            for p in parity:
                rng = (base, element) if full_row else (base + lo, hi - lo)
                writes.setdefault((group, p), []).append(rng)
                if not full_row:
                    reads.setdefault((group, p), []).append(rng)
        return reads, writes


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


def merged_lengths(ops: Ops) -> list[int]:
    """Lengths of the drive commands ``ops`` becomes once contiguous ranges are merged."""
    return [length for ranges in ops.values() for _, length in merge(ranges)]
