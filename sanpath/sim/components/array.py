"""The array's front end and LUNs.

* :class:`ArrayPort` - a front-end FC port: the link in each direction and the port's
  command queue, ``port_queue_depth`` slots shared by every initiator logged in. A command
  that finds the queue full is answered QUEUE FULL (it is not queued).
* :class:`Lun` - a LUN: its place in the pool's address space, the array's per-LUN queue
  (again answering QUEUE FULL when full), and its read-ahead state.
* :class:`ReadAhead` - the cache's read-ahead on one LUN (the cache's behaviour is told in
  :mod:`sanpath.sim.components.cache`, which names it too): it lives here, beside the LUN
  it reads ahead on, so that the cache imports this module and not the other way round.

The controller is a :class:`~sanpath.sim.station.FcfsServer` with ``cores`` servers, built in
:mod:`sanpath.sim.topology`; the cache lives in :mod:`sanpath.sim.components.cache`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field

import simpy

from sanpath.sim.components.drive import Join
from sanpath.sim.components.raid import RaidPool
from sanpath.sim.station import Link, SlotPool


@dataclass(eq=False)
class ArrayPort:
    """One front-end port of the array."""

    index: int
    queue: SlotPool
    link_in: Link
    link_out: Link
    controller: int
    """The controller (storage processor) the port belongs to
    (:func:`sanpath.layout.port_controller`)."""


@dataclass(eq=False)
class Lun:
    """One LUN (a member of a LUN group in the scenario)."""

    name: str
    index: int
    size: int
    base: int
    pool: RaidPool
    queue: SlotPool
    hit: Callable[[], float]
    read_hits: list[float]
    """Per workload (by index): the read hit ratio its reads (outside read-ahead) see on this
    LUN: the ``read_hit`` written for the LUN group or the cache, or the one derived from the
    workload's access skew and ``read_cache``."""
    write_hit: float
    """Fraction of this LUN's cached writes that overwrite dirty data (no new room, no destage)."""
    write_hit_draw: Callable[[], float]
    destage_merge: int
    owner: int
    """The controller that owns the LUN (:func:`sanpath.layout.lun_owner`)."""
    readahead: ReadAhead | None = field(default=None)


class _Stream:
    """A sequential read stream on one LUN and its prefetched chunks."""

    __slots__ = ("chunks", "next_offset", "prefetched_to", "t_used")

    def __init__(self, next_offset: int, now: float) -> None:
        self.next_offset = next_offset
        self.prefetched_to = next_offset
        self.chunks: deque[tuple[int, int, Join]] = deque()
        self.t_used = now


class ReadAhead:
    """Sequential detection and prefetch for one LUN."""

    MAX_STREAMS = 16

    def __init__(self, env: simpy.Environment, lun: Lun, depth: int, chunk: int) -> None:
        self.env = env
        self.lun = lun
        self.depth = depth
        self.chunk = chunk
        self.reach = max(chunk, depth)
        """How far (bytes) from where a stream has got to a read may start and continue it:
        commands of one stream can arrive slightly out of order (split I/Os, several paths)."""
        self.streams: list[_Stream] = []

    def lookup(self, offset: int, size: int) -> list[simpy.Event] | None:
        """Events to wait for if the read is served by read-ahead, else None (a miss).

        A read that continues a known stream (it starts near where the stream has got to,
        a little before or after) is served from prefetched data; the first read of a new
        stream is a miss and starts tracking it.
        """
        now = self.env.now
        reach = self.reach
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
            join.settle_when_fired()
            stream.chunks.append((start, start + length, join))
            stream.prefetched_to = start + length
        while stream.chunks and stream.chunks[0][1] <= offset:
            stream.chunks.popleft()
        return [join.waited() for lo, _, join in stream.chunks if lo < end and not join.processed]
