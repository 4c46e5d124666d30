"""Topology: the running components of one scenario, wired into paths.

``build_topology`` turns a validated :class:`~sanpath.spec.scenario.Scenario` into components
(HBAs, links, array ports, controller, cache, RAID pools, drives, LUNs) and, for every host
group and LUN, the paths its multipath policy chooses from (shared by the group's hosts).
Zoning decides which host ports see which array ports; a LUN's ``ports`` decide where it is
presented. A host that cannot reach a LUN its workload uses is an error, reported against
the scenario. A host's :class:`~sanpath.sim.components.host.Route` on a path, with its own
queue, is made when the path is first taken (:mod:`sanpath.sim.routes`): a thousand hosts on
64 LUNs build in a fraction of a second and hold only the routes a run uses.

Statistics are kept per *group*: the 64 identical hosts of a group share one ``db.hba.slots``
station, every LUN of a group one ``array.lun.data`` station, so a result stays readable.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import simpy

from sanpath.layout import (
    Wiring,
    host_link_credits,
    nvme_io_time,
    nvme_queues,
    port_controller,
    station_name,
    station_roles,
    target_time,
    transport_cpu_time,
    transport_delay,
)
from sanpath.layout.access import read_hits
from sanpath.results import LAYERS, Victim, victims
from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.cache import Cache, ReadAhead
from sanpath.sim.components.drive import Drive
from sanpath.sim.components.flash import make_drive
from sanpath.sim.components.hba import Hba, HbaPort
from sanpath.sim.components.host import HostInstance, Route, Throttle
from sanpath.sim.components.raid import RaidPool
from sanpath.sim.fabric import host_link, isl_links
from sanpath.sim.hops import Server, constant
from sanpath.sim.knobs import Knob, slot_servers
from sanpath.sim.paths import GroupPaths, QueuePairs, group_paths
from sanpath.sim.routes import RouteMaker
from sanpath.sim.station import FcfsServer, Link, SlotPool, Station
from sanpath.sim.streams import Streams
from sanpath.spec import (
    TRANSPORTS,
    HbaSpec,
    Scenario,
    SsdSpec,
    TextbookDriveSpec,
    expand_names,
    knob_key,
)

PREFETCH_CHUNK = 1 << 20
"""Read-ahead fetches in chunks of at least this many bytes (or one stripe row if larger).

Destaging merges contiguous dirty data of a LUN into writes of up to four stripe rows (or
``cache.destage_size`` if larger), so sequential writes reach the drives as full stripes."""


@dataclass(eq=False)
class Topology:
    """Every running component of one scenario."""

    env: simpy.Environment
    stations: dict[str, Station]
    ports: list[ArrayPort]
    controller: FcfsServer
    """The array's controller (the first of two)."""
    controller_time: Callable[[], float]
    controller_write_time: Callable[[], float]
    cache: Cache
    pools: dict[str, RaidPool]
    luns: list[Lun]
    luns_by_group: dict[str, list[Lun]]
    hosts: list[HostInstance]
    hosts_by_group: dict[str, list[HostInstance]]
    throttles: list[Throttle] = field(default_factory=list)
    cross_link: Link | None = None
    """The link between the array's controllers (for commands on non-owner ports)."""
    controller_link: Link | None = None
    """The controllers' data bandwidth (``controller.bandwidth``)."""
    knobs: dict[str, Knob] = field(default_factory=dict)
    """Queues a schedule may resize, by the dotted scenario key that sets them."""
    routes: RouteMaker | None = None
    """Makes each host's routes when they are first used."""
    controllers: list[FcfsServer] = field(default_factory=list)
    """Every controller: one, or two (``array.controllers``), by index."""

    def victims(self, span: float) -> tuple[Victim, ...]:
        """The hosts that waited in the window for ISL credits other hosts' frames held
        (:func:`sanpath.results.victims`), over every ISL."""
        waits: dict[tuple[int, int], float] = {}
        for st in self.stations.values():
            for key, waited in (st.victims or {}).items():
                waits[key] = waits.get(key, 0.0) + waited
        return tuple(victims(waits, [host.name for host in self.hosts], span))

    def fail_controller(self, scenario: Scenario, failed: int | None) -> None:
        """Controller ``failed`` of ``scenario``'s array has failed (None: both work again):
        its LUNs are owned by the survivor and its ports carry no new I/O
        (:meth:`~sanpath.sim.routes.RouteMaker.rewire`)."""
        array = scenario.array.model_copy(update={"failed_controller": failed})
        if self.routes is not None:
            self.routes.rewire(scenario.model_copy(update={"array": array}), self.hosts)

    def on_qfull(self, host: HostInstance, lun_index: int, route: Route, now: float) -> None:
        """A QUEUE FULL came back at ``now`` for ``host``'s ``route`` to LUN ``lun_index``:
        its QUEUE FULL throttle is told, made now if it is the first
        (:meth:`~sanpath.sim.routes.RouteMaker.throttle`)."""
        throttle = route.throttle
        if throttle is None and self.routes is not None:
            throttle = self.routes.throttle(host, lun_index, route)
        if throttle is not None:
            throttle.on_qfull(now)


def build_topology(env: simpy.Environment, scenario: Scenario, streams: Streams) -> Topology:
    """Build and wire every component of ``scenario`` in ``env``.

    Raises
    ------
    ScenarioError
        When LUNs do not fit in their pool or a host cannot reach a LUN it uses.
    """
    array = scenario.array
    stations: dict[str, Station] = {}
    roles = station_roles(scenario)
    knobs: dict[str, Knob] = {}

    def knob(key: str, pool: SlotPool, rank: int) -> SlotPool:
        return knobs.setdefault(key, Knob(pool.capacity)).add(pool, rank)

    def station(name: str, servers: float = 0.0) -> Station:
        st = stations.get(name)
        if st is None:
            role = roles[name]
            st = stations[name] = Station(name, role.kind, 0.0, role.layer)
        st.servers += servers
        return st

    # -- array front end ------------------------------------------------------------------
    ports = []
    for i in range(array.ports):
        queue = knob(
            knob_key("port_queue_depth"),
            SlotPool(
                env,
                array.port_queue_depth,
                station(station_name("port_queue", port=i), slot_servers(array.port_queue_depth)),
            ),
            i,
        )
        link_in = Link(env, array.port_speed, station(station_name("port_link_in", port=i), 1))
        link_out = Link(env, array.port_speed, station(station_name("port_link_out", port=i), 1))
        ports.append(ArrayPort(i, queue, link_in, link_out, port_controller(i)))
    controller_link = None
    if array.controller.bandwidth is not None:
        controller_link = Link(
            env,
            array.controller.bandwidth,
            station(station_name("controller_bandwidth"), 1),
            setup=array.controller.transfer_setup,
        )
    cross_link = None
    if array.cross_controller is not None:
        cross_link = Link(
            env,
            array.cross_controller.rate,
            station(station_name("cross_controller"), 1),
        )
    cores = array.controller.cores
    if array.controllers == 1:
        controllers = [FcfsServer(env, cores, station(station_name("controller"), cores))]
    else:
        controllers = [
            FcfsServer(env, cores, station(station_name("controllers", controller=c), cores))
            for c in range(array.controllers)
        ]
    controller = controllers[0]
    controller_time = streams.sampler(array.controller.io_time, "array.controller")
    write_spec = array.controller.write_io_time
    controller_write_time = (
        controller_time
        if write_spec is None
        else streams.sampler(write_spec, "array.controller.write")
    )
    cache = Cache(env, array.cache)

    # -- pools and drives -----------------------------------------------------------------
    pools: dict[str, RaidPool] = {}
    for pool_spec in array.pools:
        st = station(station_name("drives", pool=pool_spec.name))
        groups: list[list[Drive]] = []
        for g in range(pool_spec.groups):
            members: list[Drive] = []
            for m in range(pool_spec.drives):
                spec = pool_spec.drive
                sampler = None
                if isinstance(spec, TextbookDriveSpec):
                    sampler = streams.sampler(spec.service, f"array.{pool_spec.name}.g{g}.d{m}")
                    st.servers += spec.servers
                elif isinstance(spec, SsdSpec):
                    st.servers += spec.units
                else:
                    st.servers += 1
                members.append(make_drive(env, spec, st, sampler))
            groups.append(members)
        pools[pool_spec.name] = RaidPool(env, pool_spec, groups)
        cache.add_pool(pools[pool_spec.name], pool_spec)

    # -- LUNs ------------------------------------------------------------------------------
    wiring = Wiring(scenario)
    luns: list[Lun] = []
    luns_by_group: dict[str, list[Lun]] = {}
    hits = read_hits(scenario)
    n_workloads = len(scenario.workloads)
    for gi, group in enumerate(array.luns):
        pool = pools[group.pool]
        written = array.cache.read_hit if group.read_hit is None else group.read_hit
        written_hit = 0.0 if written is None else written
        st = station(station_name("lun_queue", lun=group.name))
        lun_members: list[Lun] = []
        for li in wiring.luns_by_group[group.name]:
            place = wiring.luns[li]
            name, limit = place.name, place.limit
            st.servers += slot_servers(limit)
            lun = Lun(
                name=name,
                index=li,
                size=place.size,
                base=place.base,
                pool=pool,
                queue=knob(knob_key("lun_queue_depth", lun=gi), SlotPool(env, limit, st), li),
                hit=streams.uniform(f"array.lun.{name}.hit"),
                read_hits=[hits.get((wi, gi), written_hit) for wi in range(n_workloads)],
                write_hit=(array.cache.write_hit if group.write_hit is None else group.write_hit),
                write_hit_draw=streams.uniform(f"array.lun.{name}.write_hit"),
                destage_merge=max(4 * pool.row_bytes, array.cache.destage_size),
                owner=place.owner,
            )
            if array.cache.read_ahead > 0:
                chunk = min(array.cache.read_ahead, max(pool.row_bytes, PREFETCH_CHUNK))
                lun.readahead = ReadAhead(env, lun, array.cache.read_ahead, chunk)
            lun_members.append(lun)
            luns.append(lun)
        luns_by_group[group.name] = lun_members

    # -- hosts, HBAs and the paths their routes are made on -------------------------------------
    hosts: list[HostInstance] = []
    hosts_by_group: dict[str, list[HostInstance]] = {}
    throttles: list[Throttle] = []
    group_plans: dict[str, GroupPaths] = {}
    maker = RouteMaker(
        env,
        group_plans,
        ports,
        luns,
        scenario.fabric.one_way_latency,
        cross_link,
        controller_link,
        throttles,
        wiring,
        _controllers(scenario, controllers, controller_time, controller_write_time),
        array.cross_controller.time if array.cross_controller is not None else 0.0,
        isl_links(env, scenario, station),
    )
    for hi, hspec in enumerate(scenario.hosts):
        hg = hspec.name
        instances: list[HostInstance] = []
        facts = TRANSPORTS[hspec.transport]
        queue_pairs = None
        if facts.nvme:
            io_queues, queue_size = nvme_queues(scenario, hi)
            queue_pairs = QueuePairs(
                io_queues, queue_size - 1, station(station_name("queue_pairs", host=hg))
            )
        extra = transport_cpu_time(scenario, hi)
        delay = transport_delay(scenario, hi)
        for iname in expand_names(hg, hspec.count):
            io_time = streams.sampler(hspec.io_time, f"{iname}.io_time")
            cpu_time = streams.sampler(hspec.cpu_time, f"{iname}.cpu")
            if extra > 0.0:  # the transport's own work: on the processors, if modelled
                if hspec.cpus is not None:
                    cpu_time = _plus(cpu_time, extra)
                else:
                    delay += extra
            if delay > 0.0:  # and its stack's waits
                io_time = _plus(io_time, delay)
            host = HostInstance(
                name=iname,
                group=hg,
                split_limit=wiring.split_limit[hi],
                policy=hspec.nvme.iopolicy if facts.nvme else hspec.multipath,
                rr_ios=hspec.nvme.rr_ios if facts.nvme else hspec.rr_ios,
                retry_delay=hspec.qfull.retry_delay,
                io_time=io_time,
                cpu_time=cpu_time,
                maker=maker,
                rr_bytes=hspec.nvme.rr_bytes,
            )
            if queue_pairs is not None:
                host.queue_draw = _queue_draw(
                    streams.generator(f"{iname}.issuing_cpu"),
                    hspec.cpus if hspec.cpus is not None else queue_pairs.io_queues,
                    queue_pairs.io_queues,
                )
            link_out_name = station_name("host_link_out", host=hg)
            link_in_name = station_name("host_link_in", host=hg)
            if hspec.cpus is not None:
                cpus = hspec.cpus
                host.cpu = FcfsServer(env, cpus, station(station_name("host_cpu", host=hg), cpus))
            for hba_index, hba_spec in enumerate(hspec.hbas):
                credit_limits = host_link_credits(scenario, hi, hba_index)
                for _card in range(hba_spec.count):
                    cname = f"{iname}.hba{len(host.cards)}"
                    rate = hba_spec.pcie.bytes_per_s if hba_spec.pcie is not None else None
                    processors = _processors(
                        env, streams, hba_spec, cname, station(station_name("hba_cpu", host=hg))
                    )
                    hba = Hba(
                        name=cname,
                        pcie_down=Link(env, rate, station(station_name("pcie_down", host=hg), 1)),
                        pcie_up=Link(env, rate, station(station_name("pcie_up", host=hg), 1)),
                        ports=[],
                    )
                    host.cards.append(hba)
                    for p in range(hba_spec.ports):
                        cpu, command_time = processors[p % len(processors)]
                        port = HbaPort(
                            name=f"{cname}.port{p}",
                            cpu=cpu,
                            command_time=command_time,
                            link_out=host_link(
                                env, hba_spec.speed, station(link_out_name, 1), credit_limits, 0
                            ),
                            link_in=host_link(
                                env, hba_spec.speed, station(link_in_name, 1), credit_limits, 1
                            ),
                        )
                        hba.ports.append(port)
                        host.ports.append(port)
            if not instances and any(g == hi for g, _ in wiring.paths):
                # the stations of the group's HBA slots and host queues, in the order the
                # first route of the first host would make them
                if queue_pairs is not None:  # NVMe: the queue pairs stand for both
                    slots_station = queue_station = queue_pairs.station
                else:
                    slots_station = station(station_name("hba_slots", host=hg))
                    queue_station = station(station_name("host_queue", host=hg))
                plan = group_paths(
                    wiring, hi, hspec, queue_station, slots_station, knobs, queue_pairs
                )
                group_plans[hg] = plan
            if hg in group_plans:
                host.paths = group_plans[hg].ports
                usable = group_plans[hg].usable
                if usable is not None:
                    host.usable = usable
            instances.append(host)
            host.index = len(hosts)
            hosts.append(host)
        hosts_by_group[hg] = instances

    return Topology(
        env=env,
        stations=stations,
        ports=ports,
        controller=controller,
        controllers=controllers,
        controller_time=controller_time,
        controller_write_time=controller_write_time,
        cache=cache,
        pools=pools,
        luns=luns,
        luns_by_group=luns_by_group,
        hosts=hosts,
        hosts_by_group=hosts_by_group,
        throttles=throttles,
        cross_link=cross_link,
        controller_link=controller_link,
        knobs=knobs,
        routes=maker,
    )


def _processors(
    env: simpy.Environment, streams: Streams, spec: HbaSpec, card: str, st: Station
) -> list[tuple[FcfsServer, Callable[[], float]]]:
    """The command processors of one HBA card and their per-command time samplers.

    ``processor: card`` gives one processor for every port of the card; ``processor: port``
    gives one per port, each drawing its own ``command_time`` (seconds). All of them count to
    the host group's ``hba.cpu`` station ``st``.
    """
    names = (
        [f"{card}.cpu"]
        if spec.processor == "card"
        else [f"{card}.port{p}.cpu" for p in range(spec.ports)]
    )
    made = []
    for name in names:
        st.servers += 1
        made.append((FcfsServer(env, 1, st), streams.sampler(spec.command_time, name)))
    return made


def _plus(draw: Callable[[], float], extra: float) -> Callable[[], float]:
    """``draw`` plus ``extra`` seconds."""

    def plus() -> float:
        return draw() + extra

    return plus


def _queue_draw(rng: np.random.Generator, cpus: int, io_queues: int) -> Callable[[], int]:
    """Draws the I/O queue an I/O goes to: the queue of the processor that issues it, one of
    ``cpus`` alike, the processors spread over the ``io_queues`` queues in turn (as Linux's
    blk-mq maps them). Draws are taken from ``rng`` in blocks."""
    block: list[int] = []

    def draw() -> int:
        if not block:
            block.extend(int(c) % io_queues for c in rng.integers(0, cpus, 4096)[::-1])
        return block.pop()

    return draw


def _controllers(
    scenario: Scenario,
    controllers: list[FcfsServer],
    read_time: Callable[[], float],
    write_time: Callable[[], float],
) -> dict[tuple[str, int], Server]:
    """The hop of each controller for each transport the hosts speak: ``read_time`` and
    ``write_time`` per command (NVMe: ``array.nvme.io_time`` when given), plus the
    transport's own processor time on the array (:func:`~sanpath.layout.target_time`)."""
    layer = LAYERS.index("controller")
    made: dict[tuple[str, int], Server] = {}
    for transport in ["fcp", *sorted({host.transport for host in scenario.hosts} - {"fcp"})]:
        reads, writes = read_time, write_time
        own = nvme_io_time(scenario, transport)
        if own is not None:
            reads = writes = constant(own)
        extra = target_time(scenario, transport)
        if extra > 0.0:
            reads, writes = _plus(reads, extra), _plus(writes, extra)
        for index, server in enumerate(controllers):
            made[transport, index] = Server(layer, server, reads, writes)
    return made
