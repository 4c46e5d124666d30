"""The wiring model (sanpath.layout): split sizes and RAID pool mapping, without a run."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath.layout import RaidLayout, merge, split_sizes
from sanpath.layout.raid import ranges
from sanpath.spec import PoolSpec


@pytest.mark.parametrize("size", [1, 4095, 4096, 65536, 1 << 20, (1 << 20) + 1])
@pytest.mark.parametrize("limit", [None, 4096, 65536, 512 * 1024])
def test_split_sizes_conserve_bytes(size: int, limit: int | None) -> None:
    parts = split_sizes(size, limit)
    assert sum(parts) == size
    expected = 1 if limit is None else -(-size // limit)
    assert len(parts) == expected
    assert all(p <= (limit or size) for p in parts)


def test_pool_slices_map_whole_slices_to_one_group() -> None:
    """Rows go round-robin over the groups; with ``slice`` whole slices do."""
    striped = RaidLayout(PoolSpec(name="p", raid="raid5", drives=5, groups=3))
    sliced = RaidLayout(PoolSpec(name="p", raid="raid5", drives=5, groups=3, slice="1MiB"))
    units = range(48)  # 64 KiB elements: 4 per 256 KiB row, 16 per 1 MiB slice
    assert [striped.locate(u)[0] for u in units] == [(u // 4) % 3 for u in units]
    assert [sliced.locate(u)[0] for u in units] == [u // 16 for u in units]
    assert sliced.locate(48) == (0, 4, 0)  # the fourth slice: group 0 again, after its 4 rows


# The mapping stated element by element: the reference the pool's row-by-row commands are
# checked against.
Ops = dict[tuple[int, int], list[tuple[int, int]]]


def _pieces(layout: RaidLayout, offset: int, size: int) -> list[tuple[int, int, int, int, int]]:
    """[offset, offset+size) as (group, row, j, in-element offset, length)."""
    out = []
    element = layout.element
    end = offset + size
    pos = offset
    while pos < end:
        unit = pos // element
        within = pos - unit * element
        length = min(element - within, end - pos)
        group, row, j = layout.locate(unit)
        out.append((group, row, j, within, length))
        pos += length
    return out


def _read_ops(
    layout: RaidLayout,
    offset: int,
    size: int,
    pick: Callable[[int, tuple[int, ...]], int] | None = None,
) -> Ops:
    """Drive reads of a read by (group, member), element by element."""
    ops: Ops = {}
    for group, row, j, within, length in _pieces(layout, offset, size):
        members = layout.data_members(row, j)
        member = members[0] if pick is None or len(members) == 1 else pick(group, members)
        ops.setdefault((group, member), []).append((row * layout.element + within, length))
    return ops


def _write_ops(layout: RaidLayout, offset: int, size: int) -> tuple[Ops, Ops]:
    """Drive reads (read-modify-write) and writes of a write, element by element."""
    reads: Ops = {}
    writes: Ops = {}
    rows: dict[tuple[int, int], list[tuple[int, int, int]]] = {}
    for group, row, j, within, length in _pieces(layout, offset, size):
        rows.setdefault((group, row), []).append((j, within, length))
    element = layout.element
    for (group, row), parts in rows.items():
        base = row * element
        parity = layout.parity_members(row)
        full_row = bool(parity) and sum(length for _, _, length in parts) == layout.row_bytes
        lo = min(within for _, within, _ in parts)
        hi = max(within + length for _, within, length in parts)
        for j, within, length in parts:
            for m in layout.data_members(row, j):
                writes.setdefault((group, m), []).append((base + within, length))
                if parity and not full_row:
                    reads.setdefault((group, m), []).append((base + within, length))
        for p in parity:
            rng = (base, element) if full_row else (base + lo, hi - lo)
            writes.setdefault((group, p), []).append(rng)
            if not full_row:
                reads.setdefault((group, p), []).append(rng)
    return reads, writes


def _flat(ops: Ops, width: int) -> list[tuple[int, ...]]:
    """The element-by-element mapping's drive commands, merged, as a pool submits them."""
    return [(g * width + m, *r) for (g, m), ranges in ops.items() for r in merge(ranges)]


def _spans(spans: dict[int, list[int]]) -> list[tuple[int, ...]]:
    return [(drive, *r) for drive, bounds in spans.items() for r in ranges(bounds)]


@settings(max_examples=300, deadline=None)
@given(
    level=st.sampled_from([("raid0", 4), ("raid1", 2), ("raid10", 8), ("raid5", 5), ("raid6", 6)]),
    groups=st.integers(1, 4),
    element=st.sampled_from([4096, 65536]),
    slice_=st.sampled_from([None, "1MiB"]),
    offset=st.integers(0, 1 << 26),
    size=st.integers(1, 1 << 22),
)
def test_row_by_row_commands_match_the_element_by_element_mapping(
    level: tuple[str, int],
    groups: int,
    element: int,
    slice_: str | None,
    offset: int,
    size: int,
) -> None:
    """read_commands / write_commands (what the simulator submits) give the same drive
    commands, in the same order, as the mapping stated element by element, merged."""
    raid, drives = level
    spec = PoolSpec(
        name="p", raid=raid, drives=drives, groups=groups, stripe_element=element, slice=slice_
    )
    layout = RaidLayout(spec)

    def pick(group: int, copies: tuple[int, ...]) -> int:
        return copies[(group + offset) % len(copies)]

    assert _spans(layout.read_commands(offset, size)) == _flat(
        _read_ops(layout, offset, size), drives
    )
    assert _spans(layout.read_commands(offset, size, pick)) == _flat(
        _read_ops(layout, offset, size, pick), drives
    )
    reads, writes = _write_ops(layout, offset, size)
    fast_reads, fast_writes = layout.write_commands(offset, size)
    assert _spans(fast_reads) == _flat(reads, drives)
    assert _spans(fast_writes) == _flat(writes, drives)
    assert sum(length for _, _, length in _spans(fast_writes)) >= size  # every byte written
