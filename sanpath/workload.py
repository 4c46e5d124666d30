"""Workloads: what the application asks for, one I/O at a time.

A :class:`IoSource` belongs to one workload thread on one host and one LUN (closed loop) or
to one host (open loop). Each call gives the next I/O: its size (fixed or drawn from the
mix), whether it is a read (with probability ``read_fraction``) and its offset in the LUN:
uniform and aligned to the I/O size for ``random``, the next contiguous block for
``sequential`` (wrapping at the end of the span).

A :class:`Command` is what travels the path: an application I/O, or one child of an I/O
that the host split because it exceeded ``min(max_io_size, max_transfer)``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sanpath.scenario import WorkloadSpec
from sanpath.streams import UniformStream

if TYPE_CHECKING:
    from sanpath.components.array import Lun
    from sanpath.components.host import HostInstance


class Command:
    """One SCSI command on its way through the path.

    ``layers`` accumulates the seconds spent in each latency-breakdown layer
    (see :data:`sanpath.topology.LAYERS`); they add up to the command's latency.
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
