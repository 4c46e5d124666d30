"""Transports: how a host group's commands reach the array, and what each one costs.

A host group speaks one transport (``hosts.N.transport``):

* ``fcp`` - SCSI over Fibre Channel (the default, and the model of the published
  experiments): a per-LUN queue at the host, HBA command slots, and an array whose port and
  LUN queues can answer QUEUE FULL;
* ``fc-nvme`` - NVMe over the same Fibre Channel fabric;
* ``nvme-tcp`` and ``nvme-roce`` - NVMe over Ethernet, through TCP or RDMA (RoCE v2);
* ``iscsi`` - SCSI over TCP: FCP's semantics (LUN queues, a session's command window, QUEUE
  FULL) on Ethernet.

The three NVMe transports share NVMe's semantics (:class:`NvmeSpec`): no per-LUN SCSI queue;
each association of a host port with an array port is an NVMe controller with ``io_queues``
queue pairs of ``queue_size`` entries (a queue holds at most ``queue_size - 1`` commands); a
command goes to the queue of the processor that issues it, and waits in the host's block
layer when that queue is full (the target never refuses it). Namespaces share their
controller's queues.

Ethernet transports frame their data differently from Fibre Channel (:class:`Framing`), and
the TCP ones spend processor time per command on both ends (:data:`TRANSPORTS`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Final, Literal

from pydantic import Field

from sanpath.spec.fields import Duration, Spec

Transport = Literal["fcp", "fc-nvme", "nvme-tcp", "nvme-roce", "iscsi"]
"""The transports a host group can speak (see the module docstring)."""

IoPolicy = Literal["numa", "round-robin", "queue-depth", "lb-rr", "lb-iops", "lb-bytes"]
"""How an NVMe host spreads I/O over a namespace's paths (:class:`NvmeSpec`)."""


@dataclass(frozen=True)
class TransportFacts:
    """What a transport is and what it costs per command where nobody says otherwise."""

    name: str
    nvme: bool
    """NVMe semantics (queue pairs, no QUEUE FULL) rather than SCSI's."""
    ethernet: bool
    """Carried over Ethernet (framing from the MTU) rather than Fibre Channel."""
    host_cpu_time: float
    """Host processor time per command of the transport's own stack, seconds (added to
    ``hosts.N.cpu_time``; 0 where an adapter does the work)."""
    target_time: float
    """Array processor time per command of the transport's own stack, seconds (added to
    the controller's time per command)."""
    command_pdu: int
    """Bytes of transport headers a command adds to its data (PDU headers), out and back."""
    frame_headers: int
    """Bytes of headers per Ethernet frame inside the MTU (IP and TCP or UDP and RDMA)."""
    origin: str
    """Where the per-command figures come from."""


ETHERNET_FRAME: Final = 38
"""Bytes an Ethernet frame costs on the wire besides its MTU-sized packet: preamble and
start delimiter 8, MAC header 14, frame check sequence 4, inter-frame gap 12 (IEEE 802.3)."""

TRANSPORTS: Final[dict[str, TransportFacts]] = {
    facts.name: facts
    for facts in (
        TransportFacts(
            "fcp", False, False, 0.0, 0.0, 0, 0, "the HBA does the transport's work (offload)"
        ),
        TransportFacts(
            "fc-nvme",
            True,
            False,
            0.0,
            0.0,
            0,
            0,
            "the HBA does the transport's work (offload)",
        ),
        TransportFacts(
            "nvme-roce",
            True,
            True,
            1e-6,
            1e-6,
            # command capsule 64 (SQE) + response capsule 16 (CQE)
            80,
            # IPv4 20 + UDP 8 + InfiniBand base transport header 12 + invariant CRC 4
            44,
            "assumed: the RDMA NIC moves the data; about 1 us of processor per command on "
            "each end for posting work requests and reaping completions (SPDK's user-space "
            "NVMe/RDMA initiator reached almost 1.2 million 4 KiB reads/s on one core, "
            "spdk/spdk issue 321, 2018: 0.8 us; the kernel's stack costs more)",
        ),
        TransportFacts(
            "nvme-tcp",
            True,
            True,
            5.6e-6,
            5.6e-6,
            # CapsuleCmd PDU 72 (8 + 64-byte SQE) + data PDU header 24 + CapsuleResp 24
            # (NVMe/TCP transport specification 1.0, PDU formats)
            120,
            # IPv4 20 + TCP 20 + timestamp option 12
            52,
            "sourced (host): 179,000 4 KiB reads/s on one pinned core of a Linux NVMe/TCP "
            "host at depth 32, the baseline of Linux commit 40510a639ec0 (S. Grimberg, "
            "2020-03), i.e. 5.6 us per command at most; assumed (array): the same",
        ),
        TransportFacts(
            "iscsi",
            False,
            True,
            14e-6,
            14e-6,
            # SCSI Command, Data-In/Out and SCSI Response PDUs: a 48-byte basic header
            # segment each (RFC 7143, section 11.2)
            144,
            52,
            "sourced (host): iSCSI 'achieves merely 70K IOPS per CPU core' (Hwang et al., "
            "'TCP = RDMA: CPU-efficient remote storage access with i10', USENIX NSDI 2020), "
            "i.e. 14 us per command; assumed (array): the same",
        ),
    )
}
"""Every transport's facts, by name (:class:`TransportFacts`)."""


class NvmeSpec(Spec):
    """A host group's NVMe settings (for ``fc-nvme``, ``nvme-tcp`` and ``nvme-roce``).

    * ``io_queues``: I/O queue pairs per controller association (a host port with an array
      port); null = one per processor of the host (``hosts.N.cpus``, else 32, an assumed
      two-socket server), as Linux's ``nr_io_queues`` defaults to the online CPUs
      (drivers/nvme/host/fabrics.c). Capped by the array's ``nvme.max_io_queues``.
    * ``queue_size``: entries per queue; a queue holds ``queue_size - 1`` commands. Linux
      fabrics default 128, range 16-1024 (NVMF_DEF/MIN/MAX_QUEUE_SIZE,
      drivers/nvme/host/fabrics.h). Capped by the array's ``nvme.max_queue_size``.
    * ``iopolicy``: how I/O is spread over a namespace's optimized paths. Linux native
      multipath: ``numa`` (default; one path, the optimized path nearest the issuing node,
      modelled as the first optimized path), ``round-robin`` (every I/O to the next path),
      ``queue-depth`` (the path whose controller has the fewest commands outstanding);
      VMware HPP: ``lb-rr`` (switch after ``rr_ios`` I/Os or ``rr_bytes`` bytes, the HPP
      default), ``lb-iops`` (after ``rr_ios`` I/Os, the path with the fewest outstanding
      commands), ``lb-bytes`` (after ``rr_bytes`` bytes, the path with the fewest outstanding
      bytes). All of them use non-optimized paths only when no optimized path is left
      (ANA, docs.kernel.org admin-guide/nvme-multipath).
    * ``rr_ios`` / ``rr_bytes``: HPP's path-switching thresholds (defaults 1,000 I/Os and
      10 MiB, vSphere ``esxcli storage core device set --pss``).
    """

    io_queues: Annotated[int, Field(ge=1, le=65535)] | None = None
    queue_size: Annotated[int, Field(ge=16, le=65536)] = 128
    iopolicy: IoPolicy = "numa"
    rr_ios: Annotated[int, Field(ge=1)] = 1000
    rr_bytes: Annotated[int, Field(ge=1)] = 10 * 1024 * 1024


class IscsiSpec(Spec):
    """A host group's iSCSI session settings (open-iscsi ``node.session.*``).

    ``cmds_max`` is a session's command window (one session per host port and target
    port): the HBA command slots of an FCP host, counted per target. ``cmd_per_lun`` is the
    per-LUN queue depth (the host's ``lun_queue_depth``). Defaults 128 and 32
    (ISCSI_DEF_XMIT_CMDS_MAX and ISCSI_DEF_CMD_PER_LUN, include/scsi/libiscsi.h).
    """

    cmds_max: Annotated[int, Field(ge=1)] = 128
    cmd_per_lun: Annotated[int, Field(ge=1)] = 32


class ArrayNvmeSpec(Spec):
    """What the array's NVMe target grants and spends per command.

    ``max_io_queues`` and ``max_queue_size`` cap what a host asks for at connect time
    (null: what the host asks). ``io_time`` is the controller's time per NVMe command (null:
    ``controller.io_time``, the SCSI figure); ``tcp_time`` and ``iscsi_time`` replace the
    transport's assumed processor time per command on the array (:data:`TRANSPORTS`) for
    NVMe/TCP and iSCSI, ``rdma_time`` for NVMe/RoCE.
    """

    max_io_queues: Annotated[int, Field(ge=1)] | None = None
    max_queue_size: Annotated[int, Field(ge=16)] | None = None
    io_time: Duration | None = None
    tcp_time: Duration | None = None
    iscsi_time: Duration | None = None
    rdma_time: Duration | None = None


@dataclass(frozen=True)
class Framing:
    """How a transport carries ``n`` bytes of data on a link.

    Frames carry at most ``payload`` bytes each and cost ``overhead`` bytes more on the
    wire; a transfer adds ``pdu`` bytes of transport headers and one frame for the status.
    Fibre Channel: 2,048 and 60 bytes, no PDU (the fabric's ``frame_payload`` and
    ``frame_overhead``).
    """

    payload: int
    overhead: int
    pdu: int = 0

    def wire_bytes(self, nbytes: int) -> int:
        """Bytes on the link for ``nbytes`` of data, its headers and the status frame (the
        one formula every part of sanpath uses: the simulator, the twin and the checks)."""
        carried = nbytes + self.pdu
        frames = -(-carried // self.payload) + 1
        return carried + frames * self.overhead


def ethernet_framing(transport: str, mtu: int) -> Framing:
    """The framing of ``transport`` (an Ethernet one) on a network of ``mtu`` bytes.

    TCP: each frame carries ``mtu - 52`` bytes of data (IPv4, TCP and its timestamp option
    inside the MTU). RoCE v2: the RDMA path MTU is the largest of 256-4096 bytes that fits
    the Ethernet MTU with its 44 bytes of headers (1,024 on a 1,500-byte MTU, 4,096 on
    jumbo frames).
    """
    facts = TRANSPORTS[transport]
    room = mtu - facts.frame_headers
    if transport == "nvme-roce":
        payload = max(size for size in (256, 512, 1024, 2048, 4096) if size <= max(room, 256))
    else:
        payload = room
    return Framing(payload, ETHERNET_FRAME + facts.frame_headers, facts.command_pdu)


MTU = Annotated[int, Field(ge=576, le=9216)]
"""An Ethernet MTU, bytes (1,500 standard, 9,000 jumbo)."""

__all__ = [
    "ETHERNET_FRAME",
    "MTU",
    "TRANSPORTS",
    "ArrayNvmeSpec",
    "Framing",
    "IoPolicy",
    "IscsiSpec",
    "NvmeSpec",
    "Transport",
    "TransportFacts",
    "ethernet_framing",
]
