"""``sanpath check``: review a storage proposal before it goes live.

A proposal is an ordinary scenario: hosts and HBAs with their queue settings, the zoning, the
array with its ports, cache and RAID pools, and the load the proposal is meant to carry.
:func:`check` reads it and returns :class:`Finding` objects. Each finding says what is wrong,
with the numbers computed from the scenario, why it matters (the mechanism), where the rule
comes from (a vendor formula or a published write-up), and which settings to change (as
dotted overrides that :meth:`~sanpath.spec.scenario.Scenario.with_overrides` accepts).

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

import dataclasses
import json
import math
import textwrap
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from sanpath import units
from sanpath.layout.wiring import HostPort, LunPlace, PathInfo, Wiring, wire_bytes
from sanpath.spec.scenario import (
    HbaSpec,
    HddSpec,
    HostSpec,
    PoolSpec,
    Scenario,
    ScenarioError,
    SsdSpec,
    TextbookDriveSpec,
    WorkloadSpec,
    load_scenario,
    visible_ports,
)
from sanpath.theory.twin import predict

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
FIX_TIME_LIMIT = 10.0
"""A fixed proposal is simulated for at most this many times the proposal's simulated time;
a fix that slows the path down more than that is reported on the I/Os it completed."""
SPTF_EXPONENT = 0.27
"""Drive throughput grows as q**0.27 with q commands queued (ideal SPTF, parameters 1.5)."""

FC_SPEEDS: tuple[str, ...] = ("1GFC", "2GFC", "4GFC", "8GFC", "16GFC", "32GFC", "64GFC")


# --------------------------------------------------------------------------------------
# Findings, second opinions, reports
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One fix applied on top of the fixes of the findings listed before it."""

    before: dict[str, float]
    after: dict[str, float]
    fix: dict[str, Any]
    verdict: Literal["agrees", "no clear difference", "disagrees", "not judged"]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "fix": _jsonable(self.fix),
            "verdict": self.verdict,
            "before": dict(self.before),
            "after": dict(self.after),
        }


@dataclass(frozen=True)
class SecondOpinion:
    """The proposal and its fixed version, simulated with the same seed.

    ``before`` and ``after`` hold ``iops``, ``mb_per_s``, ``latency_ms_mean``,
    ``latency_ms_p99``, ``latency_ms_exchange`` (mean time after the HBA has taken the command:
    the time a switch probe sees, without host and HBA queueing), ``qfull`` and
    ``commands_per_io``. ``metric`` is the figure the finding is about and ``verdict`` says
    whether the simulation moved it the way the finding predicts (beyond a 5% band).

    Fixes can interact (a finding's fix may only pay once another finding is fixed), so
    ``with_earlier`` also compares the proposal with the fixes of every simulated finding
    listed before this one, without and with this fix (None for the first).
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
    with_earlier: Step | None = None

    @property
    def not_worse(self) -> bool:
        """True unless the fix moved the metric the wrong way both alone and after the
        earlier fixes."""
        if self.with_earlier is not None and self.with_earlier.verdict != "disagrees":
            return True
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
            "with_earlier": self.with_earlier.to_dict() if self.with_earlier else None,
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
    steady: bool = True
    """False when the simulated proposal did not reach steady state (see ``warnings``)."""
    warnings: tuple[str, ...] = ()
    """What makes the simulated proposal's figures less trustworthy."""

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
            "steady": self.steady,
            "warnings": list(self.warnings),
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
        return sum(
            1 for (gg, _), ws in self.workloads.items() if gg == g and any(x is w for x in ws)
        )

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


def _hosts_touching(pa: PathAnalysis, route_filter: Callable[[PathInfo], bool]) -> list[int]:
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
# Sources (cited in findings; docs/check.md lists them per rule)
# --------------------------------------------------------------------------------------

SRC_FAN_IN = (
    "EMC Host Connectivity Guide (QLogic HBAs, Windows), 'Understanding queue depth': "
    "QD = port queue / (initiators x LUNs), port queue 1600; NetApp ONTAP SAN configuration, "
    "'Calculate queue depth': initiators x 128 must stay under 2,048 per target port, else "
    "2,048 / initiators; Hitachi README_queue_depth: QD = 2048 / LUs per port, at most 32. "
    "sanpath rule: the sum over paths of the per-path depth must fit the port queue."
)
SRC_LUN_QUEUE = (
    "EMC CLARiiON/VNX per-LUN limit 32 + 14 x data drives and Hitachi's 32 per LUN, as given "
    "by Lonny Niederstadt in the comments of Linchi Shea's 'QueueDepth setting of an HBA' "
    "(sqlblog.com, 2007); Hitachi README_queue_depth."
)
SRC_SPLIT = (
    "Lonny Niederstadt, 'MSSQL Backups - check HBA maximum transfer size' (2013): a QLogic "
    "512 KiB default split 1 MiB backup I/Os (raised with qlfcx64 -tsize /fc /set 2048); "
    "Storport's default MaximumSGList of 17 gives 64 KiB; fragments = "
    "ceil(I/O size / min(OS max I/O, HBA max transfer))."
)
SRC_PCIE = (
    "Alexei Khalyako, SQLCAT 'Fast Track: improving performance through correct LUN mapping' "
    "(2012): PCIe x4 v1 carries about 1 GB/s and x4 v2 about 2 GB/s, so a dual-port 8 Gb "
    "HBA belongs in an x4 v2 slot or better; PCIe 250 / 500 MB/s per lane for Gen1 / Gen2."
)
SRC_LINK = (
    "Fibre Channel payload rates per direction after line encoding (FCIA speed roadmap; "
    "docs/scenario.md, named FC speeds)."
)
SRC_BALANCE = (
    "Alexei Khalyako, SQLCAT Fast Track LUN mapping (2012): uneven LUN throughput until the "
    "mapping was corrected (4.7 to 5.7 GB/s)."
)
SRC_FAN_OUT = (
    "Alexei Khalyako, SQLCAT Fast Track LUN mapping (2012): port A of every HBA was mapped "
    "to port A of every storage enclosure; the vendor's guidance is one HBA port to one "
    "enclosure port. Fixing it raised throughput from 4.7 to 5.7 GB/s."
)
SRC_FAILOVER = (
    "Microsoft MSDSM 'Fail Over Only' and VMware/Broadcom KB 2069356 (round robin every 1000 "
    "I/Os acts like one path); HP-UX 11i v3 white paper, Table 1: 1 KiB "
    "reads at max_q_depth 4 gave 251,000 IOPS with multipathing off, 294,000 round-robin."
)
SRC_SINGLE_PATH = (
    "Alexei Khalyako, SQLCAT Fast Track LUN mapping (2012): two paths per HBA, one of them "
    "standing by under MPIO 'Failover Only'."
)
SRC_SHALLOW = (
    "Linchi Shea, 'The QueueDepth setting of an HBA' (sqlblog.com, 2007): setting it too low "
    "seriously reduces throughput; HP-UX 11i v3 white paper: max_q_depth 8 to 16 raised IOPS; "
    "drive command queueing gains (ideal SPTF ~ q^0.27, docs/model.md)."
)
SRC_LATENCY = (
    "NetApp ONTAP 'Calculate queue depth': needed queue depth = IOPS x response time "
    "(Little's law); Ron Lee, Virtual Instruments (2012): exchange completion time rose "
    "from about 1 ms at queue depth 4 to 200 ms peaks at 32 for 5% more throughput."
)
SRC_RAID = (
    "RAID write penalties: RAID 10 two drive writes, RAID 5 four drive I/Os, RAID 6 six per "
    "small random write (crucial.com.au 2010; git.xyzzy.ee 'RAID penalties')."
)
SRC_WRITE_ASIDE = (
    "Lonny Niederstadt (2013): VNX write-aside of 2048 blocks (1 MiB) sends larger writes "
    "past the write cache, and pool LUNs cannot change it; EMC CLARiiON best practices "
    "h5773."
)
SRC_DRIVER = (
    "Microsoft StorPortSetDeviceQueueDepth: at most 255 per LUN unless the miniport supports "
    "extended SRBs; HP-UX scsi_max_qdepth / max_q_depth: at most 255."
)
SRC_HOST_CPU = (
    'HP, "HP-UX 11i v3 Mass Storage I/O Performance Improvements": setting max_q_depth too '
    "high can result in increased CPU utilization; on an rx6600 the IOPS gained nothing from "
    "16 to 32 per LUN path."
)
HOST_CPU_BUSY = 0.9
"""Host processor utilization (twin estimate) at which SP015 reports the host as the limit."""
HOST_CPU_TARGET = 0.7
"""Utilization SP015's fix aims the host processors at."""


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


@rule("SP001-fan-in", "error", "port queue fan-in", metric="port_qfull", better="lower")
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
        f"Ports over 80% of their queue: {', '.join(map(str, sorted(over)))}. "
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


@rule("SP002-lun-queue", "error", "array per-LUN queue limit", metric="lun_qfull", better="lower")
def check_lun_queue(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Commands the hosts can send to one LUN against the array's per-LUN limit.

    For each LUN group with a limit (an integer, or CLARiiON/VNX 32 + 14 x data drives),
    add the commands every host's active paths to one LUN can hold (as for the fan-in).
    Error above the limit: the array answers QUEUE FULL; warning above 80%.
    """
    pa = options.paths(s)
    full = pa.lun_loads(pa.route_loads(Limits()))
    findings = []
    for group in s.array.luns:
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

        def ok(
            q: float, members: list[int] = members, limit: int = limit, share: float = share
        ) -> bool:
            loads = pa.lun_loads(pa.route_loads(Limits(host_cap=q)))
            return max(loads[li] for li in members) <= share * limit

        target = _largest_cap(ok)
        users = sorted(
            {
                pa.routes[r].group
                for r in range(len(pa.routes))
                if pa.routes[r].lun == worst and pa.routes[r].active
            }
        )
        loads = pa.route_loads(Limits())
        parts = []
        sharing = 0
        for g in users:
            host = s.hosts[g]
            mine = pa.active(g, worst)
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


# --------------------------------------------------------------------------------------
# SP003 splitting
# --------------------------------------------------------------------------------------


@rule("SP003-split", "warning", "transfer-size splitting", metric="mb_per_s", better="higher")
def check_split(s: Scenario, options: CheckOptions) -> list[Finding]:
    """I/Os larger than the host's split limit, min(OS max I/O size, every HBA max transfer).

    Each such I/O leaves the host as ceil(size / limit) commands. Warning, with the
    commands per I/O for every size and the factor by which the host's command count grows.
    """
    pa = options.paths(s)
    findings = []
    cache = s.array.cache
    for g, host in enumerate(s.hosts):
        limit = pa.split_limit[g]
        if limit is None:
            continue
        mine = [w for (gg, _), ws in pa.workloads.items() if gg == g for w in ws]
        split = [w for w in dict.fromkeys(mine) if any(size > limit for size, _ in w.block_size)]
        if not split:
            continue
        largest = max(size for w in split for size, _ in w.block_size)
        per_size = {
            _size(size): pa.commands_per_io(g, size)
            for w in split
            for size, _ in w.block_size
            if size > limit
        }
        factors = {
            w.name: sum(weight * pa.commands_per_io(g, size) for size, weight in w.block_size)
            for w in split
        }
        who = []
        if host.max_io_size is not None and host.max_io_size == limit:
            who.append(f"the OS max I/O size ({_size(host.max_io_size)})")
        for j, hba in enumerate(host.hbas):
            if hba.max_transfer is not None and hba.max_transfer == limit:
                who.append(f"HBA {j} max transfer ({_size(hba.max_transfer)})")
        fix: dict[str, Any] = {}
        for j, hba in enumerate(host.hbas):
            if hba.max_transfer is not None and hba.max_transfer < largest:
                fix[f"hosts.{g}.hbas.{j}.max_transfer"] = _size(largest)
        if host.max_io_size is not None and host.max_io_size < largest:
            fix[f"hosts.{g}.max_io_size"] = _size(largest)
        notes = []
        if largest > 2 * 1024 * 1024:
            notes.append(
                "QLogic's Windows driver accepts at most 2 MiB (qlfcx64 -tsize), so larger "
                "I/Os will still be split there."
            )
        bypass_after = sorted(
            {
                size
                for w in split
                if w.read_fraction < 1.0
                for size, _ in w.block_size
                if cache.write_back
                and cache.write_aside is not None
                and size > cache.write_aside >= min(size, limit)
            }
        )
        if bypass_after:
            notes.append(
                f"Once unsplit, writes of {', '.join(_size(x) for x in bypass_after)} exceed the "
                f"array's write-aside ({_size(cache.write_aside or 0)}) and bypass its write "
                "cache: see SP013."
            )
        findings.append(
            Finding(
                rule="SP003-split",
                severity="warning",
                title=(f"{host.name}: I/Os up to {_size(largest)} are split at {_size(limit)}"),
                message=(
                    f"Host {_host_label(host)} splits I/Os at {_size(limit)}, set by "
                    f"{' and '.join(who)}. Commands per I/O: "
                    + ", ".join(f"{k} -> {v}" for k, v in per_size.items())
                    + ". Mean commands per application I/O: "
                    + ", ".join(f"{name} {x:.2f}x" for name, x in factors.items())
                    + "."
                ),
                mechanism=(
                    "A split I/O becomes several commands that each take a host queue slot, an "
                    "HBA exchange, a port and LUN queue slot and the per-command processing time "
                    "of the HBA and the controller; the I/O finishes with its slowest piece. "
                    "Near queue limits the extra commands turn into queueing and QUEUE FULL."
                ),
                source=SRC_SPLIT,
                numbers={
                    "host": host.name,
                    "split_limit": limit,
                    "largest_io": largest,
                    "commands_per_io": per_size,
                    "command_multiplier": factors,
                },
                fix=fix or None,
                fix_text=(
                    "Raise "
                    + " and ".join(
                        "the OS maximum I/O size"
                        if k.endswith("max_io_size")
                        else f"HBA {k.split('.')[3]}'s maximum transfer size"
                        for k in fix
                    )
                    + f" to {_size(largest)} so that the largest I/O travels as one command. "
                    + " ".join(notes)
                ).strip(),
            )
        )
    return findings


# --------------------------------------------------------------------------------------
# SP004 PCIe slot
# --------------------------------------------------------------------------------------


def _pcie_fix(hba: HbaSpec, need: float) -> dict[str, Any] | None:
    pcie = hba.pcie
    assert pcie is not None
    gen0 = pcie.gen if pcie.gen is not None else 1
    lanes0 = pcie.lanes if pcie.lanes is not None else 1
    options = []
    for gen in range(gen0, 7):
        for lanes in (1, 2, 4, 8, 16):
            if gen == gen0 and lanes < lanes0:
                continue
            if units.pcie_rate(gen, lanes) * pcie.efficiency >= need:
                options.append((gen, lanes))
    if not options:
        return None
    gen, lanes = options[0]
    out: dict[str, Any] = {"gen": gen, "lanes": lanes}
    if pcie.efficiency != 1.0:
        out["efficiency"] = pcie.efficiency
    return out


@rule("SP004-pcie-slot", "warning", "PCIe slot slower than the HBA", metric="mb_per_s")
def check_pcie(s: Scenario, options: CheckOptions) -> list[Finding]:
    """An HBA card whose PCIe slot carries less than its FC ports together.

    The slot is shared by the card's ports and is full duplex, so compare the slot's rate
    per direction with ports x port speed. Warning when the slot is slower.
    """
    findings = []
    for g, host in enumerate(s.hosts):
        for j, hba in enumerate(host.hbas):
            if hba.pcie is None or hba.speed is None:
                continue
            slot = hba.pcie.bytes_per_s
            need = hba.ports * hba.speed
            if slot >= need:
                continue
            new = _pcie_fix(hba, need)
            described = (
                f"PCIe gen {hba.pcie.gen} x{hba.pcie.lanes}"
                if hba.pcie.gen is not None
                else "the slot"
            )
            findings.append(
                Finding(
                    rule="SP004-pcie-slot",
                    severity="warning",
                    title=(f"{host.name}: HBA {j} slot carries {_mb(slot)}, its ports {_mb(need)}"),
                    message=(
                        f"HBA {j} of {_host_label(host)} has {hba.ports} port(s) of "
                        f"{_mb(hba.speed)} each, {_mb(need)} per direction together, in "
                        f"{described} that moves {_mb(slot)} per direction: at most "
                        f"{_pct(slot / need)} of what the ports can carry."
                    ),
                    mechanism=(
                        "Every byte the card's ports move crosses its PCIe slot, so a slot slower "
                        "than the ports caps the card's throughput whatever the fabric and the "
                        "array can do."
                    ),
                    source=SRC_PCIE,
                    numbers={
                        "host": host.name,
                        "hba": j,
                        "slot_bytes_per_s": slot,
                        "ports_bytes_per_s": need,
                    },
                    fix={f"hosts.{g}.hbas.{j}.pcie": new} if new is not None else None,
                    fix_text=(
                        f"Move the card to a PCIe gen {new['gen']} x{new['lanes']} slot "
                        f"({_mb(units.pcie_rate(new['gen'], new['lanes']))})."
                        if new is not None
                        else "No PCIe slot is fast enough: spread the ports over more cards."
                    ),
                )
            )
    return findings


# --------------------------------------------------------------------------------------
# SP005 FC link speed
# --------------------------------------------------------------------------------------


def _fc_speed_for(need: float) -> str | None:
    for name in FC_SPEEDS:
        if units.parse_rate(name) >= need:
            return name
    return None


def _back_end_stream(pool: PoolSpec, read_fraction: float) -> float:
    """Bytes/s a pool can stream sequentially (reads from every holder, writes from data)."""
    drive = pool.drive
    if isinstance(drive, HddSpec):
        per = (drive.media_rate_outer + drive.media_rate_inner) / 2.0
    elif isinstance(drive, SsdSpec):
        per = drive.bandwidth
    else:
        return INF
    readers = pool.drives if pool.raid != "raid1" else 2
    reads = readers * pool.groups * per
    writes = pool.data_drives * pool.groups * per
    return read_fraction * reads + (1.0 - read_fraction) * writes


@rule(
    "SP005-link-speed",
    "error",
    "FC links slower than the load",
    metric="latency_ms_p99",
    better="lower",
)
def check_link_speed(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Bandwidth the workloads need against the FC links that carry it.

    Open-loop workloads state their need: rate x I/O size (plus frame overhead), split
    over the active paths, per HBA port and per array port, reads and writes each way.
    Error above the link speed (the queue grows without bound), warning above 80%.
    Sequential closed-loop workloads: info when the links carry less than the drives
    behind them can stream, so the links, not the drives, set the ceiling.
    """
    pa = options.paths(s)
    findings: list[Finding] = []
    # open loops: bytes per second per host instance and route, in each direction
    host_dir: dict[tuple[int, int, str], float] = {}
    array_dir: dict[tuple[int, str], float] = {}
    for (g, li), indices in pa.by_pair.items():
        active = [r for r in indices if pa.routes[r].active]
        for w in pa.workloads.get((g, li), []):
            if w.closed or w.rate is None or not active:
                continue
            wire = _commands_per_io_mean(pa, g, w) * sum(
                share * wire_bytes(size, s.fabric.frame_payload, s.fabric.frame_overhead)
                for size, share in pa.command_sizes(g, w)
            )
            per_route = w.rate / max(1, pa._luns_of(g, w)) / len(active) * wire
            for r in active:
                route = pa.routes[r]
                count = s.hosts[g].count
                for direction, part in (("in", w.read_fraction), ("out", 1 - w.read_fraction)):
                    key = (g, route.port, direction)
                    host_dir[key] = host_dir.get(key, 0.0) + per_route * part
                    akey = (route.array_port, direction)
                    array_dir[akey] = array_dir.get(akey, 0.0) + count * per_route * part
    worst_util = 0.0
    details: list[str] = []
    fix: dict[str, Any] = {}
    host_need: dict[tuple[int, int], float] = {}
    for (g, p, _), x in host_dir.items():
        host_need[(g, p)] = max(host_need.get((g, p), 0.0), x)
    for (g, p), need in sorted(host_need.items()):
        hp = pa.host_ports[g][p]
        if hp.speed is None or need <= 0:
            continue
        util = need / hp.speed
        if util > LINK_WARNING:
            worst_util = max(worst_util, util)
            details.append(
                f"{s.hosts[g].name} HBA port {p}: {_mb(need)} on a {_mb(hp.speed)} link "
                f"({_pct(util)})"
            )
            new = _fc_speed_for(need / LINK_WARNING)
            if new is not None:
                fix[f"hosts.{g}.hbas.{hp.hba}.speed"] = new
    speed = s.array.port_speed
    array_need: dict[int, float] = {}
    for (a, _), x in array_dir.items():
        array_need[a] = max(array_need.get(a, 0.0), x)
    if speed is not None:
        for a, need in sorted(array_need.items()):
            util = need / speed
            if util > LINK_WARNING:
                worst_util = max(worst_util, util)
                details.append(f"array port {a}: {_mb(need)} on a {_mb(speed)} link ({_pct(util)})")
                new = _fc_speed_for(need / LINK_WARNING)
                if new is not None:
                    prev = fix.get("array.port_speed")
                    if prev is None or units.parse_rate(new) > units.parse_rate(prev):
                        fix["array.port_speed"] = new
    if details:
        severity: Severity = "error" if worst_util > 1.0 else "warning"
        findings.append(
            Finding(
                rule="SP005-link-speed",
                severity=severity,
                title=f"FC links at {_pct(worst_util)} of their speed under the offered load",
                message=(
                    "The open-loop workloads offer, per busiest direction: "
                    + "; ".join(details)
                    + "."
                ),
                mechanism=(
                    "An open-loop load keeps arriving whatever the path delivers. A link busier "
                    "than its speed builds a queue that never drains; near full speed the "
                    "waiting time grows steeply (a queue at 80% busy waits about four service "
                    "times on average)."
                ),
                source=SRC_LINK,
                numbers={"worst_utilization": worst_util, "links": details},
                fix=fix or None,
                fix_text=(
                    "Use faster links: "
                    + ", ".join(f"{k} = {v}" for k, v in fix.items())
                    + " (the slowest named FC speed that keeps the link under 80%); or spread the "
                    "load over more ports."
                    if fix
                    else "No FC speed is enough: spread the load over more ports."
                ),
            )
        )
    # closed sequential loops: links against what the drives can stream
    reads: dict[int, list[float]] = {}
    seq = False
    for (g, li), ws in pa.workloads.items():
        for w in ws:
            if w.closed and w.pattern == "sequential":
                seq = True
                weight = s.hosts[g].count * w.threads * w.outstanding_per_lun * w.mean_block_size
                acc = reads.setdefault(pa.luns[li].pool_index, [0.0, 0.0])
                acc[0] += weight * w.read_fraction
                acc[1] += weight
    pools_used = {p: acc[0] / acc[1] for p, acc in reads.items() if acc[1] > 0}
    if seq and not details:
        hosts_side = 0.0
        for g, host in enumerate(s.hosts):
            used_ports = {
                pa.routes[r].port
                for r in range(len(pa.routes))
                if pa.routes[r].group == g and pa.routes[r].active
            }
            for p in used_ports:
                sp = pa.host_ports[g][p].speed
                hosts_side += INF if sp is None else host.count * sp
        ports_used = {pa.routes[r].array_port for r in range(len(pa.routes)) if pa.routes[r].active}
        array_side = INF if speed is None else len(ports_used) * speed
        front = min(hosts_side, array_side)
        back = sum(_back_end_stream(s.array.pools[p], rf) for p, rf in pools_used.items())
        if front < back and not math.isinf(back):
            findings.append(
                Finding(
                    rule="SP005-link-speed",
                    severity="info",
                    title=f"FC links ({_mb(front)}) are slower than the drives ({_mb(back)})",
                    message=(
                        f"The sequential workloads' active FC links carry at most {_mb(front)} "
                        f"(host side {_mb(hosts_side)}, array side {_mb(array_side)}), while the "
                        f"pools behind them can stream about {_mb(back)}: the links set the "
                        "ceiling."
                    ),
                    mechanism=(
                        "Sequential transfers are limited by the slowest stage on the path; when "
                        "the drives can deliver more than the links, extra spindles add nothing."
                    ),
                    source=SRC_LINK,
                    numbers={
                        "front_end_bytes_per_s": front,
                        "back_end_bytes_per_s": back,
                    },
                    fix=None,
                    fix_text="If the workload needs more, add ports or use faster links.",
                )
            )
    return findings


def _commands_per_io_mean(pa: PathAnalysis, g: int, w: WorkloadSpec) -> float:
    return sum(weight * pa.commands_per_io(g, size) for size, weight in w.block_size)


# --------------------------------------------------------------------------------------
# SP006 port balance, SP007 enclosure fan-out, SP008 failover, SP009 single path
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Balance:
    """Expected share of the traffic per array port and per HBA port."""

    array: dict[int, float]
    hosts: dict[tuple[int, int], float]
    array_imbalance: float
    host_imbalance: float

    @property
    def worst(self) -> float:
        """The larger of the two imbalances (busiest / mean)."""
        return max(self.array_imbalance, self.host_imbalance)


def _imbalance(values: Iterable[float]) -> float:
    vals = list(values)
    if len(vals) < 2:
        return 1.0
    mean = sum(vals) / len(vals)
    return max(vals) / mean if mean > 0 else 1.0


def port_balance(pa: PathAnalysis, policy_override: str | None = None) -> Balance:
    """Traffic per array port and HBA port, over the ports the zoning connects."""
    s = pa.scenario
    weights = pa.traffic(policy_override)
    zoned: set[int] = set()
    host_ports: dict[tuple[int, int], float] = {}
    groups_with_routes = {r.group for r in pa.routes}
    for g in groups_with_routes:
        for p, seen in enumerate(visible_ports(s, s.hosts[g])):
            if seen:
                zoned.update(seen)
                host_ports[(g, p)] = 0.0
    array = dict.fromkeys(sorted(zoned), 0.0)
    active_any = policy_override is not None and policy_override != "failover"
    for r, route in enumerate(pa.routes):
        if weights[r] <= 0 or not (route.active or active_any):
            continue
        array[route.array_port] = array.get(route.array_port, 0.0) + (
            s.hosts[route.group].count * weights[r]
        )
        host_ports[(route.group, route.port)] = (
            host_ports.get((route.group, route.port), 0.0) + (weights[r])
        )
    per_group = [
        _imbalance(v for (g, _), v in host_ports.items() if g == group)
        for group in groups_with_routes
    ]
    return Balance(
        array=array,
        hosts=host_ports,
        array_imbalance=_imbalance(array.values()),
        host_imbalance=max(per_group, default=1.0),
    )


def _best_balance_fix(
    s: Scenario, candidates: Sequence[dict[str, Any]], current: float
) -> tuple[dict[str, Any], float] | None:
    best: tuple[dict[str, Any], float] | None = None
    for fix in candidates:
        fixed = _valid(s, fix)
        if fixed is None:
            continue
        value = port_balance(PathAnalysis(fixed), "round-robin").worst
        if value < current - 1e-9 and (best is None or value < best[1] - 1e-9):
            best = (fix, value)
    return best


@rule("SP006-port-balance", "warning", "unbalanced LUN-to-port mapping", metric="mb_per_s")
def check_port_balance(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Array ports or HBA ports that carry much more traffic than the others.

    Traffic (bytes in flight) of every host and LUN is spread evenly over the LUN's paths,
    as if every host used round-robin, so this rule sees the mapping itself (LUN
    presentation and zoning); SP008 covers failover. Warning when the busiest port carries
    1.5 times the mean of the ports the zoning connects, or a connected port carries none.
    """
    pa = options.paths(s)
    bal = port_balance(pa, "round-robin")
    idle_array = [a for a, x in bal.array.items() if x == 0]
    idle_hosts = [key for key, x in bal.hosts.items() if x == 0]
    if bal.worst < IMBALANCE_WARNING and not idle_array and not idle_hosts:
        return []
    candidates: list[dict[str, Any]] = []
    if s.zoning != "all-to-all":
        candidates.append({"zoning": "all-to-all"})
    subset = {
        f"array.luns.{i}.ports": "all" for i, g in enumerate(s.array.luns) if g.ports != "all"
    }
    if subset:
        candidates.append(subset)
        if s.zoning != "all-to-all":
            candidates.append({**subset, "zoning": "all-to-all"})
    if s.zoning != "one-to-one":
        candidates.append({"zoning": "one-to-one"})
    best = _best_balance_fix(s, candidates, bal.worst)
    total = sum(bal.array.values())
    shares = (
        ", ".join(f"{a}: {100 * x / total:.0f}%" for a, x in bal.array.items())
        if total > 0
        else "none"
    )
    host_lines = []
    for g in sorted({g for g, _ in bal.hosts}):
        mine = {p: x for (gg, p), x in bal.hosts.items() if gg == g}
        t = sum(mine.values())
        if t > 0:
            host_lines.append(
                f"{s.hosts[g].name} HBA ports "
                + ", ".join(f"{p}: {100 * x / t:.0f}%" for p, x in mine.items())
            )
    if best is not None:
        fix, value = best
        fix_text = (
            f"Change {', '.join(f'{k} to {v}' for k, v in fix.items())}: the busiest port then "
            f"carries {value:.2f}x the mean instead of {bal.worst:.2f}x."
        )
    else:
        fix = {}
        fix_text = (
            "Spread the LUNs over the array ports and zone each host to all of them; no single "
            "setting change found balances this mapping."
        )
    return [
        Finding(
            rule="SP006-port-balance",
            severity="warning",
            title=f"Busiest port carries {bal.worst:.2f}x the mean load",
            message=(
                f"Share of the traffic per array port: {shares}"
                + (f" (idle: {', '.join(map(str, idle_array))})" if idle_array else "")
                + ". "
                + ("; ".join(host_lines) + "." if host_lines else "")
                + f" Busiest/mean: array ports {bal.array_imbalance:.2f}, HBA ports "
                f"{bal.host_imbalance:.2f}."
            ),
            mechanism=(
                "Each port has its own link, command queue and slots. When the mapping sends "
                "most LUNs through a few ports, those saturate while the others idle, so the "
                "set-up delivers the bandwidth of the busy ports, not of all of them."
            ),
            source=SRC_BALANCE,
            numbers={
                "array_port_traffic": bal.array,
                "array_imbalance": bal.array_imbalance,
                "host_imbalance": bal.host_imbalance,
                "idle_array_ports": idle_array,
            },
            fix=fix or None,
            fix_text=fix_text,
        )
    ]


@rule(
    "SP007-enclosure-fan-out", "warning", "HBA port mapped to several enclosures", metric="mb_per_s"
)
def check_enclosure_fan_out(s: Scenario, options: CheckOptions) -> list[Finding]:
    """An HBA port with active paths to array ports that present different LUN sets.

    Array ports presenting disjoint sets of LUN groups are treated as different enclosures
    (or controllers). The Fast Track write-up found port A of every HBA mapped to port A of
    every enclosure; the vendor's rule is one HBA port to one enclosure port. Warning.
    """
    pa = options.paths(s)
    presented: dict[int, frozenset[int]] = {}
    for lun in pa.luns:
        for a in lun.ports:
            presented[a] = presented.get(a, frozenset()) | {lun.group}
    offenders: dict[int, list[int]] = {}
    reach: dict[tuple[int, int], set[int]] = {}
    for route in pa.routes:
        if route.active:
            reach.setdefault((route.group, route.port), set()).add(route.array_port)
    worst = 0
    for (g, p), ports in sorted(reach.items()):
        sets = {presented[a] for a in ports}
        disjoint = [x for x in sets if all(x.isdisjoint(y) for y in sets if y is not x)]
        if len(disjoint) >= 2:
            offenders.setdefault(g, []).append(p)
            worst = max(worst, len(sets))
    if not offenders:
        return []
    fix: dict[str, Any] | None = {"zoning": "one-to-one"}
    assert fix is not None
    fixed = _valid(s, fix)
    if fixed is None or s.zoning == "one-to-one":
        fix = None
    lines = [
        f"{s.hosts[g].name} HBA port(s) {', '.join(map(str, ps))}" for g, ps in offenders.items()
    ]
    return [
        Finding(
            rule="SP007-enclosure-fan-out",
            severity="warning",
            title=f"HBA ports reach up to {worst} enclosures each",
            message=(
                f"{'; '.join(lines)} have active paths to array ports of up to {worst} "
                "enclosures (ports presenting disjoint LUN sets)."
            ),
            mechanism=(
                "When every HBA port reaches every enclosure, each port's traffic mixes the "
                "LUNs of all enclosures and multipathing crosses between them; the write-up saw "
                "uneven LUN throughput and 20% less bandwidth until each HBA port was mapped to "
                "one enclosure port."
            ),
            source=SRC_FAN_OUT,
            numbers={
                "offending_ports": {s.hosts[g].name: ps for g, ps in offenders.items()},
                "enclosures_per_port": worst,
            },
            fix=fix,
            fix_text=(
                "Zone one HBA port to one array port (zoning: one-to-one), keeping a second "
                "path per LUN for failover."
                if fix is not None
                else "Zone each HBA port to the ports of a single enclosure."
            ),
        )
    ]


@rule("SP008-failover-idle", "warning", "failover policy leaves paths idle", metric="iops")
def check_failover(s: Scenario, options: CheckOptions) -> list[Finding]:
    """A failover multipath policy that leaves paths idle or the ports unbalanced.

    With failover each LUN uses one path (LUN i on path i mod n). Warning when an HBA or
    array port with paths carries no active one, or when the ports are 1.5 times more
    unbalanced than round-robin would leave them.
    """
    pa = options.paths(s)
    findings = []
    for g, host in enumerate(s.hosts):
        if host.multipath != "failover":
            continue
        mine = [r for r in pa.routes if r.group == g]
        if not mine:
            continue
        multi = sum(1 for (gg, _li), idx in pa.by_pair.items() if gg == g and len(idx) > 1)
        if multi == 0:
            continue
        hp_all = {r.port for r in mine}
        hp_active = {r.port for r in mine if r.active}
        ap_all = {r.array_port for r in mine}
        ap_active = {r.array_port for r in mine if r.active}
        idle_hp = sorted(hp_all - hp_active)
        idle_ap = sorted(ap_all - ap_active)
        paths = len(mine)
        active = sum(1 for r in mine if r.active)
        if not idle_hp and not idle_ap:
            continue
        findings.append(
            Finding(
                rule="SP008-failover-idle",
                severity="warning",
                title=f"{host.name}: failover keeps {paths - active} of {paths} paths idle",
                message=(
                    f"Host {_host_label(host)} uses failover: {active} of its {paths} LUN paths "
                    f"carry I/O ({multi} LUN(s) have more than one path)."
                    + (f" Idle HBA ports: {', '.join(map(str, idle_hp))}." if idle_hp else "")
                    + (f" Idle array ports: {', '.join(map(str, idle_ap))}." if idle_ap else "")
                ),
                mechanism=(
                    "A failover policy sends each LUN's I/O down one path and keeps the others "
                    "for when it fails. With fewer LUNs than paths, or LUNs that fall unevenly, "
                    "some links, HBA slots and per-path queues carry nothing while others queue."
                ),
                source=SRC_FAILOVER,
                numbers={
                    "host": host.name,
                    "paths": paths,
                    "active_paths": active,
                    "idle_hba_ports": idle_hp,
                    "idle_array_ports": idle_ap,
                },
                fix={f"hosts.{g}.multipath": "round-robin"},
                fix_text=(
                    "Use an active-active policy (round-robin, or least-queue-depth) so every "
                    "path carries I/O; failover still happens when a path dies."
                ),
            )
        )
    return findings


@rule("SP009-single-path", "warning", "LUN with a single path", simulate=False)
def check_single_path(s: Scenario, options: CheckOptions) -> list[Finding]:
    """A host that reaches a LUN through exactly one path (no redundancy). Warning."""
    pa = options.paths(s)
    single: dict[int, list[str]] = {}
    for (g, li), idx in pa.by_pair.items():
        if len(idx) == 1:
            name = s.array.luns[pa.luns[li].group].name
            if name not in single.setdefault(g, []):
                single[g].append(name)
    if not single:
        return []
    fix: dict[str, Any] | None = None
    candidates: list[dict[str, Any]] = []
    if s.zoning != "all-to-all":
        candidates.append({"zoning": "all-to-all"})
    subset = {
        f"array.luns.{i}.ports": "all" for i, g in enumerate(s.array.luns) if g.ports != "all"
    }
    if subset:
        candidates.append(subset)
        candidates.append({**subset, "zoning": "all-to-all"})
    for cand in candidates:
        fixed = _valid(s, cand)
        if fixed is not None and all(len(v) >= 2 for v in PathAnalysis(fixed).by_pair.values()):
            fix = cand
            break
    lines = [f"{s.hosts[g].name}: {', '.join(names)}" for g, names in single.items()]
    return [
        Finding(
            rule="SP009-single-path",
            severity="warning",
            title="LUNs reachable through a single path",
            message=f"One path only (host: LUN groups): {'; '.join(lines)}.",
            mechanism=(
                "With one path, a failed HBA port, cable, switch port or array port takes the "
                "LUN offline, and all of its I/O shares one link and one set of queues."
            ),
            source=SRC_SINGLE_PATH,
            numbers={"single_path": {s.hosts[g].name: n for g, n in single.items()}},
            fix=fix,
            fix_text=(
                "Give every LUN at least two paths, through different HBA ports and array "
                "ports" + (f": {', '.join(f'{k} = {v}' for k, v in fix.items())}." if fix else ".")
            ),
        )
    ]


# --------------------------------------------------------------------------------------
# Back-end estimates shared by SP010 and SP011
# --------------------------------------------------------------------------------------


def parallel_units(pool: PoolSpec) -> int:
    """Operations a pool's drives can serve at once (spindles, flash units, servers)."""
    drive = pool.drive
    per = 1
    if isinstance(drive, SsdSpec):
        per = drive.units
    elif isinstance(drive, TextbookDriveSpec):
        per = drive.servers
    return per * pool.drives * pool.groups


def _ops_per_command(pool: PoolSpec, size: int) -> int:
    """Drive operations a read of ``size`` bytes needs (elements touched, at most every
    data position of the pool)."""
    return max(1, min(-(-size // pool.stripe_element), pool.data_drives * pool.groups))


def _op_time(pool: PoolSpec, nbytes: float, sequential: bool, write: bool) -> float:
    """Estimated service time of one drive operation, seconds."""
    drive = pool.drive
    if isinstance(drive, HddSpec):
        t = drive.overhead + nbytes / ((drive.media_rate_outer + drive.media_rate_inner) / 2)
        if not sequential:
            t += drive.average_seek + 30.0 / drive.rpm
        return t
    if isinstance(drive, SsdSpec):
        base = drive.write_time if write else drive.read_time
        return base + nbytes / (drive.bandwidth / drive.units)
    return drive.service.mean_s


def _write_ops(pool: PoolSpec, k: int, full_row: bool) -> float:
    """Drive operations of one write touching ``k`` data elements (RAID write penalty)."""
    level = pool.raid
    if level == "raid0":
        return float(k)
    if level in ("raid1", "raid10"):
        return 2.0 * k
    parity = 1 if level == "raid5" else 2
    rows = max(1.0, k / pool.data_drives)
    if full_row:
        return k + parity * rows
    return 2.0 * (k + parity * rows)


@dataclass(frozen=True)
class _Mix:
    """What one front-end command costs a pool, averaged over the workloads on it."""

    backend_ops: float
    """Drive operations per command that the host's queue depth drives (misses, bypasses)."""
    drive_seconds: float
    """Drive busy time per command while the host waits (read misses, uncached writes);
    writes the write-back cache absorbs are left out: they cost the drives only when
    destaged, after the host has its answer."""
    op_time: float
    """Mean time of one operation."""
    random_share: float
    """Share of commands from random workloads."""


def _bypass(s: Scenario, size: int) -> bool:
    cache = s.array.cache
    if not cache.write_back:
        return True
    if cache.write_aside is not None and size > cache.write_aside:
        return True
    return size > cache.write_back


def _pool_mix(pa: PathAnalysis, pool_index: int, weights: Mapping[tuple[int, int], float]) -> _Mix:
    """Mix of the commands on a pool, weighting each (host, LUN) pair by ``weights``."""
    s = pa.scenario
    pool = s.array.pools[pool_index]
    if any(math.isinf(x) for x in weights.values()):
        # unbounded pairs dominate: weigh them equally, the bounded ones not at all
        weights = {k: (1.0 if math.isinf(x) else 0.0) for k, x in weights.items()}
    total = ops_sum = drive_sum = n_ops = random_w = 0.0
    for (g, li), weight in weights.items():
        if pa.luns[li].pool_index != pool_index or weight <= 0:
            continue
        ws = pa.workloads.get((g, li), [])
        group_hit = s.array.luns[pa.luns[li].group].read_hit
        hit = s.array.cache.read_hit if group_hit is None else group_hit
        own = []
        for w in ws:
            d = (
                w.threads * w.outstanding_per_lun * _commands_per_io_mean(pa, g, w)
                if w.closed
                else (w.rate or 0.0) * _commands_per_io_mean(pa, g, w)
            )
            own.append(d)
        denom = sum(own) or 1.0
        for w, d in zip(ws, own, strict=True):
            share = weight * d / denom
            seq = w.pattern == "sequential"
            for size, frac in pa.command_sizes(g, w):
                k = _ops_per_command(pool, size)
                t_read = _op_time(pool, size / k, seq, write=False)
                t_write = _op_time(pool, size / k, seq, write=True)
                row = pool.data_drives * pool.stripe_element
                full = seq and size % row == 0
                wops = _write_ops(pool, k, full)
                r = w.read_fraction
                wops = wops if _bypass(s, size) else 0.0
                backend = r * (1 - hit) * k + (1 - r) * wops
                drive = r * (1 - hit) * k * t_read + (1 - r) * wops * t_write
                c = share * frac
                total += c
                ops_sum += c * backend
                drive_sum += c * drive
                n_ops += c * backend
                if not seq:
                    random_w += c
    if total <= 0:
        return _Mix(0.0, 0.0, 0.0, 0.0)
    op_time = drive_sum / n_ops if n_ops > 0 else 0.0
    return _Mix(ops_sum / total, drive_sum / total, op_time, random_w / total)


def _pair_loads(pa: PathAnalysis, loads: Sequence[float]) -> dict[tuple[int, int], float]:
    """Commands per (host group, LUN) over all instances, capped at the LUN's limit."""
    s = pa.scenario
    out: dict[tuple[int, int], float] = {}
    for r, route in enumerate(pa.routes):
        if route.active:
            key = (route.group, route.lun)
            out[key] = out.get(key, 0.0) + s.hosts[route.group].count * loads[r]
    per_lun: dict[int, float] = {}
    for (_, li), x in out.items():
        per_lun[li] = per_lun.get(li, 0.0) + x
    for key, x in list(out.items()):
        li = key[1]
        limit = pa.luns[li].limit
        total = per_lun[li]
        if limit is None or total <= limit:
            continue
        if math.isinf(total):
            unbounded = sum(1 for (_, lj), y in out.items() if lj == li and math.isinf(y))
            out[key] = limit / unbounded if math.isinf(x) else 0.0
        else:
            out[key] = x * limit / total
    return out


def _gain(pool: PoolSpec, per_unit: float) -> float:
    drive = pool.drive
    if isinstance(drive, HddSpec) and drive.scheduling == "sptf":
        q = max(1.0, min(float(drive.queue_depth), per_unit))
        return float(q**SPTF_EXPONENT)
    return 1.0


def estimate_latency(pa: PathAnalysis, loads: Sequence[float]) -> dict[int, float]:
    """Little's-law estimate of the time a command spends in the array, per pool (seconds).

    N commands in a pool that completes X(N) per second spend about N / X(N) there (never
    less than one drive operation plus the controller's time). X(N) is the smaller of the
    drives' rate, parallel units x SPTF gain / drive seconds per command, and the pool's
    share of the controller's rate, cores / io_time. Writes the write-back cache absorbs cost
    nothing here (true while the cache has room).
    """
    s = pa.scenario
    pairs = _pair_loads(pa, loads)
    n_total = sum(pairs.values())
    ctrl = s.array.controller
    io_time = ctrl.io_time.mean_s
    ctrl_rate = ctrl.cores / io_time if io_time > 0 else INF
    out: dict[int, float] = {}
    for pi, pool in enumerate(s.array.pools):
        mine = {k: v for k, v in pairs.items() if pa.luns[k[1]].pool_index == pi}
        n = sum(mine.values())
        if n <= 0:
            continue
        mix = _pool_mix(pa, pi, mine)
        u = parallel_units(pool)
        x_pool = INF
        if mix.drive_seconds > 0:
            ops_per_cmd = mix.drive_seconds / mix.op_time if mix.op_time > 0 else 1.0
            x_pool = u * _gain(pool, n * ops_per_cmd / u) / mix.drive_seconds
        x = min(x_pool, ctrl_rate * n / n_total)
        floor = mix.op_time + io_time
        out[pi] = max(floor, n / x) if x > 0 else INF
    return out


# --------------------------------------------------------------------------------------
# SP010 queue too shallow, SP011 latency target
# --------------------------------------------------------------------------------------


def _overlap(pa: PathAnalysis, pool_index: int, limits: Limits) -> tuple[float, float]:
    """(commands on the pool from random workloads, drive operations they keep in flight)."""
    pairs = _pair_loads(pa, pa.route_loads(limits))
    mine = {k: v for k, v in pairs.items() if pa.luns[k[1]].pool_index == pool_index}
    mix = _pool_mix(pa, pool_index, mine)
    if mix.random_share <= 0 or mix.backend_ops <= 0:
        return 0.0, 0.0
    n = sum(mine.values()) * mix.random_share
    return n, n * mix.backend_ops


def _raise_fix(pa: PathAnalysis, groups: Iterable[int], q: int) -> dict[str, Any]:
    """Overrides raising host and HBA depths that are below ``q`` per LUN path."""
    s = pa.scenario
    fix: dict[str, Any] = {}
    for g in sorted(set(groups)):
        host = s.hosts[g]
        if host.lun_queue_depth is not None and host.lun_queue_depth < q:
            fix[f"hosts.{g}.lun_queue_depth"] = q
        for j, hba in enumerate(host.hbas):
            if hba.queue_depth is None:
                continue
            need = q
            if hba.queue_target == "target":
                per_key: dict[tuple[Any, ...], set[int]] = {}
                for route in pa.routes:
                    if route.group == g and pa.host_ports[g][route.port].hba == j and route.active:
                        per_key.setdefault(route.slot_key, set()).add(route.lun)
                need = q * max((len(v) for v in per_key.values()), default=1)
            if hba.queue_depth < need:
                fix[f"hosts.{g}.hbas.{j}.queue_depth"] = need
    return fix


@rule("SP010-queue-too-shallow", "warning", "queue depth too low for the back end", metric="iops")
def check_shallow(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Too few commands outstanding to keep a pool's drives busy under random I/O.

    For each pool, count the drive operations the random workloads can keep in flight (the
    commands their host and HBA queue depths admit, times the read misses and uncached
    writes, times the drives each command touches) against the drives' parallel units.
    Warning when fewer, and only when a host or HBA depth, not the workload itself, is the
    bound.
    """
    pa = options.paths(s)
    findings = []
    for pi, pool in enumerate(s.array.pools):
        u = parallel_units(pool)
        n, ops = _overlap(pa, pi, Limits(full_load=False))
        if n <= 0:
            continue
        _n_free, ops_free = _overlap(pa, pi, Limits(full_load=False, unlimited=True))
        if ops >= u or ops_free <= ops * (1 + 1e-9):
            continue
        goal = min(float(u), ops_free)

        def ok(q: float, pi: int = pi, goal: float = goal) -> bool:
            return _overlap(pa, pi, Limits(full_load=False, depth_floor=q))[1] >= goal - 1e-9

        q = _smallest(ok)
        groups = sorted({g for (g, li) in pa.by_pair if pa.luns[li].pool_index == pi})
        settings = []
        for g in groups:
            host = s.hosts[g]
            hbas = ", ".join(
                f"{h.queue_depth} per {h.queue_target}" for h in host.hbas if h.queue_depth
            )
            depth = "unlimited" if host.lun_queue_depth is None else host.lun_queue_depth
            settings.append(
                f"{host.name}: lun_queue_depth {depth}, HBA queue_depth {hbas or 'unlimited'}"
            )
        fix = _raise_fix(pa, groups, q) if q is not None else {}
        note = ""
        if fix:
            fixed = _valid(s, fix)
            pq = s.array.port_queue_depth
            if fixed is not None and pq is not None:
                peak = max(fan_in(fixed).values())
                if peak > pq:
                    note = (
                        f" At that depth the busiest port could be sent {_n(peak)} commands, more "
                        f"than its {pq} slots: see SP001."
                    )
        findings.append(
            Finding(
                rule="SP010-queue-too-shallow",
                severity="warning",
                title=(f"Pool {pool.name}: {_n(ops)} drive operations in flight for {u} drives"),
                message=(
                    f"The random workloads on pool {pool.name} can keep {_n(n)} commands "
                    f"outstanding under the queue settings ({'; '.join(settings)}), which "
                    f"become about {_n(ops)} drive operations in flight, for {u} parallel "
                    f"drive units. Without the depth limits the workloads would keep "
                    f"{_n(ops_free)} in flight."
                ),
                mechanism=(
                    "A drive that has no command waiting is idle, so with fewer outstanding "
                    "operations than drives part of the pool sits still; and a drive with "
                    "several commands queued reorders them to shorten seeks, so more depth also "
                    "raises each drive's rate."
                ),
                source=SRC_SHALLOW,
                numbers={
                    "pool": pool.name,
                    "parallel_units": u,
                    "commands": n,
                    "drive_ops_in_flight": ops,
                    "drive_ops_without_limits": ops_free,
                    "depth_needed": q,
                },
                fix=fix or None,
                fix_text=(
                    f"Raise the per-LUN depth to {q} per path "
                    f"({', '.join(f'{k} = {v}' for k, v in fix.items())}).{note}"
                    if fix
                    else "Raise the host and HBA queue depths."
                ),
            )
        )
    return findings


@rule(
    "SP011-latency-target",
    "warning",
    "queue depth past the latency target",
    metric="latency_ms_exchange",
    better="lower",
)
def check_latency_target(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Commands queued in the array past what a latency target allows (Little's law).

    Only with a target (``--latency-target 10ms``). The commands the host and HBA depths
    admit at the proposal's load, N, against the rate X(N) the pool's drives can complete
    them: a command spends about N / X(N) in the array. Warning when that exceeds the target;
    the fix is the largest per-LUN host depth that meets it.
    """
    target = options.latency_target
    if target is None:
        return []
    pa = options.paths(s)
    loads = pa.route_loads(Limits(full_load=False))
    est = estimate_latency(pa, loads)
    over = {pi: r for pi, r in est.items() if r > target}
    if not over:
        return []

    def ok(q: float) -> bool:
        values = estimate_latency(pa, pa.route_loads(Limits(full_load=False, host_cap=q)))
        return max(values.values(), default=0.0) <= target

    q = _largest_cap(ok)
    pairs = _pair_loads(pa, loads)
    findings = []
    worst = max(over, key=lambda pi: over[pi])
    pool = s.array.pools[worst]
    n = sum(v for k, v in pairs.items() if pa.luns[k[1]].pool_index == worst)
    groups = sorted({g for (g, li) in pa.by_pair if pa.luns[li].pool_index in over})
    fix = _cap_fix(s, groups, q) if q is not None else {}
    rate = n / (over[worst]) if over[worst] > 0 else 0.0
    findings.append(
        Finding(
            rule="SP011-latency-target",
            severity="warning",
            title=(
                f"Pool {pool.name}: about {over[worst] * 1e3:.1f} ms in the array against a "
                f"{target * 1e3:g} ms target"
            ),
            message=(
                f"The queue settings let {_n(n)} commands into pool {pool.name} at the "
                f"proposal's load. Its {parallel_units(pool)} drive units complete about "
                f"{rate:,.0f} per second at that depth, so by Little's law each command spends "
                f"about {over[worst] * 1e3:.1f} ms in the array, past the "
                f"{target * 1e3:g} ms target."
                + (
                    f" Pools over the target: {', '.join(s.array.pools[p].name for p in over)}."
                    if len(over) > 1
                    else ""
                )
            ),
            mechanism=(
                "Once the drives are busy, more outstanding commands add almost no throughput: "
                "they wait. Time in the array is commands in flight divided by throughput, so a "
                "deep queue turns straight into latency for every host sharing the pool."
            ),
            source=SRC_LATENCY,
            numbers={
                "pool": pool.name,
                "latency_target_ms": target * 1e3,
                "estimated_ms": over[worst] * 1e3,
                "commands": n,
                "completions_per_s": rate,
                "host_queue_depth_for_target": q,
            },
            fix=fix or None,
            fix_text=(
                f"Cap the per-LUN host queue depth at {q}, the largest value whose estimate "
                "meets the target. This shortens the time commands spend in the SAN, for every "
                "host sharing the array; an application that keeps more I/Os in flight than "
                "that waits in its own host queue instead, so its own latency does not fall "
                "(it rises if throughput drops)."
                if fix
                else "Queue depth alone cannot meet the target: add drives or cache."
            ),
        )
    )
    return findings


# --------------------------------------------------------------------------------------
# SP012 RAID write penalty, SP013 write-aside, SP014 driver range
# --------------------------------------------------------------------------------------


_PENALTY = {"raid0": 1, "raid1": 2, "raid10": 2, "raid5": 4, "raid6": 6}


@rule("SP012-raid-write-penalty", "warning", "RAID 5/6 under a write-heavy load", metric="iops")
def check_raid_writes(s: Scenario, options: CheckOptions) -> list[Finding]:
    """RAID 5 or RAID 6 pools whose workloads write a large share of partial-stripe I/Os.

    Writes are weighted by each workload's load on the pool (closed loop: hosts x threads x
    outstanding; open loop: rate). Warning at 50% writes or more, info from 30%. Writes
    that cover whole stripe rows sequentially are not counted (no read-modify-write).
    """
    pa = options.paths(s)
    findings = []
    for pi, pool in enumerate(s.array.pools):
        if pool.raid not in ("raid5", "raid6"):
            continue
        row = pool.data_drives * pool.stripe_element
        weight = writes = 0.0
        for (g, li), ws in pa.workloads.items():
            if pa.luns[li].pool_index != pi:
                continue
            count = s.hosts[g].count
            for w in ws:
                load = count * (w.threads * w.outstanding_per_lun if w.closed else (w.rate or 0.0))
                partial = sum(
                    frac
                    for size, frac in pa.command_sizes(g, w)
                    if w.pattern == "random" or size % row != 0
                )
                weight += load
                writes += load * (1 - w.read_fraction) * partial
        if weight <= 0:
            continue
        share = writes / weight
        if share < RAID_WRITE_INFO:
            continue
        severity: Severity = "warning" if share >= RAID_WRITE_WARNING else "info"
        penalty = _PENALTY[pool.raid]
        now = (1 - share) + share * penalty
        r10 = (1 - share) + share * 2
        drives = pool.drives + (pool.drives % 2)
        fix: dict[str, Any] | None = {
            f"array.pools.{pi}.raid": "raid10",
            f"array.pools.{pi}.drives": max(4, drives),
        }
        assert fix is not None
        if _valid(s, fix) is None:
            fix = None
        findings.append(
            Finding(
                rule="SP012-raid-write-penalty",
                severity=severity,
                title=(
                    f"Pool {pool.name}: {pool.raid.upper()} with {100 * share:.0f}% small writes"
                ),
                message=(
                    f"{100 * share:.0f}% of the I/Os on pool {pool.name} ({pool.raid}, "
                    f"{pool.drives} drives per group) are writes smaller than a stripe row "
                    f"({_size(row)}). Each costs {penalty} drive operations, so the pool does "
                    f"about {now:.2f} drive operations per front-end I/O; RAID 10 would do "
                    f"{r10:.2f}."
                ),
                mechanism=(
                    "A partial-stripe write on parity RAID must read the old data and parity and "
                    "write both back (RAID 6 also the second parity). A write-back cache hides "
                    "this only until destaging cannot keep up."
                ),
                source=SRC_RAID,
                numbers={
                    "pool": pool.name,
                    "raid": pool.raid,
                    "write_share": share,
                    "write_penalty": penalty,
                    "drive_ops_per_io": now,
                    "drive_ops_per_io_raid10": r10,
                },
                fix=fix,
                fix_text=(
                    f"Use RAID 10 for this pool ({max(4, drives)} drives per group, an even "
                    "number); it costs capacity: half the drives hold copies."
                    if fix is not None
                    else "Use RAID 10, or a pool with room for the extra drive operations."
                ),
            )
        )
    return findings


@rule(
    "SP013-write-aside",
    "warning",
    "writes past the write-aside size",
    metric="latency_ms_mean",
    better="lower",
)
def check_write_aside(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Write commands larger than the array's write-aside size, which bypass its cache.

    Uses the command sizes after host splitting (what the array receives). Warning when the
    bypassing writes land on RAID 5/6 as partial stripes (read-modify-write on the host's
    clock), info otherwise: large sequential writes may bypass the cache on purpose.
    """
    cache = s.array.cache
    if not cache.write_back or cache.write_aside is None:
        return []
    pa = options.paths(s)
    findings = []
    seen: set[tuple[str, int]] = set()
    for (g, li), ws in pa.workloads.items():
        pool = pa.luns[li].pool
        row = pool.data_drives * pool.stripe_element
        for w in ws:
            if w.read_fraction >= 1.0:
                continue
            over = [
                (size, frac) for size, frac in pa.command_sizes(g, w) if size > cache.write_aside
            ]
            if not over or (w.name, pa.luns[li].pool_index) in seen:
                continue
            seen.add((w.name, pa.luns[li].pool_index))
            largest = max(size for size, _ in over)
            share = sum(frac for _, frac in over)
            rmw = pool.raid in ("raid5", "raid6") and (
                w.pattern == "random" or any(size % row for size, _ in over)
            )
            severity: Severity = "warning" if rmw else "info"
            findings.append(
                Finding(
                    rule="SP013-write-aside",
                    severity=severity,
                    title=(
                        f"{w.name}: writes up to {_size(largest)} bypass the write cache "
                        f"(write-aside {_size(cache.write_aside)})"
                    ),
                    message=(
                        f"Workload {w.name} sends {100 * share:.0f}% of its write commands larger "
                        f"than the write-aside size ({_size(cache.write_aside)}) to pool "
                        f"{pool.name} ({pool.raid}); they go straight to the drives"
                        + (
                            f", as partial stripes of a {_size(row)} row (read-modify-write)."
                            if rmw
                            else "."
                        )
                    ),
                    mechanism=(
                        "Writes above the write-aside size skip the write cache and are "
                        "acknowledged only when the drives have them. That protects the cache "
                        "from large streams, but costs those writes the full drive latency."
                    ),
                    source=SRC_WRITE_ASIDE,
                    numbers={
                        "workload": w.name,
                        "write_aside": cache.write_aside,
                        "largest_write_command": largest,
                        "share_of_commands_over": share,
                        "read_modify_write": rmw,
                    },
                    fix={"array.cache.write_aside": _size(largest)},
                    fix_text=(
                        f"Raise the write-aside size to {_size(largest)} so these writes are "
                        "cached (not possible on VNX pool LUNs); or keep it if the writes are a "
                        "large stream that would flood the cache."
                    ),
                )
            )
    return findings


@rule("SP014-driver-range", "warning", "setting beyond a driver's range", simulate=False)
def check_driver_range(s: Scenario, options: CheckOptions) -> list[Finding]:
    """Per-LUN queue depths above 255, the most Storport and HP-UX accept. Warning."""
    findings = []
    for g, host in enumerate(s.hosts):
        fix: dict[str, Any] = {}
        items = []
        if host.lun_queue_depth is not None and host.lun_queue_depth > DRIVER_QUEUE_LIMIT:
            fix[f"hosts.{g}.lun_queue_depth"] = DRIVER_QUEUE_LIMIT
            items.append(f"lun_queue_depth {host.lun_queue_depth}")
        for j, hba in enumerate(host.hbas):
            if (
                hba.queue_depth is not None
                and hba.queue_target == "lun"
                and hba.queue_depth > DRIVER_QUEUE_LIMIT
            ):
                fix[f"hosts.{g}.hbas.{j}.queue_depth"] = DRIVER_QUEUE_LIMIT
                items.append(f"HBA {j} queue_depth {hba.queue_depth} per LUN")
        if not items:
            continue
        findings.append(
            Finding(
                rule="SP014-driver-range",
                severity="warning",
                title=f"{host.name}: per-LUN queue depth above {DRIVER_QUEUE_LIMIT}",
                message=(
                    f"Host {_host_label(host)} sets {', '.join(items)}; Windows Storport (without "
                    f"extended SRBs) and HP-UX accept at most {DRIVER_QUEUE_LIMIT} per LUN."
                ),
                mechanism=(
                    "A driver clamps or rejects a value outside its range, so the host does not "
                    "run with the depth the proposal assumes and every calculation built on it "
                    "is off."
                ),
                source=SRC_DRIVER,
                numbers={"host": host.name, "limit": DRIVER_QUEUE_LIMIT, "settings": items},
                fix=fix,
                fix_text=f"Set the per-LUN depths to at most {DRIVER_QUEUE_LIMIT}.",
            )
        )
    return findings


# --------------------------------------------------------------------------------------
# SP015 host processors
# --------------------------------------------------------------------------------------


@rule("SP015-host-cpu", "warning", "host processors are the limit", metric="iops")
def check_host_cpu(s: Scenario, options: CheckOptions) -> list[Finding]:
    """A host whose processors (``cpus``, ``cpu_time``) are nearly always busy with I/O work.

    The analytic twin (:func:`sanpath.theory.twin.predict`) estimates the utilization of every
    station at the proposal's load; when a host's processors are at least 90% busy, the host
    and not the SAN sets the IOPS, and deeper queues only add waiting. Warning.
    """
    hosts = [(g, h) for g, h in enumerate(s.hosts) if h.cpus is not None and h.cpu_time.mean_s]
    if not hosts:
        return []
    prediction = predict(s)
    findings = []
    for g, host in hosts:
        assert host.cpus is not None
        busy = prediction.utilization.get(f"{host.name}.cpu", 0.0)
        if busy < HOST_CPU_BUSY:
            continue
        cpu_time = host.cpu_time.mean_s
        ceiling = host.cpus / cpu_time
        cpus = math.ceil(host.cpus * busy / HOST_CPU_TARGET)
        others = {k: u for k, u in prediction.utilization.items() if k != f"{host.name}.cpu"}
        runner_up = max(others, key=others.__getitem__, default=None)
        close = ""
        if runner_up is not None and others[runner_up] >= HOST_CPU_BUSY:
            close = (
                f" {runner_up} is {_pct(others[runner_up])} busy too, so more processors "
                "alone will gain little."
            )
        findings.append(
            Finding(
                rule="SP015-host-cpu",
                severity="warning",
                title=f"{host.name}: processors {_pct(busy)} busy with I/O work",
                message=(
                    f"Host {_host_label(host)} spends {cpu_time * 1e6:.3g} us of processor time "
                    f"per command on {host.cpus} processor(s), at most {_n(ceiling)} commands "
                    f"per second per host; at the proposal's load they are {_pct(busy)} busy "
                    f"(analytic estimate), the bottleneck being {prediction.bottleneck}.{close}"
                ),
                mechanism=(
                    "Every command needs its share of a host processor before it leaves the "
                    "host. Once the processors are nearly always busy, the host sets the IOPS: "
                    "the SAN waits for it, and deeper queues only lengthen the line for the "
                    "processors (and cost more processor time per I/O on real systems)."
                ),
                source=SRC_HOST_CPU,
                numbers={
                    "host": host.name,
                    "cpus": host.cpus,
                    "cpu_time_s": cpu_time,
                    "commands_per_s_max": ceiling,
                    "utilization": busy,
                    "bottleneck": prediction.bottleneck,
                    "next_busiest": runner_up,
                },
                fix={f"hosts.{g}.cpus": cpus},
                fix_text=(
                    f"Give the I/O work {cpus} processors (about {_pct(HOST_CPU_TARGET)} busy), "
                    "spread the load over more hosts, or use larger I/Os (fewer commands for "
                    "the same bytes)."
                ),
            )
        )
    return findings


# --------------------------------------------------------------------------------------
# check(): run the rules, then the second opinions
# --------------------------------------------------------------------------------------


METRIC_LABELS: dict[str, str] = {
    "iops": "IOPS",
    "mb_per_s": "MB/s",
    "latency_ms_mean": "mean latency (ms)",
    "latency_ms_p99": "p99 latency (ms)",
    "latency_ms_exchange": "time past the HBA (ms)",
    "qfull": "QUEUE FULL answers",
    "port_qfull": "QUEUE FULL from ports",
    "lun_qfull": "QUEUE FULL from LUNs",
    "commands_per_io": "commands per I/O",
}


def result_metrics(result: Any) -> dict[str, float]:
    """The headline figures a second opinion compares, from a RunResult."""
    bd = result.breakdown_ms
    ios = result.ios
    host_side = sum(float(bd.get(layer, 0.0)) for layer in ("host", "host_queue", "hba"))
    counters = result.counters
    return {
        "iops": float(result.iops),
        "mb_per_s": float(result.mb_per_s),
        "latency_ms_mean": float(result.latency_ms["mean"]),
        "latency_ms_p99": float(result.latency_ms["p99"]),
        "latency_ms_exchange": float(result.latency_ms["mean"]) - host_side,
        "qfull": float(counters["qfull"]),
        "port_qfull": float(counters.get("port_qfull", 0)),
        "lun_qfull": float(counters.get("lun_qfull", 0)),
        "commands_per_io": float(counters["commands"] / ios) if ios else 0.0,
        "ios": float(ios),
    }


def verdict(
    metric: str | None,
    better: Literal["higher", "lower"],
    before: Mapping[str, float],
    after: Mapping[str, float],
    ios: int = 0,
) -> Literal["agrees", "no clear difference", "disagrees", "not judged"]:
    """Did the fix move ``metric`` the way the finding predicts (beyond the noise band)?"""
    if metric is None or metric not in before or metric not in after:
        return "not judged"
    b, a = before[metric], after[metric]
    if not (math.isfinite(b) and math.isfinite(a)) or after.get("ios", 1.0) == 0:
        return "not judged"
    scale = max(abs(b), abs(a))
    if metric.endswith("qfull"):
        scale = max(scale, 0.01 * ios)
    if scale == 0:
        return "no clear difference"
    change = (a - b) / scale
    gain = change if better == "higher" else -change
    if gain > VERDICT_TOLERANCE:
        return "agrees"
    if gain < -VERDICT_TOLERANCE:
        return "disagrees"
    return "no clear difference"


def merge_fixes(fixes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One set of overrides from several (in order of priority).

    A key set twice keeps its first value, except queue depths, which keep the smallest:
    a fan-in or LUN limit outranks a wish for more depth.
    """
    out: dict[str, Any] = {}
    for fix in fixes:
        for key, value in fix.items():
            if key not in out:
                out[key] = value
            elif (
                key.endswith("queue_depth") and isinstance(value, int) and isinstance(out[key], int)
            ):
                out[key] = min(out[key], value)
    return out


def _shortened(s: Scenario, ios: int) -> Scenario:
    """The scenario with a run of at most ``ios`` measured I/Os (no fixed duration).

    The warm-up stays as the scenario sets it (at most ``ios``): a proposal with thousands of
    I/Os in flight needs its own warm-up to reach the regime it was written for.
    """
    n = ios if s.run.ios is None else min(s.run.ios, ios)
    warm = min(s.run.warmup_ios, n)
    changes: dict[str, Any] = {}
    if n != s.run.ios:
        changes["run.ios"] = n
    if warm != s.run.warmup_ios:
        changes["run.warmup_ios"] = warm
    for key in ("duration", "record_interval", "precision"):
        if getattr(s.run, key, None) is not None:
            changes[f"run.{key}"] = None
    return s.with_overrides(changes) if changes else s


def check(
    scenario: Scenario | str | Path | Mapping[str, Any],
    latency_target: float | str | None = None,
    simulate: bool = False,
    ios: int = DEFAULT_CHECK_IOS,
    rules: Sequence[str] | None = None,
    force: bool = False,
) -> CheckReport:
    """Review a proposal: run every rule, and optionally simulate the fixes.

    Parameters
    ----------
    scenario
        A Scenario, a YAML path or a dict.
    latency_target
        Seconds (or a duration string such as ``"10ms"``) for SP011; None skips that rule.
    simulate
        Give each error or warning with a fix a second opinion: the proposal and the fixed
        proposal simulated with the same seed, ``ios`` measured I/Os each (at most the
        scenario's own ``run.ios``). The proposal is simulated once.
    ios
        Measured I/Os per simulated run.
    force
        Simulate even when :func:`sanpath.sim.budget.check` estimates more memory or time than
        its limits.
    rules
        Ids (or ``SPnnn`` numbers) of the rules to run; all by default.

    Raises
    ------
    ScenarioError
        When the scenario does not validate.
    ValueError
        For a bad latency target or ``ios``.
    """
    s = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if isinstance(latency_target, str):
        latency_target = units.parse_duration(latency_target)
    if latency_target is not None and latency_target <= 0:
        raise ValueError(f"the latency target must be positive, got {latency_target!r}")
    if ios < 1:
        raise ValueError(f"ios must be at least 1, got {ios}")
    options = CheckOptions(latency_target=latency_target)
    selected = RULES if rules is None else [rule_by_id(r) for r in rules]
    found: list[Finding] = []
    for r in selected:
        found.extend(r.func(s, options))
    found.sort(key=lambda f: -_RANK[f.severity])
    if not simulate:
        return CheckReport(s.name, tuple(found), latency_target=latency_target)
    from sanpath.sim.engine import run
    from sanpath.theory.explain import explain

    base = _shortened(s, ios)
    n_ios = base.run.ios
    assert n_ios is not None  # _shortened fixes the length
    first = explain(base, run(base, force=force))
    before = result_metrics(first)
    # the whole run: its warm-up and its measured window
    total = first.run_info.get("warmup_seconds", 0.0) + first.sim_seconds
    limit: dict[str, Any] = {}
    if total > 0:
        cap = FIX_TIME_LIMIT * total
        if base.run.max_time is not None:
            cap = min(cap, base.run.max_time)
        limit = {"run.max_time": cap}
    runs: dict[str, tuple[dict[str, float], str | None]] = {}

    def simulate_fix(fix: Mapping[str, Any]) -> tuple[dict[str, float], str | None]:
        key = json.dumps(_jsonable(dict(fix)), sort_keys=True)
        if key not in runs:
            try:
                fixed = base.with_overrides({**fix, **limit})
                runs[key] = (result_metrics(run(fixed, force=force)), None)
            except ScenarioError as exc:
                runs[key] = ({}, str(exc))
        return runs[key]

    out: list[Finding] = []
    state_fix: dict[str, Any] = {}
    state = before
    steps = 0
    for f in found:
        r = rule_by_id(f.rule)
        fix = f.fix
        if not (fix and f.severity in ("error", "warning") and r.simulate):
            out.append(f)
            continue
        after, error = simulate_fix(fix)
        judged = verdict(r.metric, r.better, before, after, n_ios) if error is None else None
        step = None
        if steps and error is None:
            merged = merge_fixes([state_fix, fix])
            if merged == state_fix:
                cum, cum_error = state, None
            else:
                cum, cum_error = simulate_fix(merged)
            if cum_error is None:
                cum_verdict = verdict(r.metric, r.better, state, cum, n_ios)
                step = Step(before=state, after=cum, fix=merged, verdict=cum_verdict)
                state_fix, state = merged, cum
        elif error is None:
            state_fix, state = dict(fix), after
        if error is None:
            steps += 1
        opinion = SecondOpinion(
            before=before,
            after=after,
            fix=dict(fix),
            metric=r.metric,
            better=r.better,
            verdict=judged if judged is not None else "not judged",
            ios=n_ios,
            seed=base.seed,
            error=error,
            with_earlier=step,
        )
        out.append(dataclasses.replace(f, second_opinion=opinion))
    combined = None
    if steps > 1:
        combined = SecondOpinion(
            before, state, state_fix, None, "higher", "not judged", n_ios, base.seed
        )
    return CheckReport(
        s.name,
        tuple(out),
        latency_target=latency_target,
        simulated=True,
        proposal=before,
        combined=combined,
        ios=n_ios,
        steady=first.steady,
        warnings=first.warnings,
    )


# --------------------------------------------------------------------------------------
# Text report
# --------------------------------------------------------------------------------------


def _wrap(text: str, indent: str, first: str = "") -> list[str]:
    return textwrap.wrap(
        text, width=100, initial_indent=indent + first, subsequent_indent=indent + " " * len(first)
    )


def _opinion_lines(op: SecondOpinion, indent: str) -> list[str]:
    lines = [f"{indent}Second opinion: simulated with seed {op.seed}, {op.ios} I/Os each"]
    if op.error is not None:
        lines += _wrap(f"the fixed scenario does not run: {op.error}", indent + "  ")
        return lines
    step = op.with_earlier
    columns: list[tuple[str, Mapping[str, float]]] = [("proposal", op.before)]
    if step is None:
        columns.append(("fixed", op.after))
    else:
        columns += [
            ("this fix", op.after),
            ("earlier", step.before),
            ("+this fix", step.after),
        ]
    lines.append(f"{indent}  {'':24}" + "".join(f"{name:>11}" for name, _ in columns))
    for key, label in METRIC_LABELS.items():
        whole = key in ("iops", "mb_per_s") or key.endswith("qfull")
        cells = "".join(
            f"{values.get(key, math.nan):11.0f}" if whole else f"{values.get(key, math.nan):11.2f}"
            for _, values in columns
        )
        mark = " <" if key == op.metric else ""
        lines.append(f"{indent}  {label:24}{cells}{mark}")
    for name, values in columns[1:]:
        done = values.get("ios", float(op.ios))
        if done < op.ios:
            lines += _wrap(
                f"({name}: stopped at {FIX_TIME_LIMIT:g}x the proposal's simulated time after "
                f"{done:.0f} of {op.ios} I/Os)",
                indent + "  ",
            )
    if op.metric is not None:
        what = f"{METRIC_LABELS.get(op.metric, op.metric)} ({op.better} is better)"
        if step is None:
            lines.append(f"{indent}  verdict on {what}: {op.verdict}")
        else:
            lines += _wrap(
                f"verdict on {what}: this fix alone {op.verdict}; on top of the earlier "
                f"fixes {step.verdict}",
                indent + "  ",
            )
    return lines


def _render_text(report: CheckReport, source: str | None) -> str:
    counts = report.counts()
    head = f"sanpath check: {report.scenario}" + (f" ({source})" if source else "")
    lines = [head]
    if not report.findings:
        lines.append("no findings")
    else:
        lines.append(
            f"{len(report.findings)} finding(s): "
            + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES if counts[s])
        )
    if report.latency_target is not None:
        lines.append(f"latency target: {report.latency_target * 1e3:g} ms")
    for w in report.warnings:
        prefix = "NOT STEADY STATE (simulated proposal): " if not report.steady else "WARNING: "
        lines += _wrap(w, "", prefix)
    for f in report.findings:
        lines.append("")
        lines.append(f"{f.severity.upper():8} {f.rule}: {f.title}")
        lines += _wrap(f.message, "  ")
        lines += _wrap(f.mechanism, "  ", "Why: ")
        lines += _wrap(f.fix_text, "  ", "Fix: ")
        if f.fix:
            lines.append(f"  Try: sanpath run {source or 'PROPOSAL.yaml'} {_set_args(f.fix)}")
        lines += _wrap(f.source, "  ", "Source: ")
        if f.second_opinion is not None:
            lines += _opinion_lines(f.second_opinion, "  ")
    if report.combined is not None:
        lines.append("")
        lines.append("Every simulated fix together:")
        lines.append(f"  {_set_args(report.combined.fix)}")
        lines += _opinion_lines(report.combined, "  ")
    elif (
        report.simulated
        and report.proposal is not None
        and not any(f.second_opinion for f in report.findings)
    ):
        lines.append("")
        lines.append(f"Simulated proposal ({report.ios} I/Os):")
        for key, label in METRIC_LABELS.items():
            lines.append(f"  {label:26}{report.proposal.get(key, math.nan):12.2f}")
    return "\n".join(lines)


__all__ = [
    "RULES",
    "CheckOptions",
    "CheckReport",
    "Finding",
    "Limits",
    "PathAnalysis",
    "Rule",
    "SecondOpinion",
    "Step",
    "check",
    "estimate_latency",
    "fan_in",
    "merge_fixes",
    "parallel_units",
    "port_balance",
    "result_metrics",
    "rule_by_id",
    "safe_host_queue_depth",
    "verdict",
]
