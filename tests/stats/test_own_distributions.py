"""sanpath's own t quantile and Kendall trend test agree with scipy.stats, which a run no
longer loads for them."""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats

from sanpath.stats import t_quantile
from sanpath.stats.steady import kendall_against_time


@pytest.mark.parametrize("df", [*range(1, 41), 47.5, 63, 99, 100, 101, 250, 999, 5000, 1e5, 1e7])
def test_t_quantile_matches_scipy(df: float) -> None:
    for p in (0.6, 0.75, 0.8, 0.9, 0.95, 0.975, 0.99, 0.995, 0.999, 0.9995, 1 - 1e-7):
        assert t_quantile(p, df) == pytest.approx(float(scipy.stats.t.ppf(p, df)), rel=1e-11)
        assert t_quantile(1 - p, df) == pytest.approx(-t_quantile(p, df), rel=1e-14)


def test_t_quantile_exact_forms() -> None:
    # Cauchy (one degree of freedom) and two degrees of freedom have closed forms.
    assert t_quantile(0.75, 1) == pytest.approx(1.0, rel=1e-15)
    assert t_quantile(0.975, 2) == pytest.approx(4.302652729749464, rel=1e-14)
    assert t_quantile(0.5, 7) == 0.0
    # Four degrees of freedom: P(|T| < t) = 1.5 u - 0.5 u^3, u = t / sqrt(4 + t^2).
    for p in (0.5001, 0.6, 0.9, 0.975):
        t = t_quantile(p, 4)
        u = t / math.sqrt(4 + t * t)
        assert 1.5 * u - 0.5 * u**3 == pytest.approx(2 * p - 1, rel=1e-12)
    assert t_quantile(0.975, math.inf) == pytest.approx(1.959963984540054, rel=1e-15)


@pytest.mark.parametrize("p, df", [(0.0, 3), (1.0, 3), (0.5, 0.0), (0.9, -1.0)])
def test_t_quantile_refuses_what_has_no_quantile(p: float, df: float) -> None:
    with pytest.raises(ValueError):
        t_quantile(p, df)


def test_kendall_against_time_matches_scipy() -> None:
    rng = np.random.default_rng(7)
    for n in [*range(2, 60), 100, 171, 172, 400]:
        for kind in range(4):
            if kind == 0:
                y = rng.normal(size=n)
            elif kind == 1:  # many ties: the tie-corrected variance
                y = rng.integers(0, 4, size=n).astype(float)
            elif kind == 2:  # a clear trend: small p-values
                y = np.arange(n) + rng.normal(size=n) * n / 10
            else:  # all but one pair concordant: the exact p-value at any size
                y = np.arange(n, dtype=float)
                y[rng.integers(0, n)] = -1.0
            tau, p = kendall_against_time(y)
            ref = scipy.stats.kendalltau(np.arange(n), y)
            if math.isnan(ref.statistic):
                assert math.isnan(tau) and math.isnan(p)
                continue
            assert tau == pytest.approx(float(ref.statistic), rel=1e-12, abs=1e-15)
            assert p == pytest.approx(float(ref.pvalue), rel=1e-9, abs=1e-300)
