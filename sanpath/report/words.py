"""A scenario in words: one sentence per part of the path, as a planner would say it."""

from __future__ import annotations

from sanpath.layout import command_limit
from sanpath.readable import duration, rate, size
from sanpath.spec import Scenario, WorkloadSpec

__all__ = ["scenario_in_words"]


def _limit(value: object, what: str) -> str:
    if value is None:
        return f"no {what} limit"
    return f"{what} {value:,}" if isinstance(value, int) else f"{what} {value}"


def _sizes(workload: WorkloadSpec) -> str:
    mix = workload.block_size
    if len(mix) == 1:
        return size(mix[0][0])
    return ", ".join(f"{100 * share:.0f}% {size(nbytes)}" for nbytes, share in mix)


def _workload(w: WorkloadSpec) -> str:
    who = "every host" if w.hosts == "all" else "hosts " + ", ".join(w.hosts)
    where = "every LUN" if w.luns == "all" else "LUNs " + ", ".join(w.luns)
    if w.closed:
        load = f"keeps {w.outstanding_per_lun} I/Os outstanding per LUN"
        if w.threads > 1:
            load += f" in each of {w.threads} threads"
    else:
        load = f"issues {w.rate:,.0f} I/Os per second per host (Poisson arrivals)"
    reads = f"{100 * w.read_fraction:.0f}% reads"
    copy = " and copies what it reads to other LUNs" if w.copy_to is not None else ""
    return (
        f"Workload {w.name}: {who} {load} to {where}: {w.pattern} {_sizes(w)} I/Os, {reads}{copy}."
    )


def scenario_in_words(scenario: Scenario) -> list[str]:
    """Sentences describing ``scenario`` from the hosts to the drives, then its workloads."""
    out = []
    for host in scenario.hosts:
        cards = sum(h.count for h in host.hbas)
        ports = sum(h.count * h.ports for h in host.hbas)
        hba = host.hbas[0]
        speed = rate(hba.speed)
        limit = command_limit(host)  # the smaller of the host's and its HBAs' limits
        split = "" if limit is None else f", splitting I/Os above {size(limit)}"
        out.append(
            f"{host.count} host{'s' if host.count > 1 else ''} {host.name}: {cards} HBA "
            f"card{'s' if cards > 1 else ''} with {ports} port{'s' if ports > 1 else ''} "
            f"({speed}, {_limit(hba.queue_depth, 'queue depth')}), multipath "
            f"{host.multipath}, {_limit(host.lun_queue_depth, 'per-LUN queue')}{split}; "
            f"QUEUE FULL throttle {host.qfull.throttle}."
        )
    fabric = scenario.fabric
    out.append(
        f"Fabric: {duration(fabric.one_way_latency)} one way, zoning "
        f"{scenario.zoning if isinstance(scenario.zoning, str) else 'by zones'}."
    )
    array = scenario.array
    port_speed = rate(array.port_speed)
    cache = array.cache
    write_back = (
        f"{size(cache.write_back)} write-back cache" if cache.write_back else "no write cache"
    )
    if cache.read_hit is not None:
        read_hit = f"read hit {100 * cache.read_hit:.0f}%"
    elif cache.read_cache:
        read_hit = f"{size(cache.read_cache)} read cache (hits follow the access skew)"
    else:
        read_hit = "no read hits"
    # the array's default name is "array": "Array array:" says it twice
    named = "The array" if array.name.lower() == "array" else f"Array {array.name}"
    out.append(
        f"{named}: {array.ports} front-end port{'s' if array.ports > 1 else ''} "
        f"({port_speed}, {_limit(array.port_queue_depth, 'queue depth')}), "
        f"{array.controller.cores} controller core{'s' if array.controller.cores > 1 else ''}, "
        f"{write_back}, {read_hit}, read-ahead "
        f"{size(cache.read_ahead) if cache.read_ahead else 'off'}."
    )
    for pool in array.pools:
        groups = f"{pool.groups} groups of " if pool.groups > 1 else ""
        out.append(
            f"Pool {pool.name}: {pool.raid.upper()} over {groups}{pool.drives} drives, stripe "
            f"element {size(pool.stripe_element)}."
        )
    for lun in array.luns:
        shown = "every port" if lun.ports == "all" else "ports " + ", ".join(map(str, lun.ports))
        out.append(
            f"LUN{'s' if lun.count > 1 else ''} {lun.name} (x{lun.count}) on pool {lun.pool}, "
            f"presented on {shown}, {_limit(lun.queue_depth, 'queue')}."
        )
    out += [_workload(w) for w in scenario.workloads]
    return out
