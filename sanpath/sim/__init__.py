"""The SimPy run: one scenario simulated command by command.

The engine (:mod:`~sanpath.sim.engine`) carries each command along the path built by the
topology (:mod:`~sanpath.sim.topology`) from the components (:mod:`sanpath.sim.components`);
the run control (:mod:`~sanpath.sim.control`) decides when the warm-up ends and when the
run stops. Nothing here imports the analytic twin, the checks, the experiments or the plots.
"""

from sanpath.sim.engine import Simulation, run

__all__ = ["Simulation", "run"]
