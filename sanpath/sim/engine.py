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

The front of the trip (1-5) is data: the route's tuple of hops (:mod:`sanpath.sim.hops`,
declared by :func:`sanpath.layout.hops.front_hops`), which :meth:`Simulation.command` walks in
one loop: a gate takes a slot or waits (or refuses: QUEUE FULL, :meth:`Simulation._queue_full`,
and the walk starts again at the route's retry hop), a server serves, a delay waits; each
gate's arrival and slot-taken times are kept in the command's
:class:`~sanpath.sim.hops.Trip`, and at completion the gates give their slots back in reverse
(:meth:`Simulation._complete`). The back end is explicit: the write's data
(:meth:`Simulation._write_data`, 6) and the read (7). The walk and the read are written out in
one generator: every step that can wait in a method of its own
would be a generator level each wake-up of the command passes through. The links a transfer
crosses are built by the topology (:class:`~sanpath.sim.components.host.Leg`); a transfer
over them is :meth:`~sanpath.sim.transfer.Transfers.move`.

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
from sanpath.sim.hops import Delay, Gate, Server, Trip
from sanpath.sim.kernel import Kernel
from sanpath.sim.load import Command, Load
from sanpath.sim.measure import Measurement
from sanpath.sim.precondition import Preconditioner
from sanpath.sim.record import Recorder
from sanpath.sim.schedule import Schedule
from sanpath.sim.station import CACHE, DRIVE, FABRIC, LUN_QUEUE
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
        self.transfers = Transfers(
            self.env, fabric.frame_timeout or 0.0, fabric.error_detect, fabric.fence_after or 0
        )
        """Data crossing the links of a route (:mod:`sanpath.sim.transfer`)."""
        cache = scenario.array.cache
        self.hit_time = cache.hit_time
        self.write_time = cache.hit_time if cache.write_time is None else cache.write_time
        self.controllers = self.topology.controllers
        self.qfull_time = scenario.array.qfull_time
        self.cache = self.topology.cache
        self.run_spec = scenario.run
        self.preconditioner = Preconditioner(scenario, self.topology, self.streams)
        self.measure = Measurement(self.env, scenario, self.topology, self.preconditioner.settle)
        """The run's statistics, its measurement window and when it stops."""
        if scenario.run.animate is not None:  # the animation's window (sanpath.sim.record)
            self.measure.recorder = Recorder(
                self.env, scenario, self.topology, scenario.run.animate, self.measure
            )
        self.load = Load(
            self.env, scenario, self.topology, self.streams, self.io, self.measure.end_of_trace
        )
        """The load generators (closed, open and copy loops)."""
        self.schedule = Schedule(self.env, scenario, self.topology, self.load)
        """Scheduled changes, and the history of the settings they changed."""

    # -- the path ---------------------------------------------------------------------------

    def command(
        self, cmd: Command, fork: ChildJoin | None = None
    ) -> Generator[simpy.Event, Any, float]:
        """One command's trip through the path (see the module docstring).

        ``fork`` is the fork-join of a split I/O the command is part of; without one the
        command is a whole application I/O, and counts the I/O's issue and completion
        itself (one process level less than wrapping it). Returns the completion time (s).
        """
        env, measure, host, layers = self.env, self.measure, cmd.host, cmd.layers
        lun, size = cmd.lun, cmd.size
        now = env._now  # the attribute, not the property: read on every step of the trip
        key = measure.issue(now, size, host.index) if fork is None else -1
        t_issue = now
        route = host.select(lun.index, size)
        cmd.device.begin(now)
        measure.commands_issued += 1
        # 1.-5. the front, hop by hop (sanpath.sim.hops); after QUEUE FULL again from the
        # route's retry hop. The trip keeps each gate's times and the layers' charges.
        hops, retry_at, n = route.hops, route.retry_at, len(route.hops)
        trip = Trip(layers)
        t_sent = now
        reached = False  # the command has reached its HBA port (the retry hop) once
        i = 0
        while i < n:
            hop = hops[i]
            trip.enter(hop.layer, now)
            if i == retry_at and not reached:  # its bytes count as in flight on the port
                route.hba_port.bytes_in_flight += size
                reached = True
            if isinstance(hop, Gate):
                if hop.refuses:
                    if not hop.pool.try_acquire(now):
                        measure.counters[hop.refused] += 1
                        yield from self._queue_full(cmd, route, i, trip, t_sent)
                        now = env._now
                        trip.restart()
                        i = retry_at
                        continue
                    trip.got(hop.slot, now, now)
                else:
                    t = now
                    pools = hop.pools  # NVMe: the issuing processor's I/O queue
                    slots = hop.pool if pools is None else pools[cmd.queue]
                    ev = slots.acquire(now)
                    if ev is not None:
                        yield ev
                        now = env._now
                    trip.got(hop.slot, t, now)
            elif isinstance(hop, Server):
                t = now
                service = hop.write_service() if cmd.write else hop.service()
                start, done = hop.server.reserve(now, service)
                arrive = done + hop.flight
                if arrive > now:
                    yield env.sleep(arrive - now)
                    now = env._now
                hop.server.station.depart(now, t, start, done)
                trip.served(t, done)
                if hop.sends:  # the command frame leaves the HBA: an exchange begins
                    t_sent = done
                    layers[hop.flight_layer] += arrive - done
            elif isinstance(hop, Delay):
                spent = hop.duration()
                if spent > 0:
                    yield env.sleep(spent)
                    now = env._now
                    trip.charge += spent
            i += 1
        trip.finish()
        if cmd.write:
            now = yield from self._write_data(cmd, route, trip)  # 6.
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
            for gate in route.back_end:  # the LUN queue, held since admission
                gate.pool.release(now, trip.arrived(gate.slot), trip.started(gate.slot))
            now = yield from self.transfers.move(
                layers, route.read_legs, size, now, route.wire, cmd.host.index
            )
        self._complete(cmd, route, trip, t_sent, now, fork, key, t_issue)  # 8.
        return now

    def _complete(
        self,
        cmd: Command,
        route: Route,
        trip: Trip,
        t_sent: float,
        now: float,
        fork: ChildJoin | None,
        key: int,
        t_issue: float,
    ) -> None:
        """8. Every slot given back (``trip``: each gate's arrival and slot-taken times), the
        throttle told, the command counted (its exchange began at ``t_sent``), a split I/O
        joined (``fork``) or a whole I/O (issued at ``t_issue`` as ``key``) completed."""
        measure, layers, size = self.measure, cmd.layers, cmd.size
        queue = cmd.queue
        for gate in route.releases:
            pools = gate.pools
            pool = gate.pool if pools is None else pools[queue]
            pool.release(now, trip.arrived(gate.slot), trip.started(gate.slot))
        route.hba_port.bytes_in_flight -= size
        if route.throttle is not None:
            route.throttle.on_good(now)
        measure.commands_completed += 1
        measure.command_bytes_completed += size
        latency = sum(layers)
        association = route.association
        if association is not None:  # NVMe: no longer outstanding on the controller
            association.completed(size, latency)
        measuring = measure.measuring
        cmd.device.end(now, cmd.write, size, latency, layers, measuring)
        if measuring:
            measure.command_latency.record(latency)
            if measure.exchanges is not None:
                # What a switch probe sees: from the command frame leaving the HBA to the
                # status coming back (host queue and HBA slot waits excluded).
                measure.exchanges.add(now, now - t_sent, size)
        if fork is None:
            measure.complete(
                now, key, t_issue, cmd.host, cmd.lun, cmd.workload, size, cmd.write, layers
            )
        else:
            fork.remaining -= 1
            if fork.remaining == 0:
                fork.last_layers = layers
                if fork.event is not None:
                    fork.event.succeed()

    def _work(self, route: Route, now: float) -> Generator[simpy.Event, Any, float]:
        """The host's own work on a QUEUE FULL status: the route's servers and delays before
        its retry hop (the host's processors, its I/O stack), counted to no layer."""
        env = self.env
        hops = route.hops
        for i in range(route.retry_at):
            hop = hops[i]
            if isinstance(hop, Server):
                t = now
                start, done = hop.server.reserve(now, hop.service())
                if done > now:
                    yield env.sleep(done - now)
                    now = env._now
                hop.server.station.depart(now, t, start, done)
            elif isinstance(hop, Delay):
                spent = hop.duration()
                if spent > 0:
                    yield env.sleep(spent)
                    now = env._now
        return now

    def _queue_full(
        self, cmd: Command, route: Route, refused: int, trip: Trip, t_sent: float
    ) -> Proc:
        """QUEUE FULL from the gate ``route.hops[refused]``: the refusing gates the command
        passed in this attempt give their slots back at once; then ``array.qfull_time`` of
        the controller (waiting for a core like any command), the status back, the gates
        that made it wait in this attempt (the HBA slot) freed, the throttle told; the host
        handles the status (:meth:`_work`) and retries after ``retry_delay``, competing anew
        with every other arrival. The time counts to the refusing gate's layer. To a switch
        probe the refused command is an exchange of its own, from ``t_sent`` (its frame left
        the HBA) to the status; the retry is a new exchange. ``trip`` holds each gate's
        arrival and slot-taken times."""
        env = self.env
        measure = self.measure
        hops = route.hops
        t = env._now
        attempt = range(refused - 1, route.retry_at - 1, -1)  # this attempt's gates, backwards
        for j in attempt:
            gate = hops[j]
            if isinstance(gate, Gate) and gate.refuses:
                gate.pool.release(t, trip.arrived(gate.slot), trip.started(gate.slot))
        measure.counters["qfull"] += 1
        measure.count_qfull(cmd.host.index, cmd.workload, cmd.lun.index)
        cmd.device.qfull += 1
        if measure.timeseries is not None:
            measure.timeseries.add_qfull(t)
        if self.qfull_time > 0.0:  # the refusing port's controller
            controllers = self.controllers
            controller = controllers[route.array_port.controller % len(controllers)]
            start, done = controller.reserve(t, self.qfull_time)
            yield env.sleep(done - t)
            controller.station.depart(env._now, t, start, done)
        yield env.sleep(route.one_way)
        now = env._now
        if measure.exchanges is not None:
            measure.exchanges.add(now, now - t_sent, 0)
        for j in attempt:
            gate = hops[j]
            if isinstance(gate, Gate) and not gate.refuses:
                gate.pool_of(cmd.queue).release(
                    now, trip.arrived(gate.slot), trip.started(gate.slot)
                )
        self.topology.on_qfull(cmd.host, cmd.lun.index, route, now)  # the throttle told
        yield from self._work(route, now)
        yield env.sleep(cmd.host.retry_delay)
        measure.counters["retries"] += 1
        cmd.layers[hops[refused].layer] += env._now - t

    def _write_data(
        self, cmd: Command, route: Route, trip: Trip
    ) -> Generator[simpy.Event, Any, float]:
        """6. XFER_RDY back to the host, the data to the array, then write-back cache or
        RAID (write-aside); the back end's gates (the LUN queue, held since admission, its
        times in ``trip``) are given back and the status returns."""
        env = self.env
        layers = cmd.layers
        lun, size = cmd.lun, cmd.size
        one_way = route.one_way
        if one_way > 0:
            yield env.sleep(one_way)
            layers[FABRIC] += one_way
        now = t = yield from self.transfers.move(
            layers, route.write_legs, size, env._now, route.wire, cmd.host.index
        )
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
        for gate in route.back_end:
            gate.pool.release(now, trip.arrived(gate.slot), trip.started(gate.slot))
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
        draw = host.queue_draw
        if draw is not None:  # NVMe: the I/O queue of the processor that issues it
            cmd.queue = draw()
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
            child.queue = cmd.queue  # split on the processor that issued the I/O
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
