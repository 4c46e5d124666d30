"""Rules on host queue depth against the back end: SP010 too shallow, SP011 past a latency
target."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sanpath.advice.analysis import (
    Limits,
    PathAnalysis,
    cap_fix,
    fan_in,
    largest_cap,
    queue_depth_key,
    smallest,
    validated,
)
from sanpath.advice.costs import estimate_latency, pair_loads, parallel_units, pool_mix
from sanpath.advice.fmt import num
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.spec import HddSpec, Scenario, TextbookDriveSpec
from sanpath.theory.twin import predict

FLASH_BUSY = 0.5
"""Utilization of a flash pool's drives (the twin's) below which SP010 does not speak."""

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


def _overlap(pa: PathAnalysis, pool_index: int, limits: Limits) -> tuple[float, float]:
    """(commands on the pool from random workloads, drive operations they keep in flight)."""
    pairs = pair_loads(pa, pa.route_loads(limits))
    mine = {k: v for k, v in pairs.items() if pa.luns[k[1]].pool_index == pool_index}
    mix = pool_mix(pa, pool_index, mine)
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
            fix[queue_depth_key(s, g)] = q
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


@rule(
    "SP010-queue-too-shallow",
    "warning",
    "queue depth too low for the back end",
    metric="iops",
    source=SRC_SHALLOW,
)
def check_shallow(s: Scenario, options: CheckOptions) -> list[Found]:
    """Too few commands outstanding to keep a pool's drives busy under random I/O.

    For each pool, count the drive operations the random workloads can keep in flight (the
    commands their host and HBA queue depths admit, times the read misses and uncached
    writes, times the drives each command touches) against the drives' parallel units.
    Warning when fewer, and only when a host or HBA depth, not the workload itself, is the
    bound. A flash pool is left out while the analytic twin has its drives less than
    ``FLASH_BUSY`` busy: a flash drive does not reorder seeks, so its many units idle
    without cost when the load is light.
    """
    pa = options.paths(s)
    findings = []
    twin_busy: dict[str, float] | None = None
    for pi, pool in enumerate(s.array.pools):
        if not isinstance(pool.drive, HddSpec | TextbookDriveSpec):
            if twin_busy is None:
                twin_busy = predict(s).utilization
            if twin_busy.get(f"array.{pool.name}.drives", 0.0) < FLASH_BUSY:
                continue  # flash drives with little to do: more depth buys nothing
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

        q = smallest(ok)
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
            fixed = validated(s, fix)
            pq = s.array.port_queue_depth
            if fixed is not None and pq is not None:
                peak = max(fan_in(fixed).values())
                if peak > pq:
                    note = (
                        f" At that depth the busiest port could be sent {num(peak)} commands, more "
                        f"than its {pq} slots: see SP001."
                    )
        findings.append(
            Found(
                title=(f"Pool {pool.name}: {num(ops)} drive operations in flight for {u} drives"),
                message=(
                    f"The random workloads on pool {pool.name} can keep {num(n)} commands "
                    f"outstanding under the queue settings ({'; '.join(settings)}), which "
                    f"become about {num(ops)} drive operations in flight, for {u} parallel "
                    f"drive units. Without the depth limits the workloads would keep "
                    f"{num(ops_free)} in flight."
                ),
                mechanism=(
                    "A drive that has no command waiting is idle, so with fewer outstanding "
                    "operations than drives part of the pool sits still; and a drive with "
                    "several commands queued reorders them to shorten seeks, so more depth also "
                    "raises each drive's rate."
                ),
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
    source=SRC_LATENCY,
    trade=(
        "the target is on the time past the HBA: capping the depth holds the extra commands "
        "in the host, so the application's own latency and IOPS pay for the array's target"
    ),
)
def check_latency_target(s: Scenario, options: CheckOptions) -> list[Found]:
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

    q = largest_cap(ok)
    pairs = pair_loads(pa, loads)
    worst = max(over, key=lambda pi: over[pi])
    pool = s.array.pools[worst]
    n = sum(v for k, v in pairs.items() if pa.luns[k[1]].pool_index == worst)
    groups = sorted({g for (g, li) in pa.by_pair if pa.luns[li].pool_index in over})
    fix = cap_fix(s, groups, q) if q is not None else {}
    rate = n / (over[worst]) if over[worst] > 0 else 0.0
    return [
        Found(
            title=(
                f"Pool {pool.name}: about {over[worst] * 1e3:.1f} ms in the array against a "
                f"{target * 1e3:g} ms target"
            ),
            message=(
                f"The queue settings let {num(n)} commands into pool {pool.name} at the "
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
    ]
