"""Rules on the fabric itself: SP023 links with too few buffer-to-buffer credits."""

from __future__ import annotations

from sanpath.advice.fmt import host_label, mbps
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.layout import host_link_credits
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

    A credit is away for a frame's time on the wire, light both ways (``distance_km``) and
    the host's ``drain_time``; with too few credits the port waits for R_RDY with frames to
    send. Warning when the credits leave either direction under 90% of the line rate, with
    the credits that would keep it at full speed.
    """
    findings = []
    for g, host in enumerate(s.hosts):
        for j, hba in enumerate(host.hbas):
            limits = host_link_credits(s, g, j)
            speed = hba.speed
            if limits is None or speed is None:
                continue
            capped = min(limit.rate(speed) for limit in limits)
            if capped >= CREDIT_WARNING * speed:
                continue
            needed = max(limit.needed(speed) for limit in limits)
            credits = limits[0].credits
            findings.append(
                Found(
                    title=(
                        f"{host.name}: HBA {j} links carry {mbps(capped)} of {mbps(speed)} "
                        f"with {credits} credits"
                    ),
                    message=(
                        f"HBA {j} of {host_label(host)} reaches the array over "
                        f"{s.fabric.distance_km:g} km"
                        + (
                            f" and drains its buffers in {host.drain_time * 1e6:g} us"
                            if host.drain_time > 0.0
                            else ""
                        )
                        + f": {credits} buffer-to-buffer credits let each port carry at most "
                        f"{mbps(capped)} of its {mbps(speed)} line rate; {needed} credits "
                        "keep it at full speed."
                    ),
                    mechanism=(
                        "A port sends a frame only while it holds a credit, and a credit comes "
                        "back only after its frame has crossed the link, been taken by the "
                        "receiver and the R_RDY has come back: a link carries at most credits "
                        "frames per such round trip, whatever its line rate."
                    ),
                    numbers={
                        "host": host.name,
                        "hba": j,
                        "distance_km": s.fabric.distance_km,
                        "credits": credits,
                        "credits_needed": needed,
                        "line_bytes_per_s": speed,
                        "capped_bytes_per_s": capped,
                    },
                    fix={f"hosts.{g}.hbas.{j}.credits": needed},
                    fix_text=(
                        f"Give the ports {needed} credits (Brocade portCfgLongDistance or "
                        "portCfgFPortBuffers, Cisco switchport fcrxbbcredit)"
                        + (", and find why the host drains slowly." if host.drain_time else ".")
                    ),
                )
            )
    return findings
