"""The twin's solvers: a :class:`~sanpath.theory.twin.model.Network` solved for a prediction.

* :mod:`~sanpath.theory.twin.solve.aggregate` - one class mix as a single-class network
  (:class:`Arrays`);
* :mod:`~sanpath.theory.twin.solve.mva` - exact MVA of the fixed-rate stations convolved in
  log space with the load-dependent ones, Bard-Schweitzer above
  :data:`EXACT_POPULATION` customers;
* :mod:`~sanpath.theory.twin.solve.closed` - closed loops (``outstanding``), with QUEUE FULL
  refusals;
* :mod:`~sanpath.theory.twin.solve.open` - open loops (``rate``): Erlang C,
  Pollaczek-Khinchine and birth-death chains, summed;
* :mod:`~sanpath.theory.twin.solve.mixed` - open loops beside closed ones (a mixed network);
* :mod:`~sanpath.theory.twin.solve.read_ahead` - the prefetch streams a read-ahead cache adds;
* :mod:`~sanpath.theory.twin.solve.notes` - utilisation, bottleneck and the model's notes.
"""

from sanpath.theory.twin.solve.aggregate import Arrays, arrays
from sanpath.theory.twin.solve.closed import closed_predictions
from sanpath.theory.twin.solve.mixed import mixed_predictions
from sanpath.theory.twin.solve.mva import EXACT_POPULATION, ClosedSolution, solve_closed
from sanpath.theory.twin.solve.open import open_prediction
from sanpath.theory.twin.solve.read_ahead import add_read_ahead

__all__ = [
    "EXACT_POPULATION",
    "Arrays",
    "ClosedSolution",
    "add_read_ahead",
    "arrays",
    "closed_predictions",
    "mixed_predictions",
    "open_prediction",
    "solve_closed",
]
