"""Congestion notifications (FPIN) and the host's answer: a read limit that frees the ISL."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.sim.readlimit import LIMIT_CUT, LIMIT_FLOOR, LIMIT_RAISE, ReadLimit
from sanpath.spec import ScenarioError
from sanpath.theory.twin import predict
from tests.sim.test_fabric import edge_and_core, host_figures

HEALTHY = ("h1", "h2", "h3", "h4")


def slow_drain(**fpin: Any) -> dict[str, Any]:
    """Five hosts behind one 8GFC ISL, h0 freeing each receive buffer in 2 ms; the
    switches poll their ports every 100 ms (``fpin`` overrides)."""
    data = edge_and_core()
    data["hosts"][0]["drain_time"] = "2ms"
    data["fabric"]["fpin"] = {"window": "100ms", **fpin}
    return data


def test_no_congestion_no_notification() -> None:
    """Healthy hosts: no port waits for credits, no FPIN, the very same numbers."""
    plain = sanpath.run(edge_and_core(ios=2_000))
    data = edge_and_core(ios=2_000)
    data["fabric"]["fpin"] = {"window": "10ms"}
    for host in data["hosts"]:
        host["fpin_response"] = "rate_limit"
    watched = sanpath.run(data)
    assert watched.notified == () and "fpin" not in watched.to_dict()
    assert watched.to_dict()["iops"] == plain.to_dict()["iops"]
    assert watched.latency_ms == plain.latency_ms


def test_the_slow_host_alone_is_notified_and_counting_changes_nothing() -> None:
    """FPINs go to the slow-draining host only; a host that does not answer them (the
    default) runs exactly as without them."""
    data = edge_and_core()
    data["hosts"][0]["drain_time"] = "2ms"
    blocked = sanpath.run(data)
    told = sanpath.run(slow_drain())
    assert [n.host for n in told.notified] == ["h0"]
    note = told.notified[0]
    windows = told.sim_seconds / 0.1
    assert 0.8 * windows <= note.fpins <= windows + 1  # nearly every window is congested
    assert note.peer_fpins == note.fpins  # one array port sends it data
    assert note.limited_share is None and note.lowest_mb_s is None
    assert told.to_dict()["iops"] == blocked.to_dict()["iops"]
    assert told.to_dict()["fpin"][0]["fpins"] == note.fpins
    assert "notified of congestion" in told.summary()


def test_a_read_limit_restores_the_healthy_hosts() -> None:
    """The slow host limits its reads on each FPIN: the healthy hosts get their throughput
    back and most of their p99; fencing restores the p99 fully but stops the slow host."""
    healthy = host_figures(sanpath.run(edge_and_core()))
    data = edge_and_core()
    data["hosts"][0]["drain_time"] = "2ms"
    blocked = host_figures(sanpath.run(data))
    limited_data = slow_drain()
    limited_data["hosts"][0]["fpin_response"] = "rate_limit"
    result = sanpath.run(limited_data)
    limited = host_figures(result)
    fenced_data = slow_drain()
    fenced_data["fabric"].update(frame_timeout="10ms", fence_after=1)
    fenced = host_figures(sanpath.run(fenced_data))
    for name in HEALTHY:
        assert limited[name][0] > 0.95 * healthy[name][0]
        assert limited[name][1] < 0.5 * blocked[name][1]
        assert fenced[name][1] < limited[name][1]  # fencing: no slow frame left at all
    assert limited["h0"][0] > 0.0 and fenced["h0"][0] == 0.0
    (note,) = result.notified
    assert note.fpins > 0 and note.limited_share is not None and note.limited_share > 0.9
    assert note.lowest_mb_s is not None and note.lowest_mb_s < 5.0
    assert result.breakdown_ms["host_queue"] > 0.0  # the driver holds the slow host's reads


def test_a_read_limit_halves_on_notification_and_creeps_back() -> None:
    reads = ReadLimit(ceiling=800e6)
    assert reads.admit(0.0, 1 << 20) == 0.0  # no limit before any notification
    assert reads.window(1.0, notified=False) == 0.0
    reads.admit(1.0, 10_000_000)
    limit = reads.window(1.0, notified=True)  # 10 MB asked in the window
    assert limit == pytest.approx(LIMIT_CUT * 10e6)
    assert reads.admit(2.0, 5_000_000) == 2.0
    assert reads.admit(2.0, 1_000) == pytest.approx(2.0 + 5e6 / limit)  # paced
    assert reads.window(1.0, notified=False) == pytest.approx(limit * LIMIT_RAISE)
    reads.window(1.0, notified=True)  # nothing asked since: the floor
    assert reads.limit == pytest.approx(LIMIT_FLOOR * 800e6)
    for _ in range(60):
        reads.window(1.0, notified=False)
    assert reads.limit == 0.0  # lifted once above the link rate


@pytest.mark.parametrize(
    ("change", "field"),
    [
        (lambda d: d["fabric"]["fpin"].update(window=0), "fabric.fpin.window"),
        (lambda d: d["fabric"]["fpin"].update(threshold=1.5), "fabric.fpin.threshold"),
        (lambda d: d["hosts"][0].update(fpin_response="slow_down"), "hosts.0.fpin_response"),
    ],
)
def test_a_bad_fpin_setting_is_a_located_error(change: Any, field: str) -> None:
    data = slow_drain()
    change(data)
    with pytest.raises(ScenarioError) as error:
        sanpath.load_scenario(data)
    assert field in str(error.value)


def test_the_twin_says_it_sends_no_notifications() -> None:
    data = slow_drain()
    data["hosts"][0]["fpin_response"] = "rate_limit"
    notes = predict(sanpath.load_scenario(data)).notes
    assert any("fabric.fpin" in note for note in notes)
    healthy = edge_and_core()
    healthy["fabric"]["fpin"] = {}
    assert not any("fabric.fpin" in note for note in predict(sanpath.load_scenario(healthy)).notes)
