"""Stations: the places a command waits and is served, and the statistics they keep.

Three shapes cover the whole I/O path:

* :class:`SlotPool` - a counting semaphore with a FIFO wait line, like an HBA with
  ``queue_depth`` command slots: a command takes a slot or waits for one, and gives it back
  when it completes. ``try_acquire`` never waits: that is an array port or LUN queue that
  answers QUEUE FULL instead. The capacity can change during a run (throttling, schedules).
* :class:`FcfsServer` - ``servers`` identical first-come-first-served servers (controller
  cores, an HBA's processor, an SSD's flash units). Because the service time is drawn when a
  command arrives, the server computes at once when the command will leave, so a stage costs
  one SimPy event instead of request/timeout/release.
* :class:`Link` - a bandwidth server (an FC link direction, a PCIe slot direction): a
  transfer of ``n`` bytes occupies it for ``n / rate`` seconds, first come first served
  (:mod:`sanpath.sim.credit` adds links under buffer-to-buffer credits).

Each of them feeds a :class:`Station`, which keeps streaming statistics over the measurement
window: the time-weighted number of commands present (updated at every arrival and
departure), busy server-time, arrivals, completions and summed waits and services. Little's
law, ``L = X * W``, can then be checked per station from independently kept numbers.
"""

from __future__ import annotations

import heapq
import math
from collections import deque
from typing import Final

import simpy

from sanpath.results.station import LAYERS, StationStats

# Indices into a command's ``layers`` list for the layers the code names (the front's hops
# carry their own: sanpath.sim.hops).
HOST_QUEUE: Final = LAYERS.index("host_queue")
PCIE: Final = LAYERS.index("pcie")
FABRIC: Final = LAYERS.index("fabric")
CONTROLLER: Final = LAYERS.index("controller")
CACHE: Final = LAYERS.index("cache")
LUN_QUEUE: Final = LAYERS.index("lun_queue")
DRIVE: Final = LAYERS.index("drive")


class Station:
    """Streaming statistics of one station (or a group of identical ones).

    Parameters
    ----------
    name
        Scoped name such as ``db.hba`` or ``array.port0``.
    kind
        ``slots``, ``server`` or ``link``.
    servers
        Number of servers or slots (``math.inf`` when unlimited); used for utilization.
    layer
        The latency-breakdown layer this station belongs to.
    """

    __slots__ = (
        "area",
        "busy",
        "completions",
        "credited",
        "discarded",
        "held",
        "held_since",
        "kind",
        "layer",
        "mirror",
        "n",
        "n_start",
        "name",
        "present_sum",
        "rejected",
        "servers",
        "service_sum",
        "sojourn_sum",
        "starved",
        "t_last",
        "victims",
        "wait_sum",
        "window_start",
    )

    def __init__(self, name: str, kind: str, servers: float, layer: str) -> None:
        self.name = name
        self.kind = kind
        self.servers = servers
        self.layer = layer
        self.n = 0
        self.area = 0.0
        self.t_last = 0.0
        self.busy = 0.0
        self.completions = 0
        self.n_start = 0
        """Commands present when the window opened (arrivals = completions + n - n_start)."""
        self.rejected = 0
        self.wait_sum = 0.0
        self.service_sum = 0.0
        self.window_start = 0.0
        self.present_sum = 0.0
        self.sojourn_sum = 0.0
        self.held = -1
        self.held_since = 0.0
        self.credited = False
        """Some of its links send under buffer-to-buffer credits (:mod:`sanpath.sim.credit`)."""
        self.starved = 0.0
        """Seconds in the window its credit links had a frame to send and no credit."""
        self.discarded = 0
        """Frames its switch ports dropped in the window, held past the frame timeout."""
        self.victims: dict[tuple[int, int], float] | None = None
        """An ISL's: seconds in the window frames of one host waited for credits another
        host's frames held, by (waiting host, that host) (None: not an ISL)."""
        self.mirror = False
        """A slot station no command has waited at: its busy time is its time-weighted
        count (``area``), the same sums in the same order, so ``busy``, ``held`` and
        ``held_since`` are not kept (:meth:`track_held`, :meth:`split`)."""

    @property
    def arrivals(self) -> int:
        """Commands that entered the station in the window."""
        return self.completions + self.n - self.n_start

    def track_held(self) -> None:
        """Count busy time from slot grants and releases (exact) instead of departures:
        mirrored from ``area`` until a command first waits (:meth:`split`)."""
        if self.held < 0:
            self.mirror = True
        self.held = 0

    def split(self) -> None:
        """A command is about to wait at this slot station: keep its busy time apart from
        here on. Every command present holds a slot until now, so the slots held are ``n``
        and the busy time the time-weighted count."""
        if self.mirror:
            self.mirror = False
            self.busy = self.area
            self.held = self.n
            self.held_since = self.t_last

    def hold(self, now: float, delta: int) -> None:
        """``delta`` slots were taken (+1) or given back (-1) at ``now``."""
        self.busy += self.held * (now - self.held_since)
        self.held_since = now
        self.held += delta

    def arrive(self, now: float) -> None:
        """A command enters the station at ``now``."""
        self.area += self.n * (now - self.t_last)
        self.t_last = now
        self.n += 1
        self.present_sum += now

    def depart(self, now: float, t_arrive: float, t_start: float, t_depart: float) -> None:
        """Record a command that left at ``t_depart`` (which may be before ``now``).

        A stage whose departure time is known in advance may be accounted for later, when
        the command next wakes up; the time it was still counted present is taken back, so
        the time-weighted count stays exact. The times come in order:
        ``t_arrive <= t_start <= t_depart``.
        """
        w0 = self.window_start
        if t_arrive > w0:
            # The common case, the whole stay inside the window (the times in order): the
            # sums below, unclipped.
            n = self.n
            self.area += n * (now - self.t_last) - (now - t_depart)
            self.t_last = now
            self.n = n - 1
            self.completions += 1
            self.present_sum -= t_arrive
            self.sojourn_sum += t_depart - t_arrive
            if t_start != t_arrive:  # adding a zero wait leaves the sum as it is
                self.wait_sum += t_start - t_arrive
            service = t_depart - t_start
            self.service_sum += service
            if self.held < 0:
                self.busy += service
            return
        self.area += self.n * (now - self.t_last) - (now - (t_depart if t_depart > w0 else w0))
        self.t_last = now
        self.n -= 1
        self.completions += 1
        self.present_sum -= t_arrive if t_arrive > w0 else w0
        if t_depart > w0:
            self.sojourn_sum += t_depart - (t_arrive if t_arrive > w0 else w0)
        self.wait_sum += t_start - t_arrive
        service = t_depart - t_start
        self.service_sum += service
        if self.held < 0 and t_depart > w0:
            self.busy += service if t_start >= w0 else t_depart - w0

    def reset(self, now: float) -> None:
        """Start a new measurement window at ``now`` (end of warm-up)."""
        self.area = 0.0
        self.t_last = now
        self.busy = 0.0
        self.n_start = self.n
        self.completions = 0
        self.rejected = 0
        self.wait_sum = 0.0
        self.service_sum = 0.0
        self.window_start = now
        self.sojourn_sum = 0.0
        self.present_sum = self.n * now
        self.starved = 0.0
        self.discarded = 0
        if self.victims is not None:
            self.victims = {}
        if self.held >= 0:
            self.held_since = now

    def summary(self, now: float) -> StationStats:
        """Statistics over the window ending at ``now``."""
        span = now - self.window_start
        area = self.area + self.n * (now - self.t_last)
        mean_in = area / span if span > 0 else 0.0
        busy = self.busy
        if self.mirror:
            busy = area
        elif self.held >= 0:
            busy += self.held * (now - self.held_since)
        busy_mean = busy / span if span > 0 else 0.0
        utilization = busy_mean / self.servers if math.isfinite(self.servers) else math.nan
        done = self.completions
        # Little's law as an accounting identity: the time-weighted count must equal the
        # time each command spent in the station inside the window (departed + present).
        present = self.n * now - self.present_sum
        accounted = self.sojourn_sum + present
        wait = self.wait_sum / done if done else 0.0
        service = self.service_sum / done if done else 0.0
        return StationStats(
            name=self.name,
            kind=self.kind,
            layer=self.layer,
            servers=self.servers,
            utilization=utilization,
            mean_in_station=mean_in,
            mean_queue=max(mean_in - busy_mean, 0.0),
            mean_wait_s=wait,
            mean_service_s=service,
            throughput=done / span if span > 0 else 0.0,
            arrivals=self.arrivals,
            completions=done,
            rejected=self.rejected,
            little_residual=abs(area - accounted) / max(area, 1e-300) if area > 0 else 0.0,
            credit_starved=(
                self.starved / (span * self.servers) if self.credited and span > 0 else None
            ),
            frames_discarded=self.discarded if self.credited else None,
        )


class SlotPool:
    """A counting semaphore of ``capacity`` slots with a FIFO line (None = unlimited).

    ``acquire`` returns None when a slot was free (no SimPy event needed) or an event to
    yield on. ``release`` hands the slot straight to the first waiter.

    The methods on the hot path take the current simulated time ``now`` (s) from the
    caller, which already knows it.
    """

    __slots__ = ("_env", "capacity", "held", "station", "waiters")

    def __init__(self, env: simpy.Environment, capacity: int | None, station: Station) -> None:
        self._env = env
        self.capacity = capacity
        self.held = 0
        self.waiters: deque[simpy.Event] | None = None
        """The commands waiting for a slot, first first (made when the first one waits: a
        thousand hosts have tens of thousands of queues, most of which never wait)."""
        self.station = station
        station.track_held()

    @property
    def outstanding(self) -> int:
        """Commands holding or waiting for a slot."""
        waiters = self.waiters
        return self.held + (len(waiters) if waiters is not None else 0)

    def acquire(self, now: float) -> simpy.Event | None:
        """Take a slot: None if granted now, else an event that fires when granted."""
        cap = self.capacity
        held = self.held
        st = self.station
        if cap is None or held < cap:
            self.held = held + 1
            # the station's arrival and its slot taken at once, written out: four slots are
            # taken per command
            n = st.n
            st.area += n * (now - st.t_last)
            st.t_last = now
            st.n = n + 1
            st.present_sum += now
            if not st.mirror:
                held = st.held
                st.busy += held * (now - st.held_since)
                st.held_since = now
                st.held = held + 1
            return None
        st.split()
        st.arrive(now)
        event = simpy.Event(self._env)
        waiters = self.waiters
        if waiters is None:
            waiters = self.waiters = deque()
        waiters.append(event)
        return event

    def try_acquire(self, now: float) -> bool:
        """Take a slot if one is free; otherwise count a rejection (QUEUE FULL)."""
        cap = self.capacity
        if cap is not None and self.held >= cap:
            self.station.rejected += 1
            return False
        self.acquire(now)  # a slot is free: granted now
        return True

    def release(self, now: float, t_arrive: float, t_start: float) -> None:
        """A command that arrived at ``t_arrive`` and took its slot at ``t_start`` gives it
        back at ``now``, to the first waiter or to the pool; its station records the
        departure (:meth:`Station.depart` at ``now``, written out here: four slots are given
        back per command; a slot station counts its busy time from the slots held)."""
        st = self.station
        w0 = st.window_start
        n = st.n
        st.area += n * (now - st.t_last)
        st.t_last = now
        st.n = n - 1
        st.completions += 1
        if t_arrive > w0:
            st.present_sum -= t_arrive
            st.sojourn_sum += now - t_arrive
        else:
            st.present_sum -= w0
            if now > w0:
                st.sojourn_sum += now - w0
        if t_start != t_arrive:  # adding a zero wait leaves the sum as it is
            st.wait_sum += t_start - t_arrive
        st.service_sum += now - t_start
        waiters = self.waiters
        if waiters:
            cap = self.capacity
            if cap is None or self.held <= cap:
                waiters.popleft().succeed()  # the slot passes to the first waiter
                return
        self.held -= 1
        if not st.mirror:
            held = st.held
            st.busy += held * (now - st.held_since)
            st.held_since = now
            st.held = held - 1

    def set_capacity(self, capacity: int | None) -> None:
        """Change the number of slots; waiters are let in if slots opened up."""
        self.capacity = capacity
        waiters = self.waiters
        while waiters and (capacity is None or self.held < capacity):
            self.held += 1
            self.station.hold(self._env.now, 1)
            waiters.popleft().succeed()


class FcfsServer:
    """``servers`` identical FCFS servers whose departure times are computed on arrival."""

    __slots__ = ("_env", "_free", "_free_one", "servers", "station")

    def __init__(self, env: simpy.Environment, servers: int, station: Station) -> None:
        self._env = env
        self.servers = servers
        self._free_one = 0.0
        self._free: list[float] = [0.0] * servers
        self.station = station

    def reserve(self, now: float, service: float) -> tuple[float, float]:
        """Queue a command needing ``service`` seconds at ``now``; return (start, departure)."""
        station = self.station  # station.arrive(now), written out: it runs for every command
        n = station.n
        station.area += n * (now - station.t_last)
        station.t_last = now
        station.n = n + 1
        station.present_sum += now
        if self.servers == 1:
            free = self._free_one
            start = free if free > now else now
            done = self._free_one = start + service
            return start, done
        earliest = self._free[0]
        start = earliest if earliest > now else now
        heapq.heapreplace(self._free, start + service)
        return start, start + service


class Link:
    """One direction of a bandwidth-limited link (FC port or PCIe slot).

    ``rate`` is bytes per second (None = infinitely fast). ``reserve`` returns the start and
    the end of the transfer; the link is busy for ``setup + nbytes / rate`` from the start
    (``setup``: seconds per transfer besides its bytes, e.g. a DMA set-up).
    """

    __slots__ = (
        "_env",
        "dropped",
        "fenced",
        "first",
        "free",
        "holds",
        "owner",
        "rate",
        "sent",
        "setup",
        "starving",
        "station",
    )

    def __init__(
        self, env: simpy.Environment, rate: float | None, station: Station, setup: float = 0.0
    ) -> None:
        self._env = env
        self.rate = rate
        self.setup = setup
        self.free = 0.0
        self.station = station
        self.holds = False
        """A switch's port whose credits come back only when the next link of the way has
        taken the frames (:meth:`handed`): an ISL."""
        self.sent = 0
        """Frames of the last transfer (counted by a credit link)."""
        self.first = 0
        """The number of the last transfer's first frame (counted by a credit link)."""
        self.dropped = 0
        """Frames a switch dropped for this link (its egress port), held past the timeout."""
        self.fenced = False
        """The switch has disabled the port this link leaves from (port fencing)."""
        self.owner = -1
        """The host whose transfer a link that :attr:`holds` carries next (its index)."""
        self.starving = 0.0
        """Seconds the last transfer's frames waited for credits (a credit link's)."""

    def handed(self, start: float, end: float, blocked: bool, first: int, sent: int) -> None:
        """The next link of the way sends the ``sent`` frames numbered from ``first`` from
        ``start`` to ``end`` (a link that :attr:`holds` frees their credits then; a plain
        link ignores it); ``blocked``: it was short of credits itself (a slow drain behind)."""

    def carrier(self) -> Link:
        """The link that carried the last transfer: this one (a bundle: its member)."""
        return self

    def ready(self, t_arrive: float) -> float:
        """When a transfer arriving at ``t_arrive`` could start: once the link is free."""
        free = self.free
        return free if free > t_arrive else t_arrive

    def sustained(self) -> float:
        """The rate the link keeps up over a long transfer, bytes/s (its rate; a link of no
        limit is never asked)."""
        rate = self.rate
        assert rate is not None
        return rate

    def reserve(self, now: float, t_arrive: float, nbytes: float) -> tuple[float, float]:
        """Reserve the link at ``now`` for ``nbytes`` arriving at ``t_arrive``; (start, end)."""
        station = self.station  # station.arrive(now), written out: it runs for every command
        n = station.n
        station.area += n * (now - station.t_last)
        station.t_last = now
        station.n = n + 1
        station.present_sum += now
        rate = self.rate
        if rate is None:
            return t_arrive, t_arrive
        free = self.free
        start = free if free > t_arrive else t_arrive
        end = start + self.setup + nbytes / rate
        self.free = end
        return start, end
