"""The rule registry: every rule with its id, level, title and source, in report order.

A rule is a function ``(scenario, options) -> list[Found]`` registered with the :func:`rule`
decorator. It states only what it found (:class:`Found`); :meth:`Rule.run` turns that into
:class:`~sanpath.advice.report.Finding` objects carrying the rule's id and source, and the
rule's level unless the finding sets its own.
"""

from __future__ import annotations

import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

from sanpath.advice.analysis import PathAnalysis
from sanpath.advice.report import Finding, Severity
from sanpath.spec import Scenario


@dataclass
class CheckOptions:
    """Options the rules read; ``latency_target`` in seconds (None: no latency rule)."""

    latency_target: float | None = None
    _cache: dict[int, PathAnalysis] = field(default_factory=dict, repr=False, compare=False)

    def paths(self, scenario: Scenario) -> PathAnalysis:
        """The (cached) path analysis of ``scenario``."""
        key = id(scenario)
        found = self._cache.get(key)
        if found is None or found.scenario is not scenario:
            found = self._cache[key] = PathAnalysis(scenario)
        return found


@dataclass(frozen=True, kw_only=True)
class Found:
    """What a rule found: a :class:`~sanpath.advice.report.Finding` without what the registry
    knows (the rule's id and source).

    The fields mean what they mean on a Finding; ``severity`` None stands for the rule's own
    level.
    """

    title: str
    message: str
    mechanism: str
    numbers: dict[str, Any] = field(default_factory=dict)
    fix: dict[str, Any] | None = None
    fix_text: str = ""
    severity: Severity | None = None


RuleFunc = Callable[[Scenario, CheckOptions], list[Found]]
MissedFunc = Callable[[Finding], str | None]
"""Given an error its second opinion does not back, what the simulation missed (or None)."""


@dataclass(frozen=True)
class Rule:
    """A registered rule: stable id, the most severe level it reports, and its check.

    ``source`` is the vendor formula or write-up behind the rule, cited by each finding.
    ``metric`` (with ``better``) is the simulated figure a fix should improve; a rule with
    ``simulate=False`` gets no second opinion (its concern, such as redundancy or a driver's
    accepted range, is not something a performance run measures). ``missed`` explains, for
    an error whose simulated fix shows no clear difference, what the simulation could not
    see (the error then stays an error, with that explanation); without it, or when it
    returns None, such an error is reported as a warning
    (``sanpath.advice.second_opinion.agree_severity``). ``trade`` says why a fix that costs
    the application IOPS or latency is still right (e.g. a latency target met by holding
    commands in the host); without it such a fix disagrees.
    """

    id: str
    severity: Severity
    title: str
    source: str
    func: RuleFunc
    metric: str | None
    better: Literal["higher", "lower"]
    simulate: bool
    missed: MissedFunc | None = None
    trade: str | None = None

    @property
    def doc(self) -> str:
        """The rule's docstring."""
        return textwrap.dedent(self.func.__doc__ or "").strip()

    def run(self, scenario: Scenario, options: CheckOptions) -> list[Finding]:
        """The rule's findings for ``scenario``, with the rule's id and source filled in."""
        return [
            Finding(
                rule=self.id,
                severity=self.severity if f.severity is None else f.severity,
                title=f.title,
                message=f.message,
                mechanism=f.mechanism,
                source=self.source,
                numbers=f.numbers,
                fix=f.fix,
                fix_text=f.fix_text,
            )
            for f in self.func(scenario, options)
        ]


RULES: list[Rule] = []
"""Every rule, in report order: by id (``SP001`` first)."""


def rule(
    rule_id: str,
    severity: Severity,
    title: str,
    *,
    source: str,
    metric: str | None = None,
    better: Literal["higher", "lower"] = "higher",
    simulate: bool = True,
    missed: MissedFunc | None = None,
    trade: str | None = None,
) -> Callable[[RuleFunc], RuleFunc]:
    """Register a rule function under ``rule_id``, citing ``source`` in every finding."""

    def register(func: RuleFunc) -> RuleFunc:
        if any(r.id == rule_id for r in RULES):
            raise ValueError(f"duplicate rule id {rule_id}")
        RULES.append(
            Rule(
                id=rule_id,
                severity=severity,
                title=title,
                source=source,
                func=func,
                metric=metric,
                better=better,
                simulate=simulate,
                missed=missed,
                trade=trade,
            )
        )
        RULES.sort(key=lambda r: r.id)  # whatever order the rule modules load in
        return func

    return register


def rule_by_id(rule_id: str) -> Rule:
    """The rule with id ``rule_id`` (full id or the ``SPnnn`` part)."""
    for r in RULES:
        if r.id == rule_id or r.id.split("-")[0] == rule_id:
            return r
    raise KeyError(f"no rule {rule_id!r}; rules: {', '.join(r.id for r in RULES)}")
