"""The event queue: what the kernel has scheduled, in the order SimPy processes it.

An entry (:class:`Keyed`) is processed in the order of its key: its time (s), then its
priority, then the order it was scheduled in (every key is distinct). :class:`Agenda` keeps
the entries in a binary heap (:func:`_push`, :func:`_pop`), which compares the keys as C
numbers, not through Python's comparisons, with one shortcut: an entry scheduled for now
with normal priority comes after every entry already due now, and before any later one, so
it would go to the top of the heap and come straight off it again. Such entries wait in a
list, in the order they were scheduled, and :meth:`Agenda.pop` takes the first of them
unless the heap's top comes before it.

Both cores keep their queue here (:mod:`sanpath.sim.kernel`); the pop order is
:mod:`heapq`'s on the keys (``tests/sim/test_agenda.py``). This module knows nothing of the
kernel: an entry is processed by its own ``_fire``.
"""

from __future__ import annotations

from abc import abstractmethod
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    # i64: a 64-bit integer to mypyc, which then indexes the heap and compares keys without
    # Python's integers (to Python, an int: only annotations name it)
    from mypy_extensions import i64


class Keyed:
    """A place in the queue: its key, time (s), priority and order (set when it is
    scheduled).

    Abstract: the kernel's classes of entry derive from it, and only three of them can be
    made (see :mod:`sanpath.sim.kernel`).
    """

    __slots__ = ("order", "priority", "time")

    time: float
    priority: i64
    order: i64

    @abstractmethod
    def _fire(self) -> None:
        """Process the event, taken off the queue and its time made now (its callbacks run,
        in order; the run's stop ends them)."""


class Agenda:
    """The entries scheduled and not yet processed (see the module docstring)."""

    __slots__ = ("_first", "_heap", "_instant")

    def __init__(self) -> None:
        self._heap: list[Keyed] = []
        """A binary heap of the entries, by key."""
        self._instant: list[Keyed] = []
        """Entries due now with normal priority, in the order they were scheduled (the
        first ``_first`` of them already taken)."""
        self._first: i64 = 0

    def push(self, entry: Keyed) -> None:
        """Add ``entry``, its key set."""
        _push(self._heap, entry)

    def push_now(self, entry: Keyed) -> None:
        """Add ``entry``, due now with normal priority and scheduled after every other."""
        self._instant.append(entry)

    def pop(self) -> Keyed | None:
        """Take the first entry off the queue; None when there is none."""
        instant, heap = self._instant, self._heap
        first: i64 = self._first
        if first < len(instant):
            entry = instant[first]
            if not heap or not _before(heap[0], entry):
                first += 1
                if first == len(instant):
                    instant.clear()
                    first = 0
                self._first = first
                return entry
        if not heap:
            return None
        return _pop(heap)

    def peek(self) -> float | None:
        """The time (s) of the first entry; None when there is none."""
        heap, instant = self._heap, self._instant
        if self._first < len(instant):
            return instant[self._first].time  # due now: nothing comes earlier
        return heap[0].time if heap else None


def _before(a: Keyed, b: Keyed) -> bool:
    """Whether queue entry ``a`` comes before ``b`` (time, then priority, then order).

    The heap's loops compare the times themselves and call this only for equal times: most
    comparisons are then one of two C numbers, without a call.
    """
    if a.time != b.time:
        return a.time < b.time
    if a.priority != b.priority:
        return a.priority < b.priority
    return a.order < b.order


def _push(heap: list[Keyed], entry: Keyed) -> None:
    """Add ``entry`` to the binary heap ``heap``."""
    heap.append(entry)
    _sift_up(heap, len(heap) - 1, entry)


def _sift_up(heap: list[Keyed], i: i64, entry: Keyed) -> None:
    """Put ``entry`` at place ``i`` of ``heap`` or, moving the entries it comes before one
    level down, above it."""
    time = entry.time
    while i > 0:
        parent: i64 = (i - 1) >> 1
        above = heap[parent]
        if time > above.time or (time == above.time and not _before(entry, above)):
            break
        heap[i] = above
        i = parent
    heap[i] = entry


def _pop(heap: list[Keyed]) -> Keyed:
    """Remove and return the first entry of the non-empty binary heap ``heap``.

    As :mod:`heapq` does, the hole left at the top moves down to a leaf, each time taking
    the earlier child, and the heap's last entry then moves up from there: it belongs near
    the bottom, so this takes about one comparison per level rather than two.
    """
    last = heap.pop()
    n: i64 = len(heap)
    if n == 0:
        return last
    first = heap[0]
    i: i64 = 0
    child: i64 = 1
    while child < n:
        # each entry read once: a read from the list checks the entry's type
        low = heap[child]
        other: i64 = child + 1
        if other < n:
            right = heap[other]
            if right.time < low.time or (right.time == low.time and _before(right, low)):
                child, low = other, right
        heap[i] = low
        i = child
        child = 2 * i + 1
    _sift_up(heap, i, last)
    return first
