"""Workloads: what the application asks for, one I/O at a time.

A :class:`IoSource` belongs to one workload thread on one host and one LUN (closed loop) or
to one host (open loop). Each call gives the next I/O: its size (fixed or drawn from the
mix), whether it is a read (with probability ``read_fraction``) and its offset in the LUN:
uniform and aligned to the I/O size for ``random``, the next contiguous block for
``sequential`` (wrapping at the end of the span).

A :class:`CopyJob` is the write side of a copy workload (``copy_to``): the buffers it may
use and the sequential files it writes to.

A :class:`Command` is what travels the path: an application I/O, or one child of an I/O
that the host split because it exceeded ``min(max_io_size, max_transfer)``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import simpy

from sanpath.sim.station import SlotPool, Station
from sanpath.sim.streams import UniformStream
from sanpath.spec.scenario import CopySpec, WorkloadSpec

if TYPE_CHECKING:
    from sanpath.sim.components.array import Lun
    from sanpath.sim.components.host import HostInstance


class Command:
    """One SCSI command on its way through the path.

    ``layers`` accumulates the seconds spent in each latency-breakdown layer
    (see :data:`sanpath.results.LAYERS`); they add up to the command's latency.
    """

    __slots__ = ("host", "layers", "lun", "offset", "size", "write")

    def __init__(self, host: HostInstance, lun: Lun, offset: int, size: int, write: bool) -> None:
        self.host = host
        self.lun = lun
        self.offset = offset
        self.size = size
        self.write = write
        self.layers = [0.0] * 10


class IoSource:
    """The stream of I/Os one workload thread sends to one LUN."""

    __slots__ = ("_cum", "_sizes", "_u", "pattern", "position", "read_fraction", "span_bytes")

    def __init__(
        self, spec: WorkloadSpec, lun_size: int, u: UniformStream, thread: int = 0
    ) -> None:
        self._u = u
        self._sizes = [size for size, _ in spec.block_size]
        cum = []
        total = 0.0
        for _, weight in spec.block_size:
            total += weight
            cum.append(total)
        cum[-1] = 1.0
        self._cum = cum
        self.read_fraction = spec.read_fraction
        self.pattern = spec.pattern
        largest = max(self._sizes)
        self.span_bytes = max(int(lun_size * spec.span), largest)
        # Sequential threads on one LUN read separate regions, as sqlio's threads on one
        # file do: thread t starts t/threads of the way in (aligned to the largest I/O).
        start = self.span_bytes * thread // spec.threads
        self.position = start - start % largest

    def next_io(self) -> tuple[int, bool, int]:
        """Return (size in bytes, is_write, offset in bytes within the LUN)."""
        u = self._u
        sizes = self._sizes
        if len(sizes) == 1:
            size = sizes[0]
        else:
            x = u()
            size = sizes[-1]
            for s, c in zip(sizes, self._cum, strict=True):
                if x < c:
                    size = s
                    break
        rf = self.read_fraction
        write = False if rf >= 1.0 else (True if rf <= 0.0 else u() >= rf)
        if self.pattern == "sequential":
            offset = self.position
            if offset + size > self.span_bytes:
                offset = 0
            self.position = offset + size
        else:
            blocks = (self.span_bytes - size) // size + 1
            offset = int(u() * blocks) * size
        return size, write, offset


class CopyFile:
    """One sequential output stream of a copy job: a region of a LUN, written in order.

    ``writes`` holds the file's write slots (``copy_to.depth``); ``writer`` is its writer
    thread (one slot), or None when ``copy_to.writer_time`` is not set.
    """

    __slots__ = ("lun", "position", "region", "start", "writer", "writes")

    def __init__(
        self, lun: Lun, start: int, region: int, writes: SlotPool, writer: SlotPool | None
    ) -> None:
        self.writes = writes
        self.writer = writer
        self.lun = lun
        self.start = start
        self.region = region
        self.position = start


class CopyJob:
    """Where a copy workload on one host writes what it read, and its buffer pool.

    ``files`` sequential streams are spread over the target LUNs in turn (file ``f`` on LUN
    ``f mod n``, each in its own equal region of that LUN); writes take the files round
    robin, each continuing where that file left off (wrapping at the end of its region).
    Regions start on multiples of ``align`` bytes (the largest I/O of the workload), as a
    file system lays out large files in aligned runs: a file that started mid-stripe would
    turn every full-stripe write into read-modify-writes.
    """

    __slots__ = ("_next", "buffers", "files", "ratio", "writer_time")

    def __init__(
        self,
        env: simpy.Environment,
        spec: CopySpec,
        luns: list[Lun],
        buffers: Station,
        writes: Station,
        writers: Station | None = None,
        writer_time: Callable[[], float] | None = None,
        align: int = 1,
    ) -> None:
        """``buffers``, ``writes`` and ``writers``: the stations of the buffer pool, the file
        slots and the files' writer threads; ``writer_time`` draws a writer's time per
        buffer (s). The last two are None without ``copy_to.writer_time``."""
        self.buffers = SlotPool(env, spec.buffers, buffers)
        self.ratio = spec.ratio
        self.writer_time = writer_time
        n = len(luns)
        per_lun = [len(range(i, spec.files, n)) for i in range(n)]
        self.files = []
        for f in range(spec.files):
            lun = luns[f % n]
            region = lun.size // per_lun[f % n] // align * align
            file_writes = SlotPool(env, spec.depth, writes)
            writer = None if writers is None else SlotPool(env, 1, writers)
            self.files.append(CopyFile(lun, (f // n) * region, region, file_writes, writer))
        self._next = 0

    def next_file(self) -> CopyFile:
        """The file the next full buffer goes to (files in turn)."""
        file = self.files[self._next]
        self._next = (self._next + 1) % len(self.files)
        return file

    def write_of(self, file: CopyFile, read_size: int) -> tuple[int, int]:
        """(offset, size) in bytes of the write to ``file`` that empties a buffer."""
        size = max(512, -(-int(read_size * self.ratio) // 512) * 512)
        offset = file.position
        if offset + size > file.start + file.region:
            offset = file.start
        file.position = offset + size
        return offset, size
