"""``sanpath check``: review a storage proposal before it goes live.

A proposal is an ordinary scenario: hosts and HBAs with their queue settings, the zoning, the
array with its ports, cache and RAID pools, and the load the proposal is meant to carry.
:func:`check` reads it and returns :class:`Finding` objects. Each finding says what is wrong,
with the numbers computed from the scenario, why it matters (the mechanism), where the rule
comes from (a vendor formula or a published write-up), and which settings to change (as
dotted overrides that :meth:`~sanpath.scenario.Scenario.with_overrides` accepts).

With ``simulate=True`` each error or warning that carries a fix gets a *second opinion*: the
proposal and the fixed proposal are simulated with the same seed and a shortened run, and
the headline figures of both are attached, so the advice comes with its price. The
proposal itself is simulated once and reused.

The rules are plain functions ``(scenario, options) -> list[Finding]`` registered in
:data:`RULES`; ``docs/check.md`` documents each one. Everything the static rules compute
comes from the scenario alone, through one shared analysis of its paths
(:class:`PathAnalysis`): which HBA port reaches which array port, which paths a multipath
policy keeps active, and how many commands each path can hold.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sanpath import units
from sanpath.scenario import (
    HbaSpec,
    HddSpec,
    HostSpec,
    PoolSpec,
    Scenario,
    ScenarioError,
    SsdSpec,
    TextbookDriveSpec,
    WorkloadSpec,
    expand_names,
    load_scenario,
    lun_groups_used,
    lun_queue_limit,
    visible_ports,
)

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
_RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}

INF = math.inf

FAN_IN_WARNING = 0.8
"""Fan-in above this share of the port queue is a warning (EMC plans with 1600 of 2048 slots,
78%)."""
LUN_QUEUE_WARNING = 0.8
"""Commands per LUN above this share of the array's per-LUN limit are a warning."""
IMBALANCE_WARNING = 1.5
"""Busiest port carrying this many times the mean load of the ports in use is a warning."""
LINK_WARNING = 0.8
"""Offered bandwidth above this share of the links' capacity is a warning."""
RAID_WRITE_WARNING = 0.5
"""RAID 5/6 pools whose writes are at least this share of the I/Os get a warning."""
RAID_WRITE_INFO = 0.3
"""... and at least this share an info finding."""
DRIVER_QUEUE_LIMIT = 255
"""Largest per-LUN queue depth Storport (without extended SRBs) and HP-UX accept."""
VERDICT_TOLERANCE = 0.05
"""Relative change below which a second opinion reports no clear difference."""
DEFAULT_CHECK_IOS = 20_000
"""Measured I/Os per simulated run in a second opinion."""
SPTF_EXPONENT = 0.27
"""Drive throughput grows as q**0.27 with q commands queued (ideal SPTF, parameters 1.5)."""

FC_SPEEDS: tuple[str, ...] = ("1GFC", "2GFC", "4GFC", "8GFC", "16GFC", "32GFC", "64GFC")


# --------------------------------------------------------------------------------------
# Findings, second opinions, reports
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class SecondOpinion:
    """The proposal and its fixed version, simulated with the same seed.

    ``before`` and ``after`` hold ``iops``, ``mb_per_s``, ``latency_ms_mean``,
    ``latency_ms_p99``, ``latency_ms_exchange`` (mean time after the HBA has taken the command:
    the time a switch probe sees, without host and HBA queueing), ``qfull`` and
    ``commands_per_io``. ``metric`` is the figure the finding is about and ``verdict`` says
    whether the simulation moved it the way the finding predicts.
    """

    before: dict[str, float]
    after: dict[str, float]
    fix: dict[str, Any]
    metric: str | None
    better: Literal["higher", "lower"]
    verdict: Literal["agrees", "no clear difference", "disagrees", "not judged"]
    ios: int
    seed: int
    error: str | None = None

    @property
    def not_worse(self) -> bool:
        """True unless the simulation moved the finding's metric the wrong way."""
        return self.verdict != "disagrees"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "fix": _jsonable(self.fix),
            "metric": self.metric,
            "better": self.better,
            "verdict": self.verdict,
            "ios": self.ios,
            "seed": self.seed,
            "before": dict(self.before),
            "after": dict(self.after),
            "error": self.error,
        }


@dataclass(frozen=True)
class Finding:
    """One thing a rule found in a proposal.

    ``numbers`` holds every figure the message quotes; ``fix`` is a set of dotted overrides
    (``{"hosts.0.lun_queue_depth": 25}``) that :meth:`Scenario.with_overrides` accepts, or
    None when the remedy is not a setting (buy another port, change the application).
    """

    rule: str
    severity: Severity
    title: str
    message: str
    mechanism: str
    source: str
    numbers: dict[str, Any] = field(default_factory=dict)
    fix: dict[str, Any] | None = None
    fix_text: str = ""
    second_opinion: SecondOpinion | None = None

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "title": self.title,
            "message": self.message,
            "mechanism": self.mechanism,
            "source": self.source,
            "numbers": _jsonable(self.numbers),
            "fix": _jsonable(self.fix) if self.fix is not None else None,
            "fix_text": self.fix_text,
            "second_opinion": (
                self.second_opinion.to_dict() if self.second_opinion is not None else None
            ),
        }


@dataclass(frozen=True)
class CheckReport:
    """Every finding for one proposal, most severe first, with optional simulations."""

    scenario: str
    findings: tuple[Finding, ...]
    latency_target: float | None = None
    simulated: bool = False
    proposal: dict[str, float] | None = None
    combined: SecondOpinion | None = None
    ios: int | None = None

    @property
    def worst_severity(self) -> Severity | None:
        """The most severe level among the findings (None when there are none)."""
        if not self.findings:
            return None
        worst = max(self.findings, key=lambda f: _RANK[f.severity])
        return worst.severity

    def at_least(self, severity: Severity) -> list[Finding]:
        """Findings at ``severity`` or worse."""
        return [f for f in self.findings if _RANK[f.severity] >= _RANK[severity]]

    def by_rule(self, rule_id: str) -> list[Finding]:
        """Findings of one rule (by full id, ``SP001-fan-in``, or its number, ``SP001``)."""
        return [f for f in self.findings if f.rule == rule_id or f.rule.split("-")[0] == rule_id]

    def counts(self) -> dict[str, int]:
        """Number of findings per severity."""
        return {sev: sum(1 for f in self.findings if f.severity == sev) for sev in SEVERITIES}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (what ``sanpath check --json`` prints)."""
        return {
            "scenario": self.scenario,
            "worst_severity": self.worst_severity,
            "counts": self.counts(),
            "latency_target_ms": (
                self.latency_target * 1e3 if self.latency_target is not None else None
            ),
            "simulated": self.simulated,
            "ios": self.ios,
            "proposal": dict(self.proposal) if self.proposal is not None else None,
            "combined": self.combined.to_dict() if self.combined is not None else None,
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    def text(self, source: str | None = None) -> str:
        """The human-readable report."""
        return _render_text(self, source)


# --------------------------------------------------------------------------------------
# Rules
# --------------------------------------------------------------------------------------


@dataclass
class CheckOptions:
    """Options the rules read; ``latency_target`` in seconds (None: no latency rule)."""

    latency_target: float | None = None
    _cache: dict[int, PathAnalysis] = field(default_factory=dict, repr=False, compare=False)

    def paths(self, scenario: Scenario) -> PathAnalysis:
        """The (cached) path analysis of ``scenario``."""
        key = id(scenario)
        found = self._cache.get(key)
        if found is None or found.scenario is not scenario:
            found = self._cache[key] = PathAnalysis(scenario)
        return found


RuleFunc = Callable[[Scenario, CheckOptions], list[Finding]]


@dataclass(frozen=True)
class Rule:
    """A registered rule: stable id, the most severe level it reports, and its check.

    ``metric`` (with ``better``) is the simulated figure a fix should improve; a rule with
    ``simulate=False`` gets no second opinion (its concern, such as redundancy or a driver's
    accepted range, is not something a performance run measures).
    """

    id: str
    severity: Severity
    title: str
    func: RuleFunc
    metric: str | None
    better: Literal["higher", "lower"]
    simulate: bool

    @property
    def doc(self) -> str:
        """The rule's docstring."""
        return textwrap.dedent(self.func.__doc__ or "").strip()


RULES: list[Rule] = []
"""Every rule, in report order."""


def rule(
    rule_id: str,
    severity: Severity,
    title: str,
    metric: str | None = None,
    better: Literal["higher", "lower"] = "higher",
    simulate: bool = True,
) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule function under ``rule_id``."""

    def register(func: RuleFunc) -> RuleFunc:
        if any(r.id == rule_id for r in RULES):
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES.append(Rule(rule_id, severity, title, func, metric, better, simulate))
        return func

    return register


def rule_by_id(rule_id: str) -> Rule:
    """The rule with id ``rule_id`` (full id or the ``SPnnn`` part)."""
    for r in RULES:
        if r.id == rule_id or r.id.split("-")[0] == rule_id:
            return r
    raise KeyError(f"no rule {rule_id!r}; rules: {', '.join(r.id for r in RULES)}")


# --------------------------------------------------------------------------------------
# Path analysis: routes, active paths and how many commands each can hold
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class LunInfo:
    """One LUN instance as the array sees it."""

    index: int
    group: int
    name: str
    pool: PoolSpec
    pool_index: int
    limit: int | None
    ports: tuple[int, ...]


@dataclass(frozen=True)
class HostPortInfo:
    """One HBA port of a host (``index`` counts over every card, as zoning does)."""

    index: int
    hba: int
    card: int
    speed: float | None


@dataclass(frozen=True)
class RouteInfo:
    """One path of one host instance to one LUN; ``active`` per the multipath policy."""

    group: int
    port: int
    array_port: int
    lun: int
    active: bool
    slot_key: tuple[Any, ...]


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

    Routes follow the engine's construction (``sanpath.topology``): for each host instance
    and LUN, every HBA port (in card order) times every array port it sees through the
    zoning that presents the LUN. With ``failover`` only path ``lun index mod n`` carries
    I/O; every other policy spreads a LUN's I/O evenly over its paths.
    """

    def __init__(self, scenario: Scenario) -> None:
        self.scenario = s = scenario
        array = s.array
        pools = {p.name: (i, p) for i, p in enumerate(array.pools)}
        self.luns: list[LunInfo] = []
        self.luns_by_group: dict[str, list[int]] = {}
        for gi, group in enumerate(array.luns):
            pi, pool = pools[group.pool]
            ports = tuple(range(array.ports)) if group.ports == "all" else tuple(group.ports)
            limit = lun_queue_limit(array, group, pool)
            members = []
            for name in expand_names(group.name, group.count):
                members.append(len(self.luns))
                self.luns.append(LunInfo(len(self.luns), gi, name, pool, pi, limit, ports))
            self.luns_by_group[group.name] = members
        self.host_ports: list[list[HostPortInfo]] = []
        self.routes: list[RouteInfo] = []
        self.by_pair: dict[tuple[int, int], list[int]] = {}
        """Route indices (active and standby) per (host group, LUN)."""
        self.workloads: dict[tuple[int, int], list[WorkloadSpec]] = {}
        self.split_limit: list[int | None] = []
        for g, host in enumerate(s.hosts):
            ports: list[HostPortInfo] = []
            card = 0
            for hi, hba in enumerate(host.hbas):
                for _ in range(hba.count):
                    for _p in range(hba.ports):
                        ports.append(HostPortInfo(len(ports), hi, card, hba.speed))
                    card += 1
            self.host_ports.append(ports)
            limits = [x for x in [host.max_io_size, *(h.max_transfer for h in host.hbas)] if x]
            self.split_limit.append(min(limits) if limits else None)
            visible = visible_ports(s, host)
            for name in lun_groups_used(s, host.name):
                for li in self.luns_by_group[name]:
                    lun = self.luns[li]
                    pairs = [
                        (hp, a) for hp in ports for a in visible[hp.index] if a in lun.ports
                    ]
                    n = len(pairs)
                    indices = []
                    for k, (hp, a) in enumerate(pairs):
                        active = host.multipath != "failover" or k == li % n
                        hba_spec = host.hbas[hp.hba]
                        key: tuple[Any, ...] = (
                            (g, hp.index, "lun", li)
                            if hba_spec.queue_target == "lun"
                            else (g, hp.index, "target", a)
                        )
                        indices.append(len(self.routes))
                        self.routes.append(RouteInfo(g, hp.index, a, li, active, key))
                    self.by_pair[(g, li)] = indices
                    self.workloads[(g, li)] = [
                        w
                        for w in s.workloads
                        if (w.hosts == "all" or host.name in w.hosts)
                        and (w.luns == "all" or lun.name.split("[")[0] in w.luns)
                        and (w.luns == "all" or self.luns[li].group == self._group_index(name))
                    ]

    def _group_index(self, name: str) -> int:
        for i, g in enumerate(self.scenario.array.luns):
            if g.name == name:
                return i
        raise KeyError(name)

    # -- per path ---------------------------------------------------------------------------

    def commands_per_io(self, g: int, size: int) -> int:
        """Commands one I/O of ``size`` bytes becomes on host group ``g``."""
        limit = self.split_limit[g]
        return 1 if limit is None else max(1, -(-size // limit))

    def command_sizes(self, g: int, w: WorkloadSpec) -> list[tuple[int, float]]:
        """(command size, share of commands) the workload sends on host group ``g``."""
        out: dict[int, float] = {}
        for size, weight in w.block_size:
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
                per_io = float(max(self.commands_per_io(g, size) for size, _ in w.block_size))
            else:
                per_io = sum(
                    weight * self.commands_per_io(g, size) for size, weight in w.block_size
                )
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
            if not active:
                continue
            host = s.hosts[g]
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
            capacity = _depth(hba.queue_depth, limits, floor_scale=1.0)
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
        return sum(1 for (gg, li), ws in self.workloads.items() if gg == g and w in ws)

    def array_ports_in_use(self) -> list[int]:
        """Array ports with at least one path (active or standby) from some host."""
        return sorted({r.array_port for r in self.routes})


def _depth(setting: int | None, limits: Limits, floor_scale: float = 1.0) -> float:
    if limits.unlimited or setting is None:
        return INF
    return max(float(setting), limits.depth_floor * floor_scale)


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


def _largest_cap(ok: Callable[[float], bool], hi: int = 1 << 16) -> int | None:
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


def _smallest(ok: Callable[[float], bool], hi: int = 1 << 16) -> int | None:
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


# --------------------------------------------------------------------------------------
# Small helpers for messages and fixes
# --------------------------------------------------------------------------------------


def _n(x: float) -> str:
    """A count for a message: whole numbers without decimals, others with one."""
    if math.isinf(x):
        return "unbounded"
    if abs(x - round(x)) < 1e-9:
        return f"{round(x):d}"
    return f"{x:.1f}"


def _pct(x: float) -> str:
    return "unbounded" if math.isinf(x) else f"{100 * x:.0f}%"


def _mb(x: float | None) -> str:
    return "unlimited" if x is None or math.isinf(x) else f"{x / 1e6:,.0f} MB/s"


def _size(n: int) -> str:
    return units.format_bytes(int(n))


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _valid(s: Scenario, fix: Mapping[str, Any]) -> Scenario | None:
    """The fixed scenario, or None when the fix does not validate."""
    try:
        return s.with_overrides(fix)
    except ScenarioError:
        return None


def _set_args(fix: Mapping[str, Any]) -> str:
    parts = []
    for key, value in fix.items():
        shown = json.dumps(value) if isinstance(value, dict | list) else value
        if shown is None:
            shown = "null"
        parts.append(f"--set {key}={shown}")
    return " ".join(parts)


def _hosts_touching(pa: PathAnalysis, route_filter: Callable[[RouteInfo], bool]) -> list[int]:
    return sorted({r.group for r in pa.routes if r.active and route_filter(r)})


def _cap_fix(s: Scenario, groups: Iterable[int], q: int) -> dict[str, Any]:
    """Overrides lowering ``lun_queue_depth`` of the host groups above ``q`` to ``q``."""
    fix: dict[str, Any] = {}
    for g in sorted(set(groups)):
        current = s.hosts[g].lun_queue_depth
        if current is None or current > q:
            fix[f"hosts.{g}.lun_queue_depth"] = q
    return fix


def _host_label(host: HostSpec) -> str:
    return host.name if host.count == 1 else f"{host.name} ({host.count} hosts)"


# --------------------------------------------------------------------------------------
# Sources (cited in findings; see /work/shared/reference/parameters.md for the full record)
# --------------------------------------------------------------------------------------

SRC_FAN_IN = (
    "EMC Host Connectivity Guide (QLogic HBAs, Windows), 'Understanding queue depth': "
    "QD = port queue / (initiators x LUNs), port queue 1600; NetApp ONTAP SAN configuration, "
    "'Calculate queue depth': initiators x 128 must stay under 2,048 per target port, else "
    "2,048 / initiators; Hitachi README_queue_depth: QD = 2048 / LUs per port, at most 32. "
    "sanpath rule: the sum over paths of the per-path depth must fit the port queue "
    "(parameters.md 1.4)."
)
SRC_LUN_QUEUE = (
    "EMC CLARiiON/VNX per-LUN limit 32 + 14 x data drives and Hitachi's 32 per LUN, as given "
    "by Lonny Niederstadt in the comments of Linchi Shea's 'QueueDepth setting of an HBA' "
    "(sqlblog.com, 2007); Hitachi README_queue_depth (parameters.md 1.4)."
)
SRC_SPLIT = (
    "Lonny Niederstadt, 'MSSQL Backups - check HBA maximum transfer size' (2013): a QLogic "
    "512 KiB default split 1 MiB backup I/Os (raised with qlfcx64 -tsize /fc /set 2048); "
    "Storport's default MaximumSGList of 17 gives 64 KiB; fragments = "
    "ceil(I/O size / min(OS max I/O, HBA max transfer)) (parameters.md 1.3 and note 2)."
)
SRC_PCIE = (
    "Alexei Khalyako, SQLCAT 'Fast Track: improving performance through correct LUN mapping' "
    "(2012): PCIe x4 v1 carries about 1 GB/s and x4 v2 about 2 GB/s, so a dual-port 8 Gb "
    "HBA belongs in an x4 v2 slot or better; PCIe rates per lane (parameters.md 1.1)."
)
SRC_LINK = (
    "Fibre Channel payload rates per direction after line encoding (parameters.md 1.2; "
    "docs/scenario.md, named FC speeds)."
)
SRC_BALANCE = (
    "Alexei Khalyako, SQLCAT Fast Track LUN mapping (2012): uneven LUN throughput until the "
    "mapping was corrected (4.7 to 5.7 GB/s); parameters.md 1.8 (multipath policies)."
)
SRC_FAN_OUT = (
    "Alexei Khalyako, SQLCAT Fast Track LUN mapping (2012): port A of every HBA was mapped "
    "to port A of every storage enclosure; the vendor's guidance is one HBA port to one "
    "enclosure port. Fixing it raised throughput from 4.7 to 5.7 GB/s."
)
SRC_FAILOVER = (
    "Microsoft MSDSM 'Fail Over Only' and VMware/Broadcom KB 2069356 (round robin every 1000 "
    "I/Os acts like one path), parameters.md 1.8; HP-UX 11i v3 white paper, Table 1: 1 KiB "
    "reads at max_q_depth 4 gave 251,000 IOPS with multipathing off, 294,000 round-robin."
)
SRC_SINGLE_PATH = (
    "Alexei Khalyako, SQLCAT Fast Track LUN mapping (2012): two paths per HBA, one of them "
    "standing by under MPIO 'Failover Only'; multipath policies, parameters.md 1.8."
)
SRC_SHALLOW = (
    "Linchi Shea, 'The QueueDepth setting of an HBA' (sqlblog.com, 2007): setting it too low "
    "seriously reduces throughput; HP-UX 11i v3 white paper: max_q_depth 8 to 16 raised IOPS; "
    "drive command queueing gains (ideal SPTF ~ q^0.27), parameters.md 1.5."
)
SRC_LATENCY = (
    "NetApp ONTAP 'Calculate queue depth': needed queue depth = IOPS x response time "
    "(Little's law); Ron Lee, Virtual Instruments (2012): exchange completion time rose "
    "from about 1 ms at queue depth 4 to 200 ms peaks at 32 for 5% more throughput."
)
SRC_RAID = (
    "RAID write penalties: RAID 10 two drive writes, RAID 5 four drive I/Os, RAID 6 six per "
    "small random write (crucial.com.au 2010; git.xyzzy.ee 'RAID penalties'), "
    "parameters.md 1.6."
)
SRC_WRITE_ASIDE = (
    "Lonny Niederstadt (2013): VNX write-aside of 2048 blocks (1 MiB) sends larger writes "
    "past the write cache, and pool LUNs cannot change it; EMC CLARiiON best practices "
    "h5773 (parameters.md 1.6)."
)
SRC_DRIVER = (
    "Microsoft StorPortSetDeviceQueueDepth: at most 255 per LUN unless the miniport supports "
    "extended SRBs; HP-UX scsi_max_qdepth / max_q_depth: at most 255 (parameters.md 1.3)."
)


# --------------------------------------------------------------------------------------
# SP001 fan-in
# --------------------------------------------------------------------------------------


def fan_in(scenario: Scenario, limits: Limits = Limits()) -> dict[int, float]:
    """Commands each array port can be sent under ``limits`` (see :class:`PathAnalysis`)."""
    pa = PathAnalysis(scenario)
    return pa.port_loads(pa.route_loads(limits))


def safe_host_queue_depth(scenario: Scenario, share: float = 1.0) -> int | None:
    """Largest host ``lun_queue_depth`` cap keeping every port's fan-in within ``share`` of
    its queue (None when even 1 is too much, or the ports have no queue limit: then the
    largest value searched, 65536)."""
    pa = PathAnalysis(scenario)
    return _safe_port_cap(pa, share)


def _safe_port_cap(pa: PathAnalysis, share: float) -> int | None:
    pq = pa.scenario.array.port_queue_depth
    if pq is None:
        return 1 << 16

    def ok(q: float) -> bool:
        loads = pa.port_loads(pa.route_loads(Limits(host_cap=q)))
        return max(loads.values()) <= share * pq

    return _largest_cap(ok)


@rule("SP001-fan-in", "error", "port queue fan-in", metric="qfull", better="lower")
def check_fan_in(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Commands that can reach one array port against the port's queue.

    For each array port, add up over host instances, over their HBA ports zoned to it and
    over the LUNs presented on it that their workloads use, the commands each active path
    can hold: min(host lun_queue_depth, HBA queue_depth per LUN or shared per target port),
    the workload's outstanding commands where neither is set. Error above the port queue
    (QUEUE FULL is certain once the hosts are busy), warning above 80% of it.
    """
    pq = s.array.port_queue_depth
    if pq is None:
        return []
    pa = options.paths(s)
    full = pa.port_loads(pa.route_loads(Limits()))
    at_load = pa.port_loads(pa.route_loads(Limits(full_load=False)))
    over = {a: x for a, x in full.items() if x > FAN_IN_WARNING * pq}
    if not over:
        return []
    worst = max(over, key=lambda a: over[a])
    total = full[worst]
    severity: Severity = "error" if total > pq else "warning"
    # vendor formulas for the worst port
    loads = pa.route_loads(Limits())
    on_port = [r for r, route in enumerate(pa.routes) if route.active and route.array_port == worst]
    initiators = 0
    lines = []
    groups = sorted({pa.routes[r].group for r in on_port})
    for g in groups:
        host = s.hosts[g]
        mine = [r for r in on_port if pa.routes[r].group == g]
        ports = {pa.routes[r].port for r in mine}
        initiators += host.count * len(ports)
        per_instance = sum(loads[r] for r in mine)
        lines.append(
            f"{_host_label(host)}: {host.count} x {len(mine)} active LUN path(s) x "
            f"{_n(per_instance / len(mine))} commands = {_n(host.count * per_instance)}"
        )
    luns_on_port = len({pa.routes[r].lun for r in on_port})
    emc = pq // max(1, initiators * luns_on_port)
    netapp = min(128, pq // max(1, initiators))
    hitachi = min(32, pq // max(1, luns_on_port))
    safe = _safe_port_cap(pa, 1.0)
    planning = _safe_port_cap(pa, FAN_IN_WARNING)
    target = safe if severity == "error" else planning
    numbers: dict[str, Any] = {
        "port": worst,
        "port_queue_depth": pq,
        "fan_in": total,
        "fan_in_at_workload": at_load[worst],
        "utilization": total / pq,
        "ports_over_threshold": sorted(over),
        "initiators": initiators,
        "luns_on_port": luns_on_port,
        "safe_host_queue_depth": safe,
        "planning_host_queue_depth": planning,
        "emc_queue_depth": emc,
        "netapp_initiator_queue_depth": netapp,
        "hitachi_queue_depth": hitachi,
    }
    limit_word = "exceeds" if severity == "error" else "is over 80% of"
    message = (
        f"With every path full, array port {worst} can be sent {_n(total)} commands, "
        f"{_pct(total / pq)} of its {pq}-slot queue ({'; '.join(lines)}). "
        f"The proposal's own workload would put {_n(at_load[worst])} there. "
        f"Ports over 80%: {', '.join(map(str, sorted(over)))}. "
        f"Vendor arithmetic for this port ({initiators} initiator port(s), {luns_on_port} "
        f"LUN(s)): EMC {pq} / ({initiators} x {luns_on_port}) = {emc} per LUN; NetApp "
        f"{netapp} per initiator; Hitachi {pq} / {luns_on_port} LUNs, at most 32 = {hitachi}."
    )
    fix: dict[str, Any] | None = None
    if target is not None:
        fix = _cap_fix(s, _hosts_touching(pa, lambda r: r.array_port in over), target) or None
        fix_text = (
            f"Cap every host's per-LUN queue depth at {target}: the largest uniform value that "
            f"keeps every port within {'its queue' if severity == 'error' else '80% of its queue'}"
            f" (the port-queue bound is {safe}, the 80% planning bound {planning}). "
            "Otherwise zone the hosts over more array ports."
        )
    else:
        fix_text = (
            "Even one command per LUN path overflows the port: spread the hosts over more "
            "array ports or present fewer LUNs per port."
        )
    return [
        Finding(
            rule="SP001-fan-in",
            severity=severity,
            title=f"Array port {worst} fan-in {_n(total)} {limit_word} its queue of {pq}",
            message=message,
            mechanism=(
                "Every initiator may keep its queue depth of commands in flight on every LUN "
                "path, and all of them share the port's command slots. When the sum is larger, "
                "the port answers QUEUE FULL and the hosts back off, which stalls I/O and "
                "stretches the latency tail."
            ),
            source=SRC_FAN_IN,
            numbers=numbers,
            fix=fix,
            fix_text=fix_text,
        )
    ]


# --------------------------------------------------------------------------------------
# SP002 per-LUN limit
# --------------------------------------------------------------------------------------


@rule("SP002-lun-queue", "error", "array per-LUN queue limit", metric="qfull", better="lower")
def check_lun_queue(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Commands the hosts can send to one LUN against the array's per-LUN limit.

    For each LUN group with a limit (an integer, or CLARiiON/VNX 32 + 14 x data drives),
    add the commands every host's active paths to one LUN can hold (as for the fan-in).
    Error above the limit: the array answers QUEUE FULL; warning above 80%.
    """
    pa = options.paths(s)
    full = pa.lun_loads(pa.route_loads(Limits()))
    findings = []
    for gi, group in enumerate(s.array.luns):
        members = pa.luns_by_group[group.name]
        limit = pa.luns[members[0]].limit
        if limit is None:
            continue
        worst = max(members, key=lambda li: full[li])
        total = full[worst]
        if total <= LUN_QUEUE_WARNING * limit:
            continue
        severity: Severity = "error" if total > limit else "warning"
        share = 1.0 if severity == "error" else LUN_QUEUE_WARNING

        def ok(q: float, members: list[int] = members, limit: int = limit, share: float = share) -> bool:
            loads = pa.lun_loads(pa.route_loads(Limits(host_cap=q)))
            return max(loads[li] for li in members) <= share * limit

        target = _largest_cap(ok)
        users = sorted({pa.routes[r].group for r in range(len(pa.routes)) if pa.routes[r].lun == worst and pa.routes[r].active})
        loads = pa.route_loads(Limits())
        parts = []
        sharing = 0
        for g in users:
            host = s.hosts[g]
            mine = [r for r in pa.active(g, worst)]
            per = sum(loads[r] for r in mine)
            sharing += host.count
            parts.append(
                f"{_host_label(host)}: {host.count} x {len(mine)} active path(s) x "
                f"{_n(per / len(mine))} = {_n(host.count * per)}"
            )
        pool = pa.luns[worst].pool
        setting = group.queue_depth if group.queue_depth is not None else s.array.lun_queue_depth
        how = (
            f"32 + 14 x {pool.data_drives * pool.groups} data drives = {limit}"
            if setting == "clariion"
            else f"{limit}"
        )
        fix = None
        if target is not None:
            fix = _cap_fix(s, users, target) or None
            fix_text = (
                f"Cap the per-LUN queue depth of the hosts sharing {group.name} at {target}, the "
                f"largest uniform value that keeps one LUN within "
                f"{'its limit' if severity == 'error' else '80% of its limit'}; or spread the "
                "load over more LUNs."
            )
        else:
            fix_text = "Even one command per path is too many: spread the load over more LUNs."
        findings.append(
            Finding(
                rule="SP002-lun-queue",
                severity=severity,
                title=(
                    f"LUN {pa.luns[worst].name} can be sent {_n(total)} commands; the array "
                    f"accepts {limit} per LUN"
                ),
                message=(
                    f"LUN group {group.name}: with every path full, one LUN can be sent "
                    f"{_n(total)} commands ({'; '.join(parts)}), {_pct(total / limit)} of the "
                    f"array's per-LUN limit ({how})."
                ),
                mechanism=(
                    "The array keeps a fixed number of command slots per LUN, shared by every "
                    "host and path. Commands beyond it are refused with QUEUE FULL and retried "
                    "after a back-off, so a deeper host queue buys no throughput and adds "
                    "latency."
                ),
                source=SRC_LUN_QUEUE,
                numbers={
                    "lun_group": group.name,
                    "lun": pa.luns[worst].name,
                    "lun_queue_limit": limit,
                    "commands": total,
                    "utilization": total / limit,
                    "hosts_sharing": sharing,
                    "safe_host_queue_depth": target,
                },
                fix=fix,
                fix_text=fix_text,
            )
        )
    return findings
