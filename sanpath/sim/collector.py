"""The garbage collector during a run: full collections kept rare.

A run makes no reference cycles as it goes (commands, events and processes are freed by
reference counting when they complete: a run collected at its end finds no garbage), but it
keeps a growing set of long-lived objects: the routes, sources and per-device counters a
thousand hosts make on first use. CPython examines every tracked object in a full
(generation 2) collection, and starts one whenever the long-lived objects have grown by a
quarter since the last: in a 100,000-I/O run of ``scenarios/enterprise.yaml`` that was six
full collections over half a million objects, a fifth of the run's CPU time (0.3 s of the
one-host run's). :func:`rare_full_collections` asks for at least ``every`` collections of
the middle generation between two full ones while the simulation runs (a few million
allocations), and puts the thresholds back afterwards; young objects are collected as
always.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

FULL_EVERY = 1000
"""Generation-1 collections at least between two full collections during a run (CPython's
default is 10)."""


@contextmanager
def rare_full_collections(every: int = FULL_EVERY) -> Iterator[None]:
    """Within the block, full collections wait for ``every`` middle-generation ones."""
    young, middle, full = gc.get_threshold()
    gc.set_threshold(young, middle, max(full, every))
    try:
        yield
    finally:
        gc.set_threshold(young, middle, full)
