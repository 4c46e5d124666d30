"""Measurement: the run's statistics, its window, when it stops, and the result.

:class:`Measurement` counts every application I/O issued and completed (whole-run totals
for conservation checks), keeps the measured figures once the warm-up is over (latency
histograms, batch means through the run control, per-layer time, bytes, event counters,
optional time series; per host, workload and LUN, and per host-to-LUN device), decides
with :class:`~sanpath.sim.control.RunControl` when the window opens and when the run
stops, and finally divides the sums by the window into a
:class:`~sanpath.results.RunResult`, with the intervals, the steady-state diagnosis and the
warnings only the end state shows.
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import simpy

from sanpath.layout import host_demand
from sanpath.results import (
    LAYERS,
    DeviceFigures,
    GroupFigures,
    RunResult,
    latency_dict,
    starvation_warning,
    starving,
)
from sanpath.sim.components.array import Lun
from sanpath.sim.components.host import HostInstance
from sanpath.sim.control import UNSTABLE_WINDOW, RunControl, metric_interval
from sanpath.sim.devices import DeviceCounter
from sanpath.sim.diagnosis import CacheLevel, diagnose, open_queues, tail_warnings
from sanpath.sim.record import Recorder
from sanpath.sim.replay import trace_notes, trace_run
from sanpath.sim.topology import Topology
from sanpath.spec import Scenario
from sanpath.stats import BatchMeans, LatencyHistogram, TimeSeries
from sanpath.stats.groups import GroupedLatency

COUNTERS = (
    "commands",
    "split_ios",
    "split_children",
    "qfull",
    "port_qfull",
    "lun_qfull",
    "retries",
    "read_ahead_hits",
    "cache_hits",
    "cached_writes",
    "write_hits",
    "write_aside",
    "forced_flushes",
)
"""Event counters of the measurement window (``RunResult.counters``)."""

TOTALS = (
    "ios_issued",
    "ios_completed",
    "bytes_issued",
    "bytes_completed",
    "commands_issued",
    "commands_completed",
    "command_bytes_completed",
)
"""Whole-run counts, warm-up included (``RunResult.totals``), for conservation checks.

They are kept as attributes of :class:`Measurement` of the same names (updated for every
command: an attribute costs less than a dictionary entry) and gathered at the end."""


_add = operator.add


class Measurement:
    """The statistics of one run of ``scenario`` on ``topology`` (times in seconds).

    ``early`` is called once early in the warm-up (the preconditioner's check of the cache).
    """

    def __init__(
        self,
        env: simpy.Environment,
        scenario: Scenario,
        topology: Topology,
        early: Callable[[float], bool],
    ) -> None:
        self.env = env
        self.topology = topology
        self.cache = topology.cache
        self.run_spec = scenario.run
        self.latency = LatencyHistogram()
        self.command_latency = LatencyHistogram()
        self.control = RunControl(
            scenario.run,
            open_loop=any(not w.closed for w in scenario.workloads),
            has_write_back=self.cache.capacity > 0,
            state=self.state,
            scheduled=bool(scenario.schedule),
            early=early,
            trace=trace_run(scenario),
        )
        self.batches: BatchMeans = self.control.batches
        self.progress: Callable[[Measurement], None] | None = None
        """Called at every batch boundary (warm-up and measured) when set: a progress bar."""
        self.timeseries: TimeSeries | None = None
        self.exchanges: TimeSeries | None = None
        self.recorder: Recorder | None = None
        """The animation window's recorder (``run.animate``; :mod:`sanpath.sim.record`)."""
        """Per-interval exchange completion times (commands, as a switch probe sees them)."""
        self.breakdown = [0.0] * len(LAYERS)
        self.completed = 0
        self.measured = 0
        self.measuring = self.control.measure_from_start
        self.window_start = 0.0
        self.stop_after: float = (
            float(scenario.run.ios) if scenario.run.ios is not None else math.inf
        )
        """Measured I/Os after which the run stops (a fixed ``run.ios``)."""
        self.bytes_read = 0
        self.bytes_written = 0
        self.reads = 0
        self.read_latency = 0.0
        """Sum of the measured reads' latencies (s)."""
        self.write_latency = 0.0
        """Sum of the measured writes' latencies (s)."""
        self.counters = dict.fromkeys(COUNTERS, 0)
        """The window's event counters; ``commands`` is counted from :attr:`commands_issued`."""
        self.commands_before = 0
        """Commands started before the window opened (``counters["commands"]`` leaves them out)."""
        self.stop = simpy.Event(env)
        self.stopped = False
        """True once :attr:`stop` is triggered (read for every I/O: cheaper than the event)."""
        self.ios_issued = 0
        self.bytes_issued = 0
        self.ios_completed = 0
        self.bytes_completed = 0
        self.commands_issued = 0
        self.commands_completed = 0
        self.command_bytes_completed = 0
        self.in_flight: dict[int, float] = {}
        """Issue time of every application I/O not yet complete (by issue number)."""
        self.workload_names = [w.name for w in scenario.workloads]
        sizes = (len(topology.hosts), len(scenario.workloads), len(topology.luns))
        self.groups = GroupedLatency(sizes)
        """Latencies and bytes per host, per workload and per LUN (dimensions 0, 1, 2)."""
        self.group_qfull = [[0] * n for n in sizes]
        """QUEUE FULL answers per host, per workload and per LUN."""
        self.host_issued = [0] * len(topology.hosts)
        """Application I/Os each host issued over the whole run."""
        self.devices: dict[int, DeviceCounter] = {}
        """Each host's view of each LUN it sent commands to, by ``host index * luns + LUN
        index`` (an integer: looked up for every I/O, it makes no tuple)."""
        self.luns = len(topology.luns)
        """The number of LUNs (for the keys of :attr:`devices`)."""

    def issue(self, now: float, size: int, host: int) -> int:
        """Count an application I/O of ``size`` bytes issued at ``now`` (the current time) by
        host number ``host``; its issue number."""
        self.host_issued[host] += 1
        key = self.ios_issued
        self.ios_issued = key + 1
        self.bytes_issued += size
        self.in_flight[key] = now
        return key

    def device(self, host: HostInstance, lun: Lun) -> DeviceCounter:
        """``host``'s view of ``lun`` (made on first use)."""
        key = host.index * self.luns + lun.index
        device = self.devices.get(key)
        if device is None:
            device = DeviceCounter(host.name, lun.name)
            if self.measuring:
                device.reset(self.env.now)
            self.devices[key] = device
        return device

    def count_qfull(self, host: int, workload: int, lun: int) -> None:
        """A QUEUE FULL answer to a command of ``host``, ``workload``, to ``lun`` (indices)."""
        by_host, by_workload, by_lun = self.group_qfull
        by_host[host] += 1
        by_workload[workload] += 1
        by_lun[lun] += 1

    def complete(
        self,
        now: float,
        key: int,
        t_issue: float,
        host: HostInstance,
        lun: Lun,
        workload: int,
        size: int,
        write: bool,
        layers: list[float],
    ) -> None:
        """Account application I/O number ``key``, complete at ``now``."""
        self.ios_completed += 1
        self.bytes_completed += size
        del self.in_flight[key]
        if self.recorder is not None:
            self.recorder.complete(now, t_issue, host, lun, size, write, layers)
        if self.stopped:
            return  # the run is over; I/Os finishing at the same instant are not measured
        self.completed += 1
        latency = now - t_issue
        if not self.measuring:
            if self.control.warm_up(now, latency):
                self.start_window(now)
            elif self.progress is not None and self.completed % 1024 == 0:
                self.progress(self)
            return
        self.latency.record(latency)
        if self.batches.add(now, latency):
            if self.control.batch_closed(self.measured + 1, self.latency, now - self.window_start):
                self._stop()
            if self.progress is not None:
                self.progress(self)
        if self.timeseries is not None:
            self.timeseries.add(now, latency, size)
        self.breakdown = list(map(_add, self.breakdown, layers))
        if write:
            self.bytes_written += size
            self.write_latency += latency
        else:
            self.reads += 1
            self.bytes_read += size
            self.read_latency += latency
        self.groups.add((host.index, workload, lun.index), write, latency, size)
        self.measured += 1
        if self.measured >= self.stop_after and not self.stopped:
            self.control.info.stopped_by = "unstable" if self.control.info.unstable else "ios"
            self._stop()

    def state(self) -> tuple[float, float, float]:
        """(dirty cache bytes, application I/Os in flight, I/Os issued) now."""
        return (
            float(self.cache.dirty),
            float(len(self.in_flight)),
            float(self.ios_issued),
        )

    def start_window(self, now: float) -> None:
        """Open the measurement window at ``now``: every statistic starts again."""
        self.measuring = True
        self.window_start = now
        self.control.start_window(now)
        if self.control.info.unstable:
            # an open loop that cannot keep up: measure a short window of what it completes
            self.stop_after = float(UNSTABLE_WINDOW)
        for station in self.topology.stations.values():
            station.reset(now)
        for key in self.counters:
            self.counters[key] = 0
        self.commands_before = self.commands_issued
        self.groups.reset()
        self.group_qfull = [[0] * len(q) for q in self.group_qfull]
        for device in self.devices.values():
            device.reset(now)
        self.cache.forced_flushes = 0
        interval = self.run_spec.record_interval
        if interval is not None:
            self.timeseries = TimeSeries(interval, t0=now)
            self.exchanges = TimeSeries(interval, t0=now)
        if self.run_spec.duration is not None:
            self.env.timeout(self.run_spec.duration).callbacks.append(self._end_of_duration)

    def end_of_trace(self) -> None:
        """Every trace replay has issued and completed all its records: the run is over."""
        if not self.stopped:
            self.control.info.stopped_by = "trace"
            self._stop()

    def _end_of_duration(self, _event: simpy.Event) -> None:
        if not self.stopped:
            self.control.info.stopped_by = "duration"
            self._stop()

    def _stop(self) -> None:
        """Trigger :attr:`stop`: the run is over."""
        self.stopped = True
        self.stop.succeed()

    def totals(self) -> dict[str, int]:
        """The whole-run counts of :data:`TOTALS`, by name."""
        return {name: getattr(self, name) for name in TOTALS}

    def finish(self, stopped: bool) -> None:
        """The run is over (``stopped``: by its own rule rather than ``run.max_time``)."""
        if not stopped:
            self.control.info.stopped_by = "max_time"
        if self.measuring:
            self.batches.finish(self.env.now)

    def result(
        self,
        scenario: Scenario,
        seed: int,
        replicate: int,
        settings: list[tuple[float, str, Any]],
        wall_seconds: float,
    ) -> RunResult:
        """The figures of the finished run (``settings``: the schedule's history)."""
        now = self.env.now
        span = now - self.window_start
        n = self.measured
        reads = self.reads
        iops_ci = metric_interval(self.batches, "iops", self.latency, n, span)[2]
        lat_ci = metric_interval(self.batches, "latency_ms_mean", self.latency, n, span)[2]
        cache = self.cache
        stations = tuple(st.summary(now) for st in self.topology.stations.values())
        queues = open_queues(scenario, stations)  # for the run-length check
        warnings, steady = diagnose(
            self.control,
            now,
            self.window_start,
            n,
            CacheLevel(
                cache.capacity, cache.low, cache.high, cache.dirty, cache.dirty_peak, cache.absorbed
            ),
            queues,
        )
        info = self.control.info
        notes = trace_notes(self.run_spec, info.stopped_by, self.control.completed, n)
        warnings = [*notes, *warnings]
        counters = dict(self.counters)
        counters["commands"] = self.commands_issued - self.commands_before
        counters["forced_flushes"] = cache.forced_flushes
        groups = self._group_figures(span)
        devices = self._device_figures(now, span)
        hungry = tuple(starving(devices, self._configured_depths(devices)))
        starved = starvation_warning(hungry)
        return RunResult(
            name=scenario.name,
            seed=seed,
            replicate=replicate,
            ios=n,
            sim_seconds=span,
            iops=n / span if span > 0 else 0.0,
            mb_per_s=(self.bytes_read + self.bytes_written) / span / 1e6 if span > 0 else 0.0,
            read_iops=reads / span if span > 0 else 0.0,
            write_iops=(n - reads) / span if span > 0 else 0.0,
            latency_ms=latency_dict(self.latency),
            read_latency_ms=self.read_latency / reads * 1e3 if reads else math.nan,
            write_latency_ms=(self.write_latency / (n - reads) * 1e3 if n > reads else math.nan),
            command_latency_ms=latency_dict(self.command_latency),
            ci95={
                "iops": (float(iops_ci[0]), float(iops_ci[1])),
                "latency_ms_mean": (float(lat_ci[0]) * 1e3, float(lat_ci[1]) * 1e3),
            },
            counters=counters,
            breakdown_ms={
                layer: (value / n * 1e3 if n else 0.0)
                for layer, value in zip(LAYERS, self.breakdown, strict=True)
            },
            stations=stations,
            wall_seconds=wall_seconds,
            totals=self.totals(),
            lun_mb_per_s={name: lun.mb_per_s for name, lun in groups["luns"].items()},
            warnings=(
                *warnings,
                *tail_warnings(self.latency, self.in_flight.values(), now),
                *((starved,) if starved else ()),
            ),
            steady=steady,
            run_info=self.control.info.to_dict(),
            timeseries=self._columns(now),
            settings=tuple({"t_s": t, "key": k, "value": v} for t, k, v in settings),
            histogram=self.latency,
            groups=groups,
            devices=devices,
            demand=host_demand(scenario),
            starving=hungry,
            victims=self.topology.victims(span),
            notified=self.topology.notified(self.window_start, now),
            recording=self.recorder.recording() if self.recorder is not None else None,
        )

    def _device_figures(self, now: float, span: float) -> tuple[DeviceFigures, ...]:
        """Each host's view of each LUN it used, by host and LUN index, with the host's
        queue depths for the LUN now (after any throttle or schedule changed them)."""
        hosts = self.topology.hosts
        maker = self.topology.routes
        assert maker is not None
        devices, luns = self.devices, self.luns
        return tuple(
            devices[key].figures(now, span, maker.depth(hosts[key // luns], key % luns))
            for key in sorted(devices)
        )

    def _configured_depths(
        self, devices: tuple[DeviceFigures, ...]
    ) -> dict[tuple[str, str], float]:
        """Per host and LUN it used, on the LUNs where a starving host can be (shared by two
        hosts or more, some command refused): its per-LUN queue depth over all its paths, as
        configured (before any throttle lowered it; ``math.inf`` without a limit)."""
        refused = {d.lun for d in devices if d.qfull}
        if not refused:  # most runs (a thousand hosts have tens of thousands of devices)
            return {}
        users: dict[str, int] = {}
        for d in devices:
            users[d.lun] = users.get(d.lun, 0) + 1
        topo = self.topology
        maker = topo.routes
        assert maker is not None
        out: dict[tuple[str, str], float] = {}
        for key in self.devices:
            hi, li = divmod(key, self.luns)
            lun = topo.luns[li].name
            if lun in refused and users[lun] > 1:
                depth = maker.depth(topo.hosts[hi], li, configured=True)
                out[(topo.hosts[hi].name, lun)] = math.inf if depth is None else depth
        return out

    def _group_figures(self, span: float) -> dict[str, dict[str, GroupFigures]]:
        """Per host, host group, workload and LUN: the ``groups`` of the result."""
        groups = self.groups
        qfull = self.group_qfull

        def figures(
            dim: int, name: str, members: list[int], hosts: tuple[str, ...] = ()
        ) -> GroupFigures:
            if len(members) == 1 and not hosts:  # one host, workload or LUN: read at once
                reads, bytes_read, read_sumsq, read = groups.single(dim, members[0], False)
                writes, bytes_written, write_sumsq, write = groups.single(dim, members[0], True)
                return GroupFigures(
                    name=name,
                    span_s=span,
                    reads=reads,
                    writes=writes,
                    bytes_read=bytes_read,
                    bytes_written=bytes_written,
                    qfull=qfull[dim][members[0]],
                    read=read,
                    write=write,
                    read_sumsq=read_sumsq,
                    write_sumsq=write_sumsq,
                )

            reads, bytes_read = groups.totals(dim, members, False)
            writes, bytes_written = groups.totals(dim, members, True)
            return GroupFigures(
                name=name,
                span_s=span,
                reads=reads,
                writes=writes,
                bytes_read=bytes_read,
                bytes_written=bytes_written,
                qfull=sum(qfull[dim][m] for m in members),
                read=groups.histogram(dim, members, (False,)),
                write=groups.histogram(dim, members, (True,)),
                read_sumsq=groups.sum_of_squares(dim, members, False),
                write_sumsq=groups.sum_of_squares(dim, members, True),
                members=hosts,
            )

        topo = self.topology
        active = [h for h in topo.hosts if self.host_issued[h.index]]
        host_groups = {}
        for group, instances in topo.hosts_by_group.items():
            members = [h for h in instances if self.host_issued[h.index]]
            if members:
                names = tuple(h.name for h in members)
                host_groups[group] = figures(0, group, [h.index for h in members], names)
        return {
            "hosts": {h.name: figures(0, h.name, [h.index]) for h in active},
            "host_groups": host_groups,
            "workloads": {
                name: figures(1, name, [i]) for i, name in enumerate(self.workload_names)
            },
            "luns": {lun.name: figures(2, lun.name, [lun.index]) for lun in topo.luns},
        }

    def _columns(self, now: float) -> dict[str, list[float]] | None:
        if self.timeseries is None:
            return None
        series = self.timeseries.to_columns(t_end=now)
        out = {k: [float(x) for x in v] for k, v in series.items()}
        if self.exchanges is not None:
            ex = self.exchanges.to_columns(t_end=now)
            out["exchange_ms_mean"] = [float(x) for x in ex["latency_ms_mean"]]
            out["exchange_ms_p50"] = [float(x) for x in ex["latency_ms_p50"]]
            out["exchange_ms_p99"] = [float(x) for x in ex["latency_ms_p99"]]
            out["exchange_ms_max"] = [float(x) for x in ex["latency_ms_max"]]
        return out
