"""fio-shaped output of runs and sweeps, with each workload written in fio's words.

:mod:`sanpath.results.fio_json` turns a result into fio's JSON and knows no scenario; this
module adds what only the scenario knows: each workload's ``job options`` as fio options
(:func:`job_options`), and a sweep as one fio job per point (:func:`sweep_fio_json`).

A workload in fio's words (strings, as fio writes ``job options``):

* ``rw``: ``randread``/``read`` for read_fraction 1, ``randwrite``/``write`` for 0, else
  ``randrw``/``rw`` with ``rwmixread`` the read percentage (rounded to a whole percent, as
  fio takes it);
* ``bs`` for one block size, ``bssplit`` (``4k/50:8k/30:64k/20``, whole percents adding to
  100) for a mix; sizes with fio's 1024-based ``k``/``m``;
* a closed loop: ``iodepth`` = ``outstanding`` (per thread and LUN), ``numjobs`` =
  ``threads``;
* an open loop: ``rate_iops`` the workload's whole offered rate (its rate per host times its
  hosts), split ``reads,writes`` by the read fraction and rounded to whole I/Os per second,
  and ``rate_process=poisson``;
* ``description``: the workload in sanpath's own words (hosts, LUNs, loop).

``sanpath import`` and ``calibrate`` read these back into the same fields (``outstanding``
= iodepth, ``threads`` = numjobs, the block-size mix, the read fraction).
"""

from __future__ import annotations

import concurrent.futures as cf
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sanpath.experiments.sweep import Grid, point_scenario, sweep_plan
from sanpath.experiments.workers import local_pool
from sanpath.results import RunResult, combine, fio_document, fio_job
from sanpath.spec import Scenario, WorkloadSpec, load_scenario

_SUFFIXES = ((1 << 30, "g"), (1 << 20, "m"), (1 << 10, "k"))

WARNINGS_KEY = "sanpath warnings"
"""The key of a sweep's fio job listing its run's warnings (absent when there are none)."""


def fio_size(size: int) -> str:
    """``size`` bytes as fio writes a size (``8k``, ``1m``; bytes when not a multiple)."""
    for unit, suffix in _SUFFIXES:
        if size % unit == 0:
            return f"{size // unit}{suffix}"
    return str(size)


def _percents(weights: Sequence[float]) -> list[int]:
    """Whole percents adding to 100, by largest remainder."""
    total = sum(weights)
    exact = [100.0 * w / total for w in weights]
    out = [int(x) for x in exact]
    order = sorted(range(len(exact)), key=lambda i: out[i] - exact[i])
    for i in order[: 100 - sum(out)]:
        out[i] += 1
    return out


def _count(names: tuple[str, ...] | str, groups: Sequence[Any]) -> int:
    """Instances of the named groups (``all``: every group), counting each group's count."""
    return sum(g.count for g in groups if names == "all" or g.name in names)


def workload_options(scenario: Scenario, workload: WorkloadSpec) -> dict[str, str]:
    """One workload of ``scenario`` as fio job options (see the module docstring)."""
    w = workload
    random = w.pattern == "random"
    opts: dict[str, str] = {"name": w.name}
    if w.read_fraction >= 1.0:
        opts["rw"] = "randread" if random else "read"
    elif w.read_fraction <= 0.0:
        opts["rw"] = "randwrite" if random else "write"
    else:
        opts["rw"] = "randrw" if random else "rw"
        opts["rwmixread"] = str(round(100 * w.read_fraction))
    if len(w.block_size) == 1:
        opts["bs"] = fio_size(w.block_size[0][0])
    else:
        parts = zip(w.block_size, _percents([wt for _, wt in w.block_size]), strict=True)
        opts["bssplit"] = ":".join(f"{fio_size(s)}/{p}" for (s, _), p in parts if p > 0)
    hosts = _count(w.hosts, scenario.hosts)
    luns = _count(w.luns, scenario.array.luns)
    where = f"{hosts} host(s) x {luns} LUN(s)"
    if w.rate is None:
        opts["iodepth"] = str(w.outstanding_per_lun)
        opts["numjobs"] = str(w.threads)
        loop = f"closed loop, {w.outstanding_per_lun} outstanding per thread and LUN"
    else:
        total = w.rate * hosts
        reads = round(total * w.read_fraction)
        writes = round(total * (1.0 - w.read_fraction))
        if w.read_fraction >= 1.0:
            opts["rate_iops"] = str(reads)
        elif w.read_fraction <= 0.0:
            opts["rate_iops"] = f",{writes}"
        else:
            opts["rate_iops"] = f"{reads},{writes}"
        opts["rate_process"] = "poisson"
        loop = f"open loop, {w.rate:g} I/O per s per host"
    copy = f", copies to {', '.join(w.copy_to.luns)}" if w.copy_to is not None else ""
    opts["description"] = f"sanpath workload {w.name}: {loop}, {where}{copy}"
    return opts


def job_options(scenario: Scenario) -> dict[str, dict[str, str]]:
    """fio job options of every workload of ``scenario``, by workload name."""
    return {w.name: workload_options(scenario, w) for w in scenario.workloads}


def run_fio_json(
    scenario: Scenario, result: RunResult, *, timestamp: float | None = None
) -> dict[str, Any]:
    """``result`` (a run of ``scenario``) as fio JSON, its workloads in fio's words."""
    return result.to_fio_json(job_options(scenario), timestamp=timestamp)


def _window(result: RunResult) -> dict[str, str]:
    """``runtime`` and ``ramp_time`` of one run, in us."""
    out = {"runtime": f"{round(result.sim_seconds * 1e6)}us"}
    warmup = result.run_info.get("warmup_seconds")
    if isinstance(warmup, int | float) and math.isfinite(warmup):
        out["ramp_time"] = f"{round(warmup * 1e6)}us"
    return out


def fio_point(data: dict[str, Any], name: str, replicate: int, groupid: int) -> dict[str, Any]:
    """Run one sweep point and return it as one fio job (top level: picklable for pools).

    The job holds every workload of the point together; its options are the workload's
    when the point has one, with the point's window (``runtime``, ``ramp_time``). A run that
    is not steady state, or whose intervals are in doubt, says so in the job's
    ``"sanpath warnings"`` list (:data:`WARNINGS_KEY`; fio has no such key, and readers of fio's
    JSON pass it by).
    """
    from sanpath.sim import run

    scenario = load_scenario(data)
    result = run(scenario, replicate=replicate, force=True)
    workloads = result.groups.get("workloads", {})
    fig = combine(name, workloads.values())
    if len(scenario.workloads) == 1:
        options = workload_options(scenario, scenario.workloads[0])
        options["name"] = name
    else:
        names = ", ".join(w.name for w in scenario.workloads)
        options = {"name": name, "description": f"sanpath workloads {names}, together"}
    options.update(_window(result))
    job = fio_job(name, fig, options, groupid=groupid)
    if result.warnings:
        job[WARNINGS_KEY] = run_warnings(result)
    return job


def run_warnings(result: RunResult) -> list[str]:
    """A run's warnings, each marked ``NOT STEADY STATE:`` when the run is not steady."""
    mark = "" if result.steady else "NOT STEADY STATE: "
    return [mark + text for text in result.warnings]


def sweep_fio_json(
    scenario: Scenario | str | Path | Mapping[str, Any],
    grid: Grid | None = None,
    replicates: int | None = None,
    *,
    zipped: Mapping[str, Sequence[Any]] | None = None,
    jobs: int | None = None,
    executor: cf.Executor | None = None,
    force: bool = False,
    timestamp: float | None = None,
) -> dict[str, Any]:
    """Run a sweep and return fio JSON with one job per point (and replicate).

    Points are those of :func:`sanpath.experiments.sweep.sweep` (``grid``, ``zipped``, or
    the scenario's ``sweep:`` section). Each job is named after its point's varied keys
    (``hosts.0.count=4, workloads.0.outstanding=8``; ``base`` without any), with
    ``, replicate=R`` when there are several replicates, and is its own fio group
    (``groupid`` = its index). Every point is run: the sweep cache holds table rows, not
    the latency histograms a fio job needs. Budgets are checked before the first run, as
    in a sweep (``force`` skips that).
    """
    from sanpath.sim import budget

    base, points, replicates, source = sweep_plan(scenario, grid, zipped, replicates, force)
    tasks: list[tuple[dict[str, Any], str, int, int]] = []
    for point in points:
        spec = point_scenario(base, point, source)
        label = ", ".join(f"{k}={v}" for k, v in point.items()) or "base"
        if not force:
            at_once = jobs if executor is None and jobs else 1
            budget.check(spec, source=source, runs_at_once=at_once, context=f"sweep ({label}): ")
        for r in range(replicates):
            name = f"{label}, replicate={r}" if replicates > 1 else label
            tasks.append((spec.to_data(), name, r, len(tasks)))
    if executor is None and (not jobs or jobs <= 1 or len(tasks) <= 1):
        out = [fio_point(*task) for task in tasks]
    else:
        own = executor is None
        pool = executor if executor is not None else local_pool(jobs)
        try:
            futures = [pool.submit(fio_point, *task) for task in tasks]
            out = [f.result() for f in futures]
        finally:
            if own:
                pool.shutdown(wait=True, cancel_futures=True)
    return fio_document(out, global_options={"direct": "1"}, timestamp=timestamp)
