"""Calibration: fit a scenario's unknown parameters to measured points.

A write-up (or your own fio run) gives figures at a few settings; what it does not give
(controller time per I/O, host stack time, cache behaviour) is a parameter to fit.
:func:`calibrate` adjusts the named dotted keys so the model's figures match the measured
ones, with ``scipy.optimize.least_squares`` on log-relative residuals
``log(model / measured)``, every evaluation using the same seed (common random numbers keep
the objective smooth enough to differentiate), from the twin's fit where that is closer
(:mod:`sanpath.experiments.surrogate`), to :data:`TOLERANCE`.

Before fitting it checks that the data can identify the parameters: the sensitivity of every
measured figure to every parameter (a finite-difference Jacobian) must have full rank. A
parameter that moves no figure, or two parameters that move them the same way, are refused
with a message that says which.

Measured points come from fio's JSON output (``--output-format=json``) or a CSV whose
columns are dotted scenario keys (the settings) and metrics (``iops``, ``mb_per_s``,
``latency_ms_mean``, ``latency_ms_p50``, ``latency_ms_p99``).
"""

from __future__ import annotations

__all__ = [
    "METRICS",
    "CalibrationError",
    "CalibrationResult",
    "MeasuredPoint",
    "calibrate",
    "read_fio_json",
    "read_measurements",
    "reference_points",
    "write_calibrated",
]

import contextlib
import copy
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import least_squares

from sanpath.experiments.identify import (
    Ceiling,
    capacity_cautions,
    capacity_unknown,
    ceiling,
    traded_capacity,
)
from sanpath.experiments.measured import (  # MeasuredPoint and the readers: re-exported
    METRICS,
    MeasuredPoint,
    read_fio_json,
    read_measurements,
)
from sanpath.experiments.surrogate import twin_start
from sanpath.files import atomic_path, check_output
from sanpath.readable import column_label, duration, figure, percent, rate, size
from sanpath.spec import (
    Scenario,
    ScenarioError,
    key_kind,
    load_scenario,
    read_yaml,
    set_dotted,
)

STEP = 0.05
"""Relative parameter step for the sensitivity check and the fit's Jacobian."""

WEAK = 0.02
"""Smallest sensitivity (relative change of the figures per relative change of the
parameter, over all measured figures) for a parameter to count as identifiable."""

TOLERANCE = 1e-4
"""Relative change of the parameters or the squared log errors at which the fit stops: below
the simulation's noise (about 1%), unlike scipy's 1e-8, which buys digits noise does not carry."""

RMS_WARNING = 0.10
"""RMS relative error above which a fit is reported as poor (``sanpath calibrate`` warns)."""

WORST_POINTS = 3
"""How many of the worst-fitted points a poor fit's warning names."""


class _BudgetSpentError(Exception):
    """The fit has tried ``max_evaluations`` parameter sets."""


class CalibrationError(ValueError):
    """Calibration cannot go on (parameters not identifiable, bad data)."""


@dataclass(frozen=True)
class CalibrationResult:
    """Fitted parameters, the fit error per point, and the calibrated scenario."""

    parameters: dict[str, float]
    start: dict[str, float]
    points: list[dict[str, Any]]
    scenario: Scenario
    singular_values: list[float]
    evaluations: int
    """Parameter sets the fit tried, at most ``max_evaluations``."""
    rms_error: float = field(default=math.nan)
    ceilings: dict[str, Ceiling] = field(default_factory=dict)
    """The twin's ceiling of the scenario ``before`` and ``after`` the fit."""
    cautions: list[str] = field(default_factory=list)
    """What the measured points cannot tell, and what the fit did because of it."""
    simulations: int = 0
    """The simulator runs those evaluations took, one per distinct measured setting of each."""

    def to_dict(self) -> dict[str, Any]:
        return {
            "parameters": self.parameters,
            "start": self.start,
            "points": self.points,
            "singular_values": self.singular_values,
            "evaluations": self.evaluations,
            "simulations": self.simulations,
            "rms_error": self.rms_error,
            "ceilings": {k: c.to_dict() for k, c in self.ceilings.items()},
            "cautions": list(self.cautions),
        }

    def text(self) -> str:
        """The fit for people: each parameter in its unit (``4 ms -> 4.65 ms``), each
        point's measured and modelled figure and error, the fit's cost and the ceilings."""
        lines = ["fitted parameters:"]
        for key, value in self.parameters.items():
            lines.append(f"  {key:<40} {_shown(key, self.start[key])} -> {_shown(key, value)}")
        lines.append("fit per point:")
        for p in self.points:
            lines.append(
                f"  {p['label']:<30} {column_label(p['metric']):<24} measured "
                f"{figure(p['measured']):>10}  model {figure(p['model']):>10}  "
                f"error {percent(p['error'], signed=True, digits=1):>6}"
            )
        lines.append(
            f"rms relative error {percent(self.rms_error, digits=1)} after "
            f"{self.evaluations} evaluations of the model ({self.simulations} simulations)"
        )
        before, after = self.ceilings.get("before"), self.ceilings.get("after")
        if before is not None and after is not None:
            lines.append(f"ceiling (the twin's): {before.text()} -> {after.text()}")
        return "\n".join(lines)

    def worst(self, n: int = WORST_POINTS) -> list[dict[str, Any]]:
        """The ``n`` points with the largest relative error (``|model / measured - 1|``)."""
        return sorted(self.points, key=lambda p: -abs(p["error"]))[:n]

    def warning(self, threshold: float = RMS_WARNING) -> str | None:
        """A warning naming the worst-fitted points when the RMS error exceeds ``threshold``."""
        if not self.rms_error > threshold:
            return None
        worst = "; ".join(
            f"{p['label']} {p['metric']}: measured {figure(p['measured'])}, "
            f"model {figure(p['model'])} "
            f"({percent(p['error'], signed=True, digits=1)})"
            for p in self.worst()
        )
        return (
            f"poor fit: rms relative error {percent(self.rms_error, digits=1)} is above "
            f"{100 * threshold:.0f}%; the model fits these points worst: {worst}. The fitted "
            "parameters cannot explain these figures: check the scenario's set-up for these "
            "points, or fit other parameters"
        )


# -- reading measurements ------------------------------------------------------------------


def _shown(key: str, value: float) -> str:
    """A fitted parameter's value in its unit, as :func:`sanpath.spec.key_kind` names it."""
    kind = key_kind(key)
    if kind == "duration":
        return duration(value)
    if kind == "size":
        return size(value)
    if kind == "rate":
        return rate(value)
    return figure(value)


def _lookup(data: Any, key: str) -> Any:
    node = data
    for part in key.split("."):
        if isinstance(node, list):
            node = node[int(part)]
        elif isinstance(node, Mapping) and part in node:
            node = node[part]
        else:
            raise CalibrationError(f"--fit {key}: no such field in the scenario")
    return node


def _parameter_key(data: Any, key: str) -> str:
    """The numeric field behind ``key`` (a service-time spec fits its mean)."""
    value = _lookup(data, key)
    if isinstance(value, Mapping):
        if value.get("mean") is not None:
            return f"{key}.mean"
        raise CalibrationError(
            f"--fit {key}: a {value.get('dist')} distribution has no mean field to fit"
        )
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise CalibrationError(f"--fit {key}: {value!r} is not a number that can be fitted")
    if value <= 0:
        raise CalibrationError(f"--fit {key}: starting value {value} must be positive")
    return key


def calibrate(
    scenario: Scenario | str | Path | Mapping[str, Any],
    measured: Sequence[MeasuredPoint],
    fit: Sequence[str],
    ios: int | None = None,
    max_evaluations: int = 60,
    metrics: Sequence[str] | None = None,
    force: bool = False,
) -> CalibrationResult:
    """Fit the dotted keys ``fit`` so the model reproduces ``measured``.

    ``max_evaluations`` bounds the parameter sets tried (the start, each finite-difference
    step and each move of the fit count); each runs the simulator once per distinct measured
    setting. The fit returns the best set it tried.

    Every measured point's run is estimated first (:mod:`sanpath.sim.budget`); ``force`` runs
    those beyond its memory or time limits too.

    Raises
    ------
    CalibrationError
        When the data cannot identify the parameters, or a key cannot be fitted.
    ScenarioError
        Without ``force``, for a point whose run is estimated beyond the limits.
    """
    from sanpath.sim import budget, run

    base = load_scenario(scenario).model_copy(update={"sweep": None, "reference": None})
    data = base.to_data()
    if ios is not None:
        data["run"]["ios"] = ios
        data["run"]["warmup_ios"] = max(ios // 10, 1)
    keys = [_parameter_key(data, k) for k in fit]
    start = np.array([float(_lookup(data, k)) for k in keys])
    wanted = list(metrics) if metrics else list(METRICS)
    targets = [(p, m) for p in measured for m in wanted if m in p.metrics and p.metrics[m] > 0]
    if not targets:
        raise CalibrationError("the measurements hold none of the fitted metrics")
    if len(targets) < len(keys):
        raise CalibrationError(
            f"{len(keys)} parameters cannot be identified from {len(targets)} measured figures"
        )
    if not force:
        source = str(scenario) if isinstance(scenario, str | Path) else "<scenario>"
        for point in measured:
            case = copy.deepcopy(data)
            for key, value in point.settings.items():
                set_dotted(case, key, value)
            try:
                spec = load_scenario(case)
            except ScenarioError as exc:
                raise CalibrationError(f"point {point.label}: {exc}") from None
            budget.check(spec, source=source, context=f"measured point {point.label!r}: ")
    why = capacity_unknown(data, [p.settings for p in measured])
    cautions = capacity_cautions(data, keys, start, why)
    if max_evaluations < len(keys) + 2:
        raise CalibrationError(
            f"max_evaluations {max_evaluations} is too few: fitting {len(keys)} parameter(s) "
            f"takes at least {len(keys) + 2} evaluations (the start, a step of each, a move)"
        )
    evaluations = simulations = 0
    best: tuple[float, np.ndarray, np.ndarray] | None = None  # (norm, x, residuals)

    def model(x: np.ndarray) -> np.ndarray:
        nonlocal evaluations, simulations, best
        if evaluations >= max_evaluations:
            raise _BudgetSpentError
        evaluations += 1
        trial = copy.deepcopy(data)
        for key, value in zip(keys, start * np.exp(x), strict=True):
            set_dotted(trial, key, float(value))
        out = []
        cache: dict[str, Any] = {}
        for point, metric in targets:
            tag = json.dumps(point.settings, sort_keys=True, default=str)
            if tag not in cache:
                case = copy.deepcopy(trial)
                for key, value in point.settings.items():
                    set_dotted(case, key, value)
                try:
                    cache[tag] = run(case, force=True)  # estimated above
                except ScenarioError as exc:
                    raise CalibrationError(f"point {point.label}: {exc}") from None
                simulations += 1
            result = cache[tag]
            value = result.flat().get(metric, math.nan)
            out.append(math.log(max(value, 1e-300) / point.metrics[metric]))
        residuals = np.array(out)
        norm = float(np.linalg.norm(residuals))
        if best is None or norm < best[0]:
            best = (norm, np.array(x, dtype=float), residuals)
        return residuals

    x0 = np.zeros(len(keys))
    r0 = model(x0)
    jac = np.empty((len(r0), len(keys)))
    for j in range(len(keys)):
        step = np.zeros(len(keys))
        step[j] = STEP
        jac[:, j] = (model(step) - r0) / STEP
    singular = np.linalg.svd(jac, compute_uv=False)
    norms = np.linalg.norm(jac, axis=0)
    dead = [keys[j] for j in range(len(keys)) if norms[j] < WEAK]
    if dead:
        raise CalibrationError(
            "not identifiable from these measurements: changing "
            + ", ".join(dead)
            + " moves the measured figures by less than 2% of its own change (it barely limits "
            "anything in these runs)"
        )
    if len(keys) > 1 and singular[-1] < 1e-3 * singular[0]:
        raise CalibrationError(
            "not identifiable from these measurements: the parameters "
            + ", ".join(keys)
            + " move the measured figures the same way (add points where they differ)"
        )
    begin = x0  # or the twin's fit, where the simulation agrees it is closer
    x_twin = twin_start(data, keys, start, [(p.settings, m, p.metrics[m]) for p, m in targets])
    if x_twin is not None and np.any(x_twin != 0.0):
        begin = x_twin if np.linalg.norm(model(x_twin)) < np.linalg.norm(r0) else x0
    # The fit stops at its tolerance or when max_evaluations parameter sets have been tried
    # (its finite-difference steps included), with the best set it found.
    with contextlib.suppress(_BudgetSpentError):
        least_squares(
            model,
            begin,
            method="trf",
            diff_step=np.full(len(keys), STEP),
            x_scale=1.0,
            bounds=(np.full(len(keys), -7.0), np.full(len(keys), 7.0)),
            xtol=TOLERANCE,
            ftol=TOLERANCE,
        )
    assert best is not None  # the start was evaluated
    _, best_x, residuals = best
    fitted = start * np.exp(best_x)
    final = copy.deepcopy(base.to_data())
    for key, value in zip(keys, fitted, strict=True):
        set_dotted(final, key, float(value))
    points = []
    for (point, metric), r in zip(targets, residuals, strict=True):
        measured_value = point.metrics[metric]
        points.append(
            {
                "label": point.label,
                "metric": metric,
                "measured": measured_value,
                "model": measured_value * math.exp(r),
                "error": math.exp(r) - 1.0,
            }
        )
    ceilings = {"before": ceiling(base), "after": ceiling(final)}
    traded = traded_capacity(ceilings["before"], ceilings["after"], why)
    if traded is not None:
        cautions.append(traded)
    return CalibrationResult(
        parameters={k: float(v) for k, v in zip(keys, fitted, strict=True)},
        start={k: float(v) for k, v in zip(keys, start, strict=True)},
        points=points,
        scenario=load_scenario(final),
        singular_values=[float(s) for s in singular],
        evaluations=evaluations,
        simulations=simulations,
        rms_error=float(np.sqrt(np.mean(np.expm1(residuals) ** 2))),
        ceilings=ceilings,
        cautions=cautions,
    )


def _expand_profiles(data: Any, parts: list[str]) -> None:
    """Turn a drive written as a profile name on the way to ``parts`` into a mapping."""
    node = data
    for part in parts[:-1]:
        child = node[int(part)] if isinstance(node, list) else node.get(part)
        if isinstance(child, str):
            replacement = {"profile": child}
            if isinstance(node, list):
                node[int(part)] = replacement
            else:
                node[part] = replacement
            return
        if child is None:
            return
        node = child


def write_calibrated(
    source: str | Path, result: CalibrationResult, out: str | Path, *, force: bool = False
) -> None:
    """Write ``source`` with the fitted values set, keeping its comments, to ``out``.

    Durations the file wrote with units (``20us``) are written back with units; a service
    time written as a plain duration stays a plain duration. An existing ``out`` is
    refused (:class:`sanpath.files.OutputError`) unless ``force``.
    """
    from ruamel.yaml import YAML

    from sanpath.units import UnitError, format_duration, parse_duration

    data = read_yaml(source)
    for key, value in result.parameters.items():
        parts = key.split(".")
        # a service time's mean: its holder may be a plain duration, never a profile name
        _expand_profiles(data, parts[:-1] if parts[-1] == "mean" else parts)
        if parts[-1] == "mean":
            try:
                holder = _lookup(data, ".".join(parts[:-1]))
            except CalibrationError:
                holder = None
            if not isinstance(holder, Mapping):
                set_dotted(data, ".".join(parts[:-1]), format_duration(value))
                continue
        try:
            current = _lookup(data, key)
        except CalibrationError:
            current = None
        text: Any = float(f"{value:.6g}")
        if isinstance(current, str):
            try:
                parse_duration(current)
                text = format_duration(value)
            except UnitError:
                pass
        set_dotted(data, key, text)
    yaml = YAML(typ="rt")
    yaml.version = (1, 2)
    check_output(out, (".yaml", ".yml"), "calibrated scenario", force=force)
    with atomic_path(out, replace=force) as tmp, tmp.open("w", encoding="utf-8") as handle:
        yaml.dump(data, handle)


def reference_points(
    scenario: Scenario, role: str | tuple[str, ...] = ("fitted", "measured")
) -> list[MeasuredPoint]:
    """The scenario's own reference points with ``role`` (one or several) as measured points.

    By default the ``fitted`` points and the ``measured`` ones (figures from the user's own
    system, as ``sanpath import`` writes them) are targets. Only absolute figures (not
    ratios, not time windows) of the fittable metrics qualify.
    """
    roles = (role,) if isinstance(role, str) else tuple(role)
    if scenario.reference is None:
        raise CalibrationError("the scenario has no reference section")
    points = []
    for p in scenario.reference.points:
        if p.role not in roles or p.relative_to is not None or p.window is not None:
            continue
        if p.metric not in METRICS or p.value is None:
            continue
        points.append(MeasuredPoint(p.label, dict(p.set), {p.metric: p.value}))
    if not points:
        raise CalibrationError(f"no {' or '.join(roles)} reference points with a fittable metric")
    return points
