"""The analytic twin: an instant mean-value prediction of a scenario, in milliseconds.

The simulator follows every command; the twin maps the same path onto a queueing network and
solves it with textbook formulas (:mod:`sanpath.theory.queues`), so a whole sweep takes a few
milliseconds. Every curve can then show where the simple theory holds and where it breaks.

The mapping mirrors :mod:`sanpath.sim.engine` station by station (see ``docs/twin.md``):

* **stations** - per HBA card its processor (``command_time`` per command) and its PCIe slot
  (one link per direction, bytes / rate), per host port and per array port the FC link in
  each direction (wire bytes = size + frames x frame overhead, frames = ceil(size / frame
  payload) + 1), the controller (``cores`` servers, ``io_time``) and, per pool, the drives
  (back-end operations per command by RAID level and I/O size, times the drive's service);
* **pure delays** - fabric latency (command and data legs: two one-way trips for a read,
  four for a write: command, XFER_RDY, data, status), the host's ``io_time``, cache hits
  (``hit_time``) and writes landing in cache (``write_time``);
* **routing** - commands spread over the routes of a LUN by the multipath policy (evenly, or
  LUN ``i`` on route ``i mod n`` for ``failover``);
* **closed loops** (``outstanding``) - exact Mean Value Analysis of the fixed-rate stations,
  convolved in log space with the load-dependent ones (multi-server stations, SPTF drives,
  mirrored pairs); the queue-depth limits bound the population inside the path and the
  rest waits in the host (latency = N / X, Little's law);
* **open loops** (``rate``) - a Jackson-style decomposition: Erlang C for multi-server
  stations, Pollaczek-Khinchine for single servers, birth-death chains for load-dependent
  drives, summed.

Where the path is not product form the twin approximates and says so in
:attr:`TwinPrediction.notes`: SPTF command queueing of hard disks (with ``j`` commands
queued a drive positions ``g(j) = min(j, tcq)^0.27`` times faster), mirrored pairs (reads to
the less busy copy), QUEUE FULL (the array's limits are treated as population bounds),
splitting (children as independent commands), fork-join of parallel drive operations,
pipelined link transfers, write-back destage (background load), read-ahead, several
workloads (aggregated into one class), non-exponential service in MVA.

Entry points: :func:`predict` for one scenario and :func:`predict_many` for a sweep (it maps
the scenario once and re-solves only what the varied keys change).
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np
import numpy.typing as npt

from sanpath.layout.geometry import CYLINDERS, seek_curve
from sanpath.layout.raid import RaidLayout, merged_lengths
from sanpath.layout.wiring import Wiring, split_sizes, wire_bytes
from sanpath.spec.scenario import (
    DistSpec,
    HddSpec,
    PoolSpec,
    Scenario,
    SsdSpec,
    TextbookDriveSpec,
    WorkloadSpec,
    load_scenario,
    pool_capacity,
)
from sanpath.theory import queues

__all__ = ["SPTF_GAMMA", "TwinPrediction", "predict", "predict_many"]

FloatArray = npt.NDArray[np.float64]

SPTF_GAMMA = 0.27
"""Exponent of the SPTF throughput multiplier ``g(q) = q^0.27``: within 2% of a Monte-Carlo of
ideal shortest-positioning-time-first scheduling for q = 2..64 (see ``docs/model.md``)."""


Destage = Literal["auto", "steady", "none"]

_FIXED_POINT_MAX = 200


# --------------------------------------------------------------------------------------------
# The result
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TwinPrediction:
    """The twin's mean-value prediction for one scenario.

    Attributes
    ----------
    iops
        Application I/Os per second.
    mb_per_s
        Throughput in 10^6 bytes per second.
    latency_ms_mean
        Mean application I/O latency (ms), host queueing included; ``math.inf`` when an open
        loop offers more than the path can carry.
    bottleneck
        The station group whose busiest member is the most utilised (a simulator station
        name such as ``array.r5.drives``).
    utilization
        Mean utilisation per server of every station group with work to do, keyed by the
        simulator's station names.
    population
        Closed loop: the effective number of commands inside the path (after the queue-depth
        limits) that the MVA was solved for; None for an open loop.
    notes
        Every approximation applied, in words.
    """

    iops: float
    mb_per_s: float
    latency_ms_mean: float
    bottleneck: str
    utilization: dict[str, float]
    population: int | None
    notes: tuple[str, ...]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (infinite latency becomes None)."""

        def finite(x: float) -> float | None:
            return x if math.isfinite(x) else None

        return {
            "iops": finite(self.iops),
            "mb_per_s": finite(self.mb_per_s),
            "latency_ms_mean": finite(self.latency_ms_mean),
            "bottleneck": self.bottleneck,
            "utilization": {k: finite(v) for k, v in self.utilization.items()},
            "population": self.population,
            "notes": list(self.notes),
        }

    def summary(self) -> str:
        """A few readable lines (what ``sanpath run --analytic`` prints)."""
        lines = [
            "analytic twin (mean-value prediction)",
            f"  IOPS      {self.iops:12.1f}",
            f"  MB/s      {self.mb_per_s:12.2f}   (10^6 bytes/s)",
            f"  latency   {self.latency_ms_mean:12.4f} ms mean",
            f"  bottleneck {self.bottleneck} ({self.utilization.get(self.bottleneck, 0.0):.1%})",
        ]
        if self.population is not None:
            lines.append(f"  population {self.population} commands inside the path")
        if self.notes:
            lines.append("  notes:")
            lines += [f"    - {note}" for note in self.notes]
        return "\n".join(lines)


# --------------------------------------------------------------------------------------------
# Drive service models
# --------------------------------------------------------------------------------------------

_Work = list[float]
"""Accumulated visits of one kind of command to one station (the ``_V``... fields)."""

_V, _F1, _P1, _SFF, _SFP, _SPP, _PH = range(7)
"""Fields of a work vector: visits, fixed demand, SPTF-scalable (positioning) demand,
second-moment parts (fixed^2 + var, fixed x positioning, positioning^2 + var) and, for
drives, the number of phases (operations in one phase run in parallel)."""


def _work() -> _Work:
    return [0.0] * 7


def _add(acc: _Work, v: float, f: float, p: float = 0.0, vf: float = 0.0, vp: float = 0.0) -> None:
    acc[_V] += v
    acc[_F1] += v * f
    acc[_P1] += v * p
    acc[_SFF] += v * (f * f + vf)
    acc[_SFP] += v * f * p
    acc[_SPP] += v * (p * p + vp)


def _scale_into(dst: _Work, src: _Work, k: float) -> None:
    for i in range(7):
        dst[i] += k * src[i]


@dataclass(frozen=True)
class _DriveModel:
    """Per-operation service of one pool's drives: fixed part, positioning, variances."""

    kind: str  # "hdd", "ssd", "textbook"
    servers: int  # per drive
    overhead: float = 0.0
    seek_mean: float = 0.0
    seek_var: float = 0.0
    rev: float = 0.0
    inv_rate: float = 0.0  # E[1 / media rate]
    tcq: int = 1
    sptf: bool = False
    read_time: float = 0.0
    write_time: float = 0.0
    per_unit: float = 0.0
    mean: float = 0.0
    scv: float = 0.0

    def op(self, nbytes: int, write: bool, mode: str) -> tuple[float, float, float, float]:
        """(fixed, positioning, fixed variance, positioning variance) of one operation.

        ``mode``: ``random`` (seek over the active region and half a revolution),
        ``seq`` (a sequential stream: reads skip positioning by read look-ahead, writes wait
        half a revolution on average).
        """
        if self.kind == "hdd":
            fixed = self.overhead + nbytes * self.inv_rate
            rot_var = self.rev * self.rev / 12.0
            if mode == "seq":
                if write:
                    return fixed, self.rev / 2.0, 0.0, rot_var
                return fixed, 0.0, 0.0, 0.0
            return fixed, self.seek_mean + self.rev / 2.0, 0.0, self.seek_var + rot_var
        if self.kind == "ssd":
            return (self.write_time if write else self.read_time) + nbytes / self.per_unit, 0, 0, 0
        return self.mean, 0.0, self.scv * self.mean * self.mean, 0.0


def _seek_moments(spec: HddSpec, intervals: list[tuple[float, float]]) -> tuple[float, float]:
    """Mean and variance of the seek time between two uniform points of the active region."""
    track, a, b = seek_curve(spec)
    if len(intervals) == 1:
        f = intervals[0][1] - intervals[0][0]
        if f * CYLINDERS < 1.0:
            return 0.0, 0.0
        # distance = f y, y triangular on [0, 1]: E[y] = 1/3, E[y^2] = 1/6, E[sqrt y] = 8/15,
        # E[y^1.5] = 8/35.
        e_d, e_d2, e_s, e_d15 = f / 3.0, f * f / 6.0, 8.0 * math.sqrt(f) / 15.0, 8.0 * f**1.5 / 35
        mean = track + a * e_d + b * e_s
        second = (
            track * track
            + a * a * e_d2
            + b * b * e_d
            + 2 * track * a * e_d
            + 2 * track * b * e_s
            + 2 * a * b * e_d15
        )
        return mean, max(second - mean * mean, 0.0)
    # Several disjoint regions: integrate numerically over a fine grid.
    bins = 400
    edges = np.linspace(0.0, 1.0, bins + 1)
    weight = np.zeros(bins)
    for lo, hi in intervals:
        overlap = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0.0, None)
        weight += overlap
    weight /= weight.sum()
    centres = (edges[:-1] + edges[1:]) / 2.0
    dist = np.abs(centres[:, None] - centres[None, :])
    np.fill_diagonal(dist, 1.0 / bins / 3.0)
    t = np.where(dist * CYLINDERS < 1.0, 0.0, track + a * dist + b * np.sqrt(dist))
    pair = weight[:, None] * weight[None, :]
    mean = float((pair * t).sum())
    return mean, max(float((pair * t * t).sum()) - mean * mean, 0.0)


def _drive_model(pool: PoolSpec, intervals: list[tuple[float, float]]) -> _DriveModel:
    spec = pool.drive
    if isinstance(spec, HddSpec):
        seek_mean, seek_var = _seek_moments(spec, intervals)
        outer = spec.media_rate_outer
        span = spec.media_rate_outer - spec.media_rate_inner
        total = sum(hi - lo for lo, hi in intervals)
        inv = 0.0
        for lo, hi in intervals:
            if span > 0 and hi > lo:
                part = math.log((outer - span * lo) / (outer - span * hi)) / span
            else:
                part = (hi - lo) / (outer - span * lo)
            inv += part
        inv_rate = inv / total if total > 0 else 1.0 / outer
        return _DriveModel(
            kind="hdd",
            servers=1,
            overhead=spec.overhead,
            seek_mean=seek_mean,
            seek_var=seek_var,
            rev=60.0 / spec.rpm,
            inv_rate=inv_rate,
            tcq=spec.queue_depth,
            sptf=spec.scheduling == "sptf",
        )
    if isinstance(spec, SsdSpec):
        return _DriveModel(
            kind="ssd",
            servers=spec.units,
            read_time=spec.read_time,
            write_time=spec.write_time,
            per_unit=spec.bandwidth / spec.units,
        )
    assert isinstance(spec, TextbookDriveSpec)
    return _DriveModel(
        kind="textbook", servers=spec.servers, mean=spec.service.mean_s, scv=spec.service.scv
    )


# --------------------------------------------------------------------------------------------
# RAID: back-end operations of one command (the layout of sanpath.sim.components.raid)
# --------------------------------------------------------------------------------------------


def _raid_phases(pool: PoolSpec, offset: int, size: int, write: bool) -> list[list[int]]:
    """Operation sizes per phase (phases run one after the other, operations in parallel)."""
    layout = RaidLayout(pool)
    if not write:
        return [merged_lengths(layout.read_ops(offset, size))]  # either mirror copy: same count
    rmw, writes = layout.write_ops(offset, size)
    phases = [merged_lengths(rmw)] if rmw else []
    phases.append(merged_lengths(writes))
    return phases


# --------------------------------------------------------------------------------------------
# The network: stations, classes, demands
# --------------------------------------------------------------------------------------------


@dataclass
class _Member:
    """One physical station, or ``count`` identical ones (identical hosts, a pool's drives)."""

    group: str
    servers: int  # per member; 0 = delay
    count: int
    pool: int = -1  # index of the pool for drive stations
    tcq: int = 0  # > 0: SPTF with this drive queue depth
    busy_scale: float = 0.0  # servers of the group a unit of its utilisation stands for
    mirror: bool = False  # a mirrored pair of drives (reads go to the less busy copy)


@dataclass
class _Class:
    """One workload on one host group and one LUN group."""

    workload: int
    host_group: int
    lun_group: int
    closed: bool
    n_io: int  # closed: outstanding I/Os in total
    rate: float  # open: I/Os per second in total
    cmds_per_io: float
    bytes_per_io: float
    work: dict[tuple[str, int], _Work] = field(default_factory=dict)
    background: dict[tuple[str, int], _Work] = field(default_factory=dict)
    delay: float = 0.0  # per command
    overlap: float = 0.0  # per command: link service hidden by pipelining
    absorbed_bytes: float = 0.0  # per command, written into write-back cache
    prefetch: dict[int, float] = field(default_factory=dict)  # pool -> bytes per command


@dataclass
class _Flow:
    """Commands one host instance keeps against one LUN, on the routes they use."""

    host_group: int
    lun: int
    lun_group: int
    classes: dict[int, float]  # closed class index -> commands per unit of `outstanding`
    routes: list[tuple[int, int, float]]  # (host port, array port, fraction)
    hba_spec: list[int]  # per route: spec index of the HBA


@dataclass
class _Network:
    """The scenario mapped onto stations (everything except the population)."""

    scenario: Scenario
    members: dict[tuple[str, int], _Member]
    classes: list[_Class]
    flows: list[_Flow]
    group_servers: dict[str, float]
    pools: list[PoolSpec]
    notes: list[str]
    host_counts: list[int]
    hba_ports: list[list[tuple[int, int]]]  # per host group: (card, spec index) per port
    prefetch: dict[int, float] = field(default_factory=dict)  # pool -> read-ahead bytes/s


def _dist(d: DistSpec) -> tuple[float, float]:
    return d.mean_s, d.scv * d.mean_s * d.mean_s


def _build(scenario: Scenario, destage: bool) -> _Network:
    """Map ``scenario`` onto stations and per-command demands."""
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
        model = _drive_model(pool, intervals)
        drive_models.append(model)
        n = pool.drives * pool.groups
        group_servers[f"array.{pool.name}.drives"] = float(n * model.servers)
        mirror = pool.raid in ("raid1", "raid10")
        member(
            f"array.{pool.name}.drives",
            0,
            model.servers,
            n // 2 if mirror else n,
            pool=pi,
            tcq=model.tcq if model.sptf else 0,
            mirror=mirror,
        )

    # -- array front end -----------------------------------------------------------------------
    cores = array.controller.cores
    controller = member("array.controller", 0, cores, 1)
    group_servers["array.controller"] = float(cores)
    ctrl_read = _dist(array.controller.io_time)
    write_spec = array.controller.write_io_time
    ctrl_write = ctrl_read if write_spec is None else _dist(write_spec)
    port_speed = array.port_speed
    for a in range(array.ports):
        group_servers[f"array.port{a}.link.in"] = 1.0
        group_servers[f"array.port{a}.link.out"] = 1.0

    # -- sequential streams per pool: one stream keeps its drives to itself --------------------
    streams = [0.0] * len(pools)
    for w in s.workloads:
        if w.pattern != "sequential":
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
        group_servers[f"{hs.name}.hba.cpu"] = float(card * hs.count)
        if hs.cpus is not None:
            group_servers[f"{hs.name}.cpu"] = float(hs.cpus * hs.count)
        if any(h.pcie is not None for h in hs.hbas):
            group_servers[f"{hs.name}.pcie.down"] = float(card * hs.count)
            group_servers[f"{hs.name}.pcie.up"] = float(card * hs.count)
        if any(h.speed is not None for h in hs.hbas):
            group_servers[f"{hs.name}.link.out"] = float(len(ports) * hs.count)
            group_servers[f"{hs.name}.link.in"] = float(len(ports) * hs.count)
    if array.controller.bandwidth is not None:
        group_servers["array.controller.bandwidth"] = 1.0

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
            limits = [x for x in [hs.max_io_size, *(h.max_transfer for h in hs.hbas)] if x]
            limit = min(limits) if limits else None
            for gi in groups:
                lg = array.luns[gi]
                pi = pool_index[lg.pool]
                k = sum(wt * len(split_sizes(sz, limit)) for sz, wt in w.block_size)
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
                if array.cache.read_ahead > 0 and w.pattern == "sequential" and w.read_fraction > 0:
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
                _fill_class(
                    s,
                    c,
                    w,
                    limit,
                    routes,
                    [fractions(hi, lun_first[gi] + li, len(routes)) for li in range(lg.count)],
                    member,
                    hba_ports[hi],
                    controller,
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
        bandwidth, busy = _prefetch_bandwidth(
            net, pi, drive_models[pi], pool_base[pi], streams_pi, mode
        )
        net.prefetch[pi] = bandwidth
        name = f"array.{pools[pi].name}.drives"
        member(name, 1, 1, 1, pool=pi, busy_scale=busy * group_servers[name])
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


_drive_cache: dict[tuple[Any, ...], tuple[_Work, _Work]] = {}


def _drive_work(
    pool: PoolSpec,
    model: _DriveModel,
    base: int,
    size: int,
    limit: int | None,
    write: bool,
    kind: str,
    mode: str,
    extent: int,
) -> tuple[_Work, _Work]:
    """Back-end work per command of an I/O of ``size``: (foreground, background).

    ``kind``: ``read`` (RAID read of the command), ``prefetch`` (read-ahead chunks of
    ``extent`` bytes), ``write`` (RAID write with its penalty), ``absorbed`` (write-back:
    destaged later in extents of ``extent`` bytes, background work).
    """
    key = (pool, model, base, size, limit, write, kind, mode, extent)
    hit = _drive_cache.get(key)
    if hit is not None:
        return hit
    fg, bg = _work(), _work()
    children = split_sizes(size, limit)
    if kind in ("prefetch", "absorbed"):
        # Work in extents (chunks) of `extent` bytes, per byte of the command.
        samples = max(1, min(64, -(-2 * pool.data_drives * pool.stripe_element // extent)))
        per = _work()
        for i in range(samples):
            phases = _raid_phases(pool, base + i * extent, extent, write=kind == "absorbed")
            _phase_work(per, phases, model, kind == "absorbed", mode, 1.0 / samples)
        command_bytes = sum(children) / len(children)
        _scale_into(bg if kind == "absorbed" else fg, per, command_bytes / extent)
    else:
        samples = max(1, min(256, -(-2 * pool.data_drives * pool.stripe_element // size)))
        n_cmds = samples * len(children)
        for i in range(samples):
            offset = base + i * size
            for part in children:
                phases = _raid_phases(pool, offset, part, write)
                _phase_work(fg, phases, model, write, mode, 1.0 / n_cmds)
                offset += part
    _drive_cache[key] = (fg, bg)
    if len(_drive_cache) > 4096:
        _drive_cache.clear()
    return fg, bg


def _phase_work(
    acc: _Work, phases: list[list[int]], model: _DriveModel, write: bool, mode: str, v: float
) -> None:
    last = len(phases) - 1
    for i, ops in enumerate(phases):
        op_write = write and i == last  # read-modify-write: the reads come first
        acc[_PH] += v
        for nbytes in ops:
            f, p, vf, vp = model.op(nbytes, op_write, mode)
            _add(acc, v, f, p, vf, vp)


def _fill_class(
    s: Scenario,
    c: _Class,
    w: WorkloadSpec,
    limit: int | None,
    routes: list[tuple[int, int]],
    lun_fractions: list[list[float]],
    member: Any,
    ports: list[tuple[int, int]],
    controller: tuple[str, int],
    ctrl: tuple[tuple[float, float], tuple[float, float]],
    port_speed: float | None,
    one_way: float,
    pool: PoolSpec,
    pool_id: int,
    model: _DriveModel,
    base: int,
    seq_private: bool,
    destage: bool,
    notes: list[str],
) -> None:
    """Per-command demands of class ``c`` at every station."""
    hs = s.hosts[c.host_group]
    hname = hs.name
    count = hs.count
    fabric = s.fabric
    cache = s.array.cache
    payload, overhead = fabric.frame_payload, fabric.frame_overhead
    n_luns = len(lun_fractions)
    route_share = [sum(fr[r] for fr in lun_fractions) / n_luns for r in range(len(routes))]
    drive_key = (f"array.{pool.name}.drives", 0)
    mode = "seq" if w.pattern == "sequential" and seq_private else "random"
    if w.pattern == "sequential" and not seq_private and model.kind == "hdd":
        _note(
            notes,
            f"sequential streams share the drives of pool {pool.name}: their operations are "
            "treated as random (seek + half a revolution, SPTF)",
        )
    capacity = cache.write_back or 0
    read_ahead = cache.read_ahead > 0 and w.pattern == "sequential"
    merge = max(pool.data_drives * pool.stripe_element, cache.destage_size)
    k_total = c.cmds_per_io
    for size, weight in w.block_size:
        children = split_sizes(size, limit)
        share = weight * len(children) / k_total  # fraction of the class's commands
        for write, p_rw in ((False, w.read_fraction), (True, 1.0 - w.read_fraction)):
            v = share * p_rw
            if v <= 0.0:
                continue
            mean_cmd = sum(children) / len(children)
            # host side, per route
            for r, (port, a) in enumerate(routes):
                f = v * route_share[r]
                if f <= 0.0:
                    continue
                card, si = ports[port]
                hba = hs.hbas[si]
                t_mean, t_var = _dist(hba.command_time)
                _add(_get(c, member(f"{hname}.hba.cpu", card, 1, count)), f, t_mean, vf=t_var)
                legs = []
                for part in children:
                    pf = f / len(children)
                    wire = wire_bytes(part, payload, overhead)
                    t_pcie = part / hba.pcie.bytes_per_s if hba.pcie is not None else 0.0
                    t_host = wire / hba.speed if hba.speed is not None else 0.0
                    t_port = wire / port_speed if port_speed is not None else 0.0
                    direction = ("down", "out", "in") if write else ("up", "in", "out")
                    if t_pcie > 0:
                        key = member(f"{hname}.pcie.{direction[0]}", card, 1, count)
                        _add(_get(c, key), pf, t_pcie)
                    if t_host > 0:
                        key = member(f"{hname}.link.{direction[1]}", port, 1, count)
                        _add(_get(c, key), pf, t_host)
                    if t_port > 0:
                        key = member(f"array.port{a}.link.{direction[2]}", a, 1, 1)
                        _add(_get(c, key), pf, t_port)
                    legs.append((pf, t_pcie + t_host + t_port - max(t_pcie, t_host, t_port)))
                # Pipelined transfer: the links overlap, the service of the slower ones only
                # counts once (a negative delay removes the overlap).
                c.overlap += sum(pf * overlap for pf, overlap in legs)
            # array side
            mean, var = ctrl[1] if write else ctrl[0]
            _add(_get(c, controller), v, mean, vf=var)
            bandwidth = s.array.controller.bandwidth
            if bandwidth is not None:
                key = member("array.controller.bandwidth", 0, 1, 1)
                setup = s.array.controller.transfer_setup
                _add(_get(c, key), v, mean_cmd / bandwidth + setup)
            c.delay += v * hs.io_time.mean_s  # the host's I/O stack: a pure delay
            if hs.cpus is not None:  # its processor time: a queue with ``cpus`` servers
                cpu_mean, cpu_var = _dist(hs.cpu_time)
                _add(_get(c, member(f"{hname}.cpu", 0, hs.cpus, count)), v, cpu_mean, vf=cpu_var)
            c.delay += v * one_way * (4 if write else 2)
            if not write:
                if read_ahead:
                    c.delay += v * cache.hit_time
                    c.prefetch[pool_id] = c.prefetch.get(pool_id, 0.0) + v * mean_cmd
                else:
                    group_hit = s.array.luns[c.lun_group].read_hit
                    hit = cache.read_hit if group_hit is None else group_hit
                    c.delay += v * hit * cache.hit_time
                    fg, _ = _drive_work(pool, model, base, size, limit, False, "read", mode, 0)
                    _scale_into(_get(c, drive_key), fg, v * (1.0 - hit))
                    if 0.0 < hit < 1.0:
                        _note(
                            notes,
                            "cache read hits are a pure delay (hit_time) with probability "
                            "read_hit; misses go to the drives",
                        )
            else:
                absorbed = capacity > 0 and all(
                    (cache.write_aside is None or part <= cache.write_aside) and part <= capacity
                    for part in children
                )
                if absorbed:
                    c.delay += v * (
                        cache.hit_time if cache.write_time is None else cache.write_time
                    )
                    group_write_hit = s.array.luns[c.lun_group].write_hit
                    write_hit = cache.write_hit if group_write_hit is None else group_write_hit
                    v_miss = v * (1.0 - write_hit)  # write hits take no room, no destage
                    c.absorbed_bytes += v_miss * mean_cmd
                    extent = mean_cmd
                    if w.pattern == "sequential" and seq_private and mean_cmd < merge:
                        extent = (merge // int(mean_cmd)) * mean_cmd
                    if destage:
                        _, bg = _drive_work(
                            pool, model, base, size, limit, True, "absorbed", mode, int(extent)
                        )
                        _scale_into(_get_bg(c, drive_key), bg, v_miss)
                else:
                    fg, _ = _drive_work(pool, model, base, size, limit, True, "write", mode, 0)
                    _scale_into(_get(c, drive_key), fg, v)


def _get(c: _Class, key: tuple[str, int]) -> _Work:
    acc = c.work.get(key)
    if acc is None:
        acc = c.work[key] = _work()
    return acc


def _get_bg(c: _Class, key: tuple[str, int]) -> _Work:
    acc = c.background.get(key)
    if acc is None:
        acc = c.background[key] = _work()
    return acc


def _note(notes: list[str], text: str) -> None:
    if text not in notes:
        notes.append(text)


# --------------------------------------------------------------------------------------------
# Knobs: what a sweep varies without changing any demand
# --------------------------------------------------------------------------------------------


@dataclass
class _Knobs:
    """Queue depths and loads: they set the population, not the demands."""

    outstanding: list[int]
    rate: list[float | None]
    host_qd: list[int | None]
    hba_qd: list[list[int | None]]
    port_qd: int | None
    lun_setting: int | str | None
    lun_group_setting: list[int | str | None]

    @classmethod
    def of(cls, s: Scenario) -> _Knobs:
        return cls(
            outstanding=[w.outstanding_per_lun for w in s.workloads],
            rate=[w.rate for w in s.workloads],
            host_qd=[h.lun_queue_depth for h in s.hosts],
            hba_qd=[[hba.queue_depth for hba in h.hbas] for h in s.hosts],
            port_qd=s.array.port_queue_depth,
            lun_setting=s.array.lun_queue_depth,
            lun_group_setting=[g.queue_depth for g in s.array.luns],
        )

    def copy(self) -> _Knobs:
        return _Knobs(
            list(self.outstanding),
            list(self.rate),
            list(self.host_qd),
            [list(x) for x in self.hba_qd],
            self.port_qd,
            self.lun_setting,
            list(self.lun_group_setting),
        )

    def lun_limit(self, s: Scenario, gi: int) -> int | None:
        group = s.array.luns[gi]
        setting = self.lun_group_setting[gi]
        if setting is None:
            setting = self.lun_setting
        if setting == "clariion":
            pool = next(p for p in s.array.pools if p.name == group.pool)
            return 32 + 14 * pool.data_drives * pool.groups
        assert setting is None or isinstance(setting, int)
        return setting


def _indices(part: str, n: int) -> list[int] | None:
    if part == "*":
        return list(range(n))
    if part.isdigit() and int(part) < n:
        return [int(part)]
    return None


def _depth(value: Any, nullable: bool) -> bool:
    if value is None:
        return nullable
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def _apply_knobs(s: Scenario, base: _Knobs, point: Mapping[str, Any]) -> _Knobs | None:
    """The knobs of ``point`` (dotted overrides), or None when a key changes more than that."""
    k = base.copy()
    for key, value in point.items():
        parts = key.split(".")
        if len(parts) == 3 and parts[0] == "workloads" and parts[2] in ("outstanding", "rate"):
            idx = _indices(parts[1], len(s.workloads))
            if idx is None:
                return None
            for i in idx:
                closed = s.workloads[i].closed
                if parts[2] == "outstanding":
                    if not closed or not _depth(value, False):
                        return None
                    k.outstanding[i] = int(value)
                else:
                    ok = isinstance(value, int | float) and not isinstance(value, bool)
                    if closed or not ok or not value > 0:
                        return None
                    k.rate[i] = float(value)
        elif len(parts) == 3 and parts[0] == "hosts" and parts[2] == "lun_queue_depth":
            idx = _indices(parts[1], len(s.hosts))
            if idx is None or not _depth(value, True):
                return None
            for i in idx:
                k.host_qd[i] = value
        elif (
            len(parts) == 5
            and parts[0] == "hosts"
            and parts[2] == "hbas"
            and parts[4] == "queue_depth"
        ):
            idx = _indices(parts[1], len(s.hosts))
            if idx is None or not _depth(value, True):
                return None
            for i in idx:
                cards = _indices(parts[3], len(s.hosts[i].hbas))
                if cards is None:
                    return None
                for j in cards:
                    k.hba_qd[i][j] = value
        elif key == "array.port_queue_depth":
            if not _depth(value, True):
                return None
            k.port_qd = value
        elif key == "array.lun_queue_depth":
            if not (_depth(value, True) or value == "clariion"):
                return None
            k.lun_setting = value
        elif len(parts) == 4 and parts[:2] == ["array", "luns"] and parts[3] == "queue_depth":
            idx = _indices(parts[2], len(s.array.luns))
            if idx is None or not (_depth(value, True) or value == "clariion"):
                return None
            for i in idx:
                k.lun_group_setting[i] = value
        else:
            return None
    return k


# --------------------------------------------------------------------------------------------
# Populations: the queue-depth limits as bounds on the commands inside the path
# --------------------------------------------------------------------------------------------


def _populations(net: _Network, knobs: _Knobs, notes: list[str]) -> list[float]:
    """Commands of each closed class inside the path (the rest waits in the host)."""
    s = net.scenario
    cls = net.classes
    # per flow and route: commands the host would like to have in flight
    flows: list[list[float]] = []
    wanted_total = 0.0
    for flow in net.flows:
        n = sum(per * knobs.outstanding[cls[ci].workload] for ci, per in flow.classes.items())
        qd = knobs.host_qd[flow.host_group]
        x = [min(n * f, math.inf if qd is None else float(qd)) for _, _, f in flow.routes]
        flows.append(x)
        wanted_total += n * net.host_counts[flow.host_group]
    # HBA command slots: per port and LUN, or per port and target port
    pools: dict[tuple[int, int, str, int], list[tuple[int, int]]] = {}
    for fi, flow in enumerate(net.flows):
        for r, (port, a, _) in enumerate(flow.routes):
            si = flow.hba_spec[r]
            mode = s.hosts[flow.host_group].hbas[si].queue_target
            key = (flow.host_group, port, mode, flow.lun if mode == "lun" else a)
            pools.setdefault(key, []).append((fi, r))
    for (hi, port, _, _), members in pools.items():
        si = net.hba_ports[hi][port][1]
        cap = knobs.hba_qd[hi][si]
        if cap is None:
            continue
        total = sum(flows[fi][r] for fi, r in members)
        if total > cap:
            for fi, r in members:
                flows[fi][r] *= cap / total
    inside_host = sum(
        sum(x) * net.host_counts[flow.host_group] for flow, x in zip(net.flows, flows, strict=True)
    )
    # The array's limits answer QUEUE FULL: bound the population by them.
    by_lun: dict[int, list[int]] = {}
    for fi, flow in enumerate(net.flows):
        by_lun.setdefault(flow.lun, []).append(fi)
    for members_ in by_lun.values():
        gi = net.flows[members_[0]].lun_group
        cap_lun = knobs.lun_limit(s, gi)
        if cap_lun is None:
            continue
        total = sum(sum(flows[fi]) * net.host_counts[net.flows[fi].host_group] for fi in members_)
        if total > cap_lun + 1e-9:
            _note(
                notes,
                f"QUEUE FULL not modelled: hosts can keep {total:.0f} commands against a LUN "
                f"queue of {cap_lun} (LUN group {s.array.luns[gi].name}); the twin bounds the "
                "population at the limit, as a throttling host would",
            )
            for fi in members_:
                flows[fi] = [x * cap_lun / total for x in flows[fi]]
    port_cap = knobs.port_qd
    if port_cap is not None:
        per_port: dict[int, float] = {}
        for flow, x in zip(net.flows, flows, strict=True):
            for (_, a, _), xr in zip(flow.routes, x, strict=True):
                per_port[a] = per_port.get(a, 0.0) + xr * net.host_counts[flow.host_group]
        for a, total in per_port.items():
            if total > port_cap + 1e-9:
                _note(
                    notes,
                    f"QUEUE FULL not modelled: hosts can keep {total:.0f} commands against a "
                    f"port queue of {port_cap} (array port {a}); the twin bounds the population "
                    "at the port queue, as a throttling host would",
                )
                for fi, flow in enumerate(net.flows):
                    flows[fi] = [
                        xr * port_cap / total if ra == a else xr
                        for (_, ra, _), xr in zip(flow.routes, flows[fi], strict=True)
                    ]
    pops = [0.0] * len(cls)
    for flow, x in zip(net.flows, flows, strict=True):
        inside = sum(x) * net.host_counts[flow.host_group]
        total = sum(flow.classes.values())
        for ci, per in flow.classes.items():
            weight = per * knobs.outstanding[cls[ci].workload]
            norm = sum(p * knobs.outstanding[cls[c].workload] for c, p in flow.classes.items())
            pops[ci] += inside * weight / norm if norm > 0 else inside * per / total
    if inside_host < wanted_total - 1e-9:
        _note(
            notes,
            f"queue-depth limits bound the population: {sum(pops):.0f} of {wanted_total:.0f} "
            "outstanding commands are inside the path, the rest wait in the host "
            "(latency = N / X)",
        )
    return pops


# --------------------------------------------------------------------------------------------
# Closed networks: exact MVA + log-space convolution for load-dependent stations
# --------------------------------------------------------------------------------------------


def _fixed_mva(
    demand: Sequence[float], queueing: Sequence[bool], count: Sequence[float], delay: float,
    n_max: int,
) -> list[float]:  # fmt: skip
    """Throughput ``X(1..n_max)`` of the fixed-rate part (exact MVA, plain floats for speed).

    ``demand[k]`` is the demand at one of ``count[k]`` identical members; queueing members
    have one server, the others are pure delays. By symmetry one member stands for all.
    """
    q = [0.0] * len(demand)
    fixed_delay = delay + sum(
        d * m for d, m, qu in zip(demand, count, queueing, strict=True) if not qu
    )
    active = [
        (i, d, m) for i, (d, m, qu) in enumerate(zip(demand, count, queueing, strict=True)) if qu
    ]
    out = []
    for n in range(1, n_max + 1):
        cycle = fixed_delay
        rs = []
        for i, d, m in active:
            r = d * (1.0 + q[i])
            rs.append(r)
            cycle += m * r
        x = n / cycle
        for (i, _, _), r in zip(active, rs, strict=True):
            q[i] = x * r
        out.append(x)
    return out


def _log_conv(a: FloatArray, b: FloatArray) -> FloatArray:
    """``log(exp(a) * exp(b))`` for the convolution ``*`` truncated to ``len(a)`` terms."""
    n = a.size
    padded = np.concatenate((np.full(n - 1, -np.inf), b[:n]))
    toeplitz = np.lib.stride_tricks.sliding_window_view(padded, n)[:, ::-1]  # [r, i] = b[r-i]
    out = np.empty(n)
    block = max(1, 400_000 // n)
    with np.errstate(invalid="ignore"):
        for start in range(0, n, block):
            terms = a[None, :] + toeplitz[start : start + block]
            top = terms.max(axis=1)
            safe = np.where(np.isfinite(top), top, 0.0)
            total = np.exp(terms - safe[:, None]).sum(axis=1)
            out[start : start + block] = np.where(np.isfinite(top), safe + np.log(total), -np.inf)
    return out


def _log_power(f: FloatArray, m: int) -> FloatArray:
    """``f`` convolved with itself ``m`` times (``m = 0``: the unit)."""
    result = np.full(f.size, -np.inf)
    result[0] = 0.0
    base = f
    while m > 0:
        if m & 1:
            result = _log_conv(result, base)
        m >>= 1
        if m:
            base = _log_conv(base, base)
    return result


@dataclass
class _Arrays:
    """The aggregated single-class network of one class mix (demands per customer)."""

    keys: list[tuple[str, int]]
    fixed: FloatArray  # per member, per customer
    pos: FloatArray  # SPTF-scalable part
    bg_fixed: FloatArray  # background (destage) per customer
    bg_pos: FloatArray
    count: FloatArray
    servers: npt.NDArray[np.int64]
    tcq: npt.NDArray[np.int64]
    mirror: npt.NDArray[np.bool_]
    second: FloatArray  # E[S^2] per visit
    visits: FloatArray  # per member per customer
    delay: float
    parallel: float  # customers (branches) per command: parallel drive operations

    @property
    def sptf(self) -> list[int]:
        return [k for k in range(len(self.keys)) if self.tcq[k] > 0 and self.pos[k] > 0]

    def load_dependent(self, k: int, n_max: int) -> bool:
        """True for members solved as load-dependent stations."""
        return bool(
            (self.tcq[k] > 0 and self.pos[k] > 0) or self.mirror[k] or 1 < self.servers[k] < n_max
        )

    def detailed(self, k: int) -> bool:
        """Load-dependent members whose utilisation needs the marginal probabilities."""
        return bool(
            (self.tcq[k] > 0 and self.pos[k] > 0) or (self.mirror[k] and self.servers[k] == 1)
        )

    def saturation(self, k: int) -> int:
        """Commands from which member ``k`` serves at its full rate."""
        c = int(self.servers[k]) * (2 if self.mirror[k] else 1)
        if self.tcq[k] > 0 and self.pos[k] > 0:
            return int(self.tcq[k]) * (2 if self.mirror[k] else 1)
        return c

    def ld_demand(self, k: int, n: int, infl: float = 1.0, extra: float = 0.0) -> FloatArray:
        """Demand at member ``k`` with ``1..n`` customers present (load-dependent rate).

        SPTF: positioning divided by ``g(j) = min(j, tcq)^0.27``, where ``j`` counts the
        customers and ``extra`` commands of the background (destage) queued beside them. A
        mirrored pair: reads go to the less busy copy, so the pair works like two drives
        sharing one queue, each with about half of it. Multi-server: ``min(j, c)`` servers busy.
        """
        j = np.arange(1, n + 1, dtype=np.float64)
        f, p = float(self.fixed[k]) * infl, float(self.pos[k]) * infl
        c = int(self.servers[k])
        sptf = self.tcq[k] > 0 and p > 0
        tcq = float(self.tcq[k])

        def one(q: FloatArray) -> FloatArray:
            if not sptf:
                return np.full(q.shape, f + p)
            return f + p / np.minimum(np.maximum(q + extra, 1.0), tcq) ** SPTF_GAMMA

        result: FloatArray
        if self.mirror[k] and c == 1:
            # demand of the pair per customer is per drive-visit x 2 visits' share: each drive
            # serves half the pair's visits, so the pair's rate is the sum of two drives' rates
            hi, lo = np.ceil(j / 2.0), np.floor(j / 2.0)
            rate = 1.0 / one(hi) + np.where(lo > 0, 1.0 / one(np.maximum(lo, 1.0)), 0.0)
            result = 1.0 / rate
        elif self.mirror[k]:
            result = (f + p) / np.minimum(j, 2 * c)
        elif sptf:
            result = one(j)
        else:
            result = (f + p) / np.minimum(j, c)
        return result

    def busy(self, k: int, p: FloatArray) -> float:
        """Utilisation per drive of a detailed member from its marginal ``p(0..n)``."""
        if self.mirror[k]:
            j = np.arange(p.size, dtype=np.float64)
            return float(np.minimum(j, 2.0) @ p) / 2.0
        return 1.0 - float(p[0])


def _arrays(net: _Network, mix: Sequence[float], prefetch: Mapping[int, float]) -> _Arrays:
    """Aggregate the classes with command shares ``mix`` into one class of customers."""
    keys = list(net.members)
    index = {key: k for k, key in enumerate(keys)}
    n_k = len(keys)
    fixed, pos, bgf, bgp = np.zeros(n_k), np.zeros(n_k), np.zeros(n_k), np.zeros(n_k)
    second, visits = np.zeros(n_k), np.zeros(n_k)
    delay = overlap = 0.0
    ops = phases = 0.0
    for c, share in zip(net.classes, mix, strict=True):
        if share <= 0:
            continue
        delay += share * c.delay
        overlap += share * c.overlap
        for key, acc in c.work.items():
            k = index[key]
            fixed[k] += share * acc[_F1]
            pos[k] += share * acc[_P1]
            visits[k] += share * acc[_V]
            second[k] += share * (acc[_SFF] + 2 * acc[_SFP] + acc[_SPP])
            if acc[_PH] > 0:
                ops += share * acc[_V]
                phases += share * acc[_PH]
        for key, acc in c.background.items():
            k = index[key]
            bgf[k] += share * acc[_F1]
            bgp[k] += share * acc[_P1]
        for pi, nbytes in c.prefetch.items():
            k = index[(f"array.{net.pools[pi].name}.drives", 1)]
            fixed[k] += share * nbytes / prefetch[pi]
            visits[k] += share
            second[k] += share * (nbytes / prefetch[pi]) ** 2
    members = [net.members[key] for key in keys]
    count = np.array([mb.count for mb in members], dtype=np.float64)
    # Parallel drive operations of one command: the command is `parallel` customers that
    # share its work (so the drives see them at once, the host stages one after the other).
    parallel = ops / phases if phases > 0 else 1.0
    return _Arrays(
        keys=keys,
        fixed=fixed / count / parallel,
        pos=pos / count / parallel,
        bg_fixed=bgf / count,
        bg_pos=bgp / count,
        count=count,
        servers=np.array([mb.servers for mb in members], dtype=np.int64),
        tcq=np.array([mb.tcq for mb in members], dtype=np.int64),
        mirror=np.array([mb.mirror for mb in members], dtype=np.bool_),
        second=np.where(visits > 0, second / np.where(visits > 0, visits, 1.0), 0.0),
        visits=visits / count / parallel,
        delay=delay - overlap / parallel,
        parallel=parallel,
    )


@dataclass
class _Core:
    """Closed solution for populations ``1..n_max`` (customers)."""

    x: FloatArray  # X(n), n = 1..n_max
    util: dict[int, FloatArray]  # per population asked for: utilisation per member
    queue: dict[int, FloatArray]  # per population asked for: mean queue per member


def _closed_core(
    arr: _Arrays,
    infl: FloatArray,
    n_max: int,
    rows: Sequence[int],
    extra: FloatArray | None = None,
) -> _Core:
    """Exact MVA of the fixed-rate stations, convolved with the load-dependent ones.

    Load-dependent stations are multi-server stations (rate ``min(j, c)``) and SPTF drives
    (rate ``min(j, tcq)^0.27`` on the positioning time): their normalising-constant factors
    are convolved in log space with that of the rest of the network, whose normalising
    constant comes from its own MVA (``G(n) = G(n - 1) / X(n)``), as in
    :func:`sanpath.theory.queues.mva`. Every term is positive, so the result is stable at any load.
    """
    n_k = len(arr.keys)
    d = (arr.fixed + arr.pos) * infl
    ld = [k for k in range(n_k) if d[k] > 0 and arr.load_dependent(k, n_max)]
    detailed = {k for k in ld if arr.detailed(k)}
    fixed = [k for k in range(n_k) if k not in ld and d[k] > 0]
    queueing = [bool(arr.servers[k] == 1) for k in fixed]
    x_fixed = _fixed_mva(
        [float(d[k]) for k in fixed],
        queueing,
        [float(arr.count[k]) for k in fixed],
        max(arr.delay, 0.0) if not any(queueing) else arr.delay,
        n_max,
    ) if (fixed or arr.delay > 0) else []  # fmt: skip
    if x_fixed:
        log_g_fixed = np.concatenate(([0.0], -np.cumsum(np.log(x_fixed))))
    else:
        log_g_fixed = np.full(n_max + 1, -np.inf)
        log_g_fixed[0] = 0.0
    factors: dict[int, FloatArray] = {}  # one member
    powers: dict[int, FloatArray] = {}  # all members of the class
    minus_one: dict[int, FloatArray] = {}
    for k in ld:
        per = arr.ld_demand(k, n_max, float(infl[k]), 0.0 if extra is None else float(extra[k]))
        f = np.concatenate(([0.0], np.cumsum(np.log(per))))
        factors[k] = f
        m = int(arr.count[k])
        if k in detailed:
            minus_one[k] = _log_power(f, m - 1)
            powers[k] = _log_conv(f, minus_one[k])
        else:
            powers[k] = _log_power(f, m)
    parts = [log_g_fixed] + [powers[k] for k in ld]
    prefix = [parts[0]]
    for part in parts[1:]:
        prefix.append(_log_conv(prefix[-1], part))
    log_g = prefix[-1]
    x = np.exp(log_g[:-1] - log_g[1:])
    util: dict[int, FloatArray] = {}
    queue: dict[int, FloatArray] = {}
    servers = np.maximum(arr.servers, 1)
    complements: dict[int, FloatArray] = {}
    if detailed:
        suffix: FloatArray | None = None
        for i in range(len(ld), 0, -1):
            k = ld[i - 1]
            rest = prefix[i - 1] if suffix is None else _log_conv(prefix[i - 1], suffix)
            if k in detailed:
                complements[k] = _log_conv(rest, minus_one[k])
            if i > 1:
                suffix = powers[k] if suffix is None else _log_conv(powers[k], suffix)
    for n in rows:
        xn = float(x[n - 1])
        u = np.where(arr.servers > 0, xn * d / (servers * np.where(arr.mirror, 2, 1)), 0.0)
        qn = np.zeros(n_k)
        for k in fixed:
            if arr.servers[k] == 0:
                qn[k] = xn * d[k]
        for k, comp in complements.items():
            j = np.arange(n + 1)
            log_p = factors[k][: n + 1] + comp[n - j] - log_g[n]
            p = np.exp(log_p)
            u[k] = arr.busy(k, p)
            qn[k] = float(j @ p)
        util[n] = u
        queue[n] = qn
    return _Core(x=x, util=util, queue=queue)


@dataclass
class _ClosedSolution:
    """The closed network at one population of commands."""

    x_cmd: float
    util: FloatArray  # per member, background included
    queue: FloatArray  # per member (SPTF drives; others where known)
    cache_full: bool = False  # write-back cache saturated: throughput capped by destage


def _solve_closed(arr: _Arrays, populations: Sequence[float]) -> list[_ClosedSolution]:
    """Solve at each population of commands (fractional: interpolated)."""
    branches = [max(p * arr.parallel, 1.0) for p in populations]
    rows = sorted({max(1, math.floor(b)) for b in branches} | {math.ceil(b) for b in branches})
    n_max = max(rows)
    n_k = len(arr.keys)
    servers = np.maximum(arr.servers, 1)
    has_bg = bool(np.any(arr.bg_fixed + arr.bg_pos > 0))
    infl = np.ones(n_k)
    core = _closed_core(arr, infl, n_max, rows)
    bg_util = {n: np.zeros(n_k) for n in rows}
    if has_bg:
        # Mixed network: the destage stream is an open class whose utilisation U inflates the
        # closed demands by 1 / (1 - U); U grows with the closed throughput (fixed point per
        # population, solved one population at a time).
        # The destage commands queued at an SPTF drive also give it more to choose from: the
        # open class's mean number at a member, U (1 + Q_closed) / (1 - U) (BCMP mixed
        # network), joins the closed queue in g(j) (at most the drive's tcq).
        for n in rows:
            infl_n = np.ones(n_k)
            extra = np.zeros(n_k)
            for _ in range(_FIXED_POINT_MAX):
                x_cmd = float(core.x[n - 1]) / arr.parallel
                alpha = np.ones(n_k)
                closed_q = np.zeros(n_k)
                for k in arr.sptf:
                    q = max(float(core.queue[n][k]) / (2 if arr.mirror[k] else 1), 1.0)
                    closed_q[k] = q
                    alpha[k] = min(q + float(extra[k]), float(arr.tcq[k])) ** SPTF_GAMMA
                u = np.minimum(x_cmd * (arr.bg_fixed + arr.bg_pos / alpha) / servers, 0.999)
                new = 0.5 * infl_n + 0.5 / (1.0 - u)
                bg_q = np.minimum(u * (1.0 + closed_q) / (1.0 - u), arr.tcq.astype(np.float64))
                new_extra = np.where(closed_q > 0, 0.5 * extra + 0.5 * bg_q, 0.0)
                done = (
                    float(np.max(np.abs(new / infl_n - 1.0))) < 1e-6
                    and float(np.max(np.abs(new_extra - extra))) < 1e-4
                )
                infl_n = new
                extra = new_extra
                core_n = _closed_core(arr, infl_n, n, [n], extra)
                core.x[n - 1] = core_n.x[n - 1]
                # the closed demands were inflated by 1 / (1 - U): the closed commands keep a
                # member busy (1 - U) of what the inflated solution says, the destage U
                core.util[n] = core_n.util[n] * (1.0 - u)
                core.queue[n] = core_n.queue[n]
                bg_util[n] = u
                if done:
                    break
    cap = math.inf
    if has_bg:
        # The drives cannot destage faster than they work: with the destage counted as
        # demand, X_cmd (P d + bg) <= servers at full speed (else the cache fills and writes
        # wait for room: a forced flush).
        for k in range(n_k):
            if arr.bg_fixed[k] + arr.bg_pos[k] <= 0:
                continue
            fast = float(arr.tcq[k]) ** SPTF_GAMMA if arr.tcq[k] > 0 else 1.0
            per_cmd = (arr.fixed[k] + arr.pos[k] / fast) * arr.parallel + (
                arr.bg_fixed[k] + arr.bg_pos[k] / fast
            )
            width = float(arr.servers[k]) * (2.0 if arr.mirror[k] else 1.0)
            cap = min(cap, width / float(per_cmd))
    out = []
    for b in branches:
        lo, hi = max(1, math.floor(b)), math.ceil(b)
        t = b - lo if hi > lo else 0.0
        x = float((1 - t) * core.x[lo - 1] + t * core.x[hi - 1]) / arr.parallel
        util = (1 - t) * (core.util[lo] + bg_util[lo]) + t * (core.util[hi] + bg_util[hi])
        queue = (1 - t) * core.queue[lo] + t * core.queue[hi]
        saturated = x > cap
        if saturated:
            util = util * (cap / x)
            x = cap
        out.append(_ClosedSolution(x, util, queue, saturated))
    return out


# --------------------------------------------------------------------------------------------
# Read-ahead: the prefetch streams on their own
# --------------------------------------------------------------------------------------------


def _prefetch_bandwidth(
    net: _Network, pi: int, model: _DriveModel, base: int, streams: float, mode: str
) -> tuple[float, float]:
    """(bytes per second, drive utilisation) of a pool's read-ahead at full depth.

    Each stream keeps ``read_ahead / chunk`` chunk reads in flight; the pool's drives serve
    them (RAID read of a chunk, SPTF): a closed network of the drives alone.
    """
    s = net.scenario
    cache = s.array.cache
    pool = net.pools[pi]
    chunk = min(cache.read_ahead, max(pool.data_drives * pool.stripe_element, 256 * 1024))
    fg, _ = _drive_work(pool, model, base, chunk, None, False, "read", mode, 0)
    key = (f"array.{pool.name}.drives", 0)
    mb = net.members[key]
    single = _Network(
        scenario=s,
        members={key: mb},
        classes=[
            _Class(0, 0, 0, True, 1, 0.0, 1.0, float(chunk), work={key: fg}),
        ],
        flows=[],
        group_servers=net.group_servers,
        pools=net.pools,
        notes=[],
        host_counts=[],
        hba_ports=[],
    )
    arr = _arrays(single, [1.0], {})
    depth = -(-cache.read_ahead // chunk)
    sol = _solve_closed(arr, [max(streams * depth, 1.0)])[0]
    return sol.x_cmd * chunk, float(sol.util[0])


# --------------------------------------------------------------------------------------------
# Putting it together
# --------------------------------------------------------------------------------------------


def _utilization(net: _Network, arr: _Arrays, u_member: FloatArray) -> tuple[dict[str, float], str]:
    """Mean utilisation per station group, and the group of the busiest member."""
    busy: dict[str, float] = {}
    best, best_u = "", -1.0
    for k, key in enumerate(arr.keys):
        mb = net.members[key]
        u = float(u_member[k])
        if mb.servers == 0 or u <= 0.0:
            continue
        if mb.busy_scale > 0:  # read-ahead: a share of the prefetch capacity
            busy[mb.group] = busy.get(mb.group, 0.0) + u * mb.busy_scale
            u = u * mb.busy_scale / net.group_servers.get(mb.group, 1.0)
        else:
            pair = 2 if mb.mirror else 1
            busy[mb.group] = busy.get(mb.group, 0.0) + u * mb.servers * mb.count * pair
        if u > best_u + 1e-12:
            best, best_u = mb.group, u
    util = {g: b / net.group_servers.get(g, 1.0) for g, b in busy.items()}
    return util, best


def _exponential_note(net: _Network, arr: _Arrays, u: FloatArray, notes: list[str]) -> None:
    groups = []
    for k, key in enumerate(arr.keys):
        mb = net.members[key]
        if mb.servers == 0 or arr.visits[k] <= 0 or mb.busy_scale > 0:
            continue
        mean = (arr.fixed[k] + arr.pos[k]) / arr.visits[k]
        scv = arr.second[k] / (mean * mean) - 1.0 if mean > 0 else 1.0
        if abs(scv - 1.0) > 0.05 and u[k] > 0.05 and mb.group not in groups:
            groups.append(mb.group)
    if groups:
        _note(
            notes,
            "MVA treats every station as exponential (product form); the service times of "
            f"{', '.join(groups)} are not (constant links and processors, low-variance drives)",
        )


def _model_notes(net: _Network, arr: _Arrays, notes: list[str], closed: bool) -> None:
    if arr.sptf:
        _note(
            notes,
            "HDD command queueing (SPTF) as a load-dependent station: with j commands queued a "
            "drive positions g(j) = min(j, tcq)^0.27 times faster (solved exactly in the "
            "product-form network, which assumes exponential service)"
            if closed
            else "HDD command queueing (SPTF) as a load-dependent birth-death station: with j "
            "commands queued a drive positions g(j) = min(j, tcq)^0.27 times faster",
        )
    if arr.parallel > 1.0 + 1e-9:
        _note(
            notes,
            f"fork-join: a command's parallel drive operations ({arr.parallel:.2f} per phase) "
            "are modelled as that many customers sharing the command's work (the wait for the "
            "slowest is ignored)"
            if closed
            else "fork-join: the response of a command's parallel drive operations is taken as "
            "H_k / k times their summed residence (the mean largest of k exponentials)",
        )
    if _overlaps(net):
        _note(
            notes,
            "pipelined transfers: a command's data crosses PCIe, the host link and the array "
            "link at once, so only the slowest link's service time counts in its latency (a "
            "negative delay removes the overlap)",
        )
    if bool(np.any(arr.bg_fixed + arr.bg_pos > 0)):
        _note(
            notes,
            "write-back destage treated as background load on the drives (mixed network: "
            "closed demands inflated by 1 / (1 - U_destage), destage commands queued at an "
            "SPTF drive counted in its queue); a cache the drives cannot keep up with is "
            "capped at what they destage (forced flushes)",
        )
    if any(c.prefetch for c in net.classes):
        _note(
            notes,
            "read-ahead: the prefetch streams (streams x read_ahead / chunk reads in flight) are "
            "solved on the drives alone; sequential readers queue for that bandwidth as for one "
            "server and otherwise see a cache hit",
        )


def _overlaps(net: _Network) -> bool:
    return any(c.overlap > 0 for c in net.classes)


def _closed_predictions(
    net: _Network, knob_sets: Sequence[_Knobs], base_notes: Sequence[str]
) -> list[TwinPrediction]:
    cls = net.classes
    pops_list = []
    notes_list = []
    for knobs in knob_sets:
        notes = list(base_notes)
        pops_list.append(_populations(net, knobs, notes))
        notes_list.append(notes)
    closed = [i for i, c in enumerate(cls) if c.closed]
    out: list[TwinPrediction] = []
    if len(closed) == 1 or _same_work(net, closed):
        # One kind of command: every point shares the network, solved once for all.
        mix = [1.0 / len(closed) if i in closed else 0.0 for i in range(len(cls))]
        arr = _arrays(net, mix, net.prefetch)
        sols = _solve_closed(arr, [max(sum(p), 1.0) for p in pops_list])
        for knobs, pops, notes, sol in zip(knob_sets, pops_list, notes_list, sols, strict=True):
            out.append(_closed_result(net, arr, mix, knobs, pops, sol, notes))
        return out
    for knobs, pops, notes in zip(knob_sets, pops_list, notes_list, strict=True):
        total = max(sum(pops), 1.0)
        mix = [pops[i] / total if cls[i].closed else 0.0 for i in range(len(cls))]
        arr = _arrays(net, mix, net.prefetch)
        sol = _solve_closed(arr, [total])[0]
        for _ in range(8):  # class mix: X_c proportional to N_c / R_c
            new_mix = _class_mix(net, arr, sol, pops)
            if max(abs(a - b) for a, b in zip(new_mix, mix, strict=True)) < 1e-6:
                break
            mix = [0.5 * (a + b) for a, b in zip(new_mix, mix, strict=True)]
            arr = _arrays(net, mix, net.prefetch)
            sol = _solve_closed(arr, [total])[0]
        _note(
            notes,
            "several kinds of commands are aggregated into one class (mix weighted by "
            "N_c / R_c, fixed point): per-class queueing is approximate",
        )
        out.append(_closed_result(net, arr, mix, knobs, pops, sol, notes))
    return out


def _class_mix(
    net: _Network, arr: _Arrays, sol: _ClosedSolution, pops: Sequence[float]
) -> list[float]:
    """Command shares ``N_c / R_c`` with each class's cycle from the aggregated solution."""
    index = {key: k for k, key in enumerate(arr.keys)}
    x_branch = sol.x_cmd * arr.parallel
    # residence per unit of demand at each member (stretch factor)
    demand = arr.fixed + arr.pos
    stretch = np.ones(len(arr.keys))
    for k in range(len(arr.keys)):
        if arr.servers[k] > 0 and demand[k] > 0 and x_branch > 0:
            stretch[k] = max(sol.queue[k], x_branch * demand[k]) / (x_branch * demand[k])
    raw = []
    for i, c in enumerate(net.classes):
        if not c.closed or pops[i] <= 0:
            raw.append(0.0)
            continue
        r = c.delay - c.overlap / arr.parallel
        for key, acc in c.work.items():
            k = index[key]
            r += (acc[_F1] + acc[_P1]) / arr.parallel * stretch[k]
        for pi, nbytes in c.prefetch.items():
            k = index[(f"array.{net.pools[pi].name}.drives", 1)]
            r += nbytes / net.prefetch[pi] * stretch[k]
        raw.append(pops[i] / max(r, 1e-300))
    total = sum(raw)
    return [x / total for x in raw]


def _same_work(net: _Network, closed: list[int]) -> bool:
    first = net.classes[closed[0]]
    for i in closed[1:]:
        c = net.classes[i]
        if (
            c.work != first.work
            or c.background != first.background
            or c.prefetch != first.prefetch
            or abs(c.delay - first.delay) > 1e-15
            or abs(c.overlap - first.overlap) > 1e-15
            or c.cmds_per_io != first.cmds_per_io
            or c.bytes_per_io != first.bytes_per_io
        ):
            return False
    return True


def _closed_result(
    net: _Network,
    arr: _Arrays,
    mix: Sequence[float],
    knobs: _Knobs,
    pops: Sequence[float],
    sol: _ClosedSolution,
    notes: list[str],
) -> TwinPrediction:
    cls = net.classes
    s = net.scenario
    x_cmd = sol.x_cmd
    x_io = sum(share * x_cmd / c.cmds_per_io for c, share in zip(cls, mix, strict=True))
    byte_rate = sum(
        share * x_cmd / c.cmds_per_io * c.bytes_per_io for c, share in zip(cls, mix, strict=True)
    )
    n_io = sum(
        c.n_io / s.workloads[c.workload].outstanding_per_lun * knobs.outstanding[c.workload]
        for c in cls
        if c.closed
    )
    latency = n_io / x_io if x_io > 0 else math.inf
    _model_notes(net, arr, notes, closed=True)
    if sol.cache_full:
        _note(
            notes,
            "write-back cache saturated: the drives cannot destage the writes as fast as they "
            "arrive, so writes wait for room (forced flush) and the throughput is capped at "
            "what the drives can destage",
        )
    _exponential_note(net, arr, sol.util, notes)
    util, bottleneck = _utilization(net, arr, sol.util)
    return TwinPrediction(
        iops=x_io,
        mb_per_s=byte_rate / 1e6,
        latency_ms_mean=latency * 1e3,
        bottleneck=bottleneck,
        utilization=util,
        population=round(sum(pops)),
        notes=tuple(notes),
    )


# --------------------------------------------------------------------------------------------
# Open networks: Jackson-style decomposition
# --------------------------------------------------------------------------------------------


def _open_ld(
    arrival: float, service: FloatArray, tcq: int, pair: bool
) -> tuple[float, float, bool]:
    """Birth-death load-dependent station: (mean number, busy fraction per drive, stable).

    ``service[j - 1]`` is the mean time between completions with ``j`` commands present
    (constant from ``tcq`` on): ``p(j) = p(0) prod_{i<=j} arrival x service(i)``.
    """
    tail_ratio = arrival * float(service[tcq - 1])
    if tail_ratio >= 1.0:
        return math.inf, 1.0, False
    log_w = np.concatenate(([0.0], np.cumsum(np.log(arrival * service[:tcq]))))  # j = 0..tcq
    top = float(log_w.max())
    w = np.exp(log_w - top)
    j = np.arange(tcq + 1, dtype=np.float64)
    head = float(w[:-1].sum())
    head_n = float((j[:-1] * w[:-1]).sum())
    wt = float(w[-1])  # p(tcq) unnormalised; tail j >= tcq is geometric
    r = tail_ratio
    tail = wt / (1.0 - r)
    tail_n = wt * (tcq / (1.0 - r) + r / (1.0 - r) ** 2)
    norm = head + tail
    if pair:
        busy = (float(w[1]) * 0.5 + (norm - float(w[0]) - float(w[1]))) / norm
    else:
        busy = 1.0 - float(w[0]) / norm
    return (head_n + tail_n) / norm, busy, True


def _open_prediction(net: _Network, knobs: _Knobs, base_notes: Sequence[str]) -> TwinPrediction:
    """Each station on its own with Poisson arrivals; responses summed."""
    notes = list(base_notes)
    cls = net.classes
    scale = [
        (knobs.rate[c.workload] or 0.0) / (net.scenario.workloads[c.workload].rate or 1.0)
        for c in cls
    ]
    rates = [c.rate * f for c, f in zip(cls, scale, strict=True)]  # I/Os per second
    cmd_rates = [r * c.cmds_per_io for r, c in zip(rates, cls, strict=True)]
    lam_cmd = sum(cmd_rates)
    mix = [r / lam_cmd for r in cmd_rates]
    arr = _arrays(net, mix, net.prefetch)
    lam = lam_cmd * arr.parallel  # customers per second (branches of the commands)
    x_io = sum(rates)
    byte_rate = sum(r * c.bytes_per_io for r, c in zip(rates, cls, strict=True))
    n_k = len(arr.keys)
    exponential = True
    residence = np.zeros(n_k)
    util = np.zeros(n_k)
    stable = True
    worst = (-1.0, 0)
    for k in range(n_k):
        v = float(arr.visits[k])
        demand = float(arr.fixed[k] + arr.pos[k])
        if v <= 0 or demand <= 0:
            continue
        c = int(arr.servers[k])
        if c == 0:
            residence[k] = demand
            continue
        bg = lam_cmd * float(arr.bg_fixed[k] + arr.bg_pos[k]) / c
        slow = 1.0 / (1.0 - bg) if bg < 1.0 else math.inf
        mean = demand / v * slow
        arrival = lam * v
        rho = arrival * mean / c
        worst = max(worst, (rho + bg, k))
        if rho + bg >= 1.0 or not math.isfinite(slow):
            stable = False
            util[k] = min(rho + bg, 1.0)
            continue
        if arr.detailed(k):
            top = arr.saturation(k)
            service = arr.ld_demand(k, top) / v * slow
            number, busy, ok = _open_ld(arrival, service, top, bool(arr.mirror[k]))
            if not ok:
                stable = False
                util[k] = 1.0
                continue
            w = number / arrival
            util[k] = busy + bg
            exponential = False
        else:
            scv = max(float(arr.second[k]) / (demand / v) ** 2 - 1.0, 0.0)
            if c == 1:
                w = queues.mg1(arrival, mean, math.sqrt(scv)).response
            else:
                base = queues.mmc(arrival, 1.0 / mean, c)
                w = base.response if abs(scv - 1.0) <= 1e-12 else (
                    base.wait * (1.0 + scv) / 2.0 + mean
                )  # fmt: skip
            if abs(scv - 1.0) > 1e-12:
                exponential = False
            util[k] = rho + bg
        residence[k] = v * w
    drive_members = [k for k, key in enumerate(arr.keys) if net.members[key].pool >= 0]
    fork = 1.0
    if arr.parallel > 1.0 + 1e-9:
        p = arr.parallel
        lo = math.floor(p)
        harmonic = sum(1.0 / i for i in range(1, lo + 1)) + (p - lo) / (lo + 1)
        fork = harmonic  # parallel branches: the largest of p residence times
    latency = arr.delay
    for k in range(n_k):
        share = residence[k] * arr.count[k]
        latency += share * (fork if k in drive_members else arr.parallel)
    u_groups, bottleneck = _utilization(net, arr, util)
    _model_notes(net, arr, notes, closed=False)
    if not stable:
        busiest, k = worst
        capacity = x_io / busiest
        _note(
            notes,
            f"unstable: the offered {x_io:.6g} I/Os per second exceed what "
            f"{net.members[arr.keys[k]].group} can carry; IOPS capped at its capacity "
            "and the latency is infinite",
        )
        factor = min(capacity / x_io, 1.0)
        return TwinPrediction(
            iops=x_io * factor,
            mb_per_s=byte_rate * factor / 1e6,
            latency_ms_mean=math.inf,
            bottleneck=net.members[arr.keys[k]].group,
            utilization={g: min(v, 1.0) for g, v in u_groups.items()},
            population=None,
            notes=tuple(notes),
        )
    if not exponential:
        _note(
            notes,
            "open loop: stations decomposed Jackson-style (Poisson arrivals at each), Erlang C "
            "for multi-server stations (Allen-Cunneen for non-exponential service) and "
            "Pollaczek-Khinchine for single servers, summed",
        )
    _open_limit_note(knobs, lam_cmd, latency, notes)
    return TwinPrediction(
        iops=x_io,
        mb_per_s=byte_rate / 1e6,
        latency_ms_mean=latency * 1e3,
        bottleneck=bottleneck,
        utilization=u_groups,
        population=None,
        notes=tuple(notes),
    )


def _open_limit_note(knobs: _Knobs, lam: float, latency: float, notes: list[str]) -> None:
    limits = [q for q in knobs.host_qd if q is not None] + [
        q for hq in knobs.hba_qd for q in hq if q is not None
    ]
    if limits and lam * latency > min(limits):
        _note(
            notes,
            "open loop: queue-depth limits are not modelled (the mean number in the path "
            f"{lam * latency:.1f} exceeds the smallest limit {min(limits)})",
        )


# --------------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------------


def _scenario_notes(s: Scenario) -> list[str]:
    notes = []
    if s.schedule:
        notes.append("schedule ignored: the prediction is for the settings at time zero")
    copies = [w.name for w in s.workloads if w.copy_to is not None]
    if copies:
        notes.append(
            f"copy jobs ({', '.join(copies)}): only their reads are modelled, not the writes "
            "that empty the buffers, nor the buffer and per-file limits"
        )
    return notes


def _predict_knobs(
    s: Scenario, net: _Network, knob_sets: Sequence[_Knobs], destage: Destage
) -> list[TwinPrediction]:
    base_notes = _scenario_notes(s) + net.notes
    if not any(c.closed for c in net.classes):
        return [_open_prediction(net, k, base_notes) for k in knob_sets]
    if any(not c.closed for c in net.classes):
        base_notes.append(
            "open-loop workloads next to closed ones are ignored by the closed-loop solution"
        )
    return _closed_predictions(net, knob_sets, base_notes)


_net_cache: dict[tuple[int, bool], tuple[Scenario, _Network]] = {}


def _network(s: Scenario, destage: bool) -> _Network:
    key = (id(s), destage)
    hit = _net_cache.get(key)
    if hit is not None and hit[0] is s:
        return hit[1]
    net = _build(s, destage)
    if len(_net_cache) > 64:
        _net_cache.clear()
    _net_cache[key] = (s, net)
    return net


def _unmodelled(s: Scenario, preds: list[TwinPrediction]) -> list[TwinPrediction]:
    """Name the array features the twin leaves out when a scenario uses them."""
    array = s.array
    if array.cross_controller is not None:
        preds = [
            _add_note(p, "cross-controller forwarding (non-owner ports) not modelled")
            for p in preds
        ]
    return preds


def _with_destage(
    s: Scenario, knob_sets: Sequence[_Knobs], destage: Destage
) -> list[TwinPrediction]:
    """Predictions with the write-back destage as the mode asks."""
    writes_absorbed = any(c.absorbed_bytes > 0 for c in _network(s, False).classes)
    if not writes_absorbed or destage == "none":
        preds = _predict_knobs(s, _network(s, False), knob_sets, destage)
        if writes_absorbed:
            preds = [_add_note(p, "write-back destage ignored (destage='none')") for p in preds]
        return preds
    if destage == "steady":
        return _predict_knobs(s, _network(s, True), knob_sets, destage)
    # auto: does the dirty data reach the low watermark during the scenario's run?
    cache = s.array.cache
    without = _predict_knobs(s, _network(s, False), knob_sets, destage)
    out = []
    net = _network(s, False)
    for knobs, p0 in zip(knob_sets, without, strict=True):
        absorbed_rate = _absorbed_byte_rate(net, p0)
        low = cache.low_watermark * (cache.write_back or 0)
        t_fill = low / absorbed_rate if absorbed_rate > 0 else math.inf
        run = s.run
        if run.warmup == "auto" or run.precondition:
            # the simulator starts with the cache full (precondition) or waits for it to
            # settle (auto warm-up): it measures the steady state with destage load
            n_before, measured = 0.0, 1.0
        elif run.duration is not None:
            t_warm = run.warmup_ios / p0.iops if p0.iops > 0 else 0.0
            n_before = max(0.0, p0.iops * (t_fill - t_warm)) if math.isfinite(t_fill) else math.inf
            measured = run.duration * p0.iops
        else:
            n_before = p0.iops * t_fill - run.warmup_ios if math.isfinite(t_fill) else math.inf
            measured = float(run.ios if run.ios is not None else run.max_ios)
        if n_before >= measured:
            out.append(
                _add_note(
                    p0,
                    f"write-back cache: dirty data stays below the low watermark for this run "
                    f"(it would take {t_fill:.3g} s to fill, the run is shorter), so no destage "
                    "load; a longer run would add it (destage='steady')",
                )
            )
            continue
        p1 = _predict_knobs(s, _network(s, True), [knobs], destage)[0]
        if n_before <= 0:
            out.append(p1)
        else:
            n0, n1 = n_before, measured - n_before
            t0, t1 = n0 / p0.iops, n1 / p1.iops
            iops = measured / (t0 + t1)
            latency = (n0 * p0.latency_ms_mean + n1 * p1.latency_ms_mean) / measured
            mb = p0.mb_per_s / p0.iops * iops if p0.iops > 0 else 0.0
            util = {
                k: (t0 * p0.utilization.get(k, 0.0) + t1 * p1.utilization.get(k, 0.0)) / (t0 + t1)
                for k in set(p0.utilization) | set(p1.utilization)
            }
            notes = (
                *p1.notes,
                f"write-back cache reaches its low watermark after {t_fill:.3g} s, during the "
                f"run: the figures mix {n0:.0f} I/Os without and {n1:.0f} with destage load",
            )
            out.append(
                TwinPrediction(
                    iops=iops,
                    mb_per_s=mb,
                    latency_ms_mean=latency,
                    bottleneck=p1.bottleneck,
                    utilization=util,
                    population=p1.population,
                    notes=notes,
                )
            )
    return out


def _absorbed_byte_rate(net: _Network, p: TwinPrediction) -> float:
    """Bytes per second written into the write-back cache."""
    cls = net.classes
    weights = [(c.n_io if c.closed else c.rate) * c.cmds_per_io for c in cls]  # rough command mix
    total = sum(weights)
    if total <= 0 or p.iops <= 0:
        return 0.0
    per_io = sum(
        w / total * c.absorbed_bytes * c.cmds_per_io for w, c in zip(weights, cls, strict=True)
    )
    return p.iops * per_io / max(sum(w / total for w, c in zip(weights, cls, strict=True)), 1e-300)


def _add_note(p: TwinPrediction, note: str) -> TwinPrediction:
    if note in p.notes:
        return p
    return TwinPrediction(
        p.iops,
        p.mb_per_s,
        p.latency_ms_mean,
        p.bottleneck,
        p.utilization,
        p.population,
        (*p.notes, note),
    )


def _load(scenario: Scenario | str | Path | Mapping[str, Any]) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load_scenario(scenario)


def predict(
    scenario: Scenario | str | Path | Mapping[str, Any], *, destage: Destage = "auto"
) -> TwinPrediction:
    """The twin's mean-value prediction for ``scenario`` (a Scenario, a YAML path or a dict).

    Parameters
    ----------
    destage
        How the write-back destage loads the drives: ``steady`` (background load, the long
        run), ``none`` (never), ``auto`` (as the scenario's run sees it: none when the dirty
        data cannot reach the cache's low watermark before the run ends, steady when it does
        so during the warm-up, a mix in between).
    """
    s = _load(scenario)
    return _unmodelled(s, _with_destage(s, [_Knobs.of(s)], destage))[0]


def predict_many(
    scenario: Scenario | str | Path | Mapping[str, Any],
    points: Sequence[Mapping[str, Any]],
    *,
    destage: Destage = "auto",
) -> list[TwinPrediction]:
    """Predictions at every point of a sweep (``points`` are dotted overrides).

    Points that only change queue depths and loads (``workloads.N.outstanding``,
    ``workloads.N.rate``, ``hosts.N.lun_queue_depth``, ``hosts.N.hbas.M.queue_depth``,
    ``array.port_queue_depth``, ``array.lun_queue_depth``, ``array.luns.N.queue_depth``) reuse
    the mapping of the scenario and are solved together; any other key is applied with
    :meth:`Scenario.with_overrides` (validated) and predicted on its own.
    """
    s = _load(scenario)
    base = _Knobs.of(s)
    fast: list[tuple[int, _Knobs]] = []
    out: list[TwinPrediction | None] = [None] * len(points)
    for i, point in enumerate(points):
        knobs = _apply_knobs(s, base, point)
        if knobs is None:
            out[i] = predict(s.with_overrides(point), destage=destage)
        else:
            fast.append((i, knobs))
    if fast:
        preds = _unmodelled(s, _with_destage(s, [k for _, k in fast], destage))
        for (i, _), p in zip(fast, preds, strict=True):
            out[i] = p
    result = [p for p in out if p is not None]
    assert len(result) == len(points)
    return result
