"""Replaying a block trace through the path (``workloads.N.trace``).

A :class:`TraceReplay` replays one trace workload on one host. It streams the trace file
batch by batch (:class:`sanpath.traces.TraceReader`: only one batch of records is in memory),
turns each record's device into a place on the workload's LUNs (:class:`Target`) and sends
the I/O with its own offset, size and direction into the engine, so the cache's read-ahead,
the RAID mapping and the drives' positioning see the trace's address stream:

* **open loop**: each record is issued at its recorded time divided by ``speed``, in its own
  process, whatever the path does with the earlier ones;
* **closed loop** (``outstanding``): ``threads x outstanding x LUNs`` slots each take the next
  record in trace order when their last I/O completes.

When every record has been issued and has completed, the replay is over; the load stops the
run once every trace replay is over (``loop: true`` replays never end: the run's own rule
stops them). Nothing is drawn at random: a trace replays the same way for every seed.
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Callable, Generator, Iterator
from typing import Any

import simpy

from sanpath.sim.components.array import Lun
from sanpath.sim.components.host import HostInstance
from sanpath.spec import RunSpec, Scenario, WorkloadSpec
from sanpath.traces import Tally, TraceReader

Proc = Generator[simpy.Event, Any, Any]
IoProcess = Callable[[HostInstance, Lun, int, int, bool, int], Proc]
SLICE = 1024
"""Records of a batch turned into Python numbers at a time (keeps the peak small)."""
Record = tuple[float, Lun, int, int, bool]
"""(arrival time s, LUN, byte offset in the LUN, bytes, is a write)."""


class Target:
    """Where one device's records land: LUNs end to end as one address space.

    An offset past the end wraps around (counted in ``wrapped``); an I/O that would cross
    from one LUN into the next, or past the end, is moved back to end where its LUN ends.
    """

    __slots__ = ("luns", "starts", "total", "wrapped")

    def __init__(self, luns: list[Lun]) -> None:
        self.luns = luns
        self.starts: list[int] = []
        total = 0
        for lun in luns:
            self.starts.append(total)
            total += lun.size
        self.total = total
        self.wrapped = 0

    def place(self, offset: int, size: int) -> tuple[Lun, int]:
        """(LUN, byte offset in it) of a record at ``offset`` of ``size`` bytes."""
        if offset + size > self.total:
            self.wrapped += 1
            offset %= self.total
        luns = self.luns
        if len(luns) == 1:
            lun = luns[0]
            local = offset
        else:
            i = bisect_right(self.starts, offset) - 1
            lun = luns[i]
            local = offset - self.starts[i]
        if local + size > lun.size:
            local = max(0, lun.size - size)
        return lun, local


class TraceReplay:
    """Trace workload number ``wi`` replayed on ``host`` (see the module docstring).

    ``luns`` are the workload's LUNs in order, ``groups`` every LUN group's LUNs (for
    ``map``); ``done`` is called once when every record has been issued and completed.
    """

    def __init__(
        self,
        env: simpy.Environment,
        wi: int,
        spec: WorkloadSpec,
        host: HostInstance,
        luns: list[Lun],
        groups: dict[str, list[Lun]],
        io: IoProcess,
        done: Callable[[TraceReplay], None],
    ) -> None:
        assert spec.trace is not None
        self.env = env
        self.wi = wi
        self.spec = spec
        self.trace = spec.trace
        self.host = host
        self.io = io
        self.done = done
        self.all = Target(luns)
        self.by_device: dict[str, Target] = {}
        for device, name in self.trace.map or ():
            group, _, index = name.partition("[")
            members = groups[group]
            chosen = [members[int(index[:-1])]] if index else list(members)
            self.by_device[device] = Target(chosen)
        self.per_lun_slots = spec.threads * len(luns)
        """Closed loop: slots per unit of ``outstanding`` (threads x LUNs covered)."""
        self.limit = self.per_lun_slots * spec.outstanding_per_lun
        self.issued = 0
        self.completed = 0
        self.bytes_issued = 0
        self.first_issue = math.nan
        self.last_issue = math.nan
        self.passes = 0
        """Passes over the trace begun (``loop``)."""
        self.active = 0
        self.exhausted = False
        self.finished = False
        self.tally: Tally | None = None
        """What the first pass's reader skipped and the response times it saw."""
        self.devices: list[str] = []
        self._records: Iterator[Record] = self._stream()

    # -- the records ----------------------------------------------------------------------

    def _target(self, device: str) -> Target:
        if self.trace.map is None:
            return self.all
        return self.by_device[device]

    def _stream(self) -> Iterator[Record]:
        """Every record to replay, pass after pass with ``loop``, placed on its LUN."""
        trace = self.trace
        base = 0.0
        while True:
            reader = TraceReader(trace.file, trace.format, trace.window())
            self.passes += 1
            if self.tally is None:
                self.tally = reader.tally
                self.devices = reader.devices
            targets: list[Target] = []
            last = 0.0
            n = 0
            for batch in reader.batches():
                names = reader.devices
                while len(targets) < len(names):
                    targets.append(self._target(names[len(targets)]))
                for lo in range(0, len(batch), SLICE):
                    hi = lo + SLICE
                    for t, d, offset, size, write in zip(
                        batch.time[lo:hi].tolist(),
                        batch.device[lo:hi].tolist(),
                        batch.offset[lo:hi].tolist(),
                        batch.size[lo:hi].tolist(),
                        batch.write[lo:hi].tolist(),
                        strict=True,
                    ):
                        lun, local = targets[d].place(offset, size)
                        yield base + t, lun, local, size, write
                last = max(last, float(batch.time.max()))
                n += len(batch)
            if not trace.loop or n == 0:
                return
            gap = last / (n - 1) if n > 1 and last > 0 else 1.0
            base += last + gap

    # -- the loops ------------------------------------------------------------------------

    def start(self) -> None:
        """Start the replay's processes (one open-loop issuer, or the closed-loop slots)."""
        if self.spec.outstanding is None:
            self.env.process(self._open())
        else:
            for slot in range(self.limit):
                self.active += 1
                self.env.process(self._slot(slot))

    def set_outstanding(self, value: int) -> None:
        """A schedule changed ``outstanding``: start the new slots now (slots above the new
        depth stop after their current I/O)."""
        old = self.limit
        self.limit = self.per_lun_slots * value
        if self.exhausted:
            return
        for slot in range(old, self.limit):
            self.active += 1
            self.env.process(self._slot(slot))

    def _count(self, size: int) -> None:
        now = self.env.now
        if self.issued == 0:
            self.first_issue = now
        self.last_issue = now
        self.issued += 1
        self.bytes_issued += size

    def _open(self) -> Proc:
        """Issue each record at its time / speed, each in its own process."""
        env = self.env
        speed = self.trace.speed
        for t, lun, offset, size, write in self._records:
            delay = t / speed - env.now
            if delay > 0:
                yield env.timeout(delay)
            self._count(size)
            env.process(self._one(lun, offset, size, write))
        self.exhausted = True
        if self.completed == self.issued:
            self._finish()

    def _one(self, lun: Lun, offset: int, size: int, write: bool) -> Proc:
        yield from self.io(self.host, lun, offset, size, write, self.wi)
        self.completed += 1
        if self.exhausted and self.completed == self.issued:
            self._finish()

    def _slot(self, slot: int) -> Proc:
        """One closed-loop slot: the next record in trace order, when the last completes."""
        records = self._records
        io = self.io
        host = self.host
        wi = self.wi
        while slot < self.limit:
            record = next(records, None)
            if record is None:
                self.exhausted = True
                break
            _, lun, offset, size, write = record
            self._count(size)
            yield from io(host, lun, offset, size, write, wi)
            self.completed += 1
        self.active -= 1
        if self.active == 0 and self.exhausted:
            self._finish()

    def _finish(self) -> None:
        if not self.finished:
            self.finished = True
            self.done(self)

    @property
    def wrapped(self) -> int:
        """Records whose offset lay past the end of their LUNs (wrapped around)."""
        targets = [self.all, *self.by_device.values()]
        return sum(t.wrapped for t in targets)


class TraceLoad:
    """Every trace replay of a run: started by the load, ending the run when all are over.

    ``end`` is called once every replay has issued and completed all its records (never when
    a replay loops).
    """

    def __init__(
        self,
        env: simpy.Environment,
        groups: dict[str, list[Lun]],
        io: IoProcess,
        end: Callable[[], None] | None,
    ) -> None:
        self.env = env
        self.groups = groups
        self.io = io
        self.end = end
        self.replays: list[TraceReplay] = []

    def start(self, wi: int, spec: WorkloadSpec, host: HostInstance, luns: list[Lun]) -> None:
        """Replay workload ``wi``'s trace on ``host`` over ``luns``."""
        replay = TraceReplay(self.env, wi, spec, host, luns, self.groups, self.io, self._done)
        self.replays.append(replay)
        replay.start()

    def set_outstanding(self, wi: int, value: int) -> None:
        """A schedule changed workload ``wi``'s ``outstanding``."""
        for replay in self.replays:
            if replay.wi == wi and replay.spec.outstanding is not None:
                replay.set_outstanding(value)

    def _done(self, _replay: TraceReplay) -> None:
        if self.end is not None and all(r.finished for r in self.replays):
            self.end()

    def report(self, names: list[str]) -> tuple[dict[str, Any], tuple[str, ...]]:
        """Per trace workload (by name): what was replayed; and warnings about it.

        ``records``, ``completed``, ``bytes`` and ``passes`` are summed over the hosts;
        ``arrival_rate`` is records issued after the first over the simulated seconds they
        span, per host (I/O per s); ``skipped`` counts the records the reader left out.
        """
        out: dict[str, Any] = {}
        warnings: list[str] = []
        for wi in sorted({r.wi for r in self.replays}):
            mine = [r for r in self.replays if r.wi == wi]
            first = mine[0]
            spans = [r.last_issue - r.first_issue for r in mine if r.issued > 1]
            rates = [(r.issued - 1) / s for r, s in zip(mine, spans, strict=False) if s > 0]
            tally = first.tally
            skipped = dict(tally.skipped) if tally is not None else {}
            wrapped = sum(r.wrapped for r in mine)
            out[names[wi]] = {
                "file": first.trace.file,
                "format": first.trace.format,
                "speed": first.trace.speed,
                "hosts": len(mine),
                "records": sum(r.issued for r in mine),
                "completed": sum(r.completed for r in mine),
                "bytes": sum(r.bytes_issued for r in mine),
                "passes": max(r.passes for r in mine),
                "arrival_rate": sum(rates) / len(rates) if rates else math.nan,
                "first_issue_s": first.first_issue,
                "last_issue_s": first.last_issue,
                "skipped": skipped,
                "wrapped": wrapped,
                "out_of_order": tally.out_of_order if tally is not None else 0,
            }
            name = names[wi]
            if wrapped:
                warnings.append(
                    f"workload {name}: {wrapped:,} trace records lay past the end of their "
                    "LUNs and wrapped around: make the LUNs as large as the trace's address "
                    "range (sanpath import sizes them so)"
                )
            unseen = [d for d, _ in first.trace.map or () if d not in first.devices]
            if unseen and first.passes:
                warnings.append(
                    f"workload {name}: trace.map names device(s) {', '.join(unseen)} that the "
                    "trace does not have (its devices: "
                    f"{', '.join(first.devices) or 'none replayed'})"
                )
            if not first.finished and not first.trace.loop and first.issued:
                warnings.append(
                    f"workload {name}: the run stopped before the trace ended "
                    f"({first.issued:,} records issued on {first.host.name})"
                )
        return out, tuple(warnings)


def trace_run(scenario: Scenario) -> str:
    """``ends`` when a workload replays a trace once, ``loops`` when every trace workload
    loops, ``""`` without traces (how :class:`~sanpath.sim.control.RunControl` treats the
    run: a fixed warm-up and, for ``ends``, the trace's own length)."""
    traces = [w.trace for w in scenario.workloads if w.trace is not None]
    if not traces:
        return ""
    return "loops" if all(t.loop for t in traces) else "ends"


def trace_notes(spec: RunSpec, stopped_by: str, warmed: int, measured: int) -> list[str]:
    """What a trace that ended the run (``stopped_by``) left out of its figures, after
    ``warmed`` warm-up and ``measured`` measured I/Os."""
    if stopped_by != "trace":
        return []
    if not measured:
        return [
            f"the trace ended during the warm-up ({warmed:,} of run.warmup_ios "
            f"{spec.warmup_ios:,} I/Os): nothing was measured; lower run.warmup_ios"
        ]
    if spec.ios is not None and measured < spec.ios:
        return [
            f"the trace ended after {measured:,} measured I/Os, before run.ios "
            f"({spec.ios:,}): the figures cover the whole trace after the warm-up"
        ]
    if spec.duration is not None:
        return [
            f"the trace ended before run.duration ({spec.duration:g} s): the figures cover the "
            "whole trace after the warm-up"
        ]
    return []
