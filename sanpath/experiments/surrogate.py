"""The analytic twin as the calibration's surrogate: a fit in milliseconds to start near.

Each evaluation of a calibration simulates every measured point; the twin
(:func:`sanpath.theory.twin.predict`) answers the same question in milliseconds for the
figures it predicts (IOPS, MB/s, mean latency). :func:`twin_start` fits the parameters on the
twin first; the simulated fit then starts from that answer where the simulation agrees it is
closer than the scenario's own values, so it needs fewer simulated evaluations.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from sanpath.spec import ScenarioError, load_scenario, set_dotted

__all__ = ["BOUND", "TWIN_METRICS", "UNREACHABLE", "twin_start"]

TWIN_METRICS = ("iops", "mb_per_s", "latency_ms_mean")
"""Measured figures the twin predicts."""

BOUND = 7.0
"""A fitted parameter stays within ``exp(+-BOUND)`` of its starting value (as in the fit)."""

UNREACHABLE = 50.0
"""Log residual standing for a figure the twin cannot give at a trial (infinite latency of an
overloaded open loop), so the surrogate fit moves away from it."""

STEP = 0.05
"""Relative parameter step of the surrogate fit's Jacobian."""


def twin_start(
    data: Mapping[str, Any],
    keys: Sequence[str],
    start: np.ndarray,
    targets: Sequence[tuple[Mapping[str, Any], str, float]],
) -> np.ndarray | None:
    """Log factors on ``start`` of the dotted ``keys`` that fit ``targets`` (settings, metric
    and measured value of each figure) on the twin, or None where the twin cannot say:
    fewer figures it predicts than parameters, or a scenario it does not take."""
    from sanpath.theory.twin import predict

    usable = [(s, m, v) for s, m, v in targets if m in TWIN_METRICS and v > 0]
    if len(usable) < len(keys):
        return None

    def residuals(x: np.ndarray) -> np.ndarray:
        trial = copy.deepcopy(dict(data))
        for key, value in zip(keys, start * np.exp(x), strict=True):
            set_dotted(trial, key, float(value))
        cache: dict[str, Any] = {}
        out = []
        for settings, metric, measured in usable:
            tag = json.dumps(settings, sort_keys=True, default=str)
            if tag not in cache:
                case = copy.deepcopy(trial)
                for key, value in settings.items():
                    set_dotted(case, key, value)
                cache[tag] = predict(load_scenario(case))
            got = float(getattr(cache[tag], metric))
            ok = math.isfinite(got) and got > 0.0
            out.append(math.log(got / measured) if ok else UNREACHABLE)
        return np.array(out)

    try:
        solution = least_squares(
            residuals,
            np.zeros(len(keys)),
            method="trf",
            diff_step=np.full(len(keys), STEP),
            bounds=(np.full(len(keys), -BOUND), np.full(len(keys), BOUND)),
            max_nfev=200,
        )
    except (ScenarioError, ValueError, ArithmeticError):
        return None
    return np.asarray(solution.x, dtype=np.float64)
