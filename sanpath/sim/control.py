"""When a run's warm-up ends and when it stops: the statistics side of the engine.

The engine feeds every completed application I/O here (:meth:`RunControl.warm_up` before
the measured window opens, the measured batch means of ``sanpath.stats.BatchMeans`` after)
together with a snapshot of the system's state at each batch boundary: the dirty bytes in the
write-back cache and the application I/Os in flight. From those series it decides:

* **the end of the warm-up** (``run.warmup: auto``): at least ``warmup_ios`` I/Os, and MSER
  (:func:`sanpath.stats.steady.settled`) finds that latency, throughput, I/Os in flight and the
  cache's dirty level have all levelled off. A cache that is still filling keeps the run
  warming up: its figures would be the filling transient. Gives up after ``max_ios``;
* **an open loop that cannot keep up**: I/Os in flight keep growing while completions fall
  behind arrivals; the run stops early and says so;
* **the end of a precision-stopped run**: at each doubling of the batch size, the
  sectioning interval of every chosen metric is within ``half_width`` of its estimate and
  the batches give no reason to doubt it (:func:`sanpath.stats.steady.interval_doubts`).

:func:`sanpath.sim.diagnosis.diagnose` then says, in words, what still makes the figures
unsafe.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from sanpath.spec import PrecisionSpec, RunSpec
from sanpath.stats import (
    BatchMeans,
    LatencyHistogram,
    interval_doubts,
    relative_half_width,
    settled,
    trend,
)

WARM_BATCH = 8
"""Completions per warm-up batch at first (it doubles as the warm-up goes on)."""
WARM_BATCHES = 64
"""Warm-up batches kept (between half and all of them after each doubling)."""
PRECISION_BATCH = 32
"""Completions per measured batch at first in a precision-stopped run."""
UNSTABLE_GROWTH = 0.5
"""An open loop is unstable when, over the second half of the warm-up seen so far, I/Os in
flight grew by more than this share (and by at least :data:`UNSTABLE_MIN_GROWTH` I/Os) and
completions fell clearly behind arrivals."""
UNSTABLE_MIN_GROWTH = 64
UNSTABLE_MIN_IOS = 20_000
"""Arrivals an open loop is watched for before it may be called unstable."""
UNSTABLE_WINDOW = 10_000
"""Measured I/Os of a run whose open loop was found unstable during its warm-up: enough to
show what the path completes; its latency has no steady value to measure."""

EARLY_IOS = 1_000
"""Completions into the warm-up at which the early hook runs (at least; half the minimum
warm-up if that is more)."""
DRIFT = 0.02
"""A trend across the measured batches matters when it moves the figure by more than this
share of it (a significant but smaller one is noise a long run resolves finely)."""

STATE_DIRTY, STATE_IN_FLIGHT, STATE_ISSUED = 0, 1, 2
"""Positions in the state snapshot taken at each batch boundary."""


@dataclass
class RunInfo:
    """How a run was measured: warm-up, stopping rule and what it achieved."""

    warmup: str
    """``auto`` or ``fixed``."""
    warmup_ios: int = 0
    """Application I/Os completed before the measured window opened."""
    warmup_seconds: float = 0.0
    """Simulated time at which the measured window opened (s)."""
    warmup_settled: bool = True
    """False when an auto warm-up gave up (``max_ios``) without finding steady state."""
    stopped_by: str = ""
    """``ios``, ``duration``, ``precision``, ``max_ios``, ``max_time``, ``unstable`` or ``trace``
    (every trace replay ended)."""
    precision: dict[str, float] = field(default_factory=dict)
    """Relative half-width of the 95% interval reached for each stopping metric."""
    target: float | None = None
    """The relative half-width asked for (precision-stopped runs)."""
    unstable: bool = False
    """An open loop whose I/Os in flight grew without bound."""
    arrival_rate: float = math.nan
    """Application I/Os issued per second over the last half of the warm-up (open loops)."""
    completion_rate: float = math.nan
    """Application I/Os completed per second over the same span."""

    def to_dict(self) -> dict[str, object]:
        """JSON-ready dict."""
        return {
            "warmup": self.warmup,
            "warmup_ios": self.warmup_ios,
            "warmup_seconds": self.warmup_seconds,
            "warmup_settled": self.warmup_settled,
            "stopped_by": self.stopped_by,
            "precision": dict(self.precision),
            "target_half_width": self.target,
            "unstable": self.unstable,
            "arrival_rate": self.arrival_rate,
            "completion_rate": self.completion_rate,
        }


class RunControl:
    """The warm-up and stopping decisions of one run (see the module docstring)."""

    def __init__(
        self,
        spec: RunSpec,
        open_loop: bool,
        has_write_back: bool,
        state: Callable[[], tuple[float, float, float]],
        scheduled: bool = False,
        early: Callable[[float], bool] | None = None,
        trace: str = "",
    ) -> None:
        self.spec = spec
        self.state = state
        """The state snapshot at a batch boundary: (dirty bytes, I/Os in flight, issued)."""
        self.early = early
        """Called once, :data:`EARLY_IOS` completions into the warm-up (the precondition's
        top-up: :meth:`sanpath.sim.precondition.Preconditioner.settle`)."""
        self.min_warmup = spec.warmup_ios
        """Completions before the warm-up may end."""
        self.scheduled = scheduled
        self.trace = trace
        """``ends`` (a trace replay ends the run), ``loops`` (trace replays that loop) or ``""``."""
        self.open_loop = open_loop
        self.has_write_back = has_write_back
        self.stop_on: PrecisionSpec | None = spec.stop_on
        if trace == "ends" and spec.precision is None:
            self.stop_on = None  # the trace's own length, unless a precision is asked for
        self.info = RunInfo(warmup="fixed" if scheduled or trace else spec.warmup, target=None)
        if self.stop_on is not None:
            self.info.target = self.stop_on.half_width
        # A schedule changes settings during the run and a trace is not stationary: there is
        # no single steady state to wait for, so the warm-up is the fixed warmup_ios.
        self.auto = spec.warmup == "auto" and not scheduled and not trace
        # a fixed warm-up shorter than EARLY_IOS gets its hook half way through
        self.early_at = max(EARLY_IOS, spec.warmup_ios // 2) if self.auto else spec.warmup_ios // 2
        if self.auto and has_write_back and early is not None:
            # the cache's check comes before anything is measured
            self.min_warmup = max(self.min_warmup, self.early_at)
        self.warm: BatchMeans | None = (
            BatchMeans(WARM_BATCH, max_batches=WARM_BATCHES) if self.auto else None
        )
        self.completed = 0
        self.last_size = 0
        if spec.duration is not None:
            self.batches = BatchMeans(64, max_batches=2 * spec.batches)
        elif spec.ios is not None:
            self.batches = BatchMeans(max(1, spec.ios // spec.batches))
        elif self.stop_on is None:  # a trace's own length
            self.batches = BatchMeans(PRECISION_BATCH, max_batches=2 * spec.batches)
        else:
            assert self.stop_on is not None
            percentiles = any(m != "iops" and m != "latency_ms_mean" for m in self.stop_on.metrics)
            self.batches = BatchMeans(
                PRECISION_BATCH, max_batches=2 * spec.batches, hist_bits=5 if percentiles else None
            )

    # -- warm-up --------------------------------------------------------------------------

    @property
    def measure_from_start(self) -> bool:
        """True when nothing is discarded (a fixed warm-up of 0 I/Os)."""
        return not self.auto and self.spec.warmup_ios == 0

    def warm_up(self, now: float, latency: float) -> bool:
        """Account one completion during the warm-up; True when the warm-up is over."""
        self.completed += 1
        warm = self.warm
        if self.completed == self.early_at and self.early is not None and self.early(now):
            # the state jumped (the cache was filled): MSER finds transients at the start of
            # a series only, so the warm-up series starts again from here
            if warm is not None:
                warm.start(now)
            self.min_warmup = self.completed + self.spec.warmup_ios
        if warm is None:
            return self.completed >= self.spec.warmup_ios
        if not warm.add(now, latency):
            return False
        warm.set_state(self.state())
        if self.completed >= self.spec.max_ios:
            self.info.warmup_settled = False
            return True
        if self.open_loop and self._unstable():
            self.info.unstable = True
            self.info.warmup_settled = False
            return True
        if self.completed < self.min_warmup:
            return False
        return self._settled()

    def _series(self) -> list[np.ndarray]:
        assert self.warm is not None
        v = self.warm.batch_values()
        out = [v.latency_mean, v.iops]
        states = self.warm.states()
        if states.size:
            out.append(states[:, STATE_IN_FLIGHT])
            if self.has_write_back:
                out.append(states[:, STATE_DIRTY])
        return out

    def _settled(self) -> bool:
        assert self.warm is not None
        if self.warm.n_batches < WARM_BATCHES // 2:
            return False
        return all(settled(x) for x in self._series())

    def _unstable(self) -> bool:
        """I/Os in flight grow and completions fall behind arrivals over the second half."""
        assert self.warm is not None
        states = self.warm.states()
        v = self.warm.batch_values()
        k = min(len(states), len(v.t_end))
        if k < 16:
            return False
        states, t_end = states[:k], v.t_end[:k]
        issued = states[:, STATE_ISSUED]
        if issued[-1] < UNSTABLE_MIN_IOS:
            return False
        half = k // 2
        flight = states[:, STATE_IN_FLIGHT]
        grew = flight[-1] - flight[half]
        span = t_end[-1] - t_end[half]
        if span <= 0:
            return False
        arrivals = (issued[-1] - issued[half]) / span
        completions = float(v.completions[half + 1 : k].sum()) / span
        self.info.arrival_rate = arrivals
        self.info.completion_rate = completions
        return bool(
            grew > max(UNSTABLE_MIN_GROWTH, UNSTABLE_GROWTH * flight[half])
            and completions < 0.98 * arrivals
            and trend(flight[half:]).significant
        )

    def start_window(self, now: float) -> None:
        """The measured window opens at ``now``."""
        self.info.warmup_ios = self.completed
        self.info.warmup_seconds = now
        self.batches.start(now)
        self.last_size = self.batches.batch_size

    # -- stopping ---------------------------------------------------------------------------

    def batch_closed(self, measured: int, histogram: LatencyHistogram, span: float) -> bool:
        """After a measured batch closed: record the state; True when the run may stop.

        Checked only when the batch size has just doubled (``batches`` batches of equal
        size), so the run is judged at lengths that grow geometrically rather than at every
        batch, where chance would end it at a lucky moment.
        """
        self.batches.set_state(self.state())
        stop_on = self.stop_on
        if stop_on is None:
            return False
        if measured >= self.spec.max_ios:
            self.info.stopped_by = "max_ios"
            self._record_precision(measured, histogram, span)
            return True
        size = self.batches.batch_size
        if size == self.last_size:
            return False
        self.last_size = size
        widths, doubts = self._record_precision(measured, histogram, span)
        if all(w <= stop_on.half_width for w in widths) and not doubts:
            self.info.stopped_by = "precision"
            return True
        return False

    def _record_precision(
        self, measured: int, histogram: LatencyHistogram, span: float
    ) -> tuple[list[float], list[str]]:
        assert self.stop_on is not None
        widths: list[float] = []
        doubts: list[str] = []
        for metric in self.stop_on.metrics:
            estimate, sections, interval = metric_interval(
                self.batches, metric, histogram, measured, span, self.stop_on.confidence
            )
            width = relative_half_width(interval, estimate)
            self.info.precision[metric] = width
            widths.append(width)
            doubts += interval_doubts(sections)
        return widths, doubts


_QUANTILES = {
    "latency_ms_p50": 0.5,
    "latency_ms_p90": 0.9,
    "latency_ms_p99": 0.99,
    "latency_ms_p99_9": 0.999,
}


def metric_interval(
    batches: BatchMeans,
    metric: str,
    histogram: LatencyHistogram,
    measured: int,
    span: float,
    confidence: float = 0.95,
) -> tuple[float, np.ndarray, tuple[float, float]]:
    """(whole-window estimate, per-batch values, sectioning interval) of ``metric``.

    Throughput in I/O per second, latencies in seconds; ``histogram`` holds every measured
    latency, ``measured`` I/Os over ``span`` seconds.
    """
    from sanpath.stats import section_ci

    v = batches.batch_values()
    if metric == "iops":
        estimate = measured / span if span > 0 else math.nan
        sections: np.ndarray = v.iops
    elif metric == "latency_ms_mean":
        estimate = histogram.mean
        sections = v.latency_mean
    else:
        q = _QUANTILES[metric]
        estimate = histogram.quantile(q)
        sections = batches.quantiles(q)
    return estimate, sections, section_ci(estimate, sections, confidence, in_time_order=True)
