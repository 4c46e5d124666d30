"""Data transfers: the bytes of a command crossing the links of its route, pipelined.

A transfer crosses the links of a :class:`~sanpath.sim.components.host.Leg` tuple in order
(PCIe, the host's FC link, the fabric, the array port's link, or the way back). Each link is
reserved when the first frame reaches it, ``latency`` seconds after the previous link
started sending, so the links work as a pipeline; the data has fully arrived when the
slowest link has sent it. An FC link (a framed leg) carries the data in frames plus the
status frame, each with its overhead (:func:`sanpath.layout.wiring.wire_bytes`); the others
carry the bare data. Times are seconds, sizes bytes.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Final

import simpy

from sanpath.layout.wiring import wire_bytes
from sanpath.sim.components.host import Leg
from sanpath.sim.kernel import Kernel
from sanpath.sim.station import Station

RESERVE_AHEAD: Final = 2e-6
"""How far ahead (s) a transfer may reserve the next link of its way without waking up first.

Reserving slightly early saves an event per link at the cost of at most this much idle
time on that link."""

_WIRE_SIZES: Final = 4096
"""At most this many transfer sizes keep their bytes on the wire in :class:`Transfers`."""


class Transfers:
    """Moves data over the links of a route in ``env``; FC frames carry ``frame_payload``
    bytes of data and ``frame_overhead`` bytes of headers, CRC and delimiters each."""

    __slots__ = ("_wire", "env", "frame_overhead", "frame_payload")

    def __init__(self, env: Kernel, frame_payload: int, frame_overhead: int) -> None:
        self.env = env
        self.frame_payload = frame_payload
        self.frame_overhead = frame_overhead
        self._wire: dict[int, int] = {}
        """Bytes on an FC link by transfer size, for the sizes seen so far."""

    def wire_bytes(self, nbytes: int) -> int:
        """Bytes on an FC link for ``nbytes`` of data plus the status frame."""
        wire = self._wire.get(nbytes)
        if wire is None:
            wire = wire_bytes(nbytes, self.frame_payload, self.frame_overhead)
            if len(self._wire) < _WIRE_SIZES:
                self._wire[nbytes] = wire
        return wire

    def move(
        self, layers: list[float], legs: tuple[Leg, ...], size: int, now: float
    ) -> Generator[simpy.Event, Any, float]:
        """Move ``size`` bytes over ``legs`` from ``now`` (see the module docstring); add the
        time each link adds to its layer of ``layers``; return the time the data arrived.

        A link's departure is recorded once the data has arrived, at that time (its
        station's count is corrected back to when the link finished, see
        :meth:`~sanpath.sim.station.Station.depart`).
        """
        env = self.env
        wire = self._wire.get(size)  # wire_bytes, its common case written out
        if wire is None:
            wire = self.wire_bytes(size)
        prev_start = prev_done = now
        ahead = RESERVE_AHEAD
        booked: list[tuple[Station, float, float, float]] = []
        for link, framed, latency, layer in legs:
            arrive = prev_start + latency
            if arrive - now > ahead:
                yield env.sleep(arrive - now)
                now = env._now
            if link.rate is None:
                start = end = arrive
            else:
                start, end = link.reserve(now, arrive, wire if framed else size)
                booked.append((link.station, now, start, end))
            reach = prev_done + latency  # the data passes this link no sooner
            done = end if end > reach else reach
            layers[layer] += done - prev_done
            prev_start, prev_done = start, done
        if prev_done > now:
            yield env.sleep(prev_done - now)
            now = env._now
        for station, t_booked, start, end in booked:
            station.depart(now, t_booked, start, end)
        return now
