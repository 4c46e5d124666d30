"""The analytic twin against the simulator on the shipped scenarios: the table of
``docs/twin.md``, written by ``make validation`` so that the page's figures are never typed.

Every scenario runs shortened to :data:`REPORT_OVERRIDES` (10,000 measured I/Os, no schedule:
the twin predicts the settings at time zero) and is predicted by the twin; a few variants
(:data:`VARIANTS`) show what one change does to the gap. Beside the errors the table gives
Little's law for closed loops: the I/Os the workloads keep outstanding over the simulated
IOPS, the mean latency every outstanding I/O would see; where it is longer than the simulated
mean, I/Os were held back (QUEUE FULL, throttling) beyond the measured window.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sanpath.files import write_text
from sanpath.readable import number, percent
from sanpath.spec import Scenario, load_scenario

__all__ = [
    "REPORT_OVERRIDES",
    "VARIANTS",
    "Accuracy",
    "accuracy_markdown",
    "outstanding_ios",
    "twin_accuracy",
    "write_twin_accuracy",
]

REPORT_OVERRIDES: dict[str, Any] = {
    "run.ios": 10_000,
    "run.warmup_ios": 2_000,
    "run.duration": None,
    "schedule": [],
}
"""How every scenario is shortened for the comparison."""

VARIANTS: dict[str, tuple[str, dict[str, Any]]] = {
    "fast-track-2012, random offsets": ("fast_track_2012", {"workloads.0.pattern": "random"}),
}
"""Extra rows: a label, the scenario file's stem and the overrides that make the variant."""


@dataclass(frozen=True)
class Accuracy:
    """One scenario simulated and predicted."""

    scenario: str
    sim_iops: float
    twin_iops: float
    sim_ms: float
    twin_ms: float
    bottleneck: str
    outstanding: int | None
    """I/Os the closed-loop workloads keep outstanding (None for open loops, copy jobs and
    think times, where Little's law needs more than the settings)."""

    @property
    def little_ms(self) -> float:
        """Outstanding I/Os over the simulated IOPS, in ms (NaN without ``outstanding``)."""
        if self.outstanding is None or self.sim_iops <= 0:
            return math.nan
        return self.outstanding / self.sim_iops * 1e3


def outstanding_ios(scenario: Scenario) -> int | None:
    """Application I/Os the workloads keep in flight: hosts x LUNs x threads x outstanding,
    summed over the workloads; None when one is an open loop, a copy job or thinks."""
    total = 0
    for w in scenario.workloads:
        if not w.closed or w.copy_to is not None or w.think_time is not None:
            return None
        hosts = sum(h.count for h in scenario.hosts if w.hosts == "all" or h.name in w.hosts)
        luns = sum(g.count for g in scenario.array.luns if w.luns == "all" or g.name in w.luns)
        total += hosts * luns * w.threads * w.outstanding_per_lun
    return total


def _compare(label: str, scenario: Scenario) -> Accuracy:
    from sanpath.sim import run
    from sanpath.theory.twin import predict

    result = run(scenario)
    twin = predict(scenario)
    return Accuracy(
        label,
        result.iops,
        twin.iops,
        result.latency_ms["mean"],
        twin.latency_ms_mean,
        twin.bottleneck,
        outstanding_ios(scenario),
    )


def twin_accuracy(
    paths: Sequence[str | Path], shorten: dict[str, Any] | None = None
) -> list[Accuracy]:
    """Every scenario of ``paths`` (and the :data:`VARIANTS` of them) simulated and predicted,
    each shortened by ``shorten`` (default :data:`REPORT_OVERRIDES`)."""
    common = REPORT_OVERRIDES if shorten is None else shorten
    rows = []
    stems = {Path(p).stem: Path(p) for p in paths}
    for path in paths:
        scenario = load_scenario(path, common)
        rows.append(_compare(scenario.name, scenario))
    for label, (stem, overrides) in VARIANTS.items():
        if stem in stems:
            rows.append(_compare(label, load_scenario(stems[stem], common | overrides)))
    return rows


def accuracy_markdown(rows: Sequence[Accuracy]) -> str:
    """The comparison as a Markdown table, numbers written for people."""
    lines = [
        "| scenario | sim IOPS | twin IOPS | error | sim mean (ms) | twin mean (ms) | error "
        "| outstanding I/Os / sim IOPS (ms) | twin's bottleneck |",
        "|---|---:|---:|---:|---:|---:|---:|---:|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r.scenario} | {number(r.sim_iops)} | {number(r.twin_iops)} | "
            f"{percent(r.twin_iops / r.sim_iops - 1, signed=True, digits=1)} | "
            f"{number(r.sim_ms)} | {number(r.twin_ms)} | "
            f"{percent(r.twin_ms / r.sim_ms - 1, signed=True, digits=1)} | "
            f"{number(r.little_ms)} | `{r.bottleneck}` |"
        )
    return "\n".join(lines) + "\n"


def write_twin_accuracy(
    paths: Sequence[str | Path], markdown: str | Path, shorten: dict[str, Any] | None = None
) -> str:
    """Run :func:`twin_accuracy` and write its table to ``markdown``; returns the text."""
    text = (
        "<!-- Generated by `make validation` (sanpath.experiments.twin_accuracy); do not edit. "
        "-->\n\n" + accuracy_markdown(twin_accuracy(paths, shorten))
    )
    write_text(Path(markdown), text)
    return text
