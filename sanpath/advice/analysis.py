"""Path analysis: routes, active paths and how many commands each can hold.

Everything the static rules compute comes from the scenario alone, through one shared
analysis of its paths (:class:`PathAnalysis`): which HBA port reaches which array port, which
paths a multipath policy keeps active, and how many commands each path can hold under given
:class:`Limits`. Also the searches and fix helpers the rules share.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from sanpath.layout import HostPort, LunPlace, PathInfo, Wiring
from sanpath.spec import TRANSPORTS, Scenario, ScenarioError, WorkloadSpec

INF = math.inf


@dataclass(frozen=True)
class Limits:
    """How to bound the commands on each path when computing loads.

    * ``host_cap``: cap on every host's ``lun_queue_depth`` (the fan-in fix);
    * ``depth_floor``: raise host and HBA depths to at least this per LUN path;
    * ``unlimited``: ignore host and HBA depth settings (only the workload bounds);
    * ``full_load``: use the configured depths, the workload only where nothing is set (the
      vendor fan-in arithmetic); otherwise the workload's own outstanding I/Os also bound.
    """

    host_cap: float = INF
    depth_floor: float = 0.0
    unlimited: bool = False
    full_load: bool = True


class PathAnalysis:
    """Every path of a scenario and the commands each can hold, computed without simulating.

    The routes are the scenario's wiring (:class:`sanpath.layout.wiring.Wiring`), the same the
    simulator builds its queues along: for each host instance and LUN, every HBA port (in
    card order) times every array port it sees through the zoning that presents the LUN.
    With ``failover`` only path ``lun index mod n`` carries I/O; every other policy spreads a
    LUN's I/O evenly over its paths.
    """

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = scenario
        wiring = Wiring(scenario)
        self.luns: list[LunPlace] = wiring.luns
        self.luns_by_group: dict[str, list[int]] = wiring.luns_by_group
        self.host_ports: list[list[HostPort]] = wiring.host_ports
        self.routes: list[PathInfo] = []
        self.by_pair: dict[tuple[int, int], list[int]] = {}
        """Route indices (active and standby) per (host group, LUN)."""
        for pair, paths in wiring.paths.items():
            self.by_pair[pair] = list(range(len(self.routes), len(self.routes) + len(paths)))
            self.routes.extend(paths)
        self.workloads: dict[tuple[int, int], list[WorkloadSpec]] = wiring.workloads
        self.split_limit: list[int | None] = wiring.split_limit

    # -- per path ---------------------------------------------------------------------------

    def commands_per_io(self, g: int, size: int) -> int:
        """Commands one I/O of ``size`` bytes becomes on host group ``g``."""
        limit = self.split_limit[g]
        return 1 if limit is None else max(1, -(-size // limit))

    def command_sizes(self, g: int, w: WorkloadSpec) -> list[tuple[int, float]]:
        """(command size, share of commands) the workload sends on host group ``g``."""
        out: dict[int, float] = {}
        for size, weight in w.size_mix:
            n = self.commands_per_io(g, size)
            limit = self.split_limit[g]
            if n == 1 or limit is None:
                out[size] = out.get(size, 0.0) + weight
            else:
                full, rest = divmod(size, limit)
                out[limit] = out.get(limit, 0.0) + weight * full
                if rest:
                    out[rest] = out.get(rest, 0.0) + weight
        total = sum(out.values())
        return [(size, share / total) for size, share in sorted(out.items())]

    def demand(self, g: int, li: int, largest: bool = True) -> float:
        """Commands one host instance of group ``g`` keeps outstanding on LUN ``li``.

        Closed loops: threads x outstanding x commands per I/O (of the largest I/O when
        ``largest``, else the mean over the size mix). Open loops have no fixed number: inf.
        """
        total = 0.0
        for w in self.workloads.get((g, li), []):
            if not w.closed:
                return INF
            if largest:
                per_io = float(max(self.commands_per_io(g, size) for size, _ in w.size_mix))
            else:
                per_io = sum(weight * self.commands_per_io(g, size) for size, weight in w.size_mix)
            total += w.threads * w.outstanding_per_lun * per_io
        return total

    def active(self, g: int, li: int) -> list[int]:
        """Indices of the active routes of (host group, LUN)."""
        return [r for r in self.by_pair.get((g, li), []) if self.routes[r].active]

    def route_loads(self, limits: Limits = Limits()) -> list[float]:
        """Commands each route can hold, per host instance, under ``limits``."""
        s = self.scenario
        loads = [0.0] * len(self.routes)
        requests: dict[int, float] = {}
        pools: dict[tuple[Any, ...], list[int]] = {}
        for (g, li), _ in self.by_pair.items():
            active = self.active(g, li)
            host = s.hosts[g]
            if not active or TRANSPORTS[host.transport].nvme:  # NVMe: no SCSI queue to fill
                continue
            depth = _depth(host.lun_queue_depth, limits)
            depth = min(depth, limits.host_cap)
            share = self.demand(g, li, largest=limits.full_load) / len(active)
            x = depth if limits.full_load else min(depth, share)
            for r in active:
                requests[r] = x
                pools.setdefault(self.routes[r].slot_key, []).append(r)
        for key, members in pools.items():
            g, port = key[0], key[1]
            hba = s.hosts[g].hbas[self.host_ports[g][port].hba]
            capacity = _depth(hba.queue_depth, limits)
            if key[2] == "target" and not limits.unlimited and hba.queue_depth is not None:
                luns_here = len({self.routes[r].lun for r in members})
                capacity = max(float(hba.queue_depth), limits.depth_floor * luns_here)
            shares = _fair_share([requests[r] for r in members], capacity)
            for r, y in zip(members, shares, strict=True):
                loads[r] = y
        if limits.full_load:
            for r, y in enumerate(loads):
                if math.isinf(y):
                    route = self.routes[r]
                    n = len(self.active(route.group, route.lun))
                    loads[r] = self.demand(route.group, route.lun) / n
        return loads

    # -- aggregates -------------------------------------------------------------------------

    def port_loads(self, loads: Sequence[float]) -> dict[int, float]:
        """Commands per array port (over every host instance)."""
        out = dict.fromkeys(range(self.scenario.array.ports), 0.0)
        for r, route in enumerate(self.routes):
            if route.active:
                out[route.array_port] += self.scenario.hosts[route.group].count * loads[r]
        return out

    def lun_loads(self, loads: Sequence[float]) -> dict[int, float]:
        """Commands per LUN instance (over every host instance)."""
        out = dict.fromkeys(range(len(self.luns)), 0.0)
        for r, route in enumerate(self.routes):
            if route.active:
                out[route.lun] += self.scenario.hosts[route.group].count * loads[r]
        return out

    def traffic(self, policy_override: str | None = None) -> list[float]:
        """Expected share of bytes per route and host instance (for balance).

        Each (host, LUN) pair carries its workloads' bytes (closed loop: threads x
        outstanding x mean size; open loop: rate / LUNs x mean size), split evenly over its
        active paths (over all its paths with ``policy_override`` other than failover).
        """
        weights = [0.0] * len(self.routes)
        for (g, li), indices in self.by_pair.items():
            bytes_ = 0.0
            for w in self.workloads.get((g, li), []):
                if w.closed:
                    bytes_ += w.threads * w.outstanding_per_lun * w.mean_block_size
                else:
                    assert w.rate is not None
                    n_luns = max(1, self._luns_of(g, w))
                    bytes_ += w.rate / n_luns * w.mean_block_size
            if policy_override is not None and policy_override != "failover":
                chosen = indices
            else:
                chosen = [r for r in indices if self.routes[r].active]
            for r in chosen:
                weights[r] = bytes_ / len(chosen)
        return weights

    def _luns_of(self, g: int, w: WorkloadSpec) -> int:
        return sum(
            1 for (gg, _), ws in self.workloads.items() if gg == g and any(x is w for x in ws)
        )


# --------------------------------------------------------------------------------------
# Loads and searches
# --------------------------------------------------------------------------------------


def fan_in(scenario: Scenario, limits: Limits = Limits()) -> dict[int, float]:
    """Commands each array port can be sent under ``limits`` (see :class:`PathAnalysis`)."""
    pa = PathAnalysis(scenario)
    return pa.port_loads(pa.route_loads(limits))


def _depth(setting: int | None, limits: Limits) -> float:
    """A host or HBA depth setting under ``limits`` (inf: no bound)."""
    if limits.unlimited or setting is None:
        return INF
    return max(float(setting), float(limits.depth_floor))


def _fair_share(demands: Sequence[float], capacity: float) -> list[float]:
    """Max-min fair split of ``capacity`` among ``demands`` (inf allowed in both)."""
    if math.isinf(capacity) or sum(demands) <= capacity:
        return list(demands)
    order = sorted(range(len(demands)), key=lambda i: demands[i])
    out = [0.0] * len(demands)
    left = capacity
    for pos, i in enumerate(order):
        share = left / (len(order) - pos)
        if demands[i] <= share:
            out[i] = demands[i]
            left -= demands[i]
        else:
            for j in order[pos:]:
                out[j] = share
            break
    return out


def largest_cap(ok: Callable[[float], bool], hi: int = 1 << 16) -> int | None:
    """Largest integer q in [1, hi] with ``ok(q)`` (ok must be monotone); None if none."""
    if not ok(1):
        return None
    lo = 1
    if ok(hi):
        return hi
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            lo = mid
        else:
            hi = mid
    return lo


def smallest(ok: Callable[[float], bool], hi: int = 1 << 16) -> int | None:
    """Smallest integer q in [1, hi] with ``ok(q)`` (monotone); None if none."""
    if not ok(hi):
        return None
    lo = 0
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if ok(mid):
            hi = mid
        else:
            lo = mid
    return hi


def commands_per_io_mean(pa: PathAnalysis, g: int, w: WorkloadSpec) -> float:
    """Mean commands one I/O of workload ``w`` becomes on host group ``g`` (over its sizes)."""
    return sum(weight * pa.commands_per_io(g, size) for size, weight in w.size_mix)


# --------------------------------------------------------------------------------------
# Fixes: building and validating overrides
# --------------------------------------------------------------------------------------


def validated(s: Scenario, fix: Mapping[str, Any]) -> Scenario | None:
    """The fixed scenario, or None when the fix does not validate."""
    try:
        return s.with_overrides(fix)
    except ScenarioError:
        return None


def queue_depth_key(s: Scenario, g: int) -> str:
    """The key that sets host group ``g``'s per-LUN queue depth: ``lun_queue_depth``, or an
    iSCSI host's ``iscsi.cmd_per_lun`` where its ``iscsi`` section is written."""
    host = s.hosts[g]
    if host.transport == "iscsi" and host.iscsi is not None:
        return f"hosts.{g}.iscsi.cmd_per_lun"
    return f"hosts.{g}.lun_queue_depth"


def storport(s: Scenario, g: int) -> bool:
    """True when host group ``g`` is a Windows host (its QUEUE FULL throttle is Storport's):
    its per-LUN depth is the HBA miniport's QueueDepth, with no separate LUN setting."""
    return s.hosts[g].qfull.throttle == "storport"


def cap_fix(s: Scenario, groups: Iterable[int], q: int) -> dict[str, Any]:
    """Overrides lowering the per-LUN queue depth of the host groups above ``q`` to ``q``:
    ``lun_queue_depth`` (``iscsi.cmd_per_lun`` on iSCSI), or on a Windows (Storport) host
    the HBA QueueDepth of each HBA that counts per LUN."""
    fix: dict[str, Any] = {}
    for g in sorted(set(groups)):
        host = s.hosts[g]
        if storport(s, g) and host.lun_queue_depth is None:
            for j, hba in enumerate(host.hbas):
                if hba.queue_target == "lun" and (hba.queue_depth is None or hba.queue_depth > q):
                    fix[f"hosts.{g}.hbas.{j}.queue_depth"] = q
            continue
        current = host.lun_queue_depth
        if current is None or current > q:
            fix[queue_depth_key(s, g)] = q
    return fix
