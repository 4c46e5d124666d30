"""Closed loops (``outstanding``): populations from the knobs, the controller share of a
QUEUE FULL storm, the class mix and the prediction.

The network at each population is solved in :mod:`sanpath.theory.twin.solve.mva`; several kinds
of commands are aggregated into one class whose mix is a fixed point.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sanpath.layout import station_name
from sanpath.theory.kernels import FloatArray
from sanpath.theory.qfull import UTILIZATION_CAP, refusal_load
from sanpath.theory.twin.model import F1, P1, Knobs, Network, populations
from sanpath.theory.twin.prediction import TwinPrediction, note_once
from sanpath.theory.twin.solve.aggregate import Arrays, arrays
from sanpath.theory.twin.solve.layers import closed_layers
from sanpath.theory.twin.solve.mva import ClosedSolution, solve_closed
from sanpath.theory.twin.solve.notes import exponential_note, group_utilization, model_notes

_REFUSAL_SOLVES = 6
"""Closed solutions at most in the search for the controller share of QUEUE FULL refusals."""
_REFUSAL_TOLERANCE = 1e-5
"""The refusals' share of the controller is found within this much (0 to 1): finely, since
near saturation the admitted commands' throughput turns on its last digits."""
_REFUSAL_NEGLIGIBLE = 0.01
"""The refusals' extra wait at the controller, as a share of the admitted commands' cycle,
below which the closed solution is kept as it is (the refusals only add their utilisation)."""

# --------------------------------------------------------------------------------------------
# Predictions: populations from the knobs, the class mix, the result
# --------------------------------------------------------------------------------------------


@dataclass
class ClosedPoint:
    """The closed loops' solution at one set of knobs: the aggregated network ``arr`` of the
    class mix ``mix`` (command shares), the populations ``pops`` per class and the notes."""

    knobs: Knobs
    arr: Arrays
    mix: list[float]
    pops: list[float]
    sol: ClosedSolution
    notes: list[str]


def closed_predictions(
    net: Network,
    knob_sets: Sequence[Knobs],
    base_notes: Sequence[str],
    open_util: FloatArray | None = None,
) -> list[TwinPrediction]:
    """The closed loops' prediction at each set of knobs (``open_util``: as in
    :func:`closed_points`)."""
    return [closed_result(p, net) for p in closed_points(net, knob_sets, base_notes, open_util)]


def closed_points(
    net: Network,
    knob_sets: Sequence[Knobs],
    base_notes: Sequence[str],
    open_util: FloatArray | None = None,
) -> list[ClosedPoint]:
    """Solve the closed loops at each set of knobs; ``open_util`` (per member of
    ``net.members``, 0 to 1) is the utilisation open loops beside them take, which
    inflates the closed demands by ``1 / (1 - U)`` (a mixed network)."""
    cls = net.classes
    pops_list = []
    notes_list = []
    retrying_list: list[list[tuple[float, float]]] = []
    for knobs in knob_sets:
        notes = list(base_notes)
        retrying: list[tuple[float, float]] = []
        pops_list.append(populations(net, knobs, notes, retrying))
        notes_list.append(notes)
        retrying_list.append(retrying)
    closed = [i for i, c in enumerate(cls) if c.closed]

    def aggregate(mix: Sequence[float]) -> Arrays:
        arr = arrays(net, mix, net.prefetch)
        return arr if open_util is None else dataclasses.replace(arr, open_util=open_util)

    out: list[ClosedPoint] = []
    if len(closed) == 1 or _same_work(net, closed):
        # One kind of command: every point shares the network, solved once for all.
        mix = [1.0 / len(closed) if i in closed else 0.0 for i in range(len(cls))]
        arr = aggregate(mix)
        sols = solve_closed(arr, [max(sum(p), 1.0) for p in pops_list])
        for knobs, pops, notes, sol, retrying in zip(
            knob_sets, pops_list, notes_list, sols, retrying_list, strict=True
        ):
            sol = _with_refusals(net, arr, max(sum(pops), 1.0), retrying, sol, notes)
            out.append(ClosedPoint(knobs, arr, mix, pops, sol, notes))
        return out
    for knobs, pops, notes, retrying in zip(
        knob_sets, pops_list, notes_list, retrying_list, strict=True
    ):
        total = max(sum(pops), 1.0)
        mix = [pops[i] / total if cls[i].closed else 0.0 for i in range(len(cls))]
        arr = aggregate(mix)
        storm: list[str] = []  # the refusals' note of the final class mix
        sol = _with_refusals(net, arr, total, retrying, solve_closed(arr, [total])[0], storm)
        for _ in range(8):  # class mix: X_c proportional to N_c / R_c
            new_mix = _class_mix(net, arr, sol, pops)
            if max(abs(a - b) for a, b in zip(new_mix, mix, strict=True)) < 1e-6:
                break
            mix = [0.5 * (a + b) for a, b in zip(new_mix, mix, strict=True)]
            arr = aggregate(mix)
            storm = []
            sol = _with_refusals(net, arr, total, retrying, solve_closed(arr, [total])[0], storm)
        for text in storm:
            note_once(notes, text)
        note_once(
            notes,
            "several kinds of commands are aggregated into one class (mix weighted by "
            "N_c / R_c, fixed point): per-class queueing is approximate",
        )
        out.append(ClosedPoint(knobs, arr, mix, pops, sol, notes))
    return out


def _with_refusals(
    net: Network,
    arr: Arrays,
    total: float,
    retrying: Sequence[tuple[float, float]],
    sol: ClosedSolution,
    notes: list[str],
) -> ClosedSolution:
    """The solution with the controller share of a QUEUE FULL storm (``sol`` without one).

    The commands beyond the array's limits that hosts without a throttle keep retrying
    (``retrying``: commands and cycle per group) are an open class at the controller whose
    rate follows the controller's wait (:func:`sanpath.theory.qfull.refusal_load`); the
    admitted commands' controller demand is inflated by ``1 / (1 - U_refusals)``, and the
    two are solved to a fixed point.
    """
    s = net.scenario
    qfull_time = s.array.qfull_time
    key = (station_name("controller"), 0)
    if not retrying or qfull_time <= 0 or key not in arr.keys:
        return sol
    k = arr.keys.index(key)
    cores = s.array.controller.cores
    # g(U) = U - U_refusals(busy(U)): a secant search from U = 0, a few solves at most (each
    # costs as much as the prediction without refusals).
    busy = float(sol.util[k])
    load = refusal_load(retrying, qfull_time, cores, busy)
    u_prev, u, g_prev = 0.0, load.utilization, -load.utilization
    if u <= 0.0:
        return sol
    # Where the admitted commands' extra wait at the controller is a small part of their
    # cycle, the closed solution stands and the refusals only add their utilisation.
    demand = float(arr.fixed[k] + arr.pos[k]) * arr.parallel
    extra = demand / max(1.0 - busy - u, 1.0 - UTILIZATION_CAP) - demand / max(1.0 - busy, 1e-3)
    solves = _REFUSAL_SOLVES
    if sol.x_cmd > 0 and extra < _REFUSAL_NEGLIGIBLE * total / sol.x_cmd:
        util = sol.util.copy()
        util[k] += u
        sol = dataclasses.replace(sol, util=util)
        solves = 0
    beside = np.zeros(len(arr.keys)) if arr.open_util is None else arr.open_util
    for _ in range(solves):
        open_u = beside.copy()
        open_u[k] += u
        sol = solve_closed(dataclasses.replace(arr, open_util=open_u), [total])[0]
        load = refusal_load(retrying, qfull_time, cores, float(sol.util[k]) - u)
        g = u - load.utilization
        if abs(g) < _REFUSAL_TOLERANCE or g == g_prev:
            break
        u, u_prev, g_prev = u - g * (u - u_prev) / (g - g_prev), u, g
        u = min(max(u, 0.0), UTILIZATION_CAP)
    note_once(
        notes,
        f"QUEUE FULL storm: {load.retrying:.0f} commands beyond the array's limits, from hosts "
        f"without a throttle, are refused and retried about {load.rate:,.0f} times per second "
        f"at {qfull_time * 1e6:.3g} us each, {load.utilization:.0%} of the controller; the "
        "twin treats the refusals as an open class at the controller whose rate follows its "
        "wait (a fixed point), so the admitted commands wait longer there",
    )
    return sol


def _class_mix(
    net: Network, arr: Arrays, sol: ClosedSolution, pops: Sequence[float]
) -> list[float]:
    """Command shares ``N_c / R_c`` with each class's cycle from the aggregated solution."""
    index = {key: k for k, key in enumerate(arr.keys)}
    x_branch = sol.x_cmd * arr.parallel
    # residence per unit of demand at each member (stretch factor)
    demand = arr.fixed + arr.pos
    stretch = np.ones(len(arr.keys))
    for k in range(len(arr.keys)):
        if arr.servers[k] > 0 and demand[k] > 0 and x_branch > 0:
            stretch[k] = max(sol.queue[k], x_branch * demand[k]) / (x_branch * demand[k])
    raw = []
    for i, c in enumerate(net.classes):
        if not c.closed or pops[i] <= 0:
            raw.append(0.0)
            continue
        r = c.delay - c.overlap / arr.parallel
        for key, acc in c.work.items():
            k = index[key]
            r += (acc[F1] + acc[P1]) / arr.parallel * stretch[k]
        for pi, nbytes in c.prefetch.items():
            k = index[(station_name("drives", pool=net.pools[pi].name), 1)]
            r += nbytes / net.prefetch[pi] * stretch[k]
        raw.append(pops[i] / max(r, 1e-300))
    total = sum(raw)
    return [x / total for x in raw]


def _same_work(net: Network, closed: list[int]) -> bool:
    first = net.classes[closed[0]]
    for i in closed[1:]:
        c = net.classes[i]
        if (
            c.work != first.work
            or c.background != first.background
            or c.prefetch != first.prefetch
            or abs(c.delay - first.delay) > 1e-15
            or abs(c.overlap - first.overlap) > 1e-15
            or c.cmds_per_io != first.cmds_per_io
            or c.bytes_per_io != first.bytes_per_io
        ):
            return False
    return True


def closed_result(point: ClosedPoint, net: Network) -> TwinPrediction:
    """The prediction of the closed loops' solution ``point``."""
    arr, mix, knobs, pops, sol, notes = (
        point.arr,
        point.mix,
        point.knobs,
        point.pops,
        point.sol,
        point.notes,
    )
    cls = net.classes
    s = net.scenario
    x_cmd = sol.x_cmd
    x_io = sum(share * x_cmd / c.cmds_per_io for c, share in zip(cls, mix, strict=True))
    byte_rate = sum(
        share * x_cmd / c.cmds_per_io * c.bytes_per_io for c, share in zip(cls, mix, strict=True)
    )
    n_io = sum(
        c.n_io / s.workloads[c.workload].outstanding_per_lun * knobs.outstanding[c.workload]
        for c in cls
        if c.closed
    )
    # the cycle N / X includes the think time: an I/O's latency is the rest of it
    thinking = sum(
        share * x_cmd / c.cmds_per_io * c.think for c, share in zip(cls, mix, strict=True)
    )
    latency = (n_io - thinking) / x_io if x_io > 0 else math.inf
    # inside the path: the commands within the queue-depth limits over their throughput
    in_path = sum(pops) / x_cmd - thinking / x_io if x_cmd > 0 else math.inf
    model_notes(net, arr, notes, closed=True)
    if sol.cache_full:
        note_once(
            notes,
            "write-back cache saturated: the drives cannot destage the writes as fast as they "
            "arrive, so writes wait for room (forced flush) and the throughput is capped at "
            "what the drives can destage",
        )
    exponential_note(net, arr, sol.util, notes)
    util, bottleneck = group_utilization(net, arr, sol.util)
    return TwinPrediction(
        iops=x_io,
        mb_per_s=byte_rate / 1e6,
        latency_ms_mean=latency * 1e3,
        bottleneck=bottleneck,
        utilization=util,
        population=round(sum(pops)),
        notes=tuple(notes),
        breakdown_ms=closed_layers(
            net, arr, x_cmd, sol.util, sol.queue, min(in_path, latency), latency
        )
        if math.isfinite(latency)
        else {},
    )
