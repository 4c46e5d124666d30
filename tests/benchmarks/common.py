"""Helpers shared by the benchmark scripts beside this file (bench.py, scale_bench.py,
bench_trace.py)."""

from __future__ import annotations

from typing import Any


def say(text: str = "") -> None:
    """Print at once (a full benchmark run takes minutes)."""
    print(text, flush=True)


def same_tables(a: Any, b: Any) -> bool:
    """Whether two sweeps gave the same table, apart from each run's wall time."""
    return bool(a.table.drop(columns="wall_seconds").equals(b.table.drop(columns="wall_seconds")))
