"""The fabric's links: each host port's link to the array, and the switches' ISLs.

A host port's link direction is a :class:`~sanpath.sim.credit.CreditLink` where its
buffer-to-buffer credits bind (:func:`sanpath.layout.host_link_credits`), else a plain
:class:`~sanpath.sim.station.Link`; every ISL port is a credit link that holds its credits
until the next link has taken the frames. Rates are bytes per second.
"""

from __future__ import annotations

from collections.abc import Callable

import simpy

from sanpath.layout import CreditLimit, IslHop, isl_credits, isl_label, station_name
from sanpath.sim.credit import CreditLink, IslBundle
from sanpath.sim.station import Link, Station
from sanpath.spec import Scenario


def host_link(
    env: simpy.Environment,
    rate: float | None,
    station: Station,
    limits: tuple[CreditLimit, CreditLimit] | None,
    direction: int,
) -> Link:
    """One direction (``direction`` 0 outwards, 1 inwards) of a host port's link: a
    :class:`~sanpath.sim.station.CreditLink` where its buffer-to-buffer credits bind, else a
    plain :class:`~sanpath.sim.station.Link` (the two agree exactly where they do not)."""
    if rate is None or limits is None or not limits[direction].binds(rate):
        return Link(env, rate, station)
    limit = limits[direction]
    return CreditLink(env, rate, station, limit.credits, limit.frame, limit.overhead, limit.back)


def isl_links(
    env: simpy.Environment, scenario: Scenario, station: Callable[[str, float], Station]
) -> dict[tuple[int, int], tuple[Link, ...]]:
    """The links of every ISL direction, by (ISL, direction): ``count`` credit links each
    (an ISL's credits come back only once the next link has taken the frames, so a port
    that drains slowly behind it holds them), in one bundle under exchange-based routing."""
    out: dict[tuple[int, int], tuple[Link, ...]] = {}
    for i, isl in enumerate(scenario.fabric.isls):
        limit = isl_credits(scenario, i)
        for direction in (0, 1):
            name = station_name("isl", isl=isl_label(scenario, IslHop(i, direction)))
            station(name, 0.0).victims = {}  # it counts who waits behind whom
            members: list[Link] = []
            for _ in range(isl.count):
                link = CreditLink(
                    env,
                    isl.speed,
                    station(name, 1),
                    limit.credits,
                    limit.frame,
                    limit.overhead,
                    limit.back,
                )
                link.holds = True
                members.append(link)
            if scenario.fabric.routing == "exchange":
                out[i, direction] = (IslBundle(env, members, station(name, 0.0)),)
            else:
                out[i, direction] = tuple(members)
    return out


__all__ = ["host_link", "isl_links"]
