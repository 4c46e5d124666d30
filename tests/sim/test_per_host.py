"""Per-host, per-workload, per-LUN and per-device figures of a run."""

from __future__ import annotations

import math
from typing import Any

import pytest

import sanpath


def _two_groups(outstanding: int = 4) -> dict[str, Any]:
    hba = {"ports": 1, "queue_depth": None}
    return {
        "name": "groups",
        "seed": 7,
        "run": {"ios": 6_000, "warmup": "fixed", "warmup_ios": 500},
        "hosts": [
            {"name": "db", "count": 2, "hbas": [hba]},
            {"name": "web", "count": 1, "hbas": [hba]},
        ],
        "array": {
            "ports": 2,
            "controller": {"cores": 2, "io_time": "20us"},
            "pools": [
                {"name": "p", "raid": "raid10", "drives": 8, "drive": "ssd"},
            ],
            "luns": [{"name": "data", "count": 2, "pool": "p"}, {"name": "logs", "pool": "p"}],
        },
        "workloads": [
            {
                "name": "oltp",
                "hosts": ["db"],
                "luns": ["data"],
                "block_size": "8KiB",
                "read_fraction": 0.7,
                "outstanding": outstanding,
            },
            {
                "name": "scan",
                "hosts": ["web"],
                "luns": ["logs"],
                "block_size": "64KiB",
                "read_fraction": 1.0,
                "pattern": "sequential",
                "outstanding": 2,
            },
        ],
    }


@pytest.fixture(scope="module")
def result() -> sanpath.RunResult:
    return sanpath.run(_two_groups())


def test_hosts_are_named_per_instance_and_summed_per_group(result: sanpath.RunResult) -> None:
    hosts = result.groups["hosts"]
    assert sorted(hosts) == ["db[0]", "db[1]", "web"]
    db = result.groups["host_groups"]["db"]
    assert db.members == ("db[0]", "db[1]")
    assert db.ios == hosts["db[0]"].ios + hosts["db[1]"].ios
    assert db.iops == pytest.approx(hosts["db[0]"].iops + hosts["db[1]"].iops)
    assert list(result.by_host.index) == ["db[0]", "db[1]", "web"]
    assert {"iops", "latency_ms_p99", "qfull"} <= set(result.by_host.columns)


def test_workloads_keep_their_own_shape(result: sanpath.RunResult) -> None:
    oltp, scan = result.groups["workloads"]["oltp"], result.groups["workloads"]["scan"]
    # bytes per I/O are the workloads' own block sizes
    assert oltp.mb_per_s / oltp.iops == pytest.approx(8192 / 1e6)
    assert scan.mb_per_s / scan.iops == pytest.approx(65536 / 1e6)
    assert scan.writes == 0
    assert oltp.read_iops / oltp.iops == pytest.approx(0.7, abs=0.03)
    # only the db hosts run oltp, on the data LUNs only
    assert result.groups["luns"]["logs"].ios == scan.ios
    assert result.groups["hosts"]["web"].ios == scan.ios


def test_closed_loop_devices_hold_their_outstanding_ios(result: sanpath.RunResult) -> None:
    # Each db host keeps 4 I/Os on each data LUN: iostat's aqu-sz is 4 and the device is
    # never idle; the web host keeps 2 on the logs LUN.
    devices = {d.name: d for d in result.devices}
    assert sorted(devices) == [
        "db[0]/data[0]",
        "db[0]/data[1]",
        "db[1]/data[0]",
        "db[1]/data[1]",
        "web/logs",
    ]
    for name, device in devices.items():
        io = device.iostat()
        assert io["aqu-sz"] == pytest.approx(2.0 if name == "web/logs" else 4.0, rel=0.02)
        assert io["%util"] == pytest.approx(100.0, abs=0.5)
        esx = device.esxtop()
        assert esx["ACTV"] + esx["QUED"] == pytest.approx(io["aqu-sz"])
        assert esx["QUED"] == pytest.approx(0.0, abs=1e-9)  # no host queue limit
    frame = result.by_device
    assert {"r/s", "w_await", "aqu-sz", "%util", "DAVG/cmd", "DQLEN"} <= set(frame.columns)


def test_symmetric_hosts_are_served_fairly(result: sanpath.RunResult) -> None:
    data = _two_groups()
    data["workloads"] = data["workloads"][:1]
    data["workloads"][0]["hosts"] = "all"
    data["workloads"][0]["luns"] = "all"
    fair = sanpath.run(data).fairness
    assert fair["jain"] > 0.99
    assert 1.0 <= fair["max_min"] < 1.1


def test_json_keys(result: sanpath.RunResult) -> None:
    d = result.to_dict()
    for kind in ("hosts", "host_groups", "workloads", "luns"):
        for entry in d[kind].values():
            assert set(entry["latency_ms"]) == {"mean", "p50", "p90", "p99", "p99_9", "max"}
            assert entry["iops"] > 0
    assert set(d["fairness"]) == {"jain", "max_min"}
    assert {"iostat", "esxtop", "host", "lun", "qfull"} == set(d["devices"][0])
    row = result.flat()
    assert 0.0 < row["fairness_jain"] <= 1.0


def test_same_seed_same_per_host_figures() -> None:
    data = _two_groups()
    data["run"]["ios"] = 1_500
    a, b = sanpath.run(data).to_dict(), sanpath.run(data).to_dict()
    assert a["hosts"] == b["hosts"] and a["devices"] == b["devices"]


def test_queue_full_is_charged_to_the_host_that_was_refused() -> None:
    data = _two_groups(outstanding=16)
    data["array"]["port_queue_depth"] = 8
    run = sanpath.run(data)
    assert run.counters["qfull"] > 0
    hosts = run.groups["hosts"]
    assert sum(g.qfull for g in hosts.values()) == run.counters["qfull"]
    assert hosts["db[0]"].qfull > 0 and hosts["db[1]"].qfull > 0
    assert not math.isnan(run.fairness["jain"])
