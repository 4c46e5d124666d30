"""Building the network: the scenario mapped onto members, classes and flows.

:func:`build_network` mirrors :mod:`sanpath.sim.engine` station by station: LUNs and pools (the
drives' active regions and service), the array's front end, the host groups (cards, ports,
routes of every LUN by the multipath policy), then one class per workload, host group and LUN
group with its demands (:mod:`.demands`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sanpath.layout import Wiring, host_link_rates, isl_labels, split_sizes, station_name
from sanpath.spec import Scenario, WorkloadSpec, pool_capacity
from sanpath.theory.twin.model.demands import dist, fill_class, hba_processors
from sanpath.theory.twin.model.drives import TOUCHED as _TOUCHED
from sanpath.theory.twin.model.drives import DriveModel as _DriveModel
from sanpath.theory.twin.model.drives import drive_model as _drive_model
from sanpath.theory.twin.model.network import Class as _Class
from sanpath.theory.twin.model.network import Flow as _Flow
from sanpath.theory.twin.model.network import Member as _Member
from sanpath.theory.twin.model.network import Network as _Network
from sanpath.theory.twin.model.network import ReadAhead as _ReadAhead


def build_network(scenario: Scenario, destage: bool) -> _Network:
    """Map ``scenario`` onto stations and per-command demands.

    Read-ahead needs a closed solution of the drives: :func:`build_network` lists it in
    ``read_ahead`` and :func:`~sanpath.theory.twin.read_ahead._add_read_ahead` solves it.
    """
    s = scenario
    array = s.array
    fabric = s.fabric
    notes: list[str] = []
    one_way = fabric.one_way_latency
    members: dict[tuple[str, int], _Member] = {}
    group_servers: dict[str, float] = {}

    def member(group: str, index: int, servers: int, count: int, **kw: Any) -> tuple[str, int]:
        key = (group, index)
        if key not in members:
            members[key] = _Member(group, servers, count, **kw)
        return key

    # -- LUNs and pools ------------------------------------------------------------------------
    pools = list(array.pools)
    pool_index = {p.name: i for i, p in enumerate(pools)}
    wiring = Wiring(s)
    lun_base: list[int] = []  # base of the first LUN of each group
    lun_first: list[int] = []  # global index of the first LUN of each group
    pool_base: dict[int, int] = {}  # base of the first LUN of each pool
    extents: dict[int, list[tuple[int, int, int]]] = {}  # lun group -> (base, size) per LUN
    for gi, group in enumerate(array.luns):
        places = [wiring.luns[li] for li in wiring.luns_by_group[group.name]]
        lun_first.append(places[0].index)
        lun_base.append(places[0].base)
        pool_base.setdefault(pool_index[group.pool], places[0].base)
        extents[gi] = [(place.base, place.size, place.index) for place in places]

    # Active regions of each pool (LUNs some workload touches, times the span).
    spans: dict[int, float] = {}
    for w in s.workloads:
        groups = range(len(array.luns)) if w.luns == "all" else _lun_group_ids(s, w.luns)
        for gi in groups:
            spans[gi] = max(spans.get(gi, 0.0), w.span)
    drive_models: list[_DriveModel] = []
    for pi, pool in enumerate(pools):
        cap = pool_capacity(pool)
        intervals = []
        for gi, group in enumerate(array.luns):
            if pool_index[group.pool] != pi or gi not in spans:
                continue
            for base, size, _ in extents[gi]:
                intervals.append((base / cap, (base + size * spans[gi]) / cap))
        intervals = _union(intervals) or [(0.0, 1.0)]
        model = _drive_model(pool, intervals, array.cache)
        drive_models.append(model)
        n = pool.drives * pool.groups
        group_servers[station_name("drives", pool=pool.name)] = float(n * model.servers)
        mirror = pool.raid in ("raid1", "raid10")
        member(
            station_name("drives", pool=pool.name),
            0,
            model.servers,
            n // 2 if mirror else n,
            pool=pi,
            tcq=model.tcq if model.gains else 0,
            gains=model.gains,
            sptf_window=model.sptf_window,
            mirror=mirror,
            destage_depth=model.destage_depth(_TOUCHED[pool.raid]),
        )

    # -- array front end -----------------------------------------------------------------------
    cores = array.controller.cores
    if array.controllers == 1:
        controllers = [member(station_name("controller"), 0, cores, 1)]
    else:  # two, each with its cores: a command is served by its LUN's owner
        controllers = [
            member(station_name("controllers", controller=c), 0, cores, 1)
            for c in range(array.controllers)
        ]
    for name, _ in controllers:
        group_servers[name] = float(cores)
    ctrl_read = dist(array.controller.io_time)
    write_spec = array.controller.write_io_time
    ctrl_write = ctrl_read if write_spec is None else dist(write_spec)
    port_speed = array.port_speed
    for a in range(array.ports):
        group_servers[station_name("port_link_in", port=a)] = 1.0
        group_servers[station_name("port_link_out", port=a)] = 1.0

    # -- sequential streams per pool: one stream keeps its drives to itself --------------------
    streams = [0.0] * len(pools)
    for w in s.workloads:
        if w.random_share >= 1.0:
            continue
        hosts = _host_ids(s, w)
        groups = range(len(array.luns)) if w.luns == "all" else _lun_group_ids(s, w.luns)
        for gi in groups:
            pi = pool_index[array.luns[gi].pool]
            streams[pi] += sum(s.hosts[h].count for h in hosts) * array.luns[gi].count * w.threads
    seq_private = [n <= 1.0 for n in streams]

    # -- host groups: cards, ports, routes ------------------------------------------------------
    host_counts = [h.count for h in s.hosts]
    hba_ports: list[list[tuple[int, int]]] = []
    for hs in s.hosts:
        ports: list[tuple[int, int]] = []
        card = 0
        for si, hba in enumerate(hs.hbas):
            for _ in range(hba.count):
                for _p in range(hba.ports):
                    ports.append((card, si))
                card += 1
        hba_ports.append(ports)
        processors = len(set(hba_processors(hs)))
        group_servers[station_name("hba_cpu", host=hs.name)] = float(processors * hs.count)
        if hs.cpus is not None:
            group_servers[station_name("host_cpu", host=hs.name)] = float(hs.cpus * hs.count)
        if any(h.pcie is not None for h in hs.hbas):
            group_servers[station_name("pcie_down", host=hs.name)] = float(card * hs.count)
            group_servers[station_name("pcie_up", host=hs.name)] = float(card * hs.count)
        if any(h.speed is not None for h in hs.hbas):
            group_servers[station_name("host_link_out", host=hs.name)] = float(
                len(ports) * hs.count
            )
            group_servers[station_name("host_link_in", host=hs.name)] = float(len(ports) * hs.count)
    for label, isl in zip(isl_labels(s), (i for i in s.fabric.isls for _ in (0, 1)), strict=True):
        group_servers[station_name("isl", isl=label)] = float(isl.count)
    if array.controller.bandwidth is not None:
        group_servers[station_name("controller_bandwidth")] = 1.0

    def routes_of(hi: int, gi: int) -> list[tuple[int, int]]:
        first = lun_first[gi]
        return [(p.port, p.array_port) for p in wiring.paths.get((hi, first), [])]

    def fractions(hi: int, lun_index: int, n: int) -> list[float]:
        return wiring.shares(hi, lun_index) if n else []

    # -- classes --------------------------------------------------------------------------------
    classes: list[_Class] = []
    flows: dict[tuple[int, int], _Flow] = {}
    any_split = False
    prefetch_streams = [0.0] * len(pools)
    for wi, w in enumerate(s.workloads):
        hosts = _host_ids(s, w)
        groups = list(range(len(array.luns))) if w.luns == "all" else _lun_group_ids(s, w.luns)
        total_luns = sum(array.luns[g].count for g in groups)
        for hi in hosts:
            hs = s.hosts[hi]
            limit = wiring.split_limit[hi]
            for gi in groups:
                lg = array.luns[gi]
                pi = pool_index[lg.pool]
                k = sum(wt * len(split_sizes(sz, limit)) for sz, wt in w.size_mix)
                any_split = any_split or k > 1.0
                c = _Class(
                    workload=wi,
                    host_group=hi,
                    lun_group=gi,
                    closed=w.closed,
                    n_io=hs.count * lg.count * w.threads * w.outstanding_per_lun,
                    rate=(w.rate or 0.0) * hs.count * lg.count / total_luns,
                    cmds_per_io=k,
                    bytes_per_io=w.mean_block_size,
                )
                ci = len(classes)
                classes.append(c)
                if array.cache.read_ahead > 0 and w.random_share < 1.0 and w.read_fraction > 0:
                    prefetch_streams[pi] += hs.count * lg.count * w.threads
                routes = routes_of(hi, gi)
                for li in range(lg.count):
                    lun = lun_first[gi] + li
                    fr = fractions(hi, lun, len(routes))
                    flow = flows.get((hi, lun))
                    if flow is None:
                        flow = flows[(hi, lun)] = _Flow(
                            hi,
                            lun,
                            gi,
                            {},
                            [(p, a, f) for (p, a), f in zip(routes, fr, strict=True) if f > 0],
                            [
                                hba_ports[hi][p][1]
                                for (p, a), f in zip(routes, fr, strict=True)
                                if f > 0
                            ],
                        )
                    if w.closed:
                        # commands per unit of `outstanding` (scaled by the knob later)
                        flow.classes[ci] = flow.classes.get(ci, 0.0) + w.threads * k
                fill_class(
                    s,
                    c,
                    w,
                    limit,
                    routes,
                    [fractions(hi, lun_first[gi] + li, len(routes)) for li in range(lg.count)],
                    member,
                    hba_ports[hi],
                    [
                        (controllers[min(owner, len(controllers) - 1)], owner)
                        for owner in (
                            wiring.luns[lun_first[gi] + li].owner for li in range(lg.count)
                        )
                    ],
                    (ctrl_read, ctrl_write),
                    port_speed,
                    one_way,
                    pools[pi],
                    pi,
                    drive_models[pi],
                    lun_base[gi],
                    seq_private[pi],
                    destage,
                    notes,
                )
    net = _Network(
        scenario=s,
        members=members,
        classes=classes,
        flows=list(flows.values()),
        group_servers=group_servers,
        pools=pools,
        notes=notes,
        host_counts=host_counts,
        hba_ports=hba_ports,
    )
    for pi, streams_pi in enumerate(prefetch_streams):
        if streams_pi <= 0:
            continue
        mode = "seq" if seq_private[pi] else "random"
        net.read_ahead.append(_ReadAhead(pi, drive_models[pi], pool_base[pi], streams_pi, mode))
    credit_bound = [
        hs.name
        for g, hs in enumerate(s.hosts)
        for si, hba in enumerate(hs.hbas)
        if hba.speed is not None and host_link_rates(s, g, si) != (hba.speed, hba.speed)
    ]
    if credit_bound:
        notes.append(
            "buffer-to-buffer credits: the host links of "
            + ", ".join(dict.fromkeys(credit_bound))
            + " are credit-bound and are treated as links of the reduced rate "
            "credits x frame / credit cycle; a transfer of fewer frames than credits goes "
            "at line rate in the simulator, and a slow-draining host's hold on the fabric "
            "beyond its own link is not modelled"
        )
    if any(h.drain_time > 0.0 for h in s.hosts) and s.fabric.isls:
        notes.append(
            "slow drain: a host that drains slowly holds the credits of the ISLs its frames "
            "cross, and the hosts sharing them wait (head-of-line blocking), as do the "
            "switches' frame drops; the twin models neither, only each link's own rate"
        )
    if s.fabric.fpin is not None and (credit_bound or any(h.drain_time > 0.0 for h in s.hosts)):
        notes.append(
            "congestion notifications (fabric.fpin): the twin sends none, and no host limits "
            "its reads in answer (fpin_response: rate_limit); it predicts the fabric as if "
            "nobody answered them"
        )
    if any_split:
        notes.append(
            "splitting: an I/O larger than the host's split limit becomes several commands that "
            "are treated as independent customers (per-command demands, population in commands); "
            "the fork-join wait for the last child is ignored"
        )
    return net


def _union(intervals: list[tuple[float, float]]) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for lo, hi in sorted(intervals):
        if out and lo <= out[-1][1] + 1e-12:
            out[-1] = (out[-1][0], max(out[-1][1], hi))
        else:
            out.append((lo, hi))
    return out


def _host_ids(s: Scenario, w: WorkloadSpec) -> list[int]:
    if w.hosts == "all":
        return list(range(len(s.hosts)))
    return [i for i, h in enumerate(s.hosts) if h.name in w.hosts]


def _lun_group_ids(s: Scenario, names: Iterable[str]) -> list[int]:
    wanted = set(names)
    return [i for i, g in enumerate(s.array.luns) if g.name in wanted]
