"""``sanpath check``: review a storage proposal before it goes live.

A proposal is an ordinary scenario: hosts and HBAs with their queue settings, the zoning, the
array with its ports, cache and RAID pools, and the load the proposal is meant to carry.
:func:`check` reads it and returns :class:`~sanpath.advice.report.Finding` objects. Each
finding says what is wrong, with the numbers computed from the scenario, why it matters (the
mechanism), where the rule comes from (a vendor formula or a published write-up), and which
settings to change (as dotted overrides that
:meth:`~sanpath.spec.scenario.Scenario.with_overrides` accepts).

With ``simulate=True`` each error or warning that carries a fix gets a *second opinion*
(:mod:`sanpath.advice.second_opinion`): the proposal and the fixed proposal are simulated with
the same seed and a shortened run, and the headline figures of both are attached, so the
advice comes with its price. The proposal itself is simulated once and reused.

The rules are plain functions registered in :data:`~sanpath.advice.registry.RULES`, one
module per family in :mod:`sanpath.advice.rules`; ``docs/check.md`` documents each one.
Everything the static rules compute comes from the scenario alone, through one shared
analysis of its paths (:class:`~sanpath.advice.analysis.PathAnalysis`).

This module is the entry point; it also re-exports the names it has always exported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import sanpath.advice.rules  # noqa: F401  (registers every rule in RULES)
from sanpath import units
from sanpath.advice.analysis import Limits, PathAnalysis, fan_in
from sanpath.advice.costs import estimate_latency, parallel_units
from sanpath.advice.registry import RULES, CheckOptions, Rule, rule_by_id
from sanpath.advice.report import RANK, CheckReport, Finding, SecondOpinion, Step
from sanpath.advice.rules import port_balance, safe_host_queue_depth
from sanpath.advice.second_opinion import DEFAULT_CHECK_IOS as DEFAULT_CHECK_IOS  # for the CLI
from sanpath.advice.second_opinion import merge_fixes, result_metrics, verdict, with_second_opinions
from sanpath.spec import Scenario, load_scenario


def check(
    scenario: Scenario | str | Path | Mapping[str, Any],
    latency_target: float | str | None = None,
    simulate: bool = False,
    ios: int = DEFAULT_CHECK_IOS,
    rules: Sequence[str] | None = None,
    force: bool = False,
) -> CheckReport:
    """Review a proposal: run every rule, and optionally simulate the fixes.

    Parameters
    ----------
    scenario
        A Scenario, a YAML path or a dict.
    latency_target
        Seconds (or a duration string such as ``"10ms"``) for SP011; None skips that rule.
    simulate
        Give each error or warning with a fix a second opinion: the proposal and the fixed
        proposal simulated with the same seed, ``ios`` measured I/Os each (at most the
        scenario's own ``run.ios``). The proposal is simulated once.
    ios
        Measured I/Os per simulated run.
    force
        Simulate even when :func:`sanpath.sim.budget.check` estimates more memory or time than
        its limits.
    rules
        Ids (or ``SPnnn`` numbers) of the rules to run; all by default.

    Raises
    ------
    ScenarioError
        When the scenario does not validate.
    ValueError
        For a bad latency target or ``ios``.
    """
    s = scenario if isinstance(scenario, Scenario) else load_scenario(scenario)
    if isinstance(latency_target, str):
        latency_target = units.parse_duration(latency_target)
    if latency_target is not None and latency_target <= 0:
        raise ValueError(f"the latency target must be positive, got {latency_target!r}")
    if ios < 1:
        raise ValueError(f"ios must be at least 1, got {ios}")
    options = CheckOptions(latency_target=latency_target)
    selected = RULES if rules is None else [rule_by_id(r) for r in rules]
    found: list[Finding] = []
    for r in selected:
        found.extend(r.run(s, options))
    found.sort(key=lambda f: -RANK[f.severity])
    if not simulate:
        return CheckReport(
            s.name, tuple(found), latency_target=latency_target, seed=s.seed, overrides=s.overrides
        )
    return with_second_opinions(s, found, latency_target, ios, force)


__all__ = [
    "RULES",
    "CheckOptions",
    "CheckReport",
    "Finding",
    "Limits",
    "PathAnalysis",
    "Rule",
    "SecondOpinion",
    "Step",
    "check",
    "estimate_latency",
    "fan_in",
    "merge_fixes",
    "parallel_units",
    "port_balance",
    "result_metrics",
    "rule_by_id",
    "safe_host_queue_depth",
    "verdict",
]
