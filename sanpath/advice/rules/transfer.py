"""Rules on moving the bytes: SP003 transfer-size splitting, SP004 PCIe slot, SP005 FC
link speed."""

from __future__ import annotations

import math
from typing import Any

from sanpath import units
from sanpath.advice.analysis import INF, commands_per_io_mean
from sanpath.advice.costs import back_end_stream
from sanpath.advice.fmt import host_label, mbps, pct, size_text
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.advice.report import Severity
from sanpath.layout import wire_bytes
from sanpath.spec import HbaSpec, Scenario

LINK_WARNING = 0.8
"""Offered bandwidth above this share of the links' capacity is a warning."""

FC_SPEEDS: tuple[str, ...] = ("1GFC", "2GFC", "4GFC", "8GFC", "16GFC", "32GFC", "64GFC")

SRC_SPLIT = (
    "Lonny Niederstadt, 'MSSQL Backups - check HBA maximum transfer size' (2013): a QLogic "
    "512 KiB default split 1 MiB backup I/Os (raised with qlfcx64 -tsize /fc /set 2048); "
    "Storport's default MaximumSGList of 17 gives 64 KiB; fragments = "
    "ceil(I/O size / min(OS max I/O, HBA max transfer))."
)
SRC_PCIE = (
    "Alexei Khalyako, SQLCAT 'Fast Track: improving performance through correct LUN mapping' "
    "(2012): PCIe x4 v1 carries about 1 GB/s and x4 v2 about 2 GB/s, so a dual-port 8 Gb "
    "HBA belongs in an x4 v2 slot or better; PCIe 250 / 500 MB/s per lane for Gen1 / Gen2."
)
SRC_LINK = (
    "Fibre Channel payload rates per direction after line encoding (FCIA speed roadmap; "
    "docs/scenario.md, named FC speeds)."
)


@rule(
    "SP003-split",
    "warning",
    "transfer-size splitting",
    metric="mb_per_s",
    better="higher",
    source=SRC_SPLIT,
)
def check_split(s: Scenario, options: CheckOptions) -> list[Found]:
    """I/Os larger than the host's split limit, min(OS max I/O size, every HBA max transfer).

    Each such I/O leaves the host as ceil(size / limit) commands. Warning, with the
    commands per I/O for every size and the factor by which the host's command count grows.
    """
    pa = options.paths(s)
    findings = []
    cache = s.array.cache
    for g, host in enumerate(s.hosts):
        limit = pa.split_limit[g]
        if limit is None:
            continue
        mine = [w for (gg, _), ws in pa.workloads.items() if gg == g for w in ws]
        split = [w for w in dict.fromkeys(mine) if any(size > limit for size, _ in w.size_mix)]
        if not split:
            continue
        largest = max(size for w in split for size, _ in w.size_mix)
        per_size = {
            size_text(size): pa.commands_per_io(g, size)
            for w in split
            for size, _ in w.size_mix
            if size > limit
        }
        factors = {
            w.name: sum(weight * pa.commands_per_io(g, size) for size, weight in w.size_mix)
            for w in split
        }
        who = []
        if host.max_io_size is not None and host.max_io_size == limit:
            who.append(f"the OS max I/O size ({size_text(host.max_io_size)})")
        for j, hba in enumerate(host.hbas):
            if hba.max_transfer is not None and hba.max_transfer == limit:
                who.append(f"HBA {j} max transfer ({size_text(hba.max_transfer)})")
        fix: dict[str, Any] = {}
        for j, hba in enumerate(host.hbas):
            if hba.max_transfer is not None and hba.max_transfer < largest:
                fix[f"hosts.{g}.hbas.{j}.max_transfer"] = size_text(largest)
        if host.max_io_size is not None and host.max_io_size < largest:
            fix[f"hosts.{g}.max_io_size"] = size_text(largest)
        notes = []
        if largest > 2 * 1024 * 1024:
            notes.append(
                "QLogic's Windows driver accepts at most 2 MiB (qlfcx64 -tsize), so larger "
                "I/Os will still be split there."
            )
        bypass_after = sorted(
            {
                size
                for w in split
                if w.read_fraction < 1.0
                for size, _ in w.size_mix
                if cache.write_back
                and cache.write_aside is not None
                and size > cache.write_aside >= min(size, limit)
            }
        )
        if bypass_after:
            notes.append(
                "Once unsplit, writes of "
                f"{', '.join(size_text(x) for x in bypass_after)} exceed the "
                f"array's write-aside ({size_text(cache.write_aside or 0)}) and bypass its write "
                "cache: see SP013."
            )
        findings.append(
            Found(
                title=(
                    f"{host.name}: I/Os up to {size_text(largest)} are split at {size_text(limit)}"
                ),
                message=(
                    f"Host {host_label(host)} splits I/Os at {size_text(limit)}, set by "
                    f"{' and '.join(who)}. Commands per I/O: "
                    + ", ".join(f"{k} -> {v}" for k, v in per_size.items())
                    + ". Mean commands per application I/O: "
                    + ", ".join(f"{name} {x:.2f}x" for name, x in factors.items())
                    + "."
                ),
                mechanism=(
                    "A split I/O becomes several commands that each take a host queue slot, an "
                    "HBA exchange, a port and LUN queue slot and the per-command processing time "
                    "of the HBA and the controller; the I/O finishes with its slowest piece. "
                    "Near queue limits the extra commands turn into queueing and QUEUE FULL."
                ),
                numbers={
                    "host": host.name,
                    "split_limit": limit,
                    "largest_io": largest,
                    "commands_per_io": per_size,
                    "command_multiplier": factors,
                },
                fix=fix or None,
                fix_text=(
                    "Raise "
                    + " and ".join(
                        "the OS maximum I/O size"
                        if k.endswith("max_io_size")
                        else f"HBA {k.split('.')[3]}'s maximum transfer size"
                        for k in fix
                    )
                    + f" to {size_text(largest)} so that the largest I/O travels as one command. "
                    + " ".join(notes)
                ).strip(),
            )
        )
    return findings


def _pcie_fix(hba: HbaSpec, need: float) -> dict[str, Any] | None:
    pcie = hba.pcie
    assert pcie is not None
    gen0 = pcie.gen if pcie.gen is not None else 1
    lanes0 = pcie.lanes if pcie.lanes is not None else 1
    options = []
    for gen in range(gen0, 7):
        for lanes in (1, 2, 4, 8, 16):
            if gen == gen0 and lanes < lanes0:
                continue
            if units.pcie_rate(gen, lanes) * pcie.efficiency >= need:
                options.append((gen, lanes))
    if not options:
        return None
    gen, lanes = options[0]
    out: dict[str, Any] = {"gen": gen, "lanes": lanes}
    if pcie.efficiency != 1.0:
        out["efficiency"] = pcie.efficiency
    return out


@rule(
    "SP004-pcie-slot",
    "warning",
    "PCIe slot slower than the HBA",
    metric="mb_per_s",
    source=SRC_PCIE,
)
def check_pcie(s: Scenario, options: CheckOptions) -> list[Found]:
    """An HBA card whose PCIe slot carries less than its FC ports together.

    The slot is shared by the card's ports and is full duplex, so compare the slot's rate
    per direction with ports x port speed. Warning when the slot is slower.
    """
    findings = []
    for g, host in enumerate(s.hosts):
        for j, hba in enumerate(host.hbas):
            if hba.pcie is None or hba.speed is None:
                continue
            slot = hba.pcie.bytes_per_s
            need = hba.ports * hba.speed
            if slot >= need:
                continue
            new = _pcie_fix(hba, need)
            described = (
                f"PCIe gen {hba.pcie.gen} x{hba.pcie.lanes}"
                if hba.pcie.gen is not None
                else "the slot"
            )
            findings.append(
                Found(
                    title=(
                        f"{host.name}: HBA {j} slot carries {mbps(slot)}, its ports {mbps(need)}"
                    ),
                    message=(
                        f"HBA {j} of {host_label(host)} has {hba.ports} port(s) of "
                        f"{mbps(hba.speed)} each, {mbps(need)} per direction together, in "
                        f"{described} that moves {mbps(slot)} per direction: at most "
                        f"{pct(slot / need)} of what the ports can carry."
                    ),
                    mechanism=(
                        "Every byte the card's ports move crosses its PCIe slot, so a slot slower "
                        "than the ports caps the card's throughput whatever the fabric and the "
                        "array can do."
                    ),
                    numbers={
                        "host": host.name,
                        "hba": j,
                        "slot_bytes_per_s": slot,
                        "ports_bytes_per_s": need,
                    },
                    fix={f"hosts.{g}.hbas.{j}.pcie": new} if new is not None else None,
                    fix_text=(
                        f"Move the card to a PCIe gen {new['gen']} x{new['lanes']} slot "
                        f"({mbps(units.pcie_rate(new['gen'], new['lanes']))})."
                        if new is not None
                        else "No PCIe slot is fast enough: spread the ports over more cards."
                    ),
                )
            )
    return findings


def _fc_speed_for(need: float) -> str | None:
    for name in FC_SPEEDS:
        if units.parse_rate(name) >= need:
            return name
    return None


@rule(
    "SP005-link-speed",
    "error",
    "FC links slower than the load",
    metric="latency_ms_p99",
    better="lower",
    source=SRC_LINK,
)
def check_link_speed(s: Scenario, options: CheckOptions) -> list[Found]:
    """Bandwidth the workloads need against the FC links that carry it.

    Open-loop workloads state their need: rate x I/O size (plus frame overhead), split
    over the active paths, per HBA port and per array port, reads and writes each way.
    Error above the link speed (the queue grows without bound), warning above 80%.
    Sequential closed-loop workloads: info when the links carry less than the drives
    behind them can stream, so the links, not the drives, set the ceiling.
    """
    pa = options.paths(s)
    findings: list[Found] = []
    # open loops: bytes per second per host instance and route, in each direction
    host_dir: dict[tuple[int, int, str], float] = {}
    array_dir: dict[tuple[int, str], float] = {}
    for (g, li), indices in pa.by_pair.items():
        active = [r for r in indices if pa.routes[r].active]
        for w in pa.workloads.get((g, li), []):
            if w.closed or w.rate is None or not active:
                continue
            wire = commands_per_io_mean(pa, g, w) * sum(
                share * wire_bytes(size, s.fabric.frame_payload, s.fabric.frame_overhead)
                for size, share in pa.command_sizes(g, w)
            )
            per_route = w.rate / max(1, pa._luns_of(g, w)) / len(active) * wire
            for r in active:
                route = pa.routes[r]
                count = s.hosts[g].count
                for direction, part in (("in", w.read_fraction), ("out", 1 - w.read_fraction)):
                    key = (g, route.port, direction)
                    host_dir[key] = host_dir.get(key, 0.0) + per_route * part
                    akey = (route.array_port, direction)
                    array_dir[akey] = array_dir.get(akey, 0.0) + count * per_route * part
    worst_util = 0.0
    details: list[str] = []
    fix: dict[str, Any] = {}
    host_need: dict[tuple[int, int], float] = {}
    for (g, p, _), x in host_dir.items():
        host_need[(g, p)] = max(host_need.get((g, p), 0.0), x)
    for (g, p), need in sorted(host_need.items()):
        hp = pa.host_ports[g][p]
        if hp.speed is None or need <= 0:
            continue
        util = need / hp.speed
        if util > LINK_WARNING:
            worst_util = max(worst_util, util)
            details.append(
                f"{s.hosts[g].name} HBA port {p}: {mbps(need)} on a {mbps(hp.speed)} link "
                f"({pct(util)})"
            )
            new = _fc_speed_for(need / LINK_WARNING)
            if new is not None:
                fix[f"hosts.{g}.hbas.{hp.hba}.speed"] = new
    speed = s.array.port_speed
    array_need: dict[int, float] = {}
    for (a, _), x in array_dir.items():
        array_need[a] = max(array_need.get(a, 0.0), x)
    if speed is not None:
        for a, need in sorted(array_need.items()):
            util = need / speed
            if util > LINK_WARNING:
                worst_util = max(worst_util, util)
                details.append(
                    f"array port {a}: {mbps(need)} on a {mbps(speed)} link ({pct(util)})"
                )
                new = _fc_speed_for(need / LINK_WARNING)
                if new is not None:
                    prev = fix.get("array.port_speed")
                    if prev is None or units.parse_rate(new) > units.parse_rate(prev):
                        fix["array.port_speed"] = new
    if details:
        severity: Severity = "error" if worst_util > 1.0 else "warning"
        findings.append(
            Found(
                severity=severity,
                title=f"FC links at {pct(worst_util)} of their speed under the offered load",
                message=(
                    "The open-loop workloads offer, per busiest direction: "
                    + "; ".join(details)
                    + "."
                ),
                mechanism=(
                    "An open-loop load keeps arriving whatever the path delivers. A link busier "
                    "than its speed builds a queue that never drains; near full speed the "
                    "waiting time grows steeply (a queue at 80% busy waits about four service "
                    "times on average)."
                ),
                numbers={"worst_utilization": worst_util, "links": details},
                fix=fix or None,
                fix_text=(
                    "Use faster links: "
                    + ", ".join(f"{k} = {v}" for k, v in fix.items())
                    + " (the slowest named FC speed that keeps the link under 80%); or spread the "
                    "load over more ports."
                    if fix
                    else "No FC speed is enough: spread the load over more ports."
                ),
            )
        )
    # closed sequential loops: links against what the drives can stream
    reads: dict[int, list[float]] = {}
    seq = False
    for (g, li), ws in pa.workloads.items():
        for w in ws:
            if w.closed and w.pattern == "sequential":
                seq = True
                weight = s.hosts[g].count * w.threads * w.outstanding_per_lun * w.mean_block_size
                acc = reads.setdefault(pa.luns[li].pool_index, [0.0, 0.0])
                acc[0] += weight * w.read_fraction
                acc[1] += weight
    pools_used = {p: acc[0] / acc[1] for p, acc in reads.items() if acc[1] > 0}
    if seq and not details:
        hosts_side = 0.0
        for g, host in enumerate(s.hosts):
            used_ports = {
                pa.routes[r].port
                for r in range(len(pa.routes))
                if pa.routes[r].group == g and pa.routes[r].active
            }
            for p in used_ports:
                sp = pa.host_ports[g][p].speed
                hosts_side += INF if sp is None else host.count * sp
        ports_used = {pa.routes[r].array_port for r in range(len(pa.routes)) if pa.routes[r].active}
        array_side = INF if speed is None else len(ports_used) * speed
        front = min(hosts_side, array_side)
        back = sum(back_end_stream(s.array.pools[p], rf) for p, rf in pools_used.items())
        if front < back and not math.isinf(back):
            findings.append(
                Found(
                    severity="info",
                    title=f"FC links ({mbps(front)}) are slower than the drives ({mbps(back)})",
                    message=(
                        f"The sequential workloads' active FC links carry at most {mbps(front)} "
                        f"(host side {mbps(hosts_side)}, array side {mbps(array_side)}), while the "
                        f"pools behind them can stream about {mbps(back)}: the links set the "
                        "ceiling."
                    ),
                    mechanism=(
                        "Sequential transfers are limited by the slowest stage on the path; when "
                        "the drives can deliver more than the links, extra spindles add nothing."
                    ),
                    numbers={
                        "front_end_bytes_per_s": front,
                        "back_end_bytes_per_s": back,
                    },
                    fix=None,
                    fix_text="If the workload needs more, add ports or use faster links.",
                )
            )
    return findings
