"""The array cache: read hits, read-ahead, write-back with destaging, write-aside.

* Random reads hit with probability ``read_hit``; a hit costs ``hit_time`` and no disk I/O.
* Read-ahead: the cache watches each LUN for sequential streams (a read starting where an
  earlier one ended). Once a stream is seen, it keeps ``read_ahead`` bytes prefetched ahead
  of the reader with large back-end reads, so the reader is served from cache and waits
  only when it catches up with a prefetch still in flight.
* Write-back: a write of at most ``write_aside`` bytes is copied into cache and
  acknowledged; the dirty data is destaged through RAID in the background. Destaging runs
  above the low watermark, at full concurrency above the high watermark; when the dirty
  space is full, writes wait for a destage to free room (a forced flush). A write that
  continues a dirty extent still waiting for its destage joins it (up to the LUN's
  ``destage_merge`` bytes), whatever was written in between, so sequential streams destage
  as full stripes even when several of them interleave (several backup files on one LUN).
* Write-aside: larger writes bypass the cache and go straight through RAID; the host waits
  for the drives (CLARiiON/VNX: 2048 blocks = 1 MiB by default).
"""

from __future__ import annotations

from collections import deque
from collections.abc import Generator
from typing import TYPE_CHECKING

import simpy

from sanpath.components.drive import Join
from sanpath.scenario import CacheSpec

if TYPE_CHECKING:
    from sanpath.components.array import Lun


class _Stream:
    """A sequential read stream on one LUN and its prefetched chunks."""

    __slots__ = ("chunks", "next_offset", "prefetched_to", "t_used")

    def __init__(self, next_offset: int, now: float) -> None:
        self.next_offset = next_offset
        self.prefetched_to = next_offset
        self.chunks: deque[tuple[int, int, simpy.Event]] = deque()
        self.t_used = now


class ReadAhead:
    """Sequential detection and prefetch for one LUN."""

    MAX_STREAMS = 16

    def __init__(self, env: simpy.Environment, lun: Lun, depth: int, chunk: int) -> None:
        self.env = env
        self.lun = lun
        self.depth = depth
        self.chunk = chunk
        self.streams: list[_Stream] = []

    def lookup(self, offset: int, size: int) -> list[simpy.Event] | None:
        """Events to wait for if the read is served by read-ahead, else None (a miss).

        A read that continues a known stream (it starts near where the stream has got to,
        a little before or after) is served from prefetched data; the first read of a new
        stream is a miss and starts tracking it.
        """
        now = self.env.now
        # A read continues a stream if it starts near where the stream has got to: commands
        # of one stream can arrive slightly out of order (split I/Os, several paths).
        reach = max(self.chunk, self.depth)
        for stream in self.streams:
            if stream.next_offset - reach <= offset <= stream.next_offset + reach:
                break
        else:
            if len(self.streams) >= self.MAX_STREAMS:
                self.streams.remove(min(self.streams, key=lambda s: s.t_used))
            self.streams.append(_Stream(offset + size, now))
            return None
        end = offset + size
        stream.next_offset = max(stream.next_offset, end)
        stream.t_used = now
        if stream.prefetched_to < offset:
            stream.prefetched_to = offset
            stream.chunks.clear()
        target = min(end + self.depth, self.lun.size)
        while stream.prefetched_to < target:
            start = stream.prefetched_to
            length = min(self.chunk, self.lun.size - start)
            if length <= 0:
                break
            join = self.lun.pool.start_read(self.lun.base + start, length, now)
            join.callbacks.append(_record_departures)
            stream.chunks.append((start, start + length, join))
            stream.prefetched_to = start + length
        while stream.chunks and stream.chunks[0][1] <= offset:
            stream.chunks.popleft()
        return [ev for lo, hi, ev in stream.chunks if lo < end and not ev.processed]


def _record_departures(join: simpy.Event) -> None:
    """When a prefetch's read has fired: record its drives' departures (:meth:`Join.settle`)."""
    assert isinstance(join, Join)
    join.settle(join.env.now)


class _Extent:
    """Dirty bytes [offset, offset + size) of one LUN, waiting to be destaged."""

    __slots__ = ("lun", "offset", "size")

    def __init__(self, lun: Lun, offset: int, size: int) -> None:
        self.lun = lun
        self.offset = offset
        self.size = size


class Cache:
    """The array's shared cache (one per array)."""

    def __init__(self, env: simpy.Environment, spec: CacheSpec) -> None:
        self.env = env
        self.spec = spec
        self.capacity = spec.write_back or 0
        self.write_aside = spec.write_aside
        self.dirty = 0
        self.low = spec.low_watermark * self.capacity
        self.high = spec.high_watermark * self.capacity
        self.concurrency = spec.destage_concurrency
        self.active = 0
        self.extents: deque[_Extent] = deque()
        """Dirty extents in the order they were first written (the destage order)."""
        self.tails: dict[tuple[Lun, int], _Extent] = {}
        """Extents that can still grow, by (LUN, offset where the next write would join)."""
        self.space_waiters: deque[tuple[Lun, int, int, simpy.Event]] = deque()
        self.forced_flushes = 0

    def absorbs(self, size: int) -> bool:
        """True when a write of ``size`` bytes goes into write-back cache."""
        return (
            self.capacity > 0
            and (self.write_aside is None or size <= self.write_aside)
            and size <= self.capacity
        )

    def reserve(self, lun: Lun, offset: int, size: int) -> simpy.Event | None:
        """Put a write into cache; returns an event when it must wait for room."""
        if self.dirty + size <= self.capacity and not self.space_waiters:
            self._admit(lun, offset, size)
            return None
        self.forced_flushes += 1
        event = simpy.Event(self.env)
        self.space_waiters.append((lun, offset, size, event))
        self._kick()
        return event

    def _admit(self, lun: Lun, offset: int, size: int) -> None:
        self.dirty += size
        extent = self.tails.pop((lun, offset), None)
        if extent is not None and extent.size + size <= lun.destage_merge:
            extent.size += size
        else:
            extent = _Extent(lun, offset, size)
            self.extents.append(extent)
        if extent.size < lun.destage_merge:
            self.tails[lun, extent.offset + extent.size] = extent
        self._kick()

    def _allowed(self) -> int:
        if self.dirty > self.high or self.space_waiters:
            return self.concurrency
        if self.dirty > self.low:
            return max(1, self.concurrency // 2)
        return 0

    def _kick(self) -> None:
        while self.extents and self.active < self._allowed():
            extent = self.extents.popleft()
            lun, offset, size = extent.lun, extent.offset, extent.size
            if self.tails.get((lun, offset + size)) is extent:
                del self.tails[lun, offset + size]
            self.active += 1
            self.env.process(self._destage(lun, offset, size))

    def _destage(self, lun: Lun, offset: int, size: int) -> Generator[simpy.Event]:
        yield from lun.pool.write(lun.base + offset, size)
        self.active -= 1
        self.dirty -= size
        # Let writers waiting for room in, in order (a forced flush ends for them).
        while self.space_waiters and self.dirty + self.space_waiters[0][2] <= self.capacity:
            w_lun, w_offset, w_size, event = self.space_waiters.popleft()
            self._admit(w_lun, w_offset, w_size)
            event.succeed()
        self._kick()
