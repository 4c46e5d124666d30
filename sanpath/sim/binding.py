"""Binding declared hops to running stations: one place per role.

:func:`sanpath.layout.hops.front_hops` declares what a route's front crosses; the route maker
(:mod:`sanpath.sim.routes`) binds each declared hop to the running station behind it with
:func:`bind_hops`, one scope at a time: the array's hops once per path, a host's once per
host, an HBA port's once per slot pool, so a thousand hosts share what they can. Adding a hop
to the path is one branch here (docs/architecture.md, "Adding a hop").
"""

from __future__ import annotations

from sanpath.layout import FLIGHT, GATE, REFUSING_GATE
from sanpath.layout import Hop as DeclaredHop
from sanpath.results import LAYERS
from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.hba import HbaPort
from sanpath.sim.components.host import HostInstance
from sanpath.sim.hops import Delay, Gate, Hop, Server, constant
from sanpath.sim.station import SlotPool


class Binding:
    """What binding needs besides the objects of a scope: the array's controller hops, per
    (transport, controller) as its time per command differs by transport (controller 0
    alone on an array of one), the fabric's one-way latency (s) and the time to forward to
    the owning controller (s)."""

    __slots__ = ("controllers", "cross_time", "one_way")

    def __init__(
        self, controllers: dict[tuple[str, int], Server], one_way: float, cross_time: float
    ) -> None:
        self.controllers = controllers
        self.one_way = one_way
        self.cross_time = cross_time


def bind_hops(
    binding: Binding,
    front: tuple[DeclaredHop, ...],
    scope: str,
    host: HostInstance | None = None,
    port: HbaPort | None = None,
    slots: SlotPool | None = None,
    lun: Lun | None = None,
    array_port: ArrayPort | None = None,
    transport: str = "fcp",
) -> tuple[Hop, ...]:
    """The running hops of ``front``'s hops of ``scope``, each declared role bound to its
    station; a gate's slot is its place among the front's gates. A flight rides on the
    server before it; the controller serves at its time per command of ``transport``."""
    bound: list[Hop] = []
    gates = 0  # the gates before the hop: its slot, if it is one
    for hop in front:
        slot = gates
        if hop.kind in (GATE, REFUSING_GATE):
            gates += 1
        if hop.scope != scope:
            continue
        layer = LAYERS.index(hop.layer)
        role = hop.role
        if role == "host_cpu" and host is not None and host.cpu is not None:
            bound.append(Server(layer, host.cpu, host.cpu_time))
        elif role == "host_io" and host is not None:
            bound.append(Delay(layer, host.io_time))
        elif role == "hba_slots" and slots is not None:
            bound.append(Gate(layer, slots, slot))
        elif role == "hba_cpu" and port is not None:
            bound.append(Server(layer, port.cpu, port.command_time, sends=True))
        elif hop.kind == FLIGHT:
            server = bound[-1]
            assert isinstance(server, Server)
            server.flight, server.flight_layer = binding.one_way, layer
        elif role == "port_queue" and array_port is not None:
            bound.append(Gate(layer, array_port.queue, slot, hop.refused, hop.back_end))
        elif role == "lun_queue" and lun is not None:
            bound.append(Gate(layer, lun.queue, slot, hop.refused, hop.back_end))
        elif role == "controller":
            bound.append(binding.controllers[transport, 0])
        elif role == "controllers" and lun is not None:
            bound.append(binding.controllers[transport, lun.owner])
        elif role == "cross_forward":
            bound.append(Delay(layer, constant(binding.cross_time)))
        else:
            raise ValueError(f"no running station for the {scope} hop {role!r}")
    return tuple(bound)
