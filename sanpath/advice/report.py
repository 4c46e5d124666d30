"""What ``sanpath check`` reports: findings, second opinions, the report and its text.

:class:`Finding` is one thing a rule found; :class:`SecondOpinion` (with :class:`Step`) is its
simulated comparison; :class:`CheckReport` holds every finding for one proposal and renders
itself as JSON (:meth:`CheckReport.to_dict`) or as the text ``sanpath check`` prints.
"""

from __future__ import annotations

import json
import math
import textwrap
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from sanpath.readable import figure, number
from sanpath.results import intervals_overlap

Severity = Literal["error", "warning", "info"]
SEVERITIES: tuple[Severity, ...] = ("error", "warning", "info")
RANK: dict[str, int] = {"info": 0, "warning": 1, "error": 2}

FIX_TIME_LIMIT = 10.0
"""A fixed proposal is simulated for at most this many times the proposal's simulated time;
a fix that slows the path down more than that is reported on the I/Os it completed. (The
second opinion reads it from here, so the runs and the text that quotes it agree.)"""

METRIC_LABELS: dict[str, str] = {
    "iops": "IOPS",
    "mb_per_s": "MB/s",
    "latency_ms_mean": "mean latency (ms)",
    "latency_ms_p99": "p99 latency (ms)",
    "latency_ms_exchange": "time past the HBA (ms)",
    "qfull": "QUEUE FULL answers",
    "port_qfull": "QUEUE FULL from ports",
    "lun_qfull": "QUEUE FULL from LUNs",
    "commands_per_io": "commands per I/O",
    "fairness_jain": "Jain's fairness (hosts)",
}
"""The figures a second opinion compares, with their labels, in the order the text shows."""


# --------------------------------------------------------------------------------------
# Findings, second opinions, reports
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Step:
    """One fix applied on top of the fixes of the findings listed before it."""

    before: dict[str, float]
    after: dict[str, float]
    fix: dict[str, Any]
    verdict: Literal["agrees", "no clear difference", "disagrees", "not judged"]

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "fix": jsonable(self.fix),
            "verdict": self.verdict,
            "before": dict(self.before),
            "after": dict(self.after),
        }


@dataclass(frozen=True)
class SecondOpinion:
    """The proposal and its fixed version, simulated with the same seed.

    ``before`` and ``after`` hold ``iops``, ``mb_per_s``, ``latency_ms_mean``,
    ``latency_ms_p99``, ``latency_ms_exchange`` (mean time after the HBA has taken the command:
    the time a switch probe sees, without host and HBA queueing), ``qfull`` and
    ``commands_per_io``. ``metric`` is the figure the finding is about and ``verdict`` says
    whether the simulation moved it the way the finding predicts (beyond a 5% band).

    Fixes can interact (a finding's fix may only pay once another finding is fixed), so
    ``with_earlier`` also compares the proposal with the fixes of every simulated finding
    listed before this one, without and with this fix (None for the first).
    """

    before: dict[str, float]
    after: dict[str, float]
    fix: dict[str, Any]
    metric: str | None
    better: Literal["higher", "lower"]
    verdict: Literal["agrees", "no clear difference", "disagrees", "not judged"]
    ios: int
    seed: int
    error: str | None = None
    with_earlier: Step | None = None

    @property
    def not_worse(self) -> bool:
        """True unless the fix moved the metric the wrong way both alone and after the
        earlier fixes."""
        if self.with_earlier is not None and self.with_earlier.verdict != "disagrees":
            return True
        return self.verdict != "disagrees"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "fix": jsonable(self.fix),
            "metric": self.metric,
            "better": self.better,
            "verdict": self.verdict,
            "ios": self.ios,
            "seed": self.seed,
            "before": dict(self.before),
            "after": dict(self.after),
            "error": self.error,
            "with_earlier": self.with_earlier.to_dict() if self.with_earlier else None,
        }


@dataclass(frozen=True)
class Finding:
    """One thing a rule found in a proposal.

    ``numbers`` holds every figure the message quotes; ``fix`` is a set of dotted overrides
    (``{"hosts.0.lun_queue_depth": 25}``) that :meth:`Scenario.with_overrides` accepts, or
    None when the remedy is not a setting (buy another port, change the application).
    """

    rule: str
    severity: Severity
    title: str
    message: str
    mechanism: str
    source: str
    numbers: dict[str, Any] = field(default_factory=dict)
    fix: dict[str, Any] | None = None
    fix_text: str = ""
    second_opinion: SecondOpinion | None = None
    severity_note: str = ""
    """Why an error was reported as a warning, or what its simulation missed, when its second
    opinion does not back it (``agree_severity`` in ``sanpath.advice.second_opinion``)."""

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "rule": self.rule,
            "severity": self.severity,
            "severity_note": self.severity_note,
            "title": self.title,
            "message": self.message,
            "mechanism": self.mechanism,
            "source": self.source,
            "numbers": jsonable(self.numbers),
            "fix": jsonable(self.fix) if self.fix is not None else None,
            "fix_text": self.fix_text,
            "second_opinion": (
                self.second_opinion.to_dict() if self.second_opinion is not None else None
            ),
        }


@dataclass(frozen=True)
class CheckReport:
    """Every finding for one proposal, most severe first, with optional simulations."""

    scenario: str
    findings: tuple[Finding, ...]
    latency_target: float | None = None
    simulated: bool = False
    proposal: dict[str, float] | None = None
    combined: SecondOpinion | None = None
    ios: int | None = None
    steady: bool = True
    """False when the simulated proposal did not reach steady state (see ``warnings``)."""
    warnings: tuple[str, ...] = ()
    """What makes the simulated proposal's figures less trustworthy."""
    seed: int | None = None
    """The proposal's seed (every simulated run uses it)."""
    overrides: dict[str, Any] = field(default_factory=dict)
    """The dotted overrides the proposal was checked with (``sanpath check --set``)."""

    @property
    def worst_severity(self) -> Severity | None:
        """The most severe level among the findings (None when there are none)."""
        if not self.findings:
            return None
        worst = max(self.findings, key=lambda f: RANK[f.severity])
        return worst.severity

    def at_least(self, severity: Severity) -> list[Finding]:
        """Findings at ``severity`` or worse."""
        return [f for f in self.findings if RANK[f.severity] >= RANK[severity]]

    def by_rule(self, rule_id: str) -> list[Finding]:
        """Findings of one rule (by full id, ``SP001-fan-in``, or its number, ``SP001``)."""
        return [f for f in self.findings if f.rule == rule_id or f.rule.split("-")[0] == rule_id]

    def counts(self) -> dict[str, int]:
        """Number of findings per severity."""
        return {sev: sum(1 for f in self.findings if f.severity == sev) for sev in SEVERITIES}

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (what ``sanpath check --json`` prints)."""
        return {
            "scenario": self.scenario,
            "worst_severity": self.worst_severity,
            "counts": self.counts(),
            "latency_target_ms": (
                self.latency_target * 1e3 if self.latency_target is not None else None
            ),
            "seed": self.seed,
            "overrides": jsonable(self.overrides),
            "simulated": self.simulated,
            "ios": self.ios,
            "proposal": dict(self.proposal) if self.proposal is not None else None,
            "combined": self.combined.to_dict() if self.combined is not None else None,
            "steady": self.steady,
            "warnings": list(self.warnings),
            "findings": [f.to_dict() for f in self.findings],
        }

    def to_json(self, indent: int | None = 2) -> str:
        """The report as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    def text(self, source: str | None = None) -> str:
        """The human-readable report."""
        return _render_text(self, source)


# --------------------------------------------------------------------------------------
# JSON and text
# --------------------------------------------------------------------------------------


def jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [jsonable(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def metric_interval(values: Mapping[str, float], metric: str) -> tuple[float, float] | None:
    """The 95% interval of ``metric`` in a second opinion's figures (``<metric>_ci_lo`` and
    ``_ci_hi``; runs give them for ``iops`` and ``latency_ms_mean``), or None."""
    lo, hi = values.get(f"{metric}_ci_lo"), values.get(f"{metric}_ci_hi")
    if lo is None or hi is None or not (math.isfinite(lo) and math.isfinite(hi)):
        return None
    return (lo, hi)


def interval_text(metric: str, before: Mapping[str, float], after: Mapping[str, float]) -> str:
    """`` (95% intervals [a, b] and [c, d] overlap)`` or ``do not overlap``; "" without them."""
    a, b = metric_interval(before, metric), metric_interval(after, metric)
    overlap = intervals_overlap(a, b)
    if a is None or b is None or overlap is None:
        return ""
    return (
        f" (95% intervals [{a[0]:.4g}, {a[1]:.4g}] and [{b[0]:.4g}, {b[1]:.4g}] "
        f"{'overlap' if overlap else 'do not overlap'})"
    )


def set_args(fix: Mapping[str, Any]) -> str:
    """A fix as ``sanpath run`` options (``--set key=value ...``)."""
    parts = []
    for key, value in fix.items():
        shown = json.dumps(value) if isinstance(value, dict | list) else value
        if shown is None:
            shown = "null"
        parts.append(f"--set {key}={shown}")
    return " ".join(parts)


def try_command(report: CheckReport, finding: Finding, source: str | None) -> str | None:
    """The ``sanpath run`` command that tries ``finding``'s fix on the proposal (the
    proposal's own ``--set`` overrides kept), or None when the fix is not a setting."""
    if not finding.fix:
        return None
    given = {k: v for k, v in report.overrides.items() if k not in finding.fix}
    return f"sanpath run {source or 'PROPOSAL.yaml'} {set_args({**given, **finding.fix})}"


APPLICATION_TOLERANCE = 0.05
"""Relative fall in IOPS, or rise in mean latency, beyond which a fix costs the application."""


def unfinished(values: Mapping[str, float], ios: int) -> bool:
    """True when the run behind ``values`` measured fewer than ``ios`` I/Os: the time cap
    (:data:`FIX_TIME_LIMIT`) stopped it, so its figures are of what completed."""
    return ios > 0 and values.get("ios", float(ios)) < ios


def application_cost(before: Mapping[str, float], after: Mapping[str, float]) -> str:
    """What a fix cost the application, in words (empty when nothing): IOPS that fell or a
    mean latency that rose by more than :data:`APPLICATION_TOLERANCE`, with 95% intervals
    that do not overlap where both runs have them."""
    worse = []
    for key, label, better in (
        ("iops", "IOPS", "higher"),
        ("latency_ms_mean", "mean latency (ms)", "lower"),
    ):
        b, a = before.get(key, math.nan), after.get(key, math.nan)
        if not (math.isfinite(b) and math.isfinite(a)) or max(abs(b), abs(a)) == 0:
            continue
        change = (a - b) / max(abs(b), abs(a))
        loss = -change if better == "higher" else change
        apart = not intervals_overlap(metric_interval(before, key), metric_interval(after, key))
        if loss > APPLICATION_TOLERANCE and apart:
            worse.append(f"{label} {figure(b)} -> {figure(a)}")
    return "; ".join(worse)


def metric_value(key: str, value: float) -> str:
    """A second opinion's figure for people: counts whole, the rest to three significant
    digits."""
    if key.endswith("qfull") and math.isfinite(value):
        return number(round(value))
    return figure(value)


@dataclass(frozen=True)
class OpinionTable:
    """A second opinion as a table: its columns (the proposal, the fix and, after earlier
    findings, the earlier fixes without and with this one), one row per figure of
    ``METRIC_LABELS`` (``marked``: the figure the finding is about), and the lines
    under it (runs cut short, the verdict)."""

    header: tuple[str, ...]
    rows: tuple[tuple[str, tuple[str, ...], bool], ...]
    notes: tuple[str, ...]


def opinion_table(op: SecondOpinion) -> OpinionTable:
    """The figures of ``op`` to show, formatted (see :class:`OpinionTable`)."""
    step = op.with_earlier
    columns: list[tuple[str, Mapping[str, float]]] = [("proposal", op.before)]
    if step is None:
        columns.append(("fixed", op.after))
    else:
        columns += [("this fix", op.after), ("earlier", step.before), ("+this fix", step.after)]
    rows = tuple(
        (
            label,
            tuple(
                "unfinished"
                if unfinished(values, op.ios)
                else metric_value(key, values.get(key, math.nan))
                for _, values in columns
            ),
            key == op.metric,
        )
        for key, label in METRIC_LABELS.items()
    )
    notes = []
    for name, values in columns[1:]:
        done = values.get("ios", float(op.ios))
        if unfinished(values, op.ios):
            notes.append(
                f"({name}: unfinished, stopped at {FIX_TIME_LIMIT:g}x the proposal's simulated "
                f"time after {done:,.0f} of {op.ios:,} I/Os; it does not vote)"
            )
    cost = application_cost(op.before, op.after)
    if cost and not unfinished(op.after, op.ios):
        notes.append(f"the application got worse with this fix: {cost}")
    if op.metric is not None:
        what = f"{METRIC_LABELS.get(op.metric, op.metric)} ({op.better} is better)"
        if step is None:
            notes.append(
                f"verdict on {what}: {op.verdict}{interval_text(op.metric, op.before, op.after)}"
            )
        else:
            notes.append(
                f"verdict on {what}: this fix alone {op.verdict}; on top of the earlier "
                f"fixes {step.verdict}"
            )
    return OpinionTable(tuple(name for name, _ in columns), rows, tuple(notes))


def effect(op: SecondOpinion) -> str:
    """What ``op``'s fix did on its own (the ``Try`` command's run), in one line: the
    finding's own figure with the verdict, the p99 and the IOPS, proposal -> fixed, and the
    verdict on top of the earlier fixes when there were any (``QUEUE FULL from ports 1,611
    -> 0 (agrees); p99 latency 284 -> 242 ms; IOPS 27,000 -> 26,900``)."""
    if op.error is not None:
        return f"the fixed scenario does not run: {op.error}"
    if unfinished(op.after, op.ios):
        done = op.after.get("ios", 0.0)
        return (
            f"simulated: unfinished, stopped at {FIX_TIME_LIMIT:g}x the proposal's simulated "
            f"time after {done:,.0f} of {op.ios:,} I/Os (not judged)"
        )
    keys = [k for k in (op.metric, "latency_ms_p99", "iops") if k is not None]
    parts = []
    for key in dict.fromkeys(keys):
        label = METRIC_LABELS.get(key, key)
        unit = ""
        if label.endswith(" (ms)"):
            label, unit = label.removesuffix(" (ms)"), " ms"
        b, a = op.before.get(key, math.nan), op.after.get(key, math.nan)
        part = f"{label} {metric_value(key, b)} -> {metric_value(key, a)}{unit}"
        if key == op.metric:
            part += f" ({op.verdict})"
        parts.append(part)
    text = "simulated: " + "; ".join(parts)
    cost = application_cost(op.before, op.after)
    if cost:
        text += f"; the application got worse: {cost}"
    if op.with_earlier is not None:
        text += f"; on top of the fixes listed before it: {op.with_earlier.verdict}"
    return text


def _wrap(text: str, indent: str, first: str = "") -> list[str]:
    """``text`` wrapped at 100 characters, ``first`` before the first line only."""
    return textwrap.wrap(
        text, width=100, initial_indent=indent + first, subsequent_indent=indent + " " * len(first)
    )


def _opinion_lines(op: SecondOpinion, indent: str) -> list[str]:
    """The table of a second opinion: the proposal, the fix, and the verdict."""
    lines = [f"{indent}Second opinion: simulated with seed {op.seed}, {op.ios:,} I/Os each"]
    if op.error is not None:
        lines += _wrap(f"the fixed scenario does not run: {op.error}", indent + "  ")
        return lines
    table = opinion_table(op)
    lines.append(f"{indent}  {'':24}" + "".join(f"{name:>11}" for name in table.header))
    for label, cells, marked in table.rows:
        mark = " <" if marked else ""
        lines.append(f"{indent}  {label:24}" + "".join(f"{c:>11}" for c in cells) + mark)
    for note in table.notes:
        lines += _wrap(note, indent + "  ")
    return lines


def _render_text(report: CheckReport, source: str | None) -> str:
    """The text ``sanpath check`` prints (``source``: the proposal's file, for the hints)."""
    counts = report.counts()
    head = f"sanpath check: {report.scenario}" + (f" ({source})" if source else "")
    lines = [head]
    if not report.findings:
        lines.append("no findings")
    else:
        lines.append(
            f"{len(report.findings)} finding(s): "
            + ", ".join(f"{counts[s]} {s}" for s in SEVERITIES if counts[s])
        )
    if report.overrides:
        lines += _wrap(set_args(report.overrides), "", "checked with: ")
    if report.latency_target is not None:
        lines.append(f"latency target: {report.latency_target * 1e3:g} ms")
    for w in report.warnings:
        prefix = "NOT STEADY STATE (simulated proposal): " if not report.steady else "WARNING: "
        lines += _wrap(w, "", prefix)
    for f in report.findings:
        lines.append("")
        lines.append(f"{f.severity.upper():8} {f.rule}: {f.title}")
        lines += _wrap(f.severity_note, "  ", "Severity: ")
        lines += _wrap(f.message, "  ")
        lines += _wrap(f.mechanism, "  ", "Why: ")
        lines += _wrap(f.fix_text, "  ", "Fix: ")
        command = try_command(report, f, source)
        if command is not None:
            lines.append(f"  Try: {command}")
        lines += _wrap(f.source, "  ", "Source: ")
        if f.second_opinion is not None:
            lines += _opinion_lines(f.second_opinion, "  ")
    if report.combined is not None:
        lines.append("")
        lines.append("Every simulated fix together:")
        lines.append(f"  {set_args(report.combined.fix)}")
        lines += _opinion_lines(report.combined, "  ")
    elif (
        report.simulated
        and report.proposal is not None
        and not any(f.second_opinion for f in report.findings)
    ):
        lines.append("")
        lines.append(f"Simulated proposal ({report.ios:,} I/Os):")
        for key, label in METRIC_LABELS.items():
            lines.append(f"  {label:26}{metric_value(key, report.proposal.get(key, math.nan)):>12}")
    return "\n".join(lines)
