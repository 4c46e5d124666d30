"""A published experiment as a scenario writes it: the knobs it varies, the figures it reports.

Read by :mod:`sanpath.experiments` (sweeps, comparisons with the published figures).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from sanpath.spec.fields import Duration, Spec


class SweepSpec(Spec):
    """A published experiment as written: the knobs it varies.

    ``vary`` lists values per dotted key; every combination is a point. ``zip`` lists keys
    varied together (equal-length lists), crossed with ``vary``.
    """

    vary: dict[str, tuple[Any, ...]] = Field(default_factory=dict)
    zip: dict[str, tuple[Any, ...]] = Field(default_factory=dict)
    replicates: Annotated[int, Field(ge=1)] = 1

    @model_validator(mode="after")
    def _check_lists(self) -> SweepSpec:
        for key, values in {**self.vary, **self.zip}.items():
            if not values:
                raise ValueError(f"{key}: give at least one value")
        lengths = {len(v) for v in self.zip.values()}
        if len(lengths) > 1:
            raise ValueError("zip: every list must have the same length")
        if set(self.vary) & set(self.zip):
            raise ValueError("a key cannot be in both vary and zip")
        return self


REFERENCE_METRICS = (
    "iops",
    "mb_per_s",
    "latency_ms_mean",
    "latency_ms_p50",
    "latency_ms_p99",
    "latency_ms_max",
    "read_latency_ms_mean",
    "write_latency_ms_mean",
    "command_latency_ms_mean",
    "command_latency_ms_p50",
    "command_latency_ms_p99",
    "command_latency_ms_max",
    "exchange_ms_mean",
    "exchange_ms_p50",
    "exchange_ms_p99",
    "exchange_ms_max",
    "exchange_spread",
    "mb_per_s_spread",
    "commands_per_io",
    "write_cache_fraction",
)
"""Figures a reference point can hold (see :mod:`sanpath.experiments.reference`)."""


class ReferencePointSpec(Spec):
    """One published figure: the settings it was measured at and what was measured.

    ``set`` holds dotted overrides of the scenario for this point; ``window`` restricts the
    figure to a span of simulated time (for schedules, read from the time series);
    ``relative_to`` makes the figure a ratio to another point's (e.g. +25% = 1.25);
    ``role`` says whether the point was used to calibrate the model (``fitted``), is a
    prediction checked against it (``predicted``) or was measured on the user's own system
    (``measured``, as ``sanpath import`` writes it: ``sanpath compare`` reports it and
    ``sanpath calibrate`` may fit to it like a fitted point); ``tolerance`` is the accepted relative
    error, or ``[low, high]`` bounds on the value. Where a write-up states a conclusion
    rather than a number ("32 is within 10% of 128"), ``value`` is the centre of the band the
    conclusion allows and ``tolerance`` the band.
    """

    label: str
    set: dict[str, Any] = Field(default_factory=dict)
    metric: Literal[REFERENCE_METRICS] = "iops"  # type: ignore[valid-type]
    value: float | None
    """The published figure; null for a point that only serves as a ratio's base."""
    window: tuple[Duration, Duration] | None = None
    relative_to: str | None = None
    role: Literal["fitted", "predicted", "measured"] = "predicted"
    tolerance: Annotated[float, Field(gt=0)] | tuple[float, float] | None = None


class ReferenceSpec(Spec):
    """The published figures a scenario reproduces, and what was calibrated to get there."""

    source: str
    run: dict[str, Any] = Field(default_factory=dict)
    calibrated: dict[str, str] = Field(default_factory=dict)
    """Calibrated parameter -> why (what the write-up does not say)."""
    mechanism: str = ""
    """What explains the published curve, in the model's terms."""
    disagreements: str = ""
    """Where the model still disagrees, and why."""
    points: tuple[ReferencePointSpec, ...] = Field(min_length=1)

    @model_validator(mode="after")
    def _check_labels(self) -> ReferenceSpec:
        labels = [p.label for p in self.points]
        if len(set(labels)) != len(labels):
            raise ValueError("reference point labels must be unique")
        for point in self.points:
            if point.relative_to is not None and point.relative_to not in labels:
                raise ValueError(
                    f"{point.label}: relative_to names no point ({point.relative_to!r})"
                )
        return self
