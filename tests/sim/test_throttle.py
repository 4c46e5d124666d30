"""QUEUE FULL throttles (sanpath.sim.components.host.Throttle), driven by hand.

The rules (docs/model.md step 9, ``QfullSpec``): ``linux`` steps down by one after more than
``sample_size`` QUEUE FULLs (at most one counted per ``window``) and up by one per
``ramp_up_period`` without one; ``vmware``
halves after ``sample_size`` QUEUE FULLs and steps up by one per ``threshold`` good
completions; ``storport`` drops to ``min_depth`` at once and recovers linearly over
``recovery_time``. None goes below ``min_depth`` or back above the configured depth.
"""

from __future__ import annotations

import math
from typing import Any

import pytest
import simpy

from sanpath.sim.components.host import Throttle
from sanpath.sim.station import SlotPool, Station
from sanpath.spec import QfullSpec


def throttle(
    depth: int | None = 32, pools: int = 2, **spec: Any
) -> tuple[Throttle, list[SlotPool]]:
    env = simpy.Environment()
    servers = math.inf if depth is None else float(depth)
    governed = [
        SlotPool(env, depth, Station(f"q{i}", "slots", servers, "host_queue")) for i in range(pools)
    ]
    return Throttle(QfullSpec(**spec), governed), governed


def qfulls(t: Throttle, k: int, now: float = 0.0) -> None:
    for _ in range(k):
        t.on_qfull(now)


def goods(t: Throttle, k: int, now: float = 0.0) -> None:
    for _ in range(k):
        t.on_good(now)


def depths(pools: list[SlotPool]) -> set[int | None]:
    return {p.capacity for p in pools}


# -- vmware -----------------------------------------------------------------------------------


def test_vmware_halves_after_sample_size_queue_fulls() -> None:
    t, pools = throttle(32, throttle="vmware", sample_size=4, threshold=3)
    qfulls(t, 3)
    assert t.depth == 32 and depths(pools) == {32}
    qfulls(t, 1)
    assert t.depth == 16 and depths(pools) == {16}  # every governed queue follows
    qfulls(t, 4)
    assert t.depth == 8 and depths(pools) == {8}
    qfulls(t, 3)  # three more: not yet
    assert t.depth == 8


def test_vmware_steps_up_one_per_threshold_good_completions_up_to_the_setting() -> None:
    t, pools = throttle(32, throttle="vmware", sample_size=4, threshold=3)
    qfulls(t, 8)
    assert t.depth == 8
    goods(t, 2)
    assert t.depth == 8
    goods(t, 1)
    assert t.depth == 9
    goods(t, 3 * 5)  # after k good completions: 8 + k // 3
    assert t.depth == 14 and depths(pools) == {14}
    goods(t, 2)
    t.on_qfull(1.0)  # a QUEUE FULL starts the count of good completions again
    goods(t, 2)
    assert t.depth == 14
    goods(t, 1)
    assert t.depth == 15
    goods(t, 3 * 100)
    assert t.depth == 32 and depths(pools) == {32}  # never above the configured depth


def test_vmware_default_sample_size_is_32_and_min_depth_is_a_floor() -> None:
    t, _ = throttle(8, throttle="vmware", min_depth=3)
    assert t.sample_size == 32
    qfulls(t, 31)
    assert t.depth == 8
    qfulls(t, 1)
    assert t.depth == 4
    qfulls(t, 32)
    assert t.depth == 3  # 4 // 2 = 2, held at min_depth
    qfulls(t, 32)
    assert t.depth == 3


def test_an_unlimited_queue_is_throttled_from_what_is_in_flight() -> None:
    t, pools = throttle(None, throttle="vmware", sample_size=1, threshold=1)
    for _ in range(5):
        assert pools[0].acquire(0.0) is None
    for _ in range(3):
        assert pools[1].acquire(0.0) is None
    t.on_qfull(0.0)
    assert t.depth == 2 and depths(pools) == {2}  # 5 in flight on the busiest, halved
    goods(t, 10)
    assert t.depth == 12  # no configured depth to stop at


# -- linux ------------------------------------------------------------------------------------


def test_linux_steps_down_one_after_more_than_sample_size_queue_fulls() -> None:
    t, pools = throttle(32, throttle="linux", window=0.0)
    assert t.sample_size == 10
    qfulls(t, 10)
    assert t.depth == 32
    qfulls(t, 1)
    assert t.depth == 31 and depths(pools) == {31}
    qfulls(t, 11)
    assert t.depth == 30


def test_linux_counts_one_queue_full_per_window() -> None:
    """scsi_track_queue_full counts at most one QUEUE FULL per 16 jiffies (16 ms at HZ=1000):
    a storm of refusals steps the depth down by one per 11 windows, not per 11 refusals."""
    t, pools = throttle(32, throttle="linux")
    assert t.window == pytest.approx(0.016)
    for w in range(10):
        qfulls(t, 50, now=w * 0.016 + 0.001)  # 50 in one window count once
    assert t.depth == 32
    qfulls(t, 50, now=10 * 0.016 + 0.001)  # the 11th window: more than 10 counted
    assert t.depth == 31 and depths(pools) == {31}
    for w in range(11, 22):
        t.on_qfull(w * 0.016 + 0.015)
    assert t.depth == 30  # 11 more windows, one more step
    t.on_qfull(21 * 0.016 + 0.0155)  # same window as the last one: not counted
    assert t.qfulls == 0


def test_linux_steps_up_one_per_ramp_up_period_without_queue_full() -> None:
    t, pools = throttle(32, throttle="linux", sample_size=2, ramp_up_period=10.0, window=0.0)
    qfulls(t, 3 * 3, now=0.0)
    assert t.depth == 29
    t.on_good(9.9)
    assert t.depth == 29  # not a whole period since the last QUEUE FULL
    t.on_good(10.0)
    assert t.depth == 30
    t.on_good(15.0)
    assert t.depth == 30  # half a period since the last change
    t.on_good(20.0)
    assert t.depth == 31
    t.on_qfull(25.0)  # one QUEUE FULL (no step down) restarts the period
    t.on_good(31.0)
    assert t.depth == 31
    t.on_good(35.0)
    assert t.depth == 32 and depths(pools) == {32}
    t.on_good(100.0)
    assert t.depth == 32  # the configured depth is the ceiling


# -- storport ---------------------------------------------------------------------------------


def test_storport_drops_to_min_depth_at_once() -> None:
    t, pools = throttle(32, throttle="storport", min_depth=2)
    t.on_qfull(100.0)
    assert t.depth == 2 and depths(pools) == {2}


def test_storport_recovers_linearly_over_recovery_time() -> None:
    t, pools = throttle(32, throttle="storport", min_depth=2, recovery_time=60.0)
    t.on_qfull(100.0)
    t.on_good(100.0)
    assert t.depth == 2
    t.on_good(115.0)  # a quarter of the way: 2 + int(30 x 15 / 60)
    assert t.depth == 9
    t.on_good(130.0)
    assert t.depth == 17 and depths(pools) == {17}
    t.on_good(159.0)
    assert t.depth == 31
    t.on_good(160.0)
    assert t.depth == 32
    t.on_qfull(200.0)  # and again from the bottom
    assert t.depth == 2
    t.on_good(230.0)
    assert t.depth == 17


def test_storport_without_recovery_time_restores_at_the_next_good_completion() -> None:
    t, _ = throttle(16, throttle="storport", recovery_time=0.0)
    t.on_qfull(1.0)
    assert t.depth == 1
    t.on_good(1.0)
    assert t.depth == 16


def test_none_policy_never_changes_the_depth() -> None:
    t, pools = throttle(32, throttle="none")
    qfulls(t, 100)
    goods(t, 100)
    assert t.depth == 32 and depths(pools) == {32}
