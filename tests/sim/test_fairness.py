"""Who suffers in a fan-in: queue shares on a saturated LUN, and hosts that starve.

By Little's law hosts treated alike get throughput in proportion to the commands they keep
in flight. That holds whether the LUN's drives queue every command or the array refuses
those beyond its limit (a retried command competes anew with the others' arrivals, whoever
sends it). A host whose throttle backs off while its neighbours keep hammering the LUN
loses the slots they grab (VMware KB 1008113) and starves: the run names it.
"""

from __future__ import annotations

import json
import math
from typing import Any

import matplotlib.pyplot as plt
import numpy as np
import pytest
from scipy import stats

import sanpath
import sanpath.plotting

DEPTHS = (4, 8, 16, 32)


def shared_lun(
    depths: tuple[int, ...], throttles: tuple[str, ...], lun_limit: int | None, ios: int
) -> dict[str, Any]:
    """One host per depth, each keeping its depth of 8 KiB random reads on one LUN of eight
    15k drives (the drives are the bottleneck)."""
    hosts = [
        {
            "name": f"h{i}-qd{depth}-{throttle}",
            "lun_queue_depth": depth,
            "multipath": "failover",
            "qfull": {"retry_delay": "3ms", "throttle": throttle},
            "hbas": [{"ports": 1, "speed": "8GFC", "queue_depth": 64, "command_time": "10us"}],
        }
        for i, (depth, throttle) in enumerate(zip(depths, throttles, strict=True))
    ]
    return {
        "name": "shared-lun",
        "seed": 11,
        "run": {"ios": ios, "warmup_ios": ios // 4, "warmup": "fixed"},
        "hosts": hosts,
        "array": {
            "ports": 1,
            "port_queue_depth": None,
            "lun_queue_depth": lun_limit,
            "controller": {"cores": 2, "io_time": "20us"},
            "pools": [{"name": "p", "raid": "raid0", "drives": 8, "drive": "hdd-15k"}],
            "luns": [{"name": "l", "pool": "p"}],
        },
        "workloads": [
            {
                "name": f"w{i}",
                "hosts": [host["name"]],
                "outstanding": depth,
                "block_size": "8KiB",
                "read_fraction": 1.0,
            }
            for i, (depth, host) in enumerate(zip(depths, hosts, strict=True))
        ],
    }


def shares(data: dict[str, Any], replicates: int) -> np.ndarray:
    """Each host's share of the LUN's IOPS, one row per replicate."""
    rows = []
    for rep in range(replicates):
        result = sanpath.run(data, replicate=rep)
        iops = [result.groups["hosts"][h["name"]].iops for h in data["hosts"]]
        rows.append(np.array(iops) / sum(iops))
    return np.array(rows)


@pytest.mark.slow
@pytest.mark.parametrize("lun_limit", [None, 32], ids=["drives-queue", "queue-full"])
def test_hosts_share_a_saturated_lun_in_proportion_to_their_queues(
    lun_limit: int | None,
) -> None:
    data = shared_lun(DEPTHS, ("none",) * 4, lun_limit, ios=3_000)
    x = shares(data, replicates=5)
    mean = x.mean(axis=0)
    half = stats.t.ppf(0.975, len(x) - 1) * x.std(axis=0, ddof=1) / math.sqrt(len(x))
    expected = np.array(DEPTHS) / sum(DEPTHS)
    assert np.all(np.abs(mean - expected) <= half + 0.005), (mean, half, expected)
    # the shares differ as the depths do: deeper queues take more of the LUN
    assert np.all(np.diff(mean) > 0)
    if lun_limit is not None:
        one = sanpath.run(data)
        assert one.counters["lun_qfull"] > 0 and one.starving == ()


@pytest.mark.slow
def test_a_host_that_backs_off_while_the_others_do_not_starves_and_is_named() -> None:
    mixed = shared_lun((32,) * 4, ("none", "none", "none", "vmware"), 32, ios=4_000)
    result = sanpath.run(mixed)
    names = [h["name"] for h in mixed["hosts"]]
    victim = names[3]
    assert [s.host for s in result.starving] == [victim]
    starving = result.starving[0]
    assert starving.lun == "l" and starving.share < 0.25
    assert starving.refused >= starving.served
    warning = next(w for w in result.warnings if w.startswith("STARVING"))
    assert victim in warning and not any(n in warning for n in names[:3])
    assert f"{victim} on l" in result.summary()
    assert result.to_dict()["starving"][0]["host"] == victim
    assert result.fairness["jain"] < 0.85
    # the same hosts all without a throttle share the refusals alike: nobody starves
    alike = sanpath.run(shared_lun((32,) * 4, ("none",) * 4, 32, ios=4_000))
    assert alike.counters["lun_qfull"] > 1_000
    assert alike.starving == ()
    assert not any(w.startswith("STARVING") for w in alike.warnings)
    assert alike.fairness["jain"] > 0.95


def open_groups(rates: tuple[float, ...], ios: int) -> dict[str, Any]:
    """Host groups of two hosts, each group's hosts offering their own open-loop rate of
    8 KiB random reads to one LUN of flash (far from saturation)."""
    hosts = [
        {
            "name": f"g{i}",
            "count": 2,
            "hbas": [{"ports": 1, "speed": "8GFC", "queue_depth": 64, "command_time": "10us"}],
        }
        for i in range(len(rates))
    ]
    return {
        "name": "open-groups",
        "seed": 5,
        "run": {"ios": ios, "warmup_ios": ios // 4, "warmup": "fixed"},
        "hosts": hosts,
        "array": {
            "ports": 1,
            "controller": {"cores": 4, "io_time": "10us"},
            "pools": [{"name": "p", "raid": "raid0", "drives": 8, "drive": "ssd"}],
            "luns": [{"name": "l", "pool": "p"}],
        },
        "workloads": [
            {
                "name": f"w{i}",
                "hosts": [f"g{i}"],
                "rate": rate,
                "block_size": "8KiB",
                "read_fraction": 1.0,
            }
            for i, rate in enumerate(rates)
        ],
    }


def test_fairness_compares_what_a_host_got_with_what_it_asked_for() -> None:
    # open loops served in full score 1 whatever their rates; the plain IOPS would not
    got = {"a[0]": 100.0, "a[1]": 100.0, "b[0]": 3_000.0}
    asked = {h: {"rate": x, "outstanding": 0.0} for h, x in got.items()}
    assert sanpath.results.fairness(list(sanpath.results.served(got, asked).values()))[
        "jain"
    ] == pytest.approx(1.0)
    assert sanpath.results.fairness(list(got.values()))["jain"] < 0.4
    # closed loops ask for their queue share of what the closed loops completed
    closed = {"q4": {"outstanding": 4.0}, "q32": {"outstanding": 32.0}}
    share = sanpath.results.served({"q4": 100.0, "q32": 800.0}, closed)
    assert share == pytest.approx({"q4": 1.0, "q32": 1.0})
    starved = sanpath.results.served({"q4": 10.0, "q32": 890.0}, closed)
    assert starved["q4"] == pytest.approx(0.1) and starved["q32"] > 1.0


def test_open_loop_groups_at_their_offered_rates_score_one() -> None:
    result = sanpath.run(open_groups((40.0, 1_200.0), ios=5_000))
    hosts = result.groups["hosts"]
    assert hosts["g1[0]"].iops > 20 * hosts["g0[0]"].iops  # very different rates ...
    assert result.fairness["jain"] > 0.98  # ... each served as it asked
    assert result.served == pytest.approx(dict.fromkeys(hosts, 1.0), rel=0.25)
    plain = sanpath.results.fairness([g.iops for g in hosts.values()])
    assert plain["jain"] < 0.6  # what the report used to call unfair
    assert result.demand["g0[1]"] == {"rate": 40.0, "outstanding": 0.0}
    # every host got what it asked for, up to counting noise: nobody is named
    assert result.short_of_demand == []
    assert "every host got its demand within counting noise" in result.summary()
    assert "the least served," not in result.summary()
    # and so does the per-host picture's subtitle, from the result and from its JSON
    for source in (result, json.loads(result.to_json())):
        ax_iops, _ = sanpath.plotting.per_host(source)
        assert "every host got its demand within counting noise" in ax_iops.get_title("left")
        plt.close("all")


def test_a_host_is_named_only_beyond_counting_noise() -> None:
    # 1,000 open-loop hosts that each expect 76 I/Os: the fewest completed, near 50 (65%),
    # is the luck of the draw among so many, not a shortfall
    rng = np.random.default_rng(7)
    counts = {f"h{i}": int(k) for i, k in enumerate(rng.poisson(76.0, 1_000))}
    share = {h: k / 76.0 for h, k in counts.items()}
    assert min(share.values()) < 0.7
    assert sanpath.results.short_of_demand(counts, share) == []
    # one host that got 30 of its 76 is short beyond that noise, and a host that got nothing
    counts["h0"], share["h0"] = 30, 30 / 76.0
    counts["h1"], share["h1"] = 0, 0.0
    assert sanpath.results.short_of_demand(counts, share) == ["h1", "h0"]
    # the same 50 of 76 among only two hosts is beyond noise
    assert sanpath.results.short_of_demand({"a": 50, "b": 76}, {"a": 50 / 76, "b": 1.0}) == ["a"]


def test_a_starved_host_in_a_closed_loop_is_named() -> None:
    # equal queues, but one host throttles after QUEUE FULL while the others keep hammering
    mixed = shared_lun((32,) * 4, ("none", "none", "none", "vmware"), 32, ios=3_000)
    result = sanpath.run(mixed)
    victim = mixed["hosts"][3]["name"]
    served = result.served
    assert min(served, key=served.__getitem__) == victim and served[victim] < 0.5
    assert all(served[h["name"]] > 1.0 for h in mixed["hosts"][:3])
    assert result.short_of_demand == [victim]
    named = (
        f"the least served, {victim}, got {100 * served[victim]:.0f}% of its demand, short "
        "beyond counting noise"
    )
    assert named in result.summary().replace("\n", " ")
    ax_iops, _ = sanpath.plotting.per_host(result)
    assert named in ax_iops.get_title("left").replace("\n", " ")
    plt.close("all")
    # different depths without a throttle: each host gets its queue share, which is fair
    deep = sanpath.run(shared_lun(DEPTHS, ("none",) * 4, None, ios=2_000))
    assert deep.fairness["jain"] > 0.95
    assert sanpath.results.fairness([g.iops for g in deep.groups["hosts"].values()])["jain"] < 0.8
