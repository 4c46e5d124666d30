"""The path as hops: what a command crosses on its way to the array, declared as data.

A route's *front* (everything before the cache, RAID and drives) is a tuple of :class:`Hop`,
in the order a command meets them. Five kinds of hop cover the front of every transport:

* :data:`GATE` - slots the command holds until it completes (a queue depth): it waits for
  one when all are taken (the host's per-LUN queue, the HBA's command slots);
* :data:`REFUSING_GATE` - slots that never make a command wait: when all are taken the
  target answers QUEUE FULL and the host tries again from the route's retry point (the
  array port's queue, the array's per-LUN queue);
* :data:`SERVER` - first-come-first-served servers, a service time per command (the host's
  processors, the HBA's command processor, the array controller);
* :data:`DELAY` - a pure delay of work nobody queues for (the host's I/O stack, forwarding
  between controllers);
* :data:`FLIGHT` - a pure delay of propagation (the command frame's trip over the fabric),
  which rides on the wake-up of the server before it.

The data a command moves crosses :data:`LINK` hops (bandwidth servers) in the data legs.

Each hop names its station (:func:`~sanpath.layout.stations.station_name`), the layer its time
counts to, the scenario key that sizes it, and its *scope*: whether the running object behind
it is the route's own (``route``), its host's (``host``), its host's association with one
array port (``association``: an NVMe controller's queue pairs), its HBA port's (``port``) or
the array's (``array``). The simulator binds each declared hop to its running station
(:mod:`sanpath.sim.hops`) and walks the tuple (:meth:`sanpath.sim.engine.Simulation.command`);
the hop marked ``retry`` is where a command starts again after QUEUE FULL.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final

from sanpath.layout.stations import ROLES, station_name
from sanpath.layout.wiring import PathInfo, Wiring, port_controller
from sanpath.spec import TRANSPORTS, CrossControllerSpec, knob_key

GATE: Final = "gate"
REFUSING_GATE: Final = "refusing gate"
SERVER: Final = "server"
LINK: Final = "link"
DELAY: Final = "delay"
FLIGHT: Final = "flight"

KINDS: Final = (GATE, REFUSING_GATE, SERVER, LINK, DELAY, FLIGHT)
"""Every kind of hop."""


@dataclass(frozen=True)
class Hop:
    """One hop of a route, as declared (see the module docstring)."""

    kind: str
    """One of :data:`KINDS`."""
    role: str
    """What it is: a key of :data:`~sanpath.layout.stations.ROLES` for a hop with a station,
    else ``host_io`` (the host's I/O stack), ``fabric`` (the command's flight) or
    ``cross_forward`` (forwarding to the owning controller)."""
    layer: str
    """The latency-breakdown layer its time counts to."""
    scope: str
    """Whose running object it is: ``route``, ``host``, ``association``, ``port`` or
    ``array``."""
    station: str | None = None
    """The station's name (None for a pure delay)."""
    knob: str | None = None
    """The scenario key that sizes it (a queue depth, cores, a time), if one does."""
    retry: bool = False
    """True for the hop a command starts again from after QUEUE FULL."""
    refused: str = ""
    """For a refusing gate: the counter its QUEUE FULL answers count to."""
    back_end: bool = False
    """For a gate: its slot is given back when the back end (cache, RAID, drives) is done
    with the command, before the data or the status travel back (the array's per-LUN queue);
    otherwise when the command completes."""


def _station(role: str, scope: str, knob: str | None, **names: object) -> Hop:
    found = ROLES[role]
    kind = {"slots": GATE, "server": SERVER, "link": LINK}[found.kind]
    return Hop(kind, role, found.layer, scope, station_name(role, **names), knob)


def front_hops(wiring: Wiring, path: PathInfo) -> tuple[Hop, ...]:
    """The front of one path (host group ``path.group`` to LUN ``path.lun`` through host port
    ``path.port`` and array port ``path.array_port``), in the order a command crosses it.

    SCSI transports (``fcp``, ``iscsi``): the host's per-LUN queue, the host's work, the
    HBA's command slots (an iSCSI session's command window) and processor, the fabric, the
    array port's queue and the LUN's queue (both answer QUEUE FULL), the controller. NVMe
    transports: the host's I/O queue pairs to the controller the path reaches (scope
    ``association``: shared by every namespace behind it, the command's queue chosen by the
    processor that issues it), the host's work, the HBA's (or NIC's) processor, the fabric,
    the controller: no SCSI queue, nothing refuses.
    """
    s = wiring.scenario
    g = path.group
    host = s.hosts[g]
    lun = wiring.luns[path.lun]
    hba = wiring.host_ports[g][path.port].hba
    name = host.name
    nvme = TRANSPORTS[host.transport].nvme
    if nvme:
        queues = _station(
            "queue_pairs", "association", knob_key("nvme_queue_size", host=g), host=name
        )
        hops = [queues]
    else:
        hops = [_station("host_queue", "route", knob_key("host_queue_depth", host=g), host=name)]
    if host.cpus is not None:
        hops.append(_station("host_cpu", "host", knob_key("host_cpus", host=g), host=name))
    hops.append(Hop(DELAY, "host_io", "host", "host", knob=knob_key("host_io_time", host=g)))
    processor = _station(
        "hba_cpu", "port", knob_key("hba_command_time", host=g, hba=hba), host=name
    )
    if nvme:
        hops.append(replace(processor, retry=True))
    else:
        slots = _station(
            "hba_slots", "port", knob_key("hba_queue_depth", host=g, hba=hba), host=name
        )
        hops.append(replace(slots, retry=True))
        hops.append(processor)
    hops.append(Hop(FLIGHT, "fabric", "fabric", "port", knob=knob_key("hop_latency")))
    if nvme:
        hops.append(_controller(wiring, lun.owner))
        _forward(hops, s.array.cross_controller, path.array_port, lun.owner)
        return tuple(hops)
    port = _station("port_queue", "array", knob_key("port_queue_depth"), port=path.array_port)
    hops.append(replace(port, kind=REFUSING_GATE, refused="port_qfull"))
    group = s.array.luns[lun.group].name
    queue = _station("lun_queue", "array", knob_key("lun_queue_depth", lun=lun.group), lun=group)
    hops.append(replace(queue, kind=REFUSING_GATE, refused="lun_qfull", back_end=True))
    hops.append(_controller(wiring, lun.owner))
    _forward(hops, s.array.cross_controller, path.array_port, lun.owner)
    return tuple(hops)


def _controller(wiring: Wiring, owner: int) -> Hop:
    """The controller that serves the command: the array's one pool of cores, or with two
    controllers the LUN's owner."""
    if wiring.scenario.array.controllers == 1:
        return _station("controller", "array", knob_key("controller_cores"))
    return _station("controllers", "array", knob_key("controller_cores"), controller=owner)


def _forward(hops: list[Hop], cross: CrossControllerSpec | None, port: int, owner: int) -> None:
    """Forwarding to the owning controller, for a command that arrived on ``port`` of the
    other controller (a non-optimized path) when forwarding takes time."""
    if cross is not None and cross.time > 0.0 and port_controller(port) != owner:
        hops.append(Hop(DELAY, "cross_forward", "controller", "array", knob=knob_key("cross_time")))
