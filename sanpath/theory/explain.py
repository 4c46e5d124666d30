"""What the analytic twin adds to a simulated run's warnings.

The simulator sees that an open loop's queue keeps growing; the twin knows the path's
capacity and which station sets it. :func:`explain` puts the two together, so an unstable
run is reported with the capacity and the bottleneck named, not as a latency.
"""

from __future__ import annotations

import dataclasses
import math

from sanpath.results import RunResult
from sanpath.spec import Scenario


def capacity(scenario: Scenario) -> tuple[float, str] | None:
    """(IOPS the path can carry, bottleneck station) when the twin finds the open loops'
    offered load beyond it; None when the load fits (or there is no open loop)."""
    if all(w.closed for w in scenario.workloads):
        return None
    from sanpath.theory.twin import predict

    twin = predict(scenario)
    if math.isfinite(twin.latency_ms_mean):
        return None
    return twin.iops, twin.bottleneck


def offered_iops(scenario: Scenario) -> float:
    """Application I/Os per second the open loops offer, every host together."""
    hosts = {h.name: h.count for h in scenario.hosts}
    total = 0.0
    for w in scenario.workloads:
        if w.rate is None:
            continue
        names = list(hosts) if w.hosts == "all" else list(w.hosts)
        total += w.rate * sum(hosts[n] for n in names)
    return total


def explain(scenario: Scenario, result: RunResult) -> RunResult:
    """``result`` with the twin's capacity and bottleneck added to an unstable run's warnings.

    A run is explained when the simulator found its open loop unstable or not steady; the
    twin is asked only then (and for open loops only).
    """
    unstable = bool(result.run_info.get("unstable"))
    if result.steady and not unstable:
        return result
    found = capacity(scenario)
    if found is None:
        return result
    limit, bottleneck = found
    note = (
        f"the open loops offer {offered_iops(scenario):,.0f} I/O per s; the analytic twin "
        f"names {bottleneck} as the bottleneck (its capacity estimate: {limit:,.0f} I/O per s; "
        f"the simulated path completed {result.iops:,.0f}): the reported latency is not a "
        "steady value (it grows with the run length), only the throughput is"
    )
    return dataclasses.replace(result, warnings=(*result.warnings, note), steady=False)
