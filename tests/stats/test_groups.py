"""Per-group latency figures agree with the same values counted one group at a time."""

from __future__ import annotations

import math

import numpy as np
from hypothesis import given
from hypothesis import strategies as st

from sanpath.stats import LatencyHistogram
from sanpath.stats.groups import GROUP_BITS, GroupedLatency

RECORDS = st.lists(
    st.tuples(
        st.integers(0, 2),  # host
        st.integers(0, 1),  # workload
        st.booleans(),  # write
        st.floats(1e-6, 2.0),  # latency (s)
        st.integers(512, 1 << 20),  # size (bytes)
    ),
    min_size=1,
    max_size=300,
)


@given(RECORDS)
def test_groups_match_one_histogram_per_group(
    records: list[tuple[int, int, bool, float, int]],
) -> None:
    grouped = GroupedLatency((3, 2))
    for host, workload, write, seconds, size in records:
        grouped.add((host, workload), write, seconds, size)
    for host in range(3):
        for write in (False, True):
            mine = [r for r in records if r[0] == host and r[2] == write]
            assert grouped.count(0, host, write) == len(mine)
            assert grouped.nbytes(0, host, write) == sum(r[4] for r in mine)
            hist = grouped.histogram(0, [host], (write,))
            direct = LatencyHistogram(GROUP_BITS)
            direct.record_many([r[3] for r in mine])
            assert hist.count == direct.count
            if mine:
                assert math.isclose(hist.mean, direct.mean, rel_tol=1e-12)
                assert hist.min == direct.min and hist.max == direct.max
                qs = [0.5, 0.9, 0.99]
                assert hist.quantiles(qs) == direct.quantiles(qs)
                squares = sum(r[3] ** 2 for r in mine)
                assert math.isclose(grouped.sum_of_squares(0, [host], write), squares, rel_tol=1e-9)
    # a second dimension sees the same I/Os grouped differently
    total = sum(grouped.count(1, w, d) for w in range(2) for d in (False, True))
    assert total == len(records)


def test_several_groups_merge_into_one_histogram() -> None:
    grouped = GroupedLatency((4,))
    rng = np.random.default_rng(1)
    values = rng.exponential(1e-3, 20_000)
    for i, v in enumerate(values):
        grouped.add((i % 4,), bool(i % 3 == 0), float(v), 4096)
    merged = grouped.histogram(0, range(4))
    assert merged.count == len(values)
    assert math.isclose(merged.mean, float(values.mean()), rel_tol=1e-9)
    # fio's resolution: quantiles within 2**-7 of the exact order statistic
    exact = float(np.quantile(values, 0.99, method="inverted_cdf"))
    assert abs(merged.quantile(0.99) - exact) <= exact * 2**-7 + 1e-9


def test_reset_forgets_everything() -> None:
    grouped = GroupedLatency((2,))
    grouped.add((1,), True, 0.5, 100)
    grouped.reset()
    assert grouped.count(0, 1, True) == 0
    assert grouped.histogram(0, [0, 1]).count == 0
    assert math.isnan(grouped.histogram(0, [1]).mean)


@given(RECORDS, st.sampled_from([[0, 1, 2], [0, 2], [1, 2], [2, 0], [0, 1]]), st.booleans())
def test_a_histogram_of_several_groups_counts_each_group_s_buckets(
    records: list[tuple[int, int, bool, float, int]], members: list[int], write: bool
) -> None:
    """Evenly spaced groups in one direction (every host of a host group) and any others
    give the bucket counts of their groups added up."""
    grouped = GroupedLatency((3, 2))
    for host, workload, w, seconds, size in records:
        grouped.add((host, workload), w, seconds, size)
    together = grouped.histogram(0, members, (write,))
    alone = [grouped.histogram(0, [m], (write,)) for m in members]
    assert np.array_equal(together.counts, sum(h.counts for h in alone))
    assert together.count == sum(h.count for h in alone)
