"""The simple SSD model: ``units`` parallel flash units behind one bandwidth limit.

Kept as it was for the scenarios calibrated with it; :mod:`sanpath.spec.flash` describes a
flash drive by its datasheet instead.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field, field_validator

from sanpath.spec.fields import Duration, PositiveBytes, Rate, Spec, refuse_bools


class SsdSpec(Spec):
    """A flash drive: ``units`` parallel flash units behind one bandwidth limit."""

    _no_bools = field_validator("units", "bandwidth", "capacity", mode="before")(refuse_bools)

    model: Literal["ssd"] = "ssd"
    units: Annotated[int, Field(ge=1)] = 6
    read_time: Duration = 58e-6
    write_time: Duration = 85e-6
    bandwidth: Rate = 560e6
    capacity: PositiveBytes = 960_000_000_000
