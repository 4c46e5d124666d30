"""Multipath path selection (sanpath.sim.components.host.HostInstance.select) on the routes the
topology builds for a tiny SAN: one host with a 4GFC and an 8GFC card (one port each), two
array ports, three LUNs, so four routes per LUN, in the order hba0-port0, hba0-port1,
hba1-port0, hba1-port1 (host port, then array port). Routes are made when first taken;
``all_routes`` makes every path's route of a LUN at once."""

from __future__ import annotations

from typing import Any

import simpy

import sanpath
from sanpath.layout import Wiring
from sanpath.sim.components.host import HostInstance, Route
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology, build_topology
from sanpath.theory import textbook


def tiny_san(policy: str, **host: Any) -> dict[str, Any]:
    data = textbook.free_path()
    data["hosts"][0].update(multipath=policy, **host)
    data["hosts"][0]["hbas"] = [{"ports": 1, "speed": "4GFC"}, {"ports": 1, "speed": "8GFC"}]
    data["array"]["ports"] = 2
    data["array"]["luns"][0]["count"] = 3
    return data


def topology(policy: str, **host: Any) -> Topology:
    scenario = sanpath.load_scenario(tiny_san(policy, **host))
    return build_topology(simpy.Environment(), scenario, Streams(scenario.seed))


def host_of(policy: str, **host: Any) -> HostInstance:
    return topology(policy, **host).hosts[0]


def all_routes(host: HostInstance, lun: int) -> list[Route]:
    """The route of every path to ``lun``, in path order (made now where not taken yet)."""
    return [host.route(lun, k) for k in range(len(host.paths[lun]))]


def picks(host: HostInstance, lun: int, n: int, size: int = 8192) -> list[int]:
    """Indices (in the LUN's path order) of the routes ``n`` commands take."""
    out = []
    for _ in range(n):
        route = host.select(lun, size)
        out.append(host.routes[lun].index(route))
    return out


def test_the_routes_are_every_host_port_times_every_array_port() -> None:
    host = host_of("round-robin")
    assert sorted(host.paths) == [0, 1, 2]
    assert host.routes == {}  # nothing made before a path is taken
    for lun in host.paths:
        routes = all_routes(host, lun)
        assert [(r.hba_port.name, r.array_port.index) for r in routes] == [
            ("host.hba0.port0", 0),
            ("host.hba0.port0", 1),
            ("host.hba1.port0", 0),
            ("host.hba1.port0", 1),
        ]
        assert {r.lun.index for r in routes} == {lun}
        assert len({id(r.host_queue) for r in routes}) == 4  # a host queue per LUN path


def test_round_robin_rotates_every_command() -> None:
    host = host_of("round-robin")
    assert picks(host, 0, 9) == [0, 1, 2, 3, 0, 1, 2, 3, 0]


def test_round_robin_keeps_a_path_for_rr_ios_commands_and_counts_per_lun() -> None:
    host = host_of("round-robin", rr_ios=3)
    assert host.rr_ios == 3
    assert picks(host, 0, 7) == [0, 0, 0, 1, 1, 1, 2]
    # LUN 1 has its own count, started on its own path (turns longer than one I/O)
    assert picks(host, 1, 4) == [1, 1, 1, 2]
    assert picks(host_of("round-robin", rr_ios=3), 2, 4) == [2, 2, 2, 3]
    assert picks(host_of("round-robin"), 1, 3) == [0, 1, 2]  # turns of one I/O: from path 0
    assert picks(host, 0, 6) == [2, 2, 3, 3, 3, 0]


def test_least_queue_depth_takes_the_path_with_fewest_commands_first_on_ties() -> None:
    host = host_of("least-queue-depth", lun_queue_depth=1)
    assert picks(host, 0, 3) == [0, 0, 0]  # nothing queued anywhere: the first path
    assert host.routes[0][1:] == [None, None, None]  # the others not taken yet
    routes = all_routes(host, 0)
    for i, count in enumerate((2, 0, 1, 0)):
        for _ in range(count):
            routes[i].host_queue.acquire(0.0)  # waiting commands count too (depth 1)
    assert [r.host_queue.outstanding for r in routes] == [2, 0, 1, 0]
    assert picks(host, 0, 1) == [1]
    routes[1].host_queue.acquire(0.0)
    assert picks(host, 0, 1) == [3]
    routes[3].host_queue.acquire(0.0)
    assert picks(host, 0, 1) == [1]  # 1, 2 and 3 hold one each: the first of them
    assert picks(host, 2, 1) == [0]  # another LUN's queues are its own


def test_least_cmd_load_is_least_queue_depth() -> None:
    host = host_of("least-cmd-load")
    host.route(1, 0).host_queue.acquire(0.0)
    assert picks(host, 1, 2) == [1, 1]  # a path not taken yet has an empty queue


def test_service_time_weighs_bytes_in_flight_by_link_speed() -> None:
    host = host_of("service-time")
    routes = all_routes(host, 0)
    slow, fast = routes[0].hba_port, routes[2].hba_port
    assert (slow.link_out.rate, fast.link_out.rate) == (425e6, 850e6)  # 4GFC and 8GFC
    size = 64 * 1024
    assert picks(host, 0, 2, size) == [2, 2]  # idle: the faster port
    fast.bytes_in_flight = size - 1  # (size - 1 + size) / 2r < size / r
    assert picks(host, 0, 1, size) == [2]
    fast.bytes_in_flight = size + 1
    assert picks(host, 0, 1, size) == [0]  # the slow port, first of its two paths
    slow.bytes_in_flight = size
    assert picks(host, 0, 1, size) == [2]


def test_failover_uses_one_fixed_path_per_lun_the_one_the_wiring_marks_active() -> None:
    scenario = sanpath.load_scenario(tiny_san("failover"))
    host = build_topology(simpy.Environment(), scenario, Streams(scenario.seed)).hosts[0]
    wiring = Wiring(scenario)
    for lun in (0, 1, 2):
        assert picks(host, lun, 5) == [lun % 4] * 5  # LUN i on path i mod n
        (active,) = wiring.active(0, lun)
        route = host.route(lun, lun % 4)
        assert route.array_port.index == active.array_port
        assert route.hba_port.name == f"host.hba{active.port}.port0"


def test_a_single_path_is_always_taken() -> None:
    data = tiny_san("round-robin")
    data["hosts"][0]["hbas"] = [{"ports": 1}]
    data["array"]["ports"] = 1
    scenario = sanpath.load_scenario(data)
    host = build_topology(simpy.Environment(), scenario, Streams(scenario.seed)).hosts[0]
    assert [len(p) for p in host.paths.values()] == [1, 1, 1]
    assert picks(host, 1, 3) == [0, 0, 0]


def first_qfull(topo: Topology, route: Route) -> Any:
    """The throttle the first QUEUE FULL on ``route`` (of host 0) finds or makes."""
    assert topo.routes is not None
    return topo.routes.throttle(topo.hosts[0], route.lun.index, route)


def test_throttles_govern_a_lun_s_paths_or_every_lun_behind_a_target_port() -> None:
    """VMware and Storport throttle per LUN (its paths together); Linux per target port.
    A throttle is made at the first QUEUE FULL it governs, over the queues made so far."""
    per_lun = topology("round-robin", qfull={"throttle": "vmware"})
    for lun in per_lun.hosts[0].paths:
        routes = all_routes(per_lun.hosts[0], lun)
        assert {r.throttle for r in routes} == {None}  # no QUEUE FULL yet
        throttle = first_qfull(per_lun, routes[-1])
        assert throttle.pools == [r.host_queue for r in routes], lun
        assert {id(r.throttle) for r in routes} == {id(throttle)}
        assert first_qfull(per_lun, routes[0]) is throttle
        assert (
            throttle.depth
            == throttle.original
            == per_lun.hosts[0].route(lun, 0).host_queue.capacity
        )
    assert len(per_lun.throttles) == 3
    per_port = topology("round-robin", qfull={"throttle": "linux"})
    routes = [r for lun in (2, 0, 1) for r in all_routes(per_port.hosts[0], lun)]
    for port in (0, 1):
        first_qfull(per_port, next(r for r in routes if r.array_port.index == port))
    assert len(per_port.throttles) == 2
    for throttle in per_port.throttles:
        assert len(throttle.pools) == 3 * 2  # 3 LUNs x 2 host ports behind the target port
    for throttle in per_port.throttles:  # in the order of their LUNs and paths
        mine = [r.host_queue for r in sorted(routes, key=lambda r: r.lun.index)]
        assert throttle.pools == [q for q in mine if any(q is p for p in throttle.pools)]
    for port in (0, 1):
        (governor,) = {id(r.throttle) for r in routes if r.array_port.index == port}
        assert governor in {id(t) for t in per_port.throttles}
    unthrottled = topology("round-robin")
    route = all_routes(unthrottled.hosts[0], 0)[0]
    assert first_qfull(unthrottled, route) is None
    assert unthrottled.throttles == []
