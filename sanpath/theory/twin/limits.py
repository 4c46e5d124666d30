"""Where the twin's figures cannot be trusted, and a schedule cut into its phases.

The twin is a mean-value model of one steady setting. :func:`caveats` names the cases where
its figure can be off by a factor rather than a few percent, so that a caller says so beside
the figure (and sends the question to the simulator) instead of printing it as an answer:

* a QUEUE FULL storm: hosts keep more commands than the array's queues accept, and the
  refused commands' retries and the hosts' throttling are a dynamic the twin only bounds;
* copy jobs: only their reads are modelled;
* closed workloads of very different I/O sizes sharing a busy link: aggregated into one
  class, the small I/Os' wait behind the large transfers is not known;
* a saturated pool of SPTF hard disks that also destages a write-back cache, or whose
  sequential streams the twin treats as random: near saturation the drives' queue-dependent
  speed-up (``g(j)``) decides the throughput, and the twin's is an approximation.

A scenario with a ``schedule`` changes its settings while it runs: :func:`phases` gives one
scenario per phase (the settings in force from each change on), each predicted on its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sanpath.layout import station_name
from sanpath.spec import HddSpec, Scenario
from sanpath.theory.twin.prediction import TwinPrediction

__all__ = ["BUSY_LINK", "DESTAGE_NOTE", "MIXED_SIZES", "SATURATED", "Phase", "caveats", "phases"]

SATURATED = 0.95
"""Utilisation of a pool of SPTF hard disks from which its figures are flagged (with destage
load or shared sequential streams on it)."""

DESTAGE_NOTE = "write-back destage treated as background load"
"""How the twin's note on a write-back cache's destage begins."""


@dataclass(frozen=True)
class Phase:
    """The settings in force from ``start_s`` (seconds of simulated time) on."""

    start_s: float
    changes: dict[str, Any]
    """Every scheduled change made by then (dotted key -> value)."""
    scenario: Scenario
    """The scenario with those changes and no schedule."""


def phases(scenario: Scenario) -> list[Phase]:
    """The scenario's phases in time order: the first at 0 s with no change; one phase
    without a schedule."""
    changes: dict[str, Any] = {}
    out = [Phase(0.0, {}, scenario.with_overrides({"schedule": []}))]
    for change in sorted(scenario.schedule, key=lambda c: float(c.at)):
        changes = {**changes, **change.set}
        out.append(
            Phase(float(change.at), changes, scenario.with_overrides({**changes, "schedule": []}))
        )
    return out


def _saturated_pools(scenario: Scenario, prediction: TwinPrediction) -> list[str]:
    out = []
    for pool in scenario.array.pools:
        drive = pool.drive
        if not isinstance(drive, HddSpec) or drive.scheduler != "sptf":
            continue
        busy = prediction.utilization.get(station_name("drives", pool=pool.name), 0.0)
        shared = f"sequential streams share the drives of pool {pool.name}"
        why = [
            text
            for text, prefix in (
                ("their destage is background load", DESTAGE_NOTE),
                ("sequential streams on them are treated as random", shared),
            )
            if any(note.startswith(prefix) for note in prediction.notes)
        ]
        if busy >= SATURATED and why:
            out.append(
                f"saturated SPTF pool: the drives of pool {pool.name} are {busy:.0%} busy and "
                f"{' and '.join(why)}; there the drives' queue-dependent speed-up decides the "
                "throughput and the twin's is an approximation"
            )
    return out


def caveats(scenario: Scenario, prediction: TwinPrediction) -> list[str]:
    """Why ``prediction`` of ``scenario`` may be off by a factor (empty: it applies)."""
    out = []
    if any(note.startswith("QUEUE FULL") for note in prediction.notes):
        out.append(
            "QUEUE FULL storm: hosts keep more commands than the array's queues accept; the "
            "twin bounds the population at the limits, the simulator follows the refusals, "
            "retries and throttling"
        )
    copies = [w.name for w in scenario.workloads if w.copy_to is not None]
    if copies:
        out.append(
            f"copy jobs ({', '.join(copies)}): only their reads are modelled, not the writes "
            "that empty their buffers"
        )
    return out + _mixed_sizes(scenario, prediction) + _saturated_pools(scenario, prediction)


MIXED_SIZES = 16.0
"""Ratio of the largest to the smallest mean I/O size among closed workloads from which their
aggregation into one class is off by a factor where they share a busy link."""
BUSY_LINK = 0.5
"""Utilisation of a link from which small I/Os' waits behind large transfers matter."""


def _mixed_sizes(scenario: Scenario, prediction: TwinPrediction) -> list[str]:
    """Closed workloads of very different sizes sharing a busy link: the twin aggregates them
    into one class, whose residence per unit of work cannot say how long the small I/Os wait
    behind the large transfers (vi_queue_depth_2012: the twin's IOPS is four times the
    simulator's)."""
    sizes = {w.name: w.mean_block_size for w in scenario.workloads if w.closed}
    if len(sizes) < 2 or max(sizes.values()) < MIXED_SIZES * min(sizes.values()):
        return []
    links = [(u, name) for name, u in prediction.utilization.items() if ".link." in name]
    if not links or max(links)[0] < BUSY_LINK:
        return []
    busy, name = max(links)
    large = max(sizes, key=lambda w: sizes[w])
    small = min(sizes, key=lambda w: sizes[w])
    return [
        f"I/Os of very different sizes share a busy link: {large} ({sizes[large] / 1024:,.0f} "
        f"KiB on average) and {small} ({sizes[small] / 1024:,.1f} KiB) cross {name} "
        f"({busy:.0%} busy); the twin aggregates them into one class and cannot say how long "
        "the small ones wait behind the large transfers (IOPS off by a factor either way)"
    ]
