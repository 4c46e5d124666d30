"""Data transfers: the bytes of a command crossing the links of its route, pipelined.

A transfer crosses the links of a :class:`~sanpath.sim.components.host.Leg` tuple in order
(PCIe, the host's FC link, the fabric, the array port's link, or the way back). Each link is
reserved when the first frame reaches it, ``latency`` seconds after the previous link
started sending, so the links work as a pipeline; the data has fully arrived when the
slowest link has sent it. An FC link (a framed leg) carries the data in frames plus the
status frame, each with its overhead, as the route's transport frames it
(:class:`~sanpath.sim.wire.Wire`); the others carry the bare data. Times are seconds, sizes bytes.

A switch's ISL port (a link that :attr:`~sanpath.sim.station.Link.holds`) gets its credits
back only once the next link has taken the frames, so a slow link behind it holds them. A
switch drops frames that would wait longer than ``frame_timeout`` for the next link (their
credits come back then): the transfer is lost, the host notices it after
``error_detect`` seconds and the data is sent again. Once a switch has dropped
``fence_after`` frames for one egress port it fences the port: every frame for it is
dropped at once, and its host's I/O goes nowhere.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any, Final

import simpy

from sanpath.sim.components.host import Leg
from sanpath.sim.kernel import Kernel
from sanpath.sim.station import Link, Station
from sanpath.sim.wire import Wire

RESERVE_AHEAD: Final = 2e-6
"""How far ahead (s) a transfer may reserve the next link of its way without waking up first.

Reserving slightly early saves an event per link at the cost of at most this much idle
time on that link."""


class Transfers:
    """Moves data over the links of a route in ``env``; a framed link carries a transfer's
    bytes on the wire as the route's :class:`~sanpath.sim.wire.Wire` counts them."""

    __slots__ = ("env", "error_detect", "fence_after", "frame_timeout")

    def __init__(
        self,
        env: Kernel,
        frame_timeout: float = 0.0,
        error_detect: float = 0.0,
        fence_after: int = 0,
    ) -> None:
        self.env = env
        self.fence_after = fence_after
        """Frames dropped for one egress port after which its switch fences it (0: never);
        a fenced port's frames are dropped as they come."""
        self.frame_timeout = frame_timeout
        """Seconds a switch holds a frame before it drops it (0: never)."""
        self.error_detect = error_detect
        """Seconds until the host notices a lost transfer and has the data sent again."""

    def move(
        self,
        layers: list[float],
        legs: tuple[Leg, ...],
        size: int,
        now: float,
        wire: Wire,
        owner: int = -1,
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
        holder: Link | None = None  # a switch port waiting to hand its frames on (an ISL)
        first = sent = 0  # the numbers of the frames it holds
        timeout = self.frame_timeout
        lost_layer = -1  # the layer of the link before which a switch dropped the frames
        for i, (link, framed, latency, layer) in enumerate(legs):
            arrive = prev_start + latency
            if arrive - now > ahead:
                yield env.sleep(arrive - now)
                now = env._now
            if link.rate is None:
                start = end = arrive
            else:
                if link.holds:
                    link.owner = owner  # whose frames hold its credits
                start, end = link.reserve(now, arrive, framed_bytes if framed else size)
                booked.append((link.station, now, start, end))
                if holder is not None:
                    holder.handed(start, end, link.starving > 0.0, first, sent)
                if link.holds:
                    holder = link.carrier()
                    first, sent = holder.first, holder.sent
                    # when the next link will take the frames, as it stands now: their
                    # credits stay away until then (the next link's own reservation,
                    # later, may keep them longer)
                    after = legs[i + 1]
                    way = after.link
                    rate = way.rate
                    take = took = start + after.latency
                    blocked = False
                    if rate is not None:
                        nbytes = framed_bytes if after.framed else size
                        take = way.ready(take)
                        pace = way.sustained()
                        took = take + nbytes / pace
                        blocked = pace < rate
                    if way.fenced or (timeout > 0.0 and took - end - after.latency > timeout):
                        wait = 0.0 if way.fenced else timeout  # the switch drops them
                        holder.handed(start + wait, end + wait, True, first, sent)
                        holder.station.discarded += sent
                        way.dropped += sent
                        fence = self.fence_after
                        if fence > 0 and way.dropped >= fence:
                            way.fenced = True
                        lost_layer = after.layer
                    else:
                        holder.handed(take, took, blocked, first, sent)
                else:
                    holder = None
            reach = prev_done + latency  # the data passes this link no sooner
            done = end if end > reach else reach
            layers[layer] += done - prev_done
            prev_start, prev_done = start, done
            if lost_layer >= 0:  # dropped at the switch: the next link never sees them
                break
        if prev_done > now:
            yield env.sleep(prev_done - now)
            now = env._now
        for station, t_booked, start, end in booked:
            station.depart(now, t_booked, start, end)
        if lost_layer >= 0:  # the host notices, and the data is sent again
            yield env.sleep(self.error_detect)
            layers[lost_layer] += env._now - now
            return (yield from self.move(layers, legs, size, env._now, wire, owner))
        return now
