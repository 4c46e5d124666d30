"""The fork-join of a split I/O: the commands an application I/O larger than the host's
split limit became, and the event its process waits on until the last of them is done.

Both are small native objects of the compiled core: :class:`Signal` is the kernel's
:class:`~sanpath.sim.kernel.Wake` scheduled when it is fired (not when made), so the kernel
resumes the waiting process directly, in the same order as a SimPy event succeeded then.
"""

from __future__ import annotations

from typing import cast

import simpy

from sanpath.sim.kernel import Wake


class Signal(Wake):
    """An event fired once, now, by :meth:`succeed` (as ``simpy.Event.succeed()``)."""

    __slots__ = ()

    def succeed(self) -> Signal:
        """Schedule the event now, for the process waiting on it."""
        self.env.schedule(self)
        return self

    def waited(self) -> simpy.Event:
        """The signal as the event a process yields (a SimPy event to the type checker)."""
        return cast(simpy.Event, self)


class ChildJoin:
    """Fork-join of the commands a split I/O became.

    ``event`` is made only when the I/O has to wait for commands still running; the last
    command to finish fires it.
    """

    __slots__ = ("event", "last_layers", "remaining")

    def __init__(self, n: int) -> None:
        self.remaining = n
        """Commands not yet done."""
        self.event: Signal | None = None
        self.last_layers: list[float] = []
        """The latency breakdown (s by layer) of the command that finished last."""
