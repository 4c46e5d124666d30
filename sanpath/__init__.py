"""sanpath: simulate the SAN I/O path as a network of queues.

The public API is small: load a scenario, run it, read the result.

>>> import sanpath
>>> scenario = sanpath.load_scenario("scenarios/quickstart.yaml")   # doctest: +SKIP
>>> result = sanpath.run(scenario)                                    # doctest: +SKIP
>>> result.iops, result.latency_ms["p99"]                             # doctest: +SKIP
"""

from sanpath.compiled import use_selected_core

use_selected_core()  # the compiled core or its Python source: before any core module loads

from sanpath._version import __version__
from sanpath.advice import CheckReport, Finding, check
from sanpath.experiments import headroom, sweep
from sanpath.results import RunResult, SweepResult
from sanpath.sim import run
from sanpath.spec import Scenario, ScenarioError, load_scenario

__all__ = [
    "CheckReport",
    "Finding",
    "RunResult",
    "Scenario",
    "ScenarioError",
    "SweepResult",
    "__version__",
    "check",
    "headroom",
    "load_scenario",
    "run",
    "sweep",
]
