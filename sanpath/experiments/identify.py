"""What measured points can identify: a scenario's ceiling, and which knobs are capacities.

Latency measured at one load cannot tell a slower station from a longer fixed delay: both add
the same time to an I/O there. Only a point near saturation (or points at several loads) shows
how much the path can carry. :func:`ceiling` is that capacity by the analytic twin, and
:func:`capacity_cautions` says before a fit which of its knobs are capacities the measured
points cannot identify; :func:`traded_capacity` says after it when the fit cut the ceiling to
explain latency.
"""

from __future__ import annotations

import copy
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from sanpath.spec import Scenario, load_scenario, set_dotted

__all__ = [
    "CAPACITY",
    "CEILING_DROP",
    "NEAR_SATURATION",
    "SATURATED",
    "STEP",
    "Ceiling",
    "capacity_cautions",
    "capacity_unknown",
    "ceiling",
    "traded_capacity",
]

STEP = 0.05
"""Relative change of a knob with which its effect on the ceiling is measured."""

CAPACITY = 0.01
"""Relative change of the twin's ceiling, for a change of a parameter by :data:`STEP`, from
which the parameter counts as a capacity (it sets how much the path can carry), not only a
delay."""

NEAR_SATURATION = 0.6
"""Utilisation of the busiest station from which a measured point shows a capacity (below
it, latency alone cannot tell a slower station from a longer fixed delay)."""

SATURATED = 0.9
"""Utilisation of the busiest station from which one measured point alone shows a capacity."""

CEILING_DROP = 0.25
"""A fit that cuts the ceiling by more than this share, from points that cannot identify a
capacity, is reported as trading delay for capacity."""


@dataclass(frozen=True)
class Ceiling:
    """The most I/Os per second a scenario's path can carry at its mix, by the twin: its
    I/Os per second over the utilisation of its busiest station group (the asymptotic
    bound), and that group."""

    iops: float
    station: str

    def text(self) -> str:
        return f"{self.iops:,.0f} IOPS ({self.station})"

    def to_dict(self) -> dict[str, Any]:
        return {"iops": self.iops if math.isfinite(self.iops) else None, "station": self.station}


def ceiling(scenario: Scenario | Mapping[str, Any]) -> Ceiling:
    """The twin's :class:`Ceiling` of ``scenario`` (infinite where no station is busy)."""
    from sanpath.theory.twin import predict

    prediction = predict(load_scenario(scenario), destage="none")
    busy = {k: u for k, u in prediction.utilization.items() if u > 0.0}
    if not busy or prediction.iops <= 0.0:
        return Ceiling(math.inf, "")
    station = max(busy, key=lambda k: busy[k])
    return Ceiling(prediction.iops / busy[station], station)


def _utilization(data: Mapping[str, Any]) -> float:
    """The twin's utilisation of the busiest station group at ``data``."""
    from sanpath.theory.twin import predict

    return max(predict(load_scenario(data), destage="none").utilization.values(), default=0.0)


def _capacities(data: Mapping[str, Any], keys: Sequence[str], start: np.ndarray) -> list[str]:
    """The keys among ``keys`` that move the twin's ceiling (capacities, not only delays)."""
    base = ceiling(data).iops
    found = []
    for key, value in zip(keys, start, strict=True):
        trial = copy.deepcopy(dict(data))
        set_dotted(trial, key, float(value) * (1.0 + STEP))
        moved = ceiling(trial).iops
        if math.isfinite(base) and abs(moved / base - 1.0) > CAPACITY:
            found.append(key)
    return found


def capacity_unknown(data: Mapping[str, Any], settings: Sequence[Mapping[str, Any]]) -> str | None:
    """Why the measured points (their ``settings`` applied to ``data``) cannot identify a
    capacity, or None when they can. A capacity needs a saturated point (the twin's busiest
    station at least :data:`SATURATED` busy) or points at two or more loads, one of them near
    saturation (:data:`NEAR_SATURATION`); else latency cannot tell a slower station from a
    longer fixed delay."""
    loads = []
    for point in settings:
        case = copy.deepcopy(dict(data))
        for key, value in point.items():
            set_dotted(case, key, value)
        loads.append(_utilization(case))
    distinct = {json.dumps(point, sort_keys=True, default=str) for point in settings}
    busiest = max(loads, default=0.0)
    if busiest >= SATURATED or (len(distinct) >= 2 and busiest >= NEAR_SATURATION):
        return None
    where = "one operating point" if len(distinct) < 2 else "points at several loads"
    return (
        f"{where}, the busiest station at most {busiest:.0%} busy: they cannot tell a slower "
        f"station from a longer fixed delay (a capacity needs a point {SATURATED:.0%} busy, or "
        f"points at two or more loads, one of them at least {NEAR_SATURATION:.0%} busy)"
    )


def capacity_cautions(
    data: Mapping[str, Any], keys: Sequence[str], start: np.ndarray, why: str | None
) -> list[str]:
    """Before a fit: the keys among ``keys`` (dotted, at values ``start``) that set the
    ceiling, when the measured points cannot identify a capacity (``why``, from
    :func:`capacity_unknown`)."""
    if why is None:
        return []
    capacities = _capacities(data, keys, start)
    if not capacities:
        return []
    verb = "sets" if len(capacities) == 1 else "set"
    return [
        f"{', '.join(capacities)} {verb} how much the path can carry (a capacity), but the "
        f"measurements are {why}"
    ]


def traded_capacity(before: Ceiling, after: Ceiling, why: str | None) -> str | None:
    """After a fit: words for one that cut the ceiling by more than :data:`CEILING_DROP`
    from points that cannot identify a capacity (``why``); None where it did not."""
    if why is None:
        return None
    drop = 1.0 - after.iops / before.iops if before.iops > 0 else math.nan
    if not (math.isfinite(drop) and drop > CEILING_DROP):
        return None
    return (
        f"the fit traded delay for capacity: it cut the ceiling from {before.text()} to "
        f"{after.text()} to explain latency that a fixed delay may explain as well; add a "
        "measured point at a higher load, or fit a delay (a host's io_time, "
        f"fabric.hop_latency) beside it. The measurements are {why}"
    )
