"""The SimPy run: one scenario simulated command by command.

The engine (:mod:`~sanpath.sim.engine`) carries each command along the path built by the
topology (:mod:`~sanpath.sim.topology`) from the components (:mod:`sanpath.sim.components`);
the load generators (:mod:`~sanpath.sim.load`) issue the I/Os and a schedule
(:mod:`~sanpath.sim.schedule`) changes settings during the run; the measurement
(:mod:`~sanpath.sim.measure`) keeps the statistics and, with the run control
(:mod:`~sanpath.sim.control`), decides when the warm-up ends and when the run stops;
:func:`~sanpath.sim.runner.run` ties it together. Nothing here imports the analytic
twin, the checks, the experiments or the plots.
"""

from sanpath.sim import budget
from sanpath.sim.engine import Simulation
from sanpath.sim.measure import Measurement
from sanpath.sim.runner import run

__all__ = [
    "Measurement",
    "Simulation",
    "budget",
    "run",
]
