"""Rules on the array's command queues: SP001 port fan-in, SP002 per-LUN limit.

Past a limit, both state what the refusals cost the controller
(:func:`sanpath.advice.rules.qfull.refusal_cost`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from sanpath.advice.analysis import Limits, PathAnalysis, cap_fix, largest_cap
from sanpath.advice.fmt import host_label, num, pct
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.advice.report import Finding, Severity
from sanpath.advice.rules.qfull import refusal_cost
from sanpath.layout import PathInfo
from sanpath.spec import Scenario

FAN_IN_WARNING = 0.8
"""Fan-in above this share of the port queue is a warning (EMC plans with 1600 of 2048 slots,
78%)."""
LUN_QUEUE_WARNING = 0.8
"""Commands per LUN above this share of the array's per-LUN limit are a warning."""

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


def safe_host_queue_depth(scenario: Scenario, share: float = 1.0) -> int | None:
    """Largest host ``lun_queue_depth`` cap keeping every port's fan-in within ``share`` of
    its queue (None when even 1 is too much, or the ports have no queue limit: then the
    largest value searched, 65536)."""
    pa = PathAnalysis(scenario)
    return _safe_port_cap(pa, share)


def _safe_port_cap(pa: PathAnalysis, share: float) -> int | None:
    """:func:`safe_host_queue_depth` on an existing analysis."""
    pq = pa.scenario.array.port_queue_depth
    if pq is None:
        return 1 << 16

    def ok(q: float) -> bool:
        loads = pa.port_loads(pa.route_loads(Limits(host_cap=q)))
        return max(loads.values()) <= share * pq

    return largest_cap(ok)


def _hosts_touching(pa: PathAnalysis, route_filter: Callable[[PathInfo], bool]) -> list[int]:
    """Host groups with an active route that ``route_filter`` accepts."""
    return sorted({r.group for r in pa.routes if r.active and route_filter(r)})


def _fan_in_missed(f: Finding) -> str | None:
    """Why a fan-in error can stand without simulated QUEUE FULL: the proposal's own load
    stays within the port queue, and the error is about what the queue depths allow."""
    n = f.numbers
    at_load, queue = n.get("fan_in_at_workload"), n.get("port_queue_depth")
    if at_load is None or queue is None or at_load > queue:
        return None
    return (
        f"the simulation carries the proposal's own workload, which puts {num(at_load)} "
        f"commands on port {n['port']}, within its {num(queue)}-slot queue, so it cannot show "
        f"QUEUE FULL; the error is about the {num(n['fan_in'])} commands the queue depths "
        "allow once every path is busy (a burst, a backup, a path failover)"
    )


def _lun_queue_missed(f: Finding) -> str | None:
    """As :func:`_fan_in_missed`, for one LUN's queue."""
    n = f.numbers
    at_load, limit = n.get("commands_at_workload"), n.get("lun_queue_limit")
    if at_load is None or limit is None or at_load > limit:
        return None
    return (
        f"the simulation carries the proposal's own workload, which sends {num(at_load)} "
        f"commands to LUN {n['lun']}, within its limit of {limit}, so it cannot show QUEUE "
        f"FULL; the error is about the {num(n['commands'])} commands the queue depths allow "
        "once every path is busy"
    )


@rule(
    "SP001-fan-in",
    "error",
    "port queue fan-in",
    metric="port_qfull",
    better="lower",
    source=SRC_FAN_IN,
    missed=_fan_in_missed,
)
def check_fan_in(s: Scenario, options: CheckOptions) -> list[Found]:
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
            f"{host_label(host)}: {host.count} x {len(mine)} active LUN path(s) x "
            f"{num(per_instance / len(mine))} commands = {num(host.count * per_instance)}"
        )
    storm, storm_text = refusal_cost(s, pa, loads, on_port, max(0.0, 1.0 - pq / total))
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
        **(storm if severity == "error" else {}),
    }
    limit_word = "exceeds" if severity == "error" else "is over 80% of"
    over_text = ", ".join(f"port {a} ({num(over[a])} commands)" for a in sorted(over))
    message = (
        f"With every path full, array port {worst} can be sent {num(total)} commands, "
        f"{pct(total / pq)} of its {num(pq)}-slot queue ({'; '.join(lines)}). "
        f"The proposal's own workload would put {num(at_load[worst])} there. "
        f"Array ports over 80% of their queue: {over_text}. "
        f"Vendor arithmetic for this port ({initiators} initiator port(s), {luns_on_port} "
        f"LUN(s)): EMC {pq} / ({initiators} x {luns_on_port}) = {emc} per LUN; NetApp "
        f"{netapp} per initiator; Hitachi {pq} / {luns_on_port} LUNs, at most 32 = {hitachi}."
    )
    if severity == "error" and storm_text:
        message += " " + storm_text
    fix: dict[str, Any] | None = None
    if target is not None:
        fix = cap_fix(s, _hosts_touching(pa, lambda r: r.array_port in over), target) or None
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
        Found(
            severity=severity,
            title=f"Array port {worst} fan-in {num(total)} {limit_word} its queue of {num(pq)}",
            message=message,
            mechanism=(
                "Every initiator may keep its queue depth of commands in flight on every LUN "
                "path, and all of them share the port's command slots. When the sum is larger, "
                "the port answers QUEUE FULL and the hosts back off, which stalls I/O and "
                "stretches the latency tail; every refusal and retry also costs the array's "
                "controller time (array.qfull_time) taken from the commands it admitted."
            ),
            numbers=numbers,
            fix=fix,
            fix_text=fix_text,
        )
    ]


@rule(
    "SP002-lun-queue",
    "error",
    "array per-LUN queue limit",
    metric="lun_qfull",
    better="lower",
    source=SRC_LUN_QUEUE,
    missed=_lun_queue_missed,
)
def check_lun_queue(s: Scenario, options: CheckOptions) -> list[Found]:
    """Commands the hosts can send to one LUN against the array's per-LUN limit.

    For each LUN group with a limit (an integer, or CLARiiON/VNX 32 + 14 x data drives),
    add the commands every host's active paths to one LUN can hold (as for the fan-in).
    Error above the limit: the array answers QUEUE FULL; warning above 80%.
    """
    pa = options.paths(s)
    full = pa.lun_loads(pa.route_loads(Limits()))
    at_load = pa.lun_loads(pa.route_loads(Limits(full_load=False)))
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

        target = largest_cap(ok)
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
                f"{host_label(host)}: {host.count} x {len(mine)} active path(s) x "
                f"{num(per / len(mine))} = {num(host.count * per)}"
            )
        on_lun = [r for g in users for r in pa.active(g, worst)]
        storm, storm_text = refusal_cost(s, pa, loads, on_lun, max(0.0, 1.0 - limit / total))
        pool = pa.luns[worst].pool
        setting = group.queue_depth if group.queue_depth is not None else s.array.lun_queue_depth
        how = (
            f"32 + 14 x {pool.data_drives * pool.groups} data drives = {limit}"
            if setting == "clariion"
            else f"{limit}"
        )
        fix = None
        if target is not None:
            fix = cap_fix(s, users, target) or None
            fix_text = (
                f"Cap the per-LUN queue depth of the hosts sharing {group.name} at {target}, the "
                f"largest uniform value that keeps one LUN within "
                f"{'its limit' if severity == 'error' else '80% of its limit'}; or spread the "
                "load over more LUNs."
            )
        else:
            fix_text = "Even one command per path is too many: spread the load over more LUNs."
        findings.append(
            Found(
                severity=severity,
                title=(
                    f"LUN {pa.luns[worst].name} can be sent {num(total)} commands; the array "
                    f"accepts {limit} per LUN"
                ),
                message=(
                    f"LUN group {group.name}: with every path full, one LUN can be sent "
                    f"{num(total)} commands ({'; '.join(parts)}), {pct(total / limit)} of the "
                    f"array's per-LUN limit ({how})."
                    + (f" {storm_text}" if severity == "error" and storm_text else "")
                ),
                mechanism=(
                    "The array keeps a fixed number of command slots per LUN, shared by every "
                    "host and path. Commands beyond it are refused with QUEUE FULL and retried "
                    "after a back-off, so a deeper host queue buys no throughput and adds "
                    "latency; every refusal also costs the controller time (array.qfull_time), "
                    "so enough of them lower the throughput."
                ),
                numbers={
                    "lun_group": group.name,
                    "lun": pa.luns[worst].name,
                    "lun_queue_limit": limit,
                    "commands": total,
                    "commands_at_workload": at_load[worst],
                    "utilization": total / limit,
                    "hosts_sharing": sharing,
                    "safe_host_queue_depth": target,
                    **(storm if severity == "error" else {}),
                },
                fix=fix,
                fix_text=fix_text,
            )
        )
    return findings
