"""A host's limit on the read data it asks for, set by congestion notifications.

With ``hosts.N.fpin_response: rate_limit`` a host answers the switches' congestion
notifications (:mod:`sanpath.sim.fpin`) as Broadcom's lpfc driver does in its ``managed``
congestion mode: it holds back reads beyond a rate it lowers on each notification and
raises again while none comes. Times are seconds, sizes bytes, rates bytes per second.
"""

from __future__ import annotations

from typing import Final

LIMIT_CUT: Final = 0.5
"""A congestion notification sets a host's read limit to this share of the read rate it
asked for in the window just past (assumed)."""
LIMIT_RAISE: Final = 1.25
"""A window without one raises the limit by this factor (assumed)."""
LIMIT_FLOOR: Final = 0.001
"""The limit never falls below this share of the host's link rate (assumed)."""


class ReadLimit:
    """A host's limit on the read data it asks for, bytes/s, set by congestion
    notifications (``hosts.N.fpin_response: rate_limit``; Broadcom lpfc's ``managed``
    congestion mode): a read waits in the driver until the reads before it have had their
    time at the limit (:meth:`admit`); no limit until the first notification.

    At each polling window's end (:meth:`window`) the limit becomes :data:`LIMIT_CUT` of the read
    rate the host asked for in the window if the switch notified it, else it rises by
    :data:`LIMIT_RAISE` and is lifted once it passes ``ceiling`` (the host's link rate); never
    below :data:`LIMIT_FLOOR` of ``ceiling``. The factors are assumed (the adapter firmware's are
    not published).
    """

    __slots__ = ("asked", "asked_then", "ceiling", "free", "limit")

    def __init__(self, ceiling: float) -> None:
        self.ceiling = ceiling
        """The host's link rate, bytes/s: a limit above it is no limit."""
        self.limit = 0.0
        """Bytes/s the host's reads may ask for (0: no limit)."""
        self.free = 0.0
        """When the reads asked so far have had their time at the limit, seconds."""
        self.asked = 0.0
        """Bytes of reads asked since the run began."""
        self.asked_then = 0.0
        """``asked`` at the end of the last window."""

    def admit(self, now: float, size: int) -> float:
        """When a read of ``size`` bytes the host asks for at ``now`` may go, seconds."""
        self.asked += size
        limit = self.limit
        if limit <= 0.0:
            return now
        free = self.free
        start = free if free > now else now
        self.free = start + size / limit
        return start

    def window(self, length: float, notified: bool) -> float:
        """A polling window of ``length`` seconds ended, ``notified`` or not: the new
        limit, bytes/s (0: none)."""
        rate = (self.asked - self.asked_then) / length
        self.asked_then = self.asked
        limit = self.limit
        if notified:
            if limit <= 0.0 or rate < limit:
                limit = rate
            limit *= LIMIT_CUT
            floor = LIMIT_FLOOR * self.ceiling
            limit = limit if limit > floor else floor
        elif limit > 0.0:
            limit *= LIMIT_RAISE
            if limit >= self.ceiling:
                limit = 0.0
        self.limit = limit
        return limit


__all__ = ["LIMIT_CUT", "LIMIT_FLOOR", "LIMIT_RAISE", "ReadLimit"]
