"""The garbage collector during a run: fewer, larger collections.

A run makes no reference cycles as it goes (commands, events and processes are freed by
reference counting when they complete: a run collected at its end finds no garbage), but it
keeps a growing set of long-lived objects: the routes, sources and per-device counters a
thousand hosts make on first use. CPython examines every tracked object in a full
(generation 2) collection, and starts one whenever the long-lived objects have grown by a
quarter since the last: in a 100,000-I/O run of ``scenarios/enterprise.yaml`` that was six
full collections over half a million objects, and 2 of its 10 CPU seconds went to the
collector (0.3 s of the one-host run's 5). The middle generation costs the same way: every
young collection moves the long-lived objects it finds there, and CPython examines them
all again at every tenth (in a 100,000-I/O run of the quickstart on 1,000 hosts, 17
middle-generation collections of up to 100,000 objects took 0.6 of its 6 CPU seconds).
:func:`few_collections` raises the thresholds while the simulation runs: a young collection
every :data:`YOUNG` net allocations rather than 700, a middle-generation one after at least
:data:`MIDDLE_EVERY` young ones (so none in a run of a few million I/Os), a full one after
at least :data:`FULL_EVERY` middle-generation collections, and puts them back afterwards,
so the next full collection (which also frees the finished run) happens in the caller's
time. Before they are put
back, the young generation is collected (a few thousand objects, milliseconds): up to
:data:`YOUNG` allocations are counted since the last young collection, and CPython's
default threshold of 700 would otherwise start the postponed collections, the full one
included (a second or more at a thousand hosts), at the block's next allocation, inside
the run. They are put back however the block ends (an exception included), and a caller
that switched automatic collection off (a first threshold of 0) keeps it off.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

YOUNG = 10_000
"""Net allocations of tracked objects between two young collections during a run (CPython's
default is 700)."""
MIDDLE_EVERY = 1000
"""Young collections at least between two middle-generation collections during a run
(CPython's default is 10)."""
FULL_EVERY = 1000
"""Middle-generation collections at least between two full collections during a run
(CPython's default is 10)."""


@contextmanager
def few_collections(
    young: int = YOUNG, every: int = FULL_EVERY, middle: int = MIDDLE_EVERY
) -> Iterator[None]:
    """Within the block, collect the young generation every ``young`` allocations, the
    middle one only after ``middle`` young collections and the whole heap only after
    ``every`` middle-generation collections (thresholds already set higher are kept, and so
    is a first threshold of 0: automatic collection off); the thresholds are restored when
    the block ends, also by an exception."""
    old = gc.get_threshold()
    first = max(old[0], young) if old[0] > 0 else 0
    gc.set_threshold(first, max(old[1], middle), max(old[2], every))
    try:
        yield
    finally:
        if first > 0 and gc.isenabled():
            gc.collect(0)  # nothing due when the thresholds go back (module docstring)
        gc.set_threshold(*old)
