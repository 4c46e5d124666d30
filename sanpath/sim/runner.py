"""Running one scenario: load it, check its budget, simulate it, return the result.

:func:`run` is ``sanpath.run``: the one call a notebook, the CLI, sweeps, checks and
calibration use to simulate a scenario.
"""

from __future__ import annotations

import dataclasses
import tracemalloc
from pathlib import Path
from typing import Any

from sanpath.results import RunResult
from sanpath.sim import budget
from sanpath.sim.engine import Simulation
from sanpath.spec import Scenario, assumptions, load_line, load_scenario


def run(
    scenario: Scenario | Any,
    seed: int | None = None,
    overrides: dict[str, Any] | None = None,
    replicate: int = 0,
    trace_memory: bool = False,
    force: bool = False,
    progress: bool | None = False,
) -> RunResult:
    """Run one scenario and return its :class:`~sanpath.results.RunResult`.

    Parameters
    ----------
    scenario
        A :class:`~sanpath.spec.scenario.Scenario`, a path to a YAML file, or a dict.
    seed
        Overrides the scenario's seed.
    overrides
        Dotted keys to change first, e.g. ``{"hosts.0.hbas.0.queue_depth": 16}``.
    replicate
        Index of an independent replication (separate random streams, same seed).
    trace_memory
        Record the peak Python memory of the run (slower; for benchmarks).
    force
        Run even when :func:`sanpath.sim.budget.check` estimates more memory or time than its
        limits (without it such a run raises :class:`~sanpath.spec.scenario.ScenarioError` at the
        field that drives the estimate, before anything is built).
    progress
        Show a progress bar on standard error (:class:`sanpath.sim.progress.RunProgress`): True
        always, None when standard error is a terminal and the run lasts more than a few
        seconds, False (the default) never.
    """
    spec = load_scenario(scenario, overrides)
    if not force:
        source = str(scenario) if isinstance(scenario, str | Path) else "<scenario>"
        budget.check(spec, source=source)
    if trace_memory:
        tracemalloc.start()
    sim = Simulation(spec, seed=seed, replicate=replicate)
    bar = None
    if progress is not False:
        from sanpath.sim.progress import RunProgress

        bar = RunProgress(spec.name, disable=None if progress is None else False)
        sim.measure.progress = bar
    try:
        result = sim.run()
    finally:
        if bar is not None:
            bar.close()
    # how the result was made, and what was simulated in a line (plot subtitles)
    result = result.with_extra(overrides=dict(spec.overrides), workload=load_line(spec))
    used = tuple(a.as_dict() for a in assumptions(spec))
    if used:
        result = dataclasses.replace(result, assumptions=used)
    if trace_memory:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
        result = result.with_extra(peak_memory_mb=peak / 1e6)
    return result
