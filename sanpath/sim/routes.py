"""Routes made on first use: a host's queues, HBA slots, throttle and links for one path.

A thousand hosts on 64 LUNs through a few paths each would be hundreds of thousands of
:class:`~sanpath.sim.components.host.Route` objects with their queues, and a run sends I/O
down a small share of them (an open loop of 100,000 I/Os over 1,000 hosts and 64 LUNs
touches each host-LUN pair once or twice). So the topology builds only what every path
shares (:class:`~sanpath.sim.paths.GroupPaths`: the wiring's paths of a host group), and
:class:`RouteMaker` makes a route the first time the multipath policy picks it
(:meth:`~sanpath.sim.components.host.HostInstance.select`), exactly as the eager build
would have left it at that moment:

* its host queue and HBA slot pool get the capacity their scenario key has *now*
  (:class:`~sanpath.sim.knobs.Knob`: a schedule may have changed it), or, when the host's
  QUEUE FULL throttle already governs other queues of the same LUN (or target port),
  theirs: a throttle and a schedule always set every queue they govern at once, so those
  queues share one capacity;
* a throttle is made at the first QUEUE FULL it governs (:meth:`RouteMaker.throttle`),
  holding the depth the scenario gives and governing the queues made so far: until then it
  would have changed nothing (it raises a depth only after lowering one, and nothing
  reaches a throttle but through its queues);
* the stations the queues count to have their slot counts from the start
  (:func:`~sanpath.sim.paths.group_paths` counts them), so utilisations do not depend on
  which routes exist.

Results are the same to the last bit as with every route built at the start.
"""

from __future__ import annotations

import bisect
from collections.abc import Sequence

import simpy

from sanpath.layout import front_hops, isl_hops, isl_light, reverse
from sanpath.layout.wiring import Wiring
from sanpath.sim.binding import Binding, bind_hops
from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.hba import Hba, HbaPort
from sanpath.sim.components.host import Association, HostInstance, Leg, Route, Throttle
from sanpath.sim.hops import Delay, Gate, Server, constant
from sanpath.sim.knobs import Rank
from sanpath.sim.paths import NVME_KEY, GroupPaths, PathPlan, rank, usable_paths
from sanpath.sim.station import CONTROLLER, FABRIC, HOST_QUEUE, PCIE, Link, SlotPool, Station
from sanpath.spec import Scenario


class RouteMaker:
    """Makes a host's route of one path to one LUN when it is first used (module docstring).

    ``one_way`` (s) is the fabric latency before the far end's link. ``isl_links`` holds
    the links of each ISL direction, by (ISL, direction): the bundle that hands each
    exchange to the next of its links (exchange-based routing), or the links themselves, of
    which a host port's exchanges with one array port always take the same one (port-based).
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
        wiring: Wiring,
        controllers: dict[tuple[str, int], Server],
        cross_time: float,
        isl_links: dict[tuple[int, int], tuple[Link, ...]] | None = None,
    ) -> None:
        self.env = env
        self.isl_links = {} if isl_links is None else isl_links
        self.wiring = wiring
        self.binding = Binding(controllers, one_way, cross_time)
        """What binding a declared hop needs besides its scope's objects."""
        self.groups = groups
        self.ports = ports
        self.luns = luns
        self.one_way = one_way
        self.cross_link = cross_link
        self.controller_link = controller_link
        self.throttles = throttles
        """Every throttle made so far (the topology's list)."""
        self._throttles: dict[int, Throttle] = {}
        """Per host and LUN or target port it governs (:meth:`_governs`): the throttle."""
        self._throttle_ranks: dict[int, list[Rank]] = {}
        """The build order of each throttle's queues."""
        self._legs: dict[int, tuple[tuple[Leg, ...], tuple[Leg, ...]]] = {}
        """Per host, host port, array port and LUN owner (:attr:`PathPlan.legs` and the
        host): the links of writes and reads."""
        self._host_legs: dict[int, tuple[tuple[Leg, ...], tuple[Leg, ...]]] = {}
        """Per host and host port: the host's links of writes and of reads (shared legs)."""
        self._array_legs: dict[tuple[int, int], tuple[tuple[Leg, ...], tuple[Leg, ...]]] = {}
        """Per (array port, LUN owner): the array's links of writes and of reads."""

    @staticmethod
    def rank(host: int, lun: int, k: int) -> Rank:
        """The place of ``host``'s queue on path ``k`` to ``lun`` in the eager build's order
        (:func:`~sanpath.sim.paths.rank`)."""
        return rank(host, lun, k)

    @staticmethod
    def _governs(host: int, governs: int) -> int:
        """The key of ``host``'s throttle of a LUN or target port ``governs``."""
        return (host << 32) | governs

    def __call__(self, host: HostInstance, lun_index: int, k: int) -> Route:
        """The route of ``host``'s path ``k`` to LUN ``lun_index``."""
        group = self.groups[host.group]
        plans = group.plans.get(lun_index)
        if plans is None:
            plans = self._plans(group, lun_index)
        path = plans[k]
        port = host.ports[path.port]
        if group.queue_pairs is not None:
            return self._nvme_route(host, group, path, port)
        host_rank = self.rank(host.index, 0, 0)
        slots = port.slots.get(path.slot_key)
        if slots is None:
            knob = path.slot_knob
            pool = self._pool(knob.value, group.hba_slots)
            slots = port.slots[path.slot_key] = knob.add(pool, host_rank | path.slot_rank)
        rank = host_rank | path.rank
        throttle = None
        throttles = self._throttles
        if throttles and group.throttle != "none":  # none before the first QUEUE FULL
            governs = self._governs(host.index, path.governs)
            throttle = throttles.get(governs)
        if throttle is not None:  # its queues share one depth (module docstring)
            queue = self._pool(throttle.pools[0].capacity, group.host_queue)
            ranks = self._throttle_ranks[governs]
            at = bisect.bisect(ranks, rank)
            ranks.insert(at, rank)
            throttle.pools.insert(at, queue)
        else:
            queue = self._pool(group.queue_knob.value, group.host_queue)
        group.queue_knob.add(queue, rank)
        port_hops = port.hops.get(path.slot_key)
        if port_hops is None:
            port_hops = bind_hops(self.binding, path.front, "port", port=port, slots=slots)
            port.hops[path.slot_key] = port_hops
        work = host.work
        if work is None:
            work = host.work = bind_hops(self.binding, path.front, "host", host=host)
        hops = (Gate(HOST_QUEUE, queue, 0), *work, *port_hops, *path.array_hops)
        legs = self._route_legs(host, path, port)
        return Route(
            hops,
            path.retry_at,
            queue,
            port,
            path.array_port,
            path.lun,
            group.wire,
            throttle,
            legs[0],
            legs[1],
            one_way=self.one_way + path.isl_light,
        )

    def _nvme_route(
        self, host: HostInstance, group: GroupPaths, path: PathPlan, port: HbaPort
    ) -> Route:
        """An NVMe host's route: the queue pairs of its association with the path's array
        port (made with the association's first route), its work, its HBA's (or NIC's)
        processor and the array's hops; no SCSI queue, no throttle."""
        pairs = group.queue_pairs
        assert pairs is not None
        key = (path.port << 21) | path.array_port.index
        association = host.associations.get(key)
        if association is None:
            pools = tuple(self._pool(pairs.slots, pairs.station) for _ in range(pairs.io_queues))
            association = host.associations[key] = Association(pools)
        pools = association.pools
        port_hops = port.hops.get(NVME_KEY)
        if port_hops is None:
            port_hops = port.hops[NVME_KEY] = bind_hops(self.binding, path.front, "port", port=port)
        work = host.work
        if work is None:
            work = host.work = bind_hops(self.binding, path.front, "host", host=host)
        queues = Gate(HOST_QUEUE, pools[0], 0, pools=pools)
        hops = (queues, *work, *port_hops, *path.array_hops)
        legs = self._route_legs(host, path, port)
        return Route(
            hops,
            path.retry_at,
            pools[0],
            port,
            path.array_port,
            path.lun,
            group.wire,
            None,
            legs[0],
            legs[1],
            association,
            self.one_way + path.isl_light,
        )

    def _route_legs(
        self, host: HostInstance, path: PathPlan, port: HbaPort
    ) -> tuple[tuple[Leg, ...], tuple[Leg, ...]]:
        """The links of a write and of a read on ``host``'s ``path`` through HBA ``port``."""
        legs_key = (host.index << 40) | path.legs
        legs = self._legs.get(legs_key)
        if legs is None:
            host_legs = self._host_side(host.index, path.port, host.cards[path.card], port)
            array_legs = path.array_legs
            if path.isls:
                legs = self._legs[legs_key] = self._isl_legs(host, path, host_legs, array_legs)
            else:
                legs = self._legs[legs_key] = (
                    host_legs[0] + array_legs[0],
                    array_legs[1] + host_legs[1],
                )
        return legs

    def _isl_legs(
        self,
        host: HostInstance,
        path: PathPlan,
        host_legs: tuple[tuple[Leg, ...], tuple[Leg, ...]],
        array_legs: tuple[tuple[Leg, ...], tuple[Leg, ...]],
    ) -> tuple[tuple[Leg, ...], tuple[Leg, ...]]:
        """A write's and a read's links on a path over ISLs: the host's, the ISLs' (toward
        the array, or back in the other direction) and the array's; light over the ISLs
        reaches the far end's link later."""
        pick = host.index + path.port + path.array_port.index  # port-based: fixed per pair
        ways = []
        for hops in (path.isls, reverse(path.isls)):
            way = []
            for hop in hops:
                links = self.isl_links[hop.isl, hop.direction]
                way.append(Leg(links[pick % len(links)], True, 0.0, FABRIC))
            ways.append(tuple(way))
        light = path.isl_light
        write_far, read_far = array_legs[0][0], host_legs[1][0]
        return (
            host_legs[0]
            + ways[0]
            + (write_far._replace(latency=write_far.latency + light),)
            + array_legs[0][1:],
            array_legs[1]
            + ways[1]
            + (read_far._replace(latency=read_far.latency + light),)
            + host_legs[1][1:],
        )

    def throttle(self, host: HostInstance, lun_index: int, route: Route) -> Throttle | None:
        """The QUEUE FULL throttle of ``host``'s ``route`` to LUN ``lun_index``, made now if
        this is the first QUEUE FULL it governs (None: the host does not throttle).

        Until then it would have changed nothing (it raises a depth only after lowering it),
        so it is made holding the configured depth, governing every queue the host made
        for its LUN (or target port) so far, in build order; those routes and the routes
        made later report to it.
        """
        group = self.groups[host.group]
        if group.throttle == "none":
            return None
        linux = group.throttle == "linux"
        governs = route.array_port.index if linux else lun_index
        key = self._governs(host.index, governs)
        throttle = self._throttles.get(key)
        if throttle is not None:
            return throttle
        routes: list[Route] = []
        ranks: list[Rank] = []
        for li in sorted(host.routes) if linux else [lun_index]:
            for k, other in enumerate(host.routes[li]):
                if other is not None and (not linux or other.array_port.index == governs):
                    routes.append(other)
                    ranks.append(self.rank(host.index, li, k))
        throttle = Throttle(group.qfull, [other.host_queue for other in routes])
        throttle.original = throttle.depth = group.queue_depth
        for other in routes:
            other.throttle = throttle
        self._throttles[key] = throttle
        self._throttle_ranks[key] = ranks
        self.throttles.append(throttle)
        return throttle

    def rewire(self, scenario: Scenario, hosts: Sequence[HostInstance]) -> None:
        """The array's controllers changed (one failed, or came back): LUN ownership, the
        paths' ANA/ALUA states and the array part of every route made so far follow
        ``scenario``. Commands already past a hop finish where they are; the next ones take
        the new routes (the same queues and slots: only the array's hops and links change)."""
        self.wiring = wiring = Wiring(scenario)
        for lun in self.luns:
            lun.owner = wiring.luns[lun.index].owner
        before = {name: dict(group.plans) for name, group in self.groups.items()}
        for group in self.groups.values():
            paths = {li: p for (g, li), p in wiring.paths.items() if g == group.index}
            group.paths.update(paths)  # the same paths in the same order, new states
            if group.usable is not None:
                group.usable.update(usable_paths(paths))
            for lun_index in before[group.spec.name]:
                self._plans(group, lun_index)
        for host in hosts:
            made = self.groups.get(host.group)
            if made is None:
                continue
            for lun_index, routes in host.routes.items():
                for k, route in enumerate(routes):
                    if route is None:
                        continue
                    plan = made.plans[lun_index][k]
                    old = before[host.group][lun_index][k]
                    front = route.hops[: len(route.hops) - len(old.array_hops)]
                    route.set_hops((*front, *plan.array_hops))
                    route.write_legs, route.read_legs = self._route_legs(
                        host, plan, host.ports[plan.port]
                    )

    def _plans(self, group: GroupPaths, lun_index: int) -> list[PathPlan]:
        """The plans of every path of ``group`` to LUN ``lun_index`` (made once)."""
        lun = self.luns[lun_index]
        transport = group.spec.transport
        plans = []
        for k, path in enumerate(group.paths[lun_index]):
            port = self.ports[path.array_port]
            array_key = (port.index, lun.owner)
            array_legs = self._array_legs.get(array_key)
            if array_legs is None:
                array_legs = self._array_legs[array_key] = self._array_side(port, lun)
            front = front_hops(self.wiring, path)
            array_hops = bind_hops(
                self.binding, front, "array", lun=lun, array_port=port, transport=transport
            )
            isls = isl_hops(self.wiring.scenario, group.index, port.index) if self.isl_links else ()
            light = isl_light(self.wiring.scenario, isls)
            if light > 0.0:  # the command frame's light over the ISLs
                array_hops = (Delay(FABRIC, constant(light)), *array_hops)
            plan = PathPlan(path, k, group, port, lun, array_legs, front, array_hops)
            plan.isls = isls
            plan.isl_light = light
            plans.append(plan)
        group.plans[lun_index] = plans
        return plans

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
        if plan.queue_pairs is not None:
            return None  # NVMe: no per-namespace queue, only the controller's queue pairs
        paths = plan.paths[lun_index]
        kind = plan.throttle
        if kind != "linux":
            # every queue of the LUN's paths has one depth: the throttle of the LUN (if one
            # was made) or the scenario key sets them all at once, a queue made later
            # takes theirs, and so would a path not used yet
            if kind == "none":
                capacity = plan.queue_knob.value
            else:  # the host has a queue to the LUN: it has a device
                capacity = self._throttled(host.index, lun_index, plan, configured, True)
            return None if capacity is None else float(capacity * len(paths))
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
                if not configured:
                    capacity = route.host_queue.capacity
                elif throttle is not None:
                    capacity = throttle.original
                else:  # no QUEUE FULL yet: as configured
                    capacity = plan.queue_depth
                if capacity is None:
                    return None
                total += capacity
        targets: set[int] = set()  # the target ports the host has queues to
        if configured and unused:
            for others in host.routes.values():
                targets.update(r.array_port.index for r in others if r is not None)
        for path in unused:  # a throttle per target port (linux): each path's own
            used = path.array_port in targets
            capacity = self._throttled(host.index, path.array_port, plan, configured, used)
            if capacity is None:
                return None
            total += capacity
        return total

    def _throttled(
        self, host: int, governs: int, plan: GroupPaths, configured: bool, used: bool
    ) -> int | None:
        """An unused path's queue depth under the throttle of (``host``, ``governs``): its
        depth now, or as configured. A throttle is made at its first QUEUE FULL; without
        one, the depth is the scenario key's now, and as configured the throttle's
        (``used``: the host has a queue it would govern) or the scenario key's."""
        throttle = self._throttles.get(self._governs(host, governs))
        if throttle is None:
            return plan.queue_depth if configured and used else plan.queue_knob.value
        return throttle.original if configured else throttle.pools[0].capacity

    def _host_side(
        self, host: int, port_number: int, hba: Hba, hba_port: HbaPort
    ) -> tuple[tuple[Leg, ...], tuple[Leg, ...]]:
        """The host's links of a write (outwards) and of a read (inwards) through host port
        ``port_number``, made once per host port and shared by every route through it.

        A write's data goes host memory -> PCIe -> host link -> fabric -> array link (-> the
        link between controllers when the port's controller does not own the LUN -> the
        controllers' data bandwidth); a read's comes back the same way reversed. The array's
        legs are made once per array port and LUN owner (:meth:`_array_side`), and a route's
        are the two joined (shared by every route of one host port to one array port for
        LUNs of one owner).
        """
        key = (host << 20) | port_number
        legs = self._host_legs.get(key)
        if legs is None:
            legs = self._host_legs[key] = (
                (Leg(hba.pcie_down, False, 0.0, PCIE), Leg(hba_port.link_out, True, 0.0, FABRIC)),
                (
                    Leg(hba_port.link_in, True, self.one_way, FABRIC),
                    Leg(hba.pcie_up, False, 0.0, PCIE),
                ),
            )
        return legs

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
