"""A flash drive described by its datasheet (``model: flash``), and the model derived from it.

A datasheet gives what a buyer compares: random 4 KiB read and write IOPS at the test's queue
depth, read and write latency at queue depth 1, sequential read and write MB/s, capacity and
the interface. It does not give the drive's internal parallelism (how many flash dies and
planes work at once), so :func:`flash_model` derives it:

* **Units.** A random read at depth 1 takes ``read_latency`` = a fixed path (controller,
  firmware, protocol; at least :data:`MIN_FIXED` of the interface) + the media time of one
  read on one flash unit + the 4 KiB crossing the interface. At the datasheet's depth every
  unit is busy, so ``read_iops = units / media time``: ``units = round(read_iops x media
  time)``, the media time is then ``units / read_iops`` exactly and the fixed path takes the
  rest of the latency, so both figures hold.
* **Striping.** A command larger than the stripe ``chunk`` is split over
  ``min(units, ceil(size / chunk))`` units in equal parts; one part of ``b`` bytes takes
  ``op + b x per_byte``. ``op`` and ``per_byte`` are solved from two figures: a 4 KiB part
  takes the random media time, and the datasheet's sequential test (``seq_depth`` commands
  of ``seq_block`` bytes) moves the sequential MB/s on the units it keeps busy (every unit
  for writes, which the buffer acknowledges before their parts finish). ``chunk`` is the
  smallest power of two from 16 KiB up for which a sequential part takes at least
  :data:`CHUNK_MARGIN` times a random one.
* **Interface.** The bytes of a command cross the drive's interface once, at its rate (SATA
  600 MB/s, one direction at a time; SAS 1,200 or 2,400 MB/s per port per direction; NVMe
  the PCIe generation x lanes per direction). Reads cross after the media, writes before.
* **Writes.** A write is acknowledged ``write_latency`` after it arrives, or when a flash unit
  starts programming it, whichever is later: at depth 1 the datasheet's latency (a power-safe
  write buffer), under a sustained load the units' rate, ``steady_write_iops`` where the
  datasheet gives a preconditioned (steady-state) figure, else ``write_iops``. Reads queue
  behind writes on the same units, so read latency rises when writes share the drive.

The derived numbers also fill the fields of the simple SSD model (``units``, ``read_time``,
``write_time``, ``bandwidth``: a 4 KiB operation takes the same time in both), so code that
knows only that model (the analytic twin, ``sanpath check``) still treats a flash drive
sensibly; they are derived, not written: a scenario that gives them different values is
refused.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal, NamedTuple

from pydantic import Field, field_validator, model_validator

from sanpath import units as u
from sanpath.spec.fields import (
    Duration,
    PositiveBytes,
    PositiveIoBytes,
    Rate,
    Spec,
    refuse_bools,
)
from sanpath.spec.ssd import SsdSpec

SATA_RATE = 600e6
"""SATA 6 Gb/s after 8b/10b encoding, bytes/s (one direction at a time)."""
SAS_RATE = {3: 1200e6, 4: 2400e6}
"""SAS-3 (12 Gb/s, 8b/10b) and SAS-4 (24G, 22.5 Gbaud, 128b/150b) per port and direction."""
MIN_FIXED = {"sata": 10e-6, "sas": 8e-6, "nvme": 4e-6}
"""Smallest fixed path per command assumed when deriving the units (controller and protocol:
an AHCI/SATA or SAS command costs more than an NVMe doorbell and completion)."""
FIRST_CHUNK = 16 * 1024
"""The smallest stripe part tried (a common NAND page)."""
CHUNK_MARGIN = 1.25
"""A stripe part of ``chunk`` bytes must take at least this many times a 4 KiB one."""


class FlashInterface(Spec):
    """A flash drive's host interface: ``{kind: nvme, gen: 4, lanes: 4}``, ``{kind: sata}``,
    ``{kind: sas, gen: 3, ports: 2}``."""

    kind: Literal["sata", "sas", "nvme"] = "nvme"
    gen: Annotated[int, Field(ge=1, le=6)] | None = None
    """PCIe generation (NVMe, default 4) or SAS generation (3: 12 Gb/s, 4: 24G; default 3)."""
    lanes: Literal[1, 2, 4, 8, 16] = 4
    """PCIe lanes (NVMe only)."""
    ports: Literal[1, 2] = 1
    """SAS ports used at once (dual-port datasheet figures need 2)."""

    @model_validator(mode="after")
    def _check(self) -> FlashInterface:
        if self.kind == "sas" and self.gen not in (None, 3, 4):
            raise ValueError("SAS gen must be 3 (12 Gb/s) or 4 (24G)")
        if self.kind == "sata" and self.gen is not None:
            raise ValueError("SATA has one generation here (6 Gb/s): leave gen out")
        return self

    @property
    def rate(self) -> float:
        """Bytes per second per direction (SATA: shared by both directions)."""
        if self.kind == "sata":
            return SATA_RATE
        if self.kind == "sas":
            return SAS_RATE[self.gen or 3] * self.ports
        return u.pcie_rate(self.gen or 4, self.lanes)

    @property
    def duplex(self) -> bool:
        """True when reads and writes cross at once (SAS, PCIe); SATA is half duplex."""
        return self.kind != "sata"


class FlashModel(NamedTuple):
    """The service model derived from a datasheet (times in seconds, sizes in bytes)."""

    units: int
    interface_rate: float
    duplex: bool
    read_fixed: float
    read_op: float
    read_per_byte: float
    read_chunk: int
    write_fixed: float
    write_op: float
    write_per_byte: float
    write_chunk: int


class FlashSpec(SsdSpec):
    """A flash drive given by its datasheet figures (see the module docstring).

    A kind of :class:`~sanpath.spec.drives.SsdSpec`: its ``units``, ``read_time``,
    ``write_time`` and ``bandwidth`` are derived (:func:`flash_model`), not written.
    """

    _no_bools = field_validator(
        "read_iops",
        "write_iops",
        "steady_write_iops",
        "iops_depth",
        "iops_block",
        "read_latency",
        "write_latency",
        "read_rate",
        "write_rate",
        "seq_block",
        "seq_depth",
        "capacity",
        "units",
        "read_time",
        "write_time",
        "bandwidth",
        mode="before",
    )(refuse_bools)

    model: Literal["flash"] = "flash"  # type: ignore[assignment]
    interface: FlashInterface = FlashInterface()
    cell: Literal["slc", "mlc", "tlc", "qlc"] | None = None
    """NAND cell type (documentation: the figures carry the difference)."""
    read_iops: Annotated[float, Field(gt=0)]
    """Random reads of ``iops_block`` per second at ``iops_depth`` outstanding."""
    write_iops: Annotated[float, Field(gt=0)]
    """Random writes of ``iops_block`` per second at ``iops_depth`` outstanding."""
    steady_write_iops: Annotated[float, Field(gt=0)] | None = None
    """Preconditioned (steady-state, after garbage collection) random writes per second, where
    the datasheet gives it apart from ``write_iops``; the units' write rate uses it."""
    iops_depth: Annotated[int, Field(ge=1)] = 256
    """Commands outstanding in the datasheet's IOPS test (jobs x depth per job)."""
    iops_block: PositiveIoBytes = 4096
    read_latency: Duration
    """Mean random-read latency at queue depth 1 (``iops_block`` reads)."""
    write_latency: Duration
    """Mean random-write latency at queue depth 1."""
    read_rate: Rate
    """Sequential read, bytes/s (datasheet MB/s, 10^6 bytes)."""
    write_rate: Rate
    """Sequential write, bytes/s."""
    seq_block: PositiveIoBytes = 128 * 1024
    """Block size of the datasheet's sequential test (documentation and tests)."""
    seq_depth: Annotated[int, Field(ge=1)] = 32
    """Commands outstanding in the datasheet's sequential test (documentation and tests)."""
    capacity: PositiveBytes = 3_840_000_000_000

    @model_validator(mode="after")
    def _derive(self) -> FlashSpec:
        m = flash_model(self)
        derived = {
            "units": m.units,
            "read_time": m.read_op,
            "write_time": m.write_op,
            "bandwidth": m.units / m.read_per_byte,
        }
        written = self.model_fields_set
        for key, value in derived.items():
            given = getattr(self, key)
            if key in written and not math.isclose(given, value, rel_tol=1e-9):
                raise ValueError(
                    f"{key} is derived from the datasheet figures ({value:.6g}), not written: "
                    "leave it out"
                )
            object.__setattr__(self, key, value)
        return self

    @property
    def model_parameters(self) -> FlashModel:
        """The derived service model."""
        return flash_model(self)


def _part_times(
    units: int,
    media: float,
    block: int,
    rate: float,
    seq_block: int,
    seq_depth: int,
    buffered: bool,
) -> tuple[float, float, int]:
    """(op, per_byte, chunk) of one direction: a ``block`` part takes ``media`` seconds, and
    the datasheet's sequential test (``seq_depth`` commands of ``seq_block`` bytes, each split
    into parts of at most ``chunk``) moves ``rate`` bytes/s on the units it keeps busy (every
    unit for ``buffered`` writes, acknowledged before their parts finish)."""
    chunk = max(FIRST_CHUNK, block * 2)
    while True:
        parts = min(units, -(-seq_block // chunk))
        part = seq_block / parts
        busy = units if buffered else min(units, seq_depth * parts)
        target = busy * part / rate  # seconds one part may take
        if part > block and (target >= CHUNK_MARGIN * media or chunk >= seq_block):
            break
        if chunk >= seq_block:
            break
        chunk *= 2
    if part <= block:
        return media, 0.0, chunk
    per_byte = (target - media) / (part - block)
    op = media - block * per_byte
    if per_byte < 0.0:  # the sequential rate needs less than a random part: no per-byte time
        return media, 0.0, chunk
    if op < 0.0:  # random IOPS x block above the sequential rate: no fixed part
        op, per_byte = 0.0, media / block
    return op, per_byte, chunk


def flash_model(spec: FlashSpec) -> FlashModel:
    """Derive units, fixed paths and per-part times from the datasheet figures."""
    rate = spec.interface.rate
    block = spec.iops_block
    xfer = block / rate
    floor = MIN_FIXED[spec.interface.kind]
    budget = spec.read_latency - xfer - floor
    if budget <= 0.0:
        raise ValueError(
            f"read_latency {u.format_duration(spec.read_latency)} is shorter than the "
            f"interface's fixed path and transfer ({u.format_duration(floor + xfer)})"
        )
    if spec.read_iops * block > rate or spec.write_iops * block > rate:
        raise ValueError(
            "the random IOPS x block size exceed the interface's rate "
            f"({rate / 1e6:,.0f} MB/s): check the interface (SAS dual port: ports: 2)"
        )
    for name, value in (("read_rate", spec.read_rate), ("write_rate", spec.write_rate)):
        if value > rate * 1.0001:
            raise ValueError(
                f"{name} {value / 1e6:,.0f} MB/s exceeds the interface's "
                f"{rate / 1e6:,.0f} MB/s: check the interface"
            )
    units = max(1, round(spec.read_iops * budget))
    if units > 1 and units / spec.read_iops > spec.read_latency - xfer:
        units -= 1
    read_media = units / spec.read_iops
    read_fixed = max(0.0, spec.read_latency - xfer - read_media)
    read_op, read_per_byte, read_chunk = _part_times(
        units, read_media, block, spec.read_rate, spec.seq_block, spec.seq_depth, False
    )
    writes = spec.steady_write_iops or spec.write_iops
    write_media = units / writes
    write_op, write_per_byte, write_chunk = _part_times(
        units, write_media, block, spec.write_rate, spec.seq_block, spec.seq_depth, True
    )
    write_fixed = max(0.0, spec.write_latency - xfer)
    return FlashModel(
        units=units,
        interface_rate=rate,
        duplex=spec.interface.duplex,
        read_fixed=read_fixed,
        read_op=read_op,
        read_per_byte=read_per_byte,
        read_chunk=read_chunk,
        write_fixed=write_fixed,
        write_op=write_op,
        write_per_byte=write_per_byte,
        write_chunk=write_chunk,
    )
