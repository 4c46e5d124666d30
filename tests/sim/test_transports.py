"""Transports on the path: NVMe queue pairs, the TCP transports' processor cost, NVMe
multipath over asymmetric paths, and iSCSI's SCSI semantics (sanpath.spec.transport)."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.layout import nvme_queues
from sanpath.spec import ScenarioError, ethernet_framing


def nvme_san(
    transport: str = "fc-nvme",
    outstanding: int = 64,
    ios: int = 20_000,
    **nvme: Any,
) -> dict[str, Any]:
    """One host (two HBA ports) on two array ports, four namespaces on four exponential
    1 ms drives (the back end is the bottleneck), small port and LUN limits that would make
    a SCSI host see QUEUE FULL."""
    speed = "25GbE" if transport in ("nvme-tcp", "nvme-roce", "iscsi") else "32GFC"
    host: dict[str, Any] = {
        "name": "h",
        "transport": transport,
        "hbas": [{"ports": 2, "speed": speed, "command_time": "2us"}],
    }
    if nvme:
        host["nvme"] = nvme
    return {
        "name": "nvme",
        "seed": 3,
        "run": {"ios": ios, "warmup_ios": 3_000},
        "hosts": [host],
        "array": {
            "ports": 2,
            "port_speed": speed,
            "port_queue_depth": 8,
            "lun_queue_depth": 4,
            "controller": {"cores": 8, "io_time": "10us"},
            "pools": [
                {
                    "name": "p",
                    "raid": "raid0",
                    "drives": 4,
                    "drive": {
                        "model": "textbook",
                        "service": {"dist": "exponential", "mean": "1ms"},
                    },
                }
            ],
            "luns": [{"name": "ns", "count": 4, "pool": "p"}],
        },
        "workloads": [
            {
                "name": "w",
                "outstanding": outstanding,
                "block_size": "4KiB",
                "read_fraction": 1.0,
                "pattern": "random",
            }
        ],
    }


def test_a_full_set_of_queue_pairs_holds_the_population_at_its_capacity() -> None:
    """Little's law on the queue pairs: of 4 namespaces x 64 outstanding = 256 I/Os, 4
    associations (2 host ports x 2 array ports) x 2 queues x 15 entries = 120 are in flight
    beyond the host; the rest wait in the block layer, and the array never refuses one."""
    data = nvme_san(outstanding=64, io_queues=2, queue_size=16, iopolicy="round-robin")
    scenario = sanpath.load_scenario(data)
    io_queues, size = nvme_queues(scenario, 0)
    associations = 2 * 2  # host ports x array ports, all zoned
    capacity = associations * io_queues * (size - 1)
    assert capacity == 120
    result = sanpath.run(scenario)
    assert result.counters["qfull"] == 0 and result.counters["retries"] == 0
    beyond_host = result.breakdown_ms["host_queue"]
    in_flight = result.iops * (result.latency_ms["mean"] - beyond_host) / 1e3
    assert in_flight <= capacity * 1.001
    assert in_flight == pytest.approx(capacity, rel=0.05)
    queues = result.station("h.nvme.queues")
    assert queues.servers == capacity
    assert queues.utilization > 0.9
    # the array's SCSI queues play no part: nothing waits or is counted there
    assert result.station("array.port0.queue").completions == 0


def test_the_same_population_on_fcp_meets_queue_full() -> None:
    data = nvme_san(outstanding=64)
    data["hosts"][0]["transport"] = "fcp"
    result = sanpath.run(data)
    assert result.counters["qfull"] > 0


def test_more_queues_admit_more_and_raise_iops_until_the_drives_saturate() -> None:
    small = sanpath.run(nvme_san(outstanding=64, io_queues=1, queue_size=16))
    large = sanpath.run(nvme_san(outstanding=64, io_queues=8, queue_size=64))
    assert large.iops > 1.1 * small.iops
    assert small.breakdown_ms["host_queue"] > large.breakdown_ms["host_queue"]
    assert small.station("array.p.drives").utilization < 0.9
    assert large.station("array.p.drives").utilization > 0.95


def cpu_bound(transport: str) -> dict[str, Any]:
    """Reads served from cache at no cost by a fast array: the host's 2 processors are the
    only stage with a time per command (the transport's own, with ``cpu_time`` 0)."""
    data = nvme_san(transport, outstanding=32, ios=30_000, io_queues=8, queue_size=128)
    host = data["hosts"][0]
    host.update(cpus=2, cpu_time=0)
    host["hbas"][0]["command_time"] = 0
    data["array"]["cache"] = {"read_hit": 1.0}
    data["array"]["controller"] = {"cores": 64, "io_time": "1us"}
    data["array"]["nvme"] = {"tcp_time": 0, "rdma_time": 0}
    return data


def test_nvme_tcp_iops_follow_cpus_over_the_transport_time_and_fc_nvme_do_not() -> None:
    tcp = sanpath.run(cpu_bound("nvme-tcp"))
    expected = 2 / 5.6e-6
    assert tcp.iops == pytest.approx(expected, rel=0.03)
    assert tcp.station("h.cpu").utilization > 0.97
    fc = sanpath.run(cpu_bound("fc-nvme"))
    assert fc.iops > 2 * expected
    given = cpu_bound("nvme-tcp")
    given["hosts"][0]["transport_cpu_time"] = "10us"
    assert sanpath.run(given).iops == pytest.approx(2 / 10e-6, rel=0.03)


def asymmetric(policy: str) -> dict[str, Any]:
    """Two HBAs, one of them slow (a busy processor: 150 us per command), each zoned to
    one array port: two optimized paths of very different speed."""
    data = nvme_san(outstanding=8, ios=20_000, io_queues=4, queue_size=64, iopolicy=policy)
    data["hosts"][0]["hbas"] = [
        {"ports": 1, "speed": "32GFC", "command_time": "5us"},
        {"ports": 1, "speed": "32GFC", "command_time": "150us"},
    ]
    data["zoning"] = [
        {"host": "h", "port": 0, "array_ports": [0]},
        {"host": "h", "port": 1, "array_ports": [1]},
    ]
    data["array"]["pools"][0]["drive"] = {
        "model": "textbook",
        "service": {"dist": "exponential", "mean": "100us"},
    }
    data["array"]["pools"][0]["drives"] = 16
    return data


def test_queue_depth_beats_round_robin_on_asymmetric_paths() -> None:
    rr = sanpath.run(asymmetric("round-robin"))
    qd = sanpath.run(asymmetric("queue-depth"))
    assert qd.latency_ms["mean"] < 0.8 * rr.latency_ms["mean"]
    latency = sanpath.run(asymmetric("lb-latency"))  # HPP's latency policy learns it too
    assert latency.latency_ms["mean"] < 0.8 * rr.latency_ms["mean"]

    # round-robin sends half the reads down the slow path (array port 1), queue-depth few
    def slow_share(result: sanpath.RunResult) -> float:
        slow = result.station("array.port1.link.out").completions
        return slow / (slow + result.station("array.port0.link.out").completions)

    assert slow_share(rr) == pytest.approx(0.5, abs=0.01)
    assert slow_share(qd) < 0.2


@pytest.mark.parametrize("policy", ["numa", "lb-rr", "lb-iops", "lb-bytes", "lb-latency"])
def test_every_iopolicy_runs_and_conserves_ios(policy: str) -> None:
    result = sanpath.run(asymmetric(policy), overrides={"run.ios": 4_000, "run.warmup_ios": 500})
    assert result.ios >= 4_000
    assert result.counters["qfull"] == 0


@pytest.mark.parametrize("policy", ["lb-rr", "lb-iops", "lb-bytes"])
def test_hpp_turns_spread_the_namespaces_over_the_paths_in_a_short_run(policy: str) -> None:
    # turns of 100,000 I/Os outlast the run: had every namespace started on path 0 it would
    # never leave it; each (host, namespace) starts on its own path instead, so four
    # namespaces over two paths load the two array ports equally
    result = sanpath.run(nvme_san(iopolicy=policy, rr_ios=100_000, rr_bytes=2**40))
    port0 = result.station("array.port0.link.out").completions
    port1 = result.station("array.port1.link.out").completions
    assert port0 + port1 >= 20_000
    assert port0 / (port0 + port1) == pytest.approx(0.5, abs=0.05)


def test_ethernet_framing_follows_the_mtu() -> None:
    tcp = ethernet_framing("nvme-tcp", 1500)
    jumbo = ethernet_framing("nvme-tcp", 9000)
    assert tcp.payload == 1448 and jumbo.payload == 8948
    assert tcp.wire_bytes(256 * 1024) > jumbo.wire_bytes(256 * 1024)
    assert ethernet_framing("nvme-roce", 1500).payload == 1024
    assert ethernet_framing("nvme-roce", 9000).payload == 4096


def test_a_large_read_over_nvme_tcp_on_25gbe_is_capped_by_the_wire_with_its_frames() -> None:
    data = nvme_san("nvme-tcp", outstanding=16, ios=4_000, io_queues=8, queue_size=128)
    data["hosts"][0]["hbas"][0]["ports"] = 1
    data["array"]["ports"] = 1
    data["array"]["cache"] = {"read_hit": 1.0}
    data["workloads"][0]["block_size"] = "1MiB"
    result = sanpath.run(data)
    framing = ethernet_framing("nvme-tcp", 1500)
    size = 1 << 20
    expected = 25e9 / 8 * size / framing.wire_bytes(size) / 1e6
    assert result.mb_per_s == pytest.approx(expected, rel=0.03)


def test_iscsi_keeps_scsi_semantics_with_the_session_limits() -> None:
    data = nvme_san("iscsi", outstanding=64)
    scenario = sanpath.load_scenario(data)
    host = scenario.hosts[0]
    assert host.lun_queue_depth == 32  # cmd_per_lun
    assert host.hbas[0].queue_depth == 128 and host.hbas[0].queue_target == "target"
    result = sanpath.run(scenario)
    assert result.counters["qfull"] > 0  # TASK SET FULL from the small LUN queues


def test_scsi_keys_on_an_nvme_host_are_refused_with_their_name() -> None:
    data = nvme_san()
    data["hosts"][0]["lun_queue_depth"] = 32
    with pytest.raises(ScenarioError, match="lun_queue_depth does not apply to an NVMe"):
        sanpath.load_scenario(data)
    data = nvme_san()
    data["hosts"][0]["transport"] = "fcp"
    data["hosts"][0]["nvme"] = {"queue_size": 64}
    with pytest.raises(ScenarioError, match="nvme applies to the NVMe transports"):
        sanpath.load_scenario(data)
    data = nvme_san("nvme-tcp")
    del data["hosts"][0]["hbas"][0]["speed"]
    with pytest.raises(ScenarioError, match="needs its NIC's speed"):
        sanpath.load_scenario(data)


def test_io_queues_default_to_the_host_processors_and_the_array_caps_them() -> None:
    data = nvme_san()
    data["hosts"][0]["cpus"] = 12
    assert nvme_queues(sanpath.load_scenario(data), 0) == (12, 128)
    data["array"]["nvme"] = {"max_io_queues": 4, "max_queue_size": 32}
    assert nvme_queues(sanpath.load_scenario(data), 0) == (4, 32)


def test_an_nvme_run_is_the_same_for_the_same_seed() -> None:
    data = nvme_san(outstanding=16, ios=3_000, io_queues=4, queue_size=16, iopolicy="queue-depth")
    first, second = sanpath.run(data), sanpath.run(data)
    assert first.iops == second.iops
    assert first.latency_ms == second.latency_ms
