"""How figures appear in findings: counts, shares, rates, sizes and host names."""

from __future__ import annotations

import math

from sanpath import units
from sanpath.readable import figure
from sanpath.spec import HostSpec


def num(x: float) -> str:
    """A count for a message: whole numbers whole, with thousands separators (``65,536``:
    the arithmetic a message shows stays exact); others to three significant digits
    (``303,000``, ``13.2``)."""
    if math.isinf(x):
        return "unbounded"
    if abs(x - round(x)) < 1e-9:
        return f"{round(x):,d}"
    return figure(x)


def pct(x: float) -> str:
    """A share (1.0 is 100%) as a whole percentage."""
    return "unbounded" if math.isinf(x) else f"{100 * x:,.0f}%"


def mbps(x: float | None) -> str:
    """A rate in bytes per second as MB/s (None or inf: unlimited)."""
    return "unlimited" if x is None or math.isinf(x) else f"{x / 1e6:,.0f} MB/s"


def size_text(n: int) -> str:
    """A size in bytes as sanpath writes sizes (``64KiB``)."""
    return units.format_bytes(int(n))


def host_label(host: HostSpec) -> str:
    """A host group's name, with the number of hosts when there are several."""
    return host.name if host.count == 1 else f"{host.name} ({host.count} hosts)"
