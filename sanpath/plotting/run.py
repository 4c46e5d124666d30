"""Plots of one run or a few: the dashboard over simulated time, and latency CDFs."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, TypeAlias

import numpy as np
from matplotlib.axes import Axes

from sanpath.plotting.draw import AxesLike, new_axes, new_axes_grid
from sanpath.plotting.style import (
    EXCHANGE_LABEL,
    IOPS_LABEL,
    LATENCY_LABEL,
    MBPS_LABEL,
    int_label,
    legend_clear_of_data,
    log_ms_axis,
    palette,
    set_titles,
    subtitle,
    thousands,
)
from sanpath.plotting.tables import FloatArray, PlotInputError, to_number
from sanpath.readable import short_name
from sanpath.results import RunResult

__all__ = ["dashboard", "latency_cdf"]

RunLike: TypeAlias = RunResult | Mapping[str, Any]
"""What run plots accept: a RunResult or the dict of ``RunResult.to_dict()`` (JSON)."""


_DASHBOARD_LINES: dict[str, tuple[tuple[str, str, str, float, str], ...]] = {
    "latency": (
        ("latency_ms_mean", "C0", "-", 1.2, "mean"),
        ("latency_ms_p99", "C3", "--", 1.0, "p99"),
    ),
    "exchange": (
        ("exchange_ms_p50", "C2", "-", 1.0, "p50"),
        ("exchange_ms_mean", "C0", "-", 1.2, "mean"),
        ("exchange_ms_p99", "C3", "--", 1.0, "p99"),
        ("exchange_ms_max", "C3", ":", 1.0, "max"),
    ),
}
"""The top panel's lines per ``times``: (time-series column, colour, style, width, label)."""


def dashboard(
    run_result: RunLike, axes: AxesLike | None = None, times: str = "latency"
) -> tuple[Axes, Axes, Axes]:
    """A run over time, like the Virtual Instruments dashboard of the 2012 queue-depth test.

    Three panels sharing the simulated-time axis: times on top; throughput (MB/s, IOPS on a
    twin right axis) in the middle; the scheduled settings (``schedule:`` changes, one step
    line per key) at the bottom. Dotted vertical lines mark every change. Needs
    ``run.record_interval`` in the scenario (the time series).

    Parameters
    ----------
    run_result
        A RunResult or the dict of ``RunResult.to_dict()`` (``sanpath run --json``).
    times
        ``latency``: the application I/Os' latency (mean and p99 per interval).
        ``exchange``: the exchange completion time a switch probe sees (p50, mean, p99 and
        maximum per interval, log scale, ms), with QUEUE FULL answers per second on a twin
        right axis when there were any: the view that shows an unstable queue.
    """
    if times not in _DASHBOARD_LINES:
        raise PlotInputError(f"times must be 'latency' or 'exchange', not {times!r}")
    data = _run_dict(run_result)
    series = data.get("timeseries")
    if not isinstance(series, Mapping) or "t_start_s" not in series:
        raise PlotInputError("the run has no time series: set run.record_interval in the scenario")
    t = _floats(series["t_start_s"])
    step = float(np.median(np.diff(t))) if t.size > 1 else 0.0
    mid = t + step / 2
    t_end = float(t[-1] + step) if t.size else 0.0
    own = axes is None
    ax_lat, ax_tp, ax_set = new_axes_grid(axes, 3, rows=True, figsize=(8.0, 7.8))

    if times == "exchange" and "exchange_ms_mean" not in series:
        raise PlotInputError("the run's time series has no exchange times")
    for column, color, style, width, label in _DASHBOARD_LINES[times]:
        ax_lat.plot(mid, _floats(series[column]), color=color, ls=style, lw=width, label=label)
    handles, labels = ax_lat.get_legend_handles_labels()
    twins = []
    if times == "exchange":
        ax_lat.set_yscale("log")
        ax_lat.set_ylabel(EXCHANGE_LABEL)
        qfull = _floats(series.get("qfull", []))
        if qfull.size == t.size and qfull.size and float(qfull.max()) > 0 and step > 0:
            ax_qfull = ax_lat.twinx()
            ax_qfull.fill_between(
                mid, qfull / step, step="mid", color="0.6", alpha=0.35, label="QUEUE FULL/s"
            )
            ax_qfull.set_ylabel("QUEUE FULL per s")
            ax_qfull.set_ylim(0, float((qfull / step).max()) * 1.05)
            twins.append(ax_qfull)
            ax_qfull.set_zorder(ax_lat.get_zorder() - 1)  # the shading behind the lines
            ax_lat.patch.set_visible(False)
            thousands(ax_qfull)
            h2, l2 = ax_qfull.get_legend_handles_labels()
            handles, labels = handles + h2, labels + l2
        what = "exchange times"
    else:
        ax_lat.set_ylabel(LATENCY_LABEL)
        ax_lat.set_ylim(bottom=0)
        what = "latency"
    legend_clear_of_data(ax_lat, handles, labels, twins)
    set_titles(
        ax_lat,
        f"{what.capitalize()}, throughput and settings over simulated time",
        subtitle(data.get("name"), data.get("workload")),
        own,
    )

    ax_tp.plot(mid, _floats(series["mb_per_s"]), color="C0", lw=1.2, label="MB/s")
    ax_iops = ax_tp.twinx()
    ax_iops.plot(mid, _floats(series["iops"]), color="C1", lw=1.0, ls="--", label="IOPS")
    ax_tp.set_ylabel(MBPS_LABEL)
    ax_iops.set_ylabel(IOPS_LABEL)
    thousands(ax_iops)
    ax_tp.set_ylim(bottom=0)
    ax_iops.set_ylim(bottom=0)
    h1, l1 = ax_tp.get_legend_handles_labels()
    h2, l2 = ax_iops.get_legend_handles_labels()
    legend_clear_of_data(ax_tp, h1 + h2, l1 + l2, [ax_iops])

    settings = [dict(s) for s in data.get("settings", []) or []]
    by_key: dict[str, list[tuple[float, float]]] = {}
    for item in settings:
        by_key.setdefault(str(item["key"]), []).append(
            (float(item["t_s"]), to_number(item["value"]))
        )
    changes = sorted({t_s for steps in by_key.values() for t_s, _ in steps if t_s > 0})
    colors = palette(len(by_key))
    for (key, steps), color in zip(by_key.items(), colors, strict=True):
        steps.sort(key=lambda s: s[0])
        xs = [s[0] for s in steps] + [max(t_end, steps[-1][0])]
        ys = [s[1] for s in steps] + [steps[-1][1]]
        ax_set.plot(xs, ys, drawstyle="steps-post", color=color, lw=1.8, label=short_name(key))
        for t_s, value in steps:
            if math.isfinite(value):
                ax_set.annotate(
                    int_label(value),
                    (t_s, value),
                    xytext=(3, 3),
                    textcoords="offset points",
                    fontsize="small",
                    color=color,
                )
    if by_key:
        ax_set.set_ylabel(short_name(next(iter(by_key))) if len(by_key) == 1 else "setting")
        ax_set.set_ylim(bottom=0, top=ax_set.get_ylim()[1] * 1.15)
        if len(by_key) > 1:
            handles, labels = ax_set.get_legend_handles_labels()
            legend_clear_of_data(ax_set, handles, labels)
    else:
        ax_set.text(
            0.5, 0.5, "no scheduled settings", ha="center", va="center", transform=ax_set.transAxes
        )
        ax_set.set_ylabel("setting")
    for target in (ax_lat, ax_tp, ax_set):
        for t_s in changes:
            target.axvline(t_s, color="0.5", ls=":", lw=1, label="_change", gid="change")
        target.grid(True, alpha=0.3)
    ax_set.set_xlabel("simulated time (s)")
    ax_set.set_xlim(0, t_end if t_end > 0 else None)
    return ax_lat, ax_tp, ax_set


def latency_cdf(
    results: RunLike | Mapping[str, RunLike] | Sequence[RunLike],
    ax: Axes | None = None,
    labels: Sequence[str] | None = None,
) -> Axes:
    """Latency CDFs, one line per run, on a log latency axis (ms).

    Parameters
    ----------
    results
        ``{label: run}``, a list of runs, or one run; a run is a RunResult or the dict of
        ``RunResult.to_dict()``. Lines come from :meth:`RunResult.latency_cdf`.
    labels
        Line labels for a list (default: each run's scenario name).
    """
    items: list[tuple[str | None, RunLike]]
    if isinstance(results, RunResult):
        items = [(None, results)]
    elif isinstance(results, Mapping):
        if _is_run(results):
            items = [(None, results)]
        else:
            items = [(str(k), v) for k, v in results.items()]
    else:
        items = [(None, r) for r in results]
    if not items:
        raise PlotInputError("no runs to plot")
    if labels is not None:
        if len(labels) != len(items):
            raise ValueError(f"labels: expected {len(items)}, got {len(labels)}")
        items = [(str(label), r) for label, (_, r) in zip(labels, items, strict=True)]
    own = ax is None
    ax = new_axes(ax)
    colors = palette(len(items))
    runs = [_name_and_load(result) for _, result in items]
    for i, ((label, result), color) in enumerate(zip(items, colors, strict=True)):
        latency, fraction = _cdf(result)
        if label is None:
            name = result.name if isinstance(result, RunResult) else result.get("name")
            label = str(name) if name else f"run {i}"
            if len(items) > 1:
                label = f"{label} #{i}" if _duplicate(items, i) else label
        keep = np.isfinite(latency) & np.isfinite(fraction) & (latency > 0)
        ax.plot(latency[keep], fraction[keep], color=color, lw=1.6, label=label)
    log_ms_axis(ax)
    ax.set_xlabel(LATENCY_LABEL + ", log scale")
    ax.set_ylabel("cumulative fraction of I/Os")
    ax.set_ylim(0, 1.02)
    ax.axhline(0.99, color="0.6", ls=":", lw=1, label="_p99")
    ax.annotate(
        "p99",
        (0.0, 0.99),
        xycoords=("axes fraction", "data"),
        xytext=(3, -10),
        textcoords="offset points",
        fontsize="small",
        color="0.4",
    )
    ax.grid(True, which="both", alpha=0.25)
    ax.legend(title="run", loc="lower right")
    names = list(dict.fromkeys(name for name, _ in runs))
    loads = list(dict.fromkeys(load for _, load in runs))
    if len(loads) == 1:
        sub = subtitle(", ".join(names), loads[0])
    else:  # each run with what it simulated
        sub = "; ".join(subtitle(name, load) for name, load in dict.fromkeys(runs))
    set_titles(ax, "Latency distribution: the share of I/Os done within each latency", sub, own)
    return ax


def _name_and_load(result: RunLike) -> tuple[str, str]:
    """A run's scenario name and its one-line load (``workload``), as recorded."""
    if isinstance(result, RunResult):
        return result.name, str(result.extra.get("workload") or "")
    return str(result.get("name") or "run"), str(result.get("workload") or "")


def _run_dict(result: RunLike) -> Mapping[str, Any]:
    if isinstance(result, RunResult):
        return result.to_dict()
    if isinstance(result, Mapping):
        return result
    raise TypeError(f"expected a RunResult or a run dict, got {type(result).__name__}")


def _floats(values: Iterable[Any]) -> FloatArray:
    return np.array([math.nan if v is None else float(v) for v in values], dtype=np.float64)


def _cdf(result: RunLike) -> tuple[FloatArray, FloatArray]:
    if isinstance(result, RunResult):
        cdf: Any = result.latency_cdf()
    elif isinstance(result, Mapping):
        cdf = result.get("latency_cdf")
    else:
        raise TypeError(f"expected a RunResult or a run dict, got {type(result).__name__}")
    if not isinstance(cdf, Mapping) or "fraction" not in cdf or "latency_ms" not in cdf:
        raise PlotInputError("the run has no latency_cdf (expected RunResult.to_dict() output)")
    return _floats(cdf["latency_ms"]), _floats(cdf["fraction"])


def _is_run(value: Any) -> bool:
    return isinstance(value, RunResult) or (
        isinstance(value, Mapping) and isinstance(value.get("latency_cdf"), Mapping)
    )


def _duplicate(items: Sequence[tuple[str | None, RunLike]], i: int) -> bool:
    def name(r: RunLike) -> Any:
        return r.name if isinstance(r, RunResult) else r.get("name")

    return sum(1 for _, r in items if name(r) == name(items[i][1])) > 1
