"""The run spec: how long to simulate (I/Os, time or a precision) and what counts as warm-up."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BeforeValidator, Field, model_validator

from sanpath.spec.fields import DURATION_SCHEMA, Duration, Spec, as_duration

PRECISION_METRICS = (
    "iops",
    "latency_ms_mean",
    "latency_ms_p50",
    "latency_ms_p90",
    "latency_ms_p99",
    "latency_ms_p99_9",
)
"""Figures a run can stop on (``run.precision.metric``)."""


class PrecisionSpec(Spec):
    """Stop a run when the 95% interval of ``metric`` is this tight.

    ``half_width`` is relative: 0.02 stops once the interval's half-width is at most 2% of
    the estimate (for every metric listed). The interval comes from the run's batches
    (sectioning: the whole window's estimate, the spread of the batches' own estimates);
    the run goes on while the batches are still correlated or trending.
    """

    metric: Literal[PRECISION_METRICS] | tuple[Literal[PRECISION_METRICS], ...] = (  # type: ignore[valid-type]
        "latency_ms_mean"
    )
    half_width: Annotated[float, Field(gt=0.0, lt=1.0)] = 0.02
    confidence: Annotated[float, Field(gt=0.5, lt=1.0)] = 0.95

    @property
    def metrics(self) -> tuple[str, ...]:
        """The metrics as a tuple."""
        return (self.metric,) if isinstance(self.metric, str) else tuple(self.metric)


class AnimateSpec(Spec):
    """What a run records for its animation (``sanpath animate``): a window of simulated time.

    ``start`` and ``duration`` are simulated seconds; ``duration: null`` ends the window once
    :data:`sanpath.spec.AUTO_IOS` application I/Os have completed in it (or at the end of
    the run). The recording keeps ``frames`` instants of the window, each station's
    occupancy at every one, and the journeys of ``tracked`` application I/Os spread over it;
    it plays at ``fps`` frames per second. Its memory is bounded by ``frames`` and the
    path's size, whatever the run's length; without ``run.animate`` nothing is recorded.
    """

    start: Duration = 0.0
    duration: (
        Annotated[float, BeforeValidator(as_duration), Field(gt=0), DURATION_SCHEMA] | None
    ) = None
    fps: Annotated[int, Field(ge=1, le=60)] = 8
    frames: Annotated[int, Field(ge=2, le=2_000)] = 96
    tracked: Annotated[int, Field(ge=0, le=200)] = 12


AUTO_IOS = 2_000
"""Application I/Os completed in an animation window without a ``duration`` (its end)."""


class RunSpec(Spec):
    """How long to simulate, and what counts as warm-up.

    Three ways to set the length, one at a time:

    * ``precision`` (the default when neither ``ios`` nor ``duration`` is given): run until
      the 95% interval of the chosen metric is that tight, at most ``max_ios`` measured I/Os;
    * ``ios``: exactly this many measured application I/Os;
    * ``duration``: this much measured simulated time (s).

    Warm-up: with ``warmup: auto`` the run measures nothing until the data say the start-up
    transient is over (MSER-5 over the batches seen so far, and a write-back cache whose
    dirty level has stopped climbing), and at least ``warmup_ios`` I/Os have completed; with
    ``warmup: fixed`` exactly ``warmup_ios`` I/Os are discarded. ``batches`` is the smallest
    number of batches behind an interval (the batch size grows with the run).
    """

    ios: Annotated[int, Field(ge=1)] | None = None
    warmup: Literal["auto", "fixed"] = "auto"
    warmup_ios: Annotated[int, Field(ge=0)] = 2_000
    precision: PrecisionSpec | None = None
    max_ios: Annotated[int, Field(ge=1)] = 2_000_000
    """Cap on measured I/Os for a precision-stopped run (and on the warm-up of an auto one)."""
    batches: Annotated[int, Field(ge=2)] = 20
    precondition: bool = True
    """Start with the write-back cache dirty to its high watermark with the scenario's own
    writes, and fill it early in the warm-up when writes outpace destaging (see
    :mod:`sanpath.sim.precondition`), so the run does not spend minutes of simulated time filling
    it; false starts with an empty cache."""
    max_time: Duration | None = None
    duration: (
        Annotated[float, BeforeValidator(as_duration), Field(gt=0), DURATION_SCHEMA] | None
    ) = None
    record_interval: (
        Annotated[float, BeforeValidator(as_duration), Field(gt=0), DURATION_SCHEMA] | None
    ) = None
    animate: AnimateSpec | None = None
    """Record a window of the run for an animation (:class:`AnimateSpec`); None: nothing."""

    @model_validator(mode="after")
    def _check_length(self) -> RunSpec:
        given = [k for k in ("ios", "duration", "precision") if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(
                f"give one of ios (fixed I/Os), duration (fixed simulated time) or precision "
                f"(stop when the interval is tight), not {' and '.join(given)}; set the others "
                "to null"
            )
        return self

    @property
    def stop_on(self) -> PrecisionSpec | None:
        """The precision a run stops on: the given one, the default, or None (fixed length)."""
        if self.ios is not None or self.duration is not None:
            return None
        return self.precision if self.precision is not None else PrecisionSpec()
