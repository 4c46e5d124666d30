"""Headroom: latency against load growth, with the SLO lines, the knee and the answer."""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes

from sanpath.plotting.draw import new_axes
from sanpath.plotting.style import LATENCY_LABEL, palette, set_titles, subtitle
from sanpath.plotting.tables import PlotInputError
from sanpath.results import HeadroomResult

__all__ = ["headroom"]

_GROWS = {
    "rate": "arrival rate",
    "hosts": "hosts",
    "outstanding": "outstanding I/Os",
}


def headroom(result: HeadroomResult | Mapping[str, Any], ax: Axes | None = None) -> Axes:
    """Latency (ms) against the growth factor of the load, from :func:`sanpath.headroom`.

    Lines are the analytic twin's curve: the mean latency, and for each percentile SLO the
    twin's estimate of that percentile (dashed; the exponential-tail rule). Markers with
    error bars are the simulated points with their 95% intervals. Dotted horizontal lines
    are the SLO limits; vertical lines mark the knee (grey, dashed) and the answer (green);
    an answer the simulations did not resolve is a green band from the factor that met every
    SLO to the one that broke, titled as the bracket it is.
    ``result`` may be a :class:`~sanpath.results.headroom.HeadroomResult` or its ``to_dict()``
    (e.g. read back from ``sanpath headroom --json``).
    """
    if not isinstance(result, HeadroomResult):
        try:
            result = HeadroomResult.from_dict(result)
        except (KeyError, TypeError, ValueError) as exc:
            raise PlotInputError(f"not a headroom result: {exc}") from None
    own = ax is None
    ax = new_axes(ax, (9.0, 4.4))  # room for the legend beside the panel
    growth = np.asarray(result.curve.get("growth", []), dtype=np.float64)
    metrics = ["mean", *[s.metric for s in result.slos if s.metric != "mean"]]
    metrics = list(dict.fromkeys(metrics))
    colors = dict(zip(metrics, palette(len(metrics)), strict=True))
    slo_metrics = list(dict.fromkeys(s.metric for s in result.slos))
    tops: list[float] = [1.6 * max((s.limit_ms for s in result.slos), default=1.0)]
    for m in metrics:
        values = _floats(result.curve.get(f"latency_ms_{m}", []))
        if values.size and values.size == growth.size:
            label = "twin mean" if m == "mean" else f"twin {m} (exponential tail)"
            ax.plot(growth, values, "-" if m == "mean" else "--", color=colors[m], label=label)
    for m in slo_metrics:
        for p in result.simulated:
            value = p.latency_ms.get(m, math.nan)
            lo, hi = p.ci95.get(m, (value, value))
            ax.errorbar(
                [p.growth],
                [value],
                yerr=[[max(value - lo, 0.0)], [max(hi - value, 0.0)]],
                fmt="o" if p.meets else "x",
                ms=6,
                capsize=3,
                color=colors[m],
                label=f"simulated {m} (95% CI)" if p.meets else f"simulated {m}, misses an SLO",
            )
            if math.isfinite(hi):
                tops.append(1.1 * hi)
    for s in result.slos:
        ax.axhline(s.limit_ms, color=colors[s.metric], ls=":", lw=1.5, label=f"SLO {s.text}")
    if result.knee is not None:
        ax.axvline(result.knee, color="0.45", ls="--", lw=1, label=f"knee x{result.knee:.3g}")
    if result.growth > 0 and not result.resolved and result.upper is not None:
        ax.axvspan(
            result.growth,
            result.upper,
            color="#2ca02c",
            alpha=0.18,
            label=f"answer {result.answer_text}",
        )
    elif result.growth > 0:
        ax.axvline(result.growth, color="#2ca02c", lw=2, label=f"answer {result.answer_text}")
    ax.set_ylim(0.0, max(tops))
    if growth.size:
        ax.set_xlim(0.0, float(np.nanmax(growth)) * 1.02)
    ax.set_xlabel(f"growth of the {_GROWS.get(result.grow, result.grow)} (x the scenario's load)")
    ax.set_ylabel(LATENCY_LABEL)
    slos = ", ".join(s.text for s in result.slos)
    set_titles(
        ax,
        f"Headroom {result.answer_text}: latency as the load grows "
        f"({_GROWS.get(result.grow, result.grow)})",
        subtitle(result.name, f"SLO {slos}" if slos else ""),
        own,
    )
    ax.grid(True, alpha=0.3)
    handles, labels = ax.get_legend_handles_labels()
    unique: dict[str, Any] = {}
    for handle, label in zip(handles, labels, strict=True):
        unique.setdefault(label, handle)
    # beside the panel, not on it: the SLO lines and the curves cross where a legend would sit
    ax.legend(
        unique.values(),
        unique.keys(),
        fontsize="small",
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
    )
    return ax


def _floats(values: Any) -> np.ndarray:
    return np.asarray([math.nan if v is None else float(v) for v in values], dtype=np.float64)
