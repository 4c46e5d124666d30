"""Rules on the fabric itself: SP023 links with too few buffer-to-buffer credits, SP024
ISL fan-in."""

from __future__ import annotations

import math

from sanpath.advice.fmt import host_label, mbps
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.layout import CreditLimit, host_link_credits, isl_hops
from sanpath.spec import Scenario

CREDIT_WARNING = 0.9
"""A link whose credits leave it less than this share of its line rate is a warning."""

SRC_CREDITS = (
    "Brocade Adapters Administrator's Guide 53-1001256-01 (2009): one buffer credit per km "
    "at 2 Gb/s, 10/20/40 credits for 10 km at 2/4/8 Gb/s; Brocade Fabric OS Administrator's "
    "Guide 53-1001763-02 (2010): F_Ports default to 8 credits; throughput = min(line rate, "
    "credits x frame / credit cycle) (docs/model.md, buffer-to-buffer credits)."
)


@rule(
    "SP023-link-credits",
    "warning",
    "too few buffer-to-buffer credits for the link's length",
    metric="mb_per_s",
    source=SRC_CREDITS,
)
def check_link_credits(s: Scenario, options: CheckOptions) -> list[Found]:
    """An FC host link whose buffer-to-buffer credits cap it below its line rate.

    A credit is away for a frame's time on the wire, light both ways (``distance_km``) and,
    toward the host, the host's ``drain_time``; with too few credits the port waits for
    R_RDY with frames to send. Warning when the link's length leaves it under 90% of its
    line rate, with the credits that keep it at full speed; when the host's drain time does,
    the fault is the host's (slow drain), not the credits'.
    """
    findings = []
    for g, host in enumerate(s.hosts):
        for j, hba in enumerate(host.hbas):
            limits = host_link_credits(s, g, j)
            speed = hba.speed
            if limits is None or speed is None:
                continue
            out, inward = limits  # out: the length alone; inward: with the drain time
            if out.rate(speed) < CREDIT_WARNING * speed:
                findings.append(_too_few_credits(s, g, j, out, inward.rate(speed)))
            elif inward.rate(speed) < CREDIT_WARNING * speed:
                findings.append(_slow_drain(s, g, j, inward))
    return findings


def _too_few_credits(s: Scenario, g: int, j: int, out: CreditLimit, capped: float) -> Found:
    """SP023 for a link too long for its credits."""
    host = s.hosts[g]
    speed = host.hbas[j].speed
    assert speed is not None
    needed = out.needed(speed)
    return Found(
        title=(
            f"{host.name}: HBA {j} links carry {mbps(capped)} of {mbps(speed)} "
            f"with {out.credits} credits"
        ),
        message=(
            f"HBA {j} of {host_label(host)} reaches the array over "
            f"{s.fabric.distance_km:g} km: {out.credits} buffer-to-buffer credits let each "
            f"port carry at most {mbps(capped)} of its {mbps(speed)} line rate; {needed} "
            "credits keep it at full speed."
        ),
        mechanism=(
            "A port sends a frame only while it holds a credit, and a credit comes back only "
            "after its frame has crossed the link, been taken by the receiver and the R_RDY "
            "has come back: a link carries at most credits frames per such round trip, "
            "whatever its line rate."
        ),
        numbers={
            "host": host.name,
            "hba": j,
            "distance_km": s.fabric.distance_km,
            "credits": out.credits,
            "credits_needed": needed,
            "line_bytes_per_s": speed,
            "capped_bytes_per_s": capped,
        },
        fix={f"hosts.{g}.hbas.{j}.credits": needed},
        fix_text=(
            f"Give the ports {needed} credits (Brocade portCfgLongDistance or "
            "portCfgFPortBuffers, Cisco switchport fcrxbbcredit)."
        ),
    )


def _slow_drain(s: Scenario, g: int, j: int, inward: CreditLimit) -> Found:
    """SP023 for a host that frees its receive buffers slowly."""
    host = s.hosts[g]
    speed = host.hbas[j].speed
    assert speed is not None
    capped = inward.rate(speed)
    return Found(
        title=f"{host.name}: drains slowly, its HBA {j} links carry {mbps(capped)}",
        message=(
            f"{host_label(host)} takes {host.drain_time * 1e6:g} us to free a receive buffer: "
            f"with {inward.credits} credits the links toward it carry at most {mbps(capped)} "
            f"of {mbps(speed)}."
        ),
        mechanism=(
            "A host that returns its buffer-to-buffer credits slowly caps its own reads, and "
            "the frames it does not take back up into the switch: every host sharing an ISL "
            "with it waits behind them (slow drain)."
        ),
        numbers={
            "host": host.name,
            "hba": j,
            "drain_time_s": host.drain_time,
            "line_bytes_per_s": speed,
            "capped_bytes_per_s": capped,
        },
        fix=None,
        fix_text=(
            "Find why the host frees its buffers slowly (HBA firmware and driver, an "
            "overloaded host); meanwhile a shorter fabric.frame_timeout and port fencing "
            "(fabric.fence_after) protect the hosts that share its ISLs."
        ),
    )


ISL_FAN_IN_WARNING = 7.0
"""Host link bandwidth over ISL bandwidth above this ratio is a warning."""

SRC_ISL = (
    "IBM, 'Summary of Best Practices for Storage Area Networks' (techdocs, January 2012): "
    "switch vendors typically advise ISL oversubscription (total host bandwidth over ISL "
    "bandwidth) of 7:1 to 10:1 for unknown workloads; Brocade 'SAN Design and Best "
    "Practices' (53-1004781): fan-in expressed as 7:1 for 7 hosts on one ISL."
)


@rule(
    "SP024-isl-fan-in",
    "warning",
    "ISL fan-in above the vendors' guidance",
    metric="mb_per_s",
    source=SRC_ISL,
)
def check_isl_fan_in(s: Scenario, options: CheckOptions) -> list[Found]:
    """An ISL direction whose hosts' links together carry more than 7 times what it does.

    Counts, for each ISL direction, the link speed of every host port whose paths cross
    it (reads come back the other way, so both directions carry the same hosts). Warning
    above 7:1, the low end of the vendors' 7:1 to 10:1 guidance, with the ISLs that bring
    it back to 7:1.
    """
    pa = options.paths(s)
    crossing: dict[int, set[tuple[int, int]]] = {}  # ISL -> (host group, host port)
    for path in pa.routes:
        if path.active:
            for hop in isl_hops(s, path.group, path.array_port):
                crossing.setdefault(hop.isl, set()).add((path.group, path.port))
    findings = []
    for i, isl in enumerate(s.fabric.isls):
        ports = crossing.get(i, set())
        hosts = sum((pa.host_ports[g][p].speed or 0.0) * s.hosts[g].count for g, p in sorted(ports))
        capacity = isl.count * isl.speed
        ratio = hosts / capacity
        if ratio <= ISL_FAN_IN_WARNING:
            continue
        needed = min(64, math.ceil(hosts / (ISL_FAN_IN_WARNING * isl.speed)))
        a, b = isl.between
        findings.append(
            Found(
                title=f"ISL {a}-{b}: hosts' links {ratio:.1f} times its bandwidth",
                message=(
                    f"The host ports whose paths cross ISL {i} ({a}-{b}, {isl.count} x "
                    f"{mbps(isl.speed)}) carry {mbps(hosts)} together: {ratio:.1f}:1, above "
                    f"the vendors' {ISL_FAN_IN_WARNING:g}:1."
                ),
                mechanism=(
                    "Every frame between those hosts and the array crosses the ISL: when "
                    "they are busy together it is the bottleneck, and a single slow-draining "
                    "host among them holds its credits for all."
                ),
                numbers={
                    "isl": i,
                    "host_bytes_per_s": hosts,
                    "isl_bytes_per_s": capacity,
                    "ratio": ratio,
                    "isls_needed": needed,
                },
                fix={f"fabric.isls.{i}.count": needed} if needed > isl.count else None,
                fix_text=(
                    f"Use {needed} parallel links (a trunk) for ISL {i}, or attach the busiest "
                    "hosts to the array's switch."
                ),
            )
        )
    return findings
