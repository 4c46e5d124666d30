"""Steady state: MSER warm-up, trend tests, sectioning intervals, batch bookkeeping."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanpath.stats import BatchMeans, LatencyHistogram, section_ci
from sanpath.stats.steady import interval_doubts, mser, relative_half_width, settled, trend


def test_mser_cuts_a_step_near_where_it_ends() -> None:
    rng = np.random.default_rng(20261125)
    noise = rng.normal(0.0, 1.0, 200)
    series = noise + np.where(np.arange(200) < 40, 10.0, 0.0)
    cut = mser(series)
    assert 38 <= cut <= 50
    assert settled(series)


def test_mser_on_a_stationary_series_cuts_little() -> None:
    rng = np.random.default_rng(20261126)
    cuts = [mser(rng.normal(5.0, 1.0, 100)) for _ in range(50)]
    assert np.median(cuts) <= 10
    assert sum(settled(rng.normal(5.0, 1.0, 100)) for _ in range(50)) >= 45


def test_a_climbing_series_is_not_settled_and_has_a_trend() -> None:
    rng = np.random.default_rng(20261127)
    series = np.linspace(0.0, 10.0, 64) + rng.normal(0.0, 0.5, 64)
    assert mser(series) >= 28  # as far as MSER may cut: half the series
    assert not settled(series)
    t = trend(series)
    assert t.significant and t.tau > 0.8 and t.change > 5.0


def test_no_trend_in_noise_and_none_in_a_constant() -> None:
    rng = np.random.default_rng(20261128)
    flagged = sum(trend(rng.normal(0.0, 1.0, 40)).significant for _ in range(200))
    assert flagged <= 3  # p < 0.001 each: about 0.2 expected
    assert not trend(np.full(40, 3.0)).significant


def test_interval_doubts_name_correlated_and_skewed_batches() -> None:
    rng = np.random.default_rng(20261129)
    ar = np.zeros(40)
    for i in range(1, 40):
        ar[i] = 0.9 * ar[i - 1] + rng.normal()
    assert any("correlated" in d for d in interval_doubts(ar))
    skewed = rng.lognormal(0.0, 2.0, 40)
    assert any("skewed" in d for d in interval_doubts(skewed))
    quiet = sum(bool(interval_doubts(rng.normal(0.0, 1.0, 40))) for _ in range(100))
    assert quiet <= 15  # two tests at about 2.5% each


@given(
    estimate=st.floats(-1e6, 1e6, allow_nan=False),
    sections=st.lists(st.floats(-1e6, 1e6, allow_nan=False), min_size=2, max_size=60),
)
def test_a_sectioning_interval_always_contains_its_estimate(
    estimate: float, sections: list[float]
) -> None:
    lo, hi = section_ci(estimate, sections)
    assert lo <= estimate <= hi


def test_relative_half_width() -> None:
    assert relative_half_width((9.0, 11.0), 10.0) == pytest.approx(0.1)
    assert math.isinf(relative_half_width((math.nan, 1.0), 1.0))


def test_finish_folds_the_open_batch_into_the_last_so_batches_cover_the_window() -> None:
    rng = np.random.default_rng(20261130)
    bm = BatchMeans(10, max_batches=8)
    bm.start(1.0)
    latencies = rng.exponential(0.01, 97)
    t = 1.0
    for x in latencies:
        t += 0.001
        if bm.add(t, float(x)):
            bm.set_state((t, 1.0, 2.0))
    bm.finish(t + 0.5)
    v = bm.batch_values()
    assert int(v.completions.sum()) == 97
    assert v.t_start[0] == 1.0 and v.t_end[-1] == t + 0.5
    total_latency = float((v.latency_mean * v.completions).sum())
    assert total_latency == pytest.approx(float(latencies.sum()))
    # each halving keeps the later state of a merged pair: states end where batches end
    states = bm.states()
    assert len(states) == bm.n_batches
    assert np.all(states[:-1, 0] == v.t_end[:-1])


def test_iops_and_latency_intervals_hold_the_window_figures_and_lean_with_the_skew() -> None:
    """Each interval holds the whole window's figure; it is centred on it when the batch
    values are symmetric and reaches further on the side their skewness points to."""
    rng = np.random.default_rng(20261131)
    bm = BatchMeans(50)
    bm.start(0.0)
    t = 0.0
    gaps = rng.exponential(0.001, 1037)
    lat = rng.exponential(0.005, 1037)
    for g, x in zip(gaps, lat, strict=True):
        t += float(g)
        bm.add(t, float(x))
    bm.finish(t)
    v = bm.batch_values()
    for (lo, hi), estimate, values in (
        (bm.iops_ci(), 1037 / t, v.iops),
        (bm.mean_ci(), float(lat.mean()), v.latency_mean),
    ):
        assert lo < estimate < hi
        d = values - values.mean()
        skew = float(np.mean(d**3))
        lean = (hi - estimate) - (estimate - lo)
        assert np.sign(lean) == np.sign(skew), (lean, skew)


def test_batch_quantiles_match_each_batch() -> None:
    rng = np.random.default_rng(20261132)
    bm = BatchMeans(400, hist_bits=7)
    values = rng.lognormal(-5.0, 1.0, 2000)
    for i, x in enumerate(values):
        bm.add(float(i), float(x))
    got = bm.quantiles(0.99)
    assert len(got) == 5
    for b, q in enumerate(got):
        exact = np.quantile(values[b * 400 : (b + 1) * 400], 0.99, method="inverted_cdf")
        assert q == pytest.approx(exact, rel=2**-7)
    whole = LatencyHistogram()
    whole.record_many(values)
    assert whole.count == 2000
