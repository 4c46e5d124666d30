"""Switches and inter-switch links: which ISLs a host port's frames cross to an array port.

A scenario with ``fabric.switches`` attaches each host group (``hosts.N.switch``) and each
array port (``array.port_switches``) to a switch; a host reaches an array port over the
fewest ISLs (a breadth-first search over ``fabric.isls`` in the order they are written, so
the route is fixed and the same for the simulator and the twin). Each ISL has two
directions, ``0`` from ``between[0]`` to ``between[1]`` and ``1`` back, each with its own
station (:func:`isl_label`) and credits. Without switches there are no ISLs and nothing
here applies.
"""

from __future__ import annotations

from dataclasses import dataclass

from sanpath.layout.credits import CreditLimit
from sanpath.spec import LIGHT_PER_KM, Scenario


@dataclass(frozen=True)
class IslHop:
    """One ISL crossed in one direction (``direction`` 0: from ``between[0]``)."""

    isl: int
    direction: int


def host_switch(scenario: Scenario, group: int) -> int:
    """The index of the switch host group ``group`` attaches to (the first by default)."""
    name = scenario.hosts[group].switch
    return _switch_index(scenario, name)


def port_switch(scenario: Scenario, port: int) -> int:
    """The index of the switch array port ``port`` attaches to (the first by default)."""
    attached = scenario.array.port_switches
    return _switch_index(scenario, None if attached is None else attached[port])


def _switch_index(scenario: Scenario, name: str | None) -> int:
    if name is None:
        return 0
    return [sw.name for sw in scenario.fabric.switches].index(name)


def isl_hops(scenario: Scenario, group: int, port: int) -> tuple[IslHop, ...]:
    """The ISLs host group ``group``'s frames cross, in order, to reach array port ``port``
    (empty without switches or on one switch). A read's data crosses them backwards, each
    in the other direction (:func:`reverse`)."""
    fabric = scenario.fabric
    if not fabric.switches:
        return ()
    start, goal = host_switch(scenario, group), port_switch(scenario, port)
    names = [sw.name for sw in fabric.switches]
    came: dict[int, IslHop | None] = {start: None}
    frontier = [start]
    while frontier and goal not in came:
        following = []
        for here in frontier:
            for i, isl in enumerate(fabric.isls):
                a, b = (names.index(end) for end in isl.between)
                for direction, (src, dst) in enumerate(((a, b), (b, a))):
                    if src == here and dst not in came:
                        came[dst] = IslHop(i, direction)
                        following.append(dst)
        frontier = following
    hops: list[IslHop] = []
    at = goal
    while at != start:
        hop = came[at]
        assert hop is not None
        hops.append(hop)
        a, b = (names.index(end) for end in fabric.isls[hop.isl].between)
        at = a if hop.direction == 0 else b
    return tuple(reversed(hops))


def reverse(hops: tuple[IslHop, ...]) -> tuple[IslHop, ...]:
    """The same ISLs crossed the other way, in the other order (a read's data)."""
    return tuple(IslHop(hop.isl, 1 - hop.direction) for hop in reversed(hops))


def isl_label(scenario: Scenario, hop: IslHop) -> str:
    """The ISL direction's name in its station's name: ``edge1>core`` (its number after a
    ``#`` when two ISLs join the same switches)."""
    isls = scenario.fabric.isls
    isl = isls[hop.isl]
    a, b = isl.between if hop.direction == 0 else reversed(isl.between)
    same = [i for i, other in enumerate(isls) if set(other.between) == set(isl.between)]
    return f"{a}>{b}" if len(same) == 1 else f"{a}>{b}#{same.index(hop.isl)}"


def isl_labels(scenario: Scenario) -> list[str]:
    """Every ISL direction's label, ISL by ISL."""
    return [
        isl_label(scenario, IslHop(i, d)) for i in range(len(scenario.fabric.isls)) for d in (0, 1)
    ]


def isl_light(scenario: Scenario, hops: tuple[IslHop, ...]) -> float:
    """Seconds light takes over the ISLs of ``hops``, one way."""
    return sum(scenario.fabric.isls[hop.isl].distance_km for hop in hops) * LIGHT_PER_KM


def isl_credits(scenario: Scenario, isl: int) -> CreditLimit:
    """The credits of each port of ISL ``isl`` (its ``credits``, else ``fabric.credits``)
    and the time a credit is away besides its frame: light both ways over its length."""
    fabric = scenario.fabric
    spec = fabric.isls[isl]
    credits = fabric.credits if spec.credits is None else spec.credits
    return CreditLimit(
        credits,
        fabric.frame_payload + fabric.frame_overhead,
        fabric.frame_overhead,
        2.0 * spec.distance_km * LIGHT_PER_KM,
    )


__all__ = [
    "IslHop",
    "host_switch",
    "isl_credits",
    "isl_hops",
    "isl_label",
    "isl_labels",
    "isl_light",
    "port_switch",
    "reverse",
]
