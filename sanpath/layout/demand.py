"""What each host asks of the path: the yardstick a host's service is measured against.

A host is served fairly when it gets what it asks for, not when it gets what the others get:
two open-loop host groups offering 100 and 3,000 I/Os per second are both served in full
when they complete 100 and 3,000. :func:`host_demand` gives, per host instance, the I/Os per
second its open loops offer and the I/Os its closed loops keep in flight (``outstanding``
per LUN x threads x LUNs), from the scenario's own load (a schedule's later changes are not
followed; trace replays ask for what their trace holds and are left out).
:func:`sanpath.results.served` turns them into each host's share of what it asked for.
"""

from __future__ import annotations

from sanpath.spec import Scenario, expand_names

__all__ = ["host_demand"]


def host_demand(scenario: Scenario) -> dict[str, dict[str, float]]:
    """Per host instance (``esx[03]``): ``rate``, the I/Os per second its open loops offer,
    and ``outstanding``, the I/Os its closed loops (copy jobs included) keep in flight.
    Hosts that run only trace replays, or nothing, are absent."""
    luns = {group.name: group.count for group in scenario.array.luns}
    out: dict[str, dict[str, float]] = {}
    for w in scenario.workloads:
        if w.trace is not None:
            continue
        groups = [h for h in scenario.hosts if w.hosts == "all" or h.name in w.hosts]
        n_luns = sum(luns.values()) if w.luns == "all" else sum(luns[g] for g in w.luns)
        for host in groups:
            for name in expand_names(host.name, host.count):
                asked = out.setdefault(name, {"rate": 0.0, "outstanding": 0.0})
                if w.closed:
                    asked["outstanding"] += float(w.outstanding_per_lun * w.threads * n_luns)
                else:
                    asked["rate"] += float(w.rate or 0.0)
    return out
