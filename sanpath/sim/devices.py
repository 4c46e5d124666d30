"""What one host's view of one LUN counts: the commands it sent, as host tools see them.

A :class:`DeviceCounter` is made the first time a host sends a command to a LUN. It counts
the measured commands by direction, their bytes, their latencies, their time in the host's
own stack and in its per-LUN queue (what esxtop splits off as KAVG and QAVG), the QUEUE FULL
answers, the time at least one command was outstanding (``%util``) and the time-integral of
the commands outstanding (ACTV + QUED as esxtop samples them; it counts commands that never
complete in the window too). :meth:`DeviceCounter.figures` turns the sums into a
:class:`~sanpath.results.DeviceFigures`. Times in seconds.
"""

from __future__ import annotations

from typing import Final

from sanpath.results import LAYERS, DeviceFigures

# Final: constants of the compiled core, not names looked up for every command
_HOST: Final = LAYERS.index("host")
_HOST_QUEUE: Final = LAYERS.index("host_queue")


class DeviceCounter:
    """The commands from host ``host`` to LUN ``lun``."""

    __slots__ = (
        "active",
        "area",
        "area_since",
        "busy",
        "busy_since",
        "bytes_read",
        "bytes_written",
        "host",
        "host_queue_time",
        "host_time",
        "lun",
        "qfull",
        "read_time",
        "reads",
        "write_time",
        "writes",
    )

    def __init__(self, host: str, lun: str) -> None:
        self.host = host
        self.lun = lun
        self.active = 0
        """Commands outstanding now (measured or not)."""
        self.busy_since = 0.0
        self.area = 0.0
        self.area_since = 0.0
        self.reset(0.0)

    def reset(self, now: float) -> None:
        """Start counting again at ``now`` (the measurement window opens)."""
        self.reads = 0
        self.writes = 0
        self.bytes_read = 0
        self.bytes_written = 0
        self.read_time = 0.0
        self.write_time = 0.0
        self.host_time = 0.0
        self.host_queue_time = 0.0
        self.qfull = 0
        self.busy = 0.0
        self.busy_since = now
        self.area = 0.0
        self.area_since = now

    def begin(self, now: float) -> None:
        """A command to the device starts at ``now``."""
        if self.active == 0:
            self.busy_since = now
        self.area += self.active * (now - self.area_since)
        self.area_since = now
        self.active += 1

    def end(
        self,
        now: float,
        write: bool,
        size: int,
        latency: float,
        layers: list[float],
        measuring: bool,
    ) -> None:
        """A command of ``size`` bytes that took ``latency`` seconds (``layers``: its time per
        latency-breakdown layer) ends at ``now``; counted when ``measuring``."""
        self.area += self.active * (now - self.area_since)
        self.area_since = now
        self.active -= 1
        if self.active == 0:
            self.busy += now - self.busy_since
        if not measuring:
            return
        self.host_time += layers[_HOST]
        self.host_queue_time += layers[_HOST_QUEUE]
        if write:
            self.writes += 1
            self.bytes_written += size
            self.write_time += latency
        else:
            self.reads += 1
            self.bytes_read += size
            self.read_time += latency

    def figures(self, now: float, span: float, depth: float | None) -> DeviceFigures:
        """The figures of the window that ends at ``now`` and lasted ``span`` seconds;
        ``depth`` is the sum of the host's per-LUN queue depths over its paths now, after
        any throttle or schedule changed them (esxtop's DQLEN; None when unlimited)."""
        busy = self.busy + (now - self.busy_since if self.active else 0.0)
        # the fields in their order (positional: a thousand hosts have tens of thousands of
        # devices at the end of a run, and keywords cost a call twice as much)
        return DeviceFigures(
            self.host,  # host
            self.lun,  # lun
            span,  # span_s
            self.reads,  # reads
            self.writes,  # writes
            self.bytes_read,  # bytes_read
            self.bytes_written,  # bytes_written
            self.read_time,  # read_time_s
            self.write_time,  # write_time_s
            self.host_time,  # host_s
            self.host_queue_time,  # host_queue_s
            min(busy, span),  # busy_s
            self.qfull,  # qfull
            depth,  # dqlen
            self.area + self.active * (now - self.area_since),  # outstanding_s
        )
