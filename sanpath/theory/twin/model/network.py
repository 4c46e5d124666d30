"""The scenario as a queueing network: its members, classes of commands and flows.

A *member* is one physical station, or ``count`` identical ones; a *class* is one workload on
one host group and one LUN group, with its demands at every member, its pure delays and its
background destage work; a *flow* is the commands one host keeps against one LUN, on its
routes. :func:`~sanpath.theory.twin.model.build_network` maps a scenario onto them,
:func:`~.demands._fill_class` fills in a class's demands; the populations (queue depths,
loads) are left to :mod:`.knobs`. Times in seconds, sizes in bytes.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sanpath.spec import PoolSpec, Scenario
from sanpath.theory.twin.model.drives import DriveModel, Work


@dataclass
class Member:
    """One physical station, or ``count`` identical ones (identical hosts, a pool's drives)."""

    group: str
    servers: int  # per member; 0 = delay
    count: int
    pool: int = -1  # index of the pool for drive stations
    tcq: int = 0  # > 0: a reordering drive with this queue depth
    gains: tuple[float, ...] = ()  # its positioning speed-up with j = 0..tcq commands queued
    sptf_window: int = 0  # > 0: SPTF, speed-up min(j, window)^0.27
    busy_scale: float = 0.0  # servers of the group a unit of its utilisation stands for
    mirror: bool = False  # a mirrored pair of drives (reads go to the less busy copy)
    destage_depth: float = 0.0  # destage operations queued per drive at full throttle


@dataclass
class Class:
    """One workload on one host group and one LUN group."""

    workload: int
    host_group: int
    lun_group: int
    closed: bool
    n_io: int  # closed: outstanding I/Os in total
    rate: float  # open: I/Os per second in total
    cmds_per_io: float
    bytes_per_io: float
    work: dict[tuple[str, int], Work] = field(default_factory=dict)
    background: dict[tuple[str, int], Work] = field(default_factory=dict)
    delay: float = 0.0  # per command (think time included)
    delays: dict[str, float] = field(default_factory=dict)  # per layer, think time not
    think: float = 0.0  # closed loops: mean think time per cycle (s), part of ``delay``
    overlap: float = 0.0  # per command: link service hidden by pipelining
    absorbed_bytes: float = 0.0  # per command, written into write-back cache
    prefetch: dict[int, float] = field(default_factory=dict)  # pool -> bytes per command


@dataclass
class Flow:
    """Commands one host instance keeps against one LUN, on the routes they use."""

    host_group: int
    lun: int
    lun_group: int
    classes: dict[int, float]  # closed class index -> commands per unit of `outstanding`
    routes: list[tuple[int, int, float]]  # (host port, array port, fraction)
    hba_spec: list[int]  # per route: spec index of the HBA


@dataclass(frozen=True)
class ReadAhead:
    """The sequential readers of one pool whose read-ahead keeps its drives busy."""

    pool: int
    model: DriveModel
    base: int  # offset of the pool's first LUN (bytes)
    streams: float  # sequential read streams
    mode: str  # "seq" (the streams have the drives to themselves) or "random"


@dataclass
class Network:
    """The scenario mapped onto stations (everything except the population)."""

    scenario: Scenario
    members: dict[tuple[str, int], Member]
    classes: list[Class]
    flows: list[Flow]
    group_servers: dict[str, float]
    pools: list[PoolSpec]
    notes: list[str]
    host_counts: list[int]
    hba_ports: list[list[tuple[int, int]]]  # per host group: (card, spec index) per port
    prefetch: dict[int, float] = field(default_factory=dict)  # pool -> read-ahead bytes/s
    read_ahead: list[ReadAhead] = field(default_factory=list)  # solved by _add_read_ahead
