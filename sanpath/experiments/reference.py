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
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np

from sanpath.files import atomic_path, write_text
from sanpath.plotting import log_ms_axis, set_titles, subtitle
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

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["band"] = list(self.band) if self.band is not None else None
        for key in ("published", "model", "error"):
            if isinstance(out[key], float) and not math.isfinite(out[key]):
                out[key] = None
        return out


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
    rows = []
    for point in reference.points:
        model = values[point.label]
        if point.relative_to is not None:
            denominator = values[point.relative_to]
            model = model / denominator if denominator else math.nan
        if point.value is None:
            rows.append(
                Comparison(point.label, point.metric, math.nan, model, math.nan, "base", None)
            )
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
                _band(point),
            )
        )
    return rows


def _band(point: ReferencePointSpec) -> tuple[float, float] | None:
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


def _errors(rows: list[Comparison]) -> list[float]:
    """|error| of the measured figures (bounds and bases left out)."""
    return [abs(r.error) for r in rows if math.isfinite(r.error) and not is_bound(r)]


def error_summary(rows: list[Comparison]) -> str:
    """Mean and max |error| over the measured figures, with how many bounds were left out."""
    errors = _errors(rows)
    bounds = sum(1 for r in rows if is_bound(r))
    left_out = f" ({bounds} bound(s) left out)" if bounds else ""
    if not errors:
        return f"no measured figure to take an error over{left_out}"
    return (
        f"mean |error| {100 * float(np.mean(errors)):.1f}%, max {100 * max(errors):.1f}%{left_out}"
    )


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


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
            f"{r.label:<{width}}  {r.metric:<22}{number(r.published, 4):>12}"
            f"{number(r.model, 4):>12}{percent(r.error, signed=True, digits=1):>9}  "
            f"{r.role:<10} {ok}"
        )
    lines.append(error_summary(rows))
    return "\n".join(lines)


def plot(rows: list[Comparison], ax: Any = None, scenario: Scenario | None = None) -> Any:
    """Model over published, one row per point, with the accepted band; returns the Axes.

    Every figure is shown as a ratio to its published value (log scale), so points in
    different units share one axis: 1 is a perfect match, the grey bar is what the point's
    tolerance accepts (cut at the axis edge when open-ended), the marker is green inside it
    and red outside. Points without a published value (bases of ratios) are left out. With
    ``scenario``, the plot is titled with it and subtitled with its load.
    """
    from matplotlib.figure import Figure

    shown = [r for r in rows if math.isfinite(r.published) and r.published > 0]
    own = ax is None
    if ax is None:
        figure = Figure(figsize=(9, max(3.0, 0.34 * len(shown) + 1.6)), layout="constrained")
        ax = figure.add_subplot()
    ratios = [r.model / r.published if math.isfinite(r.model) else math.nan for r in shown]
    finite = [x for x in ratios if math.isfinite(x) and x > 0]
    lo = min([0.5, *finite]) / 1.5
    hi = max([2.0, *finite]) * 1.5
    for y, (row, ratio) in enumerate(zip(shown, ratios, strict=True)):
        if row.band is not None:
            left = max(row.band[0] / row.published, lo)
            right = min(row.band[1] / row.published, hi)
            ax.plot([left, right], [y, y], color="#bbbbbb", lw=6, solid_capstyle="butt")
        if math.isfinite(ratio) and ratio > 0:
            color = "#2ca02c" if row.within else ("#d62728" if row.within is False else "k")
            ax.plot([ratio], [y], "o", color=color, ms=6)
    ax.axvline(1.0, color="k", lw=0.8, ls="--")
    log_ms_axis(ax)  # a log axis with plain tick labels (0.5, 1, 2)
    ax.set_xlim(lo, hi)
    ax.set_yticks(range(len(shown)), [f"{r.label} ({r.metric})" for r in shown], fontsize=8)
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xlabel("model / published (grey: accepted band; green inside, red outside)")
    if scenario is not None:
        set_titles(
            ax,
            f"{scenario.name}: the model against the published figures",
            subtitle(scenario.name, load_line(scenario)),
            own_figure=own,
        )
    return ax


def write_report(
    paths: list[str | Path], markdown: str | Path, figures: str | Path, ios: int | None = None
) -> str:
    """Write the validation report: per scenario, set-up, calibration, table, plot.

    Scenarios without a ``reference`` section are listed as not yet compared. Returns the
    Markdown text (also written to ``markdown``); plots go to ``figures``.
    """
    figures = Path(figures)
    figures.mkdir(parents=True, exist_ok=True)
    markdown = Path(markdown)
    lines = [
        "# Validation: the published experiments against the model",
        "",
        "Generated by `make validation` (`sanpath.experiments.reference.write_report`); every "
        "number below comes from that run. Errors are signed: (model - published) / published.",
        "",
    ]
    head = len(lines)
    summary = [
        "| experiment | figures compared | within their band | fitted | predicted "
        "| mean \\|error\\| | max \\|error\\| |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    pending = []
    for path in paths:
        scenario = load_scenario(path)
        if scenario.reference is None:
            pending.append(scenario)
            continue
        rows = compare(scenario, ios=ios)
        ref = scenario.reference
        name = Path(path).stem
        ax = plot(rows, scenario=scenario)
        picture = figures / f"{name}.png"
        with atomic_path(picture) as tmp:
            ax.figure.savefig(tmp, dpi=110, bbox_inches="tight")
        relative = (
            Path(picture).relative_to(markdown.parent)
            if picture.is_relative_to(markdown.parent)
            else picture
        )
        passed = [r for r in rows if r.within is not None]
        errors = _errors(rows)
        # one count of each role, for the summary's row and the section's sentence alike
        fitted = sum(1 for r in rows if r.role == "fitted")
        measured = sum(1 for r in rows if r.role == "measured")
        predicted = sum(1 for r in rows if r.role == "predicted")
        summary.append(
            f"| [{scenario.name}](#{scenario.name}) | {len(passed)} | "
            f"{sum(1 for r in passed if r.within)} of {len(passed)} | {fitted} | "
            f"{predicted} | "
            f"{percent(float(np.mean(errors)), digits=1) if errors else '-'} | "
            f"{percent(max(errors), digits=1) if errors else '-'} |"
        )
        lines += [
            f"## {scenario.name}",
            "",
            f"**Source.** {ref.source.strip()}",
            "",
            f"**Set-up.** {scenario.description.strip()} (`{Path(path).as_posix()}`)",
            "",
        ]
        if ref.calibrated:
            lines += ["**Calibrated** (what the write-up does not say):", ""]
            lines += [f"* `{k}`: {v}" for k, v in ref.calibrated.items()]
            lines.append("")
        on_own = f", {measured} measured on the system itself" if measured else ""
        lines += [
            f"{fitted} point(s) fitted, {predicted} predicted{on_own}. "
            f"{_sentence(error_summary(rows))}; "
            f"{sum(1 for r in passed if r.within)} of {len(passed)} within their tolerance.",
            "",
            "| point | metric | role | published | model | error | ok |",
            "|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            ok = "" if r.within is None else ("yes" if r.within else "**no**")
            error = percent(r.error, signed=True, digits=1)
            published = number(r.published, 4) if math.isfinite(r.published) else "-"
            lines.append(
                f"| {r.label} | {r.metric} | {r.role} | {published} | "
                f"{figure(r.model)} | {error} | {ok} |"
            )
        lines += ["", f"![{scenario.name}]({relative.as_posix()})", ""]
        if ref.mechanism:
            lines += [f"**Mechanism.** {ref.mechanism.strip()}", ""]
        if ref.disagreements:
            lines += [f"**Where the model still disagrees.** {ref.disagreements.strip()}", ""]
    summary += [f"| `{s.name}` | not yet compared | | | | | |" for s in pending]
    lines[head:head] = [
        "## Summary",
        "",
        "Each experiment's published figures against the model: how many the scenario "
        "compares, how many fall within the band the write-up allows, how many were used to "
        "fit the model's unknowns and how many it predicts, and the mean and largest error "
        "over the measured figures (bounds such as *under 25 ms* left out). The sections "
        "below give every figure.",
        "",
        *summary,
        "",
    ]
    if pending:
        lines += ["## Not yet compared", ""]
        lines += [
            f"* `{s.name}`: runnable set-up, no published figures attached yet." for s in pending
        ]
        lines.append("")
    lines += _included(
        figures / "datasheets.md",
        markdown,
        "Profiles against their datasheets",
        "Each profile of today's hardware alone at its datasheet's conditions "
        "(`sanpath.experiments.datasheets`, written by `make validation`): flash drives' "
        "IOPS, depth-1 latency and sequential MB/s, HBAs' per-port IOPS and MB/s, all-flash "
        "arrays' controller ceilings. `sanpath profiles NAME` gives each figure's origin.",
    )
    lines += _included(
        figures / "transports.md",
        markdown,
        "Transports against published comparisons",
        "Each published comparison of transports rebuilt as a scenario whose only costs are "
        "the transports' (`sanpath.experiments.transports`, written by `make validation`). "
        "A `fitted` figure is one a default was taken from; a `predicted` one is checked "
        "against its band, and a miss is listed with its cause.",
    )
    text = "\n".join(lines)
    write_text(markdown, text)
    return text


def _included(table: Path, markdown: Path, title: str, text: str) -> list[str]:
    """A section of the report titled ``title`` that says ``text`` and includes ``table``
    (a page ``make validation`` writes), relative to the report where it can be."""
    if table.is_relative_to(markdown.parent):
        table = table.relative_to(markdown.parent)
    return [f"## {title}", "", text, "", f"```{{include}} {table.as_posix()}", "```", ""]
