"""Published figures against the model: ``sanpath compare``.

A scenario's ``reference:`` section lists the figures a write-up published, each with the
settings it was measured at (dotted overrides), the metric and, where the published figure is
a ratio ("+25% from queue depth 4 to 8"), the point it is relative to. :func:`compare` runs
the model at every distinct setting once (same seed) and returns one row per figure with the
signed relative error ``(model - published) / published``.

Metrics: ``iops``, ``mb_per_s``, ``latency_ms_*`` and ``command_latency_ms_*``
(``mean, p50, p99, max``), ``mb_per_s_spread`` (fastest minus slowest LUN) and, from a time
series, ``exchange_ms_*``: the exchange completion time a switch probe measures, from the
command frame leaving the HBA to the status coming back. With a
``window`` the figure is read from the run's time series over that span of simulated time:
throughput and mean latency averaged over the intervals, ``p99`` the mean of the intervals'
p99, and ``max`` the largest interval p99 (what a dashboard's peak shows).
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from sanpath.plotting import comparison, comparison_points
from sanpath.readable import figure, number, percent
from sanpath.results import RunResult
from sanpath.spec import ReferencePointSpec, Scenario, ScenarioError, load_line, load_scenario


@dataclass(frozen=True)
class Comparison:
    """One published figure beside the model's."""

    label: str
    metric: str
    published: float
    model: float
    error: float
    """Signed relative error, (model - published) / published."""
    role: str
    within: bool | None
    """Whether the model meets the point's tolerance (None when it states none)."""
    band: tuple[float, float] | None = None
    """The values the tolerance accepts, in the metric's units (None without one)."""
    interval: tuple[float, float] | None = None
    """The model's 95% interval in the metric's units, where its run gives one (IOPS and
    mean latency; MB/s scaled from the IOPS interval); None for ratios, windows and counts."""

    def to_dict(self) -> dict[str, Any]:
        """The comparison as JSON-ready values: NaN as None, pairs as lists."""
        out = asdict(self)
        for key in ("band", "interval"):
            out[key] = list(out[key]) if out[key] is not None else None
        for key in ("published", "model", "error"):
            if isinstance(out[key], float) and not math.isfinite(out[key]):
                out[key] = None
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> Comparison:
        """The comparison :meth:`to_dict` wrote (None read back as NaN)."""

        def real(key: str) -> float:
            return math.nan if data.get(key) is None else float(data[key])

        def pair(key: str) -> tuple[float, float] | None:
            value = data.get(key)
            return None if value is None else (float(value[0]), float(value[1]))

        return cls(
            str(data["label"]),
            str(data["metric"]),
            real("published"),
            real("model"),
            real("error"),
            str(data["role"]),
            data.get("within"),
            pair("band"),
            pair("interval"),
        )


def metric_value(result: RunResult, point: ReferencePointSpec) -> float:
    """The figure ``point.metric`` from ``result`` (over ``point.window`` if given)."""
    metric = point.metric
    if point.window is not None:
        return _window_value(result, metric, point.window)
    if metric == "commands_per_io":
        return result.counters["commands"] / result.ios if result.ios else math.nan
    if metric == "read_latency_ms_mean":
        return result.read_latency_ms
    if metric == "write_latency_ms_mean":
        return result.write_latency_ms
    if metric == "write_cache_fraction":
        writes = result.counters["cached_writes"] + result.counters["write_aside"]
        return result.counters["cached_writes"] / writes if writes else math.nan
    if metric == "mb_per_s_spread":
        values = list(result.lun_mb_per_s.values())
        return max(values) - min(values) if values else math.nan
    if metric.startswith("command_latency_ms_"):
        return float(result.command_latency_ms[metric.removeprefix("command_latency_ms_")])
    if metric.startswith("latency_ms_"):
        return float(result.latency_ms[metric.removeprefix("latency_ms_")])
    return float(getattr(result, metric))


def metric_interval(result: RunResult, point: ReferencePointSpec) -> tuple[float, float] | None:
    """The 95% interval of ``point.metric`` from ``result``, in the metric's units, or None.

    The run's own intervals: IOPS and mean latency (batch means); MB/s is the IOPS interval
    scaled by the run's mean bytes per I/O (exact for a fixed I/O size). Windows, ratios and
    the other metrics have none.
    """
    if point.window is not None or point.relative_to is not None:
        return None
    if point.metric in ("iops", "latency_ms_mean"):
        low, high = result.ci95[point.metric]
        return (float(low), float(high))
    if point.metric == "mb_per_s" and result.iops > 0:
        low, high = result.ci95["iops"]
        scale = result.mb_per_s / result.iops
        return (float(low) * scale, float(high) * scale)
    return None


def _window_value(result: RunResult, metric: str, window: tuple[float, float]) -> float:
    ts = result.timeseries
    if ts is None:
        raise ValueError("a reference window needs run.record_interval (a time series)")
    t = np.asarray(ts["t_start_s"])
    lo, hi = window
    mask = (t >= lo) & (t < hi)
    if not mask.any():
        return math.nan
    iops = np.asarray(ts["iops"])[mask]
    if metric == "iops":
        return float(iops.mean())
    if metric == "mb_per_s":
        return float(np.asarray(ts["mb_per_s"])[mask].mean())
    if metric.startswith("exchange_"):
        if "exchange_ms_mean" not in ts:
            raise ValueError("exchange times need run.record_interval")
        ex_mean = np.asarray(ts["exchange_ms_mean"])[mask]
        ex_p50 = np.asarray(ts["exchange_ms_p50"])[mask]
        ex_p99 = np.asarray(ts["exchange_ms_p99"])[mask]
        if metric == "exchange_ms_mean":
            weights = iops if iops.sum() > 0 else None
            return float(np.average(ex_mean, weights=weights))
        if metric == "exchange_ms_p50":
            return float(np.nanmean(ex_p50))
        if metric == "exchange_ms_p99":
            return float(np.nanmean(ex_p99))
        if metric == "exchange_spread":
            return float(np.nanmean(ex_p99 / ex_p50))
        return float(np.nanmax(np.asarray(ts["exchange_ms_max"])[mask]))
    name = metric.replace("command_", "")
    if name == "latency_ms_mean":
        weights = iops if iops.sum() > 0 else None
        return float(np.average(np.asarray(ts["latency_ms_mean"])[mask], weights=weights))
    if name == "latency_ms_p99":
        return float(np.nanmean(np.asarray(ts["latency_ms_p99"])[mask]))
    if name == "latency_ms_max":
        return float(np.nanmax(np.asarray(ts["latency_ms_max"])[mask]))
    raise ValueError(f"metric {metric} cannot be read from a time series")


def compare(
    scenario: Scenario | str | Path | Mapping[str, Any],
    ios: int | None = None,
    force: bool = False,
) -> list[Comparison]:
    """Run the model at every reference point and compare with the published figures.

    Parameters
    ----------
    scenario
        A scenario with a ``reference:`` section.
    ios
        Override ``run.ios`` (for quick checks); the section's own ``run`` overrides apply
        first.
    force
        Run points estimated beyond :mod:`sanpath.sim.budget`'s memory or time limits (without
        it every point is estimated before the first runs, and one beyond raises
        :class:`~sanpath.spec.scenario.ScenarioError`).
    """
    from sanpath.sim import budget, run

    base = load_scenario(scenario)
    if base.reference is None:
        raise ScenarioError.at("reference", "the scenario has no reference section to compare")
    reference = base.reference
    common: dict[str, Any] = {f"run.{k}": v for k, v in reference.run.items()}
    if ios is not None:
        common["run.ios"] = ios
    plain = base.model_copy(update={"reference": None, "sweep": None})
    specs: dict[str, tuple[str, Scenario]] = {}
    keys: dict[str, str] = {}
    for point in reference.points:
        overrides = {**common, **point.set}
        key = keys[point.label] = json.dumps(overrides, sort_keys=True, default=str)
        if key not in specs:
            specs[key] = (point.label, plain.with_overrides(overrides) if overrides else plain)
    if not force:
        source = str(scenario) if isinstance(scenario, str | Path) else "<scenario>"
        for label, spec in specs.values():
            budget.check(spec, source=source, context=f"reference point {label!r}: ")
    results: dict[str, RunResult] = {key: run(spec, force=True) for key, (_, spec) in specs.items()}
    values = {p.label: metric_value(results[keys[p.label]], p) for p in reference.points}
    intervals = {p.label: metric_interval(results[keys[p.label]], p) for p in reference.points}
    rows = []
    for point in reference.points:
        model = values[point.label]
        if point.relative_to is not None:
            denominator = values[point.relative_to]
            model = model / denominator if denominator else math.nan
        interval = intervals[point.label]
        if point.value is None:
            bare = Comparison(point.label, point.metric, math.nan, model, math.nan, "base", None)
            rows.append(replace(bare, interval=interval))
            continue
        error = (model - point.value) / point.value if point.value else math.nan
        rows.append(
            Comparison(
                point.label,
                point.metric,
                point.value,
                model,
                error,
                point.role,
                _within(point, model, error),
                band_of(point),
                interval,
            )
        )
    return rows


def band_of(point: ReferencePointSpec) -> tuple[float, float] | None:
    """The values ``point``'s tolerance accepts, in its metric's units (None without one)."""
    tol = point.tolerance
    if tol is None or point.value is None:
        return None
    if isinstance(tol, tuple):
        return (float(tol[0]), float(tol[1]))
    return (point.value * (1 - tol), point.value * (1 + tol))


def _within(point: ReferencePointSpec, model: float, error: float) -> bool | None:
    tol = point.tolerance
    if tol is None:
        return None
    if not math.isfinite(model):
        return False
    if isinstance(tol, tuple):
        return tol[0] <= model <= tol[1]
    return abs(error) <= tol


def is_bound(row: Comparison) -> bool:
    """True when the point is a bound ("under 25 ms", "10x or more"), not a measured figure.

    Its band is open on one side (starts at zero or reaches ten times the published value),
    so its signed error says how far the model is from a representative value inside the
    bound, not how wrong it is; the summaries leave bounds out of the mean and max error.
    """
    if row.band is None or not math.isfinite(row.published) or row.published <= 0:
        return False
    low, high = row.band
    return low <= 0 or high >= 10 * row.published


def measured_errors(rows: list[Comparison]) -> list[float]:
    """|error| of the measured figures (bounds and bases left out), as fractions."""
    return [abs(r.error) for r in rows if math.isfinite(r.error) and not is_bound(r)]


def error_summary(rows: list[Comparison]) -> str:
    """Mean and max |error| over the measured figures, with how many bounds were left out."""
    errors = measured_errors(rows)
    bounds = sum(1 for r in rows if is_bound(r))
    left_out = f" ({bounds} bound(s) left out)" if bounds else ""
    if not errors:
        return f"no measured figure to take an error over{left_out}"
    return (
        f"mean |error| {100 * float(np.mean(errors)):.1f}%, max {100 * max(errors):.1f}%{left_out}"
    )


def _published(value: float) -> str:
    """A published figure as the scenario file states it (``0.6``, ``14,000``, ``-`` for
    none): an input, shown without padding to a number of digits."""
    if not math.isfinite(value) or float(value).is_integer() or abs(value) >= 1000:
        return number(value)
    return f"{value:g}"


def table(rows: list[Comparison]) -> str:
    """The comparison as readable text."""
    width = max([len(r.label) for r in rows] + [5])
    lines = [
        f"{'point':<{width}}  {'metric':<22}{'published':>12}{'model':>12}{'error':>9}"
        f"  role       ok"
    ]
    for r in rows:
        ok = "" if r.within is None else ("yes" if r.within else "NO")
        lines.append(
            f"{r.label:<{width}}  {r.metric:<22}{_published(r.published):>12}"
            f"{figure(r.model):>12}{percent(r.error, signed=True, digits=1):>9}  "
            f"{r.role:<10} {ok}"
        )
    lines.append(error_summary(rows))
    return "\n".join(lines)


def plot(rows: list[Comparison], ax: Any = None, scenario: Scenario | None = None) -> Any:
    """Model over published, one row per point, with the accepted band; returns the Axes.

    Drawn by :func:`sanpath.plotting.comparison` (the picture ``sanpath plot --kind compare``
    draws from the same points as JSON). With ``scenario``, the plot is titled with it and
    subtitled with its load.
    """
    return comparison(
        comparison_points([r.to_dict() for r in rows]),
        ax,
        name=None if scenario is None else scenario.name,
        load=None if scenario is None else load_line(scenario),
    )
