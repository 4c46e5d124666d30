"""The engine: runs one scenario in SimPy and returns a :class:`~sanpath.results.RunResult`.

Simulated time is in seconds. The model is in :meth:`Simulation.command`, which reads like
the path a SCSI command takes:

1. the host picks a path (multipath policy), waits for a slot in its per-LUN queue and
   spends its own time on the command (``cpu_time`` on one of ``cpus`` processors, then
   ``io_time``);
2. the HBA gives it a command slot (per LUN or per target) and spends ``command_time`` on
   the processor of its card or of its port (``processor``);
3. the command frame crosses the fabric to the array port;
4. the front end admits it into the port's shared queue and the LUN's queue, or answers
   QUEUE FULL (``qfull_time`` of the controller); the host then frees the HBA slot, handles
   the status, waits ``retry_delay`` in its place in the host queue and tries again, its
   throttle perhaps lowering its queue depth;
5. the controller spends ``io_time`` on it (``cores`` servers);
6. writes: the array asks for the data (XFER_RDY) and the data crosses PCIe, the host link,
   the fabric and the array link; then it lands in write-back cache or goes through RAID;
7. reads: the cache serves it (hit or read-ahead) or RAID reads the member drives; then the
   data crosses the array link, the fabric, the host link and PCIe back to memory;
8. the status returns and every slot is given back.

An application I/O larger than the host's split limit becomes several commands that run in
parallel; it completes when the last one does (fork-join).

The steps every command takes (1-5, 7 and 8) are written out in :meth:`Simulation.command`:
every step that can wait in a method of its own would be a generator level each wake-up of
the command passes through, and every call costs the pure-Python core more than the few
statements it runs. The others are named methods: a host's processors, when modelled
(:meth:`Simulation._host_work`), QUEUE FULL and its retry (:meth:`Simulation._queue_full`)
and the write's data (:meth:`Simulation._write_data`, 6). The links a transfer crosses are
built by the topology (:class:`~sanpath.sim.components.host.Leg`); a transfer over them is
:meth:`~sanpath.sim.transfer.Transfers.move`.

The load generators live in :mod:`sanpath.sim.load`, scheduled changes in
:mod:`sanpath.sim.schedule`, turning the counters into a result in :mod:`sanpath.sim.measure`.
The engine keeps streaming statistics (a latency histogram, batch means, per-station
accumulators) and prints nothing. It runs in :class:`~sanpath.sim.kernel.Kernel`, SimPy's
environment with the per-event cost taken out (same event order, same numbers).
"""

from __future__ import annotations

import time
from collections.abc import Generator
from dataclasses import replace
from typing import Any

import simpy

from sanpath.layout.wiring import split_sizes
from sanpath.results import RunResult
from sanpath.sim.collector import few_collections
from sanpath.sim.components.array import Lun
from sanpath.sim.components.host import HostInstance, Route
from sanpath.sim.forkjoin import ChildJoin, Signal
from sanpath.sim.kernel import Kernel
from sanpath.sim.load import Command, Load
from sanpath.sim.measure import Measurement
from sanpath.sim.precondition import Preconditioner
from sanpath.sim.schedule import Schedule
from sanpath.sim.station import (
    ARRAY_PORT,
    CACHE,
    CONTROLLER,
    DRIVE,
    FABRIC,
    HBA,
    HOST,
    HOST_QUEUE,
    LUN_QUEUE,
)
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology, build_topology
from sanpath.sim.transfer import Transfers
from sanpath.spec import Scenario

Proc = Generator[simpy.Event, Any, Any]


class Simulation:
    """One run of one scenario (``seed``, ``replicate``)."""

    def __init__(self, scenario: Scenario, seed: int | None = None, replicate: int = 0) -> None:
        self.scenario = scenario
        self.seed = scenario.seed if seed is None else seed
        self.replicate = replicate
        self.env = Kernel()
        self.streams = Streams(self.seed, replicate)
        self.topology: Topology = build_topology(self.env, scenario, self.streams)
        fabric = scenario.fabric
        self.one_way = fabric.one_way_latency
        self.transfers = Transfers(self.env, fabric.frame_payload, fabric.frame_overhead)
        """Data crossing the links of a route (:mod:`sanpath.sim.transfer`)."""
        cache = scenario.array.cache
        self.hit_time = cache.hit_time
        self.write_time = cache.hit_time if cache.write_time is None else cache.write_time
        self.controller = self.topology.controller
        self.qfull_time = scenario.array.qfull_time
        cross = scenario.array.cross_controller
        self.cross_time = cross.time if cross is not None else 0.0
        self.cross_link = self.topology.cross_link
        self.controller_link = self.topology.controller_link
        self.controller_time = self.topology.controller_time
        self.controller_write_time = self.topology.controller_write_time
        self.cache = self.topology.cache
        self.run_spec = scenario.run
        self.preconditioner = Preconditioner(scenario, self.topology, self.streams)
        self.measure = Measurement(self.env, scenario, self.topology, self.preconditioner.settle)
        """The run's statistics, its measurement window and when it stops."""
        self.load = Load(
            self.env, scenario, self.topology, self.streams, self.io, self.measure.end_of_trace
        )
        """The load generators (closed, open and copy loops)."""
        self.schedule = Schedule(self.env, scenario, self.topology, self.load)
        """Scheduled changes, and the history of the settings they changed."""

    # -- the path ---------------------------------------------------------------------------

    def wire_bytes(self, nbytes: int) -> int:
        """Bytes on an FC link for ``nbytes`` of data plus the status frame."""
        return self.transfers.wire_bytes(nbytes)

    def command(
        self, cmd: Command, fork: ChildJoin | None = None
    ) -> Generator[simpy.Event, Any, float]:
        """One command's trip through the path (see the module docstring).

        ``fork`` is the fork-join of a split I/O the command is part of; without one the
        command is a whole application I/O, and counts the I/O's issue and completion
        itself (one process level less than wrapping it). Returns the completion time (s).

        The steps every command takes are written out here rather than called: each wake-up
        of the command passes through every generator level it is in, and each call costs
        the pure-Python core more than the statements it runs.
        """
        env, measure, host, layers = self.env, self.measure, cmd.host, cmd.layers
        lun, size = cmd.lun, cmd.size
        now = env._now  # the attribute, not the property: read on every step of the trip
        key = measure.issue(now, size, host.index) if fork is None else -1
        t_issue = now
        route = host.select(lun.index, size)
        cmd.device.begin(now)
        measure.commands_issued += 1
        # 1. the host's per-LUN (per path) queue, then its own I/O stack (driver, interrupt
        # and completion work) while the command holds its queue slot
        t_host = now
        ev = route.host_queue.acquire(now)
        if ev is not None:
            yield ev
            now = env._now
        t_host_start = now
        layers[HOST_QUEUE] += now - t_host
        if host.cpu is None:
            # _host_work without processors, written out: most hosts, and no process level
            host_time = host.io_time()
            if host_time > 0:
                yield env.sleep(host_time)
                now = env._now
                layers[HOST] += host_time
        else:
            now, spent = yield from self._host_work(host, now)
            layers[HOST] += spent
        hba_port = route.hba_port
        hba_port.bytes_in_flight += size
        hba_slots, hba_cpu, port = route.hba_slots, hba_port.cpu, route.array_port
        controller, one_way = self.controller, self.one_way
        while True:
            # 2. HBA command slot and processing; 3. command frame to the array
            t_slot = now
            ev = hba_slots.acquire(now)
            if ev is not None:
                yield ev
                now = env._now
            t_slot_start = now
            start, done = hba_cpu.reserve(now, hba_port.command_time())
            arrive = done + one_way
            if arrive > now:
                yield env.sleep(arrive - now)
                now = env._now
            hba_cpu.station.depart(now, t_slot_start, start, done)
            t_sent = done  # the command frame leaves the HBA: an exchange begins
            layers[HBA] += done - t_slot
            layers[FABRIC] += arrive - done
            # 4. the front end admits the command into the port's and the LUN's queues, or
            # answers QUEUE FULL and the host tries again
            t_port = now
            if not port.queue.try_acquire(now):
                measure.counters["port_qfull"] += 1
                yield from self._queue_full(cmd, route, ARRAY_PORT, t_sent, t_slot, t_slot_start)
                now = env._now
                continue
            if not lun.queue.try_acquire(now):
                port.queue.release(now, t_port, t_port)
                measure.counters["lun_qfull"] += 1
                yield from self._queue_full(cmd, route, LUN_QUEUE, t_sent, t_slot, t_slot_start)
                now = env._now
                continue
            break
        # 5. controller
        start, done = controller.reserve(
            now, self.controller_write_time() if cmd.write else self.controller_time()
        )
        if done > now:
            yield env.sleep(done - now)
            now = env._now
        controller.station.depart(now, t_port, start, done)
        layers[CONTROLLER] += done - t_port
        if self.cross_time > 0.0 and port.controller != lun.owner:
            yield env.sleep(self.cross_time)
            now = env._now
            layers[CONTROLLER] += self.cross_time
        if cmd.write:
            now = yield from self._write_data(cmd, route, t_port)  # 6.
        else:
            # 7. the cache serves the read (a hit or read-ahead) or RAID reads the member
            # drives; the LUN queue slot is given back and the data crosses back to the host
            t = now
            readahead = lun.readahead
            events = readahead.lookup(cmd.offset, size) if readahead is not None else None
            if events is not None:
                measure.counters["read_ahead_hits"] += 1
                for ev in events:
                    if not ev.processed:
                        yield ev
                if self.hit_time > 0:
                    yield env.sleep(self.hit_time)
                now = env._now
                layers[CACHE] += now - t
            elif (hit := lun.read_hits[cmd.workload]) > 0.0 and lun.hit() < hit:
                measure.counters["cache_hits"] += 1
                if self.hit_time > 0:
                    yield env.sleep(self.hit_time)
                    now = env._now
                layers[CACHE] += now - t
            elif (pool := lun.pool).known and (
                served := pool.read_known(lun.base + cmd.offset, size, now)
            ) is not None:
                # one element on a drive that knows when it is done (no join, no array-queue
                # wait): a wake-up then, in the place a join's event takes among the events
                station, start, done = served
                yield env.sleep(done - now)
                now = env._now
                station.depart(now, t, start, done)
                layers[DRIVE] += now - t
            else:
                join = pool.start_read(lun.base + cmd.offset, size, now)
                yield join.event  # type: ignore[misc]  # the kernel's event (join.waited(), uncalled)
                now = env._now
                join.settle(now)
                wait = join.queue_wait
                layers[LUN_QUEUE] += wait
                layers[DRIVE] += now - t - wait
            lun.queue.release(now, t_port, t_port)  # held since admission
            now = yield from self.transfers.move(layers, route.read_legs, size, now)
        # 8. every slot given back, the throttle told, the command counted, a split I/O joined
        port.queue.release(now, t_port, t_port)
        hba_slots.release(now, t_slot, t_slot_start)
        route.host_queue.release(now, t_host, t_host_start)
        hba_port.bytes_in_flight -= size
        if route.throttle is not None:
            route.throttle.on_good(now)
        measure.commands_completed += 1
        measure.command_bytes_completed += size
        latency = sum(layers)
        measuring = measure.measuring
        cmd.device.end(now, cmd.write, size, latency, layers, measuring)
        if measuring:
            measure.command_latency.record(latency)
            if measure.exchanges is not None:
                # What a switch probe sees: from the command frame leaving the HBA to the
                # status coming back (host queue and HBA slot waits excluded).
                measure.exchanges.add(now, now - t_sent, size)
        if fork is None:
            measure.complete(now, key, t_issue, host, lun, cmd.workload, size, cmd.write, layers)
        else:
            fork.remaining -= 1
            if fork.remaining == 0:
                fork.last_layers = layers
                if fork.event is not None:
                    fork.event.succeed()
        return now

    def _host_work(
        self, host: HostInstance, now: float
    ) -> Generator[simpy.Event, Any, tuple[float, float]]:
        """The host's own work on a command (or on a QUEUE FULL): ``cpu_time`` on one of its
        processors when modelled, then ``io_time``; (the time it is done, the seconds taken)."""
        env, t0, spent, cpu = self.env, now, 0.0, host.cpu
        if cpu is not None:
            start, done = cpu.reserve(now, host.cpu_time())
            if done > now:
                yield env.sleep(done - now)
                now = env._now
            cpu.station.depart(now, t0, start, done)
            spent = done - t0
        host_time = host.io_time()
        if host_time > 0:
            yield env.sleep(host_time)
            now = env._now
            spent += host_time
        return now, spent

    def _queue_full(
        self,
        cmd: Command,
        route: Route,
        layer: int,
        t_sent: float,
        t_slot: float,
        t_slot_start: float,
    ) -> Proc:
        """QUEUE FULL: ``array.qfull_time`` of the controller (waiting for a core like any
        command), the status back, the HBA slot freed, the throttle told; the host handles
        the status (:meth:`_host_work`) and retries after ``retry_delay``, competing anew
        with every other arrival. The time counts to ``layer`` (the queue that refused). To
        a switch probe the refused command is an exchange of its own, from ``t_sent`` (its
        frame left the HBA) to the status; the retry is a new exchange. The command asked
        for its HBA slot at ``t_slot`` and got it at ``t_slot_start``."""
        env = self.env
        measure = self.measure
        t = env._now
        measure.counters["qfull"] += 1
        measure.count_qfull(cmd.host.index, cmd.workload, cmd.lun.index)
        cmd.device.qfull += 1
        if measure.timeseries is not None:
            measure.timeseries.add_qfull(t)
        if self.qfull_time > 0.0:
            start, done = self.controller.reserve(t, self.qfull_time)
            yield env.sleep(done - t)
            self.controller.station.depart(env._now, t, start, done)
        yield env.sleep(self.one_way)
        now = env._now
        if measure.exchanges is not None:
            measure.exchanges.add(now, now - t_sent, 0)
        route.hba_slots.release(now, t_slot, t_slot_start)
        self.topology.on_qfull(cmd.host, cmd.lun.index, route, now)  # the throttle told
        yield from self._host_work(cmd.host, now)
        yield env.sleep(cmd.host.retry_delay)
        measure.counters["retries"] += 1
        cmd.layers[layer] += env._now - t

    def _write_data(
        self, cmd: Command, route: Route, t_port: float
    ) -> Generator[simpy.Event, Any, float]:
        """6. XFER_RDY back to the host, the data to the array, then write-back cache or
        RAID (write-aside); the LUN queue slot (held since ``t_port``) is given back and the
        status returns."""
        env = self.env
        layers = cmd.layers
        lun, size = cmd.lun, cmd.size
        one_way = self.one_way
        if one_way > 0:
            yield env.sleep(one_way)
            layers[FABRIC] += one_way
        now = t = yield from self.transfers.move(layers, route.write_legs, size, env._now)
        if self.cache.absorbs(size):
            self.measure.counters["cached_writes"] += 1
            hit = lun.write_hit
            if hit > 0.0 and (hit >= 1.0 or lun.write_hit_draw() < hit):
                self.measure.counters["write_hits"] += (
                    1  # overwrites dirty data: no room, no destage
                )
            else:
                ev = self.cache.reserve(lun, cmd.offset, size)
                if ev is not None:
                    yield ev
            if self.write_time > 0:
                yield env.sleep(self.write_time)
            now = env._now
            layers[CACHE] += now - t
        else:
            self.measure.counters["write_aside"] += 1
            wait = yield from lun.pool.write(lun.base + cmd.offset, size)
            now = env._now
            layers[LUN_QUEUE] += wait
            layers[DRIVE] += now - t - wait
        lun.queue.release(now, t_port, t_port)  # held since admission
        if one_way > 0:
            yield env.sleep(one_way)
            now = env._now
            layers[FABRIC] += one_way
        return now

    # -- application I/Os -------------------------------------------------------------------

    def io(
        self, host: HostInstance, lun: Lun, offset: int, size: int, write: bool, workload: int
    ) -> Proc:
        """The process of one application I/O of workload number ``workload``: one command
        (:meth:`command`), or several when larger than the host's limit (:meth:`_split_io`)."""
        cmd = Command(host, lun, offset, size, write, workload, self.measure.device(host, lun))
        limit = host.split_limit
        if limit is None or size <= limit:
            return self.command(cmd)
        return self._split_io(cmd, limit)

    def _split_io(self, cmd: Command, limit: int) -> Proc:
        """An application I/O (``cmd``) larger than ``limit``, split (:meth:`_split`)."""
        measure = self.measure
        t_issue = self.env._now
        size = cmd.size
        key = measure.issue(t_issue, size, cmd.host.index)
        layers = yield from self._split(cmd, limit)
        measure.complete(
            self.env._now, key, t_issue, cmd.host, cmd.lun, cmd.workload, size, cmd.write, layers
        )

    def _split(self, cmd: Command, limit: int) -> Generator[simpy.Event, Any, list[float]]:
        """Run the commands an I/O (``cmd``) larger than ``limit`` becomes, in parallel
        (fork-join); ``cmd`` itself becomes the first of them.

        Returns the latency breakdown of the command that finished last.
        """
        env = self.env
        sizes = split_sizes(cmd.size, limit)
        counters = self.measure.counters
        counters["split_ios"] += 1
        counters["split_children"] += len(sizes)
        join = ChildJoin(len(sizes))
        # The first command runs in this process, the others in their own; they start in
        # order, each as soon as the one before it first waits.
        position = cmd.offset + sizes[0]
        for part in sizes[1:]:
            child = Command(cmd.host, cmd.lun, position, part, cmd.write, cmd.workload, cmd.device)
            env.process(self.command(child, join))
            position += part
        cmd.size = sizes[0]
        yield from self.command(cmd, join)
        if join.remaining:
            event = join.event = Signal(env)
            yield event.waited()
        return join.last_layers

    # -- running ------------------------------------------------------------------------------

    def run(self) -> RunResult:
        """Simulate until the run's stopping rule is met; return the result."""
        wall0 = time.perf_counter()
        measure = self.measure
        if measure.measuring:
            measure.start_window(0.0)
        self.schedule.start()
        self.preconditioner.start(0.0)
        self.load.start()
        until: simpy.Event = measure.stop
        if self.run_spec.max_time is not None:
            limit = self.env.timeout(self.run_spec.max_time)
            until = self.env.any_of([measure.stop, limit])
        with few_collections():  # a growing topology: see sanpath.sim.collector
            self.env.run(until=until)
            measure.finish(stopped=measure.stop.triggered)
            wall = time.perf_counter() - wall0
            settings = self.schedule.settings
            result = measure.result(self.scenario, self.seed, self.replicate, settings, wall)
        if self.load.traces.replays:
            traces, notes = self.load.traces.report([w.name for w in self.scenario.workloads])
            result = replace(result, warnings=(*result.warnings, *notes)).with_extra(trace=traces)
        return result
