"""Invariants that hold for every scenario: conservation, Little's law, bounds, determinism."""

from __future__ import annotations

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import sanpath
from sanpath.theory import textbook

DRIVES = st.sampled_from(
    ["hdd-15k", "hdd-7k2", "ssd", {"dist": "exponential", "mean": "2ms"}, "1ms"]
)
RAIDS = st.sampled_from([("raid0", 2), ("raid10", 4), ("raid5", 5), ("raid6", 6), ("raid1", 2)])


@st.composite
def scenarios(draw: st.DrawFn) -> dict[str, Any]:
    """Small random SANs: hosts, HBAs, queue depths, RAID, cache, workload mix."""
    raid, drives = draw(RAIDS)
    closed = draw(st.booleans())
    workload: dict[str, Any] = {
        "name": "w",
        "threads": draw(st.integers(1, 2)),
        "block_size": draw(
            st.sampled_from(["4KiB", "8KiB", "64KiB", "1MiB", {"8KiB": 0.7, "256KiB": 0.3}])
        ),
        "read_fraction": draw(st.sampled_from([0.0, 0.5, 1.0])),
        "pattern": draw(st.sampled_from(["random", "sequential"])),
    }
    if closed:
        workload["outstanding"] = draw(st.integers(1, 16))
    else:
        workload["rate"] = draw(st.sampled_from([50.0, 200.0, 500.0]))
    return {
        "name": "prop",
        "seed": draw(st.integers(0, 2**32 - 1)),
        "run": {
            "ios": 600,
            "warmup": "fixed",
            "warmup_ios": draw(st.sampled_from([0, 100])),
            "batches": 5,
            "precondition": draw(st.booleans()),
        },
        "hosts": [
            {
                "name": "h",
                "count": draw(st.integers(1, 3)),
                "max_io_size": draw(st.sampled_from([None, "256KiB", "1MiB"])),
                "lun_queue_depth": draw(st.sampled_from([None, 2, 8, 32])),
                "multipath": draw(
                    st.sampled_from(
                        ["failover", "round-robin", "least-queue-depth", "service-time"]
                    )
                ),
                "qfull": {
                    "throttle": draw(st.sampled_from(["none", "linux", "vmware", "storport"]))
                },
                "hbas": [
                    {
                        "ports": draw(st.integers(1, 2)),
                        "speed": draw(st.sampled_from([None, "2GFC", "8GFC"])),
                        "queue_depth": draw(st.sampled_from([None, 1, 4, 32])),
                        "queue_target": draw(st.sampled_from(["lun", "target"])),
                        "max_transfer": draw(st.sampled_from([None, "128KiB", "512KiB"])),
                        "pcie": draw(st.sampled_from([None, {"gen": 1, "lanes": 4}])),
                    }
                ],
            }
        ],
        "array": {
            "ports": draw(st.integers(1, 2)),
            "port_queue_depth": draw(st.sampled_from([None, 8, 64])),
            "controller": {"cores": draw(st.integers(1, 2)), "io_time": "20us"},
            "cache": {
                "read_hit": draw(st.sampled_from([0.0, 0.5])),
                "read_ahead": draw(st.sampled_from([0, "1MiB"])),
                "write_back": draw(st.sampled_from([None, "2MiB", "1GiB"])),
                "write_aside": draw(st.sampled_from([None, "64KiB"])),
            },
            "lun_queue_depth": draw(st.sampled_from([None, 4, "clariion"])),
            "pools": [
                {
                    "name": "p",
                    "raid": raid,
                    "drives": drives,
                    "groups": draw(st.integers(1, 2)),
                    "drive": draw(DRIVES),
                }
            ],
            "luns": [{"name": "l", "count": draw(st.integers(1, 3)), "pool": "p"}],
        },
        "zoning": draw(st.sampled_from(["all-to-all", "one-to-one"])),
        "workloads": [workload],
    }


@given(scenarios())
def test_invariants(data: dict[str, Any]) -> None:
    result = sanpath.run(data)
    scenario = sanpath.load_scenario(data)
    t = result.totals

    # Conservation of I/Os and bytes.
    assert t["ios_completed"] <= t["ios_issued"]
    assert t["commands_completed"] <= t["commands_issued"]
    assert t["commands_issued"] >= t["ios_issued"]
    assert t["command_bytes_completed"] <= t["bytes_issued"]
    assert result.ios == scenario.run.ios
    w = scenario.workloads[0]
    if w.closed:
        hosts = scenario.hosts[0].count
        luns = scenario.array.luns[0].count
        in_flight = hosts * luns * w.threads * w.outstanding_per_lun
        assert t["ios_issued"] - t["ios_completed"] == in_flight
    if len(w.block_size) == 1:
        size = w.block_size[0][0]
        assert t["bytes_completed"] == t["ios_completed"] * size

    # The latency breakdown adds up to the mean latency.
    assert math.isclose(sum(result.breakdown_ms.values()), result.latency_ms["mean"], rel_tol=1e-6)
    assert all(v >= -1e-12 for v in result.breakdown_ms.values())
    lat = result.latency_ms
    assert lat["p50"] <= lat["p90"] * 1.0001 <= lat["p99"] * 1.0002 <= lat["max"] * 1.0003

    # Per host, per host group, per workload and per LUN: every measured I/O, byte and
    # QUEUE FULL is counted once in each grouping.
    for kind in ("hosts", "host_groups", "workloads", "luns"):
        groups = result.groups[kind].values()
        assert sum(g.ios for g in groups) == result.ios, kind
        assert sum(g.reads for g in groups) == round(result.read_iops * result.sim_seconds)
        assert sum(g.qfull for g in groups) == result.counters["qfull"], kind
        nbytes = sum(g.bytes_read + g.bytes_written for g in groups)
        assert math.isclose(nbytes / result.sim_seconds / 1e6, result.mb_per_s, rel_tol=1e-9)
    assert len(result.groups["hosts"]) == scenario.hosts[0].count
    assert sum(d.qfull for d in result.devices) == result.counters["qfull"]
    for device in result.devices:
        iostat, esxtop = device.iostat(), device.esxtop()
        assert 0.0 <= iostat["%util"] <= 100.0 + 1e-9
        assert math.isclose(esxtop["ACTV"] + esxtop["QUED"], iostat["aqu-sz"], rel_tol=1e-9)

    assert result.stations
    for station in result.stations:
        # Bounds.
        if not math.isnan(station.utilization):
            assert -1e-9 <= station.utilization <= 1.0 + 1e-9, station
        assert station.mean_wait_s >= -1e-12
        assert station.mean_in_station >= -1e-9
        # Little's law as an exact accounting identity over the window: the time-weighted
        # count equals the time every command spent in the station inside the window.
        assert station.little_residual < 1e-6, station


@pytest.mark.slow
@given(scenarios())
def test_same_seed_same_numbers(data: dict[str, Any]) -> None:
    data["run"]["ios"] = 300
    first = sanpath.run(data).to_dict()
    second = sanpath.run(data).to_dict()
    assert first == second


def test_seed_and_replicate_change_the_numbers() -> None:
    data = textbook.open_queue(500, {"dist": "exponential", "mean": "1ms"}, ios=2_000)
    base = sanpath.run(data).latency_ms["mean"]
    assert sanpath.run(data, seed=99).latency_ms["mean"] != base
    assert sanpath.run(data, replicate=1).latency_ms["mean"] != base


def test_warns_when_stuck_ios_escape_the_measurement() -> None:
    data = textbook.closed_path(
        64,
        0,
        {"dist": "exponential", "mean": "0.1ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=400,
        warmup_ios=0,
    )
    data["array"]["port_queue_depth"] = 4
    short = sanpath.run(data)
    # 64 outstanding against a port queue of 4: QUEUE FULL retries are not first come first
    # served, so some I/Os keep losing and are still in flight when the run ends.
    assert short.counters["qfull"] > 0
    assert short.warnings and "run longer" in short.warnings[0]
    steady = sanpath.run(
        textbook.closed_path(
            4,
            0,
            {"dist": "exponential", "mean": "0.1ms"},
            {"dist": "exponential", "mean": "1ms"},
            ios=5_000,
            warmup_ios=500,
        )
    )
    assert steady.warnings == ()
