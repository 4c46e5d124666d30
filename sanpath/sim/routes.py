"""Routes made on first use: a host's queues, HBA slots, throttle and links for one path.

A thousand hosts on 64 LUNs through a few paths each would be hundreds of thousands of
:class:`~sanpath.sim.components.host.Route` objects with their queues, and a run sends I/O
down a small share of them (an open loop of 100,000 I/Os over 1,000 hosts and 64 LUNs
touches each host-LUN pair once or twice). So the topology builds only what every path
shares (:class:`GroupPaths`: the wiring's paths of a host group, immutable), and
:class:`RouteMaker` makes a route the first time the multipath policy picks it
(:meth:`~sanpath.sim.components.host.HostInstance.select`), exactly as the eager build
would have left it at that moment:

* its host queue and HBA slot pool get the capacity their scenario key has *now*
  (:class:`Knob`: a schedule may have changed it), or, when the host's QUEUE FULL throttle
  already governs other queues of the same LUN (or target port), theirs: a throttle and a
  schedule always set every queue they govern at once, so those queues share one capacity;
* a throttle is made with its first queue, holding the depth the scenario gives (the depth
  it would have kept since the start: nothing reaches a throttle but through its queues);
* the stations the queues count to have their slot counts from the start
  (:func:`group_paths` counts them), so utilisations do not depend on which routes exist.

Results are the same to the last bit as with every route built at the start.
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Sequence
from dataclasses import dataclass

import simpy

from sanpath.layout.wiring import PathInfo, Wiring
from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.hba import Hba, HbaPort
from sanpath.sim.components.host import HostInstance, Leg, Route, Throttle
from sanpath.sim.station import CONTROLLER, FABRIC, PCIE, Link, SlotPool, Station
from sanpath.spec import HostSpec


def slot_servers(depth: int | None) -> float:
    """A slot station's server count for a depth limit (infinite when there is none)."""
    return math.inf if depth is None else float(depth)


Rank = int
"""Where a queue stands in the order the eager build made them (host, then LUN, then path:
:meth:`RouteMaker.rank`). Resizing queues lets their waiters in, queue by queue, so the
order decides the order of the events that follow."""


class Knob:
    """The queues one scenario key sizes (``hosts.0.lun_queue_depth``) and its value now.

    A schedule changes the value with :meth:`set`; a queue made later starts from it. The
    queues are resized in the order the eager build made them (their :data:`Rank`).
    """

    __slots__ = ("_pools", "_ranks", "_sorted", "value")

    def __init__(self, value: int | None) -> None:
        self.value = value
        self._pools: list[SlotPool] = []
        self._ranks: list[Rank] = []
        self._sorted = True

    def add(self, pool: SlotPool, rank: Rank) -> SlotPool:
        """Count ``pool`` (of build order ``rank``) among the queues this key sizes."""
        ranks = self._ranks
        if ranks and rank < ranks[-1]:
            self._sorted = False
        ranks.append(rank)
        self._pools.append(pool)
        return pool

    @property
    def pools(self) -> list[SlotPool]:
        """The queues made so far, in build order."""
        if not self._sorted:
            order = sorted(range(len(self._ranks)), key=self._ranks.__getitem__)
            self._ranks = [self._ranks[i] for i in order]
            self._pools = [self._pools[i] for i in order]
            self._sorted = True
        return self._pools

    def set(self, value: int | None) -> None:
        """Resize every queue of the key now, and the ones made from now on."""
        self.value = value
        for pool in self.pools:
            pool.set_capacity(value)


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


def group_paths(
    wiring: Wiring,
    hi: int,
    spec: HostSpec,
    station: Station,
    slots_station: Station,
    knobs: dict[str, Knob],
) -> GroupPaths:
    """The shared paths of host group ``hi`` (whose workloads use some LUN).

    Adds to ``station`` (the group's host queues) and ``slots_station`` (its HBA slot pools)
    the slots of every host of the group, as if every route were built.
    """
    paths = {li: p for (g, li), p in wiring.paths.items() if g == hi}
    station.track_held()
    slots_station.track_held()
    host_ports = wiring.host_ports[hi]
    slot_first: dict[tuple[int, tuple[object, ...]], tuple[int, int]] = {}
    for li, ps in paths.items():
        for k, p in enumerate(ps):
            slot_first.setdefault((p.port, p.slot_key), (li, k))
    per_host_slots = 0.0
    for port, _ in slot_first:
        per_host_slots += slot_servers(spec.hbas[host_ports[port].hba].queue_depth)
    per_host_routes = sum(len(ps) for ps in paths.values())
    slots_station.servers += spec.count * per_host_slots
    station.servers += spec.count * per_host_routes * slot_servers(spec.lun_queue_depth)
    queue_key = f"hosts.{hi}.lun_queue_depth"
    queue_knob = knobs.setdefault(queue_key, Knob(spec.lun_queue_depth))
    slot_knobs = tuple(
        knobs.setdefault(f"hosts.{hi}.hbas.{si}.queue_depth", Knob(hba.queue_depth))
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
    )


class RouteMaker:
    """Makes a host's route of one path to one LUN when it is first used (module docstring).

    ``one_way`` (s) is the fabric latency before the far end's link.
    """

    def __init__(
        self,
        env: simpy.Environment,
        groups: dict[str, GroupPaths],
        ports: Sequence[ArrayPort],
        luns: Sequence[Lun],
        one_way: float,
        cross_link: Link | None,
        controller_link: Link | None,
        throttles: list[Throttle],
    ) -> None:
        self.env = env
        self.groups = groups
        self.ports = ports
        self.luns = luns
        self.one_way = one_way
        self.cross_link = cross_link
        self.controller_link = controller_link
        self.throttles = throttles
        """Every throttle made so far (the topology's list)."""
        self._throttles: dict[tuple[int, int], Throttle] = {}
        """Per (host, LUN or target port it governs): the throttle."""
        self._throttle_ranks: dict[tuple[int, int], list[Rank]] = {}
        """The build order of each throttle's queues."""
        self._legs: dict[tuple[int, int, int, int], tuple[tuple[Leg, ...], tuple[Leg, ...]]] = {}
        """Per (host, host port, array port, LUN owner): the links of writes and reads."""
        self._host_legs: dict[tuple[int, int], tuple[tuple[Leg, ...], tuple[Leg, ...]]] = {}
        """Per (host, host port): the host's links of writes and of reads (shared legs)."""
        self._array_legs: dict[tuple[int, int], tuple[tuple[Leg, ...], tuple[Leg, ...]]] = {}
        """Per (array port, LUN owner): the array's links of writes and of reads."""

    @staticmethod
    def rank(host: int, lun: int, k: int) -> Rank:
        """The place of ``host``'s queue on path ``k`` to ``lun`` in the eager build's order."""
        return (host << 40) | (lun << 20) | k

    def __call__(self, host: HostInstance, lun_index: int, k: int) -> Route:
        """The route of ``host``'s path ``k`` to LUN ``lun_index``."""
        plan = self.groups[host.group]
        path = plan.paths[lun_index][k]
        spec = plan.spec
        port = host.ports[path.port]
        hba = host.cards[plan.port_card[path.port]]
        key = path.slot_key[2:]  # ("lun", LUN) or ("target", array port)
        slots = port.slots.get(key)
        if slots is None:
            knob = plan.slot_knobs[plan.port_spec[path.port]]
            first_lun, first_k = plan.slot_first[path.port, path.slot_key]
            pool = self._pool(knob.value, plan.hba_slots)
            slots = port.slots[key] = knob.add(pool, self.rank(host.index, first_lun, first_k))
        queue = self._pool(spec.lun_queue_depth, plan.host_queue)  # as built at the start
        rank = self.rank(host.index, lun_index, k)
        throttle = None
        if spec.qfull.throttle != "none":
            governs = (host.index, path.array_port if spec.qfull.throttle == "linux" else lun_index)
            throttle = self._throttles.get(governs)
            if throttle is None:
                throttle = self._throttles[governs] = Throttle(spec.qfull, [queue])
                self._throttle_ranks[governs] = [rank]
                self.throttles.append(throttle)
                queue.set_capacity(plan.queue_knob.value)
            else:
                queue.set_capacity(throttle.pools[0].capacity)
                ranks = self._throttle_ranks[governs]
                at = bisect.bisect(ranks, rank)
                ranks.insert(at, rank)
                throttle.pools.insert(at, queue)
        else:
            queue.set_capacity(plan.queue_knob.value)
        plan.queue_knob.add(queue, rank)
        array_port, lun = self.ports[path.array_port], self.luns[lun_index]
        route = Route(
            host_queue=queue,
            hba=hba,
            hba_port=port,
            hba_slots=slots,
            array_port=array_port,
            lun=lun,
            throttle=throttle,
        )
        legs_key = (host.index, path.port, path.array_port, lun.owner)
        legs = self._legs.get(legs_key)
        if legs is None:
            legs = self._legs[legs_key] = self._make_legs(
                host.index, path.port, hba, port, array_port, lun
            )
        route.write_legs, route.read_legs = legs
        return route

    def _pool(self, capacity: int | None, station: Station) -> SlotPool:
        """A slot pool counting to ``station`` (whose slot count the build already holds)."""
        held, since = station.held, station.held_since
        pool = SlotPool(self.env, capacity, station)
        station.held, station.held_since = held, since  # slots other pools of it hold now
        return pool

    def depth(self, host: HostInstance, lun_index: int, configured: bool = False) -> float | None:
        """The sum of ``host``'s queue depths over every path to a LUN (None: unlimited),
        counting the paths not used yet at the depth they would have now; ``configured``:
        as configured, before any throttle lowered them."""
        plan = self.groups[host.group]
        paths = plan.paths[lun_index]
        routes = host.routes.get(lun_index)
        total = 0.0
        unused = paths
        if routes is not None:
            unused = []
            for route, path in zip(routes, paths, strict=True):
                if route is None:
                    unused.append(path)
                    continue
                throttle = route.throttle
                if configured and throttle is not None:
                    capacity = throttle.original
                else:
                    capacity = route.host_queue.capacity
                if capacity is None:
                    return None
                total += capacity
        if not unused:
            return total
        kind = plan.spec.qfull.throttle
        if kind == "linux":  # a throttle per target port: each path's own
            for path in unused:
                capacity = self._throttled(host.index, path.array_port, plan, configured)
                if capacity is None:
                    return None
                total += capacity
            return total
        capacity = plan.queue_knob.value  # the same for every unused path
        if kind != "none":  # one throttle per LUN
            capacity = self._throttled(host.index, lun_index, plan, configured)
        return None if capacity is None else total + capacity * len(unused)

    def _throttled(self, host: int, governs: int, plan: GroupPaths, configured: bool) -> int | None:
        """An unused path's queue depth under the throttle of (``host``, ``governs``), if
        one was made yet: its depth now, or as configured."""
        throttle = self._throttles.get((host, governs))
        if throttle is None:
            return plan.queue_knob.value
        return throttle.original if configured else throttle.pools[0].capacity

    def _make_legs(
        self, host: int, port_number: int, hba: Hba, hba_port: HbaPort, port: ArrayPort, lun: Lun
    ) -> tuple[tuple[Leg, ...], tuple[Leg, ...]]:
        """The links the data of a write and of a read cross, in order (shared by every
        route of one host port to one array port for LUNs of one owner).

        A write's data goes host memory -> PCIe -> host link -> fabric -> array link (-> the
        link between controllers when the port's controller does not own the LUN -> the
        controllers' data bandwidth); a read's comes back the same way reversed. The host's
        legs are made once per host port and the array's once per array port and LUN owner,
        shared by every route that crosses them.
        """
        host_key = (host, port_number)
        host_legs = self._host_legs.get(host_key)
        if host_legs is None:
            host_legs = self._host_legs[host_key] = (
                (Leg(hba.pcie_down, False, 0.0, PCIE), Leg(hba_port.link_out, True, 0.0, FABRIC)),
                (
                    Leg(hba_port.link_in, True, self.one_way, FABRIC),
                    Leg(hba.pcie_up, False, 0.0, PCIE),
                ),
            )
        array_key = (port.index, lun.owner)
        array_legs = self._array_legs.get(array_key)
        if array_legs is None:
            array_legs = self._array_legs[array_key] = self._array_side(port, lun)
        return host_legs[0] + array_legs[0], array_legs[1] + host_legs[1]

    def _array_side(self, port: ArrayPort, lun: Lun) -> tuple[tuple[Leg, ...], tuple[Leg, ...]]:
        """The array's links of a write (from its port inwards) and of a read (outwards)."""
        cross_link, controller_link = self.cross_link, self.controller_link
        write = [Leg(port.link_in, True, self.one_way, FABRIC)]
        read = [Leg(port.link_out, True, 0.0, FABRIC)]
        if cross_link is not None and port.controller != lun.owner:
            write.append(Leg(cross_link, False, 0.0, CONTROLLER))
            read.insert(0, Leg(cross_link, False, 0.0, CONTROLLER))
        if controller_link is not None:
            write.append(Leg(controller_link, False, 0.0, CONTROLLER))
            read.insert(0, Leg(controller_link, False, 0.0, CONTROLLER))
        return tuple(write), tuple(read)
