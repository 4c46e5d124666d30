"""Buffer-to-buffer credits: when they cap a Fibre Channel link, and the rate they leave it.

A Fibre Channel port may send a frame only while it holds a credit: the receiver advertises
its receive buffers at login, the sender spends one credit per frame, and the receiver
returns it (R_RDY) once the frame has arrived and its buffer is free again. A credit is
therefore away for one *credit cycle* from the moment its frame starts::

    cycle = frame time + 2 x light time + drain time

(the frame on the wire, light to the far end, the receiver's time to free the buffer, and
light back; the R_RDY primitive's own 4 bytes are left out). A port with ``credits`` credits
sends at most ``credits`` frames per cycle, so a link's throughput is the smaller of its line
rate and ``credits x frame / cycle``. Credits bind once ``credits x frame time`` is shorter
than the cycle: with light at 5 us/km and a full 2,108-byte frame at 2 Gb/s (212.5 MB/s,
about 10 us), that is one credit per km at 2 Gb/s, the published rule of thumb (Brocade
Adapters Administrator's Guide 53-1001256-01, 2009: "one credit per kilometer at 2 Gbps",
giving 10/20/40 credits for 10 km at 2/4/8 Gb/s).

A link of no length whose receiver frees its buffers at once never runs out: a credit is back
when its frame has been sent. Times are seconds, sizes bytes, rates bytes per second.
"""

from __future__ import annotations

from dataclasses import dataclass

from sanpath.spec import LIGHT_PER_KM, TRANSPORTS, Scenario


@dataclass(frozen=True)
class CreditLimit:
    """One direction of a link under buffer-to-buffer credits.

    ``frame`` is the wire bytes of a full frame (payload and overhead), ``overhead`` the
    wire bytes of a frame besides its payload (the whole of a status frame), ``back`` the
    seconds from a frame's last byte leaving the port until its credit is back (light both
    ways and the receiver's drain time).
    """

    credits: int
    frame: int
    overhead: int
    back: float

    def cycle(self, rate: float) -> float:
        """Seconds a full frame's credit is away at line rate ``rate``: frame time and back."""
        return self.frame / rate + self.back

    def binds(self, rate: float) -> bool:
        """Whether the credits cap a link of line rate ``rate`` below it: ``credits`` full
        frames take less time to send than one frame's credit takes to come back."""
        return self.credits * self.frame / rate < self.cycle(rate)

    def rate(self, rate: float) -> float:
        """The link's sustained wire rate, bytes/s: ``min(rate, credits x frame / cycle)``."""
        if not self.binds(rate):
            return rate
        return self.credits * self.frame / self.cycle(rate)

    def needed(self, rate: float) -> int:
        """The fewest credits that keep a link of line rate ``rate`` at full speed."""
        frame_time = self.frame / rate
        return max(1, -int(-(frame_time + self.back) // frame_time))


def host_link_credits(
    scenario: Scenario, group: int, hba: int
) -> tuple[CreditLimit, CreditLimit] | None:
    """The credits of the links of host group ``group``'s HBA spec ``hba`` to the array,
    outwards (toward the array) and inwards (toward the host); None on an Ethernet
    transport, which has no buffer-to-buffer credits.

    Each host port's link is ``fabric.distance_km`` long (the simple fabric: one link
    between host and array); it holds the HBA's ``credits`` (else ``fabric.credits``) in
    each direction. The host's ``drain_time`` delays every credit of the inward direction:
    the host frees its receive buffers that much later.
    """
    host = scenario.hosts[group]
    if TRANSPORTS[host.transport].ethernet:
        return None
    fabric = scenario.fabric
    given = host.hbas[hba].credits
    credits = fabric.credits if given is None else given
    frame = fabric.frame_payload + fabric.frame_overhead
    light = 2.0 * fabric.distance_km * LIGHT_PER_KM
    return (
        CreditLimit(credits, frame, fabric.frame_overhead, light),
        CreditLimit(credits, frame, fabric.frame_overhead, light + host.drain_time),
    )


def host_link_rates(scenario: Scenario, group: int, hba: int) -> tuple[float | None, float | None]:
    """The sustained wire rates of host group ``group``'s HBA spec ``hba`` port links,
    outwards and inwards, bytes/s: the line rate, or less where the credits bind (None: a
    link of no limit)."""
    speed = scenario.hosts[group].hbas[hba].speed
    limits = host_link_credits(scenario, group, hba)
    if speed is None or limits is None:
        return speed, speed
    out, back = limits
    return out.rate(speed), back.rate(speed)


__all__ = ["CreditLimit", "host_link_credits", "host_link_rates"]
