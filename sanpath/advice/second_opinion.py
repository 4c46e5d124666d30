"""The second opinion: simulate the proposal and each finding's fix with the same seed.

Each error or warning that carries a fix (and whose rule makes a performance claim) is
simulated on top of the proposal, alone and on top of the fixes of the findings before it;
the headline figures of both runs are attached to the finding with a verdict on the metric
the rule names. The proposal itself is simulated once and reused.

A finding's severity must agree with its second opinion: an error whose simulated fix shows
no clear difference is reported as a warning and says why, unless its rule explains what the
simulation missed (:func:`agree_severity`). Downgraded findings keep their place in the
report, since the later findings' "earlier fixes" are counted in that order.
"""

from __future__ import annotations

import dataclasses
import json
import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal

from sanpath.advice import report
from sanpath.advice.registry import Rule, rule_by_id
from sanpath.advice.report import (
    METRIC_LABELS,
    CheckReport,
    Finding,
    SecondOpinion,
    Step,
    application_cost,
    interval_text,
    jsonable,
    metric_interval,
    unfinished,
)
from sanpath.results import intervals_overlap
from sanpath.spec import Scenario, ScenarioError

VERDICT_TOLERANCE = 0.05
"""Relative change below which a second opinion reports no clear difference."""
DEFAULT_CHECK_IOS = 20_000
"""Measured I/Os per simulated run in a second opinion."""


def result_metrics(result: Any) -> dict[str, float]:
    """The headline figures a second opinion compares, from a RunResult."""
    bd = result.breakdown_ms
    ios = result.ios
    host_side = sum(float(bd.get(layer, 0.0)) for layer in ("host", "host_queue", "hba"))
    counters = result.counters
    intervals = {
        f"{metric}_ci_{end}": float(bound)
        for metric in ("iops", "latency_ms_mean")
        for end, bound in zip(("lo", "hi"), result.ci95.get(metric, ()), strict=False)
    }
    return {
        **intervals,
        "iops": float(result.iops),
        "mb_per_s": float(result.mb_per_s),
        "latency_ms_mean": float(result.latency_ms["mean"]),
        "latency_ms_p99": float(result.latency_ms["p99"]),
        "latency_ms_exchange": float(result.latency_ms["mean"]) - host_side,
        "qfull": float(counters["qfull"]),
        "port_qfull": float(counters.get("port_qfull", 0)),
        "lun_qfull": float(counters.get("lun_qfull", 0)),
        "commands_per_io": float(counters["commands"] / ios) if ios else 0.0,
        "fairness_jain": float(result.fairness["jain"]),
        "ios": float(ios),
    }


def verdict(
    metric: str | None,
    better: Literal["higher", "lower"],
    before: Mapping[str, float],
    after: Mapping[str, float],
    ios: int = 0,
    trade: bool = False,
) -> Literal["agrees", "no clear difference", "disagrees", "not judged"]:
    """Did the fix move ``metric`` the way the finding predicts, without the application
    paying for it?

    "agrees" or "disagrees" needs a change beyond the noise band (:data:`VERDICT_TOLERANCE`)
    and, where both runs give a 95% interval for the metric (``<metric>_ci_lo``/``_hi``:
    IOPS and mean latency), intervals that do not overlap; otherwise "no clear difference".
    A fix that moves its metric the right way while the application's IOPS fall or its mean
    latency rises (:func:`sanpath.advice.report.application_cost`) "disagrees", unless
    ``trade`` (the rule says why that trade is right, ``Rule.trade``). A run that
    did not finish (fewer measured I/Os than ``ios``: the time cap stopped it) is "not
    judged": it does not vote.
    """
    if metric is None or metric not in before or metric not in after:
        return "not judged"
    b, a = before[metric], after[metric]
    if not (math.isfinite(b) and math.isfinite(a)) or after.get("ios", 1.0) == 0:
        return "not judged"
    if unfinished(after, ios) or unfinished(before, ios):
        return "not judged"
    scale = max(abs(b), abs(a))
    if metric.endswith("qfull"):
        scale = max(scale, 0.01 * ios)
    if scale == 0:
        return "no clear difference"
    change = (a - b) / scale
    gain = change if better == "higher" else -change
    if intervals_overlap(metric_interval(before, metric), metric_interval(after, metric)):
        return "no clear difference"
    if gain > VERDICT_TOLERANCE:
        return "disagrees" if application_cost(before, after) and not trade else "agrees"
    if gain < -VERDICT_TOLERANCE:
        return "disagrees"
    return "no clear difference"


def merge_fixes(fixes: Iterable[Mapping[str, Any]]) -> dict[str, Any]:
    """One set of overrides from several (in order of priority).

    A key set twice keeps its first value, except queue depths, which keep the smallest:
    a fan-in or LUN limit outranks a wish for more depth.
    """
    out: dict[str, Any] = {}
    for fix in fixes:
        for key, value in fix.items():
            if key not in out:
                out[key] = value
            elif (
                key.endswith("queue_depth") and isinstance(value, int) and isinstance(out[key], int)
            ):
                out[key] = min(out[key], value)
    return out


def _shortened(s: Scenario, ios: int) -> Scenario:
    """The scenario with a run of at most ``ios`` measured I/Os (no fixed duration).

    The warm-up stays as the scenario sets it (at most ``ios``): a proposal with thousands of
    I/Os in flight needs its own warm-up to reach the regime it was written for.
    """
    n = ios if s.run.ios is None else min(s.run.ios, ios)
    warm = min(s.run.warmup_ios, n)
    changes: dict[str, Any] = {}
    if n != s.run.ios:
        changes["run.ios"] = n
    if warm != s.run.warmup_ios:
        changes["run.warmup_ios"] = warm
    for key in ("duration", "record_interval", "precision"):
        if getattr(s.run, key, None) is not None:
            changes[f"run.{key}"] = None
    return s.with_overrides(changes) if changes else s


def agree_severity(f: Finding, r: Rule) -> Finding:
    """``f`` with a severity its own second opinion backs.

    An error stays an error when its simulated fix moved the rule's metric the predicted way
    (alone, or on top of the earlier fixes), or was not judged. Otherwise (no clear
    difference, or a change the other way) the finding says so in ``severity_note`` and is
    reported as a warning, unless the rule explains what the simulation missed
    (``Rule.missed``): then it stays an error with that explanation.
    """
    op = f.second_opinion
    if f.severity != "error" or op is None or op.error is not None or op.metric is None:
        return f
    verdicts = [op.verdict] + ([op.with_earlier.verdict] if op.with_earlier else [])
    if "agrees" in verdicts or all(v == "not judged" for v in verdicts):
        return f
    label = METRIC_LABELS.get(op.metric, op.metric)
    b, a = op.before.get(op.metric, math.nan), op.after.get(op.metric, math.nan)
    how = (
        "moved the other way"
        if "disagrees" in verdicts and "no clear difference" not in verdicts
        else "shows no clear difference"
    )
    evidence = (
        f"the simulated fix {how} in {label}: {b:.4g} in the proposal, {a:.4g} fixed"
        f"{interval_text(op.metric, op.before, op.after)}"
        + ("" if op.with_earlier is None else ", alone and on top of the earlier fixes")
    )
    reason = r.missed(f) if r.missed is not None else None
    if reason:
        note = f"stays an error although {evidence}: {reason}"
        return dataclasses.replace(f, severity_note=note)
    note = (
        f"reported as a warning, not an error: {evidence}, so this simulation does not show "
        "the harm the rule predicts"
    )
    return dataclasses.replace(f, severity="warning", severity_note=note)


def with_second_opinions(
    s: Scenario,
    found: Sequence[Finding],
    latency_target: float | None,
    ios: int,
    force: bool,
) -> CheckReport:
    """The report on ``s`` with ``found`` (most severe first) and their second opinions.

    ``ios`` measured I/Os per run (at most the scenario's own); ``force`` simulates even
    beyond :func:`sanpath.sim.budget.check`'s limits. See :func:`sanpath.advice.check.check`.
    """
    from sanpath.sim import run
    from sanpath.theory import explain

    base = _shortened(s, ios)
    n_ios = base.run.ios
    assert n_ios is not None  # _shortened fixes the length
    first = explain(base, run(base, force=force))
    before = result_metrics(first)
    # the whole run: its warm-up and its measured window
    total = first.run_info.get("warmup_seconds", 0.0) + first.sim_seconds
    limit: dict[str, Any] = {}
    if total > 0:
        cap = report.FIX_TIME_LIMIT * total  # read now: the report's text quotes it
        if base.run.max_time is not None:
            cap = min(cap, base.run.max_time)
        limit = {"run.max_time": cap}
    runs: dict[str, tuple[dict[str, float], str | None]] = {}

    def simulate_fix(fix: Mapping[str, Any]) -> tuple[dict[str, float], str | None]:
        key = json.dumps(jsonable(dict(fix)), sort_keys=True)
        if key not in runs:
            try:
                fixed = base.with_overrides({**fix, **limit})
                runs[key] = (result_metrics(run(fixed, force=force)), None)
            except ScenarioError as exc:
                runs[key] = ({}, str(exc))
        return runs[key]

    out: list[Finding] = []
    state_fix: dict[str, Any] = {}
    state = before
    steps = 0
    for f in found:
        r = rule_by_id(f.rule)
        fix = f.fix
        if not (fix and f.severity in ("error", "warning") and r.simulate):
            out.append(f)
            continue
        after, error = simulate_fix(fix)
        judged = (
            verdict(r.metric, r.better, before, after, n_ios, r.trade is not None)
            if error is None
            else None
        )
        step = None
        if steps and error is None:
            merged = merge_fixes([state_fix, fix])
            if merged == state_fix:
                cum, cum_error = state, None
            else:
                cum, cum_error = simulate_fix(merged)
            if cum_error is None:
                cum_verdict = verdict(r.metric, r.better, state, cum, n_ios, r.trade is not None)
                step = Step(before=state, after=cum, fix=merged, verdict=cum_verdict)
                state_fix, state = merged, cum
        elif error is None:
            state_fix, state = dict(fix), after
        if error is None:
            steps += 1
        opinion = SecondOpinion(
            before=before,
            after=after,
            fix=dict(fix),
            metric=r.metric,
            better=r.better,
            verdict=judged if judged is not None else "not judged",
            ios=n_ios,
            seed=base.seed,
            error=error,
            with_earlier=step,
        )
        out.append(agree_severity(dataclasses.replace(f, second_opinion=opinion), r))
    combined = None
    if steps > 1:
        combined = SecondOpinion(
            before, state, state_fix, None, "higher", "not judged", n_ios, base.seed
        )
    return CheckReport(
        s.name,
        tuple(out),
        latency_target=latency_target,
        simulated=True,
        proposal=before,
        combined=combined,
        ios=n_ios,
        steady=first.steady,
        warnings=first.warnings,
        seed=s.seed,
        overrides=s.overrides,
    )
