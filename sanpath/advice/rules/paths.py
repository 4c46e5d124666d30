"""Rules on the paths: SP006 port balance, SP007 enclosure fan-out, SP008 failover, SP009
single path."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sanpath.advice.analysis import PathAnalysis, validated
from sanpath.advice.fmt import host_label
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.spec import Scenario, visible_ports

IMBALANCE_WARNING = 1.5
"""Busiest port carrying this many times the mean load of the ports in use is a warning."""

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
        fixed = validated(s, fix)
        if fixed is None:
            continue
        value = port_balance(PathAnalysis(fixed), "round-robin").worst
        if value < current - 1e-9 and (best is None or value < best[1] - 1e-9):
            best = (fix, value)
    return best


@rule(
    "SP006-port-balance",
    "warning",
    "unbalanced LUN-to-port mapping",
    metric="mb_per_s",
    source=SRC_BALANCE,
)
def check_port_balance(s: Scenario, options: CheckOptions) -> list[Found]:
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
        Found(
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
    "SP007-enclosure-fan-out",
    "warning",
    "HBA port mapped to several enclosures",
    metric="mb_per_s",
    source=SRC_FAN_OUT,
)
def check_enclosure_fan_out(s: Scenario, options: CheckOptions) -> list[Found]:
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
    fixed = validated(s, fix)
    if fixed is None or s.zoning == "one-to-one":
        fix = None
    lines = [
        f"{s.hosts[g].name} HBA port(s) {', '.join(map(str, ps))}" for g, ps in offenders.items()
    ]
    return [
        Found(
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


@rule(
    "SP008-failover-idle",
    "warning",
    "failover policy leaves paths idle",
    metric="iops",
    source=SRC_FAILOVER,
)
def check_failover(s: Scenario, options: CheckOptions) -> list[Found]:
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
            Found(
                title=f"{host.name}: failover keeps {paths - active} of {paths} paths idle",
                message=(
                    f"Host {host_label(host)} uses failover: {active} of its {paths} LUN paths "
                    f"carry I/O ({multi} LUN(s) have more than one path)."
                    + (f" Idle HBA ports: {', '.join(map(str, idle_hp))}." if idle_hp else "")
                    + (f" Idle array ports: {', '.join(map(str, idle_ap))}." if idle_ap else "")
                ),
                mechanism=(
                    "A failover policy sends each LUN's I/O down one path and keeps the others "
                    "for when it fails. With fewer LUNs than paths, or LUNs that fall unevenly, "
                    "some links, HBA slots and per-path queues carry nothing while others queue."
                ),
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


@rule(
    "SP009-single-path", "warning", "LUN with a single path", simulate=False, source=SRC_SINGLE_PATH
)
def check_single_path(s: Scenario, options: CheckOptions) -> list[Found]:
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
        fixed = validated(s, cand)
        if fixed is not None and all(len(v) >= 2 for v in PathAnalysis(fixed).by_pair.values()):
            fix = cand
            break
    lines = [f"{s.hosts[g].name}: {', '.join(names)}" for g, names in single.items()]
    return [
        Found(
            title="LUNs reachable through a single path",
            message=f"One path only (host: LUN groups): {'; '.join(lines)}.",
            mechanism=(
                "With one path, a failed HBA port, cable, switch port or array port takes the "
                "LUN offline, and all of its I/O shares one link and one set of queues."
            ),
            numbers={"single_path": {s.hosts[g].name: n for g, n in single.items()}},
            fix=fix,
            fix_text=(
                "Give every LUN at least two paths, through different HBA ports and array "
                "ports" + (f": {', '.join(f'{k} = {v}' for k, v in fix.items())}." if fix else ".")
            ),
        )
    ]
