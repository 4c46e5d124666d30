"""Every speed trick of the stations beside its plain reference: ``SlotPool.acquire`` and
``release``, ``FcfsServer.reserve`` and ``Link.reserve`` write :class:`Station`'s
bookkeeping out inline; plain classes built on ``Station.arrive``, ``depart``, ``hold`` and
``split`` must leave the same statistics, to the last bit. Likewise ``RaidPool.read_known``,
the shortcut of a small read on FCFS drives, against the general read (a join)."""

from __future__ import annotations

import math
from collections.abc import Generator
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

from sanpath.sim.components.drive import Drive, FcfsDrive
from sanpath.sim.components.raid import RaidPool
from sanpath.sim.kernel import Kernel
from sanpath.sim.station import FcfsServer, Link, SlotPool, Station
from sanpath.spec import PoolSpec

STEPS = (0.0, 0.25, 0.1 + 0.2, 1.0, 1e-7)
"""Time steps and service times: few values, so that ties are common."""


def _same(a: Station, b: Station, now: float) -> None:
    """The two stations' statistics at ``now`` agree to the last bit (repr: NaN included)."""
    assert repr(a.summary(now)) == repr(b.summary(now))


# -- slots ------------------------------------------------------------------------------------


class PlainSlots:
    """:class:`SlotPool` as plain bookkeeping on :class:`Station`'s methods: a slot taken is
    an arrival and a slot held, one given back a departure and a slot released (or passed
    on to the first waiter, whose wait then ends)."""

    def __init__(self, capacity: int | None, station: Station) -> None:
        self.capacity = capacity
        self.held = 0
        self.waiters: list[int] = []
        self.station = station
        station.track_held()

    def acquire(self, now: float, cmd: int) -> bool:
        """True when granted now; else ``cmd`` waits."""
        if self.capacity is None or self.held < self.capacity:
            self.held += 1
            self.station.arrive(now)
            self.station.hold(now, 1)
            return True
        self.station.split()
        self.station.arrive(now)
        self.waiters.append(cmd)
        return False

    def try_acquire(self, now: float) -> bool:
        if self.capacity is not None and self.held >= self.capacity:
            self.station.rejected += 1
            return False
        return self.acquire(now, -1)

    def release(self, now: float, t_arrive: float, t_start: float) -> int | None:
        """The waiter granted the slot, if any."""
        self.station.depart(now, t_arrive, t_start, now)
        if self.waiters and (self.capacity is None or self.held <= self.capacity):
            return self.waiters.pop(0)
        self.held -= 1
        self.station.hold(now, -1)
        return None

    def set_capacity(self, now: float, capacity: int | None) -> list[int]:
        self.capacity = capacity
        granted = []
        while self.waiters and (capacity is None or self.held < capacity):
            self.held += 1
            self.station.hold(now, 1)
            granted.append(self.waiters.pop(0))
        return granted


slot_ops = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.integers(0, len(STEPS) - 1)),
        st.tuples(st.just("acquire"), st.just(0)),
        st.tuples(st.just("try"), st.just(0)),
        st.tuples(st.just("release"), st.integers(0, 50)),
        st.tuples(st.just("capacity"), st.integers(0, 4)),
        st.tuples(st.just("reset"), st.just(0)),
    ),
    max_size=80,
)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.none(), st.integers(1, 3)), slot_ops)
@example(1, [("acquire", 0), ("advance", 3), ("reset", 0), ("advance", 1), ("release", 0)])
@example(1, [("acquire", 0), ("acquire", 0), ("reset", 0), ("release", 0), ("release", 0)])
def test_slot_pool_keeps_the_books_of_plain_station_methods(
    capacity: int | None, ops: list[tuple[str, int]]
) -> None:
    """Random acquires (some waiting), releases, capacity changes and window resets through
    :class:`SlotPool` and through :class:`PlainSlots`: the same grants, the same figures."""
    env = Kernel()
    servers = math.inf if capacity is None else capacity
    fast_st = Station("st", "slots", servers, "hba")
    plain_st = Station("st", "slots", servers, "hba")
    fast = SlotPool(env, capacity, fast_st)
    plain = PlainSlots(capacity, plain_st)
    now = 0.0
    holding: list[tuple[float, float]] = []  # (arrived, granted) of commands with a slot
    waiting: list[tuple[int, float, Any]] = []  # (command, arrived, its event) in line
    commands = 0
    for what, arg in ops:
        if what == "advance":
            now += STEPS[arg]
            env._now = now  # the clock set_capacity reads (no process runs here)
        elif what == "acquire":
            cmd = commands
            commands += 1
            event = fast.acquire(now)
            granted = plain.acquire(now, cmd)
            assert (event is None) == granted
            if granted:
                holding.append((now, now))
            else:
                waiting.append((cmd, now, event))
        elif what == "try":
            got = fast.try_acquire(now)
            assert got == plain.try_acquire(now)
            if got:
                holding.append((now, now))
        elif what == "release" and holding:
            t_arrive, t_start = holding.pop(arg % len(holding))
            fast.release(now, t_arrive, t_start)
            passed = plain.release(now, t_arrive, t_start)
            holding.extend(_grants(waiting, [passed] if passed is not None else [], now))
        elif what == "capacity":
            new = None if arg == 0 else arg
            fast.set_capacity(new)
            holding.extend(_grants(waiting, plain.set_capacity(now, new), now))
        elif what == "reset":
            fast_st.reset(now)
            plain_st.reset(now)
        assert fast.held == plain.held
        _same(fast_st, plain_st, now)
    _same(fast_st, plain_st, now + 1.0)


def _grants(
    waiting: list[tuple[int, float, Any]], granted: list[int], now: float
) -> list[tuple[float, float]]:
    """The commands the plain pool granted (first first) leave the line; the fast pool
    must have fired the events of the same ones, and only those."""
    fired = [cmd for cmd, _, event in waiting if event.triggered]
    assert fired == granted
    out = [(t, now) for cmd, t, _ in waiting if cmd in granted]
    waiting[:] = [w for w in waiting if w[0] not in granted]
    return out


# -- FCFS servers and links -------------------------------------------------------------------


class PlainServer:
    """:class:`FcfsServer`: an arrival, then the earliest free server of ``servers``."""

    def __init__(self, servers: int, station: Station) -> None:
        self.free = [0.0] * servers
        self.station = station

    def reserve(self, now: float, service: float) -> tuple[float, float]:
        self.station.arrive(now)
        i = min(range(len(self.free)), key=lambda k: (self.free[k], k))
        start = max(self.free[i], now)
        self.free[i] = start + service
        return start, start + service


class PlainLink:
    """:class:`Link`: an arrival, then the transfer after the one before it."""

    def __init__(self, rate: float | None, setup: float, station: Station) -> None:
        self.rate = rate
        self.setup = setup
        self.free = 0.0
        self.station = station

    def reserve(self, now: float, t_arrive: float, nbytes: float) -> tuple[float, float]:
        self.station.arrive(now)
        if self.rate is None:
            return t_arrive, t_arrive
        start = max(self.free, t_arrive)
        self.free = start + self.setup + nbytes / self.rate
        return start, self.free


serve_ops = st.lists(
    st.one_of(
        st.tuples(st.just("advance"), st.integers(0, len(STEPS) - 1)),
        st.tuples(st.just("reserve"), st.integers(0, len(STEPS) - 1)),
        st.tuples(st.just("depart"), st.integers(0, 50)),
        st.tuples(st.just("reset"), st.just(0)),
    ),
    max_size=80,
)


def _depart_in_turn(
    pending: list[tuple[float, float, float, int]], now: float, stations: tuple[Station, Station]
) -> None:
    """Record the departures due by ``now``, earliest first (as commands wake up)."""
    pending.sort(key=lambda p: (p[2], p[3]))
    while pending and pending[0][2] <= now:
        t_arrive, start, done, _ = pending.pop(0)
        for station in stations:
            station.depart(now, t_arrive, start, done)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 3), serve_ops)
def test_fcfs_server_keeps_the_books_of_plain_station_methods(
    servers: int, ops: list[tuple[str, int]]
) -> None:
    env = Kernel()
    fast_st = Station("st", "server", servers, "controller")
    plain_st = Station("st", "server", servers, "controller")
    fast = FcfsServer(env, servers, fast_st)
    plain = PlainServer(servers, plain_st)
    now = 0.0
    pending: list[tuple[float, float, float, int]] = []
    for what, arg in ops:
        if what == "advance":
            now += STEPS[arg]
            _depart_in_turn(pending, now, (fast_st, plain_st))
        elif what == "reserve":
            got = fast.reserve(now, STEPS[arg])
            assert got == plain.reserve(now, STEPS[arg])
            pending.append((now, got[0], got[1], len(pending)))
        elif what == "depart" and pending:
            now = max(now, min(p[2] for p in pending))
            _depart_in_turn(pending, now, (fast_st, plain_st))
        elif what == "reset":
            fast_st.reset(now)
            plain_st.reset(now)
        _same(fast_st, plain_st, now)
    _same(fast_st, plain_st, now + 1.0)


@settings(max_examples=300, deadline=None)
@given(
    st.sampled_from([None, 1e9, 3.0]),
    st.sampled_from([0.0, 1e-6]),
    serve_ops,
)
def test_link_keeps_the_books_of_plain_station_methods(
    rate: float | None, setup: float, ops: list[tuple[str, int]]
) -> None:
    env = Kernel()
    fast_st = Station("st", "link", 1, "fabric")
    plain_st = Station("st", "link", 1, "fabric")
    fast = Link(env, rate, fast_st, setup)
    plain = PlainLink(rate, setup, plain_st)
    now = 0.0
    pending: list[tuple[float, float, float, int]] = []
    for what, arg in ops:
        if what == "advance":
            now += STEPS[arg]
            _depart_in_turn(pending, now, (fast_st, plain_st))
        elif what == "reserve":
            # the data arrives now or a little later (a transfer's first frame on its way)
            t_arrive = now + STEPS[arg] / 8
            nbytes = 4096.0 * (arg + 1)
            got = fast.reserve(now, t_arrive, nbytes)
            assert got == plain.reserve(now, t_arrive, nbytes)
            pending.append((now, got[0], got[1], len(pending)))
        elif what == "depart" and pending:
            now = max(now, min(p[2] for p in pending))
            _depart_in_turn(pending, now, (fast_st, plain_st))
        elif what == "reset":
            fast_st.reset(now)
            plain_st.reset(now)
        _same(fast_st, plain_st, now)
    _same(fast_st, plain_st, now + 1.0)


# -- a small read on FCFS drives --------------------------------------------------------------


def _pool(env: Kernel, spec: PoolSpec, units: int) -> tuple[RaidPool, list[Station]]:
    """A pool of SSD-like FCFS drives (``units`` servers each), with their stations."""
    stations: list[Station] = []
    drives: list[list[Drive]] = []
    for g in range(spec.groups):
        group: list[Drive] = []
        for m in range(spec.drives):
            station = Station(f"d{g}.{m}", "server", units, "drive")
            stations.append(station)

            def service(size: int, write: bool) -> float:
                return 1e-4 + size / 2e8

            group.append(FcfsDrive(env, FcfsServer(env, units, station), service, 1 << 40))
        drives.append(group)
    return RaidPool(env, spec, drives), stations


reads = st.lists(
    st.tuples(
        st.integers(0, len(STEPS) - 1),  # time since the read before
        st.integers(0, 1 << 24),  # where in the pool
        st.sampled_from([512, 4096, 8192, 65536]),  # size
    ),
    min_size=1,
    max_size=40,
)


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["raid0", "raid1", "raid5", "raid10"]),
    st.integers(1, 3),
    st.integers(1, 2),
    reads,
)
def test_read_known_gives_the_general_reads_times_and_figures(
    level: str, groups: int, units: int, ios: list[tuple[int, int, int]]
) -> None:
    """Small reads through :meth:`RaidPool.read_known` (a sleep until the known departure,
    then the drive's departure recorded, as the engine does) and through
    :meth:`RaidPool.start_read` and its join, each in a kernel of its own: the same
    completion times and the same drive figures."""
    width = {"raid0": 3, "raid1": 2, "raid5": 4, "raid10": 4}[level]
    spec = PoolSpec(name="p", drive="ssd", raid=level, drives=width, groups=groups)
    assert _reads(spec, units, ios, shortcut=True) == _reads(spec, units, ios, shortcut=False)


def _reads(
    spec: PoolSpec, units: int, ios: list[tuple[int, int, int]], shortcut: bool
) -> tuple[list[tuple[int, float, float]], list[str]]:
    """Run the reads ``ios`` on a new pool: (read, completion time, array-queue wait) in
    the order they completed, and every drive's figures at the end."""
    env = Kernel()
    pool, stations = _pool(env, spec, units)
    assert pool.known
    element = spec.stripe_element
    done: list[tuple[int, float, float]] = []

    def read(i: int, at: float, offset: int, size: int) -> Generator[Any, Any, None]:
        yield env.sleep(at)
        t = env.now
        if shortcut:
            served = pool.read_known(offset, size, t)
            assert served is not None
            station, start, end = served
            yield env.sleep(end - t)
            station.depart(env.now, t, start, end)
            wait = 0.0
        else:
            join = pool.start_read(offset, size, t)
            yield join.waited()
            join.settle(env.now)
            wait = join.queue_wait
        done.append((i, env.now, wait))

    at = 0.0
    for i, (step, where, size) in enumerate(ios):
        at += STEPS[step]
        # within one element: its start, moved on by up to the room left after the read
        offset = where - where % element + (where % element) % (element - size + 1)
        env.process(read(i, at, offset, size))
    env.run()
    return done, [repr(s.summary(env.now)) for s in stations]


def test_a_read_over_two_elements_is_not_a_known_read() -> None:
    env = Kernel()
    spec = PoolSpec(name="p", drive="ssd", raid="raid5", drives=4)
    pool, _ = _pool(env, spec, 1)
    assert pool.read_known(spec.stripe_element - 512, 1024, 0.0) is None
