"""Argument checks shared by the open-queue formulas and Mean Value Analysis.

They turn numbers from a caller into the validated values the formulas use, with a
``ValueError`` that names the argument otherwise.
"""

from __future__ import annotations

import math
import operator


def check_rate(name: str, value: float, *, positive: bool) -> float:
    value = float(value)
    if not math.isfinite(value) or value < 0.0 or (positive and value == 0.0):
        kind = "positive" if positive else "non-negative"
        raise ValueError(f"{name} must be a finite {kind} number, got {value!r}")
    return value


def check_servers(c: int) -> int:
    c = operator.index(c)
    if c < 1:
        raise ValueError(f"number of servers must be >= 1, got {c}")
    return c


def check_population(population: int, name: str = "population") -> int:
    n = operator.index(population)
    if n < 1:
        raise ValueError(f"{name} must be >= 1, got {n}")
    return n
