"""Field types of every scenario section: units, bounds, the ``Spec`` base, distributions.

Sizes, rates and times are parsed from unit strings (``8KiB``, ``4GFC``, ``5ms``) into SI base
units: bytes (int), bytes per second (float) and seconds (float). Bounds refuse what no
physical SAN exceeds. Every section derives from :class:`Spec`, which refuses unknown keys,
infinities and booleans where a number belongs. A service time (:data:`ServiceTime`) is a
duration or a :class:`DistSpec` distribution.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Annotated, Any, Final, Literal, get_args, get_origin

from pydantic import (
    AfterValidator,
    BaseModel,
    BeforeValidator,
    ConfigDict,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from sanpath import units

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
DURATION_SCHEMA = WithJsonSchema(
    {
        "anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}],
        "description": "a duration: seconds, or a string such as 5ms, 20us, 120s",
    }
)


def as_size(value: Any) -> int:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return units.parse_bytes(value)
    raise ValueError(f"expected a size such as 8KiB or 1MiB, got {value!r}")


def _rate(value: Any) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return units.parse_rate(value)
    raise ValueError(f"expected a rate such as 200MB/s or 4GFC, got {value!r}")


def as_duration(value: Any) -> float:
    if isinstance(value, int | float | str) and not isinstance(value, bool):
        return units.parse_duration(value)
    raise ValueError(f"expected a duration such as 5ms or 20us, got {value!r}")


def show_bytes(n: int) -> str:
    return units.format_bytes(n) if n >= 1024 and n % 1024 == 0 else f"{n:,} bytes"


_CAPACITY_LIMIT = _at_most(MAX_CAPACITY, "for a capacity", show_bytes)
_IO_SIZE_LIMIT = _at_most(
    MAX_IO_SIZE, "for an I/O, transfer, stripe or cache-page size", show_bytes
)

Bytes = Annotated[int, BeforeValidator(as_size), Field(ge=0), _CAPACITY_LIMIT, _SIZE_SCHEMA]
"""A capacity in bytes (at most :data:`MAX_CAPACITY`); accepts unit strings."""
PositiveBytes = Annotated[int, BeforeValidator(as_size), Field(gt=0), _CAPACITY_LIMIT, _SIZE_SCHEMA]
IoBytes = Annotated[int, BeforeValidator(as_size), Field(ge=0), _IO_SIZE_LIMIT, _IO_SIZE_SCHEMA]
"""An I/O, transfer or stripe size in bytes (at most :data:`MAX_IO_SIZE`)."""
PositiveIoBytes = Annotated[
    int, BeforeValidator(as_size), Field(gt=0), _IO_SIZE_LIMIT, _IO_SIZE_SCHEMA
]
Rate = Annotated[float, BeforeValidator(_rate), Field(gt=0), _RATE_SCHEMA]
"""A rate in bytes per second; accepts unit strings and named link speeds."""
Duration = Annotated[float, BeforeValidator(as_duration), Field(ge=0), DURATION_SCHEMA]
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


def refuse_bools(cls: type[BaseModel], value: Any, info: ValidationInfo) -> Any:
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

    _no_bools = field_validator("*", mode="before")(refuse_bools)


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


class AlsoAccepts:
    """JSON Schema of a field that takes shorthand forms besides its model: ``anyOf``."""

    def __init__(self, *forms: dict[str, Any]) -> None:
        self.forms = forms

    def __get_pydantic_json_schema__(self, core_schema: Any, handler: Any) -> dict[str, Any]:
        return {"anyOf": [*self.forms, handler(core_schema)]}


ServiceTime = Annotated[
    DistSpec,
    BeforeValidator(_service_time),
    AlsoAccepts(
        {
            "anyOf": [{"type": "number", "minimum": 0}, {"type": "string"}],
            "description": "a constant service time: seconds, or a string such as 20us",
        }
    ),
]
"""A duration (constant service) or a distribution mapping."""
