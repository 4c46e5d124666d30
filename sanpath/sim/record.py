"""The recorder of an animation window: what the path looked like, frame by frame.

:class:`Recorder` is made for a run whose scenario sets ``run.animate``
(:class:`sanpath.spec.AnimateSpec`); without it the run makes none, and the only trace of
recording in the engine is :class:`~sanpath.sim.measure.Measurement` asking whether it has a
recorder once per completed application I/O.

It samples from the events of the run's own kernel (a chain of timeouts whose callbacks
only read): at each frame, the slots in use, the commands waiting and the slots there are of
every queue a command takes a slot of (the pools of each host's routes, each array port's
queue, each LUN group's queues), and the counters the stations and the measurement already
keep (each station's busy time, each queue's QUEUE FULL answers, each host's); the busy
shares and the answers per interval are their differences. Reading changes nothing, so a
run gives the same figures with and without a recorder (events keep their order; the
recorder's own are extra entries that touch no state).

Memory is bounded by the frames: with a ``duration`` the frames are spaced evenly over the
window; without one the recorder keeps twice the frames asked for and, when they are
full, keeps every other one and samples half as often, until :data:`sanpath.spec.AUTO_IOS`
application I/Os have completed in the window (every quantity kept is a level or a running
total, so thinning loses nothing but resolution). The tracked journeys are thinned the same way: the
first issued in each slot of time (of those completed), the slots twice as wide when
there are twice as many as asked for.
"""

from __future__ import annotations

import math
from typing import Protocol

import numpy as np
import simpy

from sanpath.layout import split_sizes, station_roles
from sanpath.results import LAYERS, Journey, Recording
from sanpath.sim.components.array import Lun
from sanpath.sim.components.host import HostInstance
from sanpath.sim.hops import Gate
from sanpath.sim.station import SlotPool, Station
from sanpath.sim.topology import Topology
from sanpath.spec import AUTO_IOS, AnimateSpec, Scenario

FIRST_INTERVAL = 1e-5
"""Seconds between the frames of a window without a duration, before any thinning."""

PATH_ORDER = (
    "host_queue",
    "host",
    "hba",
    "pcie",
    "fabric",
    "array_port",
    "controller",
    "lun_queue",
    "cache",
    "drive",
)
"""The layers in the order a command meets them (a journey's stages)."""

_HOST_ROLES = {"host_queue": "queue", "queue_pairs": "queue", "hba_slots": "hba"}
"""The gates of a host's routes a host's places count, by station role."""

_ORDER = [LAYERS.index(layer) for layer in PATH_ORDER]


def _issued(journey: Journey) -> float:
    return journey.issued


class Counts(Protocol):
    """What the recorder reads of the run's measurement
    (:class:`~sanpath.sim.measure.Measurement`)."""

    @property
    def group_qfull(self) -> list[list[int]]:
        """QUEUE FULL answers per host, per workload and per LUN, since the window opened."""

    @property
    def window_start(self) -> float:
        """When the measurement window opened (s)."""


def station_busy(st: Station, now: float) -> float:
    """Busy server-seconds of ``st`` since its window opened, up to ``now`` (as
    :meth:`Station.summary` counts them)."""
    if st.mirror:
        return st.area + st.n * (now - st.t_last)
    if st.held >= 0:
        return st.busy + st.held * (now - st.held_since)
    return st.busy


def _level(pools: list[SlotPool]) -> tuple[int, int, float]:
    """(slots held, commands waiting, slots) of ``pools`` together."""
    held = waiting = 0
    slots = 0.0
    for pool in pools:
        held += pool.held
        waiting += len(pool.waiters) if pool.waiters is not None else 0
        slots += math.inf if pool.capacity is None else pool.capacity
    return held, waiting, slots


class Recorder:
    """Records ``spec``'s window of a run of ``scenario`` on ``topology`` (see the module
    docstring); ``measure`` is the run's measurement, read for its QUEUE FULL counts."""

    def __init__(
        self,
        env: simpy.Environment,
        scenario: Scenario,
        topology: Topology,
        spec: AnimateSpec,
        measure: Counts,
    ) -> None:
        self.env = env
        self.scenario = scenario
        self.topology = topology
        self.spec = spec
        self.measure = measure
        self.start = spec.start
        self.end = math.inf if spec.duration is None else spec.start + spec.duration
        self.rows = spec.frames if spec.duration is not None else 2 * spec.frames
        self.dt = spec.duration / (spec.frames - 1) if spec.duration is not None else FIRST_INTERVAL
        roles = station_roles(scenario)
        self.role = {name: roles[name].name for name in topology.stations}
        hosts = topology.hosts
        self.places = (
            *(f"host:{h.name}:{part}" for h in hosts for part in ("queue", "hba")),
            *(f"port:{p.index}" for p in topology.ports),
            *(f"lun:{group}" for group in topology.luns_by_group),
        )
        self.station_names = tuple(topology.stations)
        self.group_of = {lun.index: g for g, luns in topology.luns_by_group.items() for lun in luns}
        self._host_pools: dict[int, tuple[int, list[SlotPool], list[SlotPool]]] = {}
        n, p, s, h = self.rows, len(self.places), len(self.station_names), len(hosts)
        self.t = np.zeros(n)
        self.held = np.zeros((n, p), dtype=np.int32)
        self.waiting = np.zeros((n, p), dtype=np.int32)
        self.capacity = np.zeros((n, p), dtype=np.float32)
        self.refused = np.zeros((n, p), dtype=np.int64)
        self.busy = np.zeros((n, s))
        self.qfull = np.zeros((n, h), dtype=np.int64)
        self.totals = np.zeros((n, 3))
        """Per frame: I/Os completed, their summed latency (s), split I/Os (running totals)."""
        self.count = 0
        self.done = 0
        self.latency_sum = 0.0
        self.split_ios = 0
        self.journeys: dict[int, Journey] = {}
        """The tracked I/Os: the first issued in each slot of time, of those completed."""
        self.slot = (
            spec.duration / (2 * spec.tracked)
            if spec.duration is not None and spec.tracked
            else FIRST_INTERVAL
        )
        """Seconds of a slot of :attr:`journeys` (doubled when there are too many)."""
        self.finished = False
        self._last_window = -1.0
        self._last_busy = np.zeros(s)
        self._run_busy = np.zeros(s)
        self._last_refused = np.zeros(p, dtype=np.int64)
        self._run_refused = np.zeros(p, dtype=np.int64)
        self._last_qfull = np.zeros(h, dtype=np.int64)
        self._run_qfull = np.zeros(h, dtype=np.int64)
        env.timeout(self.start).callbacks.append(self._sample)

    # -- what happens --------------------------------------------------------------------------

    def complete(
        self,
        now: float,
        t_issue: float,
        host: HostInstance,
        lun: Lun,
        size: int,
        layers: list[float],
    ) -> None:
        """Application I/O of ``size`` bytes from ``host`` to ``lun``, issued at ``t_issue``,
        completed at ``now`` with ``layers`` (s per layer of :data:`LAYERS`)."""
        if self.finished or t_issue < self.start or now > self.end:
            return
        self.done += 1
        self.latency_sum += now - t_issue
        parts = len(split_sizes(size, host.split_limit))
        if parts > 1:
            self.split_ios += 1
        if self.spec.tracked == 0:
            return
        slot = int((t_issue - self.start) / self.slot)
        known = self.journeys.get(slot)
        if known is not None and known.issued <= t_issue:
            return
        self.journeys[slot] = self._journey(now, t_issue, host, lun, size, parts, layers)
        if len(self.journeys) > 2 * self.spec.tracked:  # wider slots: the first of each
            self.slot *= 2
            kept: dict[int, Journey] = {}
            for journey in sorted(self.journeys.values(), key=_issued):
                kept.setdefault(int((journey.issued - self.start) / self.slot), journey)
            self.journeys = kept

    def _journey(
        self,
        now: float,
        t_issue: float,
        host: HostInstance,
        lun: Lun,
        size: int,
        parts: int,
        layers: list[float],
    ) -> Journey:
        spent = [layers[i] for i in _ORDER]
        total = sum(spent)
        scale = (now - t_issue) / total if total > 0 else 0.0
        stages = []
        t = t_issue
        for layer, seconds in zip(PATH_ORDER, spent, strict=True):
            if seconds > 0:
                stages.append((layer, t))
                t += seconds * scale
        port = 0
        for route in host.routes.get(lun.index, ()):
            if route is not None:
                port = route.array_port.index
                break
        group = self.group_of[lun.index]
        return Journey(host.name, group, port, size, parts, t_issue, now, tuple(stages))

    # -- the frames ----------------------------------------------------------------------------

    def _sample(self, _event: object) -> None:
        now = self.env.now
        if self.finished:
            return
        if self.count == self.rows:  # a window without a duration: thin to half
            self._thin()
        k = self.count
        self.t[k] = now
        self._levels(k)
        self._counters(k, now)
        self.totals[k] = (self.done, self.latency_sum, self.split_ios)
        self.count = k + 1
        last = self.count == self.rows if self.spec.duration is not None else self.done >= AUTO_IOS
        if last:
            self.finished = True
            return
        due = self.start + self.count * self.dt
        self.env.timeout(max(due - now, 0.0)).callbacks.append(self._sample)

    def _thin(self) -> None:
        """Keep every other frame and sample half as often."""
        half = self.rows // 2
        for name in ("t", "held", "waiting", "capacity", "refused", "busy", "qfull", "totals"):
            array = getattr(self, name)
            array[:half] = array[0 : self.rows : 2].copy()
        self.count = half
        self.dt *= 2

    def _levels(self, k: int) -> None:
        """The slots held and waited for of every place, now, into frame ``k``."""
        col = 0
        for host in self.topology.hosts:
            queue, hba = self._pools(host)
            for pools in (queue, hba):
                held, waiting, slots = _level(pools)
                self.held[k, col], self.waiting[k, col], self.capacity[k, col] = (
                    held,
                    waiting,
                    slots,
                )
                col += 1
        places: list[list[SlotPool]] = [[port.queue] for port in self.topology.ports]
        places += [[lun.queue for lun in luns] for luns in self.topology.luns_by_group.values()]
        for pools in places:
            self.held[k, col], self.waiting[k, col], self.capacity[k, col] = _level(pools)
            col += 1

    def _pools(self, host: HostInstance) -> tuple[list[SlotPool], list[SlotPool]]:
        """The pools of ``host``'s LUN queues and of its HBA slots (kept until it makes
        another route)."""
        made = sum(r is not None for routes in host.routes.values() for r in routes)
        known = self._host_pools.get(host.index)
        if known is not None and known[0] == made:
            return known[1], known[2]
        found: dict[str, dict[int, SlotPool]] = {"queue": {}, "hba": {}}
        for routes in host.routes.values():
            for route in routes:
                if route is None:
                    continue
                for hop in route.hops:
                    if not isinstance(hop, Gate):
                        continue
                    part = _HOST_ROLES.get(self.role.get(hop.pool.station.name, ""))
                    if part is not None:
                        for pool in hop.pools if hop.pools is not None else (hop.pool,):
                            found[part][id(pool)] = pool
        queue, hba = list(found["queue"].values()), list(found["hba"].values())
        self._host_pools[host.index] = (made, queue, hba)
        return queue, hba

    def _counters(self, k: int, now: float) -> None:
        """The running totals of busy time, QUEUE FULL answers given and received, into
        frame ``k``; counters the measurement window started again are read from zero."""
        stations = self.topology.stations
        busy = np.array([station_busy(stations[name], now) for name in self.station_names])
        refused = np.zeros(len(self.places), dtype=np.int64)
        first = 2 * len(self.topology.hosts)
        names = [p.queue.station.name for p in self.topology.ports]
        names += [luns[0].queue.station.name for luns in self.topology.luns_by_group.values()]
        for i, name in enumerate(names):
            st = stations.get(name)
            refused[first + i] = st.rejected if st is not None else 0
        qfull = np.asarray(self.measure.group_qfull[0], dtype=np.int64)
        window = self.measure.window_start
        restarted = window != self._last_window
        self._last_window = window
        for last, run, now_value in (
            (self._last_busy, self._run_busy, busy),
            (self._last_refused, self._run_refused, refused),
            (self._last_qfull, self._run_qfull, qfull),
        ):
            step = now_value - (0 if restarted else last)
            run += np.maximum(step, 0)
            last[:] = now_value
        self.busy[k] = self._run_busy
        self.refused[k] = self._run_refused
        self.qfull[k] = self._run_qfull

    # -- the result ----------------------------------------------------------------------------

    def recording(self) -> Recording:
        """What was recorded, as :attr:`AnimateSpec.frames` frames (fewer when the run ended
        first)."""
        n = self.count
        frames = self.spec.frames
        rows = (
            np.unique(np.linspace(0, n - 1, frames).round().astype(int))
            if n > frames
            else np.arange(n)
        )
        t = self.t[rows]
        dt = np.diff(t, prepend=t[0] if len(t) else 0.0)

        def per_interval(total: np.ndarray) -> np.ndarray:
            return np.diff(total, axis=0, prepend=total[:1]) if len(total) else total

        totals = self.totals[rows]
        completed = per_interval(totals[:, 0])
        with np.errstate(invalid="ignore", divide="ignore"):
            latency = per_interval(totals[:, 1]) / completed * 1e3
            servers = np.array(
                [self.topology.stations[name].servers for name in self.station_names]
            )
            busy = per_interval(self.busy[rows]) / dt[:, None] / servers[None, :]
        busy = np.nan_to_num(np.clip(busy, 0.0, 1.0), nan=0.0)
        tracked = sorted(self.journeys.values(), key=_issued)
        if len(tracked) > self.spec.tracked:
            keep = np.linspace(0, len(tracked) - 1, self.spec.tracked).round().astype(int)
            tracked = [tracked[i] for i in keep]
        return Recording(
            scenario=self.scenario.model_dump(mode="json"),
            t=t,
            places=self.places,
            held=self.held[rows],
            waiting=self.waiting[rows],
            capacity=self.capacity[rows],
            refused=per_interval(self.refused[rows]),
            stations=self.station_names,
            busy=busy,
            hosts=tuple(h.name for h in self.topology.hosts),
            qfull=per_interval(self.qfull[rows]),
            completed=completed,
            latency_ms=np.where(completed > 0, latency, np.nan),
            splits=per_interval(totals[:, 2]),
            journeys=tuple(tracked),
            fps=self.spec.fps,
        )
