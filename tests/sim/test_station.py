"""The station primitives (sanpath.sim.station), built by hand in a bare SimPy environment.

Every expected number here is worked out by hand from the arrival and service times, so a
change in FIFO order, slot accounting or the time-weighted statistics shows at once.
"""

from __future__ import annotations

import math
from collections.abc import Generator

import pytest
import simpy

from sanpath.sim.station import FcfsServer, Link, SlotPool, Station


def slots(env: simpy.Environment, capacity: int | None) -> SlotPool:
    servers = math.inf if capacity is None else float(capacity)
    return SlotPool(env, capacity, Station("pool", "slots", servers, "hba"))


def user(
    env: simpy.Environment,
    pool: SlotPool,
    name: str,
    arrive: float,
    hold: float,
    log: list[tuple[str, float]],
) -> Generator[simpy.Event]:
    """Arrive at ``arrive``, take a slot (waiting if need be), hold it ``hold`` s, give it back."""
    yield env.timeout(arrive)
    t_arrive = env.now
    event = pool.acquire(t_arrive)
    if event is not None:
        yield event
    t_start = env.now
    log.append((name, t_start))
    yield env.timeout(hold)
    pool.release(env.now, t_arrive, t_start)


# -- SlotPool ---------------------------------------------------------------------------------


def test_slot_pool_serves_its_waiters_first_come_first_served() -> None:
    """One slot; a holds it 0-5 s, b, c, d arrive at 1, 2, 3 s and hold it 1 s each."""
    env = simpy.Environment()
    pool = slots(env, 1)
    log: list[tuple[str, float]] = []
    for name, arrive, hold in (("a", 0, 5), ("b", 1, 1), ("c", 2, 1), ("d", 3, 1)):
        env.process(user(env, pool, name, arrive, hold, log))
    env.run(until=4)
    assert pool.held == 1 and len(pool.waiters) == 3 and pool.outstanding == 4
    env.run()
    assert env.now == 8.0
    assert log == [("a", 0), ("b", 5), ("c", 6), ("d", 7)]
    assert pool.held == 0 and not pool.waiters
    stats = pool.station.summary(8.0)
    assert (stats.arrivals, stats.completions, stats.rejected) == (4, 4, 0)
    # the slot was held without a break from 0 to 8 s (handed straight to the next waiter)
    assert stats.utilization == 1.0
    # present: 1, 2, 3, 4 (from 3 to 5 s), 3, 2, 1: area 20 over 8 s
    assert stats.mean_in_station == pytest.approx(2.5)
    assert stats.mean_queue == pytest.approx(1.5)
    assert stats.mean_wait_s == pytest.approx(3.0)  # (0 + 4 + 4 + 4) / 4
    assert stats.mean_service_s == pytest.approx(2.0)  # (5 + 1 + 1 + 1) / 4
    assert stats.throughput == pytest.approx(0.5)
    # Little's law: L = X W = 0.5 x 5 s (every command spent 5 s in the station)
    assert stats.mean_in_station == pytest.approx(stats.throughput * 5.0)
    assert stats.little_residual < 1e-12


def test_slot_pool_capacity_changes_during_a_run() -> None:
    """Two slots; five commands of 10 s at 0 s; 4 slots at 1 s, 1 slot at 2 s."""
    env = simpy.Environment()
    pool = slots(env, 2)
    log: list[tuple[str, float]] = []
    holds = {"a": 10, "b": 10, "c": 10, "d": 11, "e": 1}
    for name, hold in holds.items():
        env.process(user(env, pool, name, 0, hold, log))

    def knob() -> Generator[simpy.Event]:
        yield env.timeout(1)
        pool.set_capacity(4)  # up: the first two waiters are let in at once, in order
        yield env.timeout(1)
        pool.set_capacity(1)  # down: nobody is evicted, the slots drain as commands leave

    env.process(knob())
    env.run(until=1.5)
    assert log == [("a", 0), ("b", 0), ("c", 1), ("d", 1)]
    assert pool.held == 4 and len(pool.waiters) == 1
    env.run(until=10.5)
    # a and b left at 10 s; 2 slots held of 1: e still waits
    assert pool.held == 2 and len(pool.waiters) == 1
    env.run(until=11.5)
    # c left at 11 s (held 1), then d at 12 s hands its slot to e ...
    assert pool.held == 1 and len(pool.waiters) == 1
    env.run(until=20)
    assert log[-1] == ("e", 12)
    assert pool.held == 0 and pool.capacity == 1
    # ... and unlimited capacity lets every waiter in
    pool.set_capacity(None)
    for name in "vwxyz":
        env.process(user(env, pool, name, 0, 1, log))
    env.run(until=20.5)
    assert pool.held == 5 and not pool.waiters


def test_set_capacity_up_lets_waiters_in_fifo_up_to_the_new_limit() -> None:
    env = simpy.Environment()
    pool = slots(env, 1)
    log: list[tuple[str, float]] = []
    for i, name in enumerate("abcde"):
        env.process(user(env, pool, name, 0.1 * i, 100, log))
    env.run(until=1)
    assert [n for n, _ in log] == ["a"]
    pool.set_capacity(3)
    env.run(until=2)
    assert [n for n, _ in log] == ["a", "b", "c"]
    assert pool.held == 3 and len(pool.waiters) == 2


def test_try_acquire_refuses_when_full_and_counts_the_rejection() -> None:
    env = simpy.Environment()
    pool = slots(env, 2)
    assert pool.try_acquire(0.0) and pool.try_acquire(0.0)
    assert not pool.try_acquire(0.5)
    assert not pool.try_acquire(0.6)
    assert pool.held == 2 and not pool.waiters  # a refusal does not queue
    station = pool.station
    assert station.rejected == 2 and station.arrivals == 2
    pool.release(1.0, 0.0, 0.0)
    assert pool.held == 1
    assert pool.try_acquire(1.0)
    stats = station.summary(2.0)
    assert (stats.arrivals, stats.completions, stats.rejected) == (3, 1, 2)
    # slots held: 2 from 0 to 1 s, then 1 from 1 s, 2 again from 1 s: 2 x 2 s over 2 slots
    assert stats.utilization == pytest.approx(1.0)
    assert slots(env, None).try_acquire(0.0)  # unlimited: never full


# -- FcfsServer -------------------------------------------------------------------------------


def test_fcfs_server_with_two_servers_books_the_earliest_free_one() -> None:
    env = simpy.Environment()
    server = FcfsServer(env, 2, Station("cpu", "server", 2, "controller"))
    assert server.reserve(0.0, 3.0) == (0.0, 3.0)
    assert server.reserve(0.0, 1.0) == (0.0, 1.0)
    assert server.reserve(0.0, 2.0) == (1.0, 3.0)  # waits for the server free at 1 s
    assert server.reserve(0.5, 1.0) == (3.0, 4.0)  # both busy until 3 s
    assert server.reserve(10.0, 1.0) == (10.0, 11.0)  # idle again: no wait
    assert server.station.arrivals == 5


def test_fcfs_server_with_one_server_queues_back_to_back() -> None:
    env = simpy.Environment()
    server = FcfsServer(env, 1, Station("cpu", "server", 1, "hba"))
    assert server.reserve(0.0, 2.0) == (0.0, 2.0)
    assert server.reserve(1.0, 2.0) == (2.0, 4.0)
    assert server.reserve(5.0, 1.0) == (5.0, 6.0)


def served(late: bool) -> Station:
    """Arrivals at 0, 1 and 5 s needing 2, 2 and 1 s of one server; departures recorded on
    time, or (``late``) the first only at 3 s, as the engine does for a stage whose end it
    knew in advance."""
    env = simpy.Environment()
    station = Station("cpu", "server", 1, "controller")
    server = FcfsServer(env, 1, station)
    a = server.reserve(0.0, 2.0)
    b = server.reserve(1.0, 2.0)
    if late:
        station.depart(3.0, 0.0, *a)
    else:
        station.depart(2.0, 0.0, *a)
    station.depart(4.0, 1.0, *b)
    c = server.reserve(5.0, 1.0)
    station.depart(6.0, 5.0, *c)
    return station


@pytest.mark.parametrize("late", [False, True])
def test_station_summary_of_a_hand_made_sequence(late: bool) -> None:
    stats = served(late).summary(8.0)
    assert (stats.arrivals, stats.completions) == (3, 3)
    assert stats.utilization == pytest.approx(5 / 8)  # 5 s of service in 8 s
    # present: 1 (0-1 s), 2 (1-2 s), 1 (2-4 s), 0, 1 (5-6 s), 0: area 6 over 8 s
    assert stats.mean_in_station == pytest.approx(6 / 8)
    assert stats.mean_queue == pytest.approx(1 / 8)  # b waited 1 s
    assert stats.mean_wait_s == pytest.approx(1 / 3)
    assert stats.mean_service_s == pytest.approx(5 / 3)
    assert stats.throughput == pytest.approx(3 / 8)
    # Little's law: L = X W with W = (2 + 3 + 1) / 3 = 2 s
    assert stats.mean_in_station == pytest.approx(stats.throughput * 2.0)
    assert stats.little_residual < 1e-12


def test_station_window_counts_only_the_time_inside_it() -> None:
    """A command in service from 0 to 2 s; the window opens at 1 s."""
    station = Station("cpu", "server", 1, "controller")
    station.arrive(0.0)
    station.reset(1.0)
    station.depart(2.0, 0.0, 0.0, 2.0)
    stats = station.summary(4.0)
    assert (stats.arrivals, stats.completions) == (0, 1)
    assert stats.utilization == pytest.approx(1 / 3)  # busy 1-2 s of the 3 s window
    assert stats.mean_in_station == pytest.approx(1 / 3)
    assert stats.little_residual < 1e-12
    # a station that drifts from Little's law shows it
    station.area += 0.5
    assert station.summary(4.0).little_residual == pytest.approx(0.5 / 1.5)


# -- Link -------------------------------------------------------------------------------------


def test_link_holds_n_bytes_for_n_over_rate_first_come_first_served() -> None:
    env = simpy.Environment()
    link = Link(env, 1024.0, Station("fc", "link", 1, "fabric"))
    assert link.reserve(0.0, 0.0, 512) == (0.0, 0.5)
    # arrives at 0.25 s while the first transfer runs: starts when it ends, 2 s of bytes
    assert link.reserve(0.25, 0.25, 2048) == (0.5, 2.5)
    assert link.reserve(0.25, 0.5, 1024) == (2.5, 3.5)  # back to back
    assert link.reserve(10.0, 10.0, 256) == (10.0, 10.25)  # idle: starts at arrival
    assert link.free == 10.25
    assert link.station.arrivals == 4


def test_link_setup_time_and_infinite_rate() -> None:
    env = simpy.Environment()
    link = Link(env, 1024.0, Station("bw", "link", 1, "controller"), setup=0.25)
    assert link.reserve(0.0, 0.0, 1024) == (0.0, 1.25)
    assert link.reserve(0.0, 0.0, 0) == (1.25, 1.5)  # the set-up alone
    free = Link(env, None, Station("free", "link", 1, "fabric"))
    assert free.reserve(3.0, 2.0, 1 << 30) == (2.0, 2.0)  # no limit: no time at all
