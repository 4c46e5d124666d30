"""The array's front end and LUNs.

* :class:`ArrayPort` - a front-end FC port: the link in each direction and the port's
  command queue, ``port_queue_depth`` slots shared by every initiator logged in. A command
  that finds the queue full is answered QUEUE FULL (it is not queued).
* :class:`Lun` - a LUN: its place in the pool's address space, the array's per-LUN queue
  (again answering QUEUE FULL when full), and its read-ahead state.

The controller is a :class:`~sanpath.sim.station.FcfsServer` with ``cores`` servers, built in
:mod:`sanpath.sim.topology`; the cache lives in :mod:`sanpath.sim.components.cache`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sanpath.sim.components.cache import ReadAhead
from sanpath.sim.components.raid import RaidPool
from sanpath.sim.station import Link, SlotPool


@dataclass(eq=False)
class ArrayPort:
    """One front-end port of the array."""

    index: int
    queue: SlotPool
    link_in: Link
    link_out: Link
    controller: int
    """The controller (storage processor) the port belongs to
    (:func:`sanpath.layout.port_controller`)."""


@dataclass(eq=False)
class Lun:
    """One LUN (a member of a LUN group in the scenario)."""

    name: str
    group: str
    index: int
    size: int
    base: int
    pool: RaidPool
    queue: SlotPool
    hit: Callable[[], float]
    read_hit: float
    """Fraction of this LUN's reads (outside read-ahead) served from cache, as written for the
    LUN group or the cache (0 when neither writes one)."""
    read_hits: list[float]
    """Per workload (by index): the read hit ratio its reads see on this LUN, the written
    ``read_hit`` or the one derived from the workload's access skew and ``read_cache``."""
    write_hit: float
    """Fraction of this LUN's cached writes that overwrite dirty data (no new room, no destage)."""
    write_hit_draw: Callable[[], float]
    destage_merge: int
    owner: int
    """The controller that owns the LUN (:func:`sanpath.layout.lun_owner`)."""
    readahead: ReadAhead | None = field(default=None)
