"""Data transfers: the bytes of a command crossing the links of its route, pipelined.

A transfer crosses the links of a :class:`~sanpath.sim.components.host.Leg` tuple in order
(PCIe, the host's FC link, the fabric, the array port's link, or the way back). Each link is
reserved when the first frame reaches it, ``latency`` seconds after the previous link
started sending, so the links work as a pipeline; the data has fully arrived when the
slowest link has sent it. An FC link (a framed leg) carries the data in frames plus the
status frame, each with its overhead, as the route's transport frames it
(:class:`~sanpath.sim.wire.Wire`); the others carry the bare data. Times are seconds, sizes bytes.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Final

import simpy

from sanpath.sim.components.host import Leg
from sanpath.sim.kernel import Kernel
from sanpath.sim.station import Station
from sanpath.sim.wire import Wire

RESERVE_AHEAD: Final = 2e-6
"""How far ahead (s) a transfer may reserve the next link of its way without waking up first.

Reserving slightly early saves an event per link at the cost of at most this much idle
time on that link."""


class Transfers:
    """Moves data over the links of a route in ``env``; a framed link carries a transfer's
    bytes on the wire as the route's :class:`~sanpath.sim.wire.Wire` counts them."""

    __slots__ = ("env",)

    def __init__(self, env: Kernel) -> None:
        self.env = env

    def move(
        self, layers: list[float], legs: tuple[Leg, ...], size: int, now: float, wire: Wire
    ) -> Generator[simpy.Event, Any, float]:
        """Move ``size`` bytes over ``legs`` from ``now`` (see the module docstring), framed
        as ``wire`` counts them; add the time each link adds to its layer of ``layers``;
        return the time the data arrived.

        A link's departure is recorded once the data has arrived, at that time (its
        station's count is corrected back to when the link finished, see
        :meth:`~sanpath.sim.station.Station.depart`).
        """
        env = self.env
        framed_bytes = wire.sizes.get(size)  # Wire.bytes, its common case written out
        if framed_bytes is None:
            framed_bytes = wire.bytes(size)
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
                start, end = link.reserve(now, arrive, framed_bytes if framed else size)
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
