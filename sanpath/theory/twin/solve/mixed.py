"""Open loops (``rate``) beside closed ones (``outstanding``): a mixed network.

The classic solution of a mixed product-form network (Lazowska, Zahorjan, Graham and Sevcik,
*Quantitative System Performance*, 1984, section 7.4) in two steps:

1. The open loops' utilisation ``U_open`` at each station does not depend on the closed ones
   (their throughput is what they offer, when every station can carry it). The closed loops
   are solved alone on stations whose demands are inflated by ``1 / (1 - U_open)``: the
   closed commands find each server busy that share of the time.
2. The open loops see the closed loops' utilisation ``U_closed`` as background: each station
   serves them at ``1 - U_closed`` of its rate (:func:`~sanpath.theory.twin.solve.open.
   open_prediction` with ``background``), so their response at a single server is
   ``D / (1 - U_open - U_closed)``, which is the product-form answer where the closed
   population is large and an upper bound where it is small.

Where an open loop alone overloads a station the answer is the open solution's: unstable, the
open I/Os capped at that station's capacity.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from sanpath.theory.kernels import FloatArray
from sanpath.theory.twin.model import Knobs, Network
from sanpath.theory.twin.prediction import TwinPrediction, note_once
from sanpath.theory.twin.solve.closed import ClosedPoint, closed_points, closed_result
from sanpath.theory.twin.solve.open import open_load, open_prediction

__all__ = ["MIXED_NOTE", "mixed_predictions"]

MIXED_NOTE = (
    "open loops beside closed ones (a mixed network): the open loops' utilisation slows the "
    "closed loops' stations by 1 / (1 - U_open), and the closed loops' utilisation slows the "
    "open loops' (Lazowska et al. 1984, 7.4)"
)


def mixed_predictions(
    net: Network, knob_sets: Sequence[Knobs], base_notes: Sequence[str]
) -> list[TwinPrediction]:
    """The prediction at each set of knobs of a network with open and closed classes."""
    return [_mixed(net, knobs, base_notes) for knobs in knob_sets]


def _closed_queue(point: ClosedPoint, u_open: FloatArray) -> FloatArray:
    """The closed loops' mean number of customers at each member: the solution's where it
    knows it (load-dependent drives), else at a single server the Bard-Schweitzer residence
    at the solved throughput (:func:`~sanpath.theory.kernels.schweitzer`),
    ``R = D' / (1 - X (n - 1) / n D')`` with the demand ``D'`` inflated by the open loops,
    and ``Q = X R`` (exact for one customer)."""
    arr, sol = point.arr, point.sol
    n = max(sum(point.pops), 1.0) * arr.parallel  # customers
    x = sol.x_cmd * arr.parallel  # customers per second
    seen = x * (n - 1.0) / n
    demand = (arr.fixed + arr.pos) / np.maximum(1.0 - u_open, 1e-9)
    free = np.maximum(1.0 - seen * demand, 1e-9)
    estimate = np.minimum(x * demand / free, n)
    return np.asarray(np.where(sol.queue > 0.0, sol.queue, estimate), dtype=np.float64)


def _mixed(net: Network, knobs: Knobs, base_notes: Sequence[str]) -> TwinPrediction:
    load = open_load(net, knobs)
    u_open = load.utilization()
    if load.lam_cmd <= 0.0:
        return closed_result(closed_points(net, [knobs], base_notes)[0], net)
    if float(u_open.max(initial=0.0)) >= 1.0:
        notes = list(base_notes)
        note_once(notes, MIXED_NOTE)
        return open_prediction(net, knobs, notes)  # unstable: the open loops alone overload
    point = closed_points(net, [knobs], base_notes, u_open)[0]
    closed = closed_result(point, net)
    # The closed commands' own share of each server (the solution counts the open loops in)
    u_closed = np.clip(point.sol.util - u_open, 0.0, None)
    opened = open_prediction(net, knobs, base_notes, u_closed, _closed_queue(point, u_open))
    iops = closed.iops + opened.iops
    if not math.isfinite(opened.latency_ms_mean) or iops <= 0.0:
        latency = math.inf
    else:
        latency = (
            closed.iops * closed.latency_ms_mean + opened.iops * opened.latency_ms_mean
        ) / iops
    breakdown = {}
    if math.isfinite(latency) and closed.breakdown_ms and opened.breakdown_ms:
        breakdown = {
            layer: (
                closed.iops * closed.breakdown_ms.get(layer, 0.0)
                + opened.iops * opened.breakdown_ms.get(layer, 0.0)
            )
            / iops
            for layer in closed.breakdown_ms
        }
    notes = list(closed.notes)
    for text in opened.notes:
        note_once(notes, text)
    note_once(notes, MIXED_NOTE)
    return TwinPrediction(
        iops=iops,
        mb_per_s=closed.mb_per_s + opened.mb_per_s,
        latency_ms_mean=latency,
        bottleneck=closed.bottleneck,  # the closed solution's utilisation counts both
        utilization=closed.utilization,
        population=closed.population,
        notes=tuple(notes),
        breakdown_ms=breakdown,
    )
