"""Queueing theory: textbook formulas, exact MVA, and the analytic twin of a scenario.

* :mod:`~sanpath.theory.queues` - M/M/1, M/M/c, M/G/1, M/D/1 (and MVA's names, re-exported);
* :mod:`~sanpath.theory.mva` - exact Mean Value Analysis of closed networks, asymptotic bounds;
* :mod:`~sanpath.theory.amva` - Bard-Schweitzer approximate MVA, for large populations;
* ``sanpath.theory.kernels`` - the MVA and log-space convolution recursions shared by
  :mod:`~sanpath.theory.mva` and the twin (``sanpath.theory.checks``: their argument checks);
* :mod:`sanpath.theory.twin` - the scenario as a queueing network, solved in milliseconds;
* :mod:`~sanpath.theory.textbook` - scenarios that reduce to textbook queues;
* :mod:`~sanpath.theory.explain` - what the twin adds to a simulated run's warnings.
"""

from sanpath.theory.explain import explain
from sanpath.theory.qfull import refusal_load, retry_cycle

__all__ = [
    "explain",
    "refusal_load",
    "retry_cycle",
]
