"""What a QUEUE FULL costs: adding hosts past a LUN's queue limit (docs/model.md).

Every host keeps 32 commands on one LUN whose array queue holds 32 (Hitachi's per-LUN
limit). Past the limit the extra commands are refused and retried every 3 ms. When a refusal
is free (``array.qfull_time: 0``) throughput stays on the plateau the LUN's 32 slots give;
when each refusal takes the controller 10 us, the refusals of 24 hosts saturate its one core,
admitted commands wait behind them holding their LUN slots, and throughput falls. A throttle
that steps the hosts' queue depths down (VMware adaptive queue depth) takes the refused
commands back and recovers the plateau.
"""

from __future__ import annotations

import functools
from typing import Any

import pytest

import sanpath
from sanpath.results.diff import intervals_overlap
from sanpath.spec import load_scenario
from sanpath.theory.qfull import refusal_load
from sanpath.theory.twin import predict


def lun_fan_in(hosts: int, qfull_time: str, throttle: str = "none") -> dict[str, Any]:
    """``hosts`` hosts x 32 commands onto one LUN of 16 15k drives with a 32-command limit."""
    return {
        "name": "lun-fan-in",
        "seed": 5,
        "run": {"ios": 2_000, "warmup_ios": 500, "warmup": "fixed"},
        "hosts": [
            {
                "name": "h",
                "count": hosts,
                "lun_queue_depth": 32,
                "multipath": "failover",
                "qfull": {"retry_delay": "3ms", "throttle": throttle},
                "hbas": [{"ports": 1, "speed": "8GFC", "queue_depth": 32, "command_time": "10us"}],
            }
        ],
        "array": {
            "ports": 1,
            "port_queue_depth": None,
            "lun_queue_depth": 32,
            "qfull_time": qfull_time,
            "controller": {"cores": 1, "io_time": "20us"},
            "pools": [{"name": "p", "raid": "raid0", "drives": 16, "drive": "hdd-15k"}],
            "luns": [{"name": "l", "pool": "p"}],
        },
        "workloads": [{"name": "w", "outstanding": 32, "block_size": "8KiB", "read_fraction": 1.0}],
    }


@functools.cache
def run(hosts: int, qfull_time: str, throttle: str = "none") -> sanpath.RunResult:
    return sanpath.run(lun_fan_in(hosts, qfull_time, throttle))


def ci(r: sanpath.RunResult) -> tuple[float, float]:
    return r.ci95["iops"]


def test_free_refusals_keep_the_plateau_past_the_lun_limit() -> None:
    at_limit, past = run(2, "0us"), run(24, "0us")
    assert past.counters["lun_qfull"] > 20 * at_limit.counters["lun_qfull"] > 0
    assert intervals_overlap(ci(at_limit), ci(past)), (ci(at_limit), ci(past))
    assert past.station("array.controller").utilization < 0.1


def test_costly_refusals_make_throughput_fall_past_the_lun_limit() -> None:
    at_limit, past = run(2, "10us"), run(24, "10us")
    controller = past.station("array.controller")
    assert controller.utilization > 0.95  # saturated by the refusals
    assert ci(past)[1] < ci(at_limit)[0], (ci(at_limit), ci(past))
    assert past.iops < 0.95 * run(24, "0us").iops
    # the admitted commands wait for the controller behind the refusals
    assert past.breakdown_ms["controller"] > 20 * at_limit.breakdown_ms["controller"]
    assert past.bottlenecks[0].kind == "controller"


def test_a_throttle_recovers_the_plateau() -> None:
    fallen, throttled, at_limit = run(24, "10us"), run(24, "10us", "vmware"), run(2, "10us")
    assert throttled.counters["qfull"] < 0.1 * fallen.counters["qfull"]
    assert ci(throttled)[0] > ci(fallen)[1], (ci(fallen), ci(throttled))
    assert intervals_overlap(ci(throttled), ci(at_limit)), (ci(at_limit), ci(throttled))


def test_the_twin_charges_the_refusals_to_the_controller() -> None:
    """The twin's open class of refusals: none at the limit, the controller saturated and
    less throughput with 24 hosts, none again when refusals are free or hosts throttle."""
    at_limit = predict(load_scenario(lun_fan_in(2, "10us")))
    past = predict(load_scenario(lun_fan_in(24, "10us")))
    free = predict(load_scenario(lun_fan_in(24, "0us")))
    throttled = predict(load_scenario(lun_fan_in(24, "10us", "vmware")))
    assert past.utilization["array.controller"] > 0.95
    assert any(note.startswith("QUEUE FULL storm") for note in past.notes)
    assert past.iops < 0.97 * free.iops
    assert free.iops == pytest.approx(throttled.iops, rel=1e-9)
    assert not any(note.startswith("QUEUE FULL storm") for note in throttled.notes)
    assert free.utilization["array.controller"] < 0.1
    assert at_limit.iops == pytest.approx(free.iops, rel=0.02)
    # and it agrees with the simulated fall in direction and rough size
    sim_fall = run(24, "10us").iops / run(24, "0us").iops
    assert past.iops / free.iops == pytest.approx(sim_fall, abs=0.1)


def test_refusal_load_solves_the_retry_loop() -> None:
    """E commands cycling through a delay D and the controller: lambda = E / (D + R)."""
    light = refusal_load([(30.0, 3e-3)], 10e-6, 1)
    assert light.rate == pytest.approx(30.0 / (3e-3 + light.residence), rel=1e-6)
    assert light.utilization == pytest.approx(light.rate * 10e-6, rel=1e-9)
    assert light.utilization < 0.15
    heavy = refusal_load([(400.0, 3e-3), (400.0, 3e-3)], 10e-6, 1, busy=0.2)
    assert 0.75 < heavy.utilization < 0.8  # saturated: what the admitted commands leave
    assert refusal_load([(0.0, 3e-3)], 10e-6, 1).rate == 0.0
    assert refusal_load([(100.0, 3e-3)], 0.0, 1).utilization == 0.0
