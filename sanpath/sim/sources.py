"""Workload sources: the stream of I/Os one workload thread sends to one LUN.

A :class:`IoSource` belongs to one workload thread on one host and one LUN (closed loop) or
to one host and one LUN (open loop: made at the host's first I/O there). Each call gives
the next I/O: its size (fixed or drawn from the mix, per direction when reads and writes
have mixes of their own), whether it is a read (with probability ``read_fraction``) and its
offset in the LUN: random (drawn from the workload's ``access`` distribution, aligned to the
I/O size) or sequential (where the previous I/O ended, wrapping at the end of the span), by
``pattern`` or, when given, with probability ``random_fraction``.

What every source of one workload on LUNs of one size has in common (size mixes, span,
access model) is a :class:`SourceShape`, worked out once and shared.
"""

from __future__ import annotations

from collections.abc import Callable
from itertools import accumulate

from sanpath.layout import AccessModel, access_blocks, access_model
from sanpath.sim.streams import BlockStream, Streams
from sanpath.spec import WorkloadSpec

_MIXES: dict[tuple[tuple[int, float], ...], tuple[list[int], list[float]]] = {}
"""Size mixes already turned into lists, shared (read only) by every source drawing them."""


def _cumulative(mix: tuple[tuple[int, float], ...]) -> tuple[list[int], list[float]]:
    """Sizes and cumulative weights of a size mix (the last weight exactly 1)."""
    if mix in _MIXES:
        return _MIXES[mix]
    sizes = [size for size, _ in mix]
    cum = list(accumulate(weight for _, weight in mix))
    cum[-1] = 1.0
    if len(_MIXES) < 1024:
        _MIXES[mix] = (sizes, cum)
    return sizes, cum


class SourceShape:
    """What every :class:`IoSource` of one workload on LUNs of one size shares (read only):
    its size mixes as lists, direction and pattern, span and access model.

    A thousand hosts on 64 LUNs make tens of thousands of sources of a few workloads; each
    takes its shape from :meth:`~sanpath.sim.load.Load.shape` rather than working it out
    from the spec.
    """

    __slots__ = (
        "access",
        "cum",
        "direction_mixes",
        "largest",
        "pattern",
        "random_share",
        "read_fraction",
        "sizes",
        "span_bytes",
        "threads",
        "unit",
    )

    def __init__(self, spec: WorkloadSpec, lun_size: int) -> None:
        self.sizes, self.cum = _cumulative(spec.block_size)
        self.direction_mixes: tuple[tuple[list[int], list[float]], ...] | None = None
        if spec.per_direction:
            self.direction_mixes = (_cumulative(spec.read_sizes), _cumulative(spec.write_sizes))
        self.read_fraction = spec.read_fraction
        self.pattern = spec.pattern
        self.random_share: float | None = spec.random_fraction
        """None: the pattern alone decides (random or sequential)."""
        sizes = spec.sizes
        self.largest = sizes[-1]
        self.unit = sizes[0]
        self.span_bytes = max(int(lun_size * spec.span), self.largest)
        self.threads = spec.threads
        self.access: AccessModel | None = None
        """The access distribution over the span (None: uniform)."""
        if not spec.access.uniform:
            _, n = access_blocks(spec, lun_size)
            self.access = access_model(spec.access, n)


class IoSource:
    """The stream of I/Os one workload thread sends to one LUN.

    ``u`` gives the uniform draws for sizes, directions, random-or-sequential choices and
    uniform offsets; ``blocks`` (for a non-uniform ``access``) gives block indices of the
    access distribution over the span, in blocks of the workload's smallest I/O. ``spec``
    is the workload's spec or, shared by many sources, its :class:`SourceShape` on LUNs of
    ``lun_size`` bytes.
    """

    __slots__ = (
        "_blocks",
        "_cum",
        "_direction_mixes",
        "_sequential",
        "_size",
        "_sizes",
        "_u",
        "_unit",
        "pattern",
        "position",
        "random_share",
        "read_fraction",
        "span_bytes",
        "think",
    )

    def __init__(
        self,
        spec: WorkloadSpec | SourceShape,
        lun_size: int,
        u: Callable[[], float],
        thread: int = 0,
        blocks: BlockStream | None = None,
    ) -> None:
        shape = as_shape(spec, lun_size)
        self._u = u
        self._sizes, self._cum = shape.sizes, shape.cum
        self._size = shape.sizes[0] if len(shape.sizes) == 1 else 0
        """The one size of the mix (no draw), or 0: drawn."""
        self._direction_mixes = shape.direction_mixes
        self.read_fraction = shape.read_fraction
        self.pattern = shape.pattern
        self.random_share = shape.random_share
        self._sequential = shape.pattern == "sequential"
        self.span_bytes = shape.span_bytes
        self._unit = shape.unit
        self._blocks = blocks
        self.think: Callable[[], float] | None = None
        """Draws a closed-loop slot's think time (s) after each I/O; None = no think time."""
        # Sequential threads on one LUN read separate regions, as sqlio's threads on one
        # file do: thread t starts t/threads of the way in (aligned to the largest I/O).
        start = self.span_bytes * thread // shape.threads
        self.position = start - start % shape.largest

    def next_io(self) -> tuple[int, bool, int]:
        """Return (size in bytes, is_write, offset in bytes within the LUN)."""
        u = self._u
        rf = self.read_fraction
        mixes = self._direction_mixes
        if mixes is None:
            size = self._size or _draw_size(self._sizes, self._cum, u)
            write = False if rf >= 1.0 else (True if rf <= 0.0 else u() >= rf)
        else:
            write = False if rf >= 1.0 else (True if rf <= 0.0 else u() >= rf)
            sizes, cum = mixes[1] if write else mixes[0]
            size = _draw_size(sizes, cum, u)
        share = self.random_share
        if share is None:
            sequential = self._sequential
        else:
            sequential = share <= 0.0 or (share < 1.0 and u() >= share)
        if sequential:
            offset = self.position
            if offset + size > self.span_bytes:
                offset = 0
        else:
            blocks = (self.span_bytes - size) // size + 1
            draw = self._blocks
            if draw is None:
                offset = int(u() * blocks) * size
            else:
                offset = min(draw() * self._unit // size, blocks - 1) * size
        if share is not None or sequential:
            self.position = offset + size
        return size, write, offset


def _draw_size(sizes: list[int], cum: list[float], u: Callable[[], float]) -> int:
    """One size of a mix (no draw for a single size)."""
    if len(sizes) == 1:
        return sizes[0]
    x = u()
    for s, c in zip(sizes, cum, strict=True):
        if x < c:
            return s
    return sizes[-1]


def as_shape(spec: WorkloadSpec | SourceShape, lun_size: int) -> SourceShape:
    """``spec`` itself when it is a :class:`SourceShape`, else its shape on LUNs of
    ``lun_size`` bytes."""
    # an explicit branch and return type, not a conditional expression: where the spec's
    # base class is unknown to the type checker (a build without pydantic), isinstance
    # narrowing would leave the union
    if isinstance(spec, SourceShape):
        return spec
    return SourceShape(spec, lun_size)


def make_source(
    spec: WorkloadSpec | SourceShape, lun_size: int, streams: Streams, name: str, thread: int = 0
) -> IoSource:
    """An :class:`IoSource` drawing from the streams named ``name`` (and ``name.access``);
    ``spec``: the workload's spec, or its :class:`SourceShape` on LUNs of ``lun_size``."""
    shape = as_shape(spec, lun_size)
    u = streams.uniform(name)
    blocks = None
    if shape.access is not None:
        blocks = BlockStream(shape.access, streams.lazy(f"{name}.access"))
    return IoSource(shape, lun_size, u, thread, blocks)
