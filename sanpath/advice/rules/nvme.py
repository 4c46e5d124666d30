"""Rules of the NVMe era: SP017 round-robin over unequal paths, SP018 queue pairs too few for
the load, SP019 fewer I/O queues than processors, SP020 NVMe/TCP on a 1,500-byte MTU, SP021
FCP and FC-NVMe on one array port."""

from __future__ import annotations

import math
from typing import Any

from sanpath.advice.fmt import host_label, num, pct
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.layout import Wiring, nvme_queues
from sanpath.spec import TRANSPORTS, HostSpec, Scenario, ethernet_framing
from sanpath.theory.twin import predict

SRC_IOPOLICY = (
    "Linux NVMe multipath (docs.kernel.org, admin-guide/nvme-multipath): iopolicy numa, "
    "round-robin and queue-depth, all following ANA; the queue-depth iopolicy's commit "
    "(2024, Pure Storage and Red Hat): round-robin 'continues to use the high latency path "
    "equally', so I/Os pile on the highest-latency path, acute with NVMe-oF controllers."
)
SRC_QUEUE_PAIRS = (
    "Little's law, commands in flight = IOPS x latency (NetApp ONTAP 'Calculating queue "
    "depth': 40,000 IOPS x 3 ms = 120); Linux NVMe over Fabrics: queue_size 16-1,024, "
    "default 128, one I/O queue per online CPU (drivers/nvme/host/fabrics.h, nvme-cli)."
)
SRC_IO_QUEUES = (
    "Linux blk-mq maps every CPU to a hardware queue; nvme-cli's nr-io-queues defaults to the "
    "number of online CPUs, so each CPU submits to a queue of its own without sharing its lock."
)
SRC_MTU = (
    "IEEE 802.3 (preamble 8, header 14, FCS 4 and gap 12 bytes per frame); IPv4 and TCP with "
    "timestamps 52 bytes per packet; NVMe/TCP transport specification 1.0 (PDU headers)."
)
SRC_SHARED_PORT = (
    "IBM FlashSystem 8.4, 'Queue depth in Fibre Channel hosts': the total of the queue depths "
    "on one Fibre Channel port is at most 2,048; a target port's exchange resources serve "
    "every command it receives, SCSI or NVMe."
)

ASYMMETRY = 1.5
"""SP017 reports round-robin when one usable path's cost per command is this many times
another's."""
QUEUE_HEADROOM = 0.8
"""SP018 reports queue pairs filled beyond this share of their slots at the expected load."""
MTU_BUSY = 0.3
"""SP020 reports a 1,500-byte MTU when the data fill this share of a NIC port."""


def _nvme_hosts(s: Scenario) -> list[tuple[int, HostSpec]]:
    return [(g, h) for g, h in enumerate(s.hosts) if TRANSPORTS[h.transport].nvme]


def _path_cost(s: Scenario, wiring: Wiring, g: int, port: int) -> float:
    """Seconds a small command spends on host port ``port``'s own stages: its processor's
    time per command and 8 KiB on its link."""
    hba = s.hosts[g].hbas[wiring.host_ports[g][port].hba]
    link = 8192 / hba.speed if hba.speed is not None else 0.0
    return hba.command_time.mean_s + link


@rule(
    "SP017-nvme-round-robin",
    "warning",
    "round-robin over unequal paths",
    metric="latency_ms_mean",
    better="lower",
    source=SRC_IOPOLICY,
)
def check_round_robin(s: Scenario, options: CheckOptions) -> list[Found]:
    """An NVMe host spreading I/O round-robin (``round-robin``, HPP ``lb-rr``) over usable
    paths whose own cost per command differs by half or more (a slower HBA port, a busier
    processor): each path gets the same share, so the slow one queues. Warning; the fix is
    ``queue-depth``, which sends each command to the path with the fewest outstanding."""
    wiring = Wiring(s)
    findings = []
    for g, host in _nvme_hosts(s):
        if host.nvme.iopolicy not in ("round-robin", "lb-rr"):
            continue
        ports = {p.port for (gg, _), ps in wiring.paths.items() if gg == g for p in ps if p.active}
        costs = {port: _path_cost(s, wiring, g, port) for port in ports}
        if len(costs) < 2 or min(costs.values()) <= 0.0:
            continue
        slow, fast = max(costs.values()), min(costs.values())
        if slow < ASYMMETRY * fast:
            continue
        findings.append(
            Found(
                title=f"{host.name}: {host.nvme.iopolicy} over paths {slow / fast:.1f}x apart",
                message=(
                    f"Host {host_label(host)} sends I/O {host.nvme.iopolicy} over host ports "
                    f"whose own time per small command ranges from {fast * 1e6:.3g} us to "
                    f"{slow * 1e6:.3g} us; every path gets the same share of commands."
                ),
                mechanism=(
                    "Round-robin ignores how busy a path is: the slow path's queue grows while "
                    "the fast one idles, and the mean latency follows the slow path."
                ),
                numbers={"host": host.name, "fast_us": fast * 1e6, "slow_us": slow * 1e6},
                fix={f"hosts.{g}.nvme.iopolicy": "queue-depth"},
                fix_text="Set nvme.iopolicy to queue-depth (Linux 6.11 and later).",
            )
        )
    return findings


def _associations(wiring: Wiring, g: int) -> int:
    """Controller associations one host of group ``g`` uses: the (host port, array port)
    pairs of its active paths."""
    return len(
        {
            (p.port, p.array_port)
            for (h, _), ps in wiring.paths.items()
            if h == g
            for p in ps
            if p.active
        }
    )


@rule(
    "SP018-nvme-queue-pairs",
    "warning",
    "queue pairs too few for the load",
    metric="latency_ms_mean",
    better="lower",
    source=SRC_QUEUE_PAIRS,
)
def check_queue_pairs(s: Scenario, options: CheckOptions) -> list[Found]:
    """An NVMe host whose queue pairs (associations x ``io_queues`` x ``queue_size - 1``)
    cannot hold the commands its load keeps in flight: by Little's law, its open loops'
    rate times the latency the analytic twin expects, plus its closed loops' outstanding
    I/Os. Beyond 80% of the slots, commands wait in the host's block layer. Warning."""
    hosts = _nvme_hosts(s)
    if not hosts:
        return []
    wiring = Wiring(s)
    latency = predict(s).latency_ms_mean / 1e3
    findings = []
    for g, host in hosts:
        io_queues, queue_size = nvme_queues(s, g)
        associations = _associations(wiring, g)
        slots = associations * io_queues * (queue_size - 1)
        luns = {li for (gg, li) in wiring.paths if gg == g}
        wanted = 0.0
        for (gg, _), workloads in wiring.workloads.items():
            if gg != g:
                continue
            for w in workloads:
                if w.closed:
                    wanted += w.threads * w.outstanding_per_lun
                elif w.rate is not None:
                    wanted += w.rate / max(1, len(luns)) * latency
        if slots <= 0 or wanted <= QUEUE_HEADROOM * slots:
            continue
        size = min(
            1024, max(queue_size, math.ceil(wanted / QUEUE_HEADROOM / associations / io_queues) + 1)
        )
        fix: dict[str, Any] = {f"hosts.{g}.nvme.queue_size": size}
        findings.append(
            Found(
                title=f"{host.name}: {num(wanted)} commands for {num(slots)} queue slots",
                message=(
                    f"Host {host_label(host)} keeps about {num(wanted)} commands in flight "
                    f"(Little's law at {latency * 1e3:.3g} ms), against {associations} "
                    f"association(s) x {io_queues} I/O queues x {queue_size - 1} commands = "
                    f"{num(slots)} slots ({pct(wanted / slots)})."
                ),
                mechanism=(
                    "A command whose queue is full waits in the host's block layer for a free "
                    "entry: latency the array never sees, and IOPS capped at slots / latency."
                ),
                numbers={"host": host.name, "wanted": wanted, "slots": slots},
                fix=fix,
                fix_text=f"Raise nvme.queue_size to {size} (or connect more I/O queues).",
            )
        )
    return findings


@rule(
    "SP019-nvme-io-queues",
    "info",
    "fewer I/O queues than processors",
    simulate=False,
    source=SRC_IO_QUEUES,
)
def check_io_queues(s: Scenario, options: CheckOptions) -> list[Found]:
    """An NVMe host connecting fewer I/O queues than it has processors: several processors
    share each queue and its lock (contention the model does not time). Info."""
    findings = []
    for g, host in _nvme_hosts(s):
        io_queues, _ = nvme_queues(s, g)
        if host.cpus is None or io_queues >= host.cpus:
            continue
        findings.append(
            Found(
                title=f"{host.name}: {io_queues} I/O queues for {host.cpus} processors",
                message=(
                    f"Host {host_label(host)} has {host.cpus} processors and {io_queues} I/O "
                    f"queues per controller: {host.cpus / io_queues:.2g} processors per queue."
                ),
                mechanism=(
                    "Processors that share a queue take turns at its lock and doorbell; the "
                    "point of NVMe's many queues is that each processor has its own."
                ),
                numbers={"host": host.name, "io_queues": io_queues, "cpus": host.cpus},
                fix={f"hosts.{g}.nvme.io_queues": host.cpus},
                fix_text=f"Connect {host.cpus} I/O queues (nvme connect --nr-io-queues).",
            )
        )
    return findings


@rule(
    "SP020-nvme-tcp-mtu",
    "warning",
    "NVMe/TCP at high throughput on a 1,500-byte MTU",
    metric="mb_per_s",
    source=SRC_MTU,
)
def check_mtu(s: Scenario, options: CheckOptions) -> list[Found]:
    """An NVMe/TCP (or iSCSI) host on a 1,500-byte MTU whose data fill 30% or more of its
    NIC ports (analytic estimate): every 1,448 bytes cost a frame of headers, 6% of the wire,
    against under 1% with 9,000-byte jumbo frames. Warning."""
    hosts = [
        (g, h)
        for g, h in enumerate(s.hosts)
        if h.transport in ("nvme-tcp", "iscsi") and h.effective_mtu <= 1500
    ]
    if not hosts:
        return []
    prediction = predict(s)
    findings = []
    for g, host in hosts:
        speed = sum((hba.speed or 0.0) * hba.count * hba.ports for hba in host.hbas) * host.count
        if speed <= 0.0:
            continue
        busy = prediction.mb_per_s * 1e6 / speed  # the whole estate's data over this group
        if len(s.hosts) > 1:
            busy *= host.count / sum(h.count for h in s.hosts)
        if busy < MTU_BUSY:
            continue
        small = ethernet_framing(host.transport, host.effective_mtu)
        jumbo = ethernet_framing(host.transport, 9000)
        size = 128 * 1024
        loss_small = 1.0 - size / small.wire_bytes(size)
        loss_jumbo = 1.0 - size / jumbo.wire_bytes(size)
        findings.append(
            Found(
                title=f"{host.name}: {host.transport} at {pct(busy)} of its ports, MTU 1,500",
                message=(
                    f"Host {host_label(host)} moves data at about {pct(busy)} of its NIC ports "
                    f"on a {host.effective_mtu}-byte MTU: framing takes {pct(loss_small)} of "
                    f"the wire for 128 KiB transfers, {pct(loss_jumbo)} with jumbo frames."
                ),
                mechanism=(
                    "Each frame carries its own Ethernet, IP and TCP headers; six times fewer "
                    "frames also mean fewer interrupts and less TCP work per byte on both ends."
                ),
                numbers={"host": host.name, "busy": busy, "overhead": loss_small},
                fix={f"hosts.{g}.mtu": 9000},
                fix_text="Use jumbo frames (MTU 9,000) end to end: host, switches and array.",
            )
        )
    return findings


@rule(
    "SP021-fcp-nvme-shared-port",
    "warning",
    "FCP and FC-NVMe on one array port",
    simulate=False,
    source=SRC_SHARED_PORT,
)
def check_shared_port(s: Scenario, options: CheckOptions) -> list[Found]:
    """An array port that FCP and FC-NVMe hosts share while it has a queue budget
    (``port_queue_depth``): the FCP fan-in is planned against the budget, but the NVMe hosts'
    queue pairs can hold commands beyond it on the same port's exchange resources, which
    the model does not count against the port queue. Warning."""
    budget = s.array.port_queue_depth
    if budget is None:
        return []
    wiring = Wiring(s)
    scsi: dict[int, set[int]] = {}
    nvme: dict[int, float] = {}
    for (g, _), paths in wiring.paths.items():
        host = s.hosts[g]
        for p in paths:
            if not p.active:
                continue
            if TRANSPORTS[host.transport].nvme:
                io_queues, queue_size = nvme_queues(s, g)
                nvme.setdefault(p.array_port, 0.0)
                nvme[p.array_port] = max(
                    nvme[p.array_port], host.count * io_queues * (queue_size - 1)
                )
            elif host.transport == "fcp":
                scsi.setdefault(p.array_port, set()).add(g)
    shared = sorted(set(scsi) & set(nvme))
    if not shared:
        return []
    worst = max(shared, key=nvme.__getitem__)
    return [
        Found(
            title=f"array ports {shared}: FCP and FC-NVMe share a {budget}-command budget",
            message=(
                f"Array port {worst} serves FCP hosts planned against port_queue_depth "
                f"{budget} and FC-NVMe hosts whose queue pairs can hold up to "
                f"{num(nvme[worst])} commands on the same port."
            ),
            mechanism=(
                "The port's exchange resources serve both protocols; a busy NVMe host can take "
                "the room the FCP fan-in calculation counted on, and the FCP hosts then see "
                "QUEUE FULL (not modelled: NVMe commands are not counted in the port queue)."
            ),
            numbers={"ports": shared, "budget": budget, "nvme_slots": nvme[worst]},
            fix_text="Give each protocol its own array ports, or plan the budget for both.",
        )
    ]
