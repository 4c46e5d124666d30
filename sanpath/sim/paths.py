"""What every host of a group shares on its paths: the wiring's paths, each path's plan, the
NVMe queue pairs' shape and the paths a multipath policy chooses among.

The route maker (:mod:`sanpath.sim.routes`) makes each host's routes from these when first
used; :func:`group_paths` counts every queue's slots into its station from the start, so
utilisations do not depend on which routes exist.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Final

from sanpath.layout import FLIGHT, IslHop, host_framing
from sanpath.layout import Hop as DeclaredHop
from sanpath.layout.wiring import PathInfo, Wiring
from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.host import Leg
from sanpath.sim.hops import Hop
from sanpath.sim.knobs import Knob, Rank, slot_servers
from sanpath.sim.station import Station
from sanpath.sim.wire import Wire
from sanpath.spec import HostSpec, QfullSpec, knob_key


def rank(host: int, lun: int, k: int) -> Rank:
    """The place of ``host``'s queue on path ``k`` to ``lun`` in the eager build's order."""
    return (host << 40) | (lun << 20) | k


NVME_KEY: Final = ("nvme", 0)
"""The key of an NVMe host port's running hops (no slot pools: one set per port)."""


@dataclass(frozen=True, eq=False)
class GroupPaths:
    """The paths of one host group's hosts to its LUNs, shared by every host of the group."""

    index: int
    """The host group's index in ``hosts``."""
    spec: HostSpec
    paths: dict[int, list[PathInfo]]
    """Per LUN index, every path in the multipath policy's order."""
    ports: dict[int, tuple[int, ...]]
    """Per LUN index, the host port of each path."""
    port_spec: tuple[int, ...]
    """Per host port, the index of its HBA spec (``hosts.N.hbas.M``)."""
    port_card: tuple[int, ...]
    """Per host port, its card number over every HBA of the host."""
    host_queue: Station
    hba_slots: Station
    queue_knob: Knob
    slot_knobs: tuple[Knob, ...]
    """Per HBA spec, the knob of its ``queue_depth``."""
    slot_first: dict[tuple[int, tuple[object, ...]], tuple[int, int]]
    """Per (host port, slot key), the first (LUN, path) that draws from the pool: the route
    that made it in the eager build (its rank)."""
    queue_depth: int | None
    """``lun_queue_depth`` as configured (a host queue's depth before anything changed it)."""
    qfull: QfullSpec
    throttle: str
    """``qfull.throttle``: ``none``, ``linux``, ``vmware`` or ``storport``."""
    plans: dict[int, list[PathPlan]]
    """Per LUN index, each path's :class:`PathPlan` (made by the :class:`RouteMaker` when a
    host of the group first takes a path to the LUN)."""
    wire: Wire
    """How the group's transport frames data on the links."""
    queue_pairs: QueuePairs | None = None
    """NVMe: the group's I/O queue pairs per association (None: a SCSI transport)."""
    usable: dict[int, tuple[int, ...]] | None = None
    """NVMe, and SCSI on an array of two controllers: per LUN index, the paths the policy
    chooses among (the active ones: ANA or ALUA); None: every path."""


@dataclass(frozen=True, eq=False)
class QueuePairs:
    """An NVMe host group's I/O queues per controller association: ``io_queues`` queues of
    ``slots`` commands (``queue_size - 1``), counting to ``station``."""

    io_queues: int
    slots: int
    station: Station


class PathPlan:
    """What a route on one path of a host group to one LUN needs besides the host's own
    queues, links and throttle: worked out once for every host of the group."""

    __slots__ = (
        "array_hops",
        "array_legs",
        "array_port",
        "card",
        "front",
        "governs",
        "isl_light",
        "isls",
        "legs",
        "lun",
        "port",
        "rank",
        "retry_at",
        "slot_key",
        "slot_knob",
        "slot_rank",
    )

    def __init__(
        self,
        path: PathInfo,
        k: int,
        group: GroupPaths,
        array_port: ArrayPort,
        lun: Lun,
        array_legs: tuple[tuple[Leg, ...], tuple[Leg, ...]],
        front: tuple[DeclaredHop, ...],
        array_hops: tuple[Hop, ...],
    ) -> None:
        self.front = front
        """The path's front as declared (:func:`sanpath.layout.hops.front_hops`)."""
        running = [hop for hop in front if hop.kind != FLIGHT]  # flights ride along
        self.retry_at = next(i for i, hop in enumerate(running) if hop.retry)
        """Where a route's running hops start again after QUEUE FULL (the declared retry hop)."""
        self.array_hops = array_hops
        """The running hops of the front's array part (shared by every host of the group)."""
        self.port = path.port
        """The host port (numbered over every card of the host)."""
        self.card = group.port_card[path.port]
        self.slot_key: tuple[Any, ...] = path.slot_key[2:]  # ("lun", LUN) or ("target", port)
        """The HBA slot pool's key on the host port."""
        self.slot_knob = group.slot_knobs[group.port_spec[path.port]]
        first_lun, first_k = group.slot_first[path.port, path.slot_key]
        self.slot_rank = rank(0, first_lun, first_k)
        """The rank (less the host's part) of the route that made the slot pool."""
        self.rank = rank(0, lun.index, k)
        """The route's rank, less the host's part."""
        self.array_port = array_port
        self.lun = lun
        self.governs = path.array_port if group.throttle == "linux" else lun.index
        """What the host's throttle of the path governs: its target port or its LUN."""
        self.legs = (path.port << 21) | (path.array_port << 1) | lun.owner
        """The path's links, as a number: host port, array port and LUN owner."""
        self.isls: tuple[IslHop, ...] = ()
        """The ISLs the path's frames cross toward the array (none without switches)."""
        self.isl_light = 0.0
        """Seconds light takes over those ISLs, one way."""
        self.array_legs = array_legs


def group_paths(
    wiring: Wiring,
    hi: int,
    spec: HostSpec,
    station: Station,
    slots_station: Station,
    knobs: dict[str, Knob],
    queue_pairs: QueuePairs | None = None,
) -> GroupPaths:
    """The shared paths of host group ``hi`` (whose workloads use some LUN).

    Adds to ``station`` (the group's host queues) and ``slots_station`` (its HBA slot pools)
    the slots of every host of the group, as if every route were built; for an NVMe group
    (``queue_pairs``), whose station stands for both, the slots of its queue pairs.
    """
    paths = {li: p for (g, li), p in wiring.paths.items() if g == hi}
    wire = Wire(host_framing(wiring.scenario, hi))
    if queue_pairs is not None:
        associations = {(p.port, p.array_port) for ps in paths.values() for p in ps}
        per_host = len(associations) * queue_pairs.io_queues * queue_pairs.slots
        queue_pairs.station.servers += spec.count * per_host
    station.track_held()
    slots_station.track_held()
    host_ports = wiring.host_ports[hi]
    slot_first: dict[tuple[int, tuple[object, ...]], tuple[int, int]] = {}
    for li, ps in paths.items():
        for k, p in enumerate(ps):
            slot_first.setdefault((p.port, p.slot_key), (li, k))
    per_host_slots = 0.0
    for port, _ in slot_first if queue_pairs is None else ():
        per_host_slots += slot_servers(spec.hbas[host_ports[port].hba].queue_depth)
    per_host_routes = sum(len(ps) for ps in paths.values())
    slots_station.servers += spec.count * per_host_slots
    if queue_pairs is None:
        station.servers += spec.count * per_host_routes * slot_servers(spec.lun_queue_depth)
    queue_key = knob_key("host_queue_depth", host=hi)
    queue_knob = knobs.setdefault(queue_key, Knob(spec.lun_queue_depth))
    slot_knobs = tuple(
        knobs.setdefault(knob_key("hba_queue_depth", host=hi, hba=si), Knob(hba.queue_depth))
        for si, hba in enumerate(spec.hbas)
    )
    return GroupPaths(
        index=hi,
        spec=spec,
        paths=paths,
        ports={li: tuple(p.port for p in ps) for li, ps in paths.items()},
        port_spec=tuple(hp.hba for hp in host_ports),
        port_card=tuple(hp.card for hp in host_ports),
        host_queue=station,
        hba_slots=slots_station,
        queue_knob=queue_knob,
        slot_knobs=slot_knobs,
        slot_first=slot_first,
        queue_depth=spec.lun_queue_depth,
        qfull=spec.qfull,
        throttle=spec.qfull.throttle,
        plans={},
        wire=wire,
        queue_pairs=queue_pairs,
        usable=(
            None
            if queue_pairs is None and wiring.scenario.array.controllers == 1
            else usable_paths(paths)
        ),
    )


def usable_paths(paths: dict[int, list[PathInfo]]) -> dict[int, tuple[int, ...]]:
    """Per LUN index, the indices of the paths the multipath policy chooses among (ANA or
    ALUA: the active ones)."""
    return {li: tuple(k for k, p in enumerate(ps) if p.active) for li, ps in paths.items()}
