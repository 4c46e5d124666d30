"""RAID pools on running drives: one array I/O becomes operations on member drives.

The mapping (which drive holds which bytes, the write penalty of each level, full-stripe
writes, merging of contiguous operations) is :mod:`sanpath.layout.raid`, shared with the
analytic twin; this module submits the operations to the drives and waits for them. A read
of a mirrored pair goes to the copy with fewer commands outstanding.
"""

from __future__ import annotations

from collections.abc import Generator, Sequence
from typing import cast

import simpy

from sanpath.layout.raid import RaidLayout, Spans, ranges
from sanpath.sim.components.drive import Drive, DriveOp, Join, Yielding
from sanpath.sim.kernel import Kernel
from sanpath.sim.station import Station
from sanpath.spec import PoolSpec


class RaidPool:
    """A pool of RAID groups over running drives (``drives[group][member]``)."""

    def __init__(self, env: simpy.Environment, spec: PoolSpec, drives: Sequence[Sequence[Drive]]):
        self.env = env
        """The environment: the simulation's kernel when the pool serves I/Os (a join is one
        of its events)."""
        self.drives = drives
        self.flat = [drive for group in drives for drive in group]
        """Every drive, numbered ``group x drives + member`` (the layout's drive numbers)."""
        self.layout = RaidLayout(spec)
        self.row_bytes = self.layout.row_bytes
        layout = self.layout
        self.spread_rows = layout.groups if layout.slice_rows == 1 and layout.single_copy else 0
        """Rows a read may span with each row in a group of its own (consecutive rows go to
        consecutive groups, one copy of each element): such a read is one command per
        element, each on a drive of its own (:meth:`_submit_spread`); 0 when the pool has
        slices or mirrors."""
        self.known = not any(drive.event_driven for drive in self.flat)
        """Every drive knows when an operation will end as it takes it (no HDD): a small read
        may take :meth:`read_known` rather than a join."""

    def _less_busy(self, group: int, copies: tuple[int, ...]) -> int:
        """The mirror copy with fewer commands outstanding."""
        drives = self.drives[group]
        best = copies[0]
        fewest = drives[best].outstanding
        for m in copies[1:]:
            n = drives[m].outstanding
            if n < fewest:  # ties go to the first copy
                best, fewest = m, n
        return best

    def read_known(self, offset: int, size: int, now: float) -> tuple[Station, float, float] | None:
        """A read of ``size`` bytes at pool ``offset`` at ``now`` that is one element on one
        drive (one of a mirrored pair), on a pool whose drives are :attr:`known`: reserved
        now, its departure known at once; (the drive's station, start, departure), to be
        recorded when the read has waited until the departure. None for a larger read: it
        takes :meth:`start_read`. No join and no event of its own (a small read, nearly
        every time); the array-queue wait is 0.
        """
        layout = self.layout
        element = layout.element
        within = offset % element
        if within + size > element:
            return None
        group, row, j = layout.locate(offset // element)
        copies = layout.data_table[row % layout.width][j]  # layout.members(row, j)
        member = copies[0] if len(copies) == 1 else self._less_busy(group, copies)
        drive = self.drives[group][member]
        start, done = drive.read_known(size, now)
        return drive.station, start, done

    def start_read(self, offset: int, size: int, now: float) -> Join:
        """Submit the drive reads for ``size`` bytes at pool ``offset`` at ``now``.

        Wait on the returned join (an event), then call its ``settle`` with the time; its
        ``queue_wait`` is then the array-queue wait (s).
        """
        layout = self.layout
        element = layout.element
        within = offset % element
        if within + size <= element:
            # The common small read: one element on one drive (one of a mirrored pair).
            group, row, j = layout.locate(offset // element)
            copies = layout.members(row, j)
            member = copies[0] if len(copies) == 1 else self._less_busy(group, copies)
            drive = self.drives[group][member]
            join = Join(cast(Kernel, self.env), now)
            if drive.event_driven:
                join.remaining = 1
            drive.submit(DriveOp(row * element + within, size, False, join), now)
            join.close(now)
            return join
        data_drives = layout.data_drives
        rows = (offset + size - 1) // element // data_drives - offset // element // data_drives
        if rows < self.spread_rows:
            join = self._submit_spread(offset, size, now)
        else:
            join = self._submit(layout.read_commands(offset, size, self._less_busy), False, now)
        join.close(now)
        return join

    def _submit_spread(self, offset: int, size: int, now: float) -> Join:
        """Submit the drive reads of a read whose rows each fall in a group of their own.

        Every element is then a command of its own on a drive of its own, in the order of
        the elements, as :meth:`RaidLayout.read_commands` would give them: this skips the
        ranges it gathers by drive (a prefetch chunk of a pool without slices, every time).
        """
        layout = self.layout
        element = layout.element
        data_drives = layout.data_drives
        width = layout.width
        groups = layout.groups
        table = layout.data_table
        flat = self.flat
        join = Join(cast(Kernel, self.env), now)
        pos = offset
        end = offset + size
        row_global, j = divmod(pos // element, data_drives)
        within = pos % element
        while pos < end:
            row = row_global // groups  # no slices: consecutive rows, consecutive groups
            first = (row_global % groups) * width
            members_of = table[row % width]
            base = row * element
            while j < data_drives and pos < end:
                length = element - within
                if length > end - pos:
                    length = end - pos
                drive = flat[first + members_of[j][0]]
                if drive.event_driven:
                    join.remaining += 1
                drive.submit(DriveOp(base + within, length, False, join), now)
                pos += length
                within = 0
                j += 1
            j = 0
            row_global += 1
        return join

    def write(
        self, offset: int, size: int, background: Yielding | None = None
    ) -> Generator[simpy.Event, None, float]:
        """Write ``size`` bytes at pool ``offset`` with the level's write penalty; a cache's
        destage gives its ``background`` switch to its drive operations (read priority).

        Returns the array-queue wait (s) summed over the read and write phases.
        """
        env = self.env
        reads, writes = self.layout.write_commands(offset, size)
        wait = 0.0
        if reads:
            join = self._submit(reads, False, env.now, background)
            yield join.close(env.now).waited()
            join.settle(env.now)
            wait += join.queue_wait
        join = self._submit(writes, True, env.now, background)
        yield join.close(env.now).waited()
        join.settle(env.now)
        return wait + join.queue_wait

    def _submit(
        self, spans: Spans, write: bool, now: float, background: Yielding | None = None
    ) -> Join:
        join = Join(cast(Kernel, self.env), now)
        flat = self.flat
        for number, bounds in spans.items():
            drive = flat[number]
            counted = drive.event_driven
            if len(bounds) == 2:
                if counted:
                    join.remaining += 1
                drive.submit(
                    DriveOp(bounds[0], bounds[1] - bounds[0], write, join, background), now
                )
                continue
            for start, length in ranges(bounds):
                if counted:
                    join.remaining += 1
                drive.submit(DriveOp(start, length, write, join, background), now)
        return join
