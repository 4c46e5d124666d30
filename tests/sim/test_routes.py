"""Routes made on first use (sanpath.sim.routes) against every route built at the start.

A route made when a path is first taken must start from the state the eager build would
have left it in by then: the capacity a schedule or a QUEUE FULL throttle gave its siblings,
and its place in the order queues are resized in. Runs with both builds must agree to the
last bit.
"""

from __future__ import annotations

from typing import Any

import pytest
import simpy

import sanpath
from sanpath.sim import engine
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology, build_topology
from tests.conftest import SCENARIOS


def every_route(env: simpy.Environment, scenario: Any, streams: Streams) -> Topology:
    """The topology with every route of every host made at once (the eager build)."""
    topology = build_topology(env, scenario, streams)
    for host in topology.hosts:
        for lun, ports in host.paths.items():
            for k in range(len(ports)):
                host.route(lun, k)
    return topology


def busy_san(throttle: str, policy: str) -> dict[str, Any]:
    """Five hosts on the quickstart array, QUEUE FULL at a shallow port queue, and a schedule
    that resizes host queues, HBA slots and the array's queues while paths are being taken."""
    return {
        "run.ios": 1500,
        "run.warmup_ios": 300,
        "run.warmup": "fixed",
        "hosts.0.count": 5,
        "hosts.0.multipath": policy,
        "hosts.0.qfull.throttle": throttle,
        "hosts.0.qfull.sample_size": 2,
        "hosts.0.qfull.ramp_up_period": "20ms",
        "workloads.0.outstanding": None,
        "workloads.0.rate": 500,
        "workloads.0.read_fraction": 0.6,
        "array.port_queue_depth": 10,
        "schedule": [
            {"at": 0.02, "set": {"hosts.0.lun_queue_depth": 3}},
            {"at": 0.1, "set": {"hosts.*.hbas.*.queue_depth": 2, "array.port_queue_depth": 24}},
            {"at": 0.2, "set": {"hosts.0.lun_queue_depth": 7, "array.lun_queue_depth": 5}},
        ],
    }


@pytest.mark.parametrize(
    ("throttle", "policy"),
    [("linux", "round-robin"), ("vmware", "least-queue-depth"), ("storport", "service-time")],
)
def test_routes_made_on_first_use_give_the_results_of_the_eager_build(
    throttle: str, policy: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    spec = sanpath.load_scenario(SCENARIOS / "quickstart.yaml", busy_san(throttle, policy))
    lazy = sanpath.run(spec).to_dict()
    monkeypatch.setattr(engine, "build_topology", every_route)
    eager = sanpath.run(spec).to_dict()
    assert lazy["counters"]["qfull"] > 0  # the throttles had work to do
    assert lazy == eager


def test_a_run_makes_only_the_routes_it_uses() -> None:
    """Twelve hosts on the quickstart's eight LUNs through 2 x 4 paths each: an open loop
    of a few hundred I/Os takes a fraction of the 768 routes."""
    spec = sanpath.load_scenario(
        SCENARIOS / "quickstart.yaml",
        {
            "hosts.0.count": 12,
            "hosts.0.multipath": "failover",
            "workloads.0.outstanding": None,
            "workloads.0.rate": 100,
            "run.ios": 200,
            "run.warmup_ios": 0,
            "run.warmup": "fixed",
        },
    )
    sim = engine.Simulation(spec)
    hosts = sim.topology.hosts
    assert sum(len(p) for h in hosts for p in h.paths.values()) == 12 * 8 * 8
    assert all(h.routes == {} for h in hosts)
    sim.run()
    made = [r for h in hosts for rs in h.routes.values() for r in rs if r is not None]
    assert 0 < len(made) <= 12 * 8  # failover: one path per host and LUN
    by_station = {st.name: st for st in sim.topology.stations.values()}
    assert by_station["db.lun_queue"].servers == 12 * 8 * 8 * 32  # every path's slots
