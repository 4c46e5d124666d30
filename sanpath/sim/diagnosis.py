"""What makes a finished run's figures unsafe, in words: :func:`diagnose`.

From the run control's series (:class:`~sanpath.sim.control.RunControl`: the measured batches
and the state at each batch boundary) and the write-back cache's fill at the end, it finds
what a planner must not buy hardware with: an unstable open loop, a warm-up that gave up, a
cache still filling or draining, a trend across the measured window, a fixed warm-up that
ended inside a transient, a precision short of its target, intervals that may be too narrow.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import NamedTuple

import numpy as np

from sanpath.readable import duration
from sanpath.results import StationStats
from sanpath.sim.control import DRIFT, STATE_DIRTY, STATE_IN_FLIGHT, RunControl
from sanpath.spec import RunSpec, Scenario
from sanpath.stats import (
    RELAXATIONS_PER_BATCH,
    LatencyHistogram,
    interval_doubts,
    mser,
    short_batches,
    trend,
)

__all__ = ["CacheLevel", "diagnose", "open_queues", "tail_warnings"]


class CacheLevel(NamedTuple):
    """The write-back cache's fill at the end of a run (bytes)."""

    capacity: int
    low: float
    high: float
    dirty: int
    dirty_peak: int
    absorbed: int
    """Bytes written into the cache since the start of the run."""


MIB = 1024 * 1024


def diagnose(
    control: RunControl,
    now: float,
    window_start: float,
    measured: int,
    cache: CacheLevel,
    queues: Sequence[tuple[str, float, float]] = (),
) -> tuple[list[str], bool]:
    """What makes the figures of a finished run unsafe: (warnings, steady).

    ``steady`` is False when the run did not reach steady state (warm-up gave up, an
    unstable open loop, a cache still filling, a trend across the measured batches); a
    precision short of its target only warns. ``queues``: (name, utilization per server,
    mean service time per server in seconds) of the stations an open loop's I/Os queue at,
    to judge the batches' length against the slowest queue's relaxation time (empty: not
    judged, as for closed loops, whose queues their own population bounds).
    """
    info = control.info
    spec = control.spec
    out: list[str] = []
    steady = True
    if info.unstable:
        steady = False
        out.append(
            f"UNSTABLE: the open loop offers about {info.arrival_rate:,.0f} I/O per s but the "
            f"path completes about {info.completion_rate:,.0f}, and the I/Os in flight grew "
            "through the warm-up: the queue "
            "grows without bound, so there is no steady latency to report (it grows with the "
            "run length). Lower workloads.N.rate below the path's capacity"
        )
    elif not info.warmup_settled:
        steady = False
        out.append(
            f"no steady state found during the warm-up ({info.warmup_ios:,} I/Os, "
            f"{info.warmup_seconds:.3g} simulated s, the run.max_ios cap): the figures may still "
            "be the start-up transient; raise run.max_ios"
        )
    if info.unstable:
        return out, steady  # a growing queue explains every trend: nothing more to say
    cache_note = _cache_warning(control, now, cache)
    if cache_note:
        steady = False
        out.append(cache_note)
    batches = control.batches
    v = batches.batch_values()
    k = len(v.completions)
    if measured and k < 2:
        out.append("no interval: the measured window holds fewer than 2 batches; run longer")
    states = batches.states()
    if control.scheduled:
        out.append(
            "the settings change during the run (schedule): whole-window figures mix them, so "
            "they are not one steady state; read the time series for each setting"
        )
    elif control.trace:
        pass  # a trace's load moves by itself: its trends are the trace's, not a transient
    elif k >= 8:
        drift = trend(v.latency_mean)
        if drift.significant and abs(drift.change) > DRIFT * float(v.latency_mean.mean()):
            steady = False
            q = max(1, k // 4)
            out.append(
                "latency drifts across the measured window (batch means from "
                f"{1e3 * float(v.latency_mean[:q].mean()):.3g} to "
                f"{1e3 * float(v.latency_mean[-q:].mean()):.3g} ms): not steady; "
                + _longer(spec, measured)
            )
        if states.size and len(states) >= 8:
            flight = states[:, STATE_IN_FLIGHT]
            grow = trend(flight)
            if grow.significant and grow.change > max(8.0, 0.25 * float(flight[0])):
                steady = False
                out.append(
                    f"I/Os in flight grew from {flight[0]:.0f} to {flight[-1]:.0f} during the "
                    "measured window: a queue is still building (not steady, or more load "
                    "than the path carries); " + _longer(spec, measured)
                )
        transient = _fixed_transient(control, cache, measured) if not control.auto else ""
        if transient:
            steady = False
            out.append(transient)
    if info.stopped_by in ("max_ios", "trace") and info.target is not None:
        worst = max(info.precision.values(), default=math.inf)
        if worst > info.target:
            need = measured * (worst / info.target) ** 2 if math.isfinite(worst) else math.inf
            out.append(
                f"precision not reached: the 95% interval is +/-{100 * worst:.1f}% after "
                f"{measured:,} I/Os (asked +/-{100 * info.target:.1f}%); about "
                f"{need:,.0f} I/Os would reach it ("
                + (
                    "raise run.max_ios)"
                    if info.stopped_by == "max_ios"
                    else "the trace ended first: replay it with trace.loop, or a longer span)"
                )
            )
    short = (
        short_batches(queues, now - window_start, k)
        if k >= 2 and not control.scheduled and not control.trace
        else None
    )
    if short is not None:
        out.append(_short_note(short, k, spec, measured))
    elif k >= 8 and not control.scheduled and not control.trace:
        doubts = interval_doubts(v.latency_mean)
        if doubts:
            out.append(
                "the 95% intervals may be too narrow: "
                + "; ".join(doubts)
                + "; "
                + _longer(spec, measured)
            )
    return out, steady


TRANSIENT_SHARE = 0.1
"""A fixed warm-up ended inside a transient when MSER truncates more than this share of the
measured batches of a series (and what it cuts differs materially from the rest)."""


NOISE = 2.0
"""What MSER cuts must differ from the rest by more than this many standard deviations of the
rest's batch means (not standard errors: near saturation the batch means are correlated, and
a wandering steady state would look like a transient)."""

DIRTY_SLIVER = 0.002
"""Share of the write-back cache a dirty level must move by to count as a transient."""


def _fixed_transient(control: RunControl, cache: CacheLevel, measured: int) -> str:
    """Words for a fixed warm-up that ended inside a transient (empty: it did not): MSER
    (:func:`sanpath.stats.steady.mser`) cuts the start of the measured window's latency,
    throughput or dirty-cache series, and the cut part differs from the rest by more than
    :data:`~sanpath.sim.control.DRIFT` (and, for the dirty level, :data:`DIRTY_SLIVER` of
    the cache) and by more than :data:`NOISE` standard deviations of the rest; latency and
    throughput must also trend across the window (:func:`sanpath.stats.trend`), since near
    saturation a steady queue wanders as far."""
    v = control.batches.batch_values()
    k = len(v.completions)
    series = [("latency", v.latency_mean, "ms", 1e3), ("throughput", v.iops, "IOPS", 1.0)]
    states = control.batches.states()
    if control.has_write_back and len(states) == k:
        series.append(("dirty cache", states[:, STATE_DIRTY], "MiB", 1.0 / MIB))
    for name, values, unit, scale in series:
        x = np.asarray(values, dtype=np.float64)
        if x.size < 16 or not np.all(np.isfinite(x)):
            continue
        d = mser(x)
        if d < max(2, TRANSIENT_SHARE * x.size):
            continue
        head, tail = float(x[:d].mean()), float(x[d:].mean())
        floor = DRIFT * abs(tail)
        if name == "dirty cache":  # a level that moves by a sliver of the cache is noise
            floor = max(floor, DIRTY_SLIVER * cache.capacity)
        noise = NOISE * float(x[d:].std())  # batch means are correlated: no 1/sqrt(d)
        if abs(head - tail) <= max(floor, noise):
            continue
        if name != "dirty cache" and not trend(x).significant:
            continue  # latency and throughput wander near saturation: a transient also trends
        need = control.info.warmup_ios + measured * d / x.size
        return (
            f"the fixed warm-up ({control.info.warmup_ios:,} I/Os) ended inside a transient: "
            f"the first {d} of the {x.size} measured batches' {name} ({head * scale:.3g} "
            f"{unit}) differs from the rest ({tail * scale:.3g} {unit}), so the figures mix "
            "the transient in; use run.warmup: auto (it waits for latency, throughput and the "
            f"cache to level off) or a longer run.warmup_ios (about {need:,.0f} or more)"
        )
    return ""


def _short_note(
    short: tuple[str, float, float, float], k: int, spec: RunSpec, measured: int
) -> str:
    name, utilization, tau, batch_s = short
    need = measured * RELAXATIONS_PER_BATCH * tau / batch_s
    need = 1000 * math.ceil(need / 1000) if math.isfinite(need) else need
    return (
        f"the 95% intervals may be too narrow: the run is short for its busiest queue ({name}, "
        f"{100 * utilization:.0f}% busy, relaxes in about {duration(tau)}: S/(1-sqrt(rho))^2), "
        f"each of its {k} batches lasting {duration(batch_s)}, under {RELAXATIONS_PER_BATCH:g} "
        f"relaxation times; run longer (at least {need:,.0f} I/Os"
        + (" in run.ios)" if spec.ios is not None else ", by run.max_ios or run.duration)")
    )


def _longer(spec: RunSpec, measured: int) -> str:
    if spec.duration is not None:
        return f"run longer (run.duration {2 * spec.duration:.3g}s or more)"
    if spec.ios is not None:
        return f"run longer (run.ios {4 * measured:,} or more, or unset for a precision stop)"
    return "run longer (a tighter run.precision.half_width or a larger run.max_ios)"


def _cache_warning(control: RunControl, now: float, cache: CacheLevel) -> str:
    """A write-back cache whose fill the figures do not reach past (empty: none)."""
    if not control.has_write_back or cache.absorbed == 0 or now <= 0:
        return ""
    rate = cache.absorbed / now  # bytes into cache per second (before destage starts: dirty)
    states = control.batches.states()
    rising = False
    if states.size and len(states) >= 8:
        level = trend(states[:, STATE_DIRTY])
        rising = level.significant and level.change > 0.02 * cache.capacity
    if cache.dirty_peak > cache.low and not rising:
        return ""
    t_high = cache.high / rate if rate > 0 else math.inf
    if cache.dirty >= cache.high:
        return (
            "the write-back cache was still filling during the measured window "
            f"({cache.dirty / MIB:,.0f} of {cache.capacity / MIB:,.0f} MiB dirty at the end, "
            "above its high watermark): once it is full, writes wait for destages and the "
            "figures change; measure after a warm-up (run.warmup: auto, the default, with "
            "run.warmup_ios not 0) so the run starts from the full cache"
        )
    if cache.dirty_peak <= cache.low:
        what = (
            f"the write-back cache never started destaging: {cache.dirty / MIB:,.0f} MiB dirty "
            f"of {cache.capacity / MIB:,.0f} MiB (low watermark {cache.low / MIB:,.0f} MiB) "
            f"after {now:.3g} simulated s"
        )
    else:
        what = (
            "the write-back cache was still filling during the measured window "
            f"({cache.dirty / MIB:,.0f} of {cache.capacity / MIB:,.0f} MiB dirty at the end)"
        )
    return (
        f"{what}; writes reach the drives only once it destages, so these figures are the "
        f"cache-filling transient, not steady state. At {rate / 1e6:.3g} MB/s into cache it "
        f"reaches its high watermark after about {t_high:.3g} s: leave run.precondition on "
        "(the default: the run starts with the cache at its high watermark) and run.warmup: "
        f"auto (it waits for the cache to settle), or measure from about {2 * t_high:.3g} s on"
    )


def open_queues(
    scenario: Scenario, stations: tuple[StationStats, ...]
) -> tuple[tuple[str, float, float], ...]:
    """(name, utilization, mean service time per server in seconds) of the queueing stations
    when every workload is an open loop (a closed loop's queues are bounded by its own
    population: none)."""
    if any(w.closed for w in scenario.workloads):
        return ()
    return tuple(
        (st.name, st.utilization, st.mean_service_s / st.servers)
        for st in stations
        if math.isfinite(st.servers) and st.servers > 0
    )


def tail_warnings(
    latency: LatencyHistogram, issued: Iterable[float], now: float
) -> tuple[str, ...]:
    """Signs that the measured figures understate the latency tail: ``latency`` the measured
    I/Os, ``issued`` when each I/O still in flight at ``now`` was issued (seconds)."""
    ages = [now - t for t in issued]
    if not latency.count or not ages:
        return ()
    tail = latency.quantile(0.999)
    stuck = sum(1 for age in ages if age > tail)
    # In steady state hardly any I/O in flight is older than the p99.9 of those that
    # completed; many such I/Os mean the run ended before they could be counted.
    if stuck >= 3 and stuck > 0.01 * len(ages):
        return (
            f"{stuck} of {len(ages)} I/Os still in flight at the end have waited "
            f"longer than the measured p99.9 ({tail * 1e3:.1f} ms; the oldest "
            f"{max(ages) * 1e3:.1f} ms): the tail and the mean are understated; run longer",
        )
    return ()
