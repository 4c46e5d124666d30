"""Advice: check a proposal against the rules practitioners know, with a second opinion.

:func:`sanpath.check` (:mod:`~sanpath.advice.check`) runs every rule registered in
:mod:`~sanpath.advice.registry` (the rules live in :mod:`sanpath.advice.rules`, one module per
family); each finding says what is wrong, why, what it costs and what to change, and can be
simulated against its fix (:mod:`~sanpath.advice.second_opinion`). The findings and the report
are in :mod:`~sanpath.advice.report`.
"""

import sanpath.advice.rules  # noqa: F401  (registers every rule in RULES)
from sanpath.advice.check import DEFAULT_CHECK_IOS, check
from sanpath.advice.registry import RULES
from sanpath.advice.report import (
    CheckReport,
    Finding,
    OpinionTable,
    SecondOpinion,
    Step,
    effect,
    opinion_table,
    set_args,
    try_command,
)

__all__ = [
    "DEFAULT_CHECK_IOS",
    "RULES",
    "CheckReport",
    "Finding",
    "OpinionTable",
    "SecondOpinion",
    "Step",
    "check",
    "effect",
    "opinion_table",
    "set_args",
    "try_command",
]
