"""The wiring of a scenario: every LUN's place, every host port, every path and its share.

One model, read by the simulator (:mod:`sanpath.sim.topology` builds its queues and links
along these paths), by the checks (:mod:`sanpath.advice`) and by the analytic twin
(:mod:`sanpath.theory.twin`), so a knob that changes how hosts reach LUNs changes all three.

* **LUNs** are numbered across groups in scenario order; each has its pool, its size (an
  equal share of the pool unless given), its byte offset in the pool (LUNs are carved one
  after the other), its per-LUN queue limit and the array ports that present it.
* **Host ports** are numbered per host instance over every card in order (the numbering
  zoning uses).
* **Paths** of a host group to a LUN: every host port, in order, times every array port it
  sees through the zoning that presents the LUN. With ``failover`` only path
  ``lun index mod n`` carries I/O; every other policy spreads a LUN's I/O over all of them.
  A path's ``slot_key`` names the HBA command-slot pool it draws from: per LUN, or per target
  port (Emulex QueueTarget 1).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sanpath.spec import (
    TRANSPORTS,
    Framing,
    HostSpec,
    PoolSpec,
    Scenario,
    WorkloadSpec,
    expand_names,
    lun_groups_used,
    lun_queue_limit,
    lun_sizes,
    visible_ports,
)


@dataclass(frozen=True)
class LunPlace:
    """One LUN instance as the array sees it."""

    index: int
    """Number of the LUN across every group."""
    group: int
    """Index of its LUN group in ``array.luns``."""
    name: str
    pool: PoolSpec
    pool_index: int
    size: int
    """Bytes."""
    base: int
    """Byte offset of the LUN in its pool."""
    limit: int | None
    """The array's per-LUN queue limit (None: unlimited)."""
    ports: tuple[int, ...]
    """Array ports that present the LUN."""
    owner: int
    """The controller that owns the LUN (:func:`lun_owner`)."""


@dataclass(frozen=True)
class HostPort:
    """One HBA port of a host (``index`` counts over every card, as zoning does)."""

    index: int
    hba: int
    """Index of the HBA spec in ``hosts.N.hbas``."""
    card: int
    """Card number over every HBA of the host."""
    port: int
    """Port number on its card."""
    speed: float | None


@dataclass(frozen=True)
class PathInfo:
    """One path of one host instance (of group ``group``) to LUN ``lun``."""

    group: int
    port: int
    """Host port index (:class:`HostPort`)."""
    array_port: int
    lun: int
    active: bool
    """True when the multipath policy sends I/O down this path."""
    optimized: bool
    """True when the path reaches the controller that owns the LUN (an ALUA/ANA optimized
    path); every path is optimized when the array's controllers are symmetric."""
    slot_key: tuple[Any, ...]
    """The HBA slot pool it draws from: (group, port, "lun", lun) or (group, port, "target",
    array port)."""


def command_limit(host: HostSpec) -> int | None:
    """The largest command (bytes) a host of ``host``'s group sends: the smallest of its
    ``max_io_size`` and its HBAs' ``max_transfer`` (None: no limit, nothing is split)."""
    limits = [x for x in [host.max_io_size, *(h.max_transfer for h in host.hbas)] if x is not None]
    return min(limits) if limits else None


def split_limit(scenario: Scenario, group: int) -> int | None:
    """The largest command host group ``group`` sends (:func:`command_limit`)."""
    return command_limit(scenario.hosts[group])


def lun_owner(lun: int, failed: int | None = None) -> int:
    """The controller (storage processor) that owns LUN number ``lun``: LUNs alternate
    between the two, the first on controller 0; the survivor owns them all when controller
    ``failed`` has failed."""
    owner = lun % 2
    return 1 - owner if owner == failed else owner


def port_controller(port: int) -> int:
    """The controller array port number ``port`` belongs to: even ports on 0, odd on 1."""
    return port % 2


def failover_path(lun: int, paths: int) -> int:
    """The one path (of ``paths``) that carries LUN number ``lun``'s I/O under ``failover``:
    LUNs are spread over the paths statically, as balanced legacy device files do."""
    return lun % paths


def split_sizes(size: int, limit: int | None) -> list[int]:
    """Sizes of the commands an I/O of ``size`` bytes becomes under ``limit`` (bytes)."""
    if limit is None or size <= limit:
        return [size]
    full, rest = divmod(size, limit)
    return [limit] * full + ([rest] if rest else [])


def wire_bytes(nbytes: int, frame_payload: int, frame_overhead: int) -> int:
    """Bytes on a Fibre Channel link for ``nbytes`` of data in frames, plus the status frame."""
    return Framing(frame_payload, frame_overhead).wire_bytes(nbytes)


class Wiring:
    """LUN places, host ports and paths of one scenario (see the module docstring)."""

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = s = scenario
        array = s.array
        pools = {p.name: (i, p) for i, p in enumerate(array.pools)}
        self.luns: list[LunPlace] = []
        self.luns_by_group: dict[str, list[int]] = {}
        used = dict.fromkeys(pools, 0)
        for gi, (group, size) in enumerate(zip(array.luns, lun_sizes(s), strict=True)):
            pi, pool = pools[group.pool]
            shown = tuple(range(array.ports)) if group.ports == "all" else tuple(group.ports)
            limit = lun_queue_limit(array, group, pool)
            members = []
            for name in expand_names(group.name, group.count):
                index = len(self.luns)
                members.append(index)
                place = LunPlace(
                    index,
                    gi,
                    name,
                    pool,
                    pi,
                    size,
                    used[group.pool],
                    limit,
                    shown,
                    lun_owner(index, array.failed_controller),
                )
                self.luns.append(place)
                used[group.pool] += size
            self.luns_by_group[group.name] = members
        self.host_ports: list[list[HostPort]] = []
        self.split_limit: list[int | None] = []
        self.paths: dict[tuple[int, int], list[PathInfo]] = {}
        """Every path (active or not) per (host group, LUN), in the simulator's order."""
        self.workloads: dict[tuple[int, int], list[WorkloadSpec]] = {}
        for g, host in enumerate(s.hosts):
            ports: list[HostPort] = []
            card = 0
            for hi, hba in enumerate(host.hbas):
                for _ in range(hba.count):
                    for p in range(hba.ports):
                        ports.append(HostPort(len(ports), hi, card, p, hba.speed))
                    card += 1
            self.host_ports.append(ports)
            self.split_limit.append(split_limit(s, g))
            visible = visible_ports(s, host)
            for name in lun_groups_used(s, host.name):
                for li in self.luns_by_group[name]:
                    lun = self.luns[li]
                    pairs = [(hp, a) for hp in ports for a in visible[hp.index] if a in lun.ports]
                    n = len(pairs)
                    paths = []
                    optimized = [self.optimized(a, lun) for _, a in pairs]
                    live = [self.live(a) for _, a in pairs]
                    # ANA (NVMe) and ALUA (SCSI on two controllers): the live optimized
                    # paths, or every live path when none is optimized
                    preferred = [o and up for o, up in zip(optimized, live, strict=True)]
                    candidates = [
                        k for k in range(n) if (preferred[k] if any(preferred) else live[k])
                    ]
                    asymmetric = TRANSPORTS[host.transport].nvme or array.controllers == 2
                    for k, (hp, a) in enumerate(pairs):
                        if asymmetric and host.multipath == "failover":
                            active = k == candidates[failover_path(li, len(candidates))]
                        elif asymmetric:
                            active = k in candidates
                        else:
                            active = host.multipath != "failover" or k == failover_path(li, n)
                        key: tuple[Any, ...] = (
                            (g, hp.index, "lun", li)
                            if host.hbas[hp.hba].queue_target == "lun"
                            else (g, hp.index, "target", a)
                        )
                        paths.append(PathInfo(g, hp.index, a, li, active, optimized[k], key))
                    self.paths[(g, li)] = paths
                    self.workloads[(g, li)] = [
                        w
                        for w in s.workloads
                        if (w.hosts == "all" or host.name in w.hosts)
                        and (w.luns == "all" or name in w.luns)
                    ]

    def optimized(self, array_port: int, lun: LunPlace) -> bool:
        """Whether a path through ``array_port`` to ``lun`` is optimized: the port belongs
        to the LUN's owner, or the array's controllers are symmetric (one controller and no
        ``cross_controller``)."""
        array = self.scenario.array
        if array.controllers == 1 and array.cross_controller is None:
            return True
        return port_controller(array_port) == lun.owner

    def live(self, array_port: int) -> bool:
        """Whether ``array_port`` carries I/O: its controller has not failed, or its ports
        forward to the survivor (``failover: forward``)."""
        array = self.scenario.array
        failed = port_controller(array_port) == array.failed_controller
        return not failed or array.failover == "forward"

    def active(self, group: int, lun: int) -> list[PathInfo]:
        """The paths of (host group, LUN) the multipath policy sends I/O down."""
        return [p for p in self.paths.get((group, lun), []) if p.active]

    def shares(self, group: int, lun: int) -> list[float]:
        """Share of the LUN's I/O each path carries, in path order: spread over the active
        paths (failover and NVMe's ``numa``: one path)."""
        paths = self.paths.get((group, lun), [])
        n = len(paths)
        if n == 1:
            return [1.0]
        host = self.scenario.hosts[group]
        nvme = TRANSPORTS[host.transport].nvme
        if nvme and host.nvme.iopolicy == "numa":  # the first usable path alone
            first = next(i for i, p in enumerate(paths) if p.active)
            return [1.0 if i == first else 0.0 for i in range(n)]
        used = sum(p.active for p in paths)
        return [1.0 / used if p.active else 0.0 for p in paths]

    def commands_per_io(self, group: int, size: int) -> int:
        """Commands one I/O of ``size`` bytes becomes on host group ``group``."""
        return len(split_sizes(size, self.split_limit[group]))
