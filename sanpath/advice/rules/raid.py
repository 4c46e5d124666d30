"""Rules on writes and RAID: SP012 RAID 5/6 write penalty, SP013 write-aside."""

from __future__ import annotations

from typing import Any

from sanpath.advice.analysis import validated as _valid
from sanpath.advice.fmt import size_text as _size
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.advice.report import Severity
from sanpath.layout import WRITE_PENALTY
from sanpath.spec import Scenario

RAID_WRITE_WARNING = 0.5
"""RAID 5/6 pools whose writes are at least this share of the I/Os get a warning."""
RAID_WRITE_INFO = 0.3
"""... and at least this share an info finding."""

SRC_RAID = (
    "RAID write penalties: RAID 10 two drive writes, RAID 5 four drive I/Os, RAID 6 six per "
    "small random write (crucial.com.au 2010; git.xyzzy.ee 'RAID penalties')."
)
SRC_WRITE_ASIDE = (
    "Lonny Niederstadt (2013): VNX write-aside of 2048 blocks (1 MiB) sends larger writes "
    "past the write cache, and pool LUNs cannot change it; EMC CLARiiON best practices "
    "h5773."
)


def raid10_drives(drives: int) -> tuple[int, str]:
    """Drives per group for RAID 10 in place of a group of ``drives``, and why, if not the same.

    RAID 10 mirrors drives in pairs and needs at least two pairs. The fix changes only the
    RAID level: an even group of 4 or more keeps its drives. An odd group gives up one drive
    (it stays in the array as a spare), so the comparison never credits RAID 10 with drives
    the proposal did not buy; a group of 3 needs a fourth drive.
    """
    if drives >= 4 and drives % 2 == 0:
        return drives, ""
    if drives >= 5:
        return drives - 1, (
            f"RAID 10 mirrors drives in pairs, so a group of {drives} keeps {drives - 1} and "
            "leaves one as a spare"
        )
    return 4, f"RAID 10 needs at least two mirrored pairs, one drive more than {drives}"


@rule(
    "SP012-raid-write-penalty",
    "warning",
    "RAID 5/6 under a write-heavy load",
    metric="iops",
    source=SRC_RAID,
)
def check_raid_writes(s: Scenario, options: CheckOptions) -> list[Found]:
    """RAID 5 or RAID 6 pools whose workloads write a large share of partial-stripe I/Os.

    Writes are weighted by each workload's load on the pool (closed loop: hosts x threads x
    outstanding; open loop: rate). Warning at 50% writes or more, info from 30%. Writes
    that cover whole stripe rows sequentially are not counted (no read-modify-write).
    """
    pa = options.paths(s)
    findings = []
    for pi, pool in enumerate(s.array.pools):
        if pool.raid not in ("raid5", "raid6"):
            continue
        row = pool.data_drives * pool.stripe_element
        weight = writes = 0.0
        for (g, li), ws in pa.workloads.items():
            if pa.luns[li].pool_index != pi:
                continue
            count = s.hosts[g].count
            for w in ws:
                load = count * (w.threads * w.outstanding_per_lun if w.closed else (w.rate or 0.0))
                partial = sum(
                    frac
                    for size, frac in pa.command_sizes(g, w)
                    if w.pattern == "random" or size % row != 0
                )
                weight += load
                writes += load * (1 - w.read_fraction) * partial
        if weight <= 0:
            continue
        share = writes / weight
        if share < RAID_WRITE_INFO:
            continue
        severity: Severity = "warning" if share >= RAID_WRITE_WARNING else "info"
        penalty = WRITE_PENALTY[pool.raid]
        now = (1 - share) + share * penalty
        r10 = (1 - share) + share * 2
        drives, why = raid10_drives(pool.drives)
        fix: dict[str, Any] | None = {f"array.pools.{pi}.raid": "raid10"}
        assert fix is not None
        if drives != pool.drives:
            fix[f"array.pools.{pi}.drives"] = drives
        if _valid(s, fix) is None:
            fix = None
        findings.append(
            Found(
                severity=severity,
                title=(
                    f"Pool {pool.name}: {pool.raid.upper()} with {100 * share:.0f}% small writes"
                ),
                message=(
                    f"{100 * share:.0f}% of the I/Os on pool {pool.name} ({pool.raid}, "
                    f"{pool.drives} drives per group) are writes smaller than a stripe row "
                    f"({_size(row)}). Each costs {penalty} drive operations, so the pool does "
                    f"about {now:.2f} drive operations per front-end I/O; RAID 10 would do "
                    f"{r10:.2f}."
                ),
                mechanism=(
                    "A partial-stripe write on parity RAID must read the old data and parity and "
                    "write both back (RAID 6 also the second parity). A write-back cache hides "
                    "this only until destaging cannot keep up."
                ),
                numbers={
                    "pool": pool.name,
                    "raid": pool.raid,
                    "write_share": share,
                    "write_penalty": penalty,
                    "drive_ops_per_io": now,
                    "drive_ops_per_io_raid10": r10,
                    "raid10_drives_per_group": drives,
                },
                fix=fix,
                fix_text=(
                    f"Use RAID 10 for this pool, keeping its {pool.drives} drives per group; "
                    "it costs capacity: half the drives hold copies."
                    if fix is not None and drives == pool.drives
                    else f"Use RAID 10 for this pool with {drives} drives per group instead of "
                    f"{pool.drives}: {why}. It costs capacity: half the drives hold copies."
                    if fix is not None
                    else "Use RAID 10, or a pool with room for the extra drive operations."
                ),
            )
        )
    return findings


@rule(
    "SP013-write-aside",
    "warning",
    "writes past the write-aside size",
    metric="latency_ms_mean",
    better="lower",
    source=SRC_WRITE_ASIDE,
)
def check_write_aside(s: Scenario, options: CheckOptions) -> list[Found]:
    """Write commands larger than the array's write-aside size, which bypass its cache.

    Uses the command sizes after host splitting (what the array receives). Warning when the
    bypassing writes land on RAID 5/6 as partial stripes (read-modify-write on the host's
    clock), info otherwise: large sequential writes may bypass the cache on purpose.
    """
    cache = s.array.cache
    if not cache.write_back or cache.write_aside is None:
        return []
    pa = options.paths(s)
    findings = []
    seen: set[tuple[str, int]] = set()
    for (g, li), ws in pa.workloads.items():
        pool = pa.luns[li].pool
        row = pool.data_drives * pool.stripe_element
        for w in ws:
            if w.read_fraction >= 1.0:
                continue
            over = [
                (size, frac) for size, frac in pa.command_sizes(g, w) if size > cache.write_aside
            ]
            if not over or (w.name, pa.luns[li].pool_index) in seen:
                continue
            seen.add((w.name, pa.luns[li].pool_index))
            largest = max(size for size, _ in over)
            share = sum(frac for _, frac in over)
            rmw = pool.raid in ("raid5", "raid6") and (
                w.pattern == "random" or any(size % row for size, _ in over)
            )
            severity: Severity = "warning" if rmw else "info"
            findings.append(
                Found(
                    severity=severity,
                    title=(
                        f"{w.name}: writes up to {_size(largest)} bypass the write cache "
                        f"(write-aside {_size(cache.write_aside)})"
                    ),
                    message=(
                        f"Workload {w.name} sends {100 * share:.0f}% of its write commands larger "
                        f"than the write-aside size ({_size(cache.write_aside)}) to pool "
                        f"{pool.name} ({pool.raid}); they go straight to the drives"
                        + (
                            f", as partial stripes of a {_size(row)} row (read-modify-write)."
                            if rmw
                            else "."
                        )
                    ),
                    mechanism=(
                        "Writes above the write-aside size skip the write cache and are "
                        "acknowledged only when the drives have them. That protects the cache "
                        "from large streams, but costs those writes the full drive latency."
                    ),
                    numbers={
                        "workload": w.name,
                        "write_aside": cache.write_aside,
                        "largest_write_command": largest,
                        "share_of_commands_over": share,
                        "read_modify_write": rmw,
                    },
                    fix={"array.cache.write_aside": _size(largest)},
                    fix_text=(
                        f"Raise the write-aside size to {_size(largest)} so these writes are "
                        "cached (not possible on VNX pool LUNs); or keep it if the writes are a "
                        "large stream that would flood the cache."
                    ),
                )
            )
    return findings
