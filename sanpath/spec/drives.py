"""Drive specs: hard disks, flash drives and textbook servers, named or written out.

A pool's ``drive`` is a profile name (``hdd-15k``), a profile with fields changed, a model
mapping (``{model: hdd, ...}``) or a service time (``5ms``, ``{dist: exponential, mean: 5ms}``)
for a textbook drive; :data:`DriveSpec` turns each form into one of the four models (a hard
disk, the simple SSD, a flash drive given by its datasheet, a textbook server).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, field_validator, model_validator

from sanpath import units
from sanpath.spec.fields import (
    AlsoAccepts,
    Duration,
    PositiveBytes,
    Rate,
    ServiceTime,
    Spec,
    refuse_bools,
)
from sanpath.spec.flash import FlashSpec
from sanpath.spec.profiles import DRIVE_PROFILES, with_profile
from sanpath.spec.ssd import SsdSpec

__all__ = ["DriveSpec", "FlashSpec", "HddSpec", "Scheduler", "SsdSpec", "TextbookDriveSpec"]

Scheduler = Literal["fifo", "elevator", "sptf"]
"""How a drive's firmware picks the next command from its queue (see :class:`HddSpec`)."""


class HddSpec(Spec):
    """A hard disk: seek curve, rotation, zoned media rate and a reordering command queue.

    ``queue_depth`` is the drive's own command queue (SCSI TCQ / SATA NCQ): up to that many
    commands are held in the drive, and ``scheduler`` picks the next one: ``fifo`` the oldest,
    ``elevator`` the nearest cylinder in the arm's direction of travel (LOOK: seeks shrink,
    the rotational wait does not), ``sptf`` the shortest positioning time, seek and rotation
    together (rotational position ordering). ``reorder_window`` is how many of the queued
    commands, oldest first, the firmware considers (``null``: all of them). More outstanding
    commands give shorter positioning and more IOPS, up to the window.

    ``scheduling`` is the former name of ``scheduler`` (``sptf`` or ``fifo``) and is still
    read.
    """

    _no_bools = field_validator(
        "rpm",
        "queue_depth",
        "reorder_window",
        "aging",
        "capacity",
        "media_rate_outer",
        "media_rate_inner",
        mode="before",
    )(refuse_bools)

    model: Literal["hdd"] = "hdd"
    rpm: Annotated[int, Field(gt=0)] = 15000
    track_to_track: Duration = 0.2e-3
    average_seek: Duration = 3.4e-3
    full_stroke: Duration = 6.6e-3
    media_rate_outer: Rate = 204e6
    media_rate_inner: Rate = 122e6
    capacity: PositiveBytes = 450_000_000_000
    overhead: Duration = 0.1e-3
    queue_depth: Annotated[int, Field(ge=1)] = 64
    scheduler: Scheduler = "sptf"
    reorder_window: Annotated[int, Field(ge=1)] | None = None
    """Queued commands (oldest first) the scheduler considers; ``None``: the whole queue."""
    aging: Annotated[float, Field(ge=0.0)] = 0.005
    """SPTF aging: seconds of positioning credited per second a command has waited, so no
    command starves behind a stream of nearby ones (0 = pure SPTF)."""
    read_lookahead: bool = True
    write_track_to_track: Duration | None = None
    """Seek times of a write (s), longer than a read's where the head must settle more
    precisely before it writes; ``None``: the read's (``track_to_track`` ...)."""
    write_average_seek: Duration | None = None
    write_full_stroke: Duration | None = None

    @property
    def write_seeks(self) -> tuple[float, float, float]:
        """(track-to-track, average, full-stroke) seek of a write, seconds."""
        return (
            self.track_to_track if self.write_track_to_track is None else self.write_track_to_track,
            self.average_seek if self.write_average_seek is None else self.write_average_seek,
            self.full_stroke if self.write_full_stroke is None else self.write_full_stroke,
        )

    @model_validator(mode="before")
    @classmethod
    def _former_name(cls, data: Any) -> Any:
        return _rename_scheduling(data)

    @property
    def window(self) -> int:
        """Commands the scheduler chooses among when the drive's queue is full."""
        if self.reorder_window is None:
            return self.queue_depth
        return min(self.reorder_window, self.queue_depth)

    @model_validator(mode="after")
    def _check_seek(self) -> HddSpec:
        if not self.track_to_track <= self.average_seek <= self.full_stroke:
            raise ValueError(
                "seek times must satisfy track_to_track <= average_seek <= full_stroke"
            )
        track, average, full = self.write_seeks
        if not track <= average <= full:
            raise ValueError(
                "write seek times must satisfy write_track_to_track <= write_average_seek <= "
                "write_full_stroke (a field left out is the read's)"
            )
        if self.media_rate_inner > self.media_rate_outer:
            raise ValueError("media_rate_inner must not exceed media_rate_outer")
        return self


class TextbookDriveSpec(Spec):
    """A textbook server: ``servers`` identical servers with the given service time.

    Service does not depend on size or position, so a scenario built on it reduces to a
    textbook queue (M/M/1, M/D/1, M/M/c) for validation and teaching.
    """

    _no_bools = field_validator("servers", "capacity", mode="before")(refuse_bools)

    model: Literal["textbook"] = "textbook"
    service: ServiceTime
    servers: Annotated[int, Field(ge=1)] = 1
    capacity: PositiveBytes = 1 << 40


def _rename_scheduling(data: Any) -> Any:
    """``scheduling`` (the former name of ``scheduler``) read as ``scheduler``."""
    if not isinstance(data, Mapping) or "scheduling" not in data:
        return data
    if "scheduler" in data:
        raise ValueError(
            "give scheduler only (scheduling is its former name), not both: "
            f"scheduler={data['scheduler']!r}, scheduling={data['scheduling']!r}"
        )
    renamed = {k: v for k, v in data.items() if k != "scheduling"}
    renamed["scheduler"] = data["scheduling"]
    return renamed


def _drive(value: Any) -> Any:
    if isinstance(value, HddSpec | SsdSpec | TextbookDriveSpec):
        return value
    if isinstance(value, str) and value in DRIVE_PROFILES:
        return dict(DRIVE_PROFILES[value])
    if isinstance(value, Mapping):
        if "profile" in value:
            name = value["profile"]
            if name not in DRIVE_PROFILES:
                known = ", ".join(sorted(DRIVE_PROFILES))
                raise ValueError(f"unknown drive profile {name!r}; known profiles: {known}")
            merged = with_profile(_rename_scheduling(value), DRIVE_PROFILES)
            del merged["profile"]  # drive models have no profile field
            return merged
        if "dist" in value:
            return {"model": "textbook", "service": dict(value)}
        return value
    if isinstance(value, str):
        try:
            units.parse_duration(value)
        except units.UnitError:
            known = ", ".join(sorted(DRIVE_PROFILES))
            raise ValueError(
                f"unknown drive {value!r}: name a profile ({known}), a model mapping "
                "({model: hdd, ...}) or a service time (5ms, {dist: exponential, mean: 5ms})"
            ) from None
    return {"model": "textbook", "service": value}


DriveSpec = Annotated[
    HddSpec | FlashSpec | SsdSpec | TextbookDriveSpec,
    BeforeValidator(_drive),
    Field(discriminator="model"),
    AlsoAccepts(
        {
            "type": "string",
            "description": "a drive profile name or a constant service time such as 5ms",
        },
        {"type": "number", "minimum": 0},
        {
            "type": "object",
            "required": ["profile"],
            "properties": {"profile": {"enum": sorted(DRIVE_PROFILES)}},
            "description": "a profile with some fields changed",
        },
        {
            "type": "object",
            "required": ["dist"],
            "description": "a textbook drive's service-time distribution",
        },
    ),
]
