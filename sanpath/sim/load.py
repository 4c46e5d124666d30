"""Workloads: what the application asks for, one I/O at a time.

Each workload thread on a host draws its I/Os to a LUN from an :class:`IoSource`
(:mod:`sanpath.sim.sources`: sizes, directions and offsets).

A :class:`CopyJob` is the write side of a copy workload (``copy_to``): the buffers it may
use and the sequential files it writes to.

A :class:`Command` is what travels the path: an application I/O, or one child of an I/O
that the host split because it exceeded ``min(max_io_size, max_transfer)``.

:class:`Load` runs the generators: closed loops (``outstanding`` I/Os per LUN and thread,
each issuing the next when the last completes), open loops (Poisson arrivals at ``rate``
per host) and copy jobs (read into a buffer, write it out), on every host a workload names.
"""

from __future__ import annotations

from collections.abc import Callable, Generator
from typing import Any

import simpy

from sanpath.results import LAYERS
from sanpath.sim.components.array import Lun
from sanpath.sim.components.host import HostInstance
from sanpath.sim.devices import DeviceCounter
from sanpath.sim.kernel import Kernel
from sanpath.sim.knobs import slot_servers
from sanpath.sim.replay import TraceLoad
from sanpath.sim.sources import IoSource, SourceShape, make_source
from sanpath.sim.station import SlotPool, Station
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology
from sanpath.spec import CopySpec, Scenario, WorkloadSpec

Proc = Generator[simpy.Event, Any, Any]

N_LAYERS = len(LAYERS)
"""The number of latency-breakdown layers."""

IoProcess = Callable[[HostInstance, Lun, int, int, bool, int], Proc]
"""Runs one application I/O: (host, LUN, offset in bytes, size in bytes, is a write)."""


class Command:
    """One SCSI command on its way through the path.

    ``layers`` accumulates the seconds spent in each latency-breakdown layer
    (see :data:`sanpath.results.LAYERS`); they add up to the command's latency.
    """

    __slots__ = ("device", "host", "layers", "lun", "offset", "queue", "size", "workload", "write")

    def __init__(
        self,
        host: HostInstance,
        lun: Lun,
        offset: int,
        size: int,
        write: bool,
        workload: int,
        device: DeviceCounter,
    ) -> None:
        self.host = host
        self.workload = workload
        """Index of the workload that issued the command."""
        self.device = device
        """The host's view of the LUN, where host tools' figures are counted."""
        self.lun = lun
        self.offset = offset
        self.size = size
        self.write = write
        self.layers = [0.0] * N_LAYERS
        self.queue = 0
        """The NVMe I/O queue of the processor that issued it (0 for SCSI transports)."""


class CopyFile:
    """One sequential output stream of a copy job: a region of a LUN, written in order.

    ``writes`` holds the file's write slots (``copy_to.depth``); ``writer`` is its writer
    thread (one slot), or None when ``copy_to.writer_time`` is not set.
    """

    __slots__ = ("lun", "position", "region", "start", "writer", "writes")

    def __init__(
        self, lun: Lun, start: int, region: int, writes: SlotPool, writer: SlotPool | None
    ) -> None:
        self.writes = writes
        self.writer = writer
        self.lun = lun
        self.start = start
        self.region = region
        self.position = start


class CopyJob:
    """Where a copy workload on one host writes what it read, and its buffer pool.

    ``files`` sequential streams are spread over the target LUNs in turn (file ``f`` on LUN
    ``f mod n``, each in its own equal region of that LUN); writes take the files round
    robin, each continuing where that file left off (wrapping at the end of its region).
    Regions start on multiples of ``align`` bytes (the largest I/O of the workload), as a
    file system lays out large files in aligned runs: a file that started mid-stripe would
    turn every full-stripe write into read-modify-writes.
    """

    __slots__ = ("_next", "buffers", "files", "ratio", "writer_time")

    def __init__(
        self,
        env: simpy.Environment,
        spec: CopySpec,
        luns: list[Lun],
        buffers: Station,
        writes: Station,
        writers: Station | None = None,
        writer_time: Callable[[], float] | None = None,
        align: int = 1,
    ) -> None:
        """``buffers``, ``writes`` and ``writers``: the stations of the buffer pool, the file
        slots and the files' writer threads; ``writer_time`` draws a writer's time per
        buffer (s). The last two are None without ``copy_to.writer_time``."""
        self.buffers = SlotPool(env, spec.buffers, buffers)
        self.ratio = spec.ratio
        self.writer_time = writer_time
        n = len(luns)
        per_lun = [len(range(i, spec.files, n)) for i in range(n)]
        self.files = []
        for f in range(spec.files):
            lun = luns[f % n]
            region = lun.size // per_lun[f % n] // align * align
            file_writes = SlotPool(env, spec.depth, writes)
            writer = None if writers is None else SlotPool(env, 1, writers)
            self.files.append(CopyFile(lun, (f // n) * region, region, file_writes, writer))
        self._next = 0

    def next_file(self) -> CopyFile:
        """The file the next full buffer goes to (files in turn)."""
        file = self.files[self._next]
        self._next = (self._next + 1) % len(self.files)
        return file

    def write_of(self, file: CopyFile, read_size: int) -> tuple[int, int]:
        """(offset, size) in bytes of the write to ``file`` that empties a buffer."""
        size = max(512, -(-int(read_size * self.ratio) // 512) * 512)
        offset = file.position
        if offset + size > file.start + file.region:
            offset = file.start
        file.position = offset + size
        return offset, size


class Load:
    """The load generators of one run: every workload on every host it names.

    ``io`` runs one application I/O (the engine's). ``outstanding`` and ``rates`` hold each
    workload's current closed-loop depth per LUN and open-loop rate (I/Os per second per
    host); a schedule changes them with :meth:`set_outstanding` and :meth:`set_rate`.
    """

    def __init__(
        self,
        env: Kernel,
        scenario: Scenario,
        topology: Topology,
        streams: Streams,
        io: IoProcess,
        end_of_trace: Callable[[], None] | None = None,
    ) -> None:
        self.env = env
        self.scenario = scenario
        self.topology = topology
        self.streams = streams
        self.io = io
        self.outstanding = [w.outstanding_per_lun for w in scenario.workloads]
        self.rates = [w.rate for w in scenario.workloads]
        self.copy_jobs: dict[tuple[int, str], CopyJob] = {}
        self.closed_sources: list[list[tuple[HostInstance, Lun, IoSource]]] = [
            [] for _ in scenario.workloads
        ]
        self.traces = TraceLoad(env, topology.luns_by_group, io, end_of_trace)
        """Trace replays (:mod:`sanpath.sim.replay`); ``end_of_trace`` when all are over."""
        self._shapes: dict[tuple[int, int], SourceShape] = {}

    def shape(self, wi: int, lun_size: int) -> SourceShape:
        """What every source of workload ``wi`` on a LUN of ``lun_size`` bytes shares."""
        key = (wi, lun_size)
        shape = self._shapes.get(key)
        if shape is None:
            shape = self._shapes[key] = SourceShape(self.scenario.workloads[wi], lun_size)
        return shape

    def start(self) -> None:
        """Start every workload process on every host it names."""
        topo = self.topology
        for wi, wspec in enumerate(self.scenario.workloads):
            hosts = (
                topo.hosts
                if wspec.hosts == "all"
                else [h for g in wspec.hosts for h in topo.hosts_by_group[g]]
            )
            groups = list(topo.luns_by_group) if wspec.luns == "all" else list(wspec.luns)
            luns = [lun for g in groups for lun in topo.luns_by_group[g]]
            for host in hosts:
                self._start_host(wi, wspec, host, luns)

    def set_outstanding(self, wi: int, value: int) -> None:
        """Change workload ``wi``'s closed-loop depth per LUN now (new slots start at once;
        slots above the new depth stop after their current I/O)."""
        old = self.outstanding[wi]
        self.outstanding[wi] = value
        self.traces.set_outstanding(wi, value)
        copy = self.scenario.workloads[wi].copy_to is not None
        loop = self._copy_loop if copy else self._closed_loop
        for host, lun, source in self.closed_sources[wi]:
            for slot in range(old, value):
                self.env.process(loop(host, lun, source, wi, slot))

    def set_rate(self, wi: int, value: float) -> None:
        """Change open-loop workload ``wi``'s rate (I/Os per second per host) from now on."""
        if self.rates[wi] is not None:
            self.rates[wi] = value

    def _start_host(
        self, wi: int, wspec: WorkloadSpec, host: HostInstance, luns: list[Lun]
    ) -> None:
        if wspec.trace is not None:
            return self.traces.start(wi, wspec, host, luns)
        name = f"workload.{wspec.name}.{host.name}"
        loop = self._closed_loop
        if wspec.copy_to is not None:
            loop = self._copy_loop
            self.copy_jobs[wi, host.name] = self._copy_job(wspec, host)
        if wspec.closed:
            for lun in luns:
                for thread in range(wspec.threads):
                    tname = f"{name}.{lun.name}.t{thread}"
                    shape = self.shape(wi, lun.size)
                    source = make_source(shape, lun.size, self.streams, tname, thread)
                    if wspec.think_time is not None:
                        source.think = self.streams.sampler(wspec.think_time, f"{tname}.think")
                    self.closed_sources[wi].append((host, lun, source))
                    for slot in range(wspec.outstanding_per_lun):
                        self.env.process(loop(host, lun, source, wi, slot))
        else:
            assert wspec.rate is not None
            self.env.process(self._open_loop(host, luns, wi, name))

    def _closed_loop(
        self, host: HostInstance, lun: Lun, source: IoSource, workload: int, slot: int
    ) -> Proc:
        """Keep one of the ``outstanding`` I/Os in flight (until a schedule lowers it), each
        slot waiting the workload's think time after every I/O it completes."""
        limit = self.outstanding
        io = self.io
        think = source.think
        env = self.env
        while slot < limit[workload]:
            size, write, offset = source.next_io()
            yield from io(host, lun, offset, size, write, workload)
            if think is not None:
                yield env.sleep(think())

    def _copy_loop(
        self, host: HostInstance, lun: Lun, source: IoSource, workload: int, slot: int
    ) -> Proc:
        """A closed-loop slot of a copy job: take a buffer, read into it, write it out."""
        env = self.env
        limit = self.outstanding
        io = self.io
        job = self.copy_jobs[workload, host.name]
        buffers = job.buffers
        while slot < limit[workload]:
            t_wait = env.now
            ev = buffers.acquire(t_wait)
            if ev is not None:
                yield ev
            t_start = env.now
            size, write, offset = source.next_io()
            yield from io(host, lun, offset, size, write, workload)
            file = job.next_file()
            t_full = env.now
            writer = file.writer
            if writer is not None:
                # the file's writer thread works on the buffer, then waits for a write slot
                ev = writer.acquire(t_full)
                if ev is not None:
                    yield ev
                t_writer = env.now
                assert job.writer_time is not None
                yield env.sleep(job.writer_time())
            t_slot = env.now
            ev = file.writes.acquire(t_slot)
            if ev is not None:
                yield ev
            t_write = env.now
            if writer is not None:
                writer.release(t_write, t_full, t_writer)
            offset, size = job.write_of(file, size)
            yield from io(host, file.lun, offset, size, True, workload)
            now = env.now
            file.writes.release(now, t_slot, t_write)
            buffers.release(now, t_wait, t_start)

    def _open_loop(self, host: HostInstance, luns: list[Lun], workload: int, name: str) -> Proc:
        """Poisson arrivals at the workload's current rate, each to a LUN drawn uniformly; the
        host's source for a LUN (stream ``name.LUN``) is made at its first I/O there."""
        env = self.env
        io = self.io
        streams = self.streams
        # drawn through the run's hub (the numbers of a generator of its own, without
        # making one per host: see sanpath.sim.streams)
        gaps = streams.lazy(f"{name}.arrivals")
        n = len(luns)
        sources: list[IoSource | None] = [None] * n
        pick = streams.uniform(f"{name}.lun")
        rates = self.rates
        # gaps drawn at once: doubles up to 1024 (the same numbers, see streams); one block
        # covers a host of a thousand that sends a few dozen I/Os, each block loads the
        # run's generator with the host's state
        block = 64
        while True:
            for gap in gaps().exponential(1.0, block).tolist():
                current = rates[workload]
                assert current is not None
                yield env.sleep(gap / current)
                i = int(pick() * n) if n > 1 else 0
                lun = luns[i]
                source = sources[i]
                if source is None:
                    shape = self.shape(workload, lun.size)
                    source = sources[i] = make_source(
                        shape, lun.size, streams, f"{name}.{lun.name}"
                    )
                size, write, offset = source.next_io()
                env.process(io(host, lun, offset, size, write, workload))
            block = min(2 * block, 1024)

    def _copy_job(self, wspec: WorkloadSpec, host: HostInstance) -> CopyJob:
        """The write side and buffer pool of copy workload ``wspec`` on ``host``."""
        assert wspec.copy_to is not None
        topo = self.topology
        targets = [lun for g in wspec.copy_to.luns for lun in topo.luns_by_group[g]]
        spec = wspec.copy_to
        depth = spec.depth
        buffers, writes = [
            Station(f"{host.name}.{wspec.name}.{name}", "slots", servers, "host")
            for name, servers in (
                ("buffers", slot_servers(spec.buffers)),
                ("file_writes", slot_servers(None if depth is None else depth * spec.files)),
            )
        ]
        topo.stations[buffers.name] = buffers
        topo.stations[writes.name] = writes
        writers, writer_time = None, None
        if spec.writer_time is not None:
            writers = Station(f"{host.name}.{wspec.name}.writers", "slots", spec.files, "host")
            topo.stations[writers.name] = writers
            writer_time = self.streams.sampler(spec.writer_time, writers.name)
        align = max(wspec.sizes)
        return CopyJob(self.env, spec, targets, buffers, writes, writers, writer_time, align)
