"""Congestion: its victims, and the notifications the switches send about it.

A slow-draining host's frames sit in a switch's buffers, and the ISL that feeds the switch
runs out of credits; every host whose frames cross that ISL waits behind them
(head-of-line blocking). The simulator counts, per waiting host and per host whose held
frames it waited for, the seconds its frames waited for an ISL credit (:class:`Victim`).
With ``fabric.fpin`` the switches notify the host behind a congested port, and its array
ports as peers; the host may limit its reads (:class:`Notified`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

VICTIM_SHARE: Final = 0.01
"""A wait shorter than this share of the window makes no victim (a frame held a few
microseconds while the next link finished another transfer is no congestion)."""


@dataclass(frozen=True)
class Victim:
    """One host (``host``) that waited for ISL credits held by another's (``culprit``)
    frames over the measurement window."""

    host: str
    culprit: str
    waited_s: float
    """Seconds its frames waited for those credits, summed over its frames' waits."""
    share: float
    """``waited_s`` over the window's length."""

    def text(self) -> str:
        """One line naming both hosts and the wait."""
        return (
            f"{self.host} waited {self.waited_s * 1e3:,.1f} ms for ISL credits held by "
            f"{self.culprit}'s frames ({100 * self.share:.0f}% of the window)"
        )

    def to_dict(self) -> dict[str, float | str]:
        """JSON shape."""
        return {
            "host": self.host,
            "culprit": self.culprit,
            "waited_s": self.waited_s,
            "share": self.share,
        }


@dataclass(frozen=True)
class Notified:
    """A host the switches notified of congestion at its port (FPIN, Congestion
    descriptor) over the measurement window, and what it did."""

    host: str
    fpins: int
    """Notifications it received (one per polling window its port was congested)."""
    peer_fpins: int
    """Notifications naming it sent to the array ports its reads came from (Peer
    Congestion descriptors)."""
    limited_share: float | None
    """Share of the window its reads ran under a limit it set (None: it sets none,
    ``fpin_response: none``)."""
    lowest_mb_s: float | None
    """Its lowest read limit in the window, MB/s (None: no limit held)."""

    def text(self) -> str:
        """One line: the notifications and the host's answer."""
        line = (
            f"{self.host} was notified of congestion {self.fpins:,} times "
            f"({self.peer_fpins:,} peer notifications to array ports)"
        )
        if self.limited_share is None:
            return line + "; it does not answer them (fpin_response: none)"
        if self.lowest_mb_s is None:
            return line + "; its reads ran unlimited"
        return (
            line + f"; it limited its reads {100 * self.limited_share:.0f}% of the window, "
            f"down to {self.lowest_mb_s:,.2f} MB/s"
        )

    def to_dict(self) -> dict[str, float | str | int | None]:
        """JSON shape."""
        return {
            "host": self.host,
            "fpins": self.fpins,
            "peer_fpins": self.peer_fpins,
            "limited_share": self.limited_share,
            "lowest_mb_s": self.lowest_mb_s,
        }


def congestion_lines(victims: tuple[Victim, ...], notified: tuple[Notified, ...]) -> list[str]:
    """The summary's lines for a run's ``victims`` and ``notified`` hosts (none for none)."""
    lines: list[str] = []
    if victims:
        lines.append("  victims of congestion they did not cause:")
        lines += [f"    {x.text()}" for x in victims]
    if notified:
        lines.append("  congestion notifications (FPIN):")
        lines += [f"    {x.text()}" for x in notified]
    return lines


def victims(waits: dict[tuple[int, int], float], names: list[str], span: float) -> list[Victim]:
    """The victims of ``waits`` (seconds by (waiting host, culprit host), hosts by their
    index into ``names``) that waited at least :data:`VICTIM_SHARE` of the window ``span``,
    longest wait first."""
    out = [
        Victim(names[host], names[culprit], waited, waited / span)
        for (host, culprit), waited in waits.items()
        if span > 0 and waited >= VICTIM_SHARE * span
    ]
    return sorted(out, key=lambda v: (-v.waited_s, v.host, v.culprit))


__all__ = ["VICTIM_SHARE", "Notified", "Victim", "congestion_lines", "victims"]
