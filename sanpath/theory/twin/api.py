"""The twin's entry points: :func:`predict` and :func:`predict_many`.

They map the scenario (cached per scenario object), choose the closed or open solution, and
handle the write-back destage as the ``destage`` mode asks (none, steady, or as the scenario's
run would see it).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from sanpath.spec import Scenario, load_scenario
from sanpath.theory.twin.model import Knobs, Network, apply_knobs, build_network
from sanpath.theory.twin.prediction import TwinPrediction, with_note
from sanpath.theory.twin.solve import (
    add_read_ahead,
    closed_predictions,
    mixed_predictions,
    open_prediction,
)

__all__ = ["Destage", "predict", "predict_many"]

Destage = Literal["auto", "steady", "none"]


def _scenario_notes(s: Scenario) -> list[str]:
    notes = []
    if s.schedule:
        notes.append("schedule ignored: the prediction is for the settings at time zero")
    copies = [w.name for w in s.workloads if w.copy_to is not None]
    if copies:
        notes.append(
            f"copy jobs ({', '.join(copies)}): only their reads are modelled, not the writes "
            "that empty the buffers, nor the buffer and per-file limits"
        )
    return notes


def _predict_knobs(s: Scenario, net: Network, knob_sets: Sequence[Knobs]) -> list[TwinPrediction]:
    base_notes = _scenario_notes(s) + net.notes
    if not any(c.closed for c in net.classes):
        return [open_prediction(net, k, base_notes) for k in knob_sets]
    if any(not c.closed for c in net.classes):
        return mixed_predictions(net, knob_sets, base_notes)
    return closed_predictions(net, knob_sets, base_notes)


_net_cache: dict[tuple[int, bool], tuple[Scenario, Network]] = {}


def _network(s: Scenario, destage: bool) -> Network:
    key = (id(s), destage)
    hit = _net_cache.get(key)
    if hit is not None and hit[0] is s:
        return hit[1]
    net = build_network(s, destage)
    add_read_ahead(net)
    if len(_net_cache) > 64:
        _net_cache.clear()
    _net_cache[key] = (s, net)
    return net


def _unmodelled(s: Scenario, preds: list[TwinPrediction]) -> list[TwinPrediction]:
    """Name the array features the twin leaves out when a scenario uses them."""
    array = s.array
    if array.cross_controller is not None and array.cross_controller.rate is not None:
        preds = [
            with_note(
                p,
                "cross-controller forwarding: its time is a delay; the link between the "
                "controllers (cross_controller.rate) is not modelled",
            )
            for p in preds
        ]
    return preds


def _with_destage(
    s: Scenario, knob_sets: Sequence[Knobs], destage: Destage
) -> list[TwinPrediction]:
    """Predictions with the write-back destage as the mode asks."""
    writes_absorbed = any(c.absorbed_bytes > 0 for c in _network(s, False).classes)
    if not writes_absorbed or destage == "none":
        preds = _predict_knobs(s, _network(s, False), knob_sets)
        if writes_absorbed:
            preds = [with_note(p, "write-back destage ignored (destage='none')") for p in preds]
        return preds
    if destage == "steady":
        return _predict_knobs(s, _network(s, True), knob_sets)
    # auto: does the dirty data reach the low watermark during the scenario's run?
    cache = s.array.cache
    without = _predict_knobs(s, _network(s, False), knob_sets)
    out = []
    net = _network(s, False)
    for knobs, p0 in zip(knob_sets, without, strict=True):
        absorbed_rate = _absorbed_byte_rate(net, p0)
        low = cache.low_watermark * (cache.write_back or 0)
        t_fill = low / absorbed_rate if absorbed_rate > 0 else math.inf
        run = s.run
        if run.warmup == "auto" or run.precondition:
            # the simulator starts with the cache full (precondition) or waits for it to
            # settle (auto warm-up): it measures the steady state with destage load
            n_before, measured = 0.0, 1.0
        elif run.duration is not None:
            t_warm = run.warmup_ios / p0.iops if p0.iops > 0 else 0.0
            n_before = max(0.0, p0.iops * (t_fill - t_warm)) if math.isfinite(t_fill) else math.inf
            measured = run.duration * p0.iops
        else:
            n_before = p0.iops * t_fill - run.warmup_ios if math.isfinite(t_fill) else math.inf
            measured = float(run.ios if run.ios is not None else run.max_ios)
        if n_before >= measured:
            out.append(
                with_note(
                    p0,
                    f"write-back cache: dirty data stays below the low watermark for this run "
                    f"(it would take {t_fill:.3g} s to fill, the run is shorter), so no destage "
                    "load; a longer run would add it (destage='steady')",
                )
            )
            continue
        p1 = _predict_knobs(s, _network(s, True), [knobs])[0]
        if n_before <= 0:
            out.append(p1)
        else:
            n0, n1 = n_before, measured - n_before
            t0, t1 = n0 / p0.iops, n1 / p1.iops
            iops = measured / (t0 + t1)
            latency = (n0 * p0.latency_ms_mean + n1 * p1.latency_ms_mean) / measured
            mb = p0.mb_per_s / p0.iops * iops if p0.iops > 0 else 0.0
            util = {
                k: (t0 * p0.utilization.get(k, 0.0) + t1 * p1.utilization.get(k, 0.0)) / (t0 + t1)
                for k in set(p0.utilization) | set(p1.utilization)
            }
            notes = (
                *p1.notes,
                f"write-back cache reaches its low watermark after {t_fill:.3g} s, during the "
                f"run: the figures mix {n0:.0f} I/Os without and {n1:.0f} with destage load",
            )
            out.append(
                TwinPrediction(
                    iops=iops,
                    mb_per_s=mb,
                    latency_ms_mean=latency,
                    bottleneck=p1.bottleneck,
                    utilization=util,
                    population=p1.population,
                    notes=notes,
                    breakdown_ms={
                        k: (n0 * v + n1 * p1.breakdown_ms.get(k, 0.0)) / measured
                        for k, v in p0.breakdown_ms.items()
                    },
                )
            )
    return out


def _absorbed_byte_rate(net: Network, p: TwinPrediction) -> float:
    """Bytes per second written into the write-back cache."""
    cls = net.classes
    weights = [(c.n_io if c.closed else c.rate) * c.cmds_per_io for c in cls]  # rough command mix
    total = sum(weights)
    if total <= 0 or p.iops <= 0:
        return 0.0
    per_io = sum(
        w / total * c.absorbed_bytes * c.cmds_per_io for w, c in zip(weights, cls, strict=True)
    )
    return p.iops * per_io / max(sum(w / total for w, c in zip(weights, cls, strict=True)), 1e-300)


def _load(scenario: Scenario | str | Path | Mapping[str, Any]) -> Scenario:
    return scenario if isinstance(scenario, Scenario) else load_scenario(scenario)


def predict(
    scenario: Scenario | str | Path | Mapping[str, Any], *, destage: Destage = "auto"
) -> TwinPrediction:
    """The twin's mean-value prediction for ``scenario`` (a Scenario, a YAML path or a dict).

    Parameters
    ----------
    destage
        How the write-back destage loads the drives: ``steady`` (background load, the long
        run), ``none`` (never), ``auto`` (as the scenario's run sees it: none when the dirty
        data cannot reach the cache's low watermark before the run ends, steady when it does
        so during the warm-up, a mix in between).
    """
    s = _load(scenario)
    return _unmodelled(s, _with_destage(s, [Knobs.of(s)], destage))[0]


def predict_many(
    scenario: Scenario | str | Path | Mapping[str, Any],
    points: Sequence[Mapping[str, Any]],
    *,
    destage: Destage = "auto",
) -> list[TwinPrediction]:
    """Predictions at every point of a sweep (``points`` are dotted overrides).

    Points that only change queue depths and loads (``workloads.N.outstanding``,
    ``workloads.N.rate``, ``hosts.N.lun_queue_depth``, ``hosts.N.hbas.M.queue_depth``,
    ``array.port_queue_depth``, ``array.lun_queue_depth``, ``array.luns.N.queue_depth``) reuse
    the mapping of the scenario and are solved together; any other key is applied with
    :meth:`Scenario.with_overrides` (validated) and predicted on its own.
    """
    s = _load(scenario)
    base = Knobs.of(s)
    fast: list[tuple[int, Knobs]] = []
    out: list[TwinPrediction | None] = [None] * len(points)
    for i, point in enumerate(points):
        knobs = apply_knobs(s, base, point)
        if knobs is None:
            out[i] = predict(s.with_overrides(point), destage=destage)
        else:
            fast.append((i, knobs))
    if fast:
        preds = _unmodelled(s, _with_destage(s, [k for _, k in fast], destage))
        for (i, _), p in zip(fast, preds, strict=True):
            out[i] = p
    result = [p for p in out if p is not None]
    assert len(result) == len(points)
    return result
