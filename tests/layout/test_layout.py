"""The wiring model (sanpath.layout): split sizes and RAID pool mapping, without a run."""

from __future__ import annotations

import pytest

from sanpath.layout import RaidLayout, split_sizes
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
