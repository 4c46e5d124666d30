"""Published figures against the model: each figure as model over published, with its band.

Draws the points :func:`sanpath.experiments.reference.compare` returns, as dictionaries
(``Comparison.to_dict``, the JSON of ``sanpath compare --json``) or as a validation record
(``make validation`` writes one per experiment: the points under ``points``, the experiment's
name and load beside them).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sanpath.plotting.style import log_ms_axis, set_titles, subtitle
from sanpath.plotting.tables import PlotInputError

__all__ = ["comparison", "comparison_points"]

_INSIDE, _OUTSIDE, _NO_BAND = "#2ca02c", "#d62728", "k"


def _number(value: Any) -> float:
    """A JSON number as a float; None (JSON's stand-in for NaN) as NaN."""
    return math.nan if value is None else float(value)


def _pair(value: Any) -> tuple[float, float] | None:
    if value is None:
        return None
    low, high = value
    return (_number(low), _number(high))


def comparison_points(data: Any, source: str = "the comparison") -> list[dict[str, Any]]:
    """The points of a comparison, checked: ``data`` is the list ``sanpath compare --json``
    prints or a validation record (a mapping with ``points``).

    Each point gives ``label`` and ``metric`` (text), ``published`` and ``model`` (numbers in
    the metric's units, or null), ``within`` (true, false or null) and optionally ``band``
    and ``interval`` (``[low, high]`` in the metric's units, or null). Raises
    :class:`~sanpath.plotting.PlotInputError` naming ``source``, the point and the field that
    is wrong.
    """
    points = data.get("points") if isinstance(data, Mapping) else data
    if not isinstance(points, list) or not points:
        raise PlotInputError(
            f"{source}: not a comparison (a list of points from sanpath compare --json, "
            "or a validation record with 'points')"
        )
    out = []
    for i, point in enumerate(points):
        where = f"{source}: points[{i}]"
        if not isinstance(point, Mapping):
            raise PlotInputError(f"{where}: expected an object, got {point!r}")
        for key in ("label", "metric"):
            if not isinstance(point.get(key), str):
                raise PlotInputError(f"{where}.{key}: expected text, got {point.get(key)!r}")
        try:
            published, model = _number(point.get("published")), _number(point.get("model"))
        except (TypeError, ValueError):
            raise PlotInputError(f"{where}: published and model must be numbers or null") from None
        try:
            band, interval = _pair(point.get("band")), _pair(point.get("interval"))
        except (TypeError, ValueError):
            raise PlotInputError(
                f"{where}: band and interval must be [low, high] or null"
            ) from None
        within = point.get("within")
        if within not in (True, False, None):
            raise PlotInputError(f"{where}.within: expected true, false or null, got {within!r}")
        out.append(
            {
                "label": point["label"],
                "metric": point["metric"],
                "published": published,
                "model": model,
                "within": within,
                "band": band,
                "interval": interval,
            }
        )
    return out


def comparison(
    points: Sequence[Mapping[str, Any]],
    ax: Axes | None = None,
    *,
    name: str | None = None,
    load: str | None = None,
) -> Axes:
    """Model over published, one row per figure, with the accepted band; returns the Axes.

    Every figure is shown as a ratio to its published value (log scale), so figures in
    different units share one axis: 1 is a perfect match, the grey bar is what the figure's
    tolerance accepts (cut at the axis edge when open-ended), the marker is green inside it
    and red outside, and a line through it is the model's 95% interval where the run gives
    one. Figures without a published value (bases of ratios) are left out. ``points`` are as
    :func:`~sanpath.plotting.comparison_points` returns them; with ``name`` the
    plot is titled with the experiment and subtitled with ``load`` (its hosts, LUNs and
    workloads).
    """
    shown = [p for p in points if math.isfinite(p["published"]) and p["published"] > 0]
    own = ax is None
    if ax is None:
        figure = Figure(figsize=(9, max(3.0, 0.34 * len(shown) + 1.6)), layout="constrained")
        ax = figure.add_subplot()
    ratios = [p["model"] / p["published"] if math.isfinite(p["model"]) else math.nan for p in shown]
    finite = [x for x in ratios if math.isfinite(x) and x > 0]
    lo = min([0.5, *finite]) / 1.5
    hi = max([2.0, *finite]) * 1.5
    for y, (point, ratio) in enumerate(zip(shown, ratios, strict=True)):
        if point["band"] is not None:
            left = max(point["band"][0] / point["published"], lo)
            right = min(point["band"][1] / point["published"], hi)
            ax.plot([left, right], [y, y], color="#bbbbbb", lw=6, solid_capstyle="butt")
        if not (math.isfinite(ratio) and ratio > 0):
            continue
        within = point["within"]
        color = _INSIDE if within else (_OUTSIDE if within is False else _NO_BAND)
        interval = point.get("interval")
        if interval is not None and all(math.isfinite(v) and v > 0 for v in interval):
            ax.plot([v / point["published"] for v in interval], [y, y], color=color, lw=1.2)
        ax.plot([ratio], [y], "o", color=color, ms=6)
    ax.axvline(1.0, color="k", lw=0.8, ls="--")
    log_ms_axis(ax)  # a log axis with plain tick labels (0.5, 1, 2)
    ax.set_xlim(lo, hi)
    ax.set_yticks(range(len(shown)), [f"{p['label']} ({p['metric']})" for p in shown], fontsize=8)
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xlabel("model / published (grey: accepted band; green inside, red outside)")
    if name is not None:
        set_titles(
            ax,
            f"{name}: the model against the published figures",
            subtitle(name, load),
            own_figure=own,
        )
    return ax
