"""``sanpath check``: rules, second opinions, example proposals and the command line.

Every rule fires on a proposal written to break it and stays quiet on compliant ones; the
simulated second opinion moves the finding's metric the way the finding says; the example
proposals in ``scenarios/proposals`` give the findings they were written for; the command
line's exit codes gate on severity.
"""

from __future__ import annotations

import copy
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

from sanpath.advice.analysis import Limits, PathAnalysis, fan_in
from sanpath.advice.check import check
from sanpath.advice.registry import RULES, rule_by_id
from sanpath.advice.report import CheckReport
from sanpath.advice.rules.queues import safe_host_queue_depth
from sanpath.advice.second_opinion import merge_fixes, verdict
from sanpath.cli import main
from sanpath.spec import Scenario, load_scenario, set_dotted
from tests.conftest import ROOT, SCENARIOS

PROPOSALS = SCENARIOS / "proposals"
IOS = 2_000
"""Measured I/Os per simulated run in these tests (kept small for speed)."""


def base() -> dict[str, Any]:
    """A compliant proposal: one host, two paths per LUN, RAID 10, 8 KiB OLTP."""
    return {
        "name": "t",
        "seed": 5,
        "run": {"ios": 3000, "warmup_ios": 300},
        "hosts": [
            {
                "name": "db",
                "lun_queue_depth": 16,
                "multipath": "round-robin",
                "max_io_size": "1MiB",
                "hbas": [
                    {
                        "count": 1,
                        "ports": 2,
                        "speed": "8GFC",
                        "queue_depth": 32,
                        "queue_target": "lun",
                        "max_transfer": "1MiB",
                        "command_time": "10us",
                        "pcie": {"gen": 2, "lanes": 8},
                    }
                ],
            }
        ],
        "array": {
            "ports": 2,
            "port_speed": "8GFC",
            "port_queue_depth": 1600,
            "controller": {"cores": 4, "io_time": "20us"},
            "cache": {"write_back": "1GiB", "write_aside": "1MiB"},
            "lun_queue_depth": "clariion",
            "pools": [
                {"name": "r10", "raid": "raid10", "drives": 8, "groups": 2, "drive": "hdd-15k"}
            ],
            "luns": [{"name": "data", "count": 4, "pool": "r10"}],
        },
        "zoning": "one-to-one",
        "workloads": [
            {"name": "oltp", "outstanding": 8, "block_size": "8KiB", "read_fraction": 0.7}
        ],
    }


def variant(changes: dict[str, Any]) -> dict[str, Any]:
    """``base()`` with dotted keys replaced."""
    data = copy.deepcopy(base())
    for key, value in changes.items():
        set_dotted(data, key, value)
    return data


RAID5 = {"name": "r10", "raid": "raid5", "drives": 5, "groups": 3, "drive": "hdd-15k"}
SEQ_READ = {
    "workloads.0.block_size": "256KiB",
    "workloads.0.pattern": "sequential",
    "workloads.0.read_fraction": 1.0,
    "workloads.0.outstanding": 4,
    "array.cache.read_ahead": "4MiB",
}


def edge_core(isl_speed: str) -> dict[str, Any]:
    """The host on switch ``edge``, the array's ports on ``core``, one ISL between them."""
    return {
        "fabric.switches": [{"name": "edge"}, {"name": "core"}],
        "fabric.isls": [{"between": ["edge", "core"], "speed": isl_speed}],
        "hosts.0.switch": "edge",
        "array.port_switches": ["core", "core"],
    }


def two_hosts(web_throttle: str) -> dict[str, Any]:
    """Two host groups on the same LUNs, 2 x 2 paths x 16 = 64 commands per LUN against a
    limit of 16: ``db`` throttles (VMware), ``web`` with ``web_throttle``. Without write-back
    cache: with both hosts throttling, the automatic warm-up of the 1 GiB cache takes over
    100,000 I/Os to settle, longer than a second opinion's fix may run."""
    db = copy.deepcopy(base()["hosts"][0])
    db["qfull"] = {"throttle": "vmware"}
    web = dict(copy.deepcopy(db), name="web", qfull={"throttle": web_throttle})
    return {
        "hosts": [db, web],
        "array.lun_queue_depth": 16,
        "array.cache.write_back": None,
        "workloads.0.outstanding": 32,
    }


NVME = {"hosts.0.transport": "fc-nvme", "hosts.0.lun_queue_depth": None}
"""The base proposal's host on FC-NVMe (no SCSI per-LUN queue)."""
UNEQUAL_PATHS = {
    **NVME,
    "hosts.0.hbas": [
        {"ports": 1, "speed": "8GFC", "command_time": "10us"},
        {"ports": 1, "speed": "8GFC", "command_time": "200us"},
    ],
    "hosts.0.nvme": {"iopolicy": "round-robin"},
    "array.cache.read_hit": 1.0,
    "workloads.0.read_fraction": 1.0,
}
"""Two host ports, one with a processor twenty times slower, under round-robin; reads from
cache, so the paths are the only stages that count."""
TCP_STREAM = {
    "hosts.0.transport": "nvme-tcp",
    "hosts.0.lun_queue_depth": None,
    "hosts.0.hbas": [{"ports": 2, "speed": "10GbE"}],
    "array.port_speed": "25GbE",
    "array.cache.read_hit": 1.0,
    **{k: v for k, v in SEQ_READ.items() if k != "array.cache.read_ahead"},
}
"""Large reads from cache over two 10GbE ports on NVMe/TCP (standard frames)."""


def fcp_and_nvme() -> dict[str, Any]:
    """The base host (FCP) and an FC-NVMe host on the same array ports."""
    db = copy.deepcopy(base()["hosts"][0])
    nv = dict(copy.deepcopy(db), name="nv", transport="fc-nvme")
    del nv["lun_queue_depth"]
    return {"hosts": [db, nv]}


# rule -> (changes that break it, check() keyword arguments, expected severity)
TRIGGERS: dict[str, tuple[dict[str, Any], dict[str, Any], str]] = {
    "SP001-fan-in": (
        {
            "array.port_queue_depth": 64,
            "hosts.0.lun_queue_depth": 32,
            "workloads.0.outstanding": 64,
        },
        {},
        "error",
    ),
    "SP002-lun-queue": (
        {"array.lun_queue_depth": 16, "workloads.0.outstanding": 32},
        {},
        "error",
    ),
    "SP003-split": (
        {
            "hosts.0.hbas.0.max_transfer": "64KiB",
            "workloads.0.block_size": "1MiB",
            "workloads.0.outstanding": 2,
            "workloads.0.read_fraction": 1.0,
        },
        {},
        "warning",
    ),
    "SP004-pcie-slot": ({"hosts.0.hbas.0.pcie": {"gen": 1, "lanes": 1}, **SEQ_READ}, {}, "warning"),
    "SP005-link-speed": (
        {
            "workloads.0": {
                "name": "stream",
                "rate": 2000,
                "block_size": "1MiB",
                "read_fraction": 1.0,
            },
            "array.cache.read_hit": 1.0,
        },
        {},
        "error",
    ),
    "SP006-port-balance": (
        # slow array ports, so the one port carrying every LUN is clearly the bottleneck
        {"array.luns.0.ports": [0], "zoning": "all-to-all", "array.port_speed": "2GFC", **SEQ_READ},
        {},
        "warning",
    ),
    "SP007-enclosure-fan-out": (
        {
            "hosts.0.hbas.0.ports": 4,
            "array.ports": 4,
            "array.pools.0.groups": 4,
            "array.luns": [
                {"name": "a", "count": 2, "pool": "r10", "ports": [0, 1]},
                {"name": "b", "count": 2, "pool": "r10", "ports": [2, 3]},
            ],
            "zoning": "all-to-all",
        },
        {},
        "warning",
    ),
    "SP008-failover-idle": (
        {
            "hosts.0.multipath": "failover",
            "hosts.0.lun_queue_depth": 4,
            "array.luns.0.count": 1,
            "workloads.0.outstanding": 32,
        },
        {},
        "warning",
    ),
    "SP009-single-path": (
        {"zoning": [{"host": "db", "port": 0, "array_ports": [0]}]},
        {},
        "warning",
    ),
    "SP010-queue-too-shallow": (
        {
            "hosts.0.lun_queue_depth": 1,
            "workloads.0.outstanding": 32,
            "workloads.0.read_fraction": 1.0,
        },
        {},
        "warning",
    ),
    "SP011-latency-target": (
        {
            "hosts.0.lun_queue_depth": 32,
            "workloads.0.outstanding": 64,
            "workloads.0.read_fraction": 1.0,
        },
        {"latency_target": "20ms"},
        "warning",
    ),
    "SP012-raid-write-penalty": (
        {
            "array.pools.0": RAID5,
            "array.cache.write_back": None,
            "workloads.0.read_fraction": 0.3,
        },
        {},
        "warning",
    ),
    "SP013-write-aside": (
        {
            "array.pools.0": RAID5,
            "array.cache.write_aside": "64KiB",
            "workloads.0.block_size": "256KiB",
            # half writes: with a steady-state (destaging) cache, caching them still pays
            "workloads.0.read_fraction": 0.5,
            "workloads.0.outstanding": 4,
        },
        {},
        "warning",
    ),
    "SP014-driver-range": ({"hosts.0.lun_queue_depth": 512}, {}, "warning"),
    # one processor at 1 ms per command: at most 1,000 commands per second
    "SP015-host-cpu": ({"hosts.0.cpus": 1, "hosts.0.cpu_time": "1ms"}, {}, "warning"),
    "SP016-throttle-mix": (two_hosts("none"), {}, "warning"),
    "SP017-nvme-round-robin": (UNEQUAL_PATHS, {}, "warning"),
    # 4 LUNs x 64 outstanding against 2 associations x 1 queue x 15 entries
    "SP018-nvme-queue-pairs": (
        {**NVME, "hosts.0.nvme": {"io_queues": 1, "queue_size": 16}, "workloads.0.outstanding": 64},
        {},
        "warning",
    ),
    "SP019-nvme-io-queues": ({**NVME, "hosts.0.cpus": 16, "hosts.0.nvme.io_queues": 4}, {}, "info"),
    "SP020-nvme-tcp-mtu": (TCP_STREAM, {}, "warning"),
    "SP021-fcp-nvme-shared-port": (fcp_and_nvme(), {}, "warning"),
    # one LUN (owned by controller 0) and a slow controller: it is full, its peer idle
    "SP022-controller-balance": (
        {
            "array.controllers": 2,
            "array.luns.0.count": 1,
            "array.controller": {"cores": 1, "io_time": "2ms"},
        },
        {},
        "warning",
    ),
    # 50 km on 8 credits: an 8GFC port carries about 34 of its 850 MB/s
    "SP023-link-credits": ({"fabric.distance_km": 50, **SEQ_READ}, {}, "warning"),
    # two 8GFC host ports behind one 1GFC ISL: 16:1
    "SP024-isl-fan-in": ({**edge_core("1GFC"), **SEQ_READ}, {}, "warning"),
}

# rule -> compliant variants (changes, check() keyword arguments): the rule stays quiet
COMPLIANT: dict[str, list[tuple[dict[str, Any], dict[str, Any]]]] = {
    "SP001-fan-in": [
        ({}, {}),
        # 1 x 4 LUNs x 16 = 64 commands per port: exactly 80% of 80 is not over
        ({"array.port_queue_depth": 80}, {}),
        ({"array.port_queue_depth": None, "hosts.0.lun_queue_depth": None}, {}),
    ],
    "SP002-lun-queue": [({}, {}), ({"array.lun_queue_depth": 40}, {})],
    "SP003-split": [
        ({}, {}),
        ({"workloads.0.block_size": "1MiB"}, {}),
        ({"hosts.0.max_io_size": None, "hosts.0.hbas.0.max_transfer": None}, {}),
    ],
    "SP004-pcie-slot": [({}, {}), ({"hosts.0.hbas.0.pcie": None}, {})],
    "SP005-link-speed": [
        ({}, {}),
        ({"workloads.0": {"name": "s", "rate": 200, "block_size": "1MiB"}}, {}),
    ],
    "SP006-port-balance": [({}, {}), ({"zoning": "all-to-all"}, {})],
    "SP007-enclosure-fan-out": [
        ({}, {}),
        (
            {
                "hosts.0.hbas.0.ports": 4,
                "array.ports": 4,
                "array.luns": [
                    {"name": "a", "count": 2, "pool": "r10", "ports": [0, 1]},
                    {"name": "b", "count": 2, "pool": "r10", "ports": [2, 3]},
                ],
                "zoning": "one-to-one",
            },
            {},
        ),
    ],
    "SP008-failover-idle": [
        ({}, {}),
        # two LUNs over two paths: failover spreads them, nothing idles
        ({"hosts.0.multipath": "failover", "array.luns.0.count": 2}, {}),
    ],
    "SP009-single-path": [({}, {}), ({"zoning": "all-to-all"}, {})],
    "SP010-queue-too-shallow": [
        ({}, {}),
        # the workload itself, not a depth setting, is the bound
        ({"workloads.0.outstanding": 1}, {}),
    ],
    "SP011-latency-target": [
        ({}, {"latency_target": "50ms"}),
        (TRIGGERS["SP011-latency-target"][0], {}),  # no target, no rule
    ],
    "SP012-raid-write-penalty": [
        ({}, {}),
        ({"array.pools.0": RAID5, "workloads.0.read_fraction": 0.9}, {}),
    ],
    "SP013-write-aside": [
        ({}, {}),
        ({"array.pools.0": RAID5, "workloads.0.read_fraction": 0.9}, {}),
    ],
    "SP014-driver-range": [({}, {}), ({"hosts.0.lun_queue_depth": 255}, {})],
    # four processors at 10 us: 400,000 commands per second, far above what the drives do
    "SP015-host-cpu": [({}, {}), ({"hosts.0.cpus": 4, "hosts.0.cpu_time": "10us"}, {})],
    "SP016-throttle-mix": [
        ({}, {}),
        (two_hosts("vmware"), {}),  # every host throttles
        ({**two_hosts("none"), "array.lun_queue_depth": 128}, {}),  # within the limit
    ],
    "SP017-nvme-round-robin": [
        ({}, {}),
        ({**UNEQUAL_PATHS, "hosts.0.nvme": {"iopolicy": "queue-depth"}}, {}),
        (NVME, {}),  # equal paths
    ],
    "SP018-nvme-queue-pairs": [({}, {}), ({**NVME, "workloads.0.outstanding": 64}, {})],
    "SP019-nvme-io-queues": [
        (NVME, {}),
        ({**NVME, "hosts.0.cpus": 16, "hosts.0.nvme.io_queues": 16}, {}),
    ],
    "SP020-nvme-tcp-mtu": [({}, {}), ({**TCP_STREAM, "hosts.0.mtu": 9000}, {})],
    "SP021-fcp-nvme-shared-port": [
        ({}, {}),
        ({**fcp_and_nvme(), "array.port_queue_depth": None}, {}),
    ],
    "SP022-controller-balance": [
        ({}, {}),
        # four LUNs alternate owners: each controller carries half
        ({"array.controllers": 2, "array.controller": {"cores": 1, "io_time": "2ms"}}, {}),
    ],
    "SP023-link-credits": [
        ({}, {}),
        # 5 km at 8GFC needs 22 credits
        ({"fabric.distance_km": 5, "fabric.credits": 32}, {}),
        ({"fabric.distance_km": 5, "hosts.0.hbas.0.credits": 22}, {}),
    ],
    "SP024-isl-fan-in": [({}, {}), (edge_core("16GFC"), {})],
}

SIMULATED = [r.id for r in RULES if r.simulate]
NO_SIMULATION_EFFECT = {"SP007-enclosure-fan-out", "SP020-nvme-tcp-mtu"}
"""Rules whose mechanism the model does not contain: the fix must only be not worse (SP020:
the model times the frames' headers on the wire, about 5%, not the processor work per
frame)."""


# --------------------------------------------------------------------------------------
# registry and documentation
# --------------------------------------------------------------------------------------


def test_every_rule_has_an_id_a_doc_a_trigger_a_compliant_case_and_documentation() -> None:
    docs = (ROOT / "docs" / "check.md").read_text(encoding="utf-8")
    ids = [r.id for r in RULES]
    assert len(ids) == len(set(ids)) >= 14
    for r in RULES:
        assert re.fullmatch(r"SP\d{3}-[a-z0-9-]+", r.id), r.id
        assert r.doc, r.id
        assert r.severity in ("error", "warning", "info")
        assert r.id in TRIGGERS and r.id in COMPLIANT, r.id
        assert f"`{r.id}`" in docs, f"{r.id} is not documented in docs/check.md"
        assert rule_by_id(r.id.split("-")[0]) is r


# --------------------------------------------------------------------------------------
# each rule: triggered, and quiet when compliant
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize("rule_id", list(TRIGGERS))
def test_rule_fires_on_a_proposal_that_breaks_it(rule_id: str) -> None:
    changes, kwargs, severity = TRIGGERS[rule_id]
    data = variant(changes)
    report = check(data, rules=[rule_id], **kwargs)
    found = report.by_rule(rule_id)
    assert found, f"{rule_id} did not fire"
    scenario = load_scenario(data)
    for f in found:
        assert f.severity == severity
        assert f.title and f.message and f.mechanism and f.source
        assert f.numbers
        if f.fix is not None:
            scenario.with_overrides(f.fix)  # a fix is always a valid override
            assert f.fix_text


@pytest.mark.parametrize(
    ("rule_id", "case"),
    [(rule_id, i) for rule_id, cases in COMPLIANT.items() for i in range(len(cases))],
)
def test_rule_stays_quiet_on_a_compliant_proposal(rule_id: str, case: int) -> None:
    changes, kwargs = COMPLIANT[rule_id][case]
    report = check(variant(changes), rules=[rule_id], **kwargs)
    assert not report.by_rule(rule_id), [f.message for f in report.findings]


def test_the_base_proposal_is_clean_under_every_rule() -> None:
    report = check(base(), latency_target="50ms")
    assert report.findings == ()
    assert report.worst_severity is None


@pytest.mark.parametrize(
    ("rule_id", "changes", "kwargs", "severity"),
    [
        # fan-in 64 on a 72-slot port: 89%, over 80% but not over the queue
        ("SP001-fan-in", {"array.port_queue_depth": 72}, {}, "warning"),
        # 2 x 16 = 32 commands per LUN against 38: 84%
        ("SP002-lun-queue", {"array.lun_queue_depth": 38}, {}, "warning"),
        (
            "SP005-link-speed",
            {
                "workloads.0": {"name": "s", "rate": 1500, "block_size": "1MiB"},
                "array.cache.read_hit": 1.0,
            },
            {},
            "warning",
        ),
        ("SP005-link-speed", SEQ_READ, {}, "info"),
        (
            "SP012-raid-write-penalty",
            {"array.pools.0": RAID5, "workloads.0.read_fraction": 0.6},
            {},
            "info",
        ),
        (
            "SP013-write-aside",
            {
                "array.cache.write_aside": "64KiB",
                "workloads.0.block_size": "256KiB",
                "workloads.0.pattern": "sequential",
                "workloads.0.read_fraction": 0.0,
            },
            {},
            "info",
        ),
    ],
)
def test_milder_settings_give_milder_severities(
    rule_id: str, changes: dict[str, Any], kwargs: dict[str, Any], severity: str
) -> None:
    found = check(variant(changes), rules=[rule_id], **kwargs).by_rule(rule_id)
    assert [f.severity for f in found] == [severity]


# --------------------------------------------------------------------------------------
# the numbers: fan-in arithmetic
# --------------------------------------------------------------------------------------


def fan_in_scenario(changes: dict[str, Any]) -> Scenario:
    data = variant({"hosts.0.count": 4, "zoning": "all-to-all", **changes})
    return load_scenario(data)


def test_link_credits_names_the_credits_a_long_link_needs() -> None:
    report = check(variant({"fabric.distance_km": 50}), rules=["SP023"])
    (found,) = report.by_rule("SP023-link-credits")
    # 8GFC: a 2,108-byte frame takes 2.48 us, its credit 502.5 us: 203 credits
    assert found.numbers["credits_needed"] == 203
    assert found.numbers["capped_bytes_per_s"] == pytest.approx(8 * 2108 / 502.48e-6, rel=1e-3)
    assert found.fix == {"hosts.0.hbas.0.credits": 203}
    # a slow-draining host is the host's fault, not the credits'
    report = check(variant({"hosts.0.drain_time": "2ms"}), rules=["SP023"])
    (found,) = report.by_rule("SP023-link-credits")
    assert "drains slowly" in found.title and found.fix is None


def test_fan_in_is_hosts_x_paths_x_luns_x_depth() -> None:
    # 4 hosts, each HBA port sees both array ports: per port 4 hosts x 2 HBA ports x
    # 4 LUNs x 16 = 512
    s = fan_in_scenario({})
    assert fan_in(s) == {0: 512.0, 1: 512.0}


def test_fan_in_counts_one_path_per_lun_under_failover() -> None:
    s = fan_in_scenario({"hosts.0.multipath": "failover"})
    loads = fan_in(s)
    # each LUN uses one of its four paths: 4 hosts x 4 LUNs x 16 over the two ports
    assert sum(loads.values()) == 4 * 4 * 16
    assert loads == {0: 128.0, 1: 128.0}


def test_fan_in_takes_the_smaller_of_host_and_hba_depth() -> None:
    s = fan_in_scenario({"hosts.0.hbas.0.queue_depth": 8})
    # the HBA's 8 slots per LUN are per HBA port, shared by that port's two paths to the LUN
    # (one through each array port): 4 per path
    assert fan_in(s)[0] == 4 * 2 * 4 * 8 / 2
    s = fan_in_scenario({"hosts.0.hbas.0.queue_depth": 8, "zoning": "one-to-one"})
    assert fan_in(s)[0] == 4 * 1 * 4 * 8


def test_a_per_target_hba_queue_is_shared_by_the_luns_behind_the_target() -> None:
    # 4 LUNs x 16 = 64 per HBA port and target, but the HBA admits 20 per target
    s = fan_in_scenario({"hosts.0.hbas.0.queue_target": "target", "hosts.0.hbas.0.queue_depth": 20})
    assert fan_in(s)[0] == 4 * 2 * 20


def test_unlimited_depths_fall_back_on_the_workload_and_count_split_commands() -> None:
    s = fan_in_scenario(
        {
            "hosts.0.lun_queue_depth": None,
            "hosts.0.hbas.0.queue_depth": None,
            "hosts.0.hbas.0.max_transfer": "256KiB",
            "workloads.0.block_size": "1MiB",
            "workloads.0.outstanding": 3,
        }
    )
    # 3 I/Os per LUN per host, 4 commands each, spread over 4 paths, 2 of them per port
    assert fan_in(s)[0] == pytest.approx(4 * 4 * 3 * 4 / 2)


def test_safe_depth_matches_emc_formula_for_a_uniform_fan_in() -> None:
    s = fan_in_scenario({"array.port_queue_depth": 256})
    # per port: 4 hosts x 2 HBA ports (initiators) x 4 LUNs; EMC: 256 / (8 x 4) = 8
    assert safe_host_queue_depth(s) == 8
    f = check(s, rules=["SP001"]).findings[0]
    assert f.numbers["emc_queue_depth"] == 8
    assert f.numbers["safe_host_queue_depth"] == 8
    assert f.numbers["fan_in"] == 512
    assert f.numbers["initiators"] == 8
    # the ports over the line are named as ports, with their load (not a bare index)
    assert "Array ports over 80% of their queue: port 0 (512 commands), port 1 (512 commands)." in (
        f.message
    )
    assert f.numbers["netapp_initiator_queue_depth"] == 32
    assert f.numbers["hitachi_queue_depth"] == 32
    assert f.fix == {"hosts.0.lun_queue_depth": 8}
    fixed = s.with_overrides(f.fix)
    assert max(fan_in(fixed).values()) <= 256
    # every figure the message quotes is one of the computed numbers
    for key in ("fan_in", "port_queue_depth", "emc_queue_depth"):
        assert str(f.numbers[key]).removesuffix(".0") in f.message


def test_a_throttling_host_beside_one_that_does_not_is_named_as_starving() -> None:
    report = check(variant(two_hosts("none")), rules=["SP016"])
    (f,) = report.by_rule("SP016-throttle-mix")
    assert f.numbers["starving_host_groups"] == ["db"]
    assert f.numbers["non_throttling_host_groups"] == ["web"]
    assert f.title.startswith("db will starve")
    assert f.fix == {"hosts.1.qfull.throttle": "vmware"}


def test_lun_queue_error_states_what_the_refusals_cost() -> None:
    """SP002 past the limit: the refusals of hosts without a throttle, as the twin has them."""
    changes, _, _ = TRIGGERS["SP002-lun-queue"]
    data = variant(changes)
    (f,) = check(data, rules=["SP002"]).by_rule("SP002-lun-queue")
    n = f.numbers
    # 2 paths x 16 = 32 commands per LUN against 16: 16 retrying per LUN, all on one LUN here
    assert n["retrying_commands"] == pytest.approx(16.0)
    assert 16.0 / 3.1e-3 < n["refusals_per_s"] < 16.0 / 3e-3
    assert n["refusal_controller_share"] == pytest.approx(n["refusals_per_s"] * 10e-6 / 4)
    assert "QUEUE FULL answers per second" in f.message
    free = check(variant({**changes, "array.qfull_time": 0}), rules=["SP002"])
    assert free.by_rule("SP002-lun-queue")[0].numbers["refusal_controller_share"] == 0.0
    throttled = check(variant({**changes, "hosts.0.qfull": {"throttle": "linux"}}), rules=["SP002"])
    (g,) = throttled.by_rule("SP002-lun-queue")
    assert g.numbers["retrying_commands"] == 0.0 and "throttle (linux)" in g.message


def test_route_loads_under_full_load_and_at_the_workload() -> None:
    s = fan_in_scenario({"workloads.0.outstanding": 2})
    pa = PathAnalysis(s)
    full = pa.port_loads(pa.route_loads(Limits()))
    at_load = pa.port_loads(pa.route_loads(Limits(full_load=False)))
    assert full[0] == 512
    # 2 I/Os per LUN per host over 4 paths: 4 hosts x 4 LUNs x 2 / 2 ports
    assert at_load[0] == pytest.approx(16)


# --------------------------------------------------------------------------------------
# second opinion by simulation
# --------------------------------------------------------------------------------------


SLOW_OPINIONS = {"SP007-enclosure-fan-out", "SP008-failover-idle", "SP015-host-cpu"}
"""Second opinions that simulate for over ten seconds (``make quick`` leaves them out)."""


@pytest.mark.parametrize(
    "rule_id",
    [pytest.param(r, marks=pytest.mark.slow) if r in SLOW_OPINIONS else r for r in SIMULATED],
)
def test_second_opinion_agrees_with_the_direction_of_the_finding(rule_id: str) -> None:
    changes, kwargs, _ = TRIGGERS[rule_id]
    report = check(variant(changes), rules=[rule_id], simulate=True, ios=IOS, **kwargs)
    found = report.by_rule(rule_id)
    assert found and report.simulated
    op = found[0].second_opinion
    assert op is not None and op.error is None
    assert op.seed == 5 and op.ios == IOS
    assert op.before == report.proposal
    if rule_id in NO_SIMULATION_EFFECT:
        assert op.not_worse, (op.verdict, op.before, op.after)
    else:
        assert op.verdict == "agrees", (op.metric, op.before, op.after)


def test_rules_without_a_performance_claim_are_not_simulated() -> None:
    for rule_id in ("SP009-single-path", "SP014-driver-range"):
        changes, kwargs, _ = TRIGGERS[rule_id]
        report = check(variant(changes), rules=[rule_id], simulate=True, ios=IOS, **kwargs)
        assert report.by_rule(rule_id)[0].second_opinion is None
        assert report.proposal is not None  # the proposal itself is still simulated


@pytest.mark.slow
def test_a_fix_on_top_of_earlier_fixes_is_compared_with_them() -> None:
    # shallow depth and failover together: SP008's fix is applied after SP010's... or the
    # other way round; either way the second finding is also judged in that context
    changes, _, _ = TRIGGERS["SP008-failover-idle"]
    report = check(variant(changes), simulate=True, ios=IOS)
    simulated = [f for f in report.findings if f.second_opinion is not None]
    assert len(simulated) >= 2
    first, second = simulated[0].second_opinion, simulated[1].second_opinion
    assert first is not None and second is not None
    assert first.with_earlier is None
    assert second.with_earlier is not None
    assert second.with_earlier.before == first.after
    assert report.combined is not None
    assert report.combined.after == second.with_earlier.after
    assert set(report.combined.fix) == set(first.fix) | set(second.fix)


def test_a_run_by_duration_is_simulated_by_io_count() -> None:
    data = variant(
        {"run.duration": "30s", "run.ios": None, **TRIGGERS["SP010-queue-too-shallow"][0]}
    )
    report = check(data, rules=["SP010"], simulate=True, ios=IOS)
    assert report.ios == IOS
    assert report.proposal is not None and report.proposal["ios"] == IOS


def test_a_fix_run_is_stopped_at_the_time_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    # the limit lives with the report text that quotes it; the runs read it from there
    monkeypatch.setattr(sys.modules["sanpath.advice.report"], "FIX_TIME_LIMIT", 0.3)
    changes, kwargs, _ = TRIGGERS["SP010-queue-too-shallow"]
    report = check(variant(changes), rules=["SP010"], simulate=True, ios=IOS, **kwargs)
    op = report.by_rule("SP010")[0].second_opinion
    assert op is not None
    assert 0 < op.after["ios"] < IOS
    assert "stopped at 0.3x the proposal's simulated time" in report.text()


def test_verdict_uses_a_noise_band() -> None:
    before = {"iops": 1000.0, "qfull": 0.0}
    assert verdict("iops", "higher", before, {"iops": 1100.0}) == "agrees"
    assert verdict("iops", "higher", before, {"iops": 1020.0}) == "no clear difference"
    assert verdict("iops", "higher", before, {"iops": 800.0}) == "disagrees"
    assert verdict("qfull", "lower", before, {"qfull": 3.0}, ios=10_000) == "no clear difference"
    assert verdict(None, "higher", before, before) == "not judged"


def test_merged_fixes_keep_the_smallest_queue_depth_and_the_first_of_anything_else() -> None:
    merged = merge_fixes(
        [
            {"hosts.0.lun_queue_depth": 25, "zoning": "one-to-one"},
            {"hosts.0.lun_queue_depth": 30, "zoning": "all-to-all", "array.port_speed": "16GFC"},
        ]
    )
    assert merged == {
        "hosts.0.lun_queue_depth": 25,
        "zoning": "one-to-one",
        "array.port_speed": "16GFC",
    }


# --------------------------------------------------------------------------------------
# the example proposals
# --------------------------------------------------------------------------------------


def rules_and_severities(report: CheckReport) -> set[tuple[str, str]]:
    return {(f.rule, f.severity) for f in report.findings}


def test_clean_proposal_has_no_findings() -> None:
    report = check(PROPOSALS / "clean.yaml", simulate=True, ios=IOS)
    assert report.findings == ()
    assert report.proposal is not None and report.proposal["qfull"] == 0
    assert "no findings" in report.text()


@pytest.mark.slow
def test_oversubscribed_proposal_shows_the_port_fan_in_and_its_fix_removes_queue_full() -> None:
    report = check(PROPOSALS / "oversubscribed_port.yaml", simulate=True, ios=IOS)
    assert rules_and_severities(report) == {("SP001-fan-in", "error")}
    f = report.findings[0]
    assert f.numbers["fan_in"] == 8 * 8 * 32
    assert f.numbers["port_queue_depth"] == 1600
    assert f.numbers["emc_queue_depth"] == 25
    assert f.fix == {"hosts.0.lun_queue_depth": 25}
    op = f.second_opinion
    assert op is not None
    assert op.before["port_qfull"] > 0
    assert op.after["port_qfull"] == 0
    assert op.verdict == "agrees"


@pytest.mark.slow
def test_split_and_unbalanced_proposal_shows_both_faults_and_the_fixes_pay_together() -> None:
    report = check(PROPOSALS / "split_and_unbalanced.yaml", simulate=True, ios=IOS)
    found = rules_and_severities(report)
    assert ("SP003-split", "warning") in found
    assert ("SP006-port-balance", "warning") in found
    assert report.worst_severity == "warning"
    split = report.by_rule("SP003")[0]
    assert split.numbers["split_limit"] == 64 * 1024
    assert split.numbers["commands_per_io"] == {"512KiB": 8}
    balance = report.by_rule("SP006")[0]
    assert balance.numbers["idle_array_ports"] == [2, 3]
    assert balance.fix == {"array.luns.0.ports": "all"}
    # the split fix alone is not worse (the links are the ceiling until the mapping is fixed)
    assert split.second_opinion is not None and split.second_opinion.not_worse
    # the mapping fix pays once the split is fixed too
    op = balance.second_opinion
    assert op is not None and op.with_earlier is not None
    assert op.with_earlier.verdict == "agrees"
    assert report.combined is not None
    assert report.combined.after["mb_per_s"] > 1.2 * report.combined.before["mb_per_s"]


# --------------------------------------------------------------------------------------
# the command line
# --------------------------------------------------------------------------------------


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    """Exit code, stdout and stderr of ``sanpath check ARGS`` (usage errors exit via argparse)."""
    try:
        code = main(["check", *args])
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(
    ("proposal", "fail_on", "expected"),
    [
        ("clean.yaml", "warning", 0),
        ("clean.yaml", "error", 0),
        ("oversubscribed_port.yaml", "error", 1),
        ("oversubscribed_port.yaml", "warning", 1),
        ("oversubscribed_port.yaml", None, 0),
        ("split_and_unbalanced.yaml", "error", 0),
        ("split_and_unbalanced.yaml", "warning", 1),
    ],
)
def test_fail_on_sets_the_exit_code(
    capsys: pytest.CaptureFixture[str], proposal: str, fail_on: str | None, expected: int
) -> None:
    args = [str(PROPOSALS / proposal), "--no-simulate"]
    if fail_on is not None:
        args += ["--fail-on", fail_on]
    code, out, err = cli(capsys, *args)
    assert code == expected, err
    assert out.startswith("sanpath check:")


def test_json_output_has_the_findings_and_matches_the_api(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = PROPOSALS / "split_and_unbalanced.yaml"
    code, out, _ = cli(capsys, str(path), "--json", "--no-simulate")
    assert code == 0
    data = json.loads(out)
    assert set(data) >= {"scenario", "worst_severity", "counts", "findings", "simulated"}
    assert data["worst_severity"] == "warning"
    assert data["counts"] == {"error": 0, "warning": 2, "info": 1}
    assert data["simulated"] is False
    keys = {"rule", "severity", "title", "message", "mechanism", "source", "numbers", "fix"}
    for f in data["findings"]:
        assert keys <= set(f)
    assert data == json.loads(check(path).to_json())


@pytest.mark.slow
def test_json_output_carries_the_second_opinion(capsys: pytest.CaptureFixture[str]) -> None:
    path = PROPOSALS / "oversubscribed_port.yaml"
    code, out, _ = cli(capsys, str(path), "--json", "--ios", str(IOS), "--fail-on", "error")
    assert code == 1
    data = json.loads(out)
    assert data["simulated"] is True and data["ios"] == IOS
    op = data["findings"][0]["second_opinion"]
    assert set(op["before"]) >= {"iops", "mb_per_s", "latency_ms_mean", "latency_ms_p99", "qfull"}
    assert op["verdict"] == "agrees"


def test_latency_target_reaches_the_rules(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    path = tmp_path / "deep.yaml"
    from ruamel.yaml import YAML

    YAML().dump(variant(TRIGGERS["SP011-latency-target"][0]), path)
    code, out, _ = cli(capsys, str(path), "--latency-target", "20ms", "--no-simulate")
    assert code == 0
    assert "SP011-latency-target" in out and "latency target: 20 ms" in out
    code, out, _ = cli(capsys, str(path), "--no-simulate")
    assert "SP011" not in out


def test_text_report_gives_the_fix_as_overrides(capsys: pytest.CaptureFixture[str]) -> None:
    path = PROPOSALS / "oversubscribed_port.yaml"
    _, out, _ = cli(capsys, str(path), "--no-simulate")
    assert "ERROR    SP001-fan-in" in out
    assert f"Try: sanpath run {path} --set hosts.0.lun_queue_depth=25" in out
    assert "Source: EMC Host Connectivity Guide" in out


@pytest.mark.parametrize(
    "args",
    [
        ["missing.yaml"],
        ["{quickstart}", "--latency-target", "soon"],
        ["{quickstart}", "--latency-target", "0ms"],
        ["{quickstart}", "--ios", "0"],
        ["{quickstart}", "--fail-on", "info"],
    ],
)
def test_bad_input_exits_2(capsys: pytest.CaptureFixture[str], args: list[str]) -> None:
    quickstart = str(SCENARIOS / "quickstart.yaml")
    code, out, err = cli(capsys, *[a.format(quickstart=quickstart) for a in args])
    assert code == 2
    assert out == ""
    assert "Traceback" not in err


def test_an_invalid_proposal_exits_2_with_the_location(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    text = (PROPOSALS / "clean.yaml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("lun_queue_depth: 16", "lun_queue_depth: -1", 1), encoding="utf-8")
    code, _, err = cli(capsys, str(bad), "--no-simulate")
    assert code == 2
    assert re.search(r"bad\.yaml:\d+:\d+: hosts\.0\.lun_queue_depth", err)


def test_an_iscsi_hosts_per_lun_queue_is_fixed_by_its_own_key() -> None:
    """SP002 on an iSCSI host: its per-LUN queue is iscsi.cmd_per_lun, and the fix says so."""
    changes = {
        "hosts.0.transport": "iscsi",
        "hosts.0.lun_queue_depth": None,
        "hosts.0.iscsi": {"cmd_per_lun": 64},
        "hosts.0.hbas": [{"ports": 2, "speed": "10GbE"}],
        "array.port_speed": "25GbE",
        "array.lun_queue_depth": 16,
        "workloads.0.outstanding": 32,
    }
    found = check(variant(changes), rules=["SP002-lun-queue"]).by_rule("SP002-lun-queue")
    assert found and found[0].fix is not None
    assert "hosts.0.iscsi.cmd_per_lun" in found[0].fix
    load_scenario(variant(changes)).with_overrides(found[0].fix)  # the fix validates
