"""What a trace holds, in one pass and flat memory: rates over time, sizes, mix, footprint.

:func:`summarize` reads a trace batch by batch and keeps only counters:

* **IOPS over time**: records per time bucket. Buckets start at one second and double in
  length (pairs merged) whenever the trace outgrows :data:`MAX_BUCKETS`, so a day-long trace
  keeps a few hundred numbers;
* **size mix**: records per size, reads and writes apart;
* **read fraction**: by I/Os and by bytes;
* **sequentiality**: the share of records that start where one of the last 16 records of
  the same device ended (so interleaved streams count, as the cache's read-ahead sees them);
* **footprint**: distinct bytes touched, counted in blocks of :data:`FOOTPRINT_BLOCK` bytes
  (per device, in a bitmap that coarsens to larger blocks past :data:`MAX_FOOTPRINT_BLOCKS`
  blocks), and the highest byte addressed;
* the response times the trace recorded (reads and writes apart), and what was skipped.
"""

from __future__ import annotations

import math
from collections import deque
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from sanpath.traces.reader import TraceReader
from sanpath.traces.records import Batch, TraceError, Window

MAX_BUCKETS = 256
"""Most time buckets kept for the IOPS-over-time series."""
FOOTPRINT_BLOCK = 4096
"""Block size (bytes) in which the footprint is counted at first."""
STREAMS = 16
"""Recent record ends per device a record may continue to count as sequential."""
MAX_FOOTPRINT_BLOCKS = 1 << 24
"""Most footprint blocks per device (16 Mi: 16 MiB of bitmap); beyond, the block doubles."""


@dataclass
class Footprint:
    """Distinct blocks touched on one device: a bitmap over the addresses seen so far."""

    block: int = FOOTPRINT_BLOCK
    bits: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.bool_))
    top: int = 0
    """Highest byte addressed + 1."""

    def add(self, offset: np.ndarray, size: np.ndarray) -> None:
        """Mark the blocks of these records."""
        end = offset + size
        self.top = max(self.top, int(end.max()))
        while self.top > self.block * MAX_FOOTPRINT_BLOCKS:
            self._coarsen()
        need = -(-self.top // self.block)
        if need > len(self.bits):
            grown = np.zeros(max(need, 2 * len(self.bits)), dtype=np.bool_)
            grown[: len(self.bits)] = self.bits
            self.bits = grown
        first = offset // self.block
        last = (end - 1) // self.block
        single = first == last
        self.bits[first[single]] = True
        for a, b in zip(first[~single].tolist(), last[~single].tolist(), strict=True):
            self.bits[a : b + 1] = True

    def _coarsen(self) -> None:
        bits = self.bits
        if len(bits) % 2:
            bits = np.append(bits, False)
        self.bits = np.asarray(bits.reshape(-1, 2).any(axis=1), dtype=np.bool_)
        self.block *= 2

    @property
    def bytes(self) -> int:
        """Bytes in the blocks touched."""
        return int(self.bits.sum()) * self.block


@dataclass
class Summary:
    """A trace's figures (see the module notes); rates per second of the trace's own clock."""

    source: str
    format: str
    devices: list[str]
    records: int = 0
    first: float = math.nan
    """Time of the first record (s from the start of the span)."""
    last: float = math.nan
    reads: int = 0
    bytes_read: int = 0
    bytes_written: int = 0
    sequential: int = 0
    read_sizes: dict[int, int] = field(default_factory=dict)
    write_sizes: dict[int, int] = field(default_factory=dict)
    per_device: dict[str, int] = field(default_factory=dict)
    bucket: float = 1.0
    """Length of a time bucket (s)."""
    counts: list[int] = field(default_factory=list)
    """Records per bucket, the first bucket starting at time 0."""
    bucket_bytes: list[int] = field(default_factory=list)
    footprints: dict[str, Footprint] = field(default_factory=dict)
    skipped: dict[str, int] = field(default_factory=dict)
    out_of_order: int = 0
    read_response: float | None = None
    """Mean recorded response time of reads (s), None where the trace has none."""
    write_response: float | None = None
    responses: int = 0
    """Records with a recorded response time."""

    @property
    def writes(self) -> int:
        """Write records."""
        return self.records - self.reads

    @property
    def duration(self) -> float:
        """Seconds from the first record to the last."""
        return self.last - self.first if self.records else 0.0

    @property
    def iops(self) -> float:
        """The mean arrival rate, I/O per s (records after the first over the time they span)."""
        return (self.records - 1) / self.duration if self.duration > 0 else math.nan

    @property
    def bytes(self) -> int:
        """Bytes read and written."""
        return self.bytes_read + self.bytes_written

    @property
    def mean_size(self) -> float:
        """Bytes per record."""
        return self.bytes / self.records if self.records else math.nan

    @property
    def read_fraction(self) -> float:
        """Share of the records that are reads."""
        return self.reads / self.records if self.records else math.nan

    @property
    def footprint(self) -> int:
        """Distinct bytes touched over every device (in footprint blocks)."""
        return sum(f.bytes for f in self.footprints.values())

    def top(self, device: str) -> int:
        """Highest byte addressed on ``device`` + 1 (0 if it has no record)."""
        f = self.footprints.get(device)
        return f.top if f is not None else 0

    def rates(self) -> list[float]:
        """IOPS in each time bucket (records over the bucket's length)."""
        return [n / self.bucket for n in self.counts]


def summarize(
    path: str | Path, format: str, window: Window | None = None, batch: int = 1 << 16
) -> Summary:
    """Read the whole trace and return its :class:`Summary`.

    Raises
    ------
    TraceError
        Located, for a line that does not read or a trace with no record to replay.
    """
    reader = TraceReader(path, format, window, batch)
    out = Summary(reader.source, format, reader.devices)
    streams: dict[int, deque[int]] = {}
    for b in reader.batches():
        _add(out, b, reader.devices, streams)
    if not out.records:
        from sanpath.traces.reader import empty_message

        raise TraceError(reader.source, reader.tally.lines or None, None, "", empty_message(reader))
    tally = reader.tally
    out.skipped = dict(tally.skipped)
    out.out_of_order = tally.out_of_order
    out.read_response = tally.mean_response(False)
    out.write_response = tally.mean_response(True)
    out.responses = int(tally.responses[0][0] + tally.responses[1][0])
    return out


def _add(out: Summary, b: Batch, names: list[str], streams: dict[int, deque[int]]) -> None:
    n = len(b)
    if not n:
        return
    if not out.records:
        out.first = float(b.time[0])
        out.last = out.first
    out.records += n
    out.last = max(out.last, float(b.time.max()))
    writes = b.write
    out.reads += int(n - writes.sum())
    out.bytes_written += int(b.size[writes].sum())
    out.bytes_read += int(b.size[~writes].sum())
    for sizes, mask in ((out.read_sizes, ~writes), (out.write_sizes, writes)):
        values, counts = np.unique(b.size[mask], return_counts=True)
        for v, c in zip(values.tolist(), counts.tolist(), strict=True):
            sizes[v] = sizes.get(v, 0) + c
    _sequential(out, b, streams)
    for d in np.unique(b.device).tolist():
        mask = b.device == d
        name = names[d]
        out.per_device[name] = out.per_device.get(name, 0) + int(mask.sum())
        foot = out.footprints.setdefault(name, Footprint())
        foot.add(b.offset[mask], b.size[mask])
    _timeline(out, b)


def _sequential(out: Summary, b: Batch, streams: dict[int, deque[int]]) -> None:
    """Count records that start where one of the last :data:`STREAMS` records of their
    device ended (interleaved sequential streams count, as the cache's read-ahead sees them)."""
    count = 0
    for d, offset, end in zip(
        b.device.tolist(), b.offset.tolist(), (b.offset + b.size).tolist(), strict=True
    ):
        ends = streams.get(d)
        if ends is None:
            ends = streams[d] = deque(maxlen=STREAMS)
        if offset in ends:
            count += 1
            ends.remove(offset)
        ends.append(end)
    out.sequential += count


def _timeline(out: Summary, b: Batch) -> None:
    while out.last >= out.bucket * MAX_BUCKETS:
        out.counts = _pairs(out.counts)
        out.bucket_bytes = _pairs(out.bucket_bytes)
        out.bucket *= 2
    index = np.minimum((np.maximum(b.time, 0.0) // out.bucket).astype(np.int64), MAX_BUCKETS - 1)
    need = int(index.max()) + 1
    if need > len(out.counts):
        out.counts += [0] * (need - len(out.counts))
        out.bucket_bytes += [0] * (need - len(out.bucket_bytes))
    counts = np.bincount(index, minlength=need)
    nbytes = np.bincount(index, weights=b.size.astype(np.float64), minlength=need)
    for i in np.flatnonzero(counts).tolist():
        out.counts[i] += int(counts[i])
        out.bucket_bytes[i] += int(nbytes[i])


def _pairs(values: list[int]) -> list[int]:
    if len(values) % 2:
        values = [*values, 0]
    return [values[i] + values[i + 1] for i in range(0, len(values), 2)]
