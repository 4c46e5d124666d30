"""Hardware specs: the array with its controllers, cache, pools and LUNs.

Also the figures derived from them alone: a pool's usable capacity and a LUN's queue limit.
The hosts are in :mod:`sanpath.spec.host`, the fabric in :mod:`sanpath.spec.fabric`, the
drives behind a pool in :mod:`sanpath.spec.drives`.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

from sanpath.spec.drives import DriveSpec
from sanpath.spec.fields import (
    ArrayPortCount,
    Bytes,
    DistSpec,
    Duration,
    Fraction,
    IoBytes,
    LunCount,
    PositiveBytes,
    PositiveIoBytes,
    Rate,
    ServiceTime,
    Spec,
)
from sanpath.spec.profiles import ARRAY_PROFILES, with_profile
from sanpath.spec.transport import ArrayNvmeSpec

ArrayProfile = Literal[
    "emc-clariion",
    "emc-vnx",
    "hitachi-ams",
    "hitachi-usp-v",
    "netapp-ontap-fc",
    "netapp-aff-a900",
    "pure-flasharray-x50r3",
    "pure-flasharray-c60",
    "ibm-flashsystem-9200",
    "dell-powerstore-9200t",
]
"""Names of :data:`sanpath.spec.profiles.ARRAY_PROFILES`."""


# --------------------------------------------------------------------------------------


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

    * ``read_hit``: fraction of random reads found in cache; null = derived from each
      workload's ``access`` and ``read_cache`` (0 without ``read_cache``, as before).
    * ``read_cache``: cache space holding data for reads, bytes (null = none); with it and no
      ``read_hit``, the hit ratio follows from the workloads' skew (see docs/model.md).
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

    read_hit: Fraction | None = None
    read_cache: Bytes | None = None
    """Cache space that holds data for reads (not the dirty write space), bytes; null = none."""
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
    (see :data:`sanpath.layout.raid.DESTAGE_PER_DRIVE`)."""
    destage_order: Literal["sweep", "arrival"] = "sweep"
    """Which dirty data destages next: ``sweep`` the next in pool address order from where
    the last destage was, round to the start when none is left ahead (the spatial order of
    WOW, Gill and Modha, USENIX FAST 2005); ``arrival`` the oldest."""
    destage_coalesce: bool = True
    """A write that ends where a dirty extent still waiting begins, or fills the gap between
    two, joins it (up to the LUN's merge size), as a write that continues one always does:
    WOW destages "a set of contiguous pages within one write group" as one write."""
    forced_flush_destages: bool = False
    """Each write waiting for room in a full cache adds one destage of its own to those in
    flight (a forced flush); false: a full cache destages at full throttle, its pool's
    ``destage_concurrency`` writes, as WOW does at or above its high threshold."""
    read_priority: bool = True
    """Below the high watermark (and while no write waits for room) a hard disk serves the
    host operations queued at it before the destage operations beside them; from the high
    watermark on they compete as equals. EMC CLARiiON's flushing levels: idle flushing
    while the host's I/O continues, watermark flushing between the watermarks, and from
    the high watermark "additional resources" for flushing ("How does CLARiiON array flush
    cache", emcstorageinfo.com, 2008); that the host's operations go first at the drives
    is assumed from it. False: destages and host operations compete from the start (the
    drive's scheduler takes whichever positions first)."""
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


QFULL_TIME = 10e-6
"""Default controller time per refused command, seconds (an assumption, see docs/model.md).

No vendor states what a QUEUE FULL costs the array. A refused command still crosses the
front end: the port's FC controller receives the command frame and the storage processor
looks up the target queue, finds it full and sends the status frame back. That is one
command's front-end work without a cache lookup or data transfer, so the default is the
per-command time of an FC adapter of the period (10 us for a 4 Gb/s HBA, the parameter
catalogue; many arrays' front-end ports are such adapters in target mode), at the low end
of the catalogue's unverified 10-50 us for a port's answer. Hitachi (patent JP2000099446,
1998) and NetApp (knowledge base, "Performance impact due to FCP queue depth threshold
reached") describe the cost qualitatively: answering many BUSY/QUEUE FULL statuses takes the
controller away from serving commands."""


class ArraySpec(Spec):
    """The storage array: front-end ports, controller, cache, RAID pools and LUNs.

    ``port_queue_depth`` command slots are shared by every initiator logged in to a port
    (EMC: 1600 for planning, 2048 hard; NetApp 2048); a command arriving to a full port gets
    QUEUE FULL. ``lun_queue_depth`` is the per-LUN limit (an integer, ``clariion`` for
    32 + 14 x data drives, or null for none); overflow also answers QUEUE FULL. Each refusal
    costs the controller ``qfull_time``. ``profile`` starts from a named array
    (:data:`sanpath.spec.profiles.ARRAY_PROFILES`); the fields written beside it win, and its
    ``cache`` fields are merged with the scenario's.
    """

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, value: Any) -> Any:
        return with_profile(value, ARRAY_PROFILES, nested=("cache",))

    profile: ArrayProfile | None = None
    name: str = "array"
    ports: ArrayPortCount = 4
    port_speed: Rate | None = 850e6
    port_queue_depth: Annotated[int, Field(ge=1)] | None = 1600
    qfull_time: Duration = QFULL_TIME
    """Controller time (s) the front end spends on each command it refuses with QUEUE FULL:
    receiving the command, finding its port or LUN queue full and returning the status
    (see :data:`QFULL_TIME`); 0 makes a refusal free."""
    controller: ControllerSpec = ControllerSpec()
    cache: CacheSpec = CacheSpec()
    lun_queue_depth: Annotated[int, Field(ge=1)] | Literal["clariion"] | None = None
    pools: tuple[PoolSpec, ...] = Field(min_length=1)
    luns: tuple[LunSpec, ...] = Field(min_length=1)
    cross_controller: CrossControllerSpec | None = None
    controllers: Literal[1, 2] = 1
    """1: one pool of ``controller.cores`` serves every LUN (with ``cross_controller``, ports
    and LUNs still alternate between two storage processors for forwarding). 2: two
    controllers of ``controller.cores`` each, with their own ports (even ports on the
    first) and LUNs (owned alternately); a path through the owner is optimized, through the
    peer non-optimized (forwarded at ``cross_controller``'s cost), and every host prefers
    optimized paths (ALUA for SCSI, ANA for NVMe)."""
    failed_controller: Literal[0, 1] | None = None
    """The controller that has failed (``controllers: 2``; a schedule can fail one during a
    run): its LUNs are owned by the survivor, and its ports follow ``failover``."""
    failover: Literal["takeover", "forward"] = "takeover"
    """What a failed controller's ports do: ``takeover`` - they fail with it, and hosts reach
    every LUN through the survivor's ports (paths through the failed ports are
    inaccessible); ``forward`` - they stay up (a front end both controllers share, or port
    identities that move to the peer) and forward to the survivor: a non-optimized path,
    at ``cross_controller``'s cost."""
    nvme: ArrayNvmeSpec = ArrayNvmeSpec()
    """What the NVMe target grants (queue caps) and spends per command (NVMe transports)."""
    port_switches: tuple[str, ...] | None = None
    """The switch each array port attaches to, one name per port (null: the first of
    ``fabric.switches``; only with switches)."""

    @model_validator(mode="after")
    def _check_pair(self) -> ArraySpec:
        _check_controllers(self)
        return self


def _check_controllers(array: ArraySpec) -> None:
    """Raise ValueError when the controller keys disagree."""
    if array.failed_controller is not None and array.controllers != 2:
        raise ValueError("failed_controller needs controllers: 2 (a survivor to take over)")
    if array.controllers == 2 and array.ports < 2:
        raise ValueError(
            f"controllers: 2 needs at least 2 ports (one per controller), not {array.ports}"
        )


class ZoneSpec(Spec):
    """One explicit zone: host port(s) that see the listed array ports.

    ``port`` is the index of the HBA port on the host, counted over every card (null = all
    ports of the host).
    """

    host: str
    port: Annotated[int, Field(ge=0)] | None = None
    array_ports: tuple[Annotated[int, Field(ge=0)], ...] = Field(min_length=1)


# --------------------------------------------------------------------------------------
# Figures derived from the hardware alone
# --------------------------------------------------------------------------------------


def pool_capacity(pool: PoolSpec) -> int:
    """Usable bytes of a pool: whole stripe rows (whole slices with ``slice``) of every group."""
    rows = pool.drive.capacity // pool.stripe_element  # stripe rows per group
    row_bytes = pool.data_drives * pool.stripe_element
    if pool.slice is not None:
        slice_rows = pool.slice // row_bytes
        rows = rows // slice_rows * slice_rows
    return rows * row_bytes * pool.groups


def lun_queue_limit(array: ArraySpec, lun: LunSpec, pool: PoolSpec) -> int | None:
    """The array's per-LUN queue limit for one LUN (None = unlimited).

    ``clariion`` is the CLARiiON/VNX rule, 32 + 14 x data drives, counting the data drives of
    every RAID group the LUN is striped across.
    """
    setting = lun.queue_depth if lun.queue_depth is not None else array.lun_queue_depth
    if setting == "clariion":
        return 32 + 14 * pool.data_drives * pool.groups
    return setting
