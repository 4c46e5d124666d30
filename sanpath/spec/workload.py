"""Workload specs: the I/O load (closed or open loop, sizes, mix), copy jobs and schedules."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from typing import Annotated, Any, Literal

from pydantic import BeforeValidator, Field, WithJsonSchema, model_validator

from sanpath.spec.access import AccessSpec
from sanpath.spec.fields import (
    MAX_IO_SIZE,
    Duration,
    Fraction,
    PositiveIoBytes,
    ServiceTime,
    Spec,
)
from sanpath.spec.fields import as_size as _size
from sanpath.spec.fields import show_bytes as _show_bytes
from sanpath.spec.trace import TraceSpec


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
    sqlio ``-t -o`` or fio ``numjobs``/``iodepth`` do; with ``think_time`` each of those slots
    waits that long (seconds, any service-time spec) after an I/O completes before it issues
    the next (fio ``thinktime``). Open loop: Poisson arrivals at ``rate`` I/Os per second per
    host, spread evenly over the LUNs. ``copy_to`` turns a closed-loop reader into a copy job
    that writes everything it reads (see :class:`CopySpec`).

    Sizes: ``block_size`` for every I/O, or ``read_block_size`` / ``write_block_size`` for the
    I/Os of one direction (fio's ``bs=read,write`` and per-direction ``bssplit``).

    Offsets: ``pattern`` says where an I/O starts, ``random`` (aligned to its size, drawn from
    ``access`` over the span) or ``sequential`` (where the previous one of the same thread
    ended). ``random_fraction`` (fio ``percentage_random``), when given, decides instead: each
    I/O is random with that probability and otherwise continues from the end of the previous
    one; ``pattern`` only sets its default (``random`` = 1, ``sequential`` = 0).
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
    read_block_size: BlockSizes | None = None
    """Sizes of the reads (overrides ``block_size`` for reads)."""
    write_block_size: BlockSizes | None = None
    """Sizes of the writes (overrides ``block_size`` for writes)."""
    random_fraction: Fraction | None = None
    """Share of I/Os at a random offset; the rest continue from the previous I/O's end. Null:
    1 for ``pattern: random``, 0 for ``sequential``."""
    access: AccessSpec = AccessSpec()
    """Where random offsets land over the span (uniform, zipf, pareto, zoned)."""
    think_time: ServiceTime | None = None
    """Closed loops: time a slot waits after an I/O completes before the next, seconds."""
    trace: TraceSpec | None = None
    """Replay a block trace (:class:`~sanpath.spec.trace.TraceSpec`): its records' times,
    offsets, sizes and directions replace the drawn ones; the fields above then describe the
    trace for the analytic twin and the checks (``sanpath import`` fills them in)."""

    @model_validator(mode="after")
    def _check_loop(self) -> WorkloadSpec:
        if self.rate is not None and self.outstanding is not None:
            raise ValueError("give outstanding (closed loop) or rate (open loop), not both")
        if self.trace is not None and (self.copy_to is not None or self.think_time is not None):
            raise ValueError("a trace replay takes neither copy_to nor think_time")
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
    def read_sizes(self) -> tuple[tuple[int, float], ...]:
        """The reads' size mix: (bytes, weight) pairs, weights adding up to 1."""
        return self.block_size if self.read_block_size is None else self.read_block_size

    @property
    def write_sizes(self) -> tuple[tuple[int, float], ...]:
        """The writes' size mix: (bytes, weight) pairs, weights adding up to 1."""
        return self.block_size if self.write_block_size is None else self.write_block_size

    @property
    def per_direction(self) -> bool:
        """True when reads or writes have a size mix of their own."""
        return self.read_block_size is not None or self.write_block_size is not None

    @property
    def size_mix(self) -> tuple[tuple[int, float], ...]:
        """Every I/O's size mix, both directions together: (bytes, weight) pairs."""
        if not self.per_direction:
            return self.block_size
        mix: dict[int, float] = {}
        rf = self.read_fraction
        for sizes, share in ((self.read_sizes, rf), (self.write_sizes, 1.0 - rf)):
            for size, weight in sizes:
                if share > 0.0:
                    mix[size] = mix.get(size, 0.0) + share * weight
        return tuple(mix.items())

    @property
    def direction_mixes(self) -> tuple[tuple[bool, float, tuple[tuple[int, float], ...]], ...]:
        """(is_write, share of the I/Os, size mix) of each direction with I/Os."""
        rf = self.read_fraction
        both = ((False, rf, self.read_sizes), (True, 1.0 - rf, self.write_sizes))
        return tuple(d for d in both if d[1] > 0.0)

    @property
    def sizes(self) -> tuple[int, ...]:
        """Every size the workload may issue, bytes (both directions)."""
        return tuple(sorted({size for size, _ in self.read_sizes + self.write_sizes}))

    @property
    def random_share(self) -> float:
        """Share of the I/Os at a random offset (``random_fraction`` or the pattern's)."""
        if self.random_fraction is not None:
            return self.random_fraction
        return 1.0 if self.pattern == "random" else 0.0

    @property
    def mean_block_size(self) -> float:
        """Mean I/O size in bytes (both directions together)."""
        if not self.per_direction:
            return sum(size * weight for size, weight in self.block_size)
        rf = self.read_fraction
        read = sum(size * weight for size, weight in self.read_sizes)
        write = sum(size * weight for size, weight in self.write_sizes)
        return rf * read + (1.0 - rf) * write


class ChangeSpec(Spec):
    """One scheduled change: at simulated time ``at``, set dotted keys to new values
    (keys matching :data:`sanpath.spec.knobs.SCHEDULABLE`)."""

    at: Duration
    set: dict[str, Any] = Field(min_length=1)
