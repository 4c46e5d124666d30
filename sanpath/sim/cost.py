"""What one run costs in memory and wall time: the calibrated model behind the budget.

:func:`estimate` turns the counts of ``sanpath.sim.sizing`` into peak bytes and wall
seconds with the constants below, and names the field that drives each;
:func:`sanpath.sim.budget.check` refuses a run whose estimate is beyond the limits.

**What is counted.**

* **Topology.** Host instances (``hosts.N.count``), their HBA ports, and paths: for every
  host, every LUN its workloads use and every (HBA port, array port) pair the zoning and
  the LUN's ports allow (each path has its own host queue). A path's route is made when
  it is first taken (``sanpath.sim.routes``), so the routes counted are the paths or the
  commands of the run, whichever is fewer (every closed-loop slot sends one at once);
  likewise an open loop's sources and every host's per-LUN counters, at most one per I/O.
  LUNs and drives.
* **Processes.** A closed loop keeps one SimPy process per outstanding I/O: hosts x LUNs x
  threads x outstanding. An open loop has one arrival process per host and one process per
  I/O in flight: by Little's law the rate times the latency while the load is below the
  path's capacity; beyond it the backlog grows for the whole run.
* **Run length.** ``run.ios``; ``run.max_ios`` for a run that stops on precision (the cap: the
  worst case); ``run.duration`` times an IOPS guess for a fixed simulated time; plus
  ``run.warmup_ios`` (an auto warm-up may add more, up to ``run.max_ios``); at most what
  ``run.max_time`` allows. Schedules count at their largest ``outstanding`` and ``rate``.
* **Work per I/O.** Commands per I/O (splits at ``min(max_io_size, max_transfer)``, the
  write side of a copy job) and drive operations per I/O (stripe elements touched, the RAID
  write penalty, read hits skipped).

The IOPS guess is the smaller of what the load offers (the closed-loop population over the
unloaded latency, or the open-loop rate) and a capacity bound (drives with their RAID
penalty and read hits, controller cores, front-end ports, host links): optimistic on
purpose, so that only a load far beyond anything the path can carry counts as overload.

**Calibration.** Routes, sources and device counters: tracemalloc on
``scenarios/enterprise.yaml`` (1,000 hosts built, then every one of their 16,000 routes, 5,000
sources, 4,000 device counters made one by one): 23 kB per host with two cards, 2.5 kB per
route, 1.6 kB per source plus 32 bytes per number it holds drawn ahead (up to 2,048), 0.5
kB per device counter. A source holds about as many numbers as it has drawn (its blocks
double from 16), so the thousand hosts of an open loop that each send a LUN a dozen I/Os
hold a few hundred bytes of numbers each, where one host that sends it thousands holds
64 kB. The rest, from the eager build these replaced, measured with
``sanpath.run(..., trace_memory=True)`` (peak traced bytes) at commit 1565cd4; times on
one core of a shared 2-core machine, where they vary by 10 to 30% from run to run:

* Memory, from short runs of the quickstart (1 host, 8 LUNs, 2 HBA ports x 4 array ports,
  queue limits off so nothing is refused): 1, 10, 100 and 1,000 hosts peaked at 1.2, 8.2, 78
  and 770 MB (0.77 MB per host: 64 paths, 8 sources, 64 processes); 8 to 4,096 outstanding
  per LUN added 1.6 kB per process; 1 to 64 threads 69 kB per source and process; 8 to 800
  LUNs 87 kB per LUN (8 paths, 1 source, 1 process); 1 to 16 HBA ports 1.9 kB per path; 6 to
  600 RAID groups 1.4 kB per drive; open loops of 100,000 and 400,000 I/O per s against a
  path that carries 16,000 held 12,000 and 48,000 I/Os in flight at 22 and 78 MB (1.6 kB
  each). vi_queue_depth_2012 grew by 230 bytes per write its 2 GiB write-back cache kept
  dirty (13 MB after 10 s, 45 MB after 40 s). The shipped scenarios peak at 0.9
  (qd_sweep_2007) to 19 MB (hpux_max_q_depth) traced, in a process of about 150 MB resident
  with sanpath and its libraries imported (:data:`BASE_BYTES`).
* Time, from ``make bench --quick`` on the compiled core (``docs/benchmarks.json``, the
  record of 2026-11-26: 22,000 I/Os of every shipped scenario) and the three proposals at
  the same length: a fit that keeps the largest relative error small gives 8 us per
  command, 0.3 us per drive operation and 15 us per path, source or process made, within
  0.6 to 1.9 times every measured run (quickstart 5.5 us per I/O, backup_2013 23 us,
  transfer_split 27 us, split_and_unbalanced 50 us with 8 commands per I/O). Runs swamped
  by QUEUE FULL retries cost more than counted (fan_in 16 us, oversubscribed_port 50 us
  per I/O). The pure-Python core is about 3 times slower.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Final

from sanpath.sim.control import UNSTABLE_MIN_IOS, UNSTABLE_WINDOW
from sanpath.sim.sizing import largest, load, paths, run_length
from sanpath.spec import Scenario
from sanpath.units import format_duration

# -- calibrated constants ------------------------------------------------------------------

BASE_BYTES: Final = 150e6
"""Resident memory of a Python process with sanpath and its libraries imported, bytes."""
BYTES_PER_HOST: Final = 23e3
"""A host instance with its HBA cards, CPU servers, links and samplers, bytes."""
BYTES_PER_ROUTE: Final = 2.5e3
"""One route made (its host queue, its share of an HBA slot pool and a throttle), bytes."""
BYTES_PER_SOURCE: Final = 1.6e3
"""One I/O source (a workload thread on one host and LUN, with its random stream), bytes,
before the numbers it holds."""
BYTES_PER_DRAW: Final = 32.0
"""One random number a source holds drawn ahead (a float in a list), bytes."""
BUFFER_BYTES: Final = 66e3
"""The most a source holds drawn ahead (2,048 numbers), bytes."""
DRAWS_PER_IO: Final = 3.0
"""Random numbers one I/O draws from its source (size, direction, offset), at most."""
BYTES_PER_DEVICE: Final = 0.6e3
"""One host's counter of one LUN (made at the first I/O), bytes."""
BYTES_PER_PROCESS: Final = 1.6e3
"""One closed-loop SimPy process (generator and pending event), bytes."""
BYTES_PER_IN_FLIGHT: Final = 1.7e3
"""One open-loop I/O in flight (its process, command and queued request), bytes."""
BYTES_PER_LUN: Final = 3e3
"""One LUN (its queue and cache state), bytes."""
BYTES_PER_DRIVE: Final = 1.4e3
"""One drive (its server, command queue and positioning state), bytes."""
BYTES_PER_DIRTY_WRITE: Final = 230.0
"""One write held dirty in a write-back cache, bytes."""
BYTES_PER_INTERVAL: Final = 2e3
"""One interval of the time series (``run.record_interval``), bytes."""

SECONDS_PER_COMMAND: Final = 8e-6
"""Wall time per command sent down the path, seconds."""
SECONDS_PER_DRIVE_OP: Final = 0.3e-6
"""Wall time per drive operation (a stripe element read or written), seconds."""
SECONDS_PER_ARRIVAL: Final = 30e-6
"""Wall time per open-loop arrival that only joins a backlog, seconds."""
SECONDS_PER_BUILT: Final = 15e-6
"""Wall time to build one path or source, or to start one process, seconds."""
SECONDS_PER_INTERVAL: Final = 1e-3
"""Wall time per time-series interval (every station is sampled), seconds."""


@dataclass(frozen=True)
class Estimate:
    """What one run of a scenario is expected to cost, and what drives it.

    Memory in bytes, time in wall seconds; counts are whole-run totals.
    """

    hosts: int
    paths: int
    luns: int
    drives: int
    processes: int
    in_flight: float
    iops: float
    ios: float
    arrivals: float
    commands_per_io: float
    drive_ops_per_io: float
    memory_bytes: float
    seconds: float
    memory_field: str
    seconds_field: str
    length: str
    """How the run's length was counted, e.g. ``run.max_ios = 2,000,000 (precision cap)``."""
    parts: dict[str, float] = field(default_factory=dict)
    """The terms of the estimate by name, ``memory.NAME`` in bytes (``memory.paths`` for the
    routes made) and ``seconds.NAME`` in wall seconds."""

    def text(self) -> str:
        """One line: memory, time, and the counts behind them."""
        flight = f", {self.in_flight:,.0f} open-loop I/Os in flight" if self.in_flight else ""
        counts = ", ".join(
            _count(n, what)
            for n, what in (
                (self.hosts, "host"),
                (self.paths, "path"),
                (self.luns, "LUN"),
                (self.drives, "drive"),
                (self.processes, "I/O process"),
            )
        )
        return (
            f"about {format_bytes(self.memory_bytes)} of memory and "
            f"{format_duration(self.seconds)} of wall time ({counts}{flight}; {self.ios:,.0f} "
            f"I/Os at about {self.iops:,.0f} I/O per simulated s, "
            f"{_count(self.commands_per_io, 'command')} each; {self.length})"
        )


def _count(n: float, what: str) -> str:
    """``1 host``, ``64 paths``, ``2.5 commands``."""
    number = f"{int(n):,}" if n == int(n) else f"{n:,.3g}"
    plural = "" if n == 1 else ("es" if what.endswith("s") else "s")
    return f"{number} {what}{plural}"


def format_bytes(n: float) -> str:
    """``152 MB``, ``77.1 GB``."""
    return f"{n / 1e9:,.3g} GB" if n >= 1e9 else f"{n / 1e6:,.3g} MB"


def estimate(s: Scenario) -> Estimate:
    """Estimate the peak memory (bytes) and wall time (s) of one run of ``s``."""
    memory: dict[str, tuple[float, str]] = {}
    seconds: dict[str, tuple[float, str]] = {}
    hosts = sum(h.count for h in s.hosts)
    memory["hosts"] = (
        hosts * BYTES_PER_HOST,
        largest((float(h.count), f"hosts.{i}.count") for i, h in enumerate(s.hosts)),
    )
    n_paths, path_field = paths(s)
    luns = sum(g.count for g in s.array.luns)
    memory["luns"] = (
        luns * BYTES_PER_LUN,
        largest((float(g.count), f"array.luns.{i}.count") for i, g in enumerate(s.array.luns)),
    )
    drives = sum(p.drives * p.groups for p in s.array.pools)
    memory["drives"] = (
        drives * BYTES_PER_DRIVE,
        largest((float(p.groups), f"array.pools.{i}.groups") for i, p in enumerate(s.array.pools)),
    )

    loads = [load(s, wi, w) for wi, w in enumerate(s.workloads)]
    got = [min(one.offered, one.capacity) for one in loads]
    total = sum(got)
    iops = min(total, max(one.capacity for one in loads))
    commands = sum(g * one.commands for g, one in zip(got, loads, strict=True))
    ops = sum(g * one.ops for g, one in zip(got, loads, strict=True))
    commands_per_io = commands / total if total > 0 else 1.0
    ops_per_io = ops / total if total > 0 else 0.0

    measured, warmup, length_field, how = run_length(s, iops)
    ios = measured + warmup
    # Routes, sources and device counters are made when first used: at most one route per
    # command (every closed-loop slot sends one at the start), one source and one device
    # counter per I/O.
    closed = sum(one.processes for w, one in zip(s.workloads, loads, strict=True) if w.closed)
    routes = min(float(n_paths), max(float(closed), ios * commands_per_io))
    memory["paths"] = (routes * BYTES_PER_ROUTE, path_field)
    seconds["paths"] = (routes * SECONDS_PER_BUILT, path_field)
    pairs = 0.0
    for wi, (w, one) in enumerate(zip(s.workloads, loads, strict=True)):
        share = ios * (got[wi] / total if total > 0 else 1.0 / len(loads))
        made = one.sources if w.closed else min(float(one.sources), share)
        drawn = DRAWS_PER_IO * share / max(made, 1.0)  # numbers each source draws
        buffer = min(BUFFER_BYTES, BYTES_PER_DRAW * drawn)
        memory[f"sources{wi}"] = (
            made * (BYTES_PER_SOURCE + buffer) + one.processes * BYTES_PER_PROCESS,
            one.field,
        )
        seconds[f"build{wi}"] = ((made + one.processes) * SECONDS_PER_BUILT, one.field)
        pairs += min(float(one.sources), share)
    memory["devices"] = (pairs * BYTES_PER_DEVICE, path_field)
    sim_seconds = ios / iops if iops > 0 else 0.0
    if s.run.duration is not None:
        sim_seconds = s.run.duration + (warmup / iops if iops > 0 else 0.0)
    if s.run.max_time is not None:
        sim_seconds = min(sim_seconds, s.run.max_time)
    per_io = SECONDS_PER_COMMAND * commands_per_io + SECONDS_PER_DRIVE_OP * ops_per_io
    seconds["run"] = (ios * per_io, length_field)
    writes = [g * (1.0 - w.read_fraction) for g, w in zip(got, s.workloads, strict=True)]
    if s.array.cache.write_back and sum(writes) > 0:  # dirty writes held until destaged
        written = sum(x * w.mean_block_size for x, w in zip(writes, s.workloads, strict=True))
        dirty = min(s.array.cache.write_back * sum(writes) / written, ios * sum(writes) / total)
        memory["cache"] = (dirty * BYTES_PER_DIRTY_WRITE, "array.cache.write_back")

    in_flight = arrivals = 0.0
    for wi, (w, one) in enumerate(zip(s.workloads, loads, strict=True)):
        if w.closed:
            continue
        if one.offered <= one.capacity:  # Little's law, with the queueing of the load
            busy = one.offered / one.capacity if one.capacity > 0 else 0.0
            flight = one.offered * one.latency / max(1.0 - busy, 0.05)
            late = 0.0
        else:  # the backlog grows until the run ends; every arrival is an event
            horizon = sim_seconds
            if s.run.warmup == "auto" and not s.schedule:
                # an automatic warm-up stops an open loop that cannot keep up early
                # (sanpath.sim.control): a few times the arrivals it watches for, then a short
                # measured window
                horizon = min(
                    horizon,
                    4 * UNSTABLE_MIN_IOS / one.offered + UNSTABLE_WINDOW / one.capacity,
                )
            flight = (one.offered - one.capacity) * horizon
            late = one.offered * horizon
        in_flight += flight
        arrivals += late
        memory[f"flight{wi}"] = (flight * BYTES_PER_IN_FLIGHT, one.field)
        seconds[f"arrivals{wi}"] = (late * SECONDS_PER_ARRIVAL, one.field)
    if s.run.record_interval is not None:
        intervals = sim_seconds / s.run.record_interval
        memory["series"] = (intervals * BYTES_PER_INTERVAL, "run.record_interval")
        seconds["series"] = (intervals * SECONDS_PER_INTERVAL, "run.record_interval")
    return Estimate(
        hosts=hosts,
        paths=n_paths,
        luns=luns,
        drives=drives,
        processes=sum(one.processes for one in loads),
        in_flight=in_flight,
        iops=iops,
        ios=ios,
        arrivals=arrivals,
        commands_per_io=commands_per_io,
        drive_ops_per_io=ops_per_io,
        memory_bytes=BASE_BYTES + sum(b for b, _ in memory.values()),
        seconds=sum(t for t, _ in seconds.values()),
        memory_field=max(memory.values(), key=lambda m: m[0])[1],
        seconds_field=max(seconds.values(), key=lambda t: t[0])[1],
        length=how,
        parts={
            **{f"memory.{k}": v for k, (v, _) in memory.items()},
            **{f"seconds.{k}": v for k, (v, _) in seconds.items()},
        },
    )
