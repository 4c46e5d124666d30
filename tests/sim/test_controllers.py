"""Two controllers: LUN ownership, optimized and non-optimized paths (ALUA, ANA), and a
controller's failure during a run (array.controllers, failed_controller, failover)."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.spec import ScenarioError


def pair(transport: str = "fcp", ios: int = 12_000, **array: Any) -> dict[str, Any]:
    """One host with two HBA ports, an array of two controllers with four ports (0 and 2
    on controller 0, 1 and 3 on controller 1), two LUNs (LUN 0 owned by controller 0, LUN 1
    by controller 1) on fast drives; forwarding to the owner costs 200 us and crosses a
    link between the controllers."""
    host: dict[str, Any] = {
        "name": "h",
        "transport": transport,
        "hbas": [{"ports": 2, "speed": "16GFC", "command_time": "5us"}],
    }
    if transport == "fcp":
        host.update(lun_queue_depth=32, multipath="round-robin")
    data: dict[str, Any] = {
        "name": "pair",
        "seed": 5,
        "run": {"ios": ios, "warmup_ios": 2_000},
        "hosts": [host],
        "array": {
            "ports": 4,
            "port_speed": "16GFC",
            "controllers": 2,
            "controller": {"cores": 2, "io_time": "20us"},
            "cross_controller": {"time": "200us", "rate": "2GB/s"},
            "cache": {"read_hit": 1.0},
            "pools": [{"name": "p", "raid": "raid0", "drives": 4, "drive": "ssd"}],
            "luns": [{"name": "lun", "count": 2, "pool": "p"}],
            **array,
        },
        "workloads": [
            {
                "name": "w",
                "outstanding": 8,
                "block_size": "8KiB",
                "read_fraction": 1.0,
                "pattern": "random",
            }
        ],
    }
    return data


@pytest.mark.parametrize("transport", ["fcp", "fc-nvme"])
def test_hosts_prefer_the_owners_ports_and_each_controller_serves_its_luns(
    transport: str,
) -> None:
    result = sanpath.run(pair(transport))
    assert result.station("array.cross_controller").completions == 0  # nothing forwarded
    first = result.station("array.controller0").completions
    second = result.station("array.controller1").completions
    assert first == pytest.approx(second, rel=0.1)
    assert first + second == pytest.approx(result.counters["commands"], rel=0.01)


def test_a_failed_controllers_luns_move_to_the_survivor_and_its_ports_go_quiet() -> None:
    result = sanpath.run(pair(), overrides={"array.failed_controller": 0})
    assert result.station("array.controller0").completions == 0
    assert result.station("array.controller1").completions >= result.ios
    for port in (0, 2):
        assert result.station(f"array.port{port}.link.out").completions == 0
    assert result.station("array.cross_controller").completions == 0


def single_attached(ios: int = 16_000) -> dict[str, Any]:
    """The pair with the host zoned to controller 0's port 0 alone and LUN 0 alone, ports
    that forward when their controller fails; controller 0 fails 60 ms in (a third of the
    run)."""
    data = pair(ios=ios, failover="forward")
    data["zoning"] = [{"host": "h", "array_ports": [0]}]
    data["array"]["luns"][0]["count"] = 1
    data["schedule"] = [{"at": 0.06, "set": {"array.failed_controller": 0}}]
    return data


def test_a_controller_failure_moves_ownership_and_the_non_optimized_cost_appears() -> None:
    healthy = sanpath.run(single_attached(), overrides={"schedule": []})
    failed = sanpath.run(single_attached())
    assert healthy.station("array.cross_controller").completions == 0
    assert healthy.station("array.controller1").completions == 0
    # after the failure every command arrives on port 0 and is forwarded to controller 1
    forwarded = failed.station("array.cross_controller").completions
    served = failed.station("array.controller1").completions
    assert served > 0.3 * failed.ios
    assert forwarded == pytest.approx(served, rel=0.02)
    assert failed.latency_ms["mean"] > healthy.latency_ms["mean"] + 0.1  # 200 us of forwarding
    changes = [(row["t_s"], row["key"], row["value"]) for row in failed.settings]
    assert changes == [
        (0.0, "array.failed_controller", None),
        (0.06, "array.failed_controller", 0),
    ]


def test_a_failure_that_leaves_a_host_no_path_is_refused() -> None:
    data = single_attached()
    data["array"]["failover"] = "takeover"
    with pytest.raises(ScenarioError, match="no path to LUN group 'lun' with controller 0"):
        sanpath.load_scenario(data)


def test_failed_controller_needs_two() -> None:
    data = pair()
    data["array"]["controllers"] = 1
    data["array"]["failed_controller"] = 0
    with pytest.raises(ScenarioError, match="failed_controller needs controllers: 2"):
        sanpath.load_scenario(data)
