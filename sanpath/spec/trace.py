"""A workload that replays a block trace: ``workloads.N.trace``.

The trace file's records give every I/O's arrival time, device, offset, size and direction;
the workload's ``luns`` (and ``map``) say where they land. Two ways to replay it:

* **open loop** (no ``outstanding``): each record arrives at its recorded time divided by
  ``speed`` (2.0 = the same I/Os twice as fast), whatever the path does with the earlier
  ones. The workload's ``rate`` is then required: the analytic twin, ``sanpath check`` and the
  run budget read the load from it (I/Os per second per host, at this ``speed``; ``sanpath
  import`` writes it), while the simulator replays the records' own times;
* **closed loop** (``outstanding`` given): ``threads x outstanding`` I/Os per LUN the workload
  covers are kept in flight per host, the records taken in trace order; times are not used.

Every host the workload names replays the whole trace. Records land by device: ``map``
(device name as the trace spells it: ``8,16``, ``hm_0``, a volume id, a file name) to a LUN
group of the workload or one LUN of it (``data[2]``); records of devices not in ``map`` are
left out. Without ``map`` every record lands on the workload's LUNs. A LUN group of several
LUNs (and a workload of several groups) is one address space, its LUNs end to end; offsets
beyond its end wrap around (the run counts them).

``start`` and ``end`` (seconds from the trace's first record) replay a span of it; ``loop``
replays it again and again (each pass starting where the previous one's last record arrived
plus one mean gap). ``columns``, ``time_unit``, ``offset_unit`` and ``size_unit`` describe a
``csv`` trace; ``offset_unit`` also sets the block size of an ``spc`` trace (512 bytes by
default).

A relative ``file`` is read from the scenario file's folder (from the working directory for
a scenario given as a dict). The file is checked when the scenario loads (its first lines:
a trace that does not read is a located error naming its line and column); the rest is read
while the run streams it.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import (
    BeforeValidator,
    Field,
    ValidationInfo,
    WithJsonSchema,
    field_validator,
    model_validator,
)

from sanpath.spec.fields import Duration, PositiveIoBytes, Spec
from sanpath.traces import FORMATS, TraceError, Window, check

TraceFormat = Literal["fio-iolog", "blkparse", "msr", "spc", "alibaba", "tencent", "csv"]

TIME_UNITS = {"s": 1.0, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "100ns": 1e-7}
"""``time_unit`` of a ``csv`` trace: seconds per unit."""

ROLES = ("time", "offset", "size", "op", "device", "latency")
"""Column roles of a ``csv`` trace."""


def _pairs(value: Any) -> Any:
    """A mapping (or list of pairs) as a tuple of (str, str) pairs; keys as strings."""
    if value is None:
        return None
    if isinstance(value, Mapping):
        items: Any = value.items()
    elif isinstance(value, list | tuple) and all(
        isinstance(p, list | tuple) and len(p) == 2 for p in value
    ):
        items = value
    else:
        raise ValueError(f"expected a mapping such as {{sdb: data}}, got {value!r}")
    out = []
    for key, target in items:
        if isinstance(key, bool) or not isinstance(key, str | int):
            raise ValueError(f"key {key!r}: expected a name or a number")
        if not isinstance(target, str) or not target.strip():
            raise ValueError(f"{key}: expected a name, got {target!r}")
        out.append((str(key), target.strip()))
    return tuple(out)


Pairs = Annotated[
    tuple[tuple[str, str], ...],
    BeforeValidator(_pairs),
    WithJsonSchema({"type": "object", "additionalProperties": {"type": "string"}}),
]


class TraceSpec(Spec):
    """A block trace replayed by a workload (see the module docstring)."""

    file: str
    """The trace file (``.gz`` read as it streams); relative to the scenario file."""
    format: TraceFormat
    speed: Annotated[float, Field(gt=0.0, le=1e6)] = 1.0
    """Open loop: arrival times divided by this (2.0 = twice as fast)."""
    map: Pairs | None = None
    """Device name in the trace -> LUN group (or one LUN, ``name[i]``) of the workload."""
    start: Duration = 0.0
    """Replay from this many seconds after the trace's first record."""
    end: Duration | None = None
    """Replay up to this many seconds after the trace's first record (null: to its end)."""
    loop: bool = False
    """Replay the trace again and again (the run length then comes from ``run``)."""
    columns: Pairs | None = None
    """``csv``: role (time, offset, size, op, device, latency) -> column name."""
    time_unit: Literal["s", "ms", "us", "ns", "100ns"] | None = None
    """``csv``: unit of the time (and latency) column (default s)."""
    offset_unit: PositiveIoBytes | None = None
    """``csv``: bytes per unit of the offset column (default 1); ``spc``: block size (512)."""
    size_unit: PositiveIoBytes | None = None
    """``csv``: bytes per unit of the size column (default 1)."""

    @field_validator("file")
    @classmethod
    def _resolve(cls, value: str, info: ValidationInfo) -> str:
        context = info.context if isinstance(info.context, Mapping) else {}
        base = context.get("base")
        path = Path(value).expanduser()
        if not path.is_absolute():
            path = (Path(base) if base is not None else Path.cwd()) / path
        path = path.resolve()
        if not path.is_file():
            what = (
                "is a directory"
                if path.is_dir()
                else "is not a regular file (a pipe or a device)"
                if path.exists()
                else "file not found"
            )
            raise ValueError(
                f"{what}: {path} (a relative path is read from the scenario file's folder)"
            )
        return str(path)

    @model_validator(mode="after")
    def _check(self) -> TraceSpec:
        if self.format != "csv":
            given = [k for k in ("columns", "time_unit", "size_unit") if getattr(self, k)]
            if self.offset_unit is not None and self.format != "spc":
                given.append("offset_unit")
            if given:
                raise ValueError(
                    f"{', '.join(given)}: only for a csv trace (an spc trace takes offset_unit); "
                    f"the units of {self.format} are fixed by the tool that writes it"
                )
        if self.columns is not None:
            unknown = [role for role, _ in self.columns if role not in ROLES]
            if unknown:
                raise ValueError(
                    f"columns: unknown role {', '.join(unknown)}: expected {', '.join(ROLES)}"
                )
        if self.end is not None and self.end <= self.start:
            raise ValueError(f"end ({self.end:g} s) must be after start ({self.start:g} s)")
        try:
            check(self.file, self.format, self.window())
        except TraceError as exc:
            raise ValueError(str(exc)) from None
        return self

    def window(self) -> Window:
        """The records replayed and the units of the file (for the trace readers)."""
        devices = None if self.map is None else frozenset(device for device, _ in self.map)
        return Window(
            start=self.start,
            end=self.end,
            devices=devices,
            time_unit=None if self.time_unit is None else TIME_UNITS[self.time_unit],
            offset_unit=self.offset_unit,
            size_unit=self.size_unit,
            columns=self.columns or (),
        )

    @property
    def targets(self) -> dict[str, str]:
        """``map`` as a dict (empty without one)."""
        return dict(self.map or ())


assert TraceFormat.__args__ == FORMATS  # type: ignore[attr-defined]


def trace_problems(i: int, s: Any) -> list[tuple[list[str | int], str]]:
    """Checks of workload ``i``'s trace against scenario ``s``: ``map`` names LUNs of the
    workload, an open-loop replay gives its ``rate`` and has times to replay, and no schedule
    changes that rate (the records' times set the load)."""
    w = s.workloads[i]
    trace: TraceSpec | None = w.trace
    if trace is None:
        return []
    groups = {g.name: g.count for g in s.array.luns}
    found: list[tuple[list[str | int], str]] = []
    mine = list(groups) if w.luns == "all" else list(w.luns)
    for device, target in trace.map or ():
        group, _, rest = target.partition("[")
        index = rest[:-1] if rest.endswith("]") else None
        if group not in mine:
            found.append(
                (
                    ["workloads", i, "trace", "map", device],
                    f"{target!r} is not a LUN group of this workload (its LUN groups: "
                    f"{', '.join(mine)}; or one LUN of them, e.g. {mine[0]}[0])",
                )
            )
        elif rest and (index is None or not index.isdigit() or int(index) >= groups.get(group, 0)):
            found.append(
                (
                    ["workloads", i, "trace", "map", device],
                    f"{target!r}: LUN group {group} has {groups.get(group, 0)} LUN(s), "
                    f"numbered {group}[0] to {group}[{groups.get(group, 1) - 1}]",
                )
            )
    if w.outstanding is None:
        if trace.format == "fio-iolog" and _iolog_version(trace.file) == 2:
            found.append(
                (
                    ["workloads", i, "trace", "format"],
                    "a fio version 2 iolog records no arrival times (fio replays it as fast as "
                    "iodepth allows): give the workload outstanding (a closed-loop replay)",
                )
            )
        elif w.rate is None:
            found.append((["workloads", i, "rate"], _rate_needed(trace)))
        for j, change in enumerate(s.schedule):
            for key in change.set:
                if key in (f"workloads.{i}.rate", "workloads.*.rate"):
                    found.append(
                        (
                            ["schedule", j, "set", key],
                            f"workload {i} replays a trace open loop: its records' times set "
                            "the load, a scheduled rate would not change it (change "
                            "trace.speed between runs instead)",
                        )
                    )
    return found


def _iolog_version(path: str) -> int | None:
    """2 or 3 for a fio iolog (its first line), else None."""
    from sanpath.traces import open_text, version_of

    try:
        with open_text(path) as handle:
            return version_of(handle.readline())
    except (OSError, UnicodeDecodeError, EOFError):
        return None


def _rate_needed(trace: TraceSpec) -> str:
    """Why an open-loop trace needs ``rate``, with the trace's own mean rate when cheap."""
    text = (
        "an open-loop trace replay needs rate (I/Os per second per host at this speed): the "
        "analytic twin, sanpath check and the run budget read the load from it, while the "
        "simulator replays the records' own times (sanpath import writes it); or give "
        "outstanding for a closed-loop replay"
    )
    if Path(trace.file).stat().st_size > 64 * 1024 * 1024:
        return text
    from sanpath.traces import summarize

    try:
        summary = summarize(trace.file, trace.format, trace.window())
    except TraceError:
        return text
    if summary.iops != summary.iops:  # NaN: the records have no time span
        return text + "; this trace records no arrival times"
    return text + (
        f"; this trace's mean rate is {summary.iops * trace.speed:.6g} I/O per s "
        f"({summary.records:,} records over {summary.duration:.6g} s"
        + (f", times speed {trace.speed:g}" if trace.speed != 1.0 else "")
        + ")"
    )
