"""Hosts that starve on a shared LUN: refused over and over while the others are served.

By Little's law the commands a host keeps outstanding on a LUN are served at ``X = N / R``;
treated alike (the same response time ``R``), hosts get throughput in proportion to the
commands they keep in flight: their *queue share* (NetApp: hosts with smaller queue depths
"are being deprived of access"). QUEUE FULL breaks that where real arrays break it: a refused
command keeps no place at the array, so its retry competes anew with every other arrival,
and a host whose throttle backs off while its neighbours' do not loses the slots they grab
(VMware KB 1008113: hosts without an adaptive algorithm "may consume the resources/slots on
the array that are freed up by the adaptive hosts").

:func:`starving` names, LUN by LUN, the hosts served far below their queue share while the
array kept refusing them. A host's queue share counts the commands it kept outstanding on
the LUN (time-averaged, completed or not), at most its configured per-LUN queue depth over
all its paths: a host that keeps more I/Os than its own queue holds waits in its own
operating system, which is not the array's doing.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from sanpath.results.groups import DeviceFigures

STARVE_SHARE = 0.25
"""A host starves on a LUN when it is served less than this share of its queue share."""
STARVE_REFUSALS = 1.0
"""... and the array refused it at least this many times per command it served."""


@dataclass(frozen=True)
class Starving:
    """One host starving on one LUN over the measurement window."""

    host: str
    lun: str
    iops: float
    """Commands per second the host completed on the LUN."""
    fair_iops: float
    """Its queue share of the commands per second the LUN completed for every host."""
    refused: int
    """QUEUE FULL answers the host got from the LUN's path (port and LUN queue)."""
    served: int
    """Commands it completed."""

    @property
    def share(self) -> float:
        """Served over the queue share (0 to 1 for a starving host)."""
        return self.iops / self.fair_iops if self.fair_iops > 0 else math.nan

    def text(self) -> str:
        """One line naming the host, the LUN and the numbers."""
        per = f"{self.refused / self.served:,.0f}" if self.served else f"{self.refused:,} (none"
        end = " per command served" if self.served else " served)"
        return (
            f"{self.host} on {self.lun}: {self.iops:,.1f} commands/s, {100 * self.share:.0f}% "
            f"of its queue share ({self.fair_iops:,.1f}/s); refused QUEUE FULL {per}{end}"
        )

    def to_dict(self) -> dict[str, float | int | str]:
        """JSON shape."""
        return {
            "host": self.host,
            "lun": self.lun,
            "iops": self.iops,
            "fair_iops": self.fair_iops,
            "share": self.share,
            "refused": self.refused,
            "served": self.served,
        }


def starving(
    devices: Sequence[DeviceFigures], depths: Mapping[tuple[str, str], float]
) -> list[Starving]:
    """The hosts that starve, LUN by LUN, most starved first.

    ``devices`` are the per host and LUN figures of one window; ``depths`` gives, by
    ``(host, lun)``, the commands the host may keep on the LUN over all its paths as
    configured (``math.inf`` or absent: no limit). On a LUN shared by two hosts or more,
    where some command was refused, a host starves when it completed less than
    ``STARVE_SHARE`` (a quarter) of its queue share of the LUN's completions and was refused
    at least ``STARVE_REFUSALS`` (once) per command it completed (a host that completed
    nothing, while refused, counts as refused without end).
    """
    refused = {d.lun for d in devices if d.qfull}  # most runs: none (one pass, no lists)
    by_lun: dict[str, list[DeviceFigures]] = {}
    if refused:
        for d in devices:
            if d.lun in refused:
                by_lun.setdefault(d.lun, []).append(d)
    out: list[Starving] = []
    for lun, devs in by_lun.items():
        if len(devs) < 2:
            continue
        span = devs[0].span_s
        if span <= 0:
            continue
        demand = {
            d.host: min(d.outstanding_s / span, depths.get((d.host, lun), math.inf)) for d in devs
        }
        total_demand = sum(demand.values())
        served_rate = sum(d.reads + d.writes for d in devs) / span
        if total_demand <= 0 or served_rate <= 0:
            continue
        for d in devs:
            served = d.reads + d.writes
            fair = served_rate * demand[d.host] / total_demand
            iops = served / span
            refused_enough = d.qfull >= STARVE_REFUSALS * served and d.qfull > 0
            if fair > 0 and iops < STARVE_SHARE * fair and refused_enough:
                out.append(Starving(d.host, lun, iops, fair, d.qfull, served))
    out.sort(key=lambda x: x.share)
    return out


def starvation_warning(found: Sequence[Starving]) -> str:
    """The run's warning naming the starving hosts (empty when none)."""
    if not found:
        return ""
    hosts = sorted({s.host for s in found})
    return (
        f"STARVING: {', '.join(hosts)} (served below {STARVE_SHARE:.0%} of the queue share "
        "while the array kept refusing with QUEUE FULL): "
        + "; ".join(s.text() for s in found)
        + ". Their retries lose the freed slots to the other hosts' commands (retries are not "
        "first come first served), or their throttle backed off while the others did not; "
        "give every host sharing the LUN the same throttle and a queue depth that keeps the "
        "sum within the array's limit (sanpath check)"
    )
