"""Measurement: turning a finished simulation's counters into a :class:`RunResult`.

The engine keeps the raw sums (completed I/Os, bytes, per-layer time, station areas, batch
means); this module divides them by the measurement window, asks the run control for the
intervals and the steady-state diagnosis, and adds the warnings only the end state shows.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from sanpath.results import LAYERS, RunResult
from sanpath.results.run import latency_dict
from sanpath.sim.control import CacheLevel, diagnose, metric_interval

if TYPE_CHECKING:
    from sanpath.sim.engine import Simulation


def _warnings(sim: Simulation, now: float) -> tuple[str, ...]:
    """Signs that the measured figures understate the latency tail."""
    out = []
    hist = sim.latency
    if hist.count and sim.in_flight:
        tail = hist.quantile(0.999)
        ages = [now - t for t in sim.in_flight.values()]
        stuck = sum(1 for age in ages if age > tail)
        # In steady state hardly any I/O in flight is older than the p99.9 of those that
        # completed; many such I/Os mean the run ended before they could be counted.
        if stuck >= 3 and stuck > 0.01 * len(ages):
            out.append(
                f"{stuck} of {len(ages)} I/Os still in flight at the end have waited longer "
                f"than the measured p99.9 ({tail * 1e3:.1f} ms; the oldest {max(ages) * 1e3:.1f} "
                "ms): the tail and the mean are understated; run longer"
            )
    return tuple(out)


def _columns(sim: Simulation, now: float) -> dict[str, list[float]] | None:
    if sim.timeseries is None:
        return None
    out = {k: [float(x) for x in v] for k, v in sim.timeseries.to_columns(t_end=now).items()}
    if sim.exchanges is not None:
        ex = sim.exchanges.to_columns(t_end=now)
        out["exchange_ms_mean"] = [float(x) for x in ex["latency_ms_mean"]]
        out["exchange_ms_p50"] = [float(x) for x in ex["latency_ms_p50"]]
        out["exchange_ms_p99"] = [float(x) for x in ex["latency_ms_p99"]]
        out["exchange_ms_max"] = [float(x) for x in ex["latency_ms_max"]]
    return out


def build_result(sim: Simulation, wall_seconds: float) -> RunResult:
    """Collect a finished :class:`~sanpath.sim.engine.Simulation` into a RunResult."""
    now = sim.env.now
    span = now - sim.window_start
    n = sim.measured
    iops = n / span if span > 0 else 0.0
    total_bytes = sim.bytes_read + sim.bytes_written
    control = sim.control
    iops_ci = metric_interval(sim.batches, "iops", sim.latency, n, span)[2]
    lat_ci = metric_interval(sim.batches, "latency_ms_mean", sim.latency, n, span)[2]
    cache = sim.cache
    warnings, steady = diagnose(
        control,
        now,
        sim.window_start,
        n,
        CacheLevel(
            cache.capacity, cache.low, cache.high, cache.dirty, cache.dirty_peak, cache.absorbed
        ),
    )
    counters = dict(sim.counters)
    counters["forced_flushes"] = sim.cache.forced_flushes
    breakdown = {
        layer: (value / n * 1e3 if n else 0.0)
        for layer, value in zip(LAYERS, sim.breakdown, strict=True)
    }
    return RunResult(
        name=sim.scenario.name,
        seed=sim.seed,
        replicate=sim.replicate,
        ios=n,
        sim_seconds=span,
        iops=iops,
        mb_per_s=total_bytes / span / 1e6 if span > 0 else 0.0,
        read_iops=sim.reads / span if span > 0 else 0.0,
        write_iops=(n - sim.reads) / span if span > 0 else 0.0,
        latency_ms=latency_dict(sim.latency),
        read_latency_ms=sim.read_latency / sim.reads * 1e3 if sim.reads else math.nan,
        write_latency_ms=(sim.write_latency / (n - sim.reads) * 1e3 if n > sim.reads else math.nan),
        command_latency_ms=latency_dict(sim.command_latency),
        ci95={
            "iops": (float(iops_ci[0]), float(iops_ci[1])),
            "latency_ms_mean": (float(lat_ci[0]) * 1e3, float(lat_ci[1]) * 1e3),
        },
        counters=counters,
        breakdown_ms=breakdown,
        stations=tuple(st.summary(now) for st in sim.topology.stations.values()),
        wall_seconds=wall_seconds,
        totals=dict(sim.totals),
        lun_mb_per_s={
            lun.name: (b / span / 1e6 if span > 0 else 0.0)
            for lun, b in zip(sim.topology.luns, sim.lun_bytes, strict=True)
        },
        warnings=(*warnings, *_warnings(sim, now)),
        steady=steady,
        run_info=control.info.to_dict(),
        timeseries=_columns(sim, now),
        settings=tuple({"t_s": t, "key": k, "value": v} for t, k, v in sim.schedule.settings),
        histogram=sim.latency,
    )
