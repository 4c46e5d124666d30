"""The path as hops: the declared front of every route, the names of its stations, and the
simulator's stations agreeing with both."""

from __future__ import annotations

from pathlib import Path

import pytest

from sanpath.layout import ROLES, Wiring, lun_owner, port_controller, station_name, station_roles
from sanpath.layout.hops import (
    DELAY,
    FLIGHT,
    GATE,
    KINDS,
    REFUSING_GATE,
    SERVER,
    front_hops,
)
from sanpath.results import LAYERS
from sanpath.sim import run
from sanpath.sim.engine import Simulation
from sanpath.sim.hops import Gate
from sanpath.spec import TRANSPORTS, load_scenario
from tests.conftest import SCENARIOS

SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted((SCENARIOS / "proposals").glob("*.yaml"))


def test_every_role_names_a_known_layer_and_kind() -> None:
    for role in ROLES.values():
        assert role.layer in LAYERS, role
        assert role.kind in ("slots", "server", "link"), role


def test_station_names() -> None:
    assert station_name("hba_slots", host="db") == "db.hba.slots"
    assert station_name("port_queue", port=3) == "array.port3.queue"
    assert station_name("drives", pool="r5") == "array.r5.drives"
    assert station_name("lun_queue", lun="data") == "array.lun.data"


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_the_front_of_every_path_is_declared_in_path_order(path: Path) -> None:
    scenario = load_scenario(path)
    wiring = Wiring(scenario)
    roles = station_roles(scenario)
    for paths in wiring.paths.values():
        for info in paths:
            hops = front_hops(wiring, info)
            kinds = [h.kind for h in hops]
            assert set(kinds) <= set(KINDS)
            nvme = TRANSPORTS[scenario.hosts[info.group].transport].nvme
            if nvme:
                # the queue pairs of the association first, nothing refuses, no LUN queue
                assert hops[0].role == "queue_pairs" and hops[0].kind == GATE
                assert hops[0].scope == "association"
                assert [h.role for h in hops if h.retry] == ["hba_cpu"]
                assert not [h for h in hops if h.kind == REFUSING_GATE or h.back_end]
            else:
                # the host's queue first, the controller last but for a forward to its owner
                assert hops[0].role == "host_queue" and hops[0].kind == GATE
                assert [h.role for h in hops if h.retry] == ["hba_slots"]
                refusing = [h.role for h in hops if h.kind == REFUSING_GATE]
                assert refusing == ["port_queue", "lun_queue"]
                assert [h.role for h in hops if h.back_end] == ["lun_queue"]
            assert kinds[kinds.index(FLIGHT) - 1] == SERVER  # a flight rides on a server
            assert any(h.role in ("controller", "controllers") for h in hops)
            # scopes run route (or association), host, port, array: the order routes are
            # assembled in
            order = ["route", "association", "host", "port", "array"]
            assert [order.index(h.scope) for h in hops] == sorted(
                order.index(h.scope) for h in hops
            )
            for hop in hops:
                assert hop.layer in LAYERS
                if hop.station is not None:
                    assert roles[hop.station].layer == hop.layer, hop
                else:
                    assert hop.kind in (DELAY, FLIGHT)


def _cross_scenario() -> dict[str, object]:
    return {
        "name": "cross",
        "seed": 3,
        "run": {"ios": 400, "warmup_ios": 40},
        "hosts": [{"name": "h", "hbas": [{"ports": 2}]}],
        "array": {
            "ports": 2,
            "cross_controller": {"time": "20us", "rate": "2GB/s"},
            "pools": [{"name": "p", "raid": "raid0", "drives": 2, "drive": "ssd"}],
            "luns": [{"name": "l", "pool": "p", "count": 2}],
        },
        "workloads": [{"name": "w", "block_size": "4KiB", "outstanding": 4}],
    }


def test_forwarding_to_the_owning_controller_is_a_hop_only_where_the_port_does_not_own() -> None:
    scenario = load_scenario(_cross_scenario())
    wiring = Wiring(scenario)
    seen = set()
    for paths in wiring.paths.values():
        for info in paths:
            forwards = [h for h in front_hops(wiring, info) if h.role == "cross_forward"]
            other = port_controller(info.array_port) != lun_owner(info.lun)
            assert len(forwards) == (1 if other else 0)
            seen.add(other)
    assert seen == {True, False}


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.stem)
def test_the_simulators_stations_are_the_layouts(path: Path) -> None:
    scenario = load_scenario(path)
    roles = station_roles(scenario)
    result = run(path, overrides={"run.ios": 300, "run.warmup_ios": 30, "run.duration": None})
    for st in result.stations:
        if st.name in roles:
            assert (st.layer, st.kind) == (roles[st.name].layer, roles[st.name].kind), st.name
        else:  # a workload's own buffers (copy jobs): the host's
            assert st.layer == "host", st.name


def test_a_route_walks_its_declared_hops_and_gives_back_its_gates_in_reverse() -> None:
    scenario = load_scenario(SCENARIOS / "hpux_max_q_depth.yaml")
    sim = Simulation(scenario)
    host = sim.topology.hosts[0]
    lun = sim.topology.luns[0]
    route = host.select(lun.index, 8192)
    wiring = Wiring(scenario)
    declared = front_hops(wiring, wiring.paths[(0, lun.index)][0])
    running = [h for h in declared if h.kind != FLIGHT]  # a flight rides on its server
    assert len(route.hops) == len(running)
    assert [LAYERS[h.layer] for h in route.hops] == [h.layer for h in running]
    assert running[route.retry_at].role == "hba_slots"
    gates = [h for h in route.hops if isinstance(h, Gate) and not h.back_end]
    assert list(route.releases) == gates[::-1]
    assert [g.slot for g in gates] == [0, 1, 2]  # host queue, HBA slots, port: the LUN's later
