"""Advice: check a proposal against the rules practitioners know, with a second opinion.

:func:`sanpath.check` runs every rule (:mod:`~sanpath.advice.check`); each finding says what
is wrong, why, what it costs and what to change, and can be simulated against its fix.
"""

from sanpath.advice.check import RULES, CheckReport, Finding, SecondOpinion, Step

__all__ = ["RULES", "CheckReport", "Finding", "SecondOpinion", "Step"]
