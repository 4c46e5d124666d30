"""The queues a scenario key sizes, so that a schedule can resize them during a run.

The simulator registers every queue under the dotted key that sizes it (its
:func:`~sanpath.spec.knob_key`, e.g. ``hosts.0.lun_queue_depth``); a :class:`Knob` holds the
queues of one key and the key's value now (:mod:`sanpath.sim.schedule` sets it; a route made
later takes its value).
"""

from __future__ import annotations

import math

from sanpath.sim.station import SlotPool


def slot_servers(depth: int | None) -> float:
    """A slot station's server count for a depth limit (infinite when there is none)."""
    return math.inf if depth is None else float(depth)


Rank = int
"""Where a queue stands in the order the eager build made them (host, then LUN, then path:
:meth:`sanpath.sim.routes.RouteMaker.rank`). Resizing queues lets their waiters in, queue by
queue, so the order decides the order of the events that follow."""


class Knob:
    """The queues one scenario key sizes (``hosts.0.lun_queue_depth``) and its value now.

    A schedule changes the value with :meth:`set`; a queue made later starts from it. The
    queues are resized in the order the eager build made them (their :data:`Rank`).
    """

    __slots__ = ("_pools", "_ranks", "_sorted", "value")

    def __init__(self, value: int | None) -> None:
        self.value = value
        self._pools: list[SlotPool] = []
        self._ranks: list[Rank] = []
        self._sorted = True

    def add(self, pool: SlotPool, rank: Rank) -> SlotPool:
        """Count ``pool`` (of build order ``rank``) among the queues this key sizes."""
        ranks = self._ranks
        if ranks and rank < ranks[-1]:
            self._sorted = False
        ranks.append(rank)
        self._pools.append(pool)
        return pool

    @property
    def pools(self) -> list[SlotPool]:
        """The queues made so far, in build order."""
        if not self._sorted:
            order = sorted(range(len(self._ranks)), key=self._ranks.__getitem__)
            self._ranks = [self._ranks[i] for i in order]
            self._pools = [self._pools[i] for i in order]
            self._sorted = True
        return self._pools

    def set(self, value: int | None) -> None:
        """Resize every queue of the key now, and the ones made from now on."""
        self.value = value
        for pool in self.pools:
            pool.set_capacity(value)
