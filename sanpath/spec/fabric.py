"""The fabric: its frames, its length and credits, and its switches and inter-switch links.

The simple fabric is ``hops`` switch hops of ``hop_latency`` and ``distance_km`` of fibre
between every host port and the array; with ``switches``, hosts and array ports attach to
named switches joined by ISLs (``sanpath.layout.fabric`` finds each route over them).
:func:`fabric_problems` checks the names a fabric refers to, for the scenario's checks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Annotated, Literal

from pydantic import Field

from sanpath.spec.fields import Duration, IoBytes, PositiveIoBytes, Rate, Spec
from sanpath.spec.hardware import ArraySpec
from sanpath.spec.host import HostSpec

LIGHT_PER_KM = 5e-6
"""Seconds light takes through one km of fibre (refractive index about 1.5)."""


class SwitchSpec(Spec):
    """A Fibre Channel switch of the fabric (an edge or a core switch), by name."""

    name: str


class IslSpec(Spec):
    """Inter-switch links between the two switches ``between``: ``count`` parallel links of
    ``speed`` bytes/s per direction, ``distance_km`` long, each port with ``credits``
    buffer-to-buffer credits per direction (null: ``fabric.credits``)."""

    between: tuple[str, str]
    count: Annotated[int, Field(ge=1, le=64)] = 1
    speed: Rate = 1.7e9
    distance_km: Annotated[float, Field(ge=0.0)] = 0.0
    credits: Annotated[int, Field(ge=1)] | None = None


class FabricSpec(Spec):
    """The switched fabric between host ports and array ports.

    Frames carry at most ``frame_payload`` bytes and cost ``frame_overhead`` more on the
    wire (SOF 4 + header 24 + CRC 4 + EOF 4 + about 24 bytes of idles between frames).
    ``distance_km`` adds 5 us per km each way (light in fibre) and is the length of each
    host port's link to the array, whose buffer-to-buffer ``credits`` (frames a port may
    have in flight toward its neighbour, per direction) cap its throughput at
    ``credits x frame / round trip`` (see ``sanpath.layout.credits``). The default, 8, is
    the Brocade F_Port's fixed default (Fabric OS Administrator's Guide 53-1001763-02, FOS
    6.4, 2010: "the default configured F_Port buffer credit is fixed at eight buffers"; Cisco
    MDS Fx ports default to 16, NX-OS Interfaces Configuration Guide OL-29284-01, 2013). A
    link of no length never runs out of them: a credit is back by the time its frame is sent.
    """

    hop_latency: Duration = 1e-6
    hops: Annotated[int, Field(ge=0)] = 1
    frame_payload: PositiveIoBytes = 2048
    frame_overhead: IoBytes = 60
    distance_km: Annotated[float, Field(ge=0.0)] = 0.0
    credits: Annotated[int, Field(ge=1)] = 8
    switches: tuple[SwitchSpec, ...] = ()
    """The switches (none: the simple fabric of ``hops`` and ``distance_km``); hosts
    (``hosts.N.switch``) and array ports (``array.port_switches``) attach to them."""
    isls: tuple[IslSpec, ...] = ()
    """The inter-switch links; a host reaches an array port over the fewest of them."""
    routing: Literal["exchange", "port"] = "exchange"
    """How the parallel links of an ISL share the load: ``exchange`` - each exchange (a
    command's data) takes the next link (Brocade exchange-based routing, the default
    ``aptpolicy 3``; Cisco's default ``src-dst-ox_id``); ``port`` - every exchange between
    one host port and one array port takes the same link (port-based routing)."""
    frame_timeout: Duration | None = 0.5
    """Seconds a switch holds a frame its egress port cannot send before it drops it,
    freeing the buffer (and the ISL credit) it held; null or 0: never. Default 500 ms, the
    Cisco MDS congestion-drop timeout for every port type (Cisco MDS 9000 NX-OS Interfaces
    Configuration Guide, release 8.x, 2018; Cisco recommends no less than 200 ms on edge
    ports)."""
    fence_after: Annotated[int, Field(ge=1)] | None = None
    """Frames a switch drops for timeout on one port toward a host before it fences
    (disables) the port, so that its host's traffic no longer holds anyone's credits; null:
    no fencing (Brocade MAPS port fencing on C3TX_TO, the frames discarded for timeout; its
    thresholds are the administrator's, none by default)."""
    error_detect: Duration = 2.0
    """Seconds until a host notices that a switch dropped its frames and has the data sent
    again: E_D_TOV, the Fibre Channel error-detect timeout (FC-FS default 2 s)."""

    @property
    def one_way_latency(self) -> float:
        """Propagation and switching latency from host port to array port, seconds."""
        return self.hops * self.hop_latency + self.distance_km * LIGHT_PER_KM


def fabric_problems(
    fabric: FabricSpec, hosts: Sequence[HostSpec], array: ArraySpec
) -> list[tuple[list[str | int], str]]:
    """What is wrong with ``fabric``'s switches, as (field path, message) pairs: duplicate
    names, ISLs between switches that do not exist (or a switch and itself), hosts and
    array ports attached to switches that do not exist, and switches no ISL path reaches."""
    found: list[tuple[list[str | int], str]] = []
    host_switches = [host.switch for host in hosts]
    port_switches, ports = array.port_switches, array.ports
    names = [sw.name for sw in fabric.switches]
    known = set(names)
    listed = ", ".join(names)
    if not names:
        for i, switch in enumerate(host_switches):
            if switch is not None:
                found.append((["hosts", i, "switch"], "no fabric.switches to attach to"))
        if port_switches is not None:
            found.append((["array", "port_switches"], "no fabric.switches to attach to"))
        if fabric.isls:
            found.append((["fabric", "isls"], "ISLs need fabric.switches"))
        return found
    for i, name in enumerate(names):
        if names.index(name) != i:
            found.append((["fabric", "switches", i, "name"], f"duplicate name {name!r}"))
    links: dict[str, set[str]] = {name: set() for name in known}
    for i, isl in enumerate(fabric.isls):
        a, b = isl.between
        for j, end in enumerate(isl.between):
            if end not in known:
                found.append(
                    (["fabric", "isls", i, "between", j], f"no switch named {end!r} ({listed})")
                )
        if a == b:
            found.append((["fabric", "isls", i, "between"], f"an ISL joins two switches: {a!r}"))
        elif a in known and b in known:
            links[a].add(b)
            links[b].add(a)
    for i, switch in enumerate(host_switches):
        if switch is not None and switch not in known:
            found.append((["hosts", i, "switch"], f"no switch named {switch!r} ({listed})"))
    attached = port_switches
    if attached is not None:
        if len(attached) != ports:
            found.append(
                (
                    ["array", "port_switches"],
                    f"{len(attached)} switches for {ports} array ports: give one per port",
                )
            )
        for j, name in enumerate(attached):
            if name not in known:
                found.append(
                    (["array", "port_switches", j], f"no switch named {name!r} ({listed})")
                )
    if found:
        return found
    reach = {names[0]}
    todo = [names[0]]
    while todo:
        for other in links[todo.pop()]:
            if other not in reach:
                reach.add(other)
                todo.append(other)
    for i, name in enumerate(names):
        if name not in reach:
            found.append(
                (
                    ["fabric", "switches", i, "name"],
                    f"switch {name!r} has no ISL path to {names[0]!r}: every switch must be "
                    "reachable",
                )
            )
    return found


__all__ = ["LIGHT_PER_KM", "FabricSpec", "IslSpec", "SwitchSpec", "fabric_problems"]
