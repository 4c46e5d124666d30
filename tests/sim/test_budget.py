"""The run budget (sanpath.sim.budget): what a run will build and cost, estimated before it
starts, and runs beyond the limits refused at the field that makes them so."""

from __future__ import annotations

import sys
import tracemalloc
from pathlib import Path
from typing import Any

import pytest

import sanpath
from sanpath.sim import budget, cost
from sanpath.sim.engine import Simulation
from sanpath.spec import ScenarioError, load_scenario
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"
SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted((SCENARIOS / "proposals").glob("*.yaml"))
OPEN = {"workloads.0.outstanding": None}
LOCATED_AT = {
    "run.ios": "run:",
    "run.max_ios": "run:",
    "run.duration": "run:",
    "run.warmup_ios": "warmup_ios:",
    "run.record_interval": "run:",
    "hosts.0.count": "count:",
    "workloads.0.outstanding": "outstanding:",
    "workloads.0.rate": "- name: oltp",
}
"""What the quickstart file's line holds where a refusal of each key is located."""


def small(ios: int = 1_000) -> dict[str, Any]:
    return textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=ios,
        warmup_ios=100,
    )


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenarios_validate_and_fit_the_budget(path: Path) -> None:
    spec = load_scenario(path)
    estimate = budget.check(spec, source=path)
    assert budget.BASE_BYTES < estimate.memory_bytes < 1e9
    assert 0.0 < estimate.seconds < 300.0


# --- the estimate -------------------------------------------------------------------------


def test_estimate_counts_what_the_topology_builds() -> None:
    one = budget.estimate(load_scenario(QUICKSTART, {"run.ios": 50_000}))
    # 1 host x 8 LUNs x (2 HBA ports x 4 array ports); 8 LUNs x 8 outstanding
    assert (one.hosts, one.paths, one.luns, one.drives, one.processes) == (1, 64, 8, 30, 64)
    many = budget.estimate(load_scenario(QUICKSTART, {"hosts.0.count": 10}))
    assert (many.paths, many.processes) == (640, 640)
    zoned = budget.estimate(load_scenario(QUICKSTART, {"zoning": "one-to-one"}))
    assert zoned.paths == 16  # each HBA port sees one array port
    threads = budget.estimate(load_scenario(QUICKSTART, {"workloads.0.threads": 4}))
    assert threads.processes == 256
    assert one.ios == 55_000  # run.ios + run.warmup_ios
    precision = budget.estimate(load_scenario(QUICKSTART))
    assert precision.ios == 2_000_000 + 5_000  # run.max_ios, the cap, and the warm-up
    assert "run.max_ios" in precision.length


def test_estimate_counts_the_schedule_and_splits() -> None:
    data = load_scenario(QUICKSTART).to_data()
    data["schedule"] = [{"at": 1.0, "set": {"workloads.0.outstanding": 64}}]
    assert budget.estimate(load_scenario(data)).processes == 8 * 64
    split = budget.estimate(load_scenario(QUICKSTART, {"workloads.0.block_size": "1MiB"}))
    assert split.commands_per_io == 2.0  # max_transfer 512KiB


def made(spec: Any) -> tuple[int, int, float]:
    """Run ``spec``: the routes and per-host LUN counters it made, and its tracemalloc peak
    (bytes)."""
    tracemalloc.start()
    try:
        sim = Simulation(spec)
        sim.run()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    routes = sum(r is not None for h in sim.topology.hosts for rs in h.routes.values() for r in rs)
    return routes, len(sim.measure.devices), float(peak)


def counted(estimate: budget.Estimate) -> tuple[float, float]:
    """The routes and per-host LUN counters ``estimate`` counts."""
    return (
        estimate.parts["memory.paths"] / cost.BYTES_PER_ROUTE,
        estimate.parts["memory.devices"] / cost.BYTES_PER_DEVICE,
    )


def test_estimate_counts_the_routes_and_memory_of_a_closed_loop() -> None:
    """10 hosts (640 paths, 80 host-LUN pairs), 8 outstanding per LUN over 8 paths: every
    slot's first command takes another path, so the run makes every route, as counted; its
    memory is within 3x of tracemalloc's peak. (The wall-time estimate is compared with
    measured runs in ``make bench``, section 2.)"""
    spec = load_scenario(QUICKSTART, {"hosts.0.count": 10, "run.ios": 500, "run.warmup_ios": 50})
    estimate = budget.estimate(spec)
    routes, devices, peak = made(spec)
    assert (routes, devices) == (640, 80)
    assert counted(estimate) == pytest.approx((routes, devices))
    built = estimate.memory_bytes - budget.BASE_BYTES
    assert peak / 3 < built < 3 * peak, (built, peak)


@pytest.mark.slow
def test_estimate_of_many_hosts_on_many_luns_agrees_with_a_measured_run() -> None:
    """200 hosts on 64 LUNs through 2 x 16 paths each (204,800 paths), an open loop of 4,400
    I/Os: the run makes a route and a device counter only where its I/Os go, about one per
    I/O as the estimate counts (the I/Os land on distinct host-LUN pairs mostly), and the
    memory estimate is within 3x of tracemalloc's peak."""
    spec = load_scenario(
        QUICKSTART,
        {
            "array.ports": 16,
            "array.luns.0.count": 64,
            "array.pools.0.drive": "ssd",
            "hosts.0.count": 200,
            **OPEN,
            "workloads.0.rate": 100.0,
            "run.ios": 4_000,
            "run.warmup_ios": 400,
            "run.warmup": "fixed",
        },
    )
    estimate = budget.estimate(spec)
    assert estimate.paths == 200 * 64 * 32
    routes, devices, peak = made(spec)
    most_routes, most_devices = counted(estimate)
    assert most_routes == most_devices == 4_400
    # at most one per I/O issued: the 4,400 completed and the few in flight at the end
    assert most_routes / 2 < routes <= 1.01 * most_routes
    assert most_devices / 2 < devices <= 1.01 * most_devices
    built = estimate.memory_bytes - budget.BASE_BYTES
    assert peak / 3 < built < 3 * peak, (built, peak)


def test_open_loop_beyond_capacity_grows_a_backlog() -> None:
    below = budget.estimate(load_scenario(QUICKSTART, {**OPEN, "workloads.0.rate": 1000}))
    above = budget.estimate(load_scenario(QUICKSTART, {**OPEN, "workloads.0.rate": 1e6}))
    assert below.in_flight < 100 and below.arrivals == 0
    assert above.in_flight > 1e5 and above.arrivals > above.in_flight


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "path", "what"),
    [
        ({"run.ios": 10**12}, "run.ios", "longer than"),
        ({"run.ios": None, "run.max_ios": 10**10}, "run.max_ios", "longer than"),
        ({"run.ios": None, "run.duration": "1000h"}, "run.duration", "longer than"),
        ({"run.warmup_ios": 10**11}, "run.warmup_ios", "longer than"),
        ({"hosts.0.count": 50_000}, "hosts.0.count", "more memory than"),
        ({"workloads.0.outstanding": 2_000_000}, "workloads.0.outstanding", "more memory than"),
        ({**OPEN, "workloads.0.rate": 1e12}, "workloads.0.rate", "more memory than"),
        (
            {"run.ios": None, "run.duration": "100s", "run.record_interval": "1us"},
            "run.record_interval",
            "more memory than",
        ),
    ],
)
def test_runs_beyond_the_limits_are_refused_at_their_field(
    overrides: dict[str, Any], path: str, what: str
) -> None:
    spec = load_scenario(QUICKSTART, overrides)
    with pytest.raises(ScenarioError) as info:
        budget.check(spec, source=QUICKSTART)
    (problem,) = info.value.problems
    assert problem.path == path
    assert what in problem.message
    assert "--force" in problem.message and "force=True" in problem.message
    assert "estimated about" in problem.message
    # located in the file: at the key, or at the entry that lacks it
    assert problem.source == str(QUICKSTART) and problem.line is not None
    line = QUICKSTART.read_text().splitlines()[problem.line - 1]
    assert LOCATED_AT[path] in line, (path, problem.line, line)


def test_memory_limit_follows_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_scenario(QUICKSTART, {"hosts.0.count": 4_000})  # about 1.6 GB
    budget.check(spec)
    monkeypatch.setattr(budget, "available_memory", lambda: 1e9)
    with pytest.raises(ScenarioError, match="this machine has free"):
        budget.check(spec)
    one = load_scenario(QUICKSTART, {"hosts.0.count": 1_500})  # about 0.8 GB
    budget.check(one)
    with pytest.raises(ScenarioError, match=r"2 runs at once"):
        budget.check(one, runs_at_once=2)
    assert budget.available_memory() == 1e9


def test_available_memory_is_read_from_the_machine() -> None:
    available = budget.available_memory()
    if sys.platform.startswith("linux"):
        assert available is not None and available > 1e8


def test_engine_run_checks_unless_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    with pytest.raises(ScenarioError, match=r"run\.ios.*--force"):
        sanpath.run(small())
    result = sanpath.run(small(), force=True)
    assert result.ios == 1_000
