"""The wiring model (sanpath.layout): split sizes and RAID pool mapping, without a run."""

from __future__ import annotations

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


def _flat(ops: dict[tuple[int, int], list[tuple[int, int]]], width: int) -> list[tuple[int, ...]]:
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
    commands, in the same order, as read_ops / write_ops merged (the twin's mapping)."""
    raid, drives = level
    spec = PoolSpec(
        name="p", raid=raid, drives=drives, groups=groups, stripe_element=element, slice=slice_
    )
    layout = RaidLayout(spec)

    def pick(group: int, copies: tuple[int, ...]) -> int:
        return copies[(group + offset) % len(copies)]

    assert _spans(layout.read_commands(offset, size)) == _flat(
        layout.read_ops(offset, size), drives
    )
    assert _spans(layout.read_commands(offset, size, pick)) == _flat(
        layout.read_ops(offset, size, pick), drives
    )
    reads, writes = layout.write_ops(offset, size)
    fast_reads, fast_writes = layout.write_commands(offset, size)
    assert _spans(fast_reads) == _flat(reads, drives)
    assert _spans(fast_writes) == _flat(writes, drives)
    assert sum(length for _, _, length in _spans(fast_writes)) >= size  # every byte written
