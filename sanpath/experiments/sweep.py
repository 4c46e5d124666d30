"""Sweeps: run a scenario at every point of a grid of knob values, in parallel if asked.

A capacity planner never asks for one point: ``sweep`` varies dotted keys (every
combination of ``grid``, crossed with keys varied together in ``zipped``), runs each point
``replicates`` times and returns a :class:`SweepResult` whose ``table`` is a tidy pandas
DataFrame: one row per point and replicate, the varied keys as columns, ``replicate``,
``seed``, ``overrides`` (JSON text of every dotted override the point ran with: the base
scenario's own, ``Scenario.overrides``, then the point's), then the headline figures of
:meth:`sanpath.results.RunResult.flat`.

Seeds and streams: replicate ``r`` of every point runs with the scenario's seed and
replicate index ``r``, so each random source draws from
``SeedSequence(seed, spawn_key=(r, crc32(source)))`` (see :mod:`sanpath.sim.streams`). The same
replicate uses the same random numbers at every point (common random numbers), and a point
gives the same numbers whichever executor runs it: serially, in local processes or on a Dask
cluster (``executor=client.get_executor()``).

Finished points are kept in an on-disk cache (:mod:`sanpath.experiments.cache`) keyed by the
content of the point's scenario, of every file it reads (a trace) and of sanpath's own code,
so an interrupted sweep resumes where it stopped and a changed model or trace never reuses
old points; Ctrl-C returns the points finished so far. The cache's folder is checked before
the first point runs, and a damaged entry is moved aside with a warning and run again.

A table written with ``out`` (``sanpath sweep --out``) records the sweep's identity (a hash
of the base scenario, the points and the replicates: a ``sweep_id`` key in JSON, a sidecar
``<table>.csv.sweep.json`` beside CSV). The same sweep run again with the same ``out`` takes
its finished points from the cache and overwrites its own table; a different sweep refuses
to overwrite it unless ``force=True`` (``--force``), so two sweeps never silently share one
file. ``out`` is checked, and every point's cost estimated (:mod:`sanpath.sim.budget`), before
the first point runs.
"""

from __future__ import annotations

import concurrent.futures as cf
import hashlib
import itertools
import json
import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pandas as pd

from sanpath.experiments.cache import (
    DEFAULT_CACHE,
    open_cache,
    read_entry,
    scenario_files,
    task_key,
    write_entry,
)
from sanpath.experiments.workers import local_pool, max_jobs
from sanpath.files import OutputError
from sanpath.results import SweepResult, check_table_path, finite
from sanpath.sim import budget
from sanpath.spec import Scenario, ScenarioError, load_line, load_scenario, value_range

Grid = Mapping[str | tuple[str, ...], Sequence[Any]]

MAX_RUNS = 100_000
"""The most runs (points x replicates) a sweep plans without ``force``: a larger grid is
refused before its points are built (each point holds its own scenario)."""


def check_size(
    grid: Grid | None,
    zipped: Mapping[str, Sequence[Any]] | None,
    replicates: int,
    force: bool = False,
) -> int:
    """The number of runs a sweep plans (points x replicates), counted before the points are
    built; refused beyond :data:`MAX_RUNS` unless ``force``.

    Raises
    ------
    ValueError
        Naming the grid's size and the way out (a narrower grid, or ``--force``).
    """
    points = 1
    for values in (grid or {}).values():
        points *= len(values)
    if zipped:
        points *= max((len(v) for v in zipped.values()), default=1)
    runs = points * replicates
    if runs > MAX_RUNS and not force:
        shape = " x ".join(str(len(v)) for v in (grid or {}).values()) or "1"
        raise ValueError(
            f"sweep: {points:,} points ({shape}) x {replicates} replicate(s) = {runs:,} runs, "
            f"more than the {MAX_RUNS:,} sanpath plans at once; narrow --vary (or the "
            "scenario's sweep section), or pass --force (command line) or force=True (Python)"
        )
    return runs


def sweep_plan(
    scenario: Scenario | str | Path | Mapping[str, Any],
    grid: Grid | None,
    zipped: Mapping[str, Sequence[Any]] | None,
    replicates: int | None,
    force: bool = False,
) -> tuple[Scenario, list[dict[str, Any]], int, str]:
    """The base scenario, the points, the replicates and the source name of a sweep.

    Without ``grid`` and ``zipped`` the scenario's own ``sweep:`` section gives them (and
    the replicates, unless given). The grid's size is checked (:func:`check_size`) before
    its points are built.
    """
    base = load_scenario(scenario)
    if grid is None and zipped is None and base.sweep is not None:
        grid = {key: list(values) for key, values in base.sweep.vary.items()}
        zipped = {key: list(values) for key, values in base.sweep.zip.items()} or None
        if replicates is None:
            replicates = base.sweep.replicates
    source = str(scenario) if isinstance(scenario, str | Path) else "<scenario>"
    check_size(grid, zipped, replicates or 1, force)
    return base, expand_grid(grid, zipped), replicates or 1, source


def point_scenario(base: Scenario, point: Mapping[str, Any], source: str) -> Scenario:
    """``base`` without its ``sweep:`` section, changed by one sweep ``point``.

    Raises
    ------
    ScenarioError
        Located at ``sweep`` in ``source``, when the point is not a valid scenario.
    """
    plain = base.model_copy(update={"sweep": None})
    if not point:
        return plain
    try:
        return plain.with_overrides(dict(point))
    except ScenarioError as exc:
        reasons = "; ".join(f"{p.path}: {p.message}" for p in exc.problems)
        raise ScenarioError.at(
            "sweep", f"point {dict(point)} is not a valid scenario ({reasons})", source
        ) from None


def expand_grid(
    grid: Grid | None = None, zipped: Mapping[str, Sequence[Any]] | None = None
) -> list[dict[str, Any]]:
    """Points of a sweep: the product of ``grid`` crossed with ``zipped`` lists.

    A tuple key in ``grid`` (``("hosts.0.count", "array.port_queue_depth")``) varies its
    keys together; its values are tuples.
    """
    axes: list[list[dict[str, Any]]] = []
    for key, values in (grid or {}).items():
        if isinstance(key, tuple):
            axes.append([dict(zip(key, v, strict=True)) for v in values])
        else:
            axes.append([{key: v} for v in values])
    if zipped:
        lengths = {len(v) for v in zipped.values()}
        if len(lengths) != 1:
            raise ValueError("zipped keys need lists of the same length")
        n = lengths.pop()
        axes.append([{k: zipped[k][i] for k in zipped} for i in range(n)])
    points = []
    for combo in itertools.product(*axes):
        point: dict[str, Any] = {}
        for part in combo:
            point.update(part)
        points.append(point)
    return points


@dataclass(frozen=True)
class Task:
    """One run of a sweep: picklable, pure, and the unit of work for any executor."""

    data: dict[str, Any]
    point: dict[str, Any]
    replicate: int
    key: str

    @property
    def label(self) -> str:
        return ", ".join(f"{k}={v}" for k, v in self.point.items()) or "base"


def run_task(task: Task) -> dict[str, Any]:
    """Run one sweep task (a top-level function, so process pools and Dask can pickle it)."""
    from sanpath.sim import run
    from sanpath.spec import load_scenario
    from sanpath.theory import explain

    scenario = load_scenario(task.data)
    result = run(scenario, replicate=task.replicate, force=True)  # sweep() checked it
    result = explain(scenario, result)
    row: dict[str, Any] = dict(task.point)
    row["replicate"] = task.replicate
    row["seed"] = result.seed
    row.update(result.flat())
    row["wall_seconds"] = result.wall_seconds
    row["warning_text"] = " | ".join(result.warnings)
    row["hosts"] = json.dumps(
        {
            name: {
                "iops": g.iops,
                "latency_ms_mean": finite(g.latency_ms["mean"]),
                "latency_ms_p99": finite(g.latency_ms["p99"]),
                "qfull": g.qfull,
            }
            for name, g in result.groups.get("hosts", {}).items()
        }
    )
    return row


def sweep_identity(base: Scenario, points: Sequence[Mapping[str, Any]], replicates: int) -> str:
    """A hash of what a sweep computes: its base scenario, its points and its replicates."""
    text = json.dumps(
        {
            "scenario": base.model_copy(update={"sweep": None}).to_data(),
            "points": [dict(point) for point in points],
            "replicates": replicates,
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _json_value(value: Any) -> Any:
    """Make an override value usable as a DataFrame cell (dicts become JSON text)."""
    if isinstance(value, Mapping | list | tuple):
        return json.dumps(value, sort_keys=True, default=str)
    return value


def sweep(
    scenario: Scenario | str | Path | Mapping[str, Any],
    grid: Grid | None = None,
    replicates: int | None = None,
    executor: cf.Executor | None = None,
    progress: bool = False,
    *,
    zipped: Mapping[str, Sequence[Any]] | None = None,
    jobs: int | None = None,
    cache: str | Path | None = DEFAULT_CACHE,
    analytic: bool = False,
    out: str | Path | None = None,
    force: bool = False,
) -> SweepResult:
    """Run ``scenario`` at every point of ``grid`` and return the table.

    Parameters
    ----------
    scenario
        A Scenario, a YAML path or a dict. Without ``grid`` and ``zipped``, its own
        ``sweep:`` section is used.
    grid
        ``{dotted key: [values]}``; every combination is a point. Keys may use ``*``
        (``hosts.*.hbas.*.queue_depth``); a tuple of keys varies them together.
    replicates
        Independent replications per point (default: the ``sweep`` section's, or 1).
    executor
        Any ``concurrent.futures.Executor`` (e.g. Dask's ``client.get_executor()``).
    progress
        Show a progress bar (tqdm; notebook-aware).
    zipped
        Keys varied together (equal-length lists), crossed with ``grid``.
    jobs
        Run in this many local processes when no executor is given.
    cache
        Folder keeping finished points (None: no cache); left at
        :data:`~sanpath.experiments.cache.DEFAULT_CACHE`, the
        environment variable ``SANPATH_CACHE`` may name another. Created and checked before
        the first point runs.
    analytic
        Add the analytic twin's IOPS and mean latency as ``twin_iops`` and
        ``twin_latency_ms_mean`` columns.
    out
        Write the table here (``.csv`` or ``.json``), also when interrupted. Checked before
        the first point runs; an existing table is overwritten only if this same sweep wrote
        it (see :meth:`SweepResult.save`).
    force
        Run points whose estimated memory or time is beyond :mod:`sanpath.sim.budget`'s limits,
        and overwrite ``out`` whatever wrote it.

    Raises
    ------
    ScenarioError
        For a point that is not a valid scenario, or (without ``force``) one beyond the
        budget, before anything runs.
    sanpath.files.OutputError
        For an ``out`` that cannot or may not be written, or a cache folder that cannot be
        written, before anything runs.

    Warns
    -----
    sanpath.experiments.cache.CacheWarning
        For each damaged cache entry, moved aside (its point runs again).
    """
    if jobs is not None and not 1 <= jobs <= max_jobs():
        raise ValueError(
            f"jobs={jobs}: expected 1 to {max_jobs()} local processes (4 per core of this "
            "machine's " + f"{os.cpu_count() or 1}); a cluster takes an executor instead"
        )
    base, points, replicates, source = sweep_plan(scenario, grid, zipped, replicates, force)
    keys = list(points[0]) if points and points[0] else []
    identity = sweep_identity(base, points, replicates)
    if out is not None:
        check_table_path(out, identity, force)
    cache_dir = open_cache(cache)
    tasks = []
    specs: dict[str, tuple[dict[str, Any], Scenario]] = {}
    made_with: list[str] = []  # per task: the overrides its point ran with, as JSON text
    parallel = executor is not None or (jobs or 0) > 1
    seconds: dict[str, float] = {}  # per task key: its run's estimated wall time (parallel)
    for point in points:
        spec = point_scenario(base, point, source)
        data = spec.to_data()
        overrides = json.dumps({**base.overrides, **point}, default=str)
        point_seconds = budget.estimate(spec).seconds if parallel else 0.0
        files = scenario_files(spec)
        for r in range(replicates):
            tasks.append(Task(data, point, r, task_key(data, r, files)))
            seconds[tasks[-1].key] = point_seconds
            made_with.append(overrides)
        specs[tasks[-1].key] = (point, spec)

    rows: dict[str, dict[str, Any]] = {}
    if cache_dir is not None:
        for task in tasks:
            row = read_entry(cache_dir, task.key)
            if row is not None:
                rows[task.key] = row
    todo = [t for t in tasks if t.key not in rows]
    if not force:
        at_once = jobs if executor is None and jobs else 1
        for key in {t.key for t in todo} & set(specs):
            point, spec = specs[key]
            label = ", ".join(f"{k}={v}" for k, v in point.items()) or "base scenario"
            budget.check(spec, source=source, runs_at_once=at_once, context=f"sweep ({label}): ")
    if parallel:
        todo = longest_first(todo, seconds)
    complete = True
    bar = _progress(len(tasks), len(tasks) - len(todo), progress)
    try:
        for task, row in _execute(todo, executor, jobs):
            rows[task.key] = row
            if cache_dir is not None and not write_entry(cache_dir, task.key, row):
                cache_dir = None  # the disk is full: the sweep goes on, keeping rows in memory
            if bar is not None:
                bar.update(1)
    except KeyboardInterrupt:
        complete = False
    finally:
        if bar is not None:
            bar.close()
    # copies: two points may run the same scenario (one cached row), yet differ in overrides
    done = [
        (t, dict(rows[t.key]), o) for t, o in zip(tasks, made_with, strict=True) if t.key in rows
    ]
    for task, row, overrides in done:
        for k, v in task.point.items():
            row[k] = _json_value(v)
        row["overrides"] = overrides
    ordered = [row for _, row, _ in done]
    table = pd.DataFrame(ordered)
    if analytic and not table.empty:
        table = _add_twin(table, tasks, rows)
    if not table.empty:
        front = [*keys, "replicate", "seed", "overrides"]
        table = table[front + [c for c in table.columns if c not in front]]
    attrs: dict[str, Any] = {
        "replicates": replicates,
        "points": len(points),
        "overrides": json.loads(json.dumps(base.overrides, default=str)),
        "workload": load_line(base, {k: value_range(k, [p.get(k) for p in points]) for k in keys}),
    }
    attrs.update(fan_in_figures(base))
    result = SweepResult(table, keys, base.name, complete, attrs, identity)
    if out is not None:
        try:
            result.save(out, force=force)
        except OutputError as exc:
            if cache_dir is None:
                raise
            raise OutputError(
                f"{exc} (the finished points are kept in {cache_dir}: the same sweep with "
                "another --out writes its table without running them again)"
            ) from None
    return result


def fan_in_figures(scenario: Scenario) -> dict[str, Any]:
    """The fan-in arithmetic for plots: a port's queue and one host's commands at it.

    ``commands_per_host`` is what one host of the first group can have outstanding at one
    array port: its active paths x the LUNs it uses x the per-LUN depth (the smaller of the
    host queue depth and the HBA queue depth), spread evenly over the array ports it sees.
    """
    from sanpath.spec import lun_groups_used, visible_ports

    out: dict[str, Any] = {}
    if scenario.array.port_queue_depth is None:
        return out
    out["port_queue_depth"] = scenario.array.port_queue_depth
    host = scenario.hosts[0]
    depths = [d for d in (host.lun_queue_depth, host.hbas[0].queue_depth) if d is not None]
    if not depths:
        return out
    groups = set(lun_groups_used(scenario, host.name))
    luns = sum(g.count for g in scenario.array.luns if g.name in groups)
    visible = visible_ports(scenario, host)
    ports_seen = {a for ports in visible for a in ports} or {0}
    paths = sum(len(ports) for ports in visible)
    active = 1 if host.multipath == "failover" else paths
    out["commands_per_host"] = active * luns * min(depths) // len(ports_seen)
    return out


def longest_first(tasks: Sequence[Task], seconds: Mapping[str, float]) -> list[Task]:
    """``tasks`` in decreasing order of their run's estimated wall time (``seconds``, by task
    key, from :func:`sanpath.sim.budget.estimate`); equal estimates keep their order.

    Workers take tasks in the order they are sent. Sent longest first, the short runs fill
    the gaps at the end, and no worker is left finishing the sweep's largest point alone
    while the others wait (longest processing time first). The table keeps the grid's order
    whatever order the runs finish in.
    """
    return sorted(tasks, key=lambda t: -seconds[t.key])


def _execute(
    tasks: list[Task], executor: cf.Executor | None, jobs: int | None
) -> Iterator[tuple[Task, dict[str, Any]]]:
    """Run tasks serially, in a local process pool, or on the given executor."""
    if executor is None and (jobs is None or jobs <= 1 or len(tasks) <= 1):
        for task in tasks:
            yield task, run_task(task)
        return
    own = executor is None
    pool = executor if executor is not None else local_pool(jobs)
    futures: dict[cf.Future[dict[str, Any]], Task] = {}
    try:
        futures = {pool.submit(run_task, task): task for task in tasks}
        for future in cf.as_completed(futures):
            yield futures[future], future.result()
    except KeyboardInterrupt:
        for future in futures:
            future.cancel()
        raise
    finally:
        if own:
            pool.shutdown(wait=True, cancel_futures=True)


def _progress(total: int, done: int, enabled: bool) -> Any:
    if not enabled:
        return None
    from tqdm.auto import tqdm

    return tqdm(total=total, initial=done, unit="run", desc="sweep")


def _add_twin(
    table: pd.DataFrame, tasks: list[Task], rows: dict[str, dict[str, Any]]
) -> pd.DataFrame:
    from sanpath.theory.twin import predict

    twin_iops, twin_latency = [], []
    for task in tasks:
        if task.key not in rows:
            continue
        prediction = predict(load_scenario(task.data))
        twin_iops.append(prediction.iops)
        twin_latency.append(prediction.latency_ms_mean)
    table = table.copy()
    table["twin_iops"] = twin_iops
    table["twin_latency_ms_mean"] = twin_latency
    return table
