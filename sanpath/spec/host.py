"""Host specs: servers, their HBAs (or NICs) and PCIe slots, multipath, QUEUE FULL handling
and the transport they speak (:mod:`sanpath.spec.transport`)."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer, model_validator

from sanpath import units
from sanpath.spec.fields import (
    DistSpec,
    Duration,
    HbaCount,
    HbaPortCount,
    HostCount,
    PositiveIoBytes,
    Rate,
    ServiceTime,
    Spec,
)
from sanpath.spec.profiles import HBA_PROFILES, with_profile
from sanpath.spec.transport import MTU, TRANSPORTS, IscsiSpec, NvmeSpec, Transport


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


HbaProfile = Literal[
    "emulex-lp10000",
    "qlogic-qle2562",
    "hp-ab379b",
    "emulex-lpe12002",
    "emulex-lpe16002",
    "emulex-lpe32002",
    "emulex-lpe35002",
    "qlogic-qle2692",
    "qlogic-qle2772",
]
"""Names of :data:`sanpath.spec.profiles.HBA_PROFILES`."""

HbaProcessor = Literal["port", "card"]
"""Where an HBA's per-command processing runs: one processor per port, or one per card."""

DEFAULT_HBA: HbaProfile = "emulex-lpe16002"
"""The card an HBA is when the scenario names none: its link ``speed``, ``command_time`` and
``processor`` are this profile's (16GFC, 1 us per command on each port's processor: the
LPe16002's 'just over 1 million' IOPS on one port, Emulex 2011). The newest generation whose
per-port rate was read in its source; later cards are at least as fast. Scenarios calibrated
with the 2005-era card write ``{speed: 4GFC, command_time: 10us, processor: card}``."""

_DEFAULT_CARD = HBA_PROFILES[DEFAULT_HBA]


class HbaSpec(Spec):
    """A fibre-channel host bus adapter (one or more identical cards).

    ``queue_depth`` is the number of command slots (Storport QueueDepth, lpfc
    lun_queue_depth, ql2xmaxqdepth), counted per LUN or per target port according to
    ``queue_target`` (Emulex QueueTarget 0/1). ``max_transfer`` splits larger I/Os.
    ``command_time`` is the adapter's processing time per command, seconds; ``processor``
    says where that processing runs: ``card`` (one processor shared by every port of the
    card, so a second port adds no command rate) or ``port`` (one processor per port, so
    each port adds ``1 / command_time`` commands per second). ``speed``, ``command_time`` and
    ``processor`` default to those of a 16GFC card (``sanpath.spec.host.DEFAULT_HBA``).
    ``profile`` starts from a named card (:data:`sanpath.spec.profiles.HBA_PROFILES`); the
    fields written beside it win.
    ``credits`` is the buffer-to-buffer credits of each port's link to the array, frames in
    flight per direction (null: ``fabric.credits``; Fibre Channel only).
    """

    @model_validator(mode="before")
    @classmethod
    def _profile(cls, value: Any) -> Any:
        return with_profile(value, HBA_PROFILES)

    profile: HbaProfile | None = None
    count: HbaCount = 1
    ports: HbaPortCount = 1
    speed: Rate | None = units.parse_rate(_DEFAULT_CARD["speed"])
    queue_depth: Annotated[int, Field(ge=1)] | None = 32
    queue_target: Literal["lun", "target"] = "lun"
    max_transfer: PositiveIoBytes | None = None
    command_time: ServiceTime = DistSpec(
        dist="constant", mean=units.parse_duration(_DEFAULT_CARD["command_time"])
    )
    processor: HbaProcessor = _DEFAULT_CARD["processor"]
    pcie: PcieSpec | None = None
    credits: Annotated[int, Field(ge=1)] | None = None

    @property
    def processors(self) -> int:
        """Command processors on one card: one, or one per port."""
        return self.ports if self.processor == "port" else 1


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

    ``window`` (linux): QUEUE FULLs that arrive within one window count once toward the
    step down, as ``scsi_track_queue_full`` counts at most one per 16 jiffies (16 ms at
    ``HZ=1000``); 0 counts every one.
    """

    retry_delay: Duration = 3e-3
    throttle: ThrottlePolicy = "none"
    sample_size: Annotated[int, Field(ge=1)] | None = None
    threshold: Annotated[int, Field(ge=1)] = 8
    ramp_up_period: Duration = 120.0
    min_depth: Annotated[int, Field(ge=1)] = 1
    recovery_time: Duration = 60.0
    window: Duration = 16e-3

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

    ``transport`` is how the host reaches the array (:mod:`sanpath.spec.transport`):
    ``fcp`` (default), ``fc-nvme``, ``nvme-tcp``, ``nvme-roce`` or ``iscsi``. NVMe hosts
    take ``nvme`` (queue pairs and multipath ``iopolicy``) instead of ``lun_queue_depth``,
    ``multipath`` and ``qfull``; iSCSI hosts take ``iscsi`` (a session's ``cmds_max`` and
    ``cmd_per_lun``). Ethernet transports take ``mtu`` (1,500 by default) and their NICs'
    ``speed`` (``25GbE``); ``transport_cpu_time`` replaces the transport's own processor time
    per command on the host (:data:`~sanpath.spec.transport.TRANSPORTS`), added to
    ``cpu_time``.

    ``drain_time`` is the time the host's HBA takes to free a receive buffer and return its
    buffer-to-buffer credit, seconds (0: at once; Fibre Channel only): a host that drains
    slowly holds the credits of the link toward it (slow drain).
    """

    @model_validator(mode="before")
    @classmethod
    def _transport_defaults(cls, value: Any) -> Any:
        """iSCSI's session limits become the host queue and HBA slots they are; an Ethernet
        NIC's own per-command time is 0 on one stage per card unless given (the transport's
        work is the host's ``transport_cpu_time``). Only defaults are filled: a value written
        twice, differently (``iscsi.cmds_max`` and ``hbas.M.queue_depth``), is an error."""
        if not isinstance(value, dict):
            return value
        transport = value.get("transport", "fcp")
        facts = TRANSPORTS.get(transport) if isinstance(transport, str) else None
        raw_hbas = value.get("hbas", [{}])
        if facts is None or not facts.ethernet or not isinstance(raw_hbas, (list, tuple)):
            return value
        out = dict(value)
        session = out.get("iscsi")
        written = session if isinstance(session, dict) else {}
        cmds_max = written.get("cmds_max", IscsiSpec().cmds_max)
        per_lun = written.get("cmd_per_lun", IscsiSpec().cmd_per_lun)
        hbas = []
        for i, raw in enumerate(raw_hbas):
            hba = raw.model_dump(exclude_unset=True) if isinstance(raw, Spec) else raw
            if not isinstance(hba, dict):
                return value
            hba = dict(hba)
            hba.setdefault("command_time", 0.0)
            hba.setdefault("processor", "card")
            if transport == "iscsi":
                for key, same in (("queue_depth", cmds_max), ("queue_target", "target")):
                    if written and key in hba and hba[key] != same:
                        raise ValueError(
                            f"hbas.{i}.{key}: {hba[key]!r} differs from the iSCSI session's "
                            f"command window (iscsi.cmds_max {cmds_max}, per target port); "
                            "give one or the other"
                        )
                    hba.setdefault(key, same)
            hbas.append(hba)
        out["hbas"] = hbas
        if transport == "iscsi":
            given = out.get("lun_queue_depth")
            if written and given is not None and given != per_lun:
                raise ValueError(
                    f"lun_queue_depth: {given!r} differs from iscsi.cmd_per_lun {per_lun}, "
                    "an iSCSI host's per-LUN queue; give one or the other"
                )
            if given is None:
                out["lun_queue_depth"] = per_lun
        return out

    name: str
    transport: Transport = "fcp"
    nvme: NvmeSpec = NvmeSpec()
    iscsi: IscsiSpec | None = None
    mtu: MTU | None = None
    transport_cpu_time: Duration | None = None
    count: HostCount = 1
    max_io_size: PositiveIoBytes | None = None
    lun_queue_depth: Annotated[int, Field(ge=1)] | None = None
    multipath: MultipathPolicy = "round-robin"
    rr_ios: Annotated[int, Field(ge=1)] = 1
    io_time: ServiceTime = DistSpec(dist="constant", mean=0.0)
    cpus: Annotated[int, Field(ge=1)] | None = None
    cpu_time: ServiceTime = DistSpec(dist="constant", mean=0.0)
    qfull: QfullSpec = QfullSpec()
    drain_time: Duration = 0.0
    fpin_response: Literal["none", "rate_limit"] = "none"
    """What the host's HBA driver does with a congestion notification (FPIN) the switch
    sends it (``fabric.fpin``): ``none`` - counts it (Linux keeps ``fpin_cn`` counters in
    ``/sys/class/fc_host/hostX/statistics``); ``rate_limit`` - limits the read data it asks
    for, as Broadcom's lpfc driver does in its congestion management's ``managed`` mode
    (Linux 5.15, 2021: it "ensures that no more than the adapter prescribed limit is issued
    on the link", holding back I/O beyond it): at each FPIN the limit becomes half the read
    rate of the window just past, and after each window without one it rises by a quarter,
    lifted once it passes the host's link rate (the steps are assumed: the adapter
    firmware's are not published)."""
    switch: str | None = None
    """The switch the host's HBA ports attach to (null: the first of ``fabric.switches``;
    only with switches)."""
    hbas: tuple[HbaSpec, ...] = Field(default=(HbaSpec(),), min_length=1)

    @model_validator(mode="after")
    def _check_transport(self) -> HostSpec:
        facts = TRANSPORTS[self.transport]
        if facts.nvme:
            scsi = {
                "lun_queue_depth": self.lun_queue_depth is not None,
                "multipath": self.multipath != "round-robin" or self.rr_ios != 1,
                "qfull": self.qfull != QfullSpec(),
                "iscsi": self.iscsi is not None,
            }
            for key, written in scsi.items():
                if written:
                    raise ValueError(
                        f"{key} does not apply to an NVMe transport ({self.transport}): "
                        "NVMe has queue pairs (nvme.io_queues, nvme.queue_size), multipath "
                        "nvme.iopolicy and no QUEUE FULL"
                    )
        elif self.nvme != NvmeSpec():
            raise ValueError(f"nvme applies to the NVMe transports, not to {self.transport}")
        if self.transport != "iscsi" and self.iscsi is not None:
            raise ValueError(f"iscsi applies to transport iscsi, not to {self.transport}")
        if not facts.ethernet and self.mtu is not None:
            raise ValueError(f"mtu applies to Ethernet transports, not to {self.transport}")
        if facts.ethernet:
            if self.drain_time > 0.0:
                raise ValueError(
                    f"drain_time applies to Fibre Channel (buffer-to-buffer credits), not to "
                    f"{self.transport}"
                )
            if self.fpin_response != "none":
                raise ValueError(
                    f"fpin_response applies to Fibre Channel (a switch's congestion "
                    f"notifications), not to {self.transport}"
                )
            for i, hba in enumerate(self.hbas):
                if hba.credits is not None:
                    raise ValueError(
                        f"hbas.{i}.credits: buffer-to-buffer credits are Fibre Channel's, not "
                        f"{self.transport}'s"
                    )
                if "speed" not in hba.model_fields_set or hba.profile is not None:
                    raise ValueError(
                        f"hbas.{i}: an Ethernet transport ({self.transport}) needs its NIC's "
                        "speed (e.g. speed: 25GbE) and no Fibre Channel HBA profile"
                    )
        return self

    @model_serializer(mode="wrap")
    def _dump(self, handler: SerializerFunctionWrapHandler) -> Any:
        """Dump without what an ``iscsi`` section filled in (the per-LUN queue and the HBAs'
        command window), so a dump with ``iscsi.cmd_per_lun`` changed validates again."""
        data = handler(self)
        session = self.iscsi
        if self.transport != "iscsi" or session is None or not isinstance(data, dict):
            return data
        if data.get("lun_queue_depth") == session.cmd_per_lun:
            data.pop("lun_queue_depth")
        for hba in data.get("hbas", ()):
            if isinstance(hba, dict) and hba.get("queue_depth") == session.cmds_max:
                hba.pop("queue_depth")
                if hba.get("queue_target") == "target":
                    hba.pop("queue_target")
        return data

    @property
    def effective_mtu(self) -> int:
        """The Ethernet MTU in bytes (1,500 when not given)."""
        return 1500 if self.mtu is None else self.mtu

    @property
    def ports_per_host(self) -> int:
        """HBA ports on one host (over every card)."""
        return sum(hba.count * hba.ports for hba in self.hbas)


# --------------------------------------------------------------------------------------
# Fabric and array
