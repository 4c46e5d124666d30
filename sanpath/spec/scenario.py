"""Scenario files: what a user writes, validated once into frozen, typed specs.

A scenario describes one SAN set-up and the load put on it: the hosts with their HBAs and
queue settings, the fabric, the array (ports, controller, cache, RAID pools, LUNs), the
zoning and the workloads. It is written in YAML 1.2 (read with ruamel.yaml, which keeps the
line and column of every key so errors can point at them) or built as a dict in a notebook.

Validation happens here and only here. Sizes, rates and times are parsed from unit strings
(``8KiB``, ``4GFC``, ``5ms``) into SI base units: bytes (int), bytes per second (float) and
seconds (float). The model code downstream trusts these specs and never re-checks them.

Classes carry a ``Spec`` suffix: a spec is "what you wrote"; the running components built from
it live in :mod:`sanpath.sim.components`.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Final, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationError,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from sanpath import units
from sanpath.spec.profiles import ARRAY_PROFILES, DRIVE_PROFILES, HBA_PROFILES

# --------------------------------------------------------------------------------------
# Bounds: what no physical SAN exceeds (refused at validation, see docs/scenario.md)
# --------------------------------------------------------------------------------------

MAX_IO_SIZE: Final = 1 << 30
"""Largest I/O, transfer, stripe, frame, read-ahead or destage size, bytes (1 GiB): far
above any SCSI transfer (a few MiB) or RAID stripe element."""
MAX_CAPACITY: Final = 1 << 60
"""Largest drive, LUN, pool or cache capacity, bytes (1 EiB, about ten thousand of today's
largest drives); it also keeps every byte offset well inside a 64-bit integer."""
MAX_HOSTS: Final = 100_000
"""Most hosts in one host group (``hosts.N.count``): every host is built and simulated."""
MAX_HBAS: Final = 64
"""Most HBA cards of one kind in one host (``hosts.N.hbas.M.count``)."""
MAX_HBA_PORTS: Final = 16
"""Most ports on one HBA card (``hosts.N.hbas.M.ports``; cards have 1 to 4)."""
MAX_ARRAY_PORTS: Final = 4096
"""Most front-end ports of one array (``array.ports``; the largest arrays have a few hundred)."""
MAX_LUNS: Final = 65_536
"""Most LUNs in one LUN group (``array.luns.N.count``; arrays address at most 64Ki devices)."""


def _at_most(limit: int, what: str, show: Callable[[int], str] = "{:,}".format) -> Any:
    """An after-validator refusing values above ``limit`` with a message naming ``what``."""

    def check(value: int | None) -> int | None:
        if value is not None and value > limit:
            raise ValueError(f"{show(value)} is too large: expected at most {show(limit)} {what}")
        return value

    return AfterValidator(check)


# --------------------------------------------------------------------------------------
# Unit-carrying field types
# --------------------------------------------------------------------------------------


def _size_schema(maximum: int) -> WithJsonSchema:
    return WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 0, "maximum": maximum},
                {"type": "string", "pattern": r"^\s*[0-9.]+\s*[A-Za-z]*\s*$"},
            ],
            "description": "a size: bytes, or a string such as 8KiB, 8k, 1MiB (1024-based); "
            f"at most {units.format_bytes(maximum)}",
        }
    )


_SIZE_SCHEMA = _size_schema(MAX_CAPACITY)
_IO_SIZE_SCHEMA = _size_schema(MAX_IO_SIZE)
_RATE_SCHEMA = WithJsonSchema(
    {
        "anyOf": [{"type": "number", "exclusiveMinimum": 0}, {"type": "string"}],
        "description": "a rate: bytes/s, or a string such as 200MB/s, 8Gb/s, 4GFC",
    }
)
_DURATION_SCHEMA = WithJsonSchema(
    {
        "anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}],
        "description": "a duration: seconds, or a string such as 5ms, 20us, 120s",
    }
)


def _size(value: Any) -> int:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return units.parse_bytes(value)
    raise ValueError(f"expected a size such as 8KiB or 1MiB, got {value!r}")


def _rate(value: Any) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return units.parse_rate(value)
    raise ValueError(f"expected a rate such as 200MB/s or 4GFC, got {value!r}")


def _duration(value: Any) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return units.parse_duration(value)
    raise ValueError(f"expected a duration such as 5ms or 20us, got {value!r}")


def _show_bytes(n: int) -> str:
    return units.format_bytes(n) if n >= 1024 and n % 1024 == 0 else f"{n:,} bytes"


_CAPACITY_LIMIT = _at_most(MAX_CAPACITY, "for a capacity", _show_bytes)
_IO_SIZE_LIMIT = _at_most(
    MAX_IO_SIZE, "for an I/O, transfer, stripe or cache-page size", _show_bytes
)

Bytes = Annotated[int, BeforeValidator(_size), Field(ge=0), _CAPACITY_LIMIT, _SIZE_SCHEMA]
"""A capacity in bytes (at most :data:`MAX_CAPACITY`); accepts unit strings."""
PositiveBytes = Annotated[int, BeforeValidator(_size), Field(gt=0), _CAPACITY_LIMIT, _SIZE_SCHEMA]
IoBytes = Annotated[int, BeforeValidator(_size), Field(ge=0), _IO_SIZE_LIMIT, _IO_SIZE_SCHEMA]
"""An I/O, transfer or stripe size in bytes (at most :data:`MAX_IO_SIZE`)."""
PositiveIoBytes = Annotated[
    int, BeforeValidator(_size), Field(gt=0), _IO_SIZE_LIMIT, _IO_SIZE_SCHEMA
]
Rate = Annotated[float, BeforeValidator(_rate), Field(gt=0), _RATE_SCHEMA]
"""A rate in bytes per second; accepts unit strings and named link speeds."""
Duration = Annotated[float, BeforeValidator(_duration), Field(ge=0), _DURATION_SCHEMA]
"""A duration in seconds; accepts unit strings."""
Fraction = Annotated[float, Field(ge=0.0, le=1.0)]


HostCount = Annotated[
    int,
    Field(ge=1, json_schema_extra={"maximum": MAX_HOSTS}),
    _at_most(MAX_HOSTS, "hosts in one group (each host is built and simulated)"),
]
HbaCount = Annotated[
    int,
    Field(ge=1, json_schema_extra={"maximum": MAX_HBAS}),
    _at_most(MAX_HBAS, "HBA cards of one kind per host"),
]
HbaPortCount = Annotated[
    int,
    Field(ge=1, json_schema_extra={"maximum": MAX_HBA_PORTS}),
    _at_most(MAX_HBA_PORTS, "ports per HBA card"),
]
ArrayPortCount = Annotated[
    int,
    Field(ge=1, json_schema_extra={"maximum": MAX_ARRAY_PORTS}),
    _at_most(MAX_ARRAY_PORTS, "array front-end ports"),
]
LunCount = Annotated[
    int,
    Field(ge=1, json_schema_extra={"maximum": MAX_LUNS}),
    _at_most(MAX_LUNS, "LUNs in one LUN group"),
]


def _takes_bool(annotation: Any) -> bool:
    """True when a field's type accepts booleans (bool, Any, or a Literal of booleans)."""
    if annotation is bool or annotation is Any:
        return True
    if get_origin(annotation) is Literal:
        return any(isinstance(arg, bool) for arg in get_args(annotation))
    if get_origin(annotation) is Annotated:
        return _takes_bool(get_args(annotation)[0])
    return any(_takes_bool(arg) for arg in get_args(annotation))


def _number_kind(annotation: Any) -> str | None:
    """``"a whole number"`` or ``"a number"`` when the type holds an int or float, else None."""
    if annotation is int:
        return "a whole number"
    if annotation is float:
        return "a number"
    if get_origin(annotation) is Literal:
        args = get_args(annotation)
        return "a whole number" if any(type(arg) is int for arg in args) else None
    if get_origin(annotation) is Annotated:
        return _number_kind(get_args(annotation)[0])
    kinds = {_number_kind(arg) for arg in get_args(annotation)} - {None}
    if kinds:
        return "a whole number" if kinds == {"a whole number"} else "a number"
    return None


def _holds_bool(value: Any) -> bool:
    """A boolean, or a list or tuple holding one (mappings are checked by their own spec)."""
    if isinstance(value, bool):
        return True
    return isinstance(value, list | tuple) and any(_holds_bool(item) for item in value)


_NUMBER_KINDS: dict[tuple[type, str], str | None] = {}
"""Per (spec class, field): what a boolean given there should have been, or None."""


def _refuse_bools(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
    """Before-validator of every field: a boolean where a number belongs is an error."""
    if not _holds_bool(value) or info.field_name is None:
        return value
    key = (cls, info.field_name)
    if key not in _NUMBER_KINDS:
        annotation = cls.model_fields[info.field_name].annotation
        _NUMBER_KINDS[key] = None if _takes_bool(annotation) else _number_kind(annotation)
    kind = _NUMBER_KINDS[key]
    if kind is not None:
        where = "" if isinstance(value, bool) else " in the list"
        raise ValueError(f"expected {kind}, not a boolean (true/false){where}")
    return value


class Spec(BaseModel):
    """Base of every scenario section: frozen, no unknown keys, defaults validated.

    Two guards apply to every field of every section: numbers must be finite (``.inf`` and
    ``.nan`` are refused), and a boolean is never read as a number (pydantic's lax mode would
    take ``count: true`` as 1). The drive models, whose ``model`` field tells them apart (a
    field no before-validator may touch), name their numeric fields instead of ``*``.
    """

    model_config = ConfigDict(
        extra="forbid", frozen=True, validate_default=True, allow_inf_nan=False
    )

    _no_bools = field_validator("*", mode="before")(_refuse_bools)


# --------------------------------------------------------------------------------------
# Service-time distributions
# --------------------------------------------------------------------------------------

DistName = Literal["constant", "exponential", "lognormal", "uniform", "erlang", "gamma"]


class DistSpec(Spec):
    """A service-time distribution.

    Written as a plain duration (``20us``: constant) or as a mapping:
    ``{dist: exponential, mean: 5ms}``, ``{dist: lognormal, mean: 5ms, cv: 0.5}``,
    ``{dist: uniform, low: 1ms, high: 9ms}``, ``{dist: erlang, k: 4, mean: 5ms}`` or
    ``{dist: gamma, mean: 5ms, cv: 2}``.
    """

    dist: DistName = "constant"
    mean: Duration | None = None
    cv: Annotated[float, Field(ge=0.0)] | None = None
    low: Duration | None = None
    high: Duration | None = None
    k: Annotated[int, Field(ge=1)] | None = None

    @model_validator(mode="after")
    def _check_parameters(self) -> DistSpec:
        needs: dict[str, tuple[str, ...]] = {
            "constant": ("mean",),
            "exponential": ("mean",),
            "lognormal": ("mean", "cv"),
            "uniform": ("low", "high"),
            "erlang": ("mean", "k"),
            "gamma": ("mean", "cv"),
        }
        required = needs[self.dist]
        missing = [name for name in required if getattr(self, name) is None]
        if missing:
            raise ValueError(f"dist {self.dist} needs {' and '.join(missing)}")
        extra = [
            name
            for name in ("mean", "cv", "low", "high", "k")
            if getattr(self, name) is not None and name not in required
        ]
        if extra:
            raise ValueError(
                f"dist {self.dist} takes {', '.join(required)}, not {', '.join(extra)}"
            )
        if (
            self.dist == "uniform"
            and self.low is not None
            and self.high is not None
            and self.high < self.low
        ):
            raise ValueError("uniform needs low <= high")
        if self.dist == "gamma" and self.cv == 0:
            raise ValueError("gamma needs cv > 0 (use constant for cv = 0)")
        return self

    @property
    def mean_s(self) -> float:
        """Mean service time in seconds."""
        if self.dist == "uniform":
            assert self.low is not None and self.high is not None
            return (self.low + self.high) / 2.0
        assert self.mean is not None
        return self.mean

    @property
    def scv(self) -> float:
        """Squared coefficient of variation of the service time."""
        match self.dist:
            case "constant":
                return 0.0
            case "exponential":
                return 1.0
            case "erlang":
                assert self.k is not None
                return 1.0 / self.k
            case "uniform":
                assert self.low is not None and self.high is not None
                mean = self.mean_s
                if mean == 0:
                    return 0.0
                return ((self.high - self.low) ** 2 / 12.0) / mean**2
            case _:
                assert self.cv is not None
                return self.cv**2


def _service_time(value: Any) -> Any:
    if isinstance(value, DistSpec | Mapping):
        return value
    return {"dist": "constant", "mean": value}


class _AlsoAccepts:
    """JSON Schema of a field that takes shorthand forms besides its model: ``anyOf``."""

    def __init__(self, *forms: dict[str, Any]) -> None:
        self.forms = forms

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"anyOf": [*self.forms, handler(core_schema)]}


ServiceTime = Annotated[
    DistSpec,
    BeforeValidator(_service_time),
    _AlsoAccepts(
        {
            "anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}],
            "description": "a constant service time: seconds, or a string such as 20us",
        }
    ),
]
"""A duration (constant service) or a distribution mapping."""


# --------------------------------------------------------------------------------------
# Drives
# --------------------------------------------------------------------------------------


class HddSpec(Spec):
    """A hard disk: seek curve, rotation, zoned media rate and a reordering command queue.

    ``queue_depth`` is the drive's own command queue (SCSI TCQ / SATA NCQ): up to that many
    commands are held in the drive and, with ``scheduling: sptf``, the one with the shortest
    positioning time is served next. More outstanding commands give shorter positioning and
    more IOPS.
    """

    _no_bools = field_validator(
        "rpm",
        "queue_depth",
        "aging",
        "capacity",
        "media_rate_outer",
        "media_rate_inner",
        mode="before",
    )(_refuse_bools)

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
    scheduling: Literal["sptf", "fifo"] = "sptf"
    aging: Annotated[float, Field(ge=0.0)] = 0.005
    """SPTF aging: seconds of positioning credited per second a command has waited, so no
    command starves behind a stream of nearby ones (0 = pure SPTF)."""
    read_lookahead: bool = True

    @model_validator(mode="after")
    def _check_seek(self) -> HddSpec:
        if not self.track_to_track <= self.average_seek <= self.full_stroke:
            raise ValueError(
                "seek times must satisfy track_to_track <= average_seek <= full_stroke"
            )
        if self.media_rate_inner > self.media_rate_outer:
            raise ValueError("media_rate_inner must not exceed media_rate_outer")
        return self


class SsdSpec(Spec):
    """A flash drive: ``units`` parallel flash units behind one bandwidth limit."""

    _no_bools = field_validator("units", "bandwidth", "capacity", mode="before")(_refuse_bools)

    model: Literal["ssd"] = "ssd"
    units: Annotated[int, Field(ge=1)] = 6
    read_time: Duration = 58e-6
    write_time: Duration = 85e-6
    bandwidth: Rate = 560e6
    capacity: PositiveBytes = 960_000_000_000


class TextbookDriveSpec(Spec):
    """A textbook server: ``servers`` identical servers with the given service time.

    Service does not depend on size or position, so a scenario built on it reduces to a
    textbook queue (M/M/1, M/D/1, M/M/c) for validation and teaching.
    """

    _no_bools = field_validator("servers", "capacity", mode="before")(_refuse_bools)

    model: Literal["textbook"] = "textbook"
    service: ServiceTime
    servers: Annotated[int, Field(ge=1)] = 1
    capacity: PositiveBytes = 1 << 40


def _with_profile(
    value: Any, profiles: Mapping[str, Mapping[str, Any]], nested: tuple[str, ...] = ()
) -> Any:
    """``value`` (a section's mapping) on top of the profile it names, if any.

    The section's own fields win; the ``nested`` mappings (an array's ``cache``) are merged
    field by field. An unknown name is left for the field's own validation to report.
    """
    if not isinstance(value, Mapping) or value.get("profile") not in profiles:
        return value
    merged: dict[str, Any] = copy.deepcopy(dict(profiles[value["profile"]]))
    for key, item in value.items():
        base = merged.get(key)
        if key in nested and isinstance(base, Mapping) and isinstance(item, Mapping):
            merged[key] = {**base, **item}
        else:
            merged[key] = item
    return merged


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
            merged = _with_profile(value, DRIVE_PROFILES)
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
    HddSpec | SsdSpec | TextbookDriveSpec,
    BeforeValidator(_drive),
    Field(discriminator="model"),
    _AlsoAccepts(
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


# --------------------------------------------------------------------------------------
# Host side
# --------------------------------------------------------------------------------------


class PcieSpec(Spec):
    """The PCIe slot an HBA sits in: ``{gen: 1, lanes: 4}`` or ``{rate: 1GB/s}``.

    The slot is full duplex: ``rate`` (or gen x lanes after line encoding) applies per
    direction and is shared by every port of the HBA. ``efficiency`` scales it for TLP
    framing overhead (Intel's worked example: 256-byte payloads give 92%); the default 1.0
    uses the nominal figures practitioners quote (x4 Gen1 about 1 GB/s).
    """

    gen: Annotated[int, Field(ge=1, le=6)] | None = None
    lanes: Literal[1, 2, 4, 8, 16] | None = None
    rate: Rate | None = None
    efficiency: Annotated[float, Field(gt=0.0, le=1.0)] = 1.0

    @model_validator(mode="after")
    def _check_form(self) -> PcieSpec:
        if self.rate is None and (self.gen is None or self.lanes is None):
            raise ValueError("give either rate, or both gen and lanes")
        if self.rate is not None and (self.gen is not None or self.lanes is not None):
            raise ValueError("give either rate, or gen and lanes, not both")
        return self

    @property
    def bytes_per_s(self) -> float:
        """Usable bandwidth per direction, bytes per second."""
        if self.rate is not None:
            return self.rate * self.efficiency
        assert self.gen is not None and self.lanes is not None
        return units.pcie_rate(self.gen, self.lanes) * self.efficiency


HbaProfile = Literal["emulex-lp10000", "qlogic-qle2562", "hp-ab379b"]
"""Names of :data:`sanpath.spec.profiles.HBA_PROFILES`."""

ArrayProfile = Literal["emc-clariion", "emc-vnx", "hitachi-ams", "hitachi-usp-v", "netapp-ontap-fc"]
"""Names of :data:`sanpath.spec.profiles.ARRAY_PROFILES`."""


class HbaSpec(Spec):
    """A fibre-channel host bus adapter (one or more identical cards).

    ``queue_depth`` is the number of command slots (Storport QueueDepth, lpfc
    lun_queue_depth, ql2xmaxqdepth), counted per LUN or per target port according to
    ``queue_target`` (Emulex QueueTarget 0/1). ``max_transfer`` splits larger I/Os.
    ``command_time`` is the adapter's per-command processing time. ``profile`` starts from
    a named card (:data:`sanpath.spec.profiles.HBA_PROFILES`); the fields written beside it win.
    """

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, value: Any) -> Any:
        return _with_profile(value, HBA_PROFILES)

    profile: HbaProfile | None = None
    count: HbaCount = 1
    ports: HbaPortCount = 1
    speed: Rate | None = 425e6
    queue_depth: Annotated[int, Field(ge=1)] | None = 32
    queue_target: Literal["lun", "target"] = "lun"
    max_transfer: PositiveIoBytes | None = None
    command_time: ServiceTime = DistSpec(dist="constant", mean=10e-6)
    pcie: PcieSpec | None = None


ThrottlePolicy = Literal["none", "linux", "vmware", "storport"]


class QfullSpec(Spec):
    """What a host does when the array answers QUEUE FULL (SCSI status 0x28).

    The command is retried after ``retry_delay`` (Linux SCSI_QUEUE_DELAY is 3 ms). With a
    throttle the host also lowers its own per-LUN queue depth:

    * ``linux``: -1 after more than ``sample_size`` (10) QUEUE FULLs at one depth, +1 per
      ``ramp_up_period`` (120 s) without one (scsi_track_queue_full, queue_ramp_up_period);
    * ``vmware``: halve after ``sample_size`` QUEUE FULLs (QFullSampleSize, e.g. 32), +1 per
      ``threshold`` good completions (QFullThreshold, e.g. 8);
    * ``storport``: drop to ``min_depth`` at once, then recover linearly over
      ``recovery_time`` (about a minute, per EMC's host connectivity guide).
    """

    retry_delay: Duration = 3e-3
    throttle: ThrottlePolicy = "none"
    sample_size: Annotated[int, Field(ge=1)] | None = None
    threshold: Annotated[int, Field(ge=1)] = 8
    ramp_up_period: Duration = 120.0
    min_depth: Annotated[int, Field(ge=1)] = 1
    recovery_time: Duration = 60.0

    @property
    def effective_sample_size(self) -> int:
        """QUEUE FULLs that trigger a step down (10 for Linux, 32 for VMware by default)."""
        if self.sample_size is not None:
            return self.sample_size
        return 32 if self.throttle == "vmware" else 10


MultipathPolicy = Literal[
    "failover", "round-robin", "least-queue-depth", "service-time", "least-cmd-load"
]


class HostSpec(Spec):
    """A server (or ``count`` identical servers) issuing I/O through its HBAs.

    ``lun_queue_depth`` is the host's queue per LUN per path (HP-UX max_q_depth, Linux
    queue_depth, VMware DQLEN); I/Os beyond it wait in the OS. ``max_io_size`` is the
    operating system's largest I/O (escsi_maxphys, max_sectors_kb). ``io_time`` is the
    host's own time per command (driver, interrupt and completion handling), spent while the
    command holds its slot in the host queue; a pure delay, as many CPUs run it in parallel.
    ``cpus`` and ``cpu_time`` model the part of that work that contends for processors: every
    command needs ``cpu_time`` of one of the host's ``cpus`` processors (first come, first
    served, shared by every LUN and path), so a host issuing enough I/O becomes a bottleneck of
    its own at ``cpus / cpu_time`` commands per second (null ``cpus``: not modelled).
    """

    name: str
    count: HostCount = 1
    max_io_size: PositiveIoBytes | None = None
    lun_queue_depth: Annotated[int, Field(ge=1)] | None = None
    multipath: MultipathPolicy = "round-robin"
    rr_ios: Annotated[int, Field(ge=1)] = 1
    io_time: ServiceTime = DistSpec(dist="constant", mean=0.0)
    cpus: Annotated[int, Field(ge=1)] | None = None
    cpu_time: ServiceTime = DistSpec(dist="constant", mean=0.0)
    qfull: QfullSpec = QfullSpec()
    hbas: tuple[HbaSpec, ...] = Field(default=(HbaSpec(),), min_length=1)

    @property
    def ports_per_host(self) -> int:
        """HBA ports on one host (over every card)."""
        return sum(hba.count * hba.ports for hba in self.hbas)


# --------------------------------------------------------------------------------------
# Fabric and array
# --------------------------------------------------------------------------------------


class FabricSpec(Spec):
    """The switched fabric between host ports and array ports.

    Frames carry at most ``frame_payload`` bytes and cost ``frame_overhead`` more on the
    wire (SOF 4 + header 24 + CRC 4 + EOF 4 + about 24 bytes of idles between frames).
    ``distance_km`` adds 5 us per km each way (light in fibre).
    """

    hop_latency: Duration = 1e-6
    hops: Annotated[int, Field(ge=0)] = 1
    frame_payload: PositiveIoBytes = 2048
    frame_overhead: IoBytes = 60
    distance_km: Annotated[float, Field(ge=0.0)] = 0.0

    @property
    def one_way_latency(self) -> float:
        """Propagation and switching latency from host port to array port, seconds."""
        return self.hops * self.hop_latency + self.distance_km * 5e-6


class ControllerSpec(Spec):
    """The array's storage processors: ``cores`` servers taking ``io_time`` per I/O."""

    cores: Annotated[int, Field(ge=1)] = 2
    io_time: ServiceTime = DistSpec(dist="constant", mean=20e-6)
    write_io_time: ServiceTime | None = None
    """Controller time per write when it differs from reads (e.g. mirroring the write cache
    to the peer controller); defaults to ``io_time``."""
    bandwidth: Rate | None = None
    """Data the controllers can move, bytes/s, reads and writes together (the array's rated
    maximum throughput); null = no limit beyond ports and drives."""
    transfer_setup: Duration = 0.0
    """Time the controllers' data path spends per command besides moving its bytes (DMA
    set-up, cache-page allocation, the mirroring handshake), seconds; it counts against
    ``bandwidth``, so many small commands move fewer bytes than a few large ones."""


class CacheSpec(Spec):
    """The array cache.

    * ``read_hit``: fraction of random reads found in cache.
    * ``read_ahead``: bytes prefetched ahead of a detected sequential read stream (0 = off).
    * ``write_back``: dirty cache space in bytes (0 or null = write-through). Writes land in
      cache and are destaged through RAID; when the space is full, writes wait for a destage
      (forced flush). Each RAID pool destages its own dirty data: none at or below
      ``low_watermark``, more in parallel as the dirty level rises, all
      ``destage_concurrency`` writes from ``high_watermark`` up (CLARiiON defaults 60/80%).
    * ``write_hit``: fraction of cached writes that overwrite data still dirty in cache (no
      new room taken, no destage): a working set that lives in cache.
    * ``write_aside``: writes larger than this bypass the cache (VNX default 1 MiB).
    * ``hit_time``: time to serve a read from cache, per I/O.
    * ``write_time``: time to land a write in cache (copy and mirror to the peer
      controller), per I/O; defaults to ``hit_time``.
    """

    read_hit: Fraction = 0.0
    write_hit: Fraction = 0.0
    """Fraction of cached writes that overwrite data still dirty in cache (a working set that
    lives in cache): they take no new room and cause no destage."""
    read_ahead: IoBytes = 0
    write_back: Bytes | None = None
    write_aside: PositiveIoBytes | None = None
    low_watermark: Fraction = 0.6
    high_watermark: Fraction = 0.8
    destage_size: PositiveIoBytes = 64 * 1024
    destage_concurrency: Annotated[int, Field(ge=1)] | None = None
    """Destage writes in flight per RAID pool at full speed; null = 4 per drive of the pool
    (see :data:`sanpath.sim.components.cache.DESTAGE_PER_DRIVE`)."""
    hit_time: Duration = 0.0
    write_time: Duration | None = None

    @model_validator(mode="after")
    def _check_watermarks(self) -> CacheSpec:
        if self.low_watermark > self.high_watermark:
            raise ValueError("low_watermark must not exceed high_watermark")
        return self


RaidLevel = Literal["raid0", "raid1", "raid10", "raid5", "raid6"]


class PoolSpec(Spec):
    """A RAID pool: ``groups`` RAID groups of ``drives`` drives each, striped together.

    Consecutive stripe rows (``data drives x stripe_element`` bytes) go to consecutive
    groups, like a striped metaLUN; with ``slice`` (bytes, a multiple of a row) consecutive
    slices do instead, like a virtual pool that allocates its LUNs in slices (1 GiB on an
    EMC VNX, "EMC VNX Virtual Provisioning", h8222).
    """

    name: str
    raid: RaidLevel = "raid5"
    drives: Annotated[int, Field(ge=1)] = 5
    groups: Annotated[int, Field(ge=1)] = 1
    stripe_element: PositiveIoBytes = 64 * 1024
    slice: PositiveBytes | None = None
    drive: DriveSpec = "hdd-15k"  # type: ignore[assignment]

    @model_validator(mode="after")
    def _check_raid(self) -> PoolSpec:
        minimum = {"raid0": 1, "raid1": 2, "raid10": 4, "raid5": 3, "raid6": 4}[self.raid]
        if self.drives < minimum:
            raise ValueError(f"{self.raid} needs at least {minimum} drives per group")
        if self.raid == "raid1" and self.drives != 2:
            raise ValueError("raid1 is a mirrored pair: drives must be 2 (use raid10 for more)")
        if self.raid == "raid10" and self.drives % 2:
            raise ValueError("raid10 needs an even number of drives per group")
        row = self.data_drives * self.stripe_element
        if self.slice is not None and self.slice % row:
            raise ValueError(
                f"slice {self.slice} is not a whole number of stripe rows: expected a "
                f"multiple of data drives x stripe_element = {row} bytes"
            )
        return self

    @property
    def data_drives(self) -> int:
        """Drives holding data (not parity or mirror copies) in one group."""
        parity = {"raid0": 0, "raid5": 1, "raid6": 2}
        if self.raid in parity:
            return self.drives - parity[self.raid]
        return self.drives // 2


class LunSpec(Spec):
    """A group of ``count`` identical LUNs carved from ``pool``.

    ``size`` defaults to an equal share of the pool; ``ports`` lists the array ports the
    LUNs are presented on (all by default); ``queue_depth`` overrides the array's per-LUN
    queue limit for these LUNs; ``read_hit`` overrides the cache's read hit fraction for
    them (a working set that lives in cache, or one that never does), ``write_hit`` its write
    hit fraction.
    """

    name: str
    count: LunCount = 1
    pool: str
    size: PositiveBytes | None = None
    ports: tuple[Annotated[int, Field(ge=0)], ...] | Literal["all"] = "all"
    queue_depth: Annotated[int, Field(ge=1)] | Literal["clariion"] | None = None
    read_hit: Fraction | None = None
    write_hit: Fraction | None = None


class CrossControllerSpec(Spec):
    """I/O that reaches a LUN through a port of the controller that does not own it.

    The array has two controllers (storage processors): even-numbered ports belong to the
    first, odd-numbered to the second, and LUNs are owned alternately. A command that
    arrives on the other controller's port (an ALUA non-optimised path) is forwarded to the
    owner: it costs ``time`` more and its data crosses the link between the controllers at
    ``rate`` (bytes/s, shared by all forwarded traffic; null = unlimited).
    """

    time: Duration = 0.0
    rate: Rate | None = None


class ArraySpec(Spec):
    """The storage array: front-end ports, controller, cache, RAID pools and LUNs.

    ``port_queue_depth`` command slots are shared by every initiator logged in to a port
    (EMC: 1600 for planning, 2048 hard; NetApp 2048); a command arriving to a full port gets
    QUEUE FULL. ``lun_queue_depth`` is the per-LUN limit (an integer, ``clariion`` for
    32 + 14 x data drives, or null for none); overflow also answers QUEUE FULL. ``profile``
    starts from a named array (:data:`sanpath.spec.profiles.ARRAY_PROFILES`); the fields written
    beside it win, and its ``cache`` fields are merged with the scenario's.
    """

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, value: Any) -> Any:
        return _with_profile(value, ARRAY_PROFILES, nested=("cache",))

    profile: ArrayProfile | None = None
    name: str = "array"
    ports: ArrayPortCount = 4
    port_speed: Rate | None = 850e6
    port_queue_depth: Annotated[int, Field(ge=1)] | None = 1600
    controller: ControllerSpec = ControllerSpec()
    cache: CacheSpec = CacheSpec()
    lun_queue_depth: Annotated[int, Field(ge=1)] | Literal["clariion"] | None = None
    pools: tuple[PoolSpec, ...] = Field(min_length=1)
    luns: tuple[LunSpec, ...] = Field(min_length=1)
    cross_controller: CrossControllerSpec | None = None


class ZoneSpec(Spec):
    """One explicit zone: host port(s) that see the listed array ports.

    ``port`` is the index of the HBA port on the host, counted over every card (null = all
    ports of the host).
    """

    host: str
    port: Annotated[int, Field(ge=0)] | None = None
    array_ports: tuple[Annotated[int, Field(ge=0)], ...] = Field(min_length=1)


# --------------------------------------------------------------------------------------
# Workloads and the run
# --------------------------------------------------------------------------------------


def _block_size(value: Any) -> int:
    size = _size(value)
    if size > MAX_IO_SIZE:
        raise ValueError(
            f"{_show_bytes(size)} is too large: expected block sizes of at most "
            f"{_show_bytes(MAX_IO_SIZE)}"
        )
    return size


def _block_sizes(value: Any) -> Any:
    """Accept a size, a mapping {size: weight} or a list of [size, weight] pairs."""
    if isinstance(value, Mapping):
        pairs: Iterable[Any] = value.items()
    elif isinstance(value, list | tuple) and value and isinstance(value[0], list | tuple):
        pairs = value
    else:
        return ((_block_size(value), 1.0),)
    out = []
    for size, weight in pairs:
        if (
            isinstance(weight, bool)
            or not isinstance(weight, int | float)
            or not math.isfinite(weight)
            or weight <= 0
        ):
            raise ValueError(f"block size weight for {size!r} must be a positive number (finite)")
        out.append((_block_size(size), float(weight)))
    total = sum(w for _, w in out)
    if abs(total - 1.0) <= 1e-9:
        return tuple(out)  # already fractions: keep them exactly as written
    return tuple((s, w / total) for s, w in out)


BlockSizes = Annotated[
    tuple[tuple[PositiveIoBytes, float], ...],
    BeforeValidator(_block_sizes),
    WithJsonSchema(
        {
            "anyOf": [
                {"type": "integer", "minimum": 1},
                {"type": "string"},
                {"type": "object", "additionalProperties": {"type": "number"}},
            ],
            "description": "a size (8KiB) or a mix of sizes with weights {8KiB: 0.7, 64KiB: 0.3}",
        }
    ),
]


class CopySpec(Spec):
    """The write side of a copy job: what a workload reads is then written out.

    A database backup, a restore or a ``dd`` moves data through buffers: a read fills a
    buffer, a write to one of ``files`` sequential streams on the ``luns`` groups (files
    taken in turn, spread over the LUNs) empties it, and only then is the buffer reused.
    Each outstanding read of the workload is such a buffer's round trip, so a slow write
    side holds back the reads. ``buffers`` caps the buffers in use at once on each host
    (SQL Server ``BUFFERCOUNT``; null = one per outstanding read); a round trip waits for a
    free buffer before its read. ``depth`` caps the writes in flight per file (null = no
    cap); a full buffer waits for its file. ``ratio`` is bytes written per byte read (below 1 for
    backup compression); writes are rounded up to 512-byte sectors. ``writer_time`` is the
    time one file's writer thread spends on a full buffer before writing it out (e.g.
    compressing it; any service-time spec): a buffer holds its file's writer for that time
    and until the file has a free write slot, so the files together cap the copy at ``files /
    mean writer_time`` buffers per second (null = no such time). SQL Server runs one writer
    thread per backup device and one reader thread per database volume (Andy Yun, "SQL Server
    Backup Internals", parts 1 and 3, 2023).

    SQL Server's default BUFFERCOUNT is files x 3 + files + 2 x database files (the formula
    behind trace flag 3213's "Buffer count", as Bob Dorr (Microsoft, "How It Works: How
    does SQL Server Backup and Restore select transfer sizes", 2008) and Jonathan Kehayias
    (SQLskills, "A look at backup internals", 2010) show it).
    """

    luns: tuple[str, ...] = Field(min_length=1)
    files: Annotated[int, Field(ge=1)] = 1
    buffers: Annotated[int, Field(ge=1)] | None = None
    depth: Annotated[int, Field(ge=1)] | None = None
    ratio: Annotated[float, Field(gt=0.0, le=1.0)] = 1.0
    writer_time: ServiceTime | None = None


class WorkloadSpec(Spec):
    """An I/O load: closed loop (``outstanding``) or open loop (``rate``).

    Closed loop: each of ``threads`` threads keeps ``outstanding`` I/Os in flight per LUN, as
    sqlio ``-t -o`` or fio ``numjobs``/``iodepth`` do. Open loop: Poisson arrivals at ``rate``
    I/Os per second per host, spread evenly over the LUNs. ``copy_to`` turns a closed-loop
    reader into a copy job that writes everything it reads (see :class:`CopySpec`).
    """

    name: str = "load"
    hosts: tuple[str, ...] | Literal["all"] = "all"
    luns: tuple[str, ...] | Literal["all"] = "all"
    threads: Annotated[int, Field(ge=1)] = 1
    outstanding: Annotated[int, Field(ge=1)] | None = None
    rate: Annotated[float, Field(gt=0)] | None = None
    block_size: BlockSizes = ((8192, 1.0),)
    read_fraction: Fraction = 1.0
    pattern: Literal["random", "sequential"] = "random"
    span: Annotated[float, Field(gt=0.0, le=1.0)] = 1.0
    copy_to: CopySpec | None = None

    @model_validator(mode="after")
    def _check_loop(self) -> WorkloadSpec:
        if self.rate is not None and self.outstanding is not None:
            raise ValueError("give outstanding (closed loop) or rate (open loop), not both")
        if self.copy_to is not None and self.rate is not None:
            raise ValueError("copy_to needs a closed loop (outstanding), not a rate")
        if self.copy_to is not None and self.read_fraction != 1.0:
            raise ValueError("copy_to copies what the workload reads: read_fraction must be 1")
        return self

    @property
    def closed(self) -> bool:
        """True for a closed loop (fixed outstanding I/Os)."""
        return self.rate is None

    @property
    def outstanding_per_lun(self) -> int:
        """Outstanding I/Os per thread per LUN (1 when not given)."""
        return 1 if self.outstanding is None else self.outstanding

    @property
    def mean_block_size(self) -> float:
        """Mean I/O size in bytes."""
        return sum(size * weight for size, weight in self.block_size)


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
    duration: Annotated[float, BeforeValidator(_duration), Field(gt=0), _DURATION_SCHEMA] | None = (
        None
    )
    record_interval: (
        Annotated[float, BeforeValidator(_duration), Field(gt=0), _DURATION_SCHEMA] | None
    ) = None

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


class ChangeSpec(Spec):
    """One scheduled change: at simulated time ``at``, set dotted keys to new values."""

    at: Duration
    set: dict[str, Any] = Field(min_length=1)


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
    ``role`` says whether the point was used to calibrate the model (``fitted``) or is a
    prediction checked against it (``predicted``); ``tolerance`` is the accepted relative
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
    role: Literal["fitted", "predicted"] = "predicted"
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


class Scenario(Spec):
    """A whole SAN set-up and its load; see ``docs/scenario.md`` for every field."""

    name: str
    description: str = ""
    seed: Annotated[int, Field(ge=0)] = 1
    run: RunSpec = RunSpec()
    hosts: tuple[HostSpec, ...] = Field(min_length=1)
    fabric: FabricSpec = FabricSpec()
    array: ArraySpec
    zoning: Literal["all-to-all", "one-to-one"] | tuple[ZoneSpec, ...] = "all-to-all"
    workloads: tuple[WorkloadSpec, ...] = Field(min_length=1)
    schedule: tuple[ChangeSpec, ...] = ()
    sweep: SweepSpec | None = None
    reference: ReferenceSpec | None = None

    def to_data(self) -> dict[str, Any]:
        """Plain nested dicts and lists (SI units) that validate back into this scenario."""
        plain: dict[str, Any] = _plain(self.model_dump())
        return plain

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """Return a new scenario with dotted keys replaced, validated again.

        Keys follow the spec tree, with list indices and ``*`` for every element:
        ``hosts.0.hbas.0.queue_depth``, ``hosts.*.hbas.*.queue_depth``, ``run.ios``.
        Values may be unit strings (``16KiB``).
        """
        data = self.to_data()
        _replace_run_length(data, overrides)
        for key, value in overrides.items():
            try:
                set_dotted(data, key, value)
            except KeyError as exc:
                raise ScenarioError(
                    [Problem("<overrides>", None, None, key, str(exc.args[0]))]
                ) from None
        return validate_scenario(data, source="<overrides>")


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


# --------------------------------------------------------------------------------------
# Errors with locations
# --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario, located in its file."""

    source: str
    line: int | None
    column: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        path = f" {self.path}:" if self.path else ""
        return f"{where}:{path} {self.message}"


class ScenarioError(ValueError):
    """A scenario that cannot be used; ``problems`` says where and why."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: str, message: str, source: str = "<scenario>") -> ScenarioError:
        """A single problem at a field path."""
        return cls([Problem(source, None, None, path, message)])

    def in_file(self, file: str) -> ScenarioError:
        """The same problems, those about ``<scenario>`` located in YAML ``file`` instead."""
        problems = []
        for p in self.problems:
            if p.source == "<scenario>":
                line, column = locate_field(file, p.path) if p.line is None else (p.line, p.column)
                p = Problem(file, line, column, p.path, p.message)
            problems.append(p)
        return ScenarioError(problems)


def _locate(data: Any, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
    """Line and column (1-based) of the deepest key of ``loc`` present in ruamel data."""
    line: int | None = None
    column: int | None = None
    node = data
    for part in loc:
        lc = getattr(node, "lc", None)
        try:
            if isinstance(part, int) and isinstance(node, list):
                if lc is not None:
                    line, column = lc.item(part)
                node = node[part]
            elif isinstance(node, Mapping) and part in node:
                if lc is not None:
                    line, column = (
                        lc.value(part)
                        if not isinstance(node[part], Mapping | list)
                        else lc.key(part)
                    )
                node = node[part]
            else:
                break
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    if line is None:
        return None, None
    return line + 1, (column or 0) + 1


def _format_loc(loc: Sequence[str | int]) -> str:
    return ".".join(str(p) for p in loc)


def _clean_loc(loc: Sequence[str | int]) -> list[str | int]:
    """Drop pydantic's union/function tags from an error location."""
    out: list[str | int] = []
    for part in loc:
        if isinstance(part, str) and (
            part.startswith("function-")
            or part in {"hdd", "ssd", "textbook"}
            or part.startswith("tuple[")
            or part.startswith("literal[")
            or part == "int"
            or part.startswith("constrained-")
        ):
            continue
        out.append(part)
    return out


def _describe(err: Mapping[str, Any]) -> str:
    msg = str(err["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err["type"] == "extra_forbidden":
        return "unknown key (check the spelling; see `sanpath schema`)"
    if err["type"] == "missing":
        return "required field is missing"
    value = err.get("input")
    if err["type"] not in {"missing"} and not isinstance(value, Mapping | list):
        return f"{msg} (got {value!r})"
    return msg


def validate_scenario(data: Any, source: str = "<dict>") -> Scenario:
    """Validate a mapping (from YAML or built in Python) into a :class:`Scenario`.

    Raises
    ------
    ScenarioError
        Listing every problem with its ``file:line:col field.path``.
    """
    if not isinstance(data, Mapping):
        raise ScenarioError([Problem(source, None, None, "", "a scenario must be a mapping")])
    try:
        scenario = Scenario.model_validate(data)
    except ValidationError as exc:
        problems = []
        seen: set[tuple[str, str]] = set()
        errors = exc.errors()
        locs = [tuple(_clean_loc(err["loc"])) for err in errors]
        for err in errors:
            loc = _clean_loc(err["loc"])
            if err["type"] == "too_short" and any(
                len(other) > len(loc) and other[: len(loc)] == tuple(loc) for other in locs
            ):
                continue  # a list emptied by its own invalid items: the items say why
            path = _format_loc(loc)
            message = _describe(err)
            if (path, message) in seen:
                continue
            seen.add((path, message))
            line, column = _locate(data, loc)
            problems.append(Problem(source, line, column, path, message))
        raise ScenarioError(problems) from None
    problems = [
        Problem(source, *_locate(data, loc), _format_loc(loc), message)
        for loc, message in _check_references(scenario)
    ]
    if problems:
        raise ScenarioError(problems)
    return scenario


def _check_references(s: Scenario) -> list[tuple[list[str | int], str]]:
    """Cross-section checks: names that must exist, indices in range, unique names."""
    found: list[tuple[list[str | int], str]] = []

    def unique(names: list[str], section: str) -> None:
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name in seen:
                found.append(([*section.split("."), i, "name"], f"duplicate name {name!r}"))
            seen.add(name)

    unique([h.name for h in s.hosts], "hosts")
    unique([p.name for p in s.array.pools], "array.pools")
    unique([lun.name for lun in s.array.luns], "array.luns")
    unique([w.name for w in s.workloads], "workloads")
    pools = {p.name for p in s.array.pools}
    host_names = {h.name: h for h in s.hosts}
    lun_names = {lun.name for lun in s.array.luns}
    for i, lun in enumerate(s.array.luns):
        if lun.pool not in pools:
            found.append(
                (
                    ["array", "luns", i, "pool"],
                    f"no pool named {lun.pool!r} (pools: {', '.join(sorted(pools))})",
                )
            )
        if lun.ports != "all":
            for j, port in enumerate(lun.ports):
                if port >= s.array.ports:
                    found.append(
                        (
                            ["array", "luns", i, "ports", j],
                            f"array port {port} does not exist (array.ports is {s.array.ports}; "
                            "ports are numbered from 0)",
                        )
                    )
    if not isinstance(s.zoning, str):
        for i, zone in enumerate(s.zoning):
            if zone.host not in host_names:
                found.append((["zoning", i, "host"], f"no host named {zone.host!r}"))
            elif zone.port is not None and zone.port >= host_names[zone.host].ports_per_host:
                found.append(
                    (
                        ["zoning", i, "port"],
                        f"host {zone.host!r} has {host_names[zone.host].ports_per_host} HBA "
                        "port(s), numbered from 0",
                    )
                )
            for j, port in enumerate(zone.array_ports):
                if port >= s.array.ports:
                    found.append(
                        (
                            ["zoning", i, "array_ports", j],
                            f"array port {port} does not exist (array.ports is {s.array.ports})",
                        )
                    )
    for i, w in enumerate(s.workloads):
        if w.hosts != "all":
            for j, name in enumerate(w.hosts):
                if name not in host_names:
                    found.append(
                        (
                            ["workloads", i, "hosts", j],
                            f"no host named {name!r} (hosts: {', '.join(sorted(host_names))})",
                        )
                    )
        named: list[tuple[list[str | int], str]] = (
            []
            if w.luns == "all"
            else [(["workloads", i, "luns", j], n) for j, n in enumerate(w.luns)]
        )
        if w.copy_to is not None:
            named += [
                (["workloads", i, "copy_to", "luns", j], n) for j, n in enumerate(w.copy_to.luns)
            ]
        for path, name in named:
            if name not in lun_names:
                found.append(
                    (path, f"no LUN group named {name!r} (LUNs: {', '.join(sorted(lun_names))})")
                )
    if not found:
        found.extend(_check_capacity(s))
        found.extend(_check_paths(s))
    return found


def pool_capacity(pool: PoolSpec) -> int:
    """Usable bytes of a pool: whole stripe rows (whole slices with ``slice``) of every group."""
    rows = pool.drive.capacity // pool.stripe_element  # stripe rows per group
    row_bytes = pool.data_drives * pool.stripe_element
    if pool.slice is not None:
        slice_rows = pool.slice // row_bytes
        rows = rows // slice_rows * slice_rows
    return rows * row_bytes * pool.groups


def lun_sizes(s: Scenario) -> list[int]:
    """Size in bytes of one LUN of each LUN group (default: an equal share of its pool)."""
    pools = {p.name: p for p in s.array.pools}
    per_pool = {
        p.name: sum(g.count for g in s.array.luns if g.pool == p.name) for p in s.array.pools
    }
    sizes = []
    for group in s.array.luns:
        pool = pools[group.pool]
        if group.size is not None:
            sizes.append(group.size)
            continue
        row = pool.data_drives * pool.stripe_element
        share = pool_capacity(pool) // per_pool[group.pool]
        sizes.append(max(share - share % row, row))
    return sizes


def _check_capacity(s: Scenario) -> list[tuple[list[str | int], str]]:
    found: list[tuple[list[str | int], str]] = []
    for i, pool in enumerate(s.array.pools):
        if pool_capacity(pool) > MAX_CAPACITY:
            found.append(
                (
                    ["array", "pools", i, "groups"],
                    f"pool {pool.name!r} would hold {_show_bytes(pool_capacity(pool))}: expected "
                    f"at most {_show_bytes(MAX_CAPACITY)} (fewer groups, drives or smaller drives)",
                )
            )
    if found:
        return found
    used: dict[str, int] = {}
    pools = {p.name: p for p in s.array.pools}
    for i, (group, size) in enumerate(zip(s.array.luns, lun_sizes(s), strict=True)):
        used[group.pool] = used.get(group.pool, 0) + size * group.count
        capacity = pool_capacity(pools[group.pool])
        if used[group.pool] > capacity:
            found.append(
                (
                    ["array", "luns", i, "size"],
                    f"the LUNs of pool {group.pool!r} need {used[group.pool] / 1e9:.1f} GB but it "
                    f"holds {capacity / 1e9:.1f} GB",
                )
            )
    return found


def visible_ports(s: Scenario, host: HostSpec) -> list[list[int]]:
    """Array ports each HBA port of ``host`` sees through the zoning."""
    n_array = s.array.ports
    n_ports = host.ports_per_host
    if s.zoning == "all-to-all":
        return [list(range(n_array)) for _ in range(n_ports)]
    if s.zoning == "one-to-one":
        return [[p % n_array] for p in range(n_ports)]
    visible: list[list[int]] = [[] for _ in range(n_ports)]
    for zone in s.zoning:
        if zone.host != host.name:
            continue
        for p in range(n_ports) if zone.port is None else [zone.port]:
            for a in zone.array_ports:
                if a not in visible[p]:
                    visible[p].append(a)
    return visible


def lun_groups_used(s: Scenario, host: str) -> list[str]:
    """LUN groups any workload of host group ``host`` touches, in scenario order."""
    wanted: set[str] = set()
    for w in s.workloads:
        if w.hosts == "all" or host in w.hosts:
            wanted.update(g.name for g in s.array.luns) if w.luns == "all" else wanted.update(
                w.luns
            )
            if w.copy_to is not None:
                wanted.update(w.copy_to.luns)
    return [g.name for g in s.array.luns if g.name in wanted]


def _check_paths(s: Scenario) -> list[tuple[list[str | int], str]]:
    found: list[tuple[list[str | int], str]] = []
    groups = {g.name: (i, g) for i, g in enumerate(s.array.luns)}
    for host in s.hosts:
        seen = {a for ports in visible_ports(s, host) for a in ports}
        for name in lun_groups_used(s, host.name):
            i, group = groups[name]
            presented = set(range(s.array.ports)) if group.ports == "all" else set(group.ports)
            if not seen & presented:
                found.append(
                    (
                        ["zoning"]
                        if not isinstance(s.zoning, str) or not seen
                        else ["array", "luns", i, "ports"],
                        f"host {host.name!r} has no path to LUN group {name!r}: its HBA ports "
                        f"see array ports {sorted(seen)}, the LUNs are on {sorted(presented)}",
                    )
                )
    return found


# --------------------------------------------------------------------------------------
# Loading files and overrides
# --------------------------------------------------------------------------------------


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.version = (1, 2)
    return yaml


def read_yaml(path: str | Path) -> Any:
    """Read a YAML 1.2 file keeping line/column information; raise ScenarioError on failure."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    source = str(path)
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError([Problem(source, None, None, "", "file not found")]) from None
    except IsADirectoryError:
        raise ScenarioError(
            [Problem(source, None, None, "", "is a directory, expected a YAML file")]
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([Problem(source, None, None, "", f"cannot read: {exc}")]) from None
    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        what = exc.problem or exc.context or "cannot parse"
        raise ScenarioError(
            [Problem(source, line, col, "", f"YAML does not parse: {what}")]
        ) from None
    except YAMLError as exc:
        raise ScenarioError(
            [Problem(source, None, None, "", f"YAML does not parse: {exc}")]
        ) from None


def locate_field(source: str | Path, path: str) -> tuple[int | None, int | None]:
    """Line and column (1-based) of dotted ``path`` in the YAML file ``source``, if found."""
    if not str(source).endswith((".yaml", ".yml")) or not Path(source).is_file():
        return None, None
    try:
        data = read_yaml(source)
    except ScenarioError:
        return None, None
    return _locate(data, [int(p) if p.isdigit() else p for p in path.split(".")])


def load_scenario(
    source: str | Path | Mapping[str, Any] | Scenario,
    overrides: Mapping[str, Any] | None = None,
) -> Scenario:
    """Load and validate a scenario from a YAML file, a dict or an existing Scenario.

    Parameters
    ----------
    source
        Path of a YAML file, a mapping with the same structure, or a Scenario.
    overrides
        Dotted keys to replace before validation, e.g. ``{"hosts.0.hbas.0.queue_depth": 16}``.

    Raises
    ------
    ScenarioError
        With every problem located as ``file:line:col field.path: message``.
    """
    if isinstance(source, Scenario):
        return source.with_overrides(overrides) if overrides else source
    if isinstance(source, Mapping):
        data: Any = copy.deepcopy(dict(source))
        name = "<dict>"
    else:
        data = read_yaml(source)
        name = str(source)
    if data is None:
        raise ScenarioError([Problem(name, None, None, "", "the file is empty")])
    _replace_run_length(data, overrides or {})
    for key, value in (overrides or {}).items():
        try:
            set_dotted(data, key, value)
        except KeyError as exc:
            raise ScenarioError([Problem(name, None, None, key, str(exc.args[0]))]) from None
    return validate_scenario(data, source=name)


RUN_LENGTH = ("ios", "duration", "precision")
"""The run-length keys, one at a time (see :class:`RunSpec`)."""


def _replace_run_length(data: Any, overrides: Mapping[str, Any]) -> None:
    """An override that sets one run-length key replaces the length the file gives.

    ``--set run.duration=30s`` on a scenario written with ``run.ios`` means "run for 30 s",
    so the file's ``ios`` (and ``precision``) are cleared, unless an override sets them too
    (then validation says they conflict). A file that sets two of them is an error.
    """
    given = {
        key.split(".")[1]
        for key, value in overrides.items()
        if key.startswith("run.") and key.count(".") >= 1 and value is not None
    } & set(RUN_LENGTH)
    run = data.get("run") if isinstance(data, dict) else None
    if not given or not isinstance(run, dict):
        return
    for key in RUN_LENGTH:
        if key not in given and not any(k.startswith(f"run.{key}") for k in overrides):
            run.pop(key, None)


def set_dotted(data: Any, key: str, value: Any) -> None:
    """Set ``value`` at dotted ``key`` inside nested dicts/lists (``*`` = every element).

    Raises
    ------
    KeyError
        When a list index or list part of the path does not exist (new keys and sections
        in a mapping are allowed; validation rejects the unknown ones).
    """
    parts = key.split(".")

    def walk(node: Any, i: int) -> None:
        part = parts[i]
        last = i == len(parts) - 1
        if isinstance(node, tuple):
            raise KeyError(f"{'.'.join(parts[:i])} cannot be changed in place")
        if isinstance(node, list):
            if part == "*":
                indices: Iterable[int] = range(len(node))
            else:
                try:
                    index = int(part)
                except ValueError:
                    raise KeyError(f"{'.'.join(parts[: i + 1])}: expected a list index") from None
                if not -len(node) <= index < len(node):
                    raise KeyError(
                        f"{'.'.join(parts[: i + 1])}: index {index} out of range "
                        f"(the list has {len(node)} items)"
                    )
                indices = [index]
            for idx in indices:
                if last:
                    node[idx] = copy.deepcopy(value)
                else:
                    walk(node[idx], i + 1)
        elif isinstance(node, dict):
            if part == "*":
                keys: Iterable[Any] = list(node)
            else:
                keys = [part]
            for k in keys:
                if last:
                    node[k] = copy.deepcopy(value)
                elif k not in node or node[k] is None:
                    # A section left at its defaults may be absent: start it empty and let
                    # validation reject unknown keys. A list cannot be started this way.
                    if k not in node and (
                        parts[i + 1] == "*" or parts[i + 1].lstrip("-").isdigit()
                    ):
                        raise KeyError(f"{'.'.join(parts[: i + 1])}: no such key")
                    node[k] = {}
                    walk(node[k], i + 1)
                else:
                    walk(node[k], i + 1)
        else:
            raise KeyError(f"{'.'.join(parts[:i])} is a value, not a section")

    walk(data, 0)


def parse_assignment(text: str) -> tuple[str, Any]:
    """Split a command-line ``dotted.key=value`` and read the value as a YAML scalar."""
    if "=" not in text:
        raise ValueError(f"expected dotted.key=value, got {text!r}")
    key, _, raw = text.partition("=")
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe").load(raw) if raw.strip() else None
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or "not a YAML value"
        raise ValueError(f"{key.strip()}: cannot read {raw!r}: {problem}") from None
    return key.strip(), value


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (for editors and documentation)."""
    schema = Scenario.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "sanpath scenario"
    return schema


def lun_queue_limit(array: ArraySpec, lun: LunSpec, pool: PoolSpec) -> int | None:
    """The array's per-LUN queue limit for one LUN (None = unlimited).

    ``clariion`` is the CLARiiON/VNX rule, 32 + 14 x data drives, counting the data drives of
    every RAID group the LUN is striped across.
    """
    setting = lun.queue_depth if lun.queue_depth is not None else array.lun_queue_depth
    if setting == "clariion":
        return 32 + 14 * pool.data_drives * pool.groups
    return setting


def expand_names(name: str, count: int) -> list[str]:
    """Instance names for ``count`` identical items: ``db`` or ``db[0]``, ``db[1]``, ..."""
    if count == 1:
        return [name]
    width = int(math.log10(count - 1)) + 1 if count > 1 else 1
    return [f"{name}[{i:0{width}d}]" for i in range(count)]
