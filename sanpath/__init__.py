"""sanpath: simulate the SAN I/O path as a network of queues.

The public API is small: load a scenario, run it, read the result.

>>> import sanpath
>>> scenario = sanpath.load_scenario("scenarios/quickstart.yaml")   # doctest: +SKIP
>>> result = sanpath.run(scenario)                                    # doctest: +SKIP
>>> result.iops, result.latency_ms["p99"]                             # doctest: +SKIP

``import sanpath`` loads only the choice of core: each name below is imported the first time
it is used (:pep:`562`), so that a command or a notebook pays for the simulator, the advice
rules, scipy, pandas or matplotlib only when it uses them.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from sanpath.compiled import use_selected_core

use_selected_core()  # the compiled core or its Python source: before any core module loads

from sanpath._version import __version__

if TYPE_CHECKING:
    from sanpath.advice import CheckReport, Finding
    from sanpath.advice.check import check
    from sanpath.experiments.headroom import headroom
    from sanpath.experiments.sweep import sweep
    from sanpath.results import RunResult, SweepResult
    from sanpath.sim import run
    from sanpath.spec import Scenario, ScenarioError, load_scenario

_HOMES = {
    "CheckReport": "sanpath.advice",
    "Finding": "sanpath.advice",
    "check": "sanpath.advice",
    "headroom": "sanpath.experiments",
    "sweep": "sanpath.experiments",
    "RunResult": "sanpath.results",
    "SweepResult": "sanpath.results",
    "run": "sanpath.sim",
    "Scenario": "sanpath.spec",
    "ScenarioError": "sanpath.spec",
    "load_scenario": "sanpath.spec",
}
"""Where each public name lives: the module imported on its first use."""

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


def __getattr__(name: str) -> Any:
    """A public name, imported from its home module on first use (then kept here)."""
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module 'sanpath' has no attribute {name!r}")
    value = getattr(importlib.import_module(home), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
