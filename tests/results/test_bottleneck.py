"""Bottlenecks: stations grouped by kind and ranked by utilization, with what they mean."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

import sanpath
from sanpath.results import Bottleneck, StationStats, rank_bottlenecks
from sanpath.theory import textbook


def station(name: str, kind: str, layer: str, utilization: float) -> StationStats:
    return StationStats(
        name=name,
        kind=kind,
        layer=layer,
        servers=1.0,
        utilization=utilization,
        mean_in_station=0.0,
        mean_queue=0.0,
        mean_wait_s=0.0,
        mean_service_s=0.0,
        throughput=0.0,
        arrivals=0,
        completions=0,
        rejected=0,
        little_residual=0.0,
    )


def test_groups_by_kind_and_ranks_by_the_busiest_station() -> None:
    ranked = rank_bottlenecks(
        [
            station("db.link.out", "link", "fabric", 0.2),
            station("array.port0.link.in", "link", "fabric", 0.6),
            station("array.controller", "server", "controller", 0.4),
            station("array.r5.drives", "server", "drive", 0.3),
            station("db.pcie.up", "link", "pcie", 0.0),  # no work: left out
            station("db.lun_queue", "slots", "host_queue", math.nan),  # unlimited: left out
        ]
    )
    assert [b.kind for b in ranked] == ["link", "controller", "drives"]
    link = ranked[0]
    assert link.station == "array.port0.link.in"
    assert link.utilization == pytest.approx(0.6)
    assert link.mean_utilization == pytest.approx(0.4)
    assert link.stations == 2
    assert "array front-end port0" in link.meaning
    assert "60%" in link.meaning


def test_a_full_queue_does_not_outrank_the_saturated_server_behind_it() -> None:
    ranked = rank_bottlenecks(
        [
            station("array.port0.queue", "slots", "array_port", 0.99),
            station("array.r10.drives", "server", "drive", 0.95),
            station("esx.lun_queue", "slots", "host_queue", 1.0),
        ]
    )
    assert ranked[0].kind == "drives"
    assert "saturated" in ranked[0].meaning
    # with no server saturated, a queue whose limit binds comes first
    ranked = rank_bottlenecks(
        [
            station("db.hba.slots", "slots", "hba", 0.97),
            station("array.r5.drives", "server", "drive", 0.5),
        ]
    )
    assert ranked[0].kind == "HBA"
    assert "command slots" in ranked[0].meaning


def test_meaning_below_half_load_says_nothing_is_near_saturation() -> None:
    b = Bottleneck("controller", "array.controller", "server", 0.3, 0.3, 1)
    assert b.meaning.startswith("nothing is near saturation")
    assert "controller" in b.saturating
    assert b.to_dict()["meaning"] == b.meaning


def test_a_link_short_of_credits_is_named_as_such_not_as_a_busy_wire() -> None:
    wire = Bottleneck("link", "h.link.in", "link", 0.97, 0.5, 2)
    assert "queue for the wire" in wire.meaning and "credit_starved" not in wire.to_dict()
    starved = Bottleneck("link", "h.link.in", "link", 0.97, 0.5, 2, credit_starved=0.9)
    assert "no buffer-to-buffer credit" in starved.meaning and "90%" in starved.meaning
    assert "queue for the wire" not in starved.meaning
    assert starved.to_dict()["credit_starved"] == 0.9
    # a run of the shipped slow-drain incident names the slow host's link so
    slow = sanpath.run(
        Path(__file__).resolve().parents[2] / "scenarios" / "slow_drain.yaml",
        overrides={"run.ios": 2_000, "run.warmup_ios": 200},
    )
    assert slow.bottlenecks[0].station == "slow.link.in"
    assert "no buffer-to-buffer credit" in slow.bottlenecks[0].meaning


def test_a_run_names_its_saturated_controller_first() -> None:
    # A closed loop of 8 I/Os through a slow controller (1 ms) and a quick drive (0.1 ms):
    # the controller is busy all the time.
    exp = {"dist": "exponential"}
    data = textbook.closed_path(
        8, 0, {**exp, "mean": "1ms"}, {**exp, "mean": "0.1ms"}, ios=3000, warmup_ios=300
    )
    result = sanpath.run(data)
    first = result.bottlenecks[0]
    assert first.kind == "controller"
    assert first.station == "array.controller"
    assert first.utilization > 0.95
    payload = result.to_dict()
    assert payload["bottlenecks"][0]["kind"] == "controller"
    assert set(payload["bottlenecks"][0]) >= {
        "kind",
        "station",
        "utilization",
        "mean_utilization",
        "stations",
        "meaning",
    }
    text = result.summary()
    assert "bottleneck: controller (array.controller" in text
    assert "IOPS ceiling" in text


def test_a_run_names_its_saturated_drives_first() -> None:
    exp = {"dist": "exponential"}
    data = textbook.closed_path(
        8, 0, {**exp, "mean": "0.05ms"}, {**exp, "mean": "1ms"}, ios=3000, warmup_ios=300
    )
    result = sanpath.run(data)
    assert result.bottlenecks[0].kind == "drives"
    assert result.bottlenecks[0].station == "array.pool.drives"
