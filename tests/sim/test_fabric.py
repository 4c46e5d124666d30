"""Switches and inter-switch links: routes over ISLs, shared ISLs, slow drain and its cures."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.layout import IslHop, isl_hops, reverse, station_roles
from sanpath.spec import LIGHT_PER_KM, ScenarioError
from sanpath.theory import textbook
from sanpath.theory.twin import predict
from sanpath.units import parse_rate

PAYLOAD = 2048
FRAME = PAYLOAD + 60


def edge_and_core(
    hosts: int = 5,
    isl_speed: str = "8GFC",
    count: int = 1,
    routing: str = "exchange",
    ios: int = 6_000,
    block_size: str = "64KiB",
    outstanding: int = 4,
) -> dict[str, Any]:
    """``hosts`` hosts of one 8GFC port each on switch ``edge``, the array's one 32GFC port
    on ``core``, ``count`` ISLs between them; 64 KiB reads, nothing else limits."""
    data = textbook.free_path(ios=ios, warmup_ios=ios // 10)
    template = data["hosts"][0]
    template["hbas"][0]["speed"] = "8GFC"
    data["hosts"] = [
        {**template, "name": f"h{i}", "switch": "edge", "hbas": [dict(template["hbas"][0])]}
        for i in range(hosts)
    ]
    data["array"].update(port_speed="32GFC", port_switches=["core"])
    data["fabric"].update(
        switches=[{"name": "edge"}, {"name": "core"}],
        isls=[{"between": ["edge", "core"], "speed": isl_speed, "count": count}],
        routing=routing,
    )
    data["workloads"] = [
        {"name": "w", "outstanding": outstanding, "block_size": block_size, "read_fraction": 1}
    ]
    return data


def host_figures(result: sanpath.RunResult) -> dict[str, tuple[float, float]]:
    """Each host's (IOPS, p99 latency in ms)."""
    frame = result.by_host
    return {
        str(name): (float(row["iops"]), float(row["latency_ms_p99"]))
        for name, row in frame.iterrows()
    }


def test_the_fewest_isls_lead_from_a_host_to_an_array_port() -> None:
    data = edge_and_core()
    data["fabric"]["switches"].append({"name": "edge2"})
    data["fabric"]["isls"].append({"between": ["edge2", "core"]})
    data["hosts"][1]["switch"] = "edge2"
    data["array"]["port_switches"] = ["edge"]
    scenario = sanpath.load_scenario(data)
    assert isl_hops(scenario, 0, 0) == ()  # host and array port on one switch
    way = isl_hops(scenario, 1, 0)  # edge2 > core > edge
    assert way == (IslHop(1, 0), IslHop(0, 1))
    assert reverse(way) == (IslHop(0, 0), IslHop(1, 1))
    names = station_roles(scenario)
    for label in ("edge>core", "core>edge", "edge2>core", "core>edge2"):
        assert names[f"fabric.isl.{label}"].kind == "link"


def test_hosts_and_array_on_one_switch_give_the_numbers_of_the_simple_fabric() -> None:
    data = edge_and_core(ios=2_000)
    data["array"]["port_switches"] = ["edge"]
    simple = edge_and_core(ios=2_000)
    del simple["array"]["port_switches"]
    simple["fabric"] = {"hop_latency": 0}
    for host in simple["hosts"]:
        del host["switch"]
    assert sanpath.run(data).to_dict()["iops"] == sanpath.run(simple).to_dict()["iops"]


@pytest.mark.parametrize(("isl_speed", "count"), [("8GFC", 1), ("4GFC", 1), ("4GFC", 2)])
def test_hosts_share_the_isl(isl_speed: str, count: int) -> None:
    """Five 8GFC hosts behind one ISL get what the ISL carries, and the twin agrees."""
    data = edge_and_core(isl_speed=isl_speed, count=count)
    result = sanpath.run(data)
    isl = count * parse_rate(isl_speed) * PAYLOAD / FRAME
    assert result.mb_per_s * 1e6 == pytest.approx(isl, rel=0.02)
    assert result.station("fabric.isl.core>edge").utilization > 0.95
    twin = predict(sanpath.load_scenario(data))
    assert twin.mb_per_s * 1e6 == pytest.approx(isl, rel=0.06)


def test_light_over_a_long_isl_adds_to_each_trip() -> None:
    """A read crosses the fabric twice (command, data): a 10 km ISL adds 2 x 50 us."""
    near = edge_and_core(hosts=1, ios=400, block_size="4KiB", outstanding=1)
    far = edge_and_core(hosts=1, ios=400, block_size="4KiB", outstanding=1)
    far["fabric"]["isls"][0].update(distance_km=10, credits=40)
    gap = sanpath.run(far).latency_ms["mean"] - sanpath.run(near).latency_ms["mean"]
    assert gap * 1e-3 == pytest.approx(2 * 10 * LIGHT_PER_KM, rel=0.01)


def test_a_slow_draining_host_blocks_the_hosts_sharing_its_isl() -> None:
    """Done-when (2): one host that frees its buffers slowly holds the ISL's credits; the
    four healthy hosts' throughput falls and their p99 rises. A frame timeout at the switch
    shorter than the slow host's frames wait there drops them and restores the others."""
    calm = sanpath.run(edge_and_core())
    healthy = host_figures(calm)
    assert calm.victims == () and "victims" not in calm.to_dict()
    slow = edge_and_core()
    slow["hosts"][0]["drain_time"] = "2ms"
    result = sanpath.run(slow)
    blocked = host_figures(result)
    # the healthy hosts are named as h0's victims, and nobody else's
    assert {(v.host, v.culprit) for v in result.victims} == {
        (name, "h0") for name in ("h1", "h2", "h3", "h4")
    }
    assert all(v.share > 0.1 for v in result.victims)
    isl = result.station("fabric.isl.core>edge")
    assert isl.credit_starved is not None and isl.credit_starved > 0.5
    assert isl.frames_discarded == 0  # the default 500 ms timeout never fires here
    for name in ("h1", "h2", "h3", "h4"):
        assert blocked[name][0] < 0.2 * healthy[name][0]
        assert blocked[name][1] > 5 * healthy[name][1]
    # the switch drops the slow host's frames after 3 ms; it sends them again 100 ms later
    slow["fabric"].update(frame_timeout="3ms", error_detect="100ms")
    cured = sanpath.run(slow)
    assert cured.station("fabric.isl.core>edge").frames_discarded > 0
    restored = host_figures(cured)
    for name in ("h1", "h2", "h3", "h4"):
        assert restored[name][0] > 0.9 * healthy[name][0]
        assert restored[name][1] < 0.3 * blocked[name][1]
    assert restored["h0"][0] < 0.1 * healthy["h0"][0]  # the slow host's reads are lost


def test_fencing_the_slow_hosts_port_restores_the_others() -> None:
    """Port fencing after the first frames dropped for timeout: the slow host's port is
    disabled, its reads go nowhere, and the others run as if it were not there."""
    alone = host_figures(sanpath.run(edge_and_core(hosts=4)))["h0"][0]  # four, no slow one
    data = edge_and_core()
    data["hosts"][0]["drain_time"] = "2ms"
    data["fabric"].update(frame_timeout="10ms", fence_after=1)
    fenced = host_figures(sanpath.run(data))
    assert fenced["h0"][0] == 0.0
    for name in ("h1", "h2", "h3", "h4"):
        assert fenced[name][0] == pytest.approx(alone, rel=0.02)
    # without drops (the default 500 ms timeout never fires) there is nothing to fence on
    data["fabric"]["frame_timeout"] = "500ms"
    assert host_figures(sanpath.run(data))["h1"][0] < 0.1 * alone


def test_port_based_routing_keeps_the_victims_on_the_slow_hosts_isl() -> None:
    """Two ISLs, port-based routing: hosts h0, h2, h4 share the slow host h0's ISL, h1 and
    h3 take the other one and keep their speed."""
    data = edge_and_core(count=2, routing="port")
    healthy = host_figures(sanpath.run(data))
    data["hosts"][0]["drain_time"] = "2ms"
    blocked = host_figures(sanpath.run(data))
    for name in ("h2", "h4"):
        assert blocked[name][0] < 0.2 * healthy[name][0]
    for name in ("h1", "h3"):
        assert blocked[name][0] > 0.95 * healthy[name][0]


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d["hosts"][0].update(switch="nowhere"), "hosts.0.switch", "no switch"),
        (lambda d: d["fabric"]["isls"][0].update(between=["edge", "edge"]), "between", "two"),
        (lambda d: d["fabric"]["switches"].append({"name": "lost"}), "switches.2", "no ISL path"),
        (lambda d: d["array"].update(port_switches=["core", "edge"]), "port_switches", "one per"),
        (lambda d: d["fabric"].update(switches=[], isls=[]), "switch", "no fabric.switches"),
    ],
)
def test_a_bad_fabric_is_a_located_error(change: Any, field: str, message: str) -> None:
    data = edge_and_core()
    change(data)
    with pytest.raises(ScenarioError) as error:
        sanpath.load_scenario(data)
    assert field in str(error.value) and message in str(error.value)
