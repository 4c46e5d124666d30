"""Empty latency histograms share their zero counters until they count."""

from __future__ import annotations

import pytest

from sanpath.stats import LatencyHistogram


def test_an_empty_histogram_shares_its_zeros_until_it_counts() -> None:
    """Histograms from ``empty`` share read-only zero counters; one that records a value or
    is reset counts on its own, and the others stay empty."""
    a, b = LatencyHistogram.empty(6), LatencyHistogram.empty(6)
    a.record(1e-3)
    assert a.count == 1 and a.quantile(0.5) == pytest.approx(1e-3, rel=2**-6)
    assert b.count == 0 and not b.counts.any()
    b.reset()
    b.record_many([2e-3, 3e-3])
    assert b.count == 2 and int(b.counts.sum()) == 2
    assert int(a.counts.sum()) == 1 and not LatencyHistogram.empty(6).counts.any()
