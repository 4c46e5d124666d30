"""Drives: the spindles (or flash) at the end of the path.

* :class:`Hdd` - a hard disk. Positioning is a seek (a curve through the datasheet's
  track-to-track, average and full-stroke times) plus the rotational wait until the sector
  passes under the head; then the media transfer at the zone's rate. The drive holds up to
  ``queue_depth`` commands (TCQ/NCQ) and its ``scheduler`` picks the next one among the
  oldest ``reorder_window`` of them: ``fifo`` the oldest; ``elevator`` the nearest cylinder
  in the arm's direction of travel, turning when none is left ahead (LOOK); ``sptf`` the
  shortest positioning time, seek and rotational wait together. With ``elevator`` and
  ``sptf`` the deeper the queue, the shorter the average positioning and the more IOPS the
  drive delivers. Commands beyond its queue wait in the array, FIFO.
* :class:`FcfsDrive` - ``servers`` first-come-first-served servers: an SSD's parallel flash
  units (service = fixed time + size over the per-unit bandwidth share) or a textbook server
  whose service time follows a given distribution (for validation against M/M/1, M/D/1...).
* A flash drive given by its datasheet is :class:`sanpath.sim.components.flash.FlashDrive`.

A drive receives :class:`DriveOp` objects grouped by a :class:`Join`: the RAID layer
submits every member-drive operation of one array I/O and waits on the join's event.

Seek curve: for a seek over a fraction ``x`` of the full stroke,
``t(x) = track + A x + B sqrt(x)``, one curve for reads and one for writes (whose head
settles longer before it writes: the Cheetah 15K.7's write seeks are 0.44 / 3.9 / 7.4 ms).
Datasheet "average seek" weights every start/end pair
(a triangular distance distribution, E[x] = 1/3, E[sqrt x] = 8/15), which gives
``B = (15 avg - 10 track - 5 full) / 3`` and ``A = full - track - B``. For the Cheetah 15K.7
(0.2 / 3.4 / 6.6 ms): A = 1.07 ms, B = 5.33 ms.
"""

from __future__ import annotations

import math
from collections import deque
from collections.abc import Callable
from typing import Any, Final, cast

import simpy

from sanpath.layout.geometry import CYLINDERS, seek_curve
from sanpath.sim.forkjoin import Signal
from sanpath.sim.kernel import NORMAL, Kernel, Waiter
from sanpath.sim.station import FcfsServer, Station
from sanpath.spec import HddSpec, SsdSpec, TextbookDriveSpec

FIFO: Final = 0
ELEVATOR: Final = 1
SPTF: Final = 2
_SCHEDULERS: Final = {"fifo": FIFO, "elevator": ELEVATOR, "sptf": SPTF}
"""A drive's ``scheduler`` as the small integer the serving loop compares."""


class Yielding:
    """A cache's switch: while ``on``, a hard disk serves the host's operations queued at it
    before its destages (the cache's ``read_priority``, below its high watermark)."""

    __slots__ = ("on",)

    def __init__(self) -> None:
        self.on = False


class DriveOp:
    """One member-drive operation of an array I/O (offsets in bytes on the drive)."""

    __slots__ = (
        "background",
        "join",
        "offset",
        "read_offset",
        "size",
        "t_accept",
        "t_start",
        "t_submit",
        "theta",
        "write",
        "x",
        "xfer",
    )

    def __init__(
        self, offset: int, size: int, write: bool, join: Join, background: Yielding | None = None
    ) -> None:
        self.offset = offset
        self.size = size
        self.write = write
        self.read_offset = -2 if write else offset
        """The offset for a read, -2 for a write (a look-ahead buffer serves reads only)."""
        self.join = join
        self.background = background  # a destage's switch (None for the host's operations)
        self.t_submit = 0.0
        self.t_accept = 0.0
        self.t_start = 0.0
        self.x = 0.0
        self.theta = 0.0
        self.xfer = 0.0


class Join:
    """Waits for every operation of one array I/O: its ``event`` fires when the last is done.

    Operations on FCFS drives know their completion time when submitted; those on an HDD
    report back when served. ``queue_wait`` is the time the last-finishing operation spent
    in the array's queue before the drive accepted it (the LUN-queue part of the latency).

    The event is a ``Signal`` (:mod:`sanpath.sim.forkjoin`, the kernel's own), scheduled when
    the last operation is done, so the kernel resumes the process waiting for it directly.
    """

    __slots__ = ("_deferred", "event", "latest", "queue_wait", "remaining")

    def __init__(self, env: Kernel, now: float) -> None:
        self.event = Signal(env)
        self.remaining = 0
        self.latest = now
        self.queue_wait = 0.0
        self._deferred: list[tuple[Station, float, float, float]] | None = None
        """The FCFS operations' departures to record (made on the first)."""

    @property
    def processed(self) -> bool:
        """True once the event has fired and been processed."""
        return self.event.callbacks is None

    def waited(self) -> simpy.Event:
        """The event to wait on, as a process yields it."""
        return self.event.waited()

    def known(self, station: Station, t_arrive: float, t_start: float, t_done: float) -> None:
        """An operation whose departure ``t_done`` is already known."""
        if self._deferred is None:
            self._deferred = []
        self._deferred.append((station, t_arrive, t_start, t_done))
        if t_done >= self.latest:
            self.latest = t_done
            self.queue_wait = 0.0

    def done(self, now: float, queue_wait: float) -> None:
        """An event-driven operation completed at ``now``."""
        self.remaining -= 1
        if now >= self.latest:
            self.latest = now
            self.queue_wait = queue_wait
        if self.remaining == 0:
            self._fire(now)

    def close(self, now: float) -> Join:
        """Every operation submitted (at ``now``): return the join, whose event to wait on."""
        if self.remaining == 0:
            self._fire(now)
        return self

    def _fire(self, now: float) -> None:
        delay = self.latest - now
        event = self.event
        event.env.schedule(event, delay=delay if delay > 0 else 0.0)

    def settle(self, now: float) -> None:
        """Record the departures of the FCFS operations (call once the event fired)."""
        if self._deferred is None:
            return
        for station, t_arrive, t_start, t_done in self._deferred:
            station.depart(now, t_arrive, t_start, t_done)

    def settle_when_fired(self) -> None:
        """Record the departures when the event is processed (a prefetch nobody waits for
        yet: they are recorded before any process that waits for it resumes)."""
        callbacks = self.event.callbacks
        assert callbacks is not None  # not yet processed
        callbacks.append(self._fired)

    def _fired(self, event: Any) -> None:
        self.settle(self.event.env._now)


class Drive:
    """Common interface: ``submit(op, now)`` and ``outstanding``."""

    capacity: int
    station: Station
    event_driven: bool = False
    """True when completions are reported later through ``Join.done``."""

    def submit(self, op: DriveOp, now: float) -> None:  # pragma: no cover - interface
        """Hand ``op`` to the drive at ``now`` (the current simulated time, s)."""
        raise NotImplementedError

    def read_known(self, size: int, now: float) -> tuple[float, float]:  # pragma: no cover
        """A read of ``size`` bytes at ``now`` on a drive that is not event driven: its (start,
        departure), known at once (s)."""
        raise NotImplementedError

    @property
    def outstanding(self) -> int:  # pragma: no cover - interface
        raise NotImplementedError


class Hdd(Drive, Waiter):
    """A hard disk with a seek curve, rotation, zoned transfer and a reordering command queue."""

    event_driven = True

    def __init__(self, env: simpy.Environment, spec: HddSpec, station: Station) -> None:
        self.env = env
        self.station = station
        self.capacity = spec.capacity
        self.rev = 60.0 / spec.rpm
        self.track, self.seek_a, self.seek_b = seek_curve(spec)
        self.seek_floor = _floor(self.seek_a, self.seek_b)
        self.w_track, self.w_seek_a, self.w_seek_b = seek_curve(spec, write=True)
        """A write's seek curve (its head settles longer before it writes)."""
        self.w_seek_floor = _floor(self.w_seek_a, self.w_seek_b)
        self.overhead = spec.overhead
        self.depth = spec.queue_depth
        self.scheduler = _SCHEDULERS[spec.scheduler]
        # No window: every queued command is a candidate (after a completion the drive also
        # takes the next one waiting in the array before it chooses, so up to depth + 1).
        self.window = spec.reorder_window if spec.reorder_window is not None else 1 << 30
        self.upward = True
        """The elevator's direction of travel (towards the inner tracks)."""
        self.aging = spec.aging
        self.lookahead = spec.read_lookahead
        self.rate_outer = spec.media_rate_outer
        self.rate_span = spec.media_rate_outer - spec.media_rate_inner
        self.pending: deque[DriveOp] = deque()
        self.tcq: list[DriveOp] = []
        self.deferrable = 0  # operations in `tcq` with a `background` switch (destages)
        self.busy = False
        self.head = 0.0
        self.last_read_end = -1
        self.current: DriveOp | None = None
        # The end of the current operation: one event of the kernel, scheduled again for
        # every operation (the drive serves one at a time), instead of a new Timeout each
        # time; made when the drive first serves one.
        self._served: Signal | None = None
        self._no_callbacks: list[Callable[[Any], None]] = []
        """The event's callbacks when scheduled: none (the kernel resumes the drive)."""

    @property
    def outstanding(self) -> int:
        return len(self.pending) + len(self.tcq) + (1 if self.busy else 0)

    def submit(self, op: DriveOp, now: float) -> None:
        op.t_submit = now
        x = op.offset / self.capacity
        rate = self.rate_outer - self.rate_span * x
        op.x = x
        op.xfer = op.size / rate
        turns = op.offset / (rate * self.rev)
        op.theta = turns - math.floor(turns)  # turns % 1.0 without fmod (see _shortest)
        self.station.arrive(now)
        if len(self.tcq) < self.depth:
            op.t_accept = now
            self.tcq.append(op)
            self.deferrable += op.background is not None
        else:
            self.pending.append(op)
        if not self.busy:
            self._start(now)

    def _start(self, now: float) -> None:
        tcq = self.tcq
        queue = tcq
        if self.deferrable and self.deferrable < len(tcq):
            # destages that yield (read priority) wait while host operations are queued
            queue = [op for op in tcq if op.background is None or not op.background.on] or tcq
        # The scheduler chooses among the oldest `window` queued commands (the list keeps
        # arrival order); FIFO takes the oldest.
        scheduler = self.scheduler
        if len(queue) == 1 or scheduler == FIFO:
            # one command (any scheduler chooses it) or FIFO: the oldest
            op = queue[0]
            positioning = self._positioning(op, now)
        else:
            candidates = queue
            if len(queue) > self.window:
                # A read the look-ahead buffer holds is a cache hit: the drive serves it
                # wherever it sits in the queue; the window bounds only the mechanical choice.
                candidates = queue[: self.window]
                buffered = self._buffered(queue)
                if buffered is not None:
                    candidates.append(buffered)
            if scheduler == SPTF:
                op, positioning = self._shortest(candidates, now)
            elif len(candidates) > 1:
                op = self._next_on_sweep(candidates)
                positioning = self._positioning(op, now)
            else:
                op = queue[0]
                positioning = self._positioning(op, now)
        # by identity, from the oldest (list.remove would compare the others with ==)
        i = 0
        while tcq[i] is not op:
            i += 1
        tcq.pop(i)
        self.deferrable -= op.background is not None
        self.busy = True
        self.current = op
        op.t_start = now
        served = self._served
        if served is None:
            served = self._served = Signal(cast(Kernel, self.env))
            served.task = self  # the kernel calls resume when the operation ends
        served.callbacks = self._no_callbacks  # the kernel sets them to None when processed
        served.env.schedule(served, NORMAL, positioning + op.xfer)

    def _buffered(self, tcq: list[DriveOp]) -> DriveOp | None:
        """The read queued beyond the window that continues the last one (in the look-ahead
        buffer), if any: found by index, without copying the rest of the queue."""
        if self.lookahead:
            streaming = self.last_read_end
            for i in range(self.window, len(tcq)):
                op = tcq[i]
                if op.read_offset == streaming:
                    return op
        return None

    def _next_on_sweep(self, candidates: list[DriveOp]) -> DriveOp:
        """The elevator's next command: the nearest cylinder ahead of the arm (LOOK).

        A read that continues the last one (served from the look-ahead buffer) counts as
        distance zero. With nothing left ahead the arm turns round. Ties go to the oldest.
        """
        head = self.head
        streaming = self.last_read_end if self.lookahead else -1
        ahead: DriveOp | None = None
        behind: DriveOp | None = None
        best_ahead = best_behind = math.inf
        upward = self.upward
        for op in candidates:
            if op.read_offset == streaming:
                return op
            d = op.x - head
            if not upward:
                d = -d
            if d >= 0.0:
                if d < best_ahead:
                    best_ahead, ahead = d, op
            elif -d < best_behind:
                best_behind, behind = -d, op
        if ahead is not None:
            return ahead
        assert behind is not None
        self.upward = not upward
        return behind

    def _shortest(self, tcq: list[DriveOp], now: float) -> tuple[DriveOp, float]:
        """The command of ``tcq`` with the shortest positioning time, and that time (s).

        Positioning is the seek (zero within one cylinder) plus the rotational wait until the
        sector passes under the head; a read that continues the last one comes from the
        drive's look-ahead buffer and needs none.

        With ``aging`` each second a command has waited in the drive counts as that many
        seconds less positioning, so commands far from the head are not starved (aged SPTF).

        The loop is written out with local names: it runs for every operation a drive serves.
        """
        head, rev, overhead = self.head, self.rev, self.overhead
        r_track, r_a, r_b, r_floor = self.track, self.seek_a, self.seek_b, self.seek_floor
        w_track, w_a, w_b = self.w_track, self.w_seek_a, self.w_seek_b
        w_floor = self.w_seek_floor
        aging = self.aging
        streaming = self.last_read_end if self.lookahead else -1
        t_ready = now + overhead
        best_op = tcq[0]
        best = best_score = math.inf
        for op in tcq:
            credit = aging * (now - op.t_accept)
            if op.read_offset == streaming:
                p = 0.0  # the drive's look-ahead buffer already holds it
            else:
                d = op.x - head
                if d < 0.0:
                    d = -d
                if d * CYLINDERS >= 1.0:
                    if op.write:
                        track, a, b, floor = w_track, w_a, w_b, w_floor
                    else:
                        track, a, b, floor = r_track, r_a, r_b, r_floor
                    if floor >= 0.0 and track + floor * d - credit >= best_score:
                        continue  # even the seek's lower bound is too long (no square root)
                    seek = track + a * d + b * math.sqrt(d)
                else:
                    seek = 0.0
                if seek - credit >= best_score:
                    continue  # the rotational wait only adds to the seek: cannot be shorter
                turns = op.theta - (t_ready + seek) / rev
                # the wait as a fraction of a turn: turns % 1.0 to the last bit, without C's
                # fmod, whose long division costs more than the rest of this loop
                p = seek + (turns - math.floor(turns)) * rev
            score = p - credit
            if score < best_score:
                best, best_score, best_op = p, score, op
        return best_op, overhead + best

    def _positioning(self, op: DriveOp, now: float) -> float:
        """The time (s) from ``now`` until the drive can transfer ``op``'s data: overhead,
        seek and rotational wait (:meth:`_shortest` for one command, no aging to weigh)."""
        overhead = self.overhead
        if self.lookahead and op.read_offset == self.last_read_end:
            return overhead + 0.0  # the drive's look-ahead buffer already holds it
        d = op.x - self.head
        if d < 0.0:
            d = -d
        if d * CYLINDERS >= 1.0:
            if op.write:
                seek = self.w_track + self.w_seek_a * d + self.w_seek_b * math.sqrt(d)
            else:
                seek = self.track + self.seek_a * d + self.seek_b * math.sqrt(d)
        else:
            seek = 0.0
        rev = self.rev
        turns = op.theta - (now + overhead + seek) / rev
        return overhead + (seek + (turns - math.floor(turns)) * rev)  # % 1.0 as in _shortest

    def resume(self, served: Signal) -> None:
        """The operation in service ends: ``served`` (the drive's event) is processed now."""
        now = served.env._now  # the kernel's attribute: read natively, for every operation
        op = self.current
        assert op is not None
        self.busy = False
        self.current = None
        self.head = op.x
        self.last_read_end = -1 if op.write else op.offset + op.size
        self.station.depart(now, op.t_submit, op.t_start, now)
        if self.pending:
            nxt = self.pending.popleft()
            nxt.t_accept = now
            self.tcq.append(nxt)
            self.deferrable += nxt.background is not None
        op.join.done(now, op.t_accept - op.t_submit)
        if self.tcq:
            self._start(now)


def _floor(a: float, b: float) -> float:
    """The slope of a lower bound ``track + floor x d`` of the seek curve with ``A``, ``B``.

    sqrt(d) >= d on the stroke (0 <= d <= 1), so track + (A + B) d bounds the seek from below
    when A and B are not negative; shaved by a relative 1e-9 so that rounding can never make
    the bound exceed the seek itself. -1 when there is no such bound.
    """
    return (a + b) * (1.0 - 1e-9) if a >= 0.0 and b >= 0.0 else -1.0


class FcfsDrive(Drive):
    """``servers`` FCFS servers: an SSD's flash units or a textbook server."""

    def __init__(
        self,
        env: simpy.Environment,
        server: FcfsServer,
        service: Callable[[int, bool], float],
        capacity: int,
    ) -> None:
        """``service(size, write)``: the service time (s) of an operation of ``size`` bytes."""
        self.env = env
        self.server = server
        self.station = server.station
        self.service = service
        self.capacity = capacity

    @property
    def outstanding(self) -> int:
        return max(self.station.n, 0)

    def submit(self, op: DriveOp, now: float) -> None:
        op.t_submit = op.t_accept = now
        start, done = self.server.reserve(now, self.service(op.size, op.write))
        op.join.known(self.station, now, start, done)

    def read_known(self, size: int, now: float) -> tuple[float, float]:
        return self.server.reserve(now, self.service(size, False))


def make_drive(
    env: simpy.Environment,
    spec: HddSpec | SsdSpec | TextbookDriveSpec,
    station: Station,
    sampler: Callable[[], float] | None,
) -> Drive:
    """Build the running drive for ``spec`` (``sampler`` draws textbook service times).

    A flash drive given by its datasheet (``model: flash``) is built by
    :func:`sanpath.sim.components.flash.make_drive`, which builds the others here.
    """
    assert getattr(spec, "model", "") != "flash", "flash drives: sanpath.sim.components.flash"
    if isinstance(spec, HddSpec):
        return Hdd(env, spec, station)
    if isinstance(spec, SsdSpec):
        per_unit = spec.bandwidth / spec.units
        read_t, write_t = spec.read_time, spec.write_time

        def ssd_service(size: int, write: bool) -> float:
            return (write_t if write else read_t) + size / per_unit

        return FcfsDrive(env, FcfsServer(env, spec.units, station), ssd_service, spec.capacity)
    assert sampler is not None
    draw = sampler
    server = FcfsServer(env, spec.servers, station)
    return FcfsDrive(env, server, lambda _size, _write: draw(), spec.capacity)
