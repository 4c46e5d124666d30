"""A scenario's load in one line, for the subtitles of plots and the heads of tables.

``16 hosts x 4 LUNs: 8KiB random reads, 32 outstanding per LUN`` says who issues what: the
host instances and LUNs of the scenario, then each workload's sizes, offsets, direction and
load (workloads separated by ``;``). For a sweep, the keys it varies are written as the range
of their values (``1-32 hosts``, ``1-256 outstanding per LUN``), so the line never states a
setting that the sweep changes.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from sanpath.units import UnitError, format_bytes, parse_bytes

if TYPE_CHECKING:
    from sanpath.spec.scenario import Scenario
    from sanpath.spec.workload import WorkloadSpec

__all__ = ["load_line", "value_range", "workload_words"]

_WORKLOAD_KEY = re.compile(r"workloads\.(\d+|\*)\.(block_size|outstanding|rate|read_fraction)$")


def _share(fraction: float) -> str:
    return f"{100 * fraction:.0f}%"


def _sizes(mix: tuple[tuple[int, float], ...]) -> str:
    sizes = sorted(size for size, _ in mix)
    if len(sizes) == 1:
        return format_bytes(sizes[0])
    return f"{format_bytes(sizes[0])}-{format_bytes(sizes[-1])}"


def value_range(key: str, values: Iterable[Any]) -> str:
    """The values a sweep gives ``key``, as ``lowest-highest`` (sizes in KiB/MiB)."""
    numbers: list[float] = []
    for value in values:
        if value is None:
            continue
        try:
            number = float(parse_bytes(value)) if key.endswith("block_size") else float(value)
        except (UnitError, TypeError, ValueError):
            return "varied"
        numbers.append(number)
    if not numbers:
        return "varied"
    low, high = min(numbers), max(numbers)

    def text(x: float) -> str:
        if key.endswith("block_size"):
            return format_bytes(int(x))
        if key.endswith("read_fraction"):
            return _share(x)
        return f"{x:,.0f}" if x.is_integer() else f"{x:g}"

    return text(low) if low == high else f"{text(low)}-{text(high)}"


def workload_words(workload: WorkloadSpec, varied: Mapping[str, str] | None = None) -> str:
    """One workload as ``8KiB random reads, 32 outstanding per LUN``.

    ``varied`` maps a field (``block_size``, ``outstanding``, ``rate``, ``read_fraction``) to
    the text that replaces its value (a sweep's range).
    """
    varied = varied or {}
    if "block_size" in varied:
        sizes = varied["block_size"]
    elif workload.per_direction:
        sizes = f"{_sizes(workload.read_sizes)} read / {_sizes(workload.write_sizes)} write"
    else:
        sizes = _sizes(workload.block_size)
    share = workload.random_share
    offsets = {1.0: "random", 0.0: "sequential"}.get(share, f"{_share(share)} random")
    rf = workload.read_fraction
    if "read_fraction" in varied:
        direction = f"I/Os, {varied['read_fraction']} reads"
    else:
        direction = {1.0: "reads", 0.0: "writes"}.get(rf, f"I/Os, {_share(rf)} reads")
    if "outstanding" in varied:
        load = f"{varied['outstanding']} outstanding per LUN"
    elif "rate" in varied:
        load = f"{varied['rate']} IOPS per host"
    elif workload.closed:
        load = f"{workload.outstanding_per_lun} outstanding per LUN"
    else:
        load = f"{workload.rate:,.0f} IOPS per host"
    if workload.closed and workload.threads > 1:
        load += f" in each of {workload.threads} threads"
    copy = ", copied to other LUNs" if workload.copy_to is not None else ""
    return f"{sizes} {offsets} {direction}, {load}{copy}"


def load_line(scenario: Scenario, varied: Mapping[str, str] | None = None) -> str:
    """The scenario's hosts, LUNs and workloads in one line (see the module).

    ``varied`` maps dotted keys a sweep changes to the text of their range
    (:func:`value_range`); host and LUN counts and the workloads' sizes, load and read share
    are written that way.
    """
    varied = dict(varied or {})
    hosts = str(sum(h.count for h in scenario.hosts))
    luns = str(sum(lun.count for lun in scenario.array.luns))
    for key, text in varied.items():
        if re.fullmatch(r"hosts\.(\d+|\*)\.count", key):
            hosts = text
        elif re.fullmatch(r"array\.luns\.(\d+|\*)\.count", key):
            luns = text
    parts = []
    for i, workload in enumerate(scenario.workloads):
        own = {}
        for key, text in varied.items():
            match = _WORKLOAD_KEY.fullmatch(key)
            if match and match.group(1) in (str(i), "*"):
                own[match.group(2)] = text
        parts.append(workload_words(workload, own))
    who = f"{hosts} host{'s' if hosts != '1' else ''} x {luns} LUN{'s' if luns != '1' else ''}"
    return f"{who}: " + "; ".join(parts)
