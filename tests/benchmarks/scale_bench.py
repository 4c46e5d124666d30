"""Enterprise scale: a thousand hosts against one host, the twin, and a sweep on Dask.

Usage::

    .venv/bin/python tests/benchmarks/scale_bench.py            # every section (10 minutes)
    .venv/bin/python tests/benchmarks/scale_bench.py --quick    # shorter runs, 40-point sweep
    .venv/bin/python tests/benchmarks/scale_bench.py --section 6  # only the topology scale

``make bench`` runs these sections after its own (``tests/benchmarks/bench.py``), as its
sections 6 to 8.

6. Topology scale. ``scenarios/enterprise.yaml`` (1,000 hosts in eight groups, 64 LUNs,
   16 array ports) against the *one-host run of the same scenario*: every host group cut to
   one host that offers the whole group's load, so both runs carry the same I/O mix at the
   same total rate; and the issue's configuration (the quickstart with 64 LUNs on an SSD
   pool, 16 array ports zoned all-to-all, an open loop of 100,000 I/O per s spread over 1
   or 1,000 hosts). Each run is a fresh subprocess: build time (``Simulation(...)``), I/O per
   wall second and per CPU second of ``run()`` (every application I/O completed, warm-up
   included), peak RSS of the process (VmHWM, imports included). The pairs run one after
   the other, ``--repeat`` times, best of each; the machine is shared, so the ratio is what
   counts, and the CPU-second ratio is the steadier one.
7. The analytic twin's prediction of the enterprise scenario (best of ``--repeat``, a fresh
   scenario object each time so nothing is reused).
8. A 200-point sweep of the enterprise scenario (its eight host counts x 25 replicates,
   short fixed runs) serially, on a Dask ``LocalCluster`` with two single-threaded worker
   processes (with :data:`sanpath.experiments.dask_settings.SWEEP_SETTINGS`, then again with
   Dask's defaults for comparison), and on a cluster started with the ``dask scheduler`` and
   ``dask worker`` commands (the commands of a multi-machine cluster, here on this machine,
   with the settings as environment variables); the tables must be identical. Before the
   timing, the serial process and every worker run one short task, and one more goes
   through the scheduler (which unpickles the tasks it is sent, importing sanpath there),
   so imports and first-use caches are paid outside it on both sides, as they are once in
   a long-lived cluster. The machine's load average (and the CPU time other
   processes took) during each is printed beside it: on a shared machine two workers get
   less than two cores.

Targets: build under 5 s and peak memory under 1 GB at 1,000 hosts; at least half the
one-host run's I/O per wall second; the twin under 100 ms; the Dask sweep at least 1.7 times
faster than serial. A missed target prints MISS; the script exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from common import same_tables, say  # tests/benchmarks/common.py, beside this script

ROOT = Path(__file__).resolve().parents[2]
ENTERPRISE = ROOT / "scenarios" / "enterprise.yaml"
QUICKSTART = ROOT / "scenarios" / "quickstart.yaml"

BUILD_TARGET_S = 5.0
MEMORY_TARGET_MB = 1000.0
RATE_TARGET = 0.5
"""I/O per wall second at 1,000 hosts over the one-host run's."""
TWIN_TARGET_MS = 100.0
DASK_TARGET = 1.7
ONE_BLAS_THREAD = {"OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
"""The environment of ``dask worker`` (as docs/howto/dask.md starts it): a simulation needs no
parallel linear algebra, and idle BLAS threads of two workers compete for the cores."""
DASK_DEFAULTS = "LocalCluster, Dask's default settings"
"""The same cluster without ``SWEEP_SETTINGS``, printed beside it for comparison."""
DASK_REPLICATES = 25
"""Replicates of each of the enterprise sweep's 8 points: 200 runs."""


# ---------------------------------------------------------------------------------------
# 6. Topology scale (each run in a fresh subprocess)
# ---------------------------------------------------------------------------------------


def short_run(ios: int) -> dict[str, Any]:
    """A fixed run of ``ios`` measured I/Os after a 10% warm-up."""
    return {"run.ios": ios, "run.warmup_ios": ios // 10, "run.warmup": "fixed"}


def one_host_per_group(path: Path) -> dict[str, Any]:
    """Overrides cutting every host group of ``path`` to one host carrying its whole load
    (each open-loop workload's per-host rate times the hosts it ran on)."""
    from sanpath.spec import load_scenario

    spec = load_scenario(path)
    counts = {h.name: h.count for h in spec.hosts}
    out: dict[str, Any] = {f"hosts.{i}.count": 1 for i in range(len(spec.hosts))}
    for wi, w in enumerate(spec.workloads):
        if w.rate is None:
            continue
        names = list(counts) if w.hosts == "all" else list(w.hosts)
        out[f"workloads.{wi}.rate"] = w.rate * sum(counts[n] for n in names)
    return out


def issue_config(hosts: int) -> dict[str, Any]:
    """The issue's measurement: quickstart with 64 LUNs on SSDs, 16 ports (all-to-all), an
    open loop of 100,000 I/O per s spread over ``hosts`` hosts."""
    return {
        "array.ports": 16,
        "array.luns.0.count": 64,
        "array.pools.0.drive": "ssd",
        "hosts.0.count": hosts,
        "workloads.0.outstanding": None,
        "workloads.0.rate": 100_000 / hosts,
    }


def child_scale(path: str, overrides: str) -> None:
    """Build and run one scenario in this (fresh) process; print its figures as JSON."""
    import sanpath
    from sanpath.sim.engine import Simulation

    spec = sanpath.load_scenario(path, json.loads(overrides))
    rss_before = _status_mb("VmRSS")
    c0, t0 = time.process_time(), time.perf_counter()
    sim = Simulation(spec)
    c1, t1 = time.process_time(), time.perf_counter()
    result = sim.run()
    c2, t2 = time.process_time(), time.perf_counter()
    done = result.totals["ios_completed"]
    print(
        json.dumps(
            {
                "hosts": sum(h.count for h in spec.hosts),
                "luns": sum(g.count for g in spec.array.luns),
                "build_s": t1 - t0,
                "build_cpu_s": c1 - c0,
                "run_s": t2 - t1,
                "run_cpu_s": c2 - c1,
                "ios": done,
                "io_per_s": done / (t2 - t1),
                "io_per_cpu_s": done / (c2 - c1),
                "peak_rss_mb": _status_mb("VmHWM"),
                "rss_before_mb": rss_before,
                "iops": result.iops,
                "latency_ms": result.latency_ms["mean"],
            }
        )
    )


def _status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def run_child(path: Path, overrides: dict[str, Any]) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", str(path), json.dumps(overrides)]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr}")
    figures: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return figures


def best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The fastest of repeated runs (shortest wall and CPU times, highest peak memory)."""
    out = dict(min(runs, key=lambda r: r["run_s"]))
    for key in ("build_s", "build_cpu_s", "run_s", "run_cpu_s"):
        out[key] = min(r[key] for r in runs)
    out["io_per_s"] = out["ios"] / out["run_s"]
    out["io_per_cpu_s"] = out["ios"] / out["run_cpu_s"]
    out["peak_rss_mb"] = max(r["peak_rss_mb"] for r in runs)
    return out


def scale_pair(
    label: str, path: Path, one: dict[str, Any], many: dict[str, Any], repeat: int
) -> dict[str, Any]:
    rounds: dict[str, list[dict[str, Any]]] = {"one": [], "many": []}
    for _ in range(repeat):  # interleaved, so both see the same machine
        rounds["one"].append(run_child(path, one))
        rounds["many"].append(run_child(path, many))
    a, b = best(rounds["one"]), best(rounds["many"])
    for name, r in (("one", a), ("many", b)):
        say(
            f"   {label + ' ' + name:<34}{r['hosts']:>6,}{r['build_s']:>9.2f}{r['run_s']:>8.2f}"
            f"{r['io_per_s']:>11,.0f}{r['io_per_cpu_s']:>11,.0f}{r['peak_rss_mb']:>9.0f}"
            f"{r['iops']:>11,.0f}{r['latency_ms']:>9.3f}"
        )
    ratio, cpu_ratio = b["io_per_s"] / a["io_per_s"], b["io_per_cpu_s"] / a["io_per_cpu_s"]
    say(f"   {'':<34}I/O rate {b['hosts']:,} hosts / one: x{ratio:.2f} wall, x{cpu_ratio:.2f} CPU")
    return {"one": a, "many": b, "ratio": ratio, "cpu_ratio": cpu_ratio, "rounds": rounds}


def bench_topology(ios: int, repeat: int) -> dict[str, Any]:
    say(f"6. Topology scale: fixed runs of {ios:,} I/Os (+10% warm-up), a fresh process each")
    say("   build: Simulation(...); I/O per s: every I/O completed over run() wall / CPU time;")
    say("   peak MB: the process's peak RSS (imports included); best of the rounds")
    say()
    say(
        f"   {'run':<34}{'hosts':>6}{'build s':>9}{'run s':>8}{'I/O per s':>11}"
        f"{'per CPU s':>11}{'peak MB':>9}{'sim IOPS':>11}{'mean ms':>9}"
    )
    out = {
        "enterprise": scale_pair(
            "enterprise",
            ENTERPRISE,
            {**short_run(ios), **one_host_per_group(ENTERPRISE)},
            short_run(ios),
            repeat,
        ),
        "issue": scale_pair(
            "issue quickstart 64 LUNs",
            QUICKSTART,
            {**short_run(ios), **issue_config(1)},
            {**short_run(ios), **issue_config(1000)},
            repeat,
        ),
    }
    say()
    return out


# ---------------------------------------------------------------------------------------
# 7. The twin
# ---------------------------------------------------------------------------------------


def bench_twin(repeat: int) -> dict[str, Any]:
    from sanpath.spec import load_scenario
    from sanpath.theory.twin import predict

    base = load_scenario(ENTERPRISE)
    times = []
    pred = None
    for _ in range(max(repeat, 3)):
        fresh = base.model_copy(update={"name": base.name})  # the twin caches per object
        t0 = time.perf_counter()
        pred = predict(fresh)
        times.append(time.perf_counter() - t0)
    assert pred is not None
    ms = min(times) * 1e3
    say("7. The analytic twin on the enterprise scenario (a fresh scenario object each time)")
    say(
        f"   predict: {ms:.1f} ms (best of {len(times)}; first {times[0] * 1e3:.1f} ms): "
        f"{pred.iops:,.0f} IOPS, {pred.latency_ms_mean:.3f} ms, bottleneck {pred.bottleneck}"
    )
    say()
    return {"ms": ms, "times_ms": [t * 1e3 for t in times], "iops": pred.iops}


# ---------------------------------------------------------------------------------------
# 8. The sweep on Dask
# ---------------------------------------------------------------------------------------


def bench_dask(ios: int, replicates: int) -> dict[str, Any]:
    import dask
    from distributed import Client, LocalCluster

    import sanpath
    from sanpath.experiments.dask_settings import SWEEP_SETTINGS
    from sanpath.experiments.sweep import sweep

    base = sanpath.load_scenario(ENTERPRISE, short_run(ios))
    points = len(base.sweep.zip[next(iter(base.sweep.zip))]) if base.sweep else 1
    say(
        f"8. Sweep on Dask: the enterprise sweep's {points} host counts x {replicates} "
        f"replicates = {points * replicates} runs of {ios:,} I/Os, serial against 2 worker "
        "processes (1 thread each): a LocalCluster with the sweep settings of "
        "sanpath.experiments.dask_settings, the same with Dask's defaults, then a cluster "
        "started with the `dask scheduler` and `dask worker` commands (the settings as "
        "environment variables). Each side first runs one short task (imports and first-use "
        "caches; on Dask on every worker and once through the scheduler), as a long-lived "
        "cluster would have"
    )
    warm = warm_up_task(base)
    run_task(warm)
    t0, busy0 = time.perf_counter(), machine_busy_s()
    serial = sweep(base, replicates=replicates, cache=None)
    t_serial = time.perf_counter() - t0
    load_serial = machine_load(busy0, t_serial)
    timed: dict[str, tuple[float, bool, dict[str, Any]]] = {}
    for name, settings in (("LocalCluster", SWEEP_SETTINGS), (DASK_DEFAULTS, {})):
        with (
            dask.config.set(settings),
            LocalCluster(
                n_workers=2, threads_per_worker=1, host="127.0.0.1", dashboard_address=None
            ) as cluster,
            Client(cluster) as client,
        ):
            timed[name] = dask_sweep(client, base, replicates, warm, serial)
    with (
        command_line_cluster(workers=2) as scheduler_file,
        Client(scheduler_file=str(scheduler_file)) as client,
    ):
        timed["dask scheduler + dask worker"] = dask_sweep(client, base, replicates, warm, serial)
    say(f"   serial {t_serial:.1f} s")
    for name, (seconds, same, _) in timed.items():
        say(
            f"   {name} {seconds:.1f} s: speed-up x{t_serial / seconds:.2f}; "
            f"identical tables: {same}"
        )
    loads = [("serial", load_serial)] + [(name, t[2]) for name, t in timed.items()]
    for name, busy in loads:
        say(
            f"   while {name}: {busy['cores_busy']:.2f} of {busy['cores']} cores busy on average,"
            f" load average {busy['loadavg_1min']:.2f} at the end"
        )
    say()
    t_dask, same, load_dask = timed["LocalCluster"]
    t_cli, same_cli, load_cli = timed["dask scheduler + dask worker"]
    t_default, same_default, _ = timed[DASK_DEFAULTS]
    return {
        "runs": len(serial.table),
        "serial_s": t_serial,
        "dask_s": t_dask,
        "speedup": t_serial / t_dask,
        "same": same,
        "cli_s": t_cli,
        "cli_speedup": t_serial / t_cli,
        "cli_same": same_cli,
        "default_s": t_default,
        "default_speedup": t_serial / t_default,
        "default_same": same_default,
        "load_serial": load_serial,
        "load_dask": load_dask,
        "load_cli": load_cli,
    }


def warm_up_task(base: Any) -> Any:
    """One short run of ``base`` as a sweep task (100 I/Os), run before the timing starts."""
    from sanpath.experiments.sweep import Task

    short = base.with_overrides({"run.ios": 100, "run.warmup_ios": 10, "sweep": None})
    return Task(data=short.to_data(), point={}, replicate=0, key="warm-up")


def run_task(task: Any) -> None:
    from sanpath.experiments.sweep import run_task as run_one

    run_one(task)


def dask_sweep(
    client: Any, base: Any, replicates: int, warm: Any, serial: Any
) -> tuple[float, bool, dict[str, Any]]:
    """Wall seconds of the sweep on ``client``'s workers (each warmed with ``warm`` first),
    whether its table is ``serial``'s, and the machine's load meanwhile."""
    from sanpath.experiments.sweep import run_task as run_one
    from sanpath.experiments.sweep import sweep

    client.wait_for_workers(2)
    client.run(run_one, warm)  # on every worker
    # and once through the scheduler, which unpickles each task it is sent: its first one
    # imports sanpath's sweep module there (about a second, once per scheduler process)
    client.submit(run_one, warm, pure=False).result()
    t0, busy0 = time.perf_counter(), machine_busy_s()
    result = sweep(base, replicates=replicates, cache=None, executor=client.get_executor())
    seconds = time.perf_counter() - t0
    return seconds, same_tables(serial, result), machine_load(busy0, seconds)


@contextlib.contextmanager
def command_line_cluster(workers: int) -> Iterator[Path]:
    """A scheduler and ``workers`` single-threaded worker processes started with the
    ``dask scheduler`` and ``dask worker`` commands, on this machine: the same commands as on
    several machines. Yields the scheduler file to connect with."""
    from sanpath.experiments.dask_settings import environment

    dask = Path(sys.executable).with_name("dask")
    with tempfile.TemporaryDirectory() as tmp:
        scheduler_file = Path(tmp) / "scheduler.json"
        common = ["--scheduler-file", str(scheduler_file), "--no-dashboard"]
        quiet = {"stdout": subprocess.DEVNULL, "stderr": subprocess.DEVNULL}
        scheduler = subprocess.Popen(
            [str(dask), "scheduler", "--host", "127.0.0.1", "--port", "0", *common],
            env={**os.environ, **environment()},
            **quiet,
        )
        worker = None
        try:
            deadline = time.monotonic() + 60
            while not scheduler_file.exists():
                if time.monotonic() > deadline or scheduler.poll() is not None:
                    raise RuntimeError("dask scheduler did not start")
                time.sleep(0.1)
            worker = subprocess.Popen(
                [str(dask), "worker", "--nworkers", str(workers), "--nthreads", "1", *common],
                env={**os.environ, **ONE_BLAS_THREAD, **environment()},
                **quiet,
            )
            yield scheduler_file
        finally:
            for process in (worker, scheduler):
                if process is not None:
                    process.terminate()
                    process.wait(timeout=30)


def machine_busy_s() -> float:
    """CPU seconds every process of the machine has run since boot (/proc/stat: user, nice,
    system, irq, softirq, steal; nan where there is no /proc)."""
    try:
        fields = Path("/proc/stat").read_text().splitlines()[0].split()[1:]
    except OSError:
        return float("nan")
    ticks = sum(int(fields[i]) for i in (0, 1, 2, 5, 6, 7))
    return ticks / os.sysconf("SC_CLK_TCK")


def machine_load(busy0: float, wall: float) -> dict[str, Any]:
    """How busy the machine was over the last ``wall`` seconds: cores busy on average (every
    process's CPU time, this benchmark's included, over the wall time), the 1-minute load
    average now, and the cores there are."""
    return {
        "cores_busy": (machine_busy_s() - busy0) / wall,
        "loadavg_1min": os.getloadavg()[0],
        "cores": os.cpu_count(),
    }


# ---------------------------------------------------------------------------------------
# Summary rows (bench.py prints them with its own)
# ---------------------------------------------------------------------------------------


def pair_rows(label: str, pair: dict[str, Any]) -> list[dict[str, Any]]:
    """Build time, peak memory and I/O rate ratio of one scale pair, against the targets."""
    many = pair["many"]
    return [
        {
            "what": f"{label} {many['hosts']:,} hosts x {many['luns']} LUNs: build",
            "measured": f"{many['build_s']:.2f} s",
            "target": f"< {BUILD_TARGET_S:g} s",
            "ok": many["build_s"] < BUILD_TARGET_S,
        },
        {
            "what": f"{label} {many['hosts']:,} hosts: peak memory",
            "measured": f"{many['peak_rss_mb']:.0f} MB",
            "target": f"< {MEMORY_TARGET_MB:g} MB",
            "ok": many["peak_rss_mb"] < MEMORY_TARGET_MB,
        },
        {
            "what": f"{label}: I/O per wall s, {many['hosts']:,} hosts / one",
            "measured": f"x{pair['ratio']:.2f}",
            "target": f">= x{RATE_TARGET:g}",
            "ok": pair["ratio"] >= RATE_TARGET,
        },
    ]


def summary_rows(report: dict[str, Any]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    topo = report.get("topology")
    if topo is not None:
        rows += pair_rows("enterprise", topo["enterprise"])
        rows += pair_rows("quickstart", topo["issue"])
    twin = report.get("twin")
    if twin is not None:
        rows.append(
            {
                "what": "twin: enterprise prediction",
                "measured": f"{twin['ms']:.1f} ms",
                "target": f"< {TWIN_TARGET_MS:g} ms",
                "ok": twin["ms"] < TWIN_TARGET_MS,
            }
        )
    dask = report.get("dask")
    if dask is not None:
        rows.append(
            {
                "what": f"{dask['runs']}-run enterprise sweep: Dask / serial",
                "measured": f"x{dask['speedup']:.2f}",
                "target": f">= x{DASK_TARGET:g}",
                "ok": dask["speedup"] >= DASK_TARGET and dask["same"],
            }
        )
        rows.append(
            {
                "what": "same, dask scheduler + dask worker / serial",
                "measured": f"x{dask['cli_speedup']:.2f}",
                "target": f">= x{DASK_TARGET:g}",
                "ok": dask["cli_speedup"] >= DASK_TARGET and dask["cli_same"],
            }
        )
    return rows


SECTIONS = (6, 7, 8)


def run_sections(quick: bool, repeat: int, sections: tuple[int, ...] = SECTIONS) -> dict[str, Any]:
    """The sections numbered in ``sections``, every one by default (``make bench`` calls
    this after its own)."""
    report: dict[str, Any] = {}
    if 6 in sections:
        report["topology"] = bench_topology(20_000 if quick else 100_000, repeat)
    if 7 in sections:
        report["twin"] = bench_twin(repeat)
    if 8 in sections:
        report["dask"] = bench_dask(1_000, 5 if quick else DASK_REPLICATES)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="shorter runs, 40-run sweep")
    parser.add_argument("--repeat", type=int, default=2, help="rounds of each timed run")
    parser.add_argument("--json", metavar="FILE", help="also save every figure as JSON")
    parser.add_argument(
        "--section",
        type=int,
        action="append",
        choices=SECTIONS,
        help="run only this section (repeat the flag for several; all by default)",
    )
    parser.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child_scale(*args.child)
        return 0
    report = run_sections(args.quick, args.repeat, tuple(args.section or SECTIONS))
    say("Summary")
    for row in summary_rows(report):
        verdict = "PASS" if row["ok"] else "MISS"
        say(f"   {row['what']:<48}{row['measured']:>14}{row['target']:>14}  {verdict}")
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2, default=str) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
