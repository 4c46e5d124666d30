"""Tests for sanpath.stats: histogram accuracy, batch-means intervals, time series."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats
from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath.stats import (
    FLUSH_EVERY,
    BatchMeans,
    LatencyHistogram,
    TimeSeries,
    lag1_autocorrelation,
    mean_ci,
)

QS = (0.5, 0.9, 0.99, 0.999)


# --------------------------------------------------------------------------- histogram


def _samples(kind: str, seed: int, n: int = 200_000) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "lognormal":
        return rng.lognormal(mean=math.log(500e-6), sigma=1.0, size=n)  # ~0.5 ms median
    return rng.exponential(scale=2e-3, size=n)


@pytest.mark.parametrize("kind", ["lognormal", "exponential"])
@pytest.mark.parametrize("seed", [1, 2])
def test_quantiles_within_one_percent(kind: str, seed: int) -> None:
    x = _samples(kind, seed)
    h = LatencyHistogram()
    h.record_many(x)
    for q, est in zip(QS, h.quantiles(QS), strict=True):
        exact = float(np.quantile(x, q, method="inverted_cdf"))
        assert est == pytest.approx(exact, rel=0.01)
        # The design bound is much tighter: half a bucket = 2**-(BITS+1) relative.
        assert abs(est - exact) <= exact * 2.0**-8 + 1e-9
        assert h.quantile(q) == est


def test_record_matches_record_many_across_flushes() -> None:
    x = _samples("exponential", 3, n=3 * FLUSH_EVERY + 17)
    a, b = LatencyHistogram(), LatencyHistogram()
    for v in x.tolist():
        a.record(v)
    b.record_many(x)
    assert a.count == b.count == x.size
    np.testing.assert_array_equal(a.counts, b.counts)
    assert a.quantiles(QS) == b.quantiles(QS)


def test_mean_min_max_exact() -> None:
    x = _samples("lognormal", 4, n=50_000)
    h = LatencyHistogram()
    for v in x.tolist():
        h.record(v)
    assert h.mean == pytest.approx(float(np.mean(x)), rel=1e-12)
    assert h.total == pytest.approx(float(np.sum(x)), rel=1e-12)
    assert h.min == float(x.min())
    assert h.max == float(x.max())
    assert h.quantile(0.0) == pytest.approx(float(x.min()), rel=2.0**-8)
    assert h.quantile(1.0) == pytest.approx(float(x.max()), rel=2.0**-8)


def test_merge_equals_recording_both() -> None:
    x = _samples("lognormal", 5, n=30_000)
    y = _samples("exponential", 6, n=20_000)
    hx, hy, both = LatencyHistogram(), LatencyHistogram(), LatencyHistogram()
    hx.record_many(x)
    for v in y.tolist():
        hy.record(v)
    both.record_many(np.concatenate([x, y]))
    m = hx.merge(hy)
    assert m is not hx and m is not hy
    np.testing.assert_array_equal(m.counts, both.counts)
    assert m.count == both.count == x.size + y.size
    assert m.mean == pytest.approx(both.mean, rel=1e-12)
    assert (m.min, m.max) == (both.min, both.max)
    assert m.quantiles(QS) == both.quantiles(QS)
    assert hx.count == x.size  # inputs untouched
    with pytest.raises(ValueError):
        hx.merge(LatencyHistogram(bits=5))


def test_empty_and_reset() -> None:
    h = LatencyHistogram()
    assert h.count == 0
    assert math.isnan(h.quantile(0.5))
    assert math.isnan(h.mean) and math.isnan(h.min) and math.isnan(h.max)
    lat, frac = h.cdf()
    assert lat.size == 0 and frac.size == 0
    h.record(1e-3)
    h.record(2e-3)
    assert h.count == 2
    h.reset()
    assert h.count == 0
    assert int(h.counts.sum()) == 0
    assert math.isnan(h.quantile(0.99))
    h.record(0.0)
    assert h.quantile(0.5) == 0.0


def test_invalid_inputs() -> None:
    h = LatencyHistogram()
    with pytest.raises(ValueError):
        h.record_many([1e-3, -1e-3, float("nan")])
    assert h.count == 1  # the valid value is kept
    h.record(-1.0)
    with pytest.raises(ValueError):
        _ = h.mean  # deferred validation at flush
    with pytest.raises(ValueError):
        h.quantile(1.5)
    with pytest.raises(ValueError):
        LatencyHistogram(bits=0)


def test_values_beyond_range_clamped_but_max_exact() -> None:
    h = LatencyHistogram()
    h.record_many([1e-3, 3600.0])
    assert h.max == 3600.0
    assert h.mean == pytest.approx((1e-3 + 3600.0) / 2)
    assert h.counts[-1] == 1
    top = h.quantile(1.0)
    edges = h.bucket_edges()
    assert edges[-2] <= top <= edges[-1]  # reported inside the last bucket


def test_bucket_layout_and_cdf() -> None:
    h = LatencyHistogram()
    edges, values = h.bucket_edges(), h.bucket_values()
    assert edges.size == values.size + 1 == h.counts.size + 1
    assert np.all(np.diff(edges) > 0)
    assert np.all((values >= edges[:-1]) & (values < edges[1:]))
    assert edges[-1] == pytest.approx(2.0**40 * 1e-9)
    width, lo = np.diff(edges), edges[:-1]
    grouped = lo >= 2 ** (h.bits + 1) * 1e-9 * (1 - 1e-12)
    assert np.max(width[grouped] / 2 / lo[grouped]) <= 2.0 ** -(h.bits + 1) * (1 + 1e-9)

    x = _samples("exponential", 7, n=10_000)
    h.record_many(x)
    lat, frac = h.cdf()
    assert np.all(np.diff(lat) > 0) and np.all(np.diff(frac) > 0)
    assert frac[-1] == pytest.approx(1.0)
    i = int(np.searchsorted(frac, 0.5))
    assert lat[i] == pytest.approx(float(np.quantile(x, 0.5, method="inverted_cdf")), rel=0.01)


@settings(max_examples=150, deadline=None)
@given(
    xs=st.lists(
        st.floats(min_value=1e-9, max_value=100.0, allow_nan=False, allow_infinity=False),
        min_size=1,
        max_size=300,
    ),
    qs=st.lists(st.floats(min_value=0.0, max_value=1.0), min_size=1, max_size=5),
)
def test_quantile_error_bound_property(xs: list[float], qs: list[float]) -> None:
    h = LatencyHistogram()
    for v in xs:
        h.record(v)
    arr = np.asarray(xs)
    for q, est in zip(qs, h.quantiles(qs), strict=True):
        exact = float(np.quantile(arr, q, method="inverted_cdf"))
        # half a bucket (relative 2**-(BITS+1)) + rounding to integer ns
        assert abs(est - exact) <= exact * 2.0 ** -(h.bits + 1) + 1e-9 + 1e-12 * exact


# ----------------------------------------------------------------- intervals and batches


def test_mean_ci_matches_scipy() -> None:
    x = np.random.default_rng(8).normal(10.0, 2.0, size=25)
    lo, hi = mean_ci(x, 0.9)
    ref = scipy.stats.t.interval(0.9, len(x) - 1, loc=x.mean(), scale=scipy.stats.sem(x))
    assert (lo, hi) == pytest.approx(ref, rel=1e-12)
    assert all(math.isnan(v) for v in mean_ci([1.0]))
    with pytest.raises(ValueError):
        mean_ci(x, 1.0)


def test_mean_ci_coverage_iid() -> None:
    rng = np.random.default_rng(9)
    true_mean, reps = 5.0, 400
    data = rng.normal(true_mean, 3.0, size=(reps, 15))
    covered = sum(lo <= true_mean <= hi for lo, hi in (mean_ci(row) for row in data))
    assert 0.90 <= covered / reps <= 0.99


def test_batch_means_latency_coverage_iid() -> None:
    rng = np.random.default_rng(10)
    true_mean, reps, batches, size = 1e-3, 400, 20, 50
    covered = 0
    for _ in range(reps):
        bm = BatchMeans(size)
        lat = rng.exponential(true_mean, size=batches * size + 7).tolist()
        for i, v in enumerate(lat):
            bm.add(i * 1e-4, v)
        assert bm.n_batches == batches
        lo, hi = bm.mean_ci()
        covered += lo <= true_mean <= hi
    assert 0.90 <= covered / reps <= 0.99


def test_iops_ci_deterministic_completions() -> None:
    bm = BatchMeans(100)
    bm.start(0.0)
    for k in range(1, 10_001):
        t = k * 1e-3
        bm.add(t, 2e-4)
    assert bm.n_batches == 100
    lo, hi = bm.iops_ci()
    assert lo == pytest.approx(1000.0, rel=1e-9)
    assert hi == pytest.approx(1000.0, rel=1e-9)
    assert hi - lo < 1e-6
    lat_lo, lat_hi = bm.mean_ci()
    assert lat_lo == pytest.approx(2e-4) and lat_hi == pytest.approx(2e-4)
    vals = bm.batch_values()
    assert vals.t_start[0] == 0.0 and vals.t_end[-1] == pytest.approx(10.0)
    np.testing.assert_array_equal(vals.completions, np.full(100, 100))
    np.testing.assert_allclose(vals.t_start[1:], vals.t_end[:-1])


def test_batch_means_start_discards_warmup_and_needs_two_batches() -> None:
    bm = BatchMeans(10)
    for k in range(25):
        bm.add(k * 1.0, 99.0)
    assert bm.n_batches == 2
    bm.start(100.0)
    assert bm.n_batches == 0
    for k in range(1, 16):
        bm.add(100.0 + k * 0.5, 1.0)
    assert bm.n_batches == 1
    assert all(math.isnan(v) for v in bm.iops_ci())
    assert all(math.isnan(v) for v in bm.mean_ci())
    assert bm.batch_values().t_start[0] == 100.0
    with pytest.raises(ValueError):
        BatchMeans(0)


def test_batch_means_bounded_memory_merges_pairs() -> None:
    bm = BatchMeans(10, max_batches=8)
    n = 10_000
    for k in range(1, n + 1):
        bm.add(k * 1e-3, 1e-3)
    assert 4 <= bm.n_batches < 8
    vals = bm.batch_values()
    np.testing.assert_array_equal(vals.completions, bm.batch_size)
    assert 0 <= n - bm.n_batches * bm.batch_size < bm.batch_size  # rest: partial batch
    assert bm.batch_size == 10 * 2**7  # 7 merges: the 8th would need 8 * 1280 > n
    np.testing.assert_allclose(vals.iops, 1000.0)
    np.testing.assert_allclose(vals.latency_mean, 1e-3)
    with pytest.raises(ValueError):
        BatchMeans(10, max_batches=7)


def test_lag1_autocorrelation() -> None:
    rng = np.random.default_rng(11)
    assert abs(lag1_autocorrelation(rng.normal(size=20_000))) < 0.03
    e = rng.normal(size=20_000)
    ar = np.empty_like(e)
    ar[0] = e[0]
    for i in range(1, e.size):
        ar[i] = 0.7 * ar[i - 1] + e[i]
    assert lag1_autocorrelation(ar) == pytest.approx(0.7, abs=0.03)
    assert math.isnan(lag1_autocorrelation([1.0, 2.0]))
    assert math.isnan(lag1_autocorrelation([3.0, 3.0, 3.0]))


# --------------------------------------------------------------------------- time series


def test_time_series_synthetic() -> None:
    rng = np.random.default_rng(12)
    ts = TimeSeries(interval=1.0, t0=10.0)
    expected = []
    for k in range(4):
        n = 200 * (k + 1)
        t = np.sort(10.0 + k + rng.uniform(0.001, 0.999, size=n))
        lat = rng.exponential(1e-3 * (k + 1), size=n)
        for ti, li in zip(t.tolist(), lat.tolist(), strict=True):
            ts.add(ti, li, 4096)
        expected.append((n, lat))
    ts.add_qfull(11.5)
    ts.add(13.9995, 1e-3, 4096, qfull=2)
    cols = ts.to_columns()
    assert set(cols) == {
        "t_start_s",
        "iops",
        "mb_per_s",
        "latency_ms_mean",
        "latency_ms_p50",
        "latency_ms_p99",
        "latency_ms_max",
        "qfull",
    }
    np.testing.assert_allclose(cols["t_start_s"], [10.0, 11.0, 12.0, 13.0])
    expected[3] = (expected[3][0] + 1, np.append(expected[3][1], 1e-3))
    for k, (n, lat) in enumerate(expected):
        assert cols["iops"][k] == pytest.approx(n)
        assert cols["mb_per_s"][k] == pytest.approx(n * 4096 / 1e6)
        assert cols["latency_ms_mean"][k] == pytest.approx(lat.mean() * 1e3, rel=1e-12)
        p99 = float(np.quantile(lat, 0.99, method="inverted_cdf")) * 1e3
        assert cols["latency_ms_p99"][k] == pytest.approx(p99, rel=2.0**-6)
        p50 = float(np.quantile(lat, 0.5, method="inverted_cdf")) * 1e3
        assert cols["latency_ms_p50"][k] == pytest.approx(p50, rel=2.0**-6)
        assert cols["latency_ms_max"][k] == pytest.approx(lat.max() * 1e3, rel=1e-12)
    np.testing.assert_array_equal(cols["qfull"], [0, 1, 0, 2])
    assert cols["qfull"].dtype == np.int64
    # non-destructive: calling again gives the same table
    again = ts.to_columns()
    for key, arr in cols.items():
        np.testing.assert_array_equal(arr, again[key])


def test_time_series_gaps_late_qfull_and_partial_end() -> None:
    ts = TimeSeries(interval=0.5)
    ts.add(0.1, 2e-3, 8192)
    ts.add(1.7, 4e-3, 8192)  # intervals 1 and 2 stay empty
    ts.add_qfull(0.6)  # closed, empty interval
    ts.add_qfull(2.2)  # future interval: advances
    cols = ts.to_columns()
    np.testing.assert_allclose(cols["iops"], [2.0, 0.0, 0.0, 2.0, 0.0])
    assert math.isnan(cols["latency_ms_mean"][1]) and math.isnan(cols["latency_ms_p99"][2])
    assert cols["latency_ms_p99"][0] == pytest.approx(2.0)
    np.testing.assert_array_equal(cols["qfull"], [0, 1, 0, 0, 1])

    ended = ts.to_columns(t_end=3.25)  # 7 intervals, the last one 0.25 s long
    assert ended["t_start_s"].size == 7
    assert ended["iops"][-1] == 0.0
    ts2 = TimeSeries(interval=1.0)
    ts2.add(0.2, 1e-3, 1000)
    ts2.add(0.4, 1e-3, 1000)
    part = ts2.to_columns(t_end=0.5)
    assert part["iops"][0] == pytest.approx(4.0)
    assert part["mb_per_s"][0] == pytest.approx(2000 / 0.5 / 1e6)

    with pytest.raises(ValueError):
        ts.add(0.2, 1e-3, 512)  # interval already closed
    with pytest.raises(ValueError):
        ts.add_qfull(-1.0)
    with pytest.raises(ValueError):
        TimeSeries(interval=0.0)
    assert TimeSeries(1.0).to_columns()["iops"].size == 0
