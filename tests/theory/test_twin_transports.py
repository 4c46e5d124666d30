"""The twin follows the transports: NVMe queue pairs as population caps, the TCP transports'
processor time as a server, the owner controller of each LUN, forwarding on non-optimized
paths (sanpath.theory.twin)."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.theory.twin import predict
from tests.sim.test_controllers import pair
from tests.sim.test_transports import asymmetric, cpu_bound, nvme_san

CASES: dict[str, dict[str, Any]] = {
    "queue pairs cap the population": nvme_san(
        outstanding=64, io_queues=2, queue_size=16, iopolicy="round-robin"
    ),
    "nvme-tcp bound by host processors": cpu_bound("nvme-tcp"),
    "fc-nvme not bound by them": cpu_bound("fc-nvme"),
    "round-robin over a slow path": asymmetric("round-robin"),
    "two controllers, each its LUNs": {
        **pair("fc-nvme"),
        "workloads": [{"name": "w", "outstanding": 32, "block_size": "8KiB", "read_fraction": 1.0}],
    },
}


@pytest.mark.parametrize("case", CASES, ids=list(CASES))
def test_twin_agrees_with_the_simulator(case: str) -> None:
    scenario = sanpath.load_scenario(CASES[case])
    twin = predict(scenario)
    sim = sanpath.run(scenario)
    assert twin.iops == pytest.approx(sim.iops, rel=0.05)
    assert twin.latency_ms_mean == pytest.approx(sim.latency_ms["mean"], rel=0.08)


def test_twin_charges_forwarding_on_a_non_optimized_path() -> None:
    """Controller 0 failed, its port forwarding: the host's only path is non-optimized, and
    the 200 us of forwarding dominate its latency, in the twin as in the simulator."""
    data = pair("fcp", failover="forward", failed_controller=0)
    data["zoning"] = [{"host": "h", "array_ports": [0]}]
    data["array"]["luns"][0]["count"] = 1
    scenario = sanpath.load_scenario(data)
    forwarded, sim = predict(scenario), sanpath.run(scenario)
    assert forwarded.latency_ms_mean == pytest.approx(sim.latency_ms["mean"], rel=0.05)
    assert forwarded.iops == pytest.approx(sim.iops, rel=0.05)
    assert forwarded.latency_ms_mean > 0.2
    assert set(forwarded.utilization) >= {"array.controller1"}
    assert "array.controller0" not in forwarded.utilization
