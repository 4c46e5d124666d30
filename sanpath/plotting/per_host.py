"""Who suffers: each host's IOPS and p99 latency, in one run or as hosts are added."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.axes import Axes

from sanpath.plotting.draw import AxesLike, new_axes_grid
from sanpath.plotting.style import IOPS_LABEL, add_legend, set_titles, subtitle, thousands
from sanpath.plotting.tables import PlotInputError
from sanpath.readable import figure, short_name
from sanpath.results import RunResult, SweepResult, fairness, short_of_demand, shortfall_text

__all__ = ["HOST_COLUMNS", "per_host"]

HOST_COLUMNS = ("host", "iops", "latency_ms_mean", "latency_ms_p99", "qfull")
"""Columns of a sweep's per-host table (beside the sweep's varied keys and ``replicate``)."""


def per_host(
    source: RunResult | SweepResult | Mapping[str, Any],
    x: str | None = None,
    axes: AxesLike | None = None,
) -> tuple[Axes, Axes]:
    """Each host's IOPS (top) and p99 latency (bottom).

    From a run (a RunResult, or the dict of its JSON): one bar per host, least served
    (relative to what it asked for) first, with the hosts' mean and Jain's fairness index of
    what each host got over what it asked for in the title. From a sweep with a
    per-host table (``SweepResult.hosts``, kept by every sweep): each host as a dot at each
    value of ``x`` (default: the sweep's first varied key), with the lowest, median and highest host
    as lines, so the spread shows as hosts are added.
    """
    if isinstance(source, RunResult):
        groups = source.groups.get("hosts", {})
        bars = [(g.name, g.iops, g.latency_ms["p99"]) for g in groups.values()]
        ios = {g.name: g.ios for g in groups.values()}
        sub = subtitle(source.name, source.extra.get("workload"))
        return _run_bars(sub, bars, source.served, ios, axes)
    if isinstance(source, Mapping):
        entries = source.get("hosts")
        if not isinstance(entries, Mapping):
            raise PlotInputError("this run JSON has no per-host figures ('hosts')")
        bars = [
            (str(name), float(e["iops"]), float(e["latency_ms"]["p99"] or np.nan))
            for name, e in entries.items()
        ]
        share = source.get("served")
        served = {str(k): float(v) for k, v in share.items()} if isinstance(share, Mapping) else {}
        ios = {str(name): int(e.get("ios", 0)) for name, e in entries.items()}
        sub = subtitle(source.get("name"), source.get("workload"))
        return _run_bars(sub, bars, served, ios, axes)
    hosts = source.hosts
    if hosts is None or hosts.empty:
        raise PlotInputError(
            "this sweep has no per-host table (a sweep writes one when its runs have hosts)"
        )
    key = x or (source.keys[0] if source.keys else None)
    if key is None or key not in hosts.columns:
        raise PlotInputError(f"--x {key!r} is not a varied key of this sweep ({source.keys})")
    attrs = {"scenario": source.scenario_name, **source.attrs}
    return _sweep_dots(hosts, key, axes, subtitle(attrs["scenario"], attrs.get("workload")))


def _run_bars(
    sub: str,
    bars: list[tuple[str, float, float]],
    served: Mapping[str, float],
    ios: Mapping[str, int],
    axes: AxesLike | None,
) -> tuple[Axes, Axes]:
    """Bars of (host, IOPS, p99 ms), least served first: by ``served`` (each host's IOPS
    over what it asked for) when it has every host, else by IOPS. The subtitle names the
    least served host only when its shortfall is beyond counting noise (``ios``: each host's
    measured I/Os; :func:`sanpath.results.short_of_demand`)."""
    known = bool(served) and all(b[0] in served for b in bars)
    bars = sorted(bars, key=lambda b: served[b[0]] if known else b[1])
    if not bars:
        raise PlotInputError("this result has no per-host figures")
    names = [b[0] for b in bars]
    iops = np.array([b[1] for b in bars], dtype=float)
    p99 = np.array([b[2] for b in bars], dtype=float)
    own = axes is None
    ax_iops, ax_lat = new_axes_grid(axes, 2, rows=True, figsize=(max(6.4, 0.3 * len(names)), 6))
    where = np.arange(len(names))
    ax_iops.bar(where, iops, color="#4477aa")
    ax_iops.axhline(float(iops.mean()), color="0.3", ls="--", lw=1, label="mean of the hosts")
    ax_lat.bar(where, p99, color="#cc6677")
    for ax in (ax_iops, ax_lat):
        ax.set_xticks(where, names, rotation=90 if len(names) > 8 else 0, fontsize=8)
    ax_iops.set_ylabel(IOPS_LABEL)
    ax_lat.set_ylabel("p99 latency (ms)")
    thousands(ax_iops)
    add_legend(ax_iops, "")
    if known:
        fair = fairness([served[n] for n in names])
        short = short_of_demand(ios, served)
        fairness_text = (
            f"Jain's index {figure(fair['jain'])} of what each host got over what it asked; "
            + shortfall_text(short, served)
        )
    else:
        fair = fairness(list(iops))
        fairness_text = (
            f"Jain's index {figure(fair['jain'])}, busiest {figure(fair['max_min'])}x the least "
            "served"
        )
    set_titles(
        ax_iops, "IOPS and p99 latency per host, least served first", f"{sub}; {fairness_text}", own
    )
    return ax_iops, ax_lat


def _sweep_dots(
    hosts: pd.DataFrame, key: str, axes: AxesLike | None, sub: str
) -> tuple[Axes, Axes]:
    data = hosts.copy()
    data[key] = pd.to_numeric(data[key], errors="coerce")
    data = data.dropna(subset=[key])
    if data.empty:
        raise PlotInputError(f"--x {key!r} has no numeric values in the per-host table")
    own = axes is None
    ax_iops, ax_lat = new_axes_grid(axes, 2, rows=True, figsize=(6.4, 7.0))
    for ax, metric, label in (
        (ax_iops, "iops", IOPS_LABEL),
        (ax_lat, "latency_ms_p99", "p99 latency (ms)"),
    ):
        values = pd.to_numeric(data[metric], errors="coerce")
        ax.scatter(data[key], values, s=9, alpha=0.5, color="0.45", label="one host")
        stats = values.groupby(data[key]).agg(["min", "median", "max"])
        for stat, color in (("min", "#cc6677"), ("median", "#4477aa"), ("max", "#228833")):
            name = {"min": "lowest host", "median": "median host", "max": "highest host"}[stat]
            ax.plot(stats.index, stats[stat], marker="o", ms=4, color=color, label=name)
        ax.set_ylabel(label)
        ax.set_xscale("log", base=2)
        ax.set_xlabel(short_name(key))
        add_legend(ax, "")
    thousands(ax_iops)
    growing = "hosts are added" if short_name(key) == "hosts" else f"{short_name(key)} grows"
    set_titles(ax_iops, f"Each host's IOPS and p99 latency as {growing}", sub, own)
    return ax_iops, ax_lat
