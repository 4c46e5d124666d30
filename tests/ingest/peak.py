"""The peak of Python allocations while a reader reads a file (for the streaming tests)."""

from __future__ import annotations

import tracemalloc
from collections.abc import Callable
from pathlib import Path

from sanpath.ingest.model import Measured


def read_with_peak(read: Callable[[Path], Measured], path: Path) -> tuple[Measured, int]:
    """``read(path)`` and the peak bytes traced while it ran."""
    tracemalloc.start()
    try:
        measured = read(path)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return measured, peak
