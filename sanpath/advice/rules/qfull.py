"""QUEUE FULL past an array limit: what the refusals cost (used by SP001 and SP002) and SP016,
hosts that back off beside hosts that do not.

The refusal estimate is the twin's (:func:`sanpath.theory.qfull.refusal_load`): the commands
beyond a limit that hosts without a throttle keep retrying cost the controller
``array.qfull_time`` per try.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sanpath.advice.analysis import Limits, PathAnalysis
from sanpath.advice.fmt import host_label, num
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.readable import duration
from sanpath.spec import Scenario
from sanpath.theory import refusal_load, retry_cycle

SRC_THROTTLE_MIX = (
    "VMware KB 1008113 (Broadcom 311232), 'Controlling LUN queue depth throttling': for the "
    "adaptive queue depth algorithm to be effective all hosts sharing the LUN or array port "
    "must throttle, otherwise 'the hosts that are not running the algorithm may consume the "
    "resources/slots on the array that are freed up by the adaptive hosts', which then see "
    "lower throughput."
)


def refusal_cost(
    s: Scenario, pa: PathAnalysis, loads: list[float], routes: Iterable[int], over: float
) -> tuple[dict[str, Any], str]:
    """Numbers and a sentence on the refusals of the commands beyond one limit.

    ``routes`` are the active routes that share the limit, ``loads`` the commands each holds
    per host instance, ``over`` the share of them beyond the limit (``1 - limit / total``).
    """
    retrying: list[tuple[float, float]] = []
    loose: set[int] = set()
    throttled: dict[int, str] = {}
    for r in routes:
        route = pa.routes[r]
        host = s.hosts[route.group]
        if host.qfull.throttle != "none":
            throttled[route.group] = host.qfull.throttle
            continue
        loose.add(route.group)
        hba = pa.host_ports[route.group][route.port].hba
        retrying.append((loads[r] * host.count * over, retry_cycle(s, route.group, hba)))
    cores = s.array.controller.cores
    qfull_time = s.array.qfull_time
    load = refusal_load(retrying, qfull_time, cores)
    numbers: dict[str, Any] = {
        "retrying_commands": load.retrying,
        "refusals_per_s": load.rate,
        "refusal_controller_share": load.utilization,
    }
    if load.retrying > 0 and qfull_time > 0:
        saturated = " (all it can give: saturated)" if load.utilization > 0.95 else ""
        text = (
            f"Without a throttle, {', '.join(host_label(s.hosts[g]) for g in sorted(loose))} "
            f"keep {num(load.retrying)} of these commands refused and retried: about "
            f"{num(load.rate)} QUEUE FULL answers per second at {duration(qfull_time)} each, "
            f"{load.utilization:.0%} of the array controller's {cores} core(s){saturated}, which "
            "the admitted commands wait behind: past this point more hosts bring less "
            "throughput and more latency."
        )
    elif throttled:
        policies = ", ".join(sorted(set(throttled.values())))
        text = (
            f"The hosts throttle ({policies}): they step their queue depths down after QUEUE "
            "FULL answers and back up over time, so the array refuses in bursts."
        )
    else:
        text = ""
    return numbers, text


def _groups_over_limits(s: Scenario, pa: PathAnalysis) -> list[tuple[str, list[int]]]:
    """For every port and LUN whose full-load commands exceed its limit: what it is and the
    host groups with an active route to it."""
    loads = pa.route_loads(Limits())
    out: list[tuple[str, list[int]]] = []
    pq = s.array.port_queue_depth
    if pq is not None:
        for a, total in sorted(pa.port_loads(loads).items()):
            if total > pq:
                groups = {r.group for r in pa.routes if r.active and r.array_port == a}
                out.append((f"array port {a} ({num(total)} commands, queue {pq})", sorted(groups)))
    lun_loads = pa.lun_loads(loads)
    for li, place in enumerate(pa.luns):
        limit = place.limit
        if limit is None or lun_loads[li] <= limit:
            continue
        groups = {r.group for r in pa.routes if r.active and r.lun == li}
        out.append(
            (f"LUN {place.name} ({num(lun_loads[li])} commands, limit {limit})", sorted(groups))
        )
    return out


@rule(
    "SP016-throttle-mix",
    "warning",
    "throttling hosts beside hosts that do not throttle",
    metric="fairness_jain",
    better="higher",
    source=SRC_THROTTLE_MIX,
)
def check_throttle_mix(s: Scenario, options: CheckOptions) -> list[Found]:
    """Hosts that throttle after QUEUE FULL sharing an over-subscribed port or LUN with hosts
    that do not.

    For every array port and LUN whose commands at full load exceed its queue, the host
    groups with an active path to it: when some throttle (``qfull.throttle``) and some do
    not, the throttling hosts give up the slots the others then take, and starve.
    """
    pa = options.paths(s)
    victims: dict[int, list[str]] = {}
    culprits: set[int] = set()
    for what, groups in _groups_over_limits(s, pa):
        loose = [g for g in groups if s.hosts[g].qfull.throttle == "none"]
        backing = [g for g in groups if s.hosts[g].qfull.throttle != "none"]
        if loose and backing:
            culprits.update(loose)
            for g in backing:
                victims.setdefault(g, []).append(what)
    if not victims:
        return []
    names = [host_label(s.hosts[g]) for g in sorted(victims)]
    others = ", ".join(host_label(s.hosts[g]) for g in sorted(culprits))
    policy = s.hosts[min(victims)].qfull.throttle
    where = "; ".join(f"{host_label(s.hosts[g])}: {', '.join(w)}" for g, w in victims.items())
    return [
        Found(
            title=f"{', '.join(names)} will starve: they throttle and the hosts beside them do not",
            message=(
                f"Past the array's limits ({where}), {', '.join(names)} lower their queue depth "
                f"after QUEUE FULL while {others} keep retrying at full depth."
            ),
            mechanism=(
                "A refused command keeps no place at the array: the slot a throttling host gives "
                "up goes to whichever command arrives next, mostly the retries of the hosts that "
                "did not back off. The throttling hosts are refused again, step down further and "
                "end with a small share of the LUN or port while their I/Os wait in their own "
                "queues (a run names them as STARVING)."
            ),
            numbers={
                "starving_host_groups": [s.hosts[g].name for g in sorted(victims)],
                "non_throttling_host_groups": [s.hosts[g].name for g in sorted(culprits)],
            },
            fix={f"hosts.{g}.qfull.throttle": policy for g in sorted(culprits)},
            fix_text=(
                f"Give the hosts that do not throttle the same throttle ({policy}), or keep the "
                "sum of the hosts' queue depths within the array's limits (SP001, SP002), or put "
                "the two kinds of host on different array ports."
            ),
        )
    ]
