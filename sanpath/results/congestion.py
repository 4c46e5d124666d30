"""Victims of congestion: hosts that waited for ISL credits another host's frames held.

A slow-draining host's frames sit in a switch's buffers, and the ISL that feeds the switch
runs out of credits; every host whose frames cross that ISL waits behind them
(head-of-line blocking). The simulator counts, per waiting host and per host whose held
frames it waited for, the seconds its frames waited for an ISL credit.
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


__all__ = ["VICTIM_SHARE", "Victim", "victims"]
