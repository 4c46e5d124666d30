"""Congestion notifications (FPIN): the switches tell hosts their ports are congested.

Every ``fabric.fpin.window`` seconds a switch's port monitor reads, for each of its ports
toward a host, how long the port sat with frames to send and no transmit credit (the
credit link's :attr:`~sanpath.sim.credit.CreditLink.waited`); above ``threshold`` of the
window the port is congested, and the switch sends the host a Fabric Performance Impact
Notification with a Congestion descriptor, and one with a Peer Congestion descriptor to
each array port the host's reads came from. A host whose ``fpin_response`` is
``rate_limit`` then limits the read data it asks for
(:class:`~sanpath.sim.readlimit.ReadLimit`). Only ports whose credits bind can be
congested this way: a link that never waits for a credit never sends one.

Times are seconds, rates bytes per second.
"""

from __future__ import annotations

from collections.abc import Generator
from typing import Any

import simpy

from sanpath.results import Notified
from sanpath.sim.components.host import HostInstance
from sanpath.sim.credit import CreditLink
from sanpath.sim.readlimit import ReadLimit
from sanpath.spec import FpinSpec


class Notifications:
    """The switches' port monitors and the notifications they send, in ``env``.

    Keeps, per host, when each notification came (``sent``), how many array ports each
    named as its peers, and when its read limit changed (``limits``), so that a result
    counts those of its measurement window only.
    """

    def __init__(self, env: simpy.Environment, spec: FpinSpec, hosts: list[HostInstance]) -> None:
        self.env = env
        self.window = spec.window
        self.threshold = spec.threshold
        self.hosts = hosts
        self.ports = [
            (host, port.link_in)
            for host in hosts
            for port in host.ports
            if isinstance(port.link_in, CreditLink)
        ]
        """Each host port whose link toward it is bound by credits, with its host."""
        self.seen = [0.0] * len(self.ports)
        """Each such link's credit wait at the last poll, seconds."""
        self.sent: list[list[tuple[float, int]]] = [[] for _ in hosts]
        """Per host: (when, array ports named as peers) of each notification it received."""
        self.limits: list[list[tuple[float, float]]] = [[] for _ in hosts]
        """Per host: (when, new read limit; 0 for none) at each change of its limit."""

    def start(self) -> None:
        """Start polling (nothing to poll: no process at all)."""
        if self.ports:
            self.env.process(self._poll())

    def _poll(self) -> Generator[simpy.Event, Any, None]:
        env, window = self.env, self.window
        hosts = self.hosts
        while True:
            yield env.timeout(window)
            now = env.now
            notified = [False] * len(hosts)
            for k, (host, link) in enumerate(self.ports):
                waited = link.waited - self.seen[k]
                self.seen[k] = link.waited
                if waited > self.threshold * window:
                    notified[host.index] = True
                    self.sent[host.index].append((now, _peers(host)))
            for host in hosts:
                reads = host.reads
                if reads is not None:
                    before = reads.limit
                    after = reads.window(window, notified[host.index])
                    if after != before:
                        self.limits[host.index].append((now, after))

    def notified(self, start: float, now: float) -> tuple[Notified, ...]:
        """Each host that received notifications from ``start`` to ``now`` (the measurement
        window), or whose read limit held in it, with the limit's share of the window and
        its lowest value."""
        span = now - start
        out: list[Notified] = []
        for host in self.hosts:
            sent = [peers for t, peers in self.sent[host.index] if start <= t <= now]
            limited, lowest = _limited(self.limits[host.index], start, now)
            if not sent and limited <= 0.0:
                continue
            answered = host.reads is not None
            out.append(
                Notified(
                    host=host.name,
                    fpins=len(sent),
                    peer_fpins=sum(sent),
                    limited_share=(limited / span if span > 0 else 0.0) if answered else None,
                    lowest_mb_s=lowest / 1e6 if answered and lowest > 0.0 else None,
                )
            )
        return tuple(out)


def read_limit(host: HostInstance) -> ReadLimit:
    """A read limit for ``host``, lifted above the sum of its ports' inward link rates."""
    ceiling = sum(port.link_in.rate or 0.0 for port in host.ports)
    return ReadLimit(ceiling if ceiling > 0.0 else float("inf"))


def _peers(host: HostInstance) -> int:
    """The array ports the host's routes made so far reach (its reads' peers)."""
    ports = {
        route.array_port.index
        for routes in host.routes.values()
        for route in routes
        if route is not None
    }
    return len(ports)


def _limited(changes: list[tuple[float, float]], start: float, now: float) -> tuple[float, float]:
    """Seconds from ``start`` to ``now`` a read limit held, and its lowest value then
    (bytes/s; 0: none held), from its ``changes`` (when, new limit; 0 for none)."""
    limit = 0.0
    for t, value in changes:
        if t > start:
            break
        limit = value
    held = 0.0
    lowest = limit
    since = start
    for t, value in changes:
        if t <= start:
            continue
        if t > now:
            break
        if limit > 0.0:
            held += t - since
        limit, since = value, t
        if limit > 0.0 and (lowest <= 0.0 or limit < lowest):
            lowest = limit
    if limit > 0.0:
        held += now - since
    return held, lowest


__all__ = ["Notifications", "read_limit"]
