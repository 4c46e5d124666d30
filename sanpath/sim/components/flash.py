"""A flash drive built from its datasheet (``model: flash``, :mod:`sanpath.spec.flash`).

The drive has ``units`` flash units, first come first served, and one interface per
direction (one for both on SATA). A read waits its fixed path, then its media parts on the
units (one part, or ``min(units, ceil(size / chunk))`` equal parts on as many units when it
is larger than the stripe chunk), then crosses the interface once at the interface's rate. A
write crosses the interface, then its parts go to the units; it completes ``write_fixed``
after crossing (the drive's power-safe buffer) or when its last part starts on a unit,
whichever is later, so sustained writes run at the units' write rate and reads queued
behind them wait.

Every time is known when the command arrives, as for the other FCFS drives: no event of
its own, one station arrival and one departure per command.

:func:`make_drive` builds any drive model (this one, and those of
:mod:`sanpath.sim.components.drive`).
"""

from __future__ import annotations

import heapq
from collections.abc import Callable

import simpy

from sanpath.sim.components import drive as _drive
from sanpath.sim.components.drive import Drive, DriveOp
from sanpath.sim.station import Station
from sanpath.spec import FlashSpec, HddSpec, SsdSpec, TextbookDriveSpec


class FlashDrive(Drive):
    """A datasheet flash drive: striped flash units and an interface crossed once."""

    def __init__(self, env: simpy.Environment, spec: FlashSpec, station: Station) -> None:
        m = spec.model_parameters
        self.env = env
        self.station = station
        self.capacity = spec.capacity
        self.units = m.units
        self._free: list[float] = [0.0] * m.units
        """When each unit is next free (a heap)."""
        self.seconds_per_byte = 1.0 / m.interface_rate
        self._link: list[float] = [0.0, 0.0]
        """When the interface is next free: [to the host, to the drive]."""
        self._inbound = 1 if m.duplex else 0
        self.read_fixed = m.read_fixed
        self.read_op = m.read_op
        self.read_per_byte = m.read_per_byte
        self.read_chunk = m.read_chunk
        self.write_fixed = m.write_fixed
        self.write_op = m.write_op
        self.write_per_byte = m.write_per_byte
        self.write_chunk = m.write_chunk

    @property
    def outstanding(self) -> int:
        return max(self.station.n, 0)

    def submit(self, op: DriveOp, now: float) -> None:
        op.t_submit = op.t_accept = now
        if op.write:
            start, done = self._write(op.size, now)
        else:
            start, done = self._read(op.size, now)
        op.join.known(self.station, now, start, done)

    def read_known(self, size: int, now: float) -> tuple[float, float]:
        return self._read(size, now)

    def _read(self, size: int, now: float) -> tuple[float, float]:
        """(start on a unit, departure) of a read of ``size`` bytes arriving at ``now``."""
        self.station.arrive(now)
        at = now + self.read_fixed
        free = self._free
        units = self.units
        chunk = self.read_chunk
        if size <= chunk or units == 1:
            earliest = free[0]
            first = earliest if earliest > at else at
            media = first + self.read_op + size * self.read_per_byte
            heapq.heapreplace(free, media)
        else:
            parts = -(-size // chunk)
            if parts > units:
                parts = units
            service = self.read_op + size / parts * self.read_per_byte
            earliest = free[0]
            first = earliest if earliest > at else at
            media = first + service
            heapq.heapreplace(free, media)
            for _ in range(parts - 1):
                earliest = free[0]
                start = earliest if earliest > at else at
                done = start + service
                heapq.heapreplace(free, done)
                if done > media:
                    media = done
        link = self._link
        busy = link[0]
        cross = media if media > busy else busy
        done = cross + size * self.seconds_per_byte
        link[0] = done
        return first, done

    def _write(self, size: int, now: float) -> tuple[float, float]:
        """(start on a unit, acknowledgement) of a write of ``size`` bytes arriving at ``now``."""
        self.station.arrive(now)
        link = self._link
        inbound = self._inbound
        busy = link[inbound]
        cross = now if now > busy else busy
        at = cross + size * self.seconds_per_byte
        link[inbound] = at
        free = self._free
        units = self.units
        chunk = self.write_chunk
        if size <= chunk or units == 1:
            earliest = free[0]
            first = last = earliest if earliest > at else at
            heapq.heapreplace(free, first + self.write_op + size * self.write_per_byte)
        else:
            parts = -(-size // chunk)
            if parts > units:
                parts = units
            service = self.write_op + size / parts * self.write_per_byte
            earliest = free[0]
            first = last = earliest if earliest > at else at
            heapq.heapreplace(free, first + service)
            for _ in range(parts - 1):
                earliest = free[0]
                start = earliest if earliest > at else at
                heapq.heapreplace(free, start + service)
                if start > last:
                    last = start
        ack = at + self.write_fixed
        if last > ack:
            ack = last
        return first, ack


def make_drive(
    env: simpy.Environment,
    spec: HddSpec | SsdSpec | TextbookDriveSpec,
    station: Station,
    sampler: Callable[[], float] | None,
) -> Drive:
    """Build the running drive for ``spec``: a flash drive here, any other model by
    :func:`sanpath.sim.components.drive.make_drive`."""
    if isinstance(spec, FlashSpec):
        return FlashDrive(env, spec, station)
    return _drive.make_drive(env, spec, station, sampler)
