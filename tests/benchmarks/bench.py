"""Speed and memory benchmarks of sanpath (``make bench``).

Usage::

    .venv/bin/python tests/benchmarks/bench.py            # full run (15 minutes or more)
    .venv/bin/python tests/benchmarks/bench.py --quick    # smaller runs, no 1M-I/O run

Most of a full run is tracemalloc's: a traced run is 6-10 times slower than a plain one.
    .venv/bin/python tests/benchmarks/bench.py --json out/bench.json

The figures are for the core sanpath imports: compiled with mypyc where ``make`` built it
(``sanpath/compiled.py``), else pure Python. With the compiled core, section 1 also times the
pure-Python core in a subprocess (``SANPATH_PURE_PYTHON=1``), against its own reference rounds.

Machines are shared and noisy, so each comparison is measured side by side in this one
process and reported as a ratio; absolute figures are for orientation only.

1. Six-station closed textbook path: sanpath against an idiomatic SimPy model of the same
   stations (one process per outstanding I/O, a ``simpy.Resource`` per station). Both
   complete the same number of I/Os; the throughputs and per-station times must agree, which
   shows the reference is the same model.
2. Shipped scenarios (``scenarios/*.yaml``): application I/Os per wall second, the peak
   Python memory in a separate run (tracemalloc slows a run several-fold), and the run
   budget's wall-time estimate beside the measured time.
3. Memory flatness: a 1,000,000-I/O run of ``scenarios/quickstart.yaml`` against a
   100,000-I/O run, each in a fresh subprocess: peak RSS of a plain run, then the
   tracemalloc peak of a traced one.
4. Sweep speed-up: 40 points serially and in 2 local processes.
5. Trace replay (``bench_trace.py``): a generated 1,000,000-record trace against the
   equivalent synthetic workload, I/Os per wall second and memory.
6.-8. Enterprise scale (``scale_bench.py``): ``scenarios/enterprise.yaml``
   at 1,000 hosts against its one-host run, the analytic twin on it, and a 200-run sweep of
   it on a Dask ``LocalCluster`` against a serial one.
9. Flash drive cost (``flash_speed.py``): wall time per I/O of the datasheet flash drive
   model against the simple ``ssd`` one, on the quickstart path and on one drive alone.

A target that is missed is reported as MISS; the script exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import gc
import itertools
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
import traceback
from collections.abc import Callable, Generator, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import flash_speed  # tests/benchmarks/flash_speed.py, beside this script
import numpy as np
import scale_bench  # tests/benchmarks/scale_bench.py, beside this script
import simpy
from common import same_tables, say  # tests/benchmarks/common.py, beside this script

import sanpath
from sanpath import compiled
from sanpath.sim import budget
from sanpath.spec import Scenario, TextbookDriveSpec
from sanpath.theory.textbook import closed_path

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = ROOT / "scenarios"
QUICKSTART = SCENARIOS / "quickstart.yaml"

# Targets
SPEED_RATIO_TARGET = 5.0
"""sanpath I/Os per wall second over the reference's, six-station closed path (compiled core)."""
PURE_RATIO_TARGET = 2.0
"""The same ratio with the pure-Python core (what an install without a C compiler runs)."""
AGREEMENT_TARGET = 0.03
"""Largest relative throughput difference between sanpath and the reference."""
SCENARIO_SPEED_TARGET = 40_000.0
"""Application I/Os per wall second for every shipped scenario."""
SCENARIO_BUDGET_S = 15.0
"""No further timed run of a scenario once its timed runs have taken this long."""
RSS_TARGET_MB = 300.0
"""Max resident set size of the 1,000,000-I/O run."""
FLAT_TARGET = 1.5
"""Largest growth of the tracemalloc peak from 100,000 to 1,000,000 I/Os."""
ESTIMATE_FACTOR = 6.0
"""The run budget's wall time per I/O (``sanpath.sim.budget``) within this factor of every
shipped scenario's measured one (its constants fit the compiled core; the pure-Python
core's runs are compared with 3 times the estimate). Per I/O, because an automatic warm-up
runs as long as it takes, which the budget does not know beforehand."""

# The six-station closed path
OUTSTANDING = 16
BLOCK = "8KiB"
HBA_MEAN = "0.1ms"
CONTROLLER_MEAN = "0.2ms"
DRIVE_MEAN = "0.5ms"
PCIE_RATE = "1GB/s"
HOST_SPEED = "4GFC"
PORT_SPEED = "8GFC"
SEED = 1

STAGES = ("HBA processor", "controller", "drive", "array link out", "host link in", "PCIe up")
"""The stations a read visits, in the order sanpath's engine crosses them."""
SANPATH_STATIONS = (
    "host.hba.cpu",
    "array.controller",
    "array.pool.drives",
    "array.port0.link.out",
    "host.link.in",
    "host.pcie.up",
)
"""sanpath's station for each of STAGES."""


def fmt_int(x: float) -> str:
    return f"{x:,.0f}"


# ---------------------------------------------------------------------------------------
# 1. Six-station closed textbook path
# ---------------------------------------------------------------------------------------


def closed_path_scenario(ios: int, warmup_ios: int) -> Scenario:
    """The textbook closed path with six active stations (see the module docstring)."""
    data = closed_path(
        OUTSTANDING,
        hba_time={"dist": "exponential", "mean": HBA_MEAN},
        controller_time={"dist": "exponential", "mean": CONTROLLER_MEAN},
        drive_time={"dist": "exponential", "mean": DRIVE_MEAN},
        cores=1,
        ios=ios,
        warmup_ios=warmup_ios,
    )
    data["seed"] = SEED
    hba = data["hosts"][0]["hbas"][0]
    hba["pcie"] = {"rate": PCIE_RATE}
    hba["speed"] = HOST_SPEED
    data["array"]["port_speed"] = PORT_SPEED
    data["fabric"]["hop_latency"] = 0
    data["workloads"][0]["block_size"] = BLOCK
    data["workloads"][0]["read_fraction"] = 1.0
    return sanpath.load_scenario(data)


@dataclass(frozen=True)
class PathModel:
    """The reference's parameters, read from the validated sanpath scenario."""

    outstanding: int
    size: int
    hba_mean: float
    controller_mean: float
    drive_mean: float
    array_link: float
    host_link: float
    pcie: float

    @classmethod
    def from_scenario(cls, spec: Scenario) -> PathModel:
        hba = spec.hosts[0].hbas[0]
        drive = spec.array.pools[0].drive
        assert isinstance(drive, TextbookDriveSpec)
        for dist in (hba.command_time, spec.array.controller.io_time, drive.service):
            assert dist.dist == "exponential", dist
        assert hba.pcie is not None and hba.speed is not None
        assert spec.array.port_speed is not None and spec.fabric.one_way_latency == 0
        size = spec.workloads[0].block_size[0][0]
        # As Simulation.wire_bytes: the data frames plus the status frame, each with overhead.
        frames = -(-size // spec.fabric.frame_payload) + 1
        wire = size + frames * spec.fabric.frame_overhead
        return cls(
            outstanding=spec.workloads[0].outstanding_per_lun,
            size=size,
            hba_mean=hba.command_time.mean_s,
            controller_mean=spec.array.controller.io_time.mean_s,
            drive_mean=drive.service.mean_s,
            array_link=wire / spec.array.port_speed,
            host_link=wire / hba.speed,
            pcie=size / hba.pcie.bytes_per_s,
        )


def exponentials(rng: np.random.Generator, mean: float) -> Iterator[float]:
    """Exponential draws, taken from numpy in blocks.

    sanpath draws in blocks too, so the comparison is between the engines, not between one
    numpy call per draw and a block of them (per-draw calls slow the reference by ~5-15%).
    """
    while True:
        yield from rng.exponential(mean, 4096).tolist()


def reference_closed_path(
    model: PathModel, ios: int, warmup_ios: int, seed: int, per_station: bool = False
) -> dict[str, Any]:
    """The same closed path as idiomatic SimPy: a process per I/O, a Resource per station.

    Runs until ``warmup_ios + ios`` I/Os have completed and measures over the last ``ios``.
    With ``per_station`` it also records each station's mean wait and residence per visit
    (slower: used for the model check, not for timing).
    """
    env = simpy.Environment()
    rngs = [np.random.Generator(np.random.PCG64(s)) for s in np.random.SeedSequence(seed).spawn(3)]
    stations: list[tuple[simpy.Resource, Iterator[float]]] = [
        (simpy.Resource(env, capacity=1), exponentials(rngs[0], model.hba_mean)),
        (simpy.Resource(env, capacity=1), exponentials(rngs[1], model.controller_mean)),
        (simpy.Resource(env, capacity=1), exponentials(rngs[2], model.drive_mean)),
        (simpy.Resource(env, capacity=1), itertools.repeat(model.array_link)),
        (simpy.Resource(env, capacity=1), itertools.repeat(model.host_link)),
        (simpy.Resource(env, capacity=1), itertools.repeat(model.pcie)),
    ]
    total = warmup_ios + ios
    done = simpy.Event(env)
    tally = {"completed": 0, "window_start": 0.0, "latency": 0.0}
    waits = [0.0] * len(stations)
    residences = [0.0] * len(stations)

    def completed(t_issue: float) -> None:
        tally["completed"] += 1
        if tally["completed"] == warmup_ios:
            tally["window_start"] = env.now
        elif tally["completed"] > warmup_ios:
            tally["latency"] += env.now - t_issue
            if tally["completed"] == total:
                done.succeed()

    # One process per I/O, as a SimPy user writes it: each completed I/O starts the next, so
    # ``outstanding`` I/Os stay in flight (a closed loop).
    def io() -> Generator[simpy.Event, Any, None]:
        t_issue = env.now
        for station, service in stations:
            with station.request() as req:
                yield req
                yield env.timeout(next(service))
        completed(t_issue)
        env.process(io())

    def io_per_station() -> Generator[simpy.Event, Any, None]:
        t_issue = env.now
        visits = []
        for station, service in stations:
            t_arrive = env.now
            with station.request() as req:
                yield req
                t_start = env.now
                yield env.timeout(next(service))
            visits.append((t_start - t_arrive, env.now - t_arrive))
        if tally["completed"] >= warmup_ios:
            for i, (wait, residence) in enumerate(visits):
                waits[i] += wait
                residences[i] += residence
        completed(t_issue)
        env.process(io_per_station())

    for _ in range(model.outstanding):
        env.process(io_per_station() if per_station else io())
    env.run(until=done)
    span = env.now - tally["window_start"]
    out: dict[str, Any] = {
        "completed": total,
        "iops": ios / span,
        "latency_ms": tally["latency"] / ios * 1e3,
    }
    if per_station:
        out["wait_ms"] = [w / ios * 1e3 for w in waits]
        out["residence_ms"] = [r / ios * 1e3 for r in residences]
    return out


def timed(fn: Callable[[], Any]) -> tuple[Any, float]:
    gc.collect()
    t0 = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - t0


def child_closed_path(ios: int, repeat: int) -> None:
    """Closed-path rounds in this (fresh) process, as section 1 times them; print JSON."""
    warmup = ios // 10
    spec = closed_path_scenario(ios, warmup)
    model = PathModel.from_scenario(spec)
    total = ios + warmup
    rounds = []
    for _ in range(repeat):
        _, t_san = timed(lambda: sanpath.run(spec))
        _, t_ref = timed(lambda: reference_closed_path(model, ios, warmup, SEED))
        rounds.append({"sanpath_ios_per_s": total / t_san, "reference_ios_per_s": total / t_ref})
    print(json.dumps({"core": compiled.core(), "rounds": rounds}))


def pure_python_closed_path(ios: int, repeat: int) -> dict[str, Any]:
    """Section 1 with the pure-Python core, in a subprocess (``SANPATH_PURE_PYTHON=1``)."""
    cmd = [
        sys.executable,
        str(Path(__file__).resolve()),
        "--child-closed-path",
        str(ios),
        str(repeat),
    ]
    env = {**os.environ, compiled.PURE_PYTHON_ENV: "1"}
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    assert figures["core"] == "python", figures["core"]
    rounds = figures["rounds"]
    figures["best_sanpath_ios_per_s"] = max(x["sanpath_ios_per_s"] for x in rounds)
    figures["best_reference_ios_per_s"] = max(x["reference_ios_per_s"] for x in rounds)
    figures["ratio"] = figures["best_sanpath_ios_per_s"] / figures["best_reference_ios_per_s"]
    return figures


def bench_closed_path(ios: int, repeat: int) -> dict[str, Any]:
    warmup = ios // 10
    spec = closed_path_scenario(ios, warmup)
    model = PathModel.from_scenario(spec)
    total = ios + warmup
    say("1. Six-station closed textbook path: sanpath against an idiomatic SimPy reference")
    say(
        f"   {model.outstanding} outstanding {model.size // 1024} KiB reads, each visiting in turn:"
        f" HBA processor (exp {model.hba_mean * 1e3:.3g} ms),"
    )
    say(
        f"   controller (exp {model.controller_mean * 1e3:.3g} ms), drive (exp"
        f" {model.drive_mean * 1e3:.3g} ms), array link out ({model.array_link * 1e6:.2f} us),"
        f" host link in ({model.host_link * 1e6:.2f} us),"
    )
    say(f"   PCIe up ({model.pcie * 1e6:.2f} us); links deterministic, fabric latency 0")
    say(
        f"   each run completes {fmt_int(total)} I/Os ({fmt_int(warmup)} warm-up); rounds alternate"
    )
    say()
    say(f"   {'round':>7}  {'sanpath I/O/s':>14}  {'reference I/O/s':>16}  {'ratio':>7}")
    rounds = []
    result = None
    for r in range(1, repeat + 1):
        result, t_san = timed(lambda: sanpath.run(spec))
        assert result.ios == ios
        _, t_ref = timed(lambda: reference_closed_path(model, ios, warmup, SEED))
        san, ref = total / t_san, total / t_ref
        rounds.append({"sanpath_ios_per_s": san, "reference_ios_per_s": ref})
        say(f"   {r:>7}  {fmt_int(san):>14}  {fmt_int(ref):>16}  {san / ref:>6.2f}x")
    best_san = max(x["sanpath_ios_per_s"] for x in rounds)
    best_ref = max(x["reference_ios_per_s"] for x in rounds)
    ratio = best_san / best_ref
    median_ratio = statistics.median(
        x["sanpath_ios_per_s"] / x["reference_ios_per_s"] for x in rounds
    )
    say(f"   {'best':>7}  {fmt_int(best_san):>14}  {fmt_int(best_ref):>16}  {ratio:>6.2f}x")
    say(f"   ratio of the bests {ratio:.2f}x, median of the rounds {median_ratio:.2f}x")
    pure = None
    if compiled.core() == "compiled":
        # The same rounds with the pure-Python core (what runs where nothing is compiled),
        # in a subprocess: its own reference rounds make its ratio a side-by-side one too.
        pure = pure_python_closed_path(ios, repeat)
        say(
            f"   pure-Python core (subprocess, SANPATH_PURE_PYTHON=1): sanpath"
            f" {fmt_int(pure['best_sanpath_ios_per_s'])}, reference"
            f" {fmt_int(pure['best_reference_ios_per_s'])}: {pure['ratio']:.2f}x;"
            f" compiled / pure-Python core {ratio / pure['ratio']:.2f}x"
        )
    say()

    # Model check: same stations, same times (an untimed reference run that records them).
    assert result is not None
    check = reference_closed_path(model, ios, warmup, SEED, per_station=True)
    say("   model check (measurement window)       sanpath   reference     diff")
    rows = [
        ("throughput (I/O per simulated s)", result.iops, check["iops"]),
        ("mean I/O latency (ms)", result.latency_ms["mean"], check["latency_ms"]),
    ]
    for i, (stage, name) in enumerate(zip(STAGES, SANPATH_STATIONS, strict=True)):
        st = result.station(name)
        residence = (st.mean_wait_s + st.mean_service_s) * 1e3
        rows.append((f"{stage}: wait + service (ms)", residence, check["residence_ms"][i]))
    for label, ours, theirs in rows:
        diff = 100 * (ours - theirs) / theirs
        say(f"   {label:<36}{ours:>10.4g}  {theirs:>10.4g}  {diff:>+6.2f}%")
    agreement = abs(result.iops - check["iops"]) / check["iops"]
    transfer_us = (result.breakdown_ms["fabric"] + result.breakdown_ms["pcie"]) * 1e3
    serial_us = (model.array_link + model.host_link + model.pcie) * 1e6
    say("   No MVA here: deterministic links make the network non product form; the drive is")
    say("   the bottleneck. sanpath pipelines the three data legs (a link starts with the first")
    say(f"   frame): {transfer_us:.1f} us per I/O, where the reference holds them one after the")
    say(f"   other ({serial_us:.1f} us plus waits), a negligible gap next to the drive queue.")
    say()
    return {
        "ios": ios,
        "warmup_ios": warmup,
        "model": asdict(model),
        "rounds": rounds,
        "best_sanpath_ios_per_s": best_san,
        "best_reference_ios_per_s": best_ref,
        "ratio": ratio,
        "median_ratio": median_ratio,
        "pure_python": pure,
        "sanpath": {
            "iops": result.iops,
            "latency_ms": result.latency_ms["mean"],
            "residence_ms": [
                (result.station(n).mean_wait_s + result.station(n).mean_service_s) * 1e3
                for n in SANPATH_STATIONS
            ],
        },
        "reference": check,
        "throughput_difference": agreement,
    }


# ---------------------------------------------------------------------------------------
# 2. Shipped scenarios
# ---------------------------------------------------------------------------------------


def load_for_bench(path: Path, ios: int) -> tuple[Scenario, str]:
    """``path`` with ``run.ios`` = ``ios`` and 10% warm-up; a ``run.duration`` is dropped."""
    overrides: dict[str, Any] = {"run.ios": ios, "run.warmup_ios": ios // 10}
    spec = sanpath.load_scenario(path, overrides)
    if spec.run.duration is None:
        return spec, ""
    note = f"run.duration {spec.run.duration:g} s dropped so that run.ios bounds the run"
    return sanpath.load_scenario(path, {**overrides, "run.duration": None}), note


def bench_scenarios(ios: int, repeat: int) -> tuple[list[dict[str, Any]], bool]:
    """Speed and memory of every top-level scenario; returns (rows, something crashed)."""
    warmup = ios // 10
    say(f"2. Shipped scenarios: run.ios {fmt_int(ios)}, run.warmup_ios {fmt_int(warmup)}")
    say(
        f"   I/O per wall s: application I/Os (warm-up included) over the best of up to {repeat}"
        " timed runs"
    )
    say(
        f"   (fewer when they take over {SCENARIO_BUDGET_S:g} s); cmd/IO: commands per I/O after"
        " splitting; peak MB:"
    )
    say("   tracemalloc peak of a separate run (several times slower: traced s); est s: the")
    say("   run budget's wall time per I/O (sanpath.sim.budget; x3 for the pure-Python core)")
    say("   times the I/Os the run completed (an automatic warm-up may run past warmup_ios)")
    say()
    say(
        f"   {'scenario':<22}{'I/O per wall s':>15}{'cmd/IO':>7}{'runs':>5}{'wall s':>8}"
        f"{'est s':>8}{'sim IOPS':>11}{'mean ms':>9}{'peak MB':>9}{'traced s':>10}"
    )
    rows: list[dict[str, Any]] = []
    crashed = False
    paths = sorted(SCENARIOS.glob("*.yaml"))
    if not paths:
        say("   no scenarios found")
    for path in paths:
        row: dict[str, Any] = {"scenario": path.name}
        rows.append(row)
        try:
            spec, note = load_for_bench(path, ios)
        except Exception as exc:
            text = str(exc).strip()
            first = text.splitlines()[0] if text else type(exc).__name__
            row["skipped"] = first
            say(f"   {path.stem:<22}skipped, does not load: {first}")
            continue
        try:
            walls: list[float] = []
            result = None
            while len(walls) < repeat and sum(walls) < SCENARIO_BUDGET_S:
                result, wall = timed(lambda spec=spec: sanpath.run(spec))
                walls.append(wall)
            assert result is not None
            # Peak memory is flat in the run length (section 3), so a shorter traced run
            # gives the same peak in a fraction of the time.
            short = spec.with_overrides({"run.ios": min(spec.run.ios, 20_000)})
            traced, traced_wall = timed(lambda short=short: sanpath.run(short, trace_memory=True))
        except Exception:
            crashed = True
            row["error"] = traceback.format_exc()
            say(f"   {path.stem:<22}CRASHED:")
            say(traceback.format_exc())
            continue
        completed = result.totals["ios_completed"]  # an automatic warm-up may run longer
        wall = min(walls)
        slow = 3.0 if compiled.core() == "python" else 1.0
        estimate = budget.estimate(spec)  # counts run.ios + run.warmup_ios: per I/O here
        estimated = estimate.seconds / estimate.ios * completed * slow
        commands = result.counters.get("commands", 0) / result.ios if result.ios else 0.0
        row.update(
            note=note,
            completed=completed,
            wall_s=walls,
            ios_per_s=completed / wall,
            commands_per_io=commands,
            sim_iops=result.iops,
            latency_ms=result.latency_ms["mean"],
            peak_memory_mb=traced.extra["peak_memory_mb"],
            traced_wall_s=traced_wall,
            estimate_s=estimated,
        )
        say(
            f"   {path.stem:<22}{fmt_int(row['ios_per_s']):>15}{commands:>7.2f}{len(walls):>5}"
            f"{wall:>8.2f}{estimated:>8.2f}{result.iops:>11.1f}{result.latency_ms['mean']:>9.3f}"
            f"{row['peak_memory_mb']:>9.2f}{traced_wall:>10.1f}"
        )
        if note:
            say(f"   {'':<22}note: {note}")
        if result.ios < ios:
            say(f"   {'':<22}note: stopped by run.max_time after {result.ios} measured I/Os")
    say()
    return rows, crashed


# ---------------------------------------------------------------------------------------
# 3. Memory flatness (subprocesses)
# ---------------------------------------------------------------------------------------


def _maxrss_mb() -> float:
    """getrusage's ru_maxrss in MB.

    On Linux a child inherits the high-water mark of the process that started it (it is
    kept across fork and exec), so in a subprocess of a big parent this reads the parent's
    size: see :func:`_hwm_mb`.
    """
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return rss / 1e6 if sys.platform == "darwin" else rss / 1024  # bytes on macOS, else KiB


def _proc_status_mb(field: str) -> float | None:
    """A ``kB`` field of /proc/self/status in MB (Linux only; None elsewhere)."""
    try:
        text = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in text.splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return None


def _hwm_mb() -> float | None:
    """Peak RSS of this process image only (VmHWM, reset by exec; Linux only)."""
    return _proc_status_mb("VmHWM")


def child_memory(ios: int, mode: str) -> None:
    """Run quickstart for ``ios`` I/Os in this (fresh) process; print figures as JSON."""
    spec = sanpath.load_scenario(QUICKSTART, {"run.ios": ios, "run.warmup_ios": ios // 10})
    rss_before = _proc_status_mb("VmRSS")
    t0 = time.perf_counter()
    result = sanpath.run(spec, trace_memory=mode == "trace")
    wall = time.perf_counter() - t0
    out = {
        "ios": ios,
        "mode": mode,
        "completed": result.ios + ios // 10,
        "wall_s": wall,
        "ru_maxrss_mb": _maxrss_mb(),
        "hwm_mb": _hwm_mb(),
        "rss_before_mb": rss_before,
        "rss_after_mb": _proc_status_mb("VmRSS"),
        "peak_memory_mb": result.extra.get("peak_memory_mb"),
    }
    print(json.dumps(out))


def run_child(ios: int, mode: str) -> dict[str, Any]:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--child-memory", str(ios), mode]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    # The child's own peak: VmHWM where there is one, else ru_maxrss (an upper bound).
    figures["peak_rss_mb"] = figures["hwm_mb"] or figures["ru_maxrss_mb"]
    return figures


def bench_memory(sizes: tuple[int, ...]) -> dict[str, Any]:
    say(f"3. Memory flatness: {QUICKSTART.relative_to(ROOT)}, each run in a fresh subprocess")
    say("   peak RSS: the subprocess's VmHWM (imports included); ru_maxrss: getrusage, which on")
    say("   Linux also counts the parent's size at fork (an upper bound); RSS before and after")
    say("   sanpath.run; tracemalloc: peak of a second, traced run (several times slower)")
    say()
    say(
        f"   {'I/Os':>11}{'peak RSS':>10}{'ru_maxrss':>11}{'RSS before':>12}{'RSS after':>11}"
        f"{'tracemalloc':>13}{'I/O per wall s':>16}{'traced s':>10}"
    )

    def mb(x: float | None) -> str:
        return "-" if x is None else f"{x:.1f}"

    runs = {}
    for ios in sizes:
        plain = run_child(ios, "rss")
        traced = run_child(ios, "trace")
        runs[ios] = {"plain": plain, "traced": traced}
        speed = plain["completed"] / plain["wall_s"]
        say(
            f"   {fmt_int(ios):>11}{plain['peak_rss_mb']:>10.1f}{plain['ru_maxrss_mb']:>11.1f}"
            f"{mb(plain['rss_before_mb']):>12}{mb(plain['rss_after_mb']):>11}"
            f"{traced['peak_memory_mb']:>13.2f}{fmt_int(speed):>16}{traced['wall_s']:>10.1f}"
        )
    say("   (MB throughout)")
    small, large = runs[sizes[0]], runs[sizes[-1]]
    trace_growth = large["traced"]["peak_memory_mb"] / small["traced"]["peak_memory_mb"]
    rss_growth = large["plain"]["peak_rss_mb"] - small["plain"]["peak_rss_mb"]
    say(
        f"   {fmt_int(sizes[-1])} vs {fmt_int(sizes[0])} I/Os: tracemalloc peak"
        f" x{trace_growth:.2f}, peak RSS {rss_growth:+.1f} MB"
    )
    say()
    return {
        "runs": {str(k): v for k, v in runs.items()},
        "tracemalloc_growth": trace_growth,
        "rss_growth_mb": rss_growth,
        "large_peak_rss_mb": large["plain"]["peak_rss_mb"],
    }


# ---------------------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------------------


def verdict(ok: bool | None) -> str:
    return "skipped" if ok is None else ("PASS" if ok else "MISS")


SWEEP_SPEEDUP_TARGET = 1.7
"""A 40-point sweep in 2 local processes against the same sweep run serially."""


def bench_sweep(ios: int) -> dict[str, Any]:
    """Time a 40-point sweep serially and with ``jobs=2`` (same table both ways)."""
    from sanpath.experiments.sweep import sweep

    base = sanpath.load_scenario(
        ROOT / "scenarios" / "quickstart.yaml",
        overrides={"run.ios": ios, "run.warmup_ios": ios // 10},
    )
    grid = {
        "hosts.0.hbas.0.queue_depth": [2, 4, 8, 16, 32],
        "workloads.0.outstanding": [1, 2, 4, 8, 16, 32, 64, 128],
    }
    say(
        f"4. Sweep speed-up: 40 points of quickstart ({fmt_int(ios)} I/Os each), serial "
        "against 2 local processes"
    )
    serial, t_serial = timed(lambda: sweep(base, grid, cache=None))
    parallel, t_parallel = timed(lambda: sweep(base, grid, cache=None, jobs=2))
    same = same_tables(serial, parallel)
    speedup = t_serial / t_parallel
    say(
        f"   serial {t_serial:.1f} s, jobs=2 {t_parallel:.1f} s: speed-up {speedup:.2f}x; "
        f"identical tables: {same}"
    )
    say()
    return {"serial_s": t_serial, "parallel_s": t_parallel, "speedup": speedup, "same": same}


def summary(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    cp = report["closed_path"]
    pure = cp["pure_python"]
    if report["core"] == "compiled":
        compiled_ratio, pure_ratio = cp["ratio"], None if pure is None else pure["ratio"]
    else:
        compiled_ratio, pure_ratio = None, cp["ratio"]
    rows.append(
        {
            "what": "closed path, compiled core: sanpath / reference",
            "measured": "-" if compiled_ratio is None else f"{compiled_ratio:.2f}x",
            "target": f">= {SPEED_RATIO_TARGET:g}x",
            "ok": None if compiled_ratio is None else compiled_ratio >= SPEED_RATIO_TARGET,
        }
    )
    rows.append(
        {
            "what": "closed path, pure-Python core: sanpath / reference",
            "measured": "-" if pure_ratio is None else f"{pure_ratio:.2f}x",
            "target": f">= {PURE_RATIO_TARGET:g}x",
            "ok": None if pure_ratio is None else pure_ratio >= PURE_RATIO_TARGET,
        }
    )
    rows.append(
        {
            "what": "closed path: throughput agreement",
            "measured": f"{100 * cp['throughput_difference']:.2f}%",
            "target": f"<= {100 * AGREEMENT_TARGET:g}%",
            "ok": cp["throughput_difference"] <= AGREEMENT_TARGET,
        }
    )
    for row in report["scenarios"]:
        name = Path(row["scenario"]).stem
        if "ios_per_s" in row:
            measured, ok = fmt_int(row["ios_per_s"]), row["ios_per_s"] >= SCENARIO_SPEED_TARGET
        else:
            measured, ok = ("did not load" if "skipped" in row else "crashed"), None
        rows.append(
            {
                "what": f"scenario {name}: I/O per wall s",
                "measured": measured,
                "target": f">= {fmt_int(SCENARIO_SPEED_TARGET)}",
                "ok": ok if "error" not in row else False,
            }
        )
    factors = [
        max(row["estimate_s"] / min(row["wall_s"]), min(row["wall_s"]) / row["estimate_s"])
        for row in report["scenarios"]
        if "estimate_s" in row
    ]
    if factors:
        rows.append(
            {
                "what": "run budget: time estimate off by (worst)",
                "measured": f"x{max(factors):.2f}",
                "target": f"<= x{ESTIMATE_FACTOR:g}",
                "ok": max(factors) <= ESTIMATE_FACTOR,
            }
        )
    sw = report.get("sweep")
    if sw is not None:
        rows.append(
            {
                "what": "40-point sweep: 2 processes / serial",
                "measured": f"{sw['speedup']:.2f}x",
                "target": f">= {SWEEP_SPEEDUP_TARGET:g}x",
                "ok": sw["speedup"] >= SWEEP_SPEEDUP_TARGET and sw["same"],
            }
        )
    mem = report.get("memory")
    rows.append(
        {
            "what": "1,000,000-I/O run: peak RSS",
            "measured": "-" if mem is None else f"{mem['large_peak_rss_mb']:.0f} MB",
            "target": f"< {RSS_TARGET_MB:g} MB",
            "ok": None if mem is None else mem["large_peak_rss_mb"] < RSS_TARGET_MB,
        }
    )
    rows.append(
        {
            "what": "memory flat: tracemalloc peak 1M / 100k",
            "measured": "-" if mem is None else f"x{mem['tracemalloc_growth']:.2f}",
            "target": f"<= x{FLAT_TARGET:g}",
            "ok": None if mem is None else mem["tracemalloc_growth"] <= FLAT_TARGET,
        }
    )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="smaller runs, no 1M-I/O run")
    parser.add_argument("--json", metavar="FILE", help="also save every figure as JSON")
    parser.add_argument("--repeat", type=int, help="timed rounds (default 3, 2 with --quick)")
    parser.add_argument("--child-memory", nargs=2, help=argparse.SUPPRESS)
    parser.add_argument("--child-closed-path", nargs=2, type=int, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child_memory:
        child_memory(int(args.child_memory[0]), args.child_memory[1])
        return 0
    if args.child_closed_path:
        child_closed_path(*args.child_closed_path)
        return 0

    repeat = args.repeat or (2 if args.quick else 3)
    closed_ios = 40_000 if args.quick else 200_000
    scenario_ios = 20_000 if args.quick else 100_000
    cpus = os.cpu_count()
    say(
        f"sanpath {sanpath.__version__} benchmarks ({'quick' if args.quick else 'full'} run)"
        f"  Python {platform.python_version()}, SimPy {simpy.__version__}, NumPy "
        f"{np.__version__}, {platform.system()} {platform.machine()}, {cpus} CPUs"
    )
    say(f"sanpath runs its {compiled.describe()} (sanpath/compiled.py)")
    say("Wall-clock figures from a possibly shared machine: read the ratios.")
    say()
    report: dict[str, Any] = {
        "date": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()),
        "command": " ".join(["bench.py", *(argv if argv is not None else sys.argv[1:])]),
        "mode": "quick" if args.quick else "full",
        "python": platform.python_version(),
        "simpy": simpy.__version__,
        "numpy": np.__version__,
        "platform": platform.platform(),
        "cpus": cpus,
        "core": compiled.core(),
        "repeat": repeat,
    }
    report["closed_path"] = bench_closed_path(closed_ios, repeat)
    report["scenarios"], crashed = bench_scenarios(scenario_ios, repeat)
    if args.quick:
        say("3. Memory flatness: skipped with --quick")
        say()
        report["memory"] = None
    else:
        try:
            report["memory"] = bench_memory((100_000, 1_000_000))
        except Exception:
            crashed = True
            report["memory"] = None
            say(traceback.format_exc())

    report["sweep"] = bench_sweep(4_000 if args.quick else 10_000)
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from tests.benchmarks.bench_trace import bench_trace
    from tests.benchmarks.bench_trace import summary_rows as trace_rows

    try:
        report["trace"] = bench_trace(200_000 if args.quick else 1_000_000)
    except Exception:
        crashed = True
        report["trace"] = None
        say(traceback.format_exc())
    try:  # sections 6-8: a thousand hosts, the twin on them, a sweep on Dask
        report["scale"] = scale_bench.run_sections(args.quick, min(repeat, 2))
    except Exception:
        crashed = True
        report["scale"] = {}
        say(traceback.format_exc())
    try:  # the datasheet flash drive against the simple ssd model, per I/O
        say("9. Flash drive cost per I/O (flash_speed.py)")
        report["flash"] = flash_speed.sections()
    except Exception:
        crashed = True
        report["flash"] = {}
        say(traceback.format_exc())
    rows = summary(report)
    if report["trace"] is not None:
        rows += trace_rows(report["trace"])
    rows += scale_bench.summary_rows(report["scale"])
    rows += flash_speed.summary_rows(report["flash"])
    report["summary"] = rows
    say("Summary")
    say(f"   {'what':<48}{'measured':>14}{'target':>14}  result")
    for row in rows:
        say(f"   {row['what']:<48}{row['measured']:>14}{row['target']:>14}  {verdict(row['ok'])}")
    if args.json:
        path = Path(args.json)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(report, indent=2, default=str) + "\n")
        say(f"\nfigures saved to {path}")
    return 1 if crashed else 0


if __name__ == "__main__":
    sys.exit(main())
