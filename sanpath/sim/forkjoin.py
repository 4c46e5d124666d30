"""The fork-join of a split I/O: the commands an application I/O larger than the host's
split limit became, and the event its process waits on until the last of them is done.

Both are small native objects of the compiled core: a ``Signal`` is the kernel's
:class:`~sanpath.sim.kernel.Wake` scheduled when it is fired (not when made), so the kernel
resumes the waiting process directly, in the same order as a SimPy event succeeded then.
"""

from __future__ import annotations

# Signal: an event fired once, now, by succeed() (as simpy.Event.succeed()); waited() gives
# it as the event a process yields. The kernel's Wake itself, imported under this name (an
# import, not an assignment, so that mypyc makes one directly): the compiled core's queue
# holds only three classes of entry (see sanpath.sim.kernel).
from sanpath.sim.kernel import Wake as Signal

__all__ = ["ChildJoin", "Signal"]


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
