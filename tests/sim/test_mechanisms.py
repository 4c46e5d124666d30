"""Each mechanism moves the curves the way the mechanism says it should."""

from __future__ import annotations

import copy
import itertools
from typing import Any

import pytest

import sanpath
from sanpath.theory import textbook

WHOLE_QUEUE = {"profile": "hdd-15k", "reorder_window": None}
"""A 15k drive scheduling SPTF over its whole queue (the profile weighs 16 commands)."""


def small_san(ios: int = 8_000, **workload: Any) -> dict[str, Any]:
    """One host, one dual-port HBA, an array with one RAID 5 pool of 15k drives (the 2005-era
    card, one processor for both ports, and SPTF over the drives' whole queue: what these
    tests were written against)."""
    data: dict[str, Any] = {
        "name": "small",
        "seed": 3,
        "run": {"ios": ios, "warmup_ios": ios // 10},
        "hosts": [
            {
                "name": "db",
                "lun_queue_depth": None,
                "multipath": "round-robin",
                "hbas": [
                    {
                        "ports": 2,
                        "speed": "4GFC",
                        "queue_depth": 32,
                        "command_time": "10us",
                        "processor": "card",
                        "pcie": {"gen": 1, "lanes": 4},
                    }
                ],
            }
        ],
        "array": {
            "ports": 2,
            "port_speed": "8GFC",
            "port_queue_depth": None,
            "controller": {"cores": 2, "io_time": "20us"},
            "cache": {},
            "pools": [
                {"name": "r5", "raid": "raid5", "drives": 5, "groups": 4, "drive": WHOLE_QUEUE}
            ],
            "luns": [{"name": "data", "count": 4, "pool": "r5"}],
        },
        "workloads": [{"name": "load", "outstanding": 8, "block_size": "8KiB"}],
    }
    data["workloads"][0].update(workload)
    return data


@pytest.mark.slow
def test_more_queue_depth_never_lowers_closed_loop_throughput() -> None:
    base = small_san(outstanding=64)
    iops = []
    for depth in (1, 2, 4, 8, 16, 32):
        result = sanpath.run(base, overrides={"hosts.0.hbas.0.queue_depth": depth})
        assert result.counters["qfull"] == 0
        iops.append(result.iops)
    for lower, higher in itertools.pairwise(iops):
        assert higher >= lower * 0.99, iops
    assert iops[-1] > 2.5 * iops[0]


@pytest.mark.slow
def test_port_queue_overflow_gives_queue_full_and_a_longer_tail() -> None:
    base = small_san(outstanding=8, ios=12_000)
    base["hosts"][0]["count"] = 8
    base["hosts"][0]["multipath"] = "failover"
    base["hosts"][0]["qfull"] = {"retry_delay": "3ms", "throttle": "none"}
    unlimited = sanpath.run(base)
    data = copy.deepcopy(base)
    data["array"]["port_queue_depth"] = 64
    limited = sanpath.run(data)
    assert unlimited.counters["qfull"] == 0
    assert limited.counters["qfull"] > 100
    # a retry follows every QUEUE FULL (up to those still waiting when the window closes)
    assert abs(limited.counters["retries"] - limited.counters["qfull"]) <= 8 * 4 * 8
    assert limited.latency_ms["p99_9"] > 1.2 * unlimited.latency_ms["p99_9"]
    assert limited.breakdown_ms["array_port"] > 0.5


def test_a_switch_probe_sees_each_queue_full_as_an_exchange_of_its_own() -> None:
    """A refused command is a short exchange (frame out, QUEUE FULL back); its retry is a new
    one. So QUEUE FULL storms pull the exchange median down while the tail stays long."""
    base = small_san(outstanding=8, ios=12_000)
    base["hosts"][0].update(count=8, multipath="failover")
    base["hosts"][0]["qfull"] = {"retry_delay": "3ms", "throttle": "none"}
    base["run"]["record_interval"] = "50ms"
    base["array"]["port_queue_depth"] = 64
    sim = sanpath.sim.engine.Simulation(sanpath.load_scenario(base))
    result = sim.run()
    qfull = result.counters["qfull"]
    assert qfull > 100
    probe = sim.measure.exchanges
    assert probe is not None
    columns = probe.to_columns(t_end=sim.env.now)
    exchanges = round(sum(columns["iops"]) * probe.interval)
    # up to the 8 x 4 x 8 commands in flight at each end of the window are counted once only
    assert exchanges == pytest.approx(result.counters["commands"] + qfull, abs=2 * 8 * 4 * 8)
    one_way = sim.one_way
    timeseries = result.timeseries
    assert timeseries is not None
    assert min(timeseries["exchange_ms_p50"]) < 0.2  # QUEUE FULL answers: tens of us
    assert max(timeseries["exchange_ms_p99"]) > 50 * 2 * one_way * 1e3


@pytest.mark.slow
def test_throttling_reduces_queue_full_answers() -> None:
    base = small_san(outstanding=16, ios=12_000)
    base["hosts"][0].update(count=8, multipath="failover", lun_queue_depth=16)
    base["array"]["port_queue_depth"] = 64
    counts = {}
    for policy in ("none", "vmware", "storport"):
        data = copy.deepcopy(base)
        data["hosts"][0]["qfull"] = {"throttle": policy, "sample_size": 4, "threshold": 8}
        counts[policy] = sanpath.run(data).counters["qfull"]
    assert counts["vmware"] < counts["none"]
    assert counts["storport"] < counts["none"]


def test_splitting_doubles_commands_and_conserves_bytes() -> None:
    base = small_san(outstanding=2, block_size="1MiB", pattern="sequential", ios=2_000)
    whole = sanpath.run(base, overrides={"hosts.0.hbas.0.max_transfer": "2MiB"})
    split = sanpath.run(base, overrides={"hosts.0.hbas.0.max_transfer": "512KiB"})
    assert whole.counters["split_ios"] == 0
    # every I/O issued in the window was split (as many as completed in it, up to the 2 x 4
    # in flight), and every command issued in it was a part of one
    assert abs(split.counters["split_ios"] - split.ios) <= 2 * 4
    assert split.counters["commands"] == split.counters["split_children"]
    assert split.counters["split_children"] == 2 * split.counters["split_ios"]
    for result in (whole, split):
        totals = result.totals
        assert totals["bytes_completed"] == totals["ios_completed"] * (1 << 20)
    # every byte of every completed I/O went through exactly one command
    t = split.totals
    in_flight_children = t["commands_issued"] - t["commands_completed"]
    assert t["commands_issued"] == 2 * t["ios_issued"]
    assert 0 <= in_flight_children <= 2 * (t["ios_issued"] - t["ios_completed"])


def ssd_san(port_speed: str, block_size: str, pattern: str) -> dict[str, Any]:
    data = small_san(outstanding=8, block_size=block_size, pattern=pattern, ios=4_000)
    data["array"]["ports"] = 1
    data["array"]["port_speed"] = port_speed
    data["array"]["pools"][0]["drive"] = "ssd"
    data["array"]["pools"][0]["groups"] = 8
    return data


def test_faster_link_helps_only_when_it_is_the_bottleneck() -> None:
    # Large sequential reads: the single array port link is the bottleneck.
    slow = sanpath.run(ssd_san("2GFC", "1MiB", "sequential"))
    fast = sanpath.run(ssd_san("8GFC", "1MiB", "sequential"))
    assert fast.mb_per_s > 1.8 * slow.mb_per_s
    assert slow.station("array.port0.link.out").utilization > 0.9
    # Small random reads on disks: the drives are the bottleneck, the link is idle.
    base = small_san(outstanding=4, ios=6_000)
    slow = sanpath.run(base, overrides={"array.port_speed": "2GFC"})
    fast = sanpath.run(base, overrides={"array.port_speed": "16GFC"})
    assert fast.iops == pytest.approx(slow.iops, rel=0.03)


def test_faster_pcie_slot_helps_only_when_it_is_the_bottleneck() -> None:
    data = ssd_san("16GFC", "1MiB", "sequential")
    data["hosts"][0]["hbas"][0]["speed"] = "16GFC"
    x1 = sanpath.run(data, overrides={"hosts.0.hbas.0.pcie": {"gen": 1, "lanes": 1}})
    x4 = sanpath.run(data, overrides={"hosts.0.hbas.0.pcie": {"gen": 1, "lanes": 4}})
    # x1 Gen1 is 250 MB/s per direction: the slot caps throughput.
    assert x1.mb_per_s == pytest.approx(250, rel=0.05)
    assert x4.mb_per_s > 3 * x1.mb_per_s


def test_command_queueing_raises_drive_iops() -> None:
    iops = []
    for outstanding in (1, 4, 16, 64):
        data = textbook.free_path(ios=5_000, warmup_ios=500)
        data["array"]["pools"][0]["drive"] = WHOLE_QUEUE
        data["workloads"][0].update(outstanding=outstanding, block_size="8KiB")
        iops.append(sanpath.run(data).iops)
    # Rules of thumb for a 15k drive: about 175-210 random IOPS at queue depth 1.
    assert 160 <= iops[0] <= 210
    assert iops[0] < iops[1] < iops[2] < iops[3]
    assert iops[3] > 2.5 * iops[0]


def test_fifo_scheduling_gains_nothing_from_queue_depth() -> None:
    iops = []
    for outstanding in (1, 32):
        data = textbook.free_path(ios=3_000, warmup_ios=300)
        data["array"]["pools"][0]["drive"] = {"profile": "hdd-15k", "scheduling": "fifo"}
        data["workloads"][0].update(outstanding=outstanding, block_size="8KiB")
        iops.append(sanpath.run(data).iops)
    assert iops[1] == pytest.approx(iops[0], rel=0.06)


def test_raid5_small_writes_cost_four_drive_commands() -> None:
    reads = sanpath.run(small_san(outstanding=4, read_fraction=1.0, ios=4_000))
    writes = sanpath.run(small_san(outstanding=4, read_fraction=0.0, ios=4_000))
    drive_reads = reads.station("array.r5.drives").completions / reads.ios
    drive_writes = writes.station("array.r5.drives").completions / writes.ios
    assert drive_reads == pytest.approx(1.0, abs=0.02)
    assert drive_writes == pytest.approx(4.0, abs=0.05)


def test_full_stripe_writes_avoid_read_modify_write() -> None:
    # 4 data drives x 64 KiB elements = 256 KiB rows; aligned 256 KiB writes fill rows.
    result = sanpath.run(
        small_san(outstanding=2, read_fraction=0.0, block_size="256KiB", ios=2_000)
    )
    per_io = result.station("array.r5.drives").completions / result.ios
    assert per_io == pytest.approx(5.0, abs=0.05)  # 4 data + 1 parity, no reads


def test_pool_slices_keep_a_sequential_stream_in_one_group() -> None:
    """Whole slices go round-robin over the groups (the mapping itself:
    tests/layout/test_layout.py)."""
    # sequential 1 MiB reads: in one group, each of the 5 drives reads its run of the 4 rows
    # (split at most once by the row where it holds parity) instead of pieces in 3 groups
    base = small_san(outstanding=1, block_size="1MiB", pattern="sequential", ios=400)
    base["array"]["pools"][0].update(raid="raid5", drives=5, groups=3)
    base["array"]["luns"][0]["count"] = 1
    ops = {}
    for name, slice_ in (("striped", None), ("sliced", "1GiB")):
        base["array"]["pools"][0]["slice"] = slice_
        result = sanpath.run(base)
        ops[name] = result.station("array.r5.drives").completions / result.ios
    assert 5 <= ops["sliced"] <= 10
    assert ops["striped"] > 1.5 * ops["sliced"], ops


def test_write_back_cache_absorbs_writes_and_write_aside_bypasses_it() -> None:
    base = small_san(outstanding=4, read_fraction=0.0, ios=4_000)
    base["array"]["cache"] = {"write_back": "1GiB", "write_aside": "1MiB"}
    # the mechanism: an empty cache takes every write at once (a transient, so no
    # preconditioning and a fixed warm-up; at steady state the drives set the pace)
    base["run"].update(precondition=False, warmup="fixed")
    cached = sanpath.run(base)
    bypass = sanpath.run(base, overrides={"array.cache.write_aside": "4KiB"})
    assert cached.latency_ms["mean"] < 0.5
    assert bypass.latency_ms["mean"] > 5 * cached.latency_ms["mean"]
    assert bypass.breakdown_ms["drive"] > 0.8 * bypass.latency_ms["mean"]


@pytest.mark.slow
def test_full_write_cache_forces_flushes() -> None:
    base = small_san(outstanding=16, read_fraction=0.0, ios=20_000)
    base["array"]["cache"] = {"write_back": "4MiB"}
    result = sanpath.run(base)
    assert result.counters["forced_flushes"] > 0
    assert result.breakdown_ms["cache"] > 1.0


def test_interleaved_sequential_writes_destage_as_full_stripes() -> None:
    """Four sequential writers on one LUN: their writes interleave in the cache, yet each
    stream's dirty data joins up while it waits, so destages are full-stripe writes (5 drive
    writes per 256 KiB row of a 4+1 group) instead of read-modify-writes (4 per 64 KiB).
    In both destage orders: in ``sweep`` order the recency bit keeps a stream's extent still
    growing at its head from going as a partial row, and extents join within whole-row
    blocks, so they stay on row boundaries."""
    base = small_san(
        outstanding=1, threads=4, read_fraction=0.0, block_size="64KiB", pattern="sequential"
    )
    base["array"]["cache"] = {"write_back": "8MiB", "destage_concurrency": 2}
    base["array"]["luns"][0]["count"] = 1
    for order in ("sweep", "arrival"):
        result = sanpath.run(base, overrides={"array.cache.destage_order": order})
        assert result.counters["forced_flushes"] > 0  # the cache is full: destaging sets the pace
        per_io = result.station("array.r5.drives").completions / result.ios
        assert per_io == pytest.approx(5 / 4, rel=0.05), order


def test_copy_job_files_start_on_io_size_boundaries() -> None:
    """Each backup file's region starts on a multiple of the largest I/O, so full-stripe
    writes stay full-stripe whatever the LUN size and the number of files."""
    data = copy_job(files=3)
    data["array"]["luns"][1]["size"] = "10000MB"  # not a multiple of 3 x 256 KiB
    sim = sanpath.sim.engine.Simulation(sanpath.load_scenario(data))
    sim.load.start()
    (job,) = sim.load.copy_jobs.values()
    assert len(job.files) == 3
    for file in job.files:
        assert file.start % (256 * 1024) == 0
        assert file.region % (256 * 1024) == 0
        assert file.start + file.region <= file.lun.size


def test_read_ahead_raises_sequential_throughput() -> None:
    base = small_san(outstanding=1, block_size="64KiB", pattern="sequential", ios=4_000)
    base["array"]["pools"][0]["drive"] = {**WHOLE_QUEUE, "read_lookahead": False}
    without = sanpath.run(base)
    with_ra = sanpath.run(base, overrides={"array.cache.read_ahead": "4MiB"})
    assert with_ra.counters["read_ahead_hits"] > 0.9 * with_ra.ios
    assert with_ra.mb_per_s > 2 * without.mb_per_s


def test_multipath_round_robin_beats_failover_when_the_lun_queue_is_per_path() -> None:
    base = small_san(outstanding=32, ios=6_000)
    base["hosts"][0]["lun_queue_depth"] = 4
    base["array"]["luns"][0]["count"] = 1
    off = sanpath.run(base, overrides={"hosts.0.multipath": "failover"})
    rr = sanpath.run(base, overrides={"hosts.0.multipath": "round-robin"})
    lqd = sanpath.run(base, overrides={"hosts.0.multipath": "least-queue-depth"})
    assert rr.iops > 1.2 * off.iops
    assert lqd.iops > 1.2 * off.iops


def test_commands_on_the_non_owner_controller_cross_the_inter_controller_link() -> None:
    # one LUN (owned by controller 0), two array ports (controller 0 and 1), large reads
    base = small_san(outstanding=8, block_size="512KiB", pattern="sequential", ios=3_000)
    base["array"]["pools"][0]["drive"] = "ssd"
    base["array"]["luns"][0]["count"] = 1
    base["array"]["cross_controller"] = {"time": "50us", "rate": "200MB/s"}
    base["array"]["port_speed"] = "16GFC"
    base["hosts"][0]["hbas"][0].update(speed="16GFC", pcie={"gen": 3, "lanes": 8})
    spread = sanpath.run(base, overrides={"hosts.0.multipath": "round-robin"})
    owner = sanpath.run(base, overrides={"hosts.0.multipath": "failover"})
    link = spread.station("array.cross_controller")
    assert link.completions > 0.4 * spread.ios  # about half the commands were forwarded
    assert owner.station("array.cross_controller").completions == 0
    assert owner.mb_per_s > 1.5 * spread.mb_per_s


def test_controller_bandwidth_caps_the_array() -> None:
    base = ssd_san("16GFC", "1MiB", "sequential")
    base["hosts"][0]["hbas"][0].update(speed="16GFC", pcie={"gen": 3, "lanes": 8})
    free = sanpath.run(base)
    capped = sanpath.run(base, overrides={"array.controller.bandwidth": "300MB/s"})
    assert free.mb_per_s > 500
    assert capped.mb_per_s == pytest.approx(300, rel=0.03)
    assert capped.station("array.controller.bandwidth").utilization > 0.95


def test_transfer_setup_costs_small_commands_bandwidth() -> None:
    """A bandwidth stage at rate B with set-up a per command moves size / (a + size / B)."""
    base = ssd_san("16GFC", "1MiB", "sequential")
    base["hosts"][0]["hbas"][0].update(speed="16GFC", pcie={"gen": 3, "lanes": 8})
    base["array"]["controller"].update(bandwidth="300MB/s", transfer_setup="1ms")
    for size in (256 * 1024, 1024 * 1024):
        result = sanpath.run(base, overrides={"workloads.0.block_size": size})
        expected = size / (1e-3 + size / 300e6) / 1e6
        assert result.mb_per_s == pytest.approx(expected, rel=0.03)
        assert result.station("array.controller.bandwidth").utilization > 0.95


def copy_job(ios: int = 6_000, **copy_to: Any) -> dict[str, Any]:
    """A backup-like copy: sequential 256 KiB reads of two LUNs written to a third."""
    data = small_san(
        ios=ios, outstanding=4, block_size="256KiB", pattern="sequential", luns=["src"]
    )
    data["array"]["luns"] = [
        {"name": "src", "count": 2, "pool": "r5"},
        {"name": "dst", "count": 1, "pool": "r5"},
    ]
    data["array"]["cache"] = {"write_back": "256MiB"}
    data["workloads"][0]["copy_to"] = {"luns": ["dst"], **copy_to}
    return data


def test_copy_job_writes_what_it_reads() -> None:
    result = sanpath.run(copy_job(files=3, ratio=0.5))
    reads, writes = result.read_iops, result.write_iops
    # every read is followed by one write of half its size
    assert writes == pytest.approx(reads, rel=0.01)
    written = result.lun_mb_per_s["dst"]
    read = sum(v for k, v in result.lun_mb_per_s.items() if k != "dst")
    assert written == pytest.approx(read / 2, rel=0.01)


def test_copy_job_buffers_and_file_depth_bound_what_is_in_flight() -> None:
    free = sanpath.run(copy_job())
    limited = sanpath.run(copy_job(buffers=3, files=2, depth=1))
    buffers = limited.station("db.load.buffers")
    assert buffers.servers == 3
    assert buffers.mean_in_station - buffers.mean_queue <= 3 + 1e-9
    writes = limited.station("db.load.file_writes")
    assert writes.servers == 2
    assert writes.mean_in_station - writes.mean_queue <= 2 + 1e-9
    # fewer buffers in flight, lower throughput (the drives are the bottleneck)
    assert limited.mb_per_s < free.mb_per_s


def test_copy_job_writer_threads_cap_the_copy_at_files_over_writer_time() -> None:
    """One writer thread per file, 10 ms per buffer: at most files x 100 buffers per second."""
    free = sanpath.run(copy_job(files=2))
    assert free.read_iops > 300  # the copy alone is faster than two writers allow
    two = sanpath.run(copy_job(files=2, writer_time="10ms"))
    assert two.read_iops == pytest.approx(200, rel=0.03)
    writers = two.station("db.load.writers")
    assert writers.servers == 2
    assert writers.utilization > 0.97
    # more files, more writer threads: the cap rises with them (the reads now limit too)
    three = sanpath.run(copy_job(files=3, writer_time="10ms"))
    assert 1.25 * two.read_iops < three.read_iops <= 300 * 1.01
    # a buffer's time on the writer is application time, not write latency
    assert two.write_latency_ms < 10


def test_read_and_write_latencies_average_to_the_mean() -> None:
    result = sanpath.run(small_san(read_fraction=0.7, ios=4_000))
    n = result.read_iops + result.write_iops
    mean = (
        result.read_iops * result.read_latency_ms + result.write_iops * result.write_latency_ms
    ) / n
    assert mean == pytest.approx(result.latency_ms["mean"], rel=1e-9)
    assert result.read_latency_ms != pytest.approx(result.write_latency_ms, rel=0.01)
    reads_only = sanpath.run(small_san(ios=2_000))
    assert reads_only.to_dict()["write_latency_ms_mean"] is None


@pytest.mark.slow
def test_write_aside_counts_the_writes_that_bypass_the_cache() -> None:
    base = small_san(
        outstanding=2, read_fraction=0.0, ios=2_000, block_size={"8KiB": 0.5, "2MiB": 0.5}
    )
    base["array"]["cache"] = {"write_back": "1GiB", "write_aside": "1MiB"}
    result = sanpath.run(base)
    cached, aside = result.counters["cached_writes"], result.counters["write_aside"]
    assert cached > 0 and aside > 0
    assert cached / (cached + aside) == pytest.approx(0.5, abs=0.05)
