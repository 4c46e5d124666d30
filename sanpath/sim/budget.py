"""What a run will cost, estimated before it starts: peak memory and wall time.

A scenario that validates can still be impossible to run: ten million hosts, a trillion
I/Os, an open loop offered a million times what the array can carry.
:func:`~sanpath.sim.cost.estimate` counts what ``sanpath.sim.topology`` and the engine would
build and how many events the run would process, from the validated scenario alone (no
simulation, well under a millisecond per host group); :func:`check` refuses a run beyond
:data:`MAX_MEMORY_BYTES` (or the memory the machine has available) or :data:`MAX_SECONDS`,
with a :class:`~sanpath.spec.scenario.ScenarioError` located at the field that drives the
estimate (``hosts.0.count``, ``run.ios``, ``run.max_ios``, ``workloads.0.rate``, ...) and
naming the override: ``--force`` on the command line, ``force=True`` in Python.

The work is in three modules, one job each: ``sanpath.sim.sizing`` counts what a run
builds and asks of the path (paths, sources, processes, an optimistic IOPS bound, the run's
length); :mod:`sanpath.sim.cost` turns the counts into bytes and seconds with calibrated
constants (:func:`~sanpath.sim.cost.estimate`, :class:`~sanpath.sim.cost.Estimate`,
:data:`~sanpath.sim.cost.BASE_BYTES`; what is counted and how it was calibrated is told
there); this module holds the limits and the check that refuses a run, and re-exports
``estimate``, ``Estimate`` and ``BASE_BYTES``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Final

from sanpath.sim.cost import BASE_BYTES as BASE_BYTES
from sanpath.sim.cost import Estimate, estimate, format_bytes
from sanpath.spec import Problem, Scenario, ScenarioError, locate_field
from sanpath.units import format_duration

__all__ = [
    "MAX_MEMORY_BYTES",
    "MAX_SECONDS",
    "Estimate",
    "available_memory",
    "check",
    "estimate",
]

# -- limits --------------------------------------------------------------------------------

MAX_MEMORY_BYTES: Final = 8e9
"""Refuse a run estimated to need more memory than this, bytes (8 GB)."""
MEMORY_SHARE: Final = 0.9
"""... or more than this share of the memory the machine has available right now."""
MAX_SECONDS: Final = 3600.0
"""Refuse a run estimated to take longer than this, wall seconds (1 hour)."""


def available_memory() -> float | None:
    """Memory the machine has available now (MemAvailable on Linux), bytes; None if unknown."""
    try:
        with open("/proc/meminfo", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("MemAvailable:"):
                    return float(line.split()[1]) * 1024.0
    except OSError:
        pass
    try:
        return float(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError, AttributeError):
        return None


def check(
    s: Scenario,
    *,
    source: str | Path = "<scenario>",
    runs_at_once: int = 1,
    context: str = "",
) -> Estimate:
    """Estimate ``s`` and refuse it beyond the limits; return the estimate otherwise.

    Parameters
    ----------
    s
        A validated scenario.
    source
        Where it came from (a YAML path locates the error's line), for the message.
    runs_at_once
        Runs sharing the machine's memory (a sweep's local worker processes).
    context
        Prefix of the message, e.g. ``"sweep point hosts.0.count=64: "``.

    Raises
    ------
    ScenarioError
        At the field driving the estimate, giving the estimate and the override to use.
    """
    est = estimate(s)
    memory = est.memory_bytes * max(runs_at_once, 1)
    limit, why = MAX_MEMORY_BYTES, f"sanpath's limit of {format_bytes(MAX_MEMORY_BYTES)}"
    available = available_memory()
    if available is not None and MEMORY_SHARE * available < limit:
        limit, why = (
            MEMORY_SHARE * available,
            f"the {format_bytes(available)} this machine has free",
        )
    if memory > limit:
        problem = (est.memory_field, f"needs more memory than {why}")
    elif est.seconds > MAX_SECONDS:
        problem = (
            est.seconds_field,
            f"would take longer than sanpath's limit of {format_duration(MAX_SECONDS)}",
        )
    else:
        return est
    path, reason = problem
    shared = f" ({runs_at_once} runs at once)" if runs_at_once > 1 else ""
    message = (
        f"{context}this run {reason}: estimated {est.text()}{shared}. Make it smaller here, "
        "or pass --force (command line) or force=True (Python) to run it anyway"
    )
    raise ScenarioError([Problem(str(source), *locate_field(source, path), path, message)])
