"""Tests for :mod:`sanpath.theory.queues` against closed forms and independent exact solutions."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath.theory.queues import (
    MvaResult,
    OpenQueueResult,
    asymptotic_bounds,
    erlang_c,
    littles_law,
    md1,
    mg1,
    mm1,
    mmc,
    mva,
    mva_bounded,
)

# --------------------------------------------------------------------------------------------
# Independent reference solutions
# --------------------------------------------------------------------------------------------


def erlang_c_direct(c: int, a: float) -> float:
    """Erlang C from the textbook sum (fine for moderate c)."""
    head = sum(a**k / math.factorial(k) for k in range(c))
    tail = a**c / math.factorial(c) * c / (c - a)
    return tail / (head + tail)


def finite_source(demand: float, c: int, think: float, n: int) -> tuple[float, float]:
    """M/M/c//N machine-repairman model solved as a birth-death chain: (X, R)."""
    log_w = [0.0]
    for j in range(1, n + 1):
        log_w.append(log_w[-1] + math.log((n - j + 1) / think) - math.log(min(j, c) / demand))
    w = np.exp(np.array(log_w) - max(log_w))
    p = w / w.sum()
    x = float(sum(p[j] * min(j, c) / demand for j in range(n + 1)))
    return x, n / x - think


def convolution_throughput(demands: list[Fraction], servers: list[int], n_max: int) -> list[float]:
    """Buzen's convolution algorithm in exact rational arithmetic (0 servers = delay)."""
    g = [Fraction(1)] + [Fraction(0)] * n_max
    for demand, c in zip(demands, servers, strict=True):
        f = [Fraction(1)]
        for j in range(1, n_max + 1):
            f.append(f[-1] * demand / (j if c == 0 else min(j, c)))
        g = [sum((f[i] * g[n - i] for i in range(n + 1)), Fraction(0)) for n in range(n_max + 1)]
    return [float(g[n - 1] / g[n]) for n in range(1, n_max + 1)]


def bounded_ctmc(
    d1: float, d2: float, think: float, n: int, limit: int, c1: int
) -> tuple[float, float]:
    """Exact CTMC of two stations behind an admission limit, plus terminals: (X, Q1)."""
    states = [
        (n1, n2, w)
        for n1 in range(limit + 1)
        for n2 in range(limit + 1 - n1)
        for w in range(n + 1)
        if n1 + n2 + w <= n and (w == 0 or n1 + n2 == limit)
    ]
    index = {s: i for i, s in enumerate(states)}
    gen = np.zeros((len(states), len(states)))
    for (n1, n2, w), i in index.items():
        thinking = n - n1 - n2 - w
        if thinking:
            nxt = (n1 + 1, n2, w) if n1 + n2 < limit else (n1, n2, w + 1)
            gen[i, index[nxt]] += thinking / think
        if n1:
            gen[i, index[(n1 - 1, n2 + 1, w)]] += min(n1, c1) / d1
        if n2:
            nxt = (n1 + 1, n2 - 1, w - 1) if w else (n1, n2 - 1, w)
            gen[i, index[nxt]] += 1.0 / d2
    gen -= np.diag(gen.sum(axis=1))
    lhs = np.vstack([gen.T, np.ones(len(states))])
    rhs = np.zeros(len(states) + 1)
    rhs[-1] = 1.0
    p = np.linalg.lstsq(lhs, rhs, rcond=None)[0]
    x = sum(p[i] / d2 for (_, n2, _), i in index.items() if n2)
    q1 = sum(p[i] * n1 for (n1, _, _), i in index.items())
    return float(x), float(q1)


# --------------------------------------------------------------------------------------------
# Open queues
# --------------------------------------------------------------------------------------------


def birth_death(lam: float, mu: float, c: int, states: int = 500) -> np.ndarray:
    """Stationary distribution of the M/M/c queue's number in system, the chain truncated
    at ``states`` and solved numerically from its balance equations (no closed form)."""
    gen = np.zeros((states, states))
    for n in range(states - 1):
        gen[n, n + 1] = lam / mu  # rates in units of mu: a well-scaled system
        gen[n + 1, n] = min(n + 1, c)
    gen -= np.diag(gen.sum(axis=1))
    lhs = gen.T.copy()
    lhs[-1] = 1.0  # one balance equation is redundant: normalise instead
    rhs = np.zeros(states)
    rhs[-1] = 1.0
    return np.asarray(np.linalg.solve(lhs, rhs))


@pytest.mark.parametrize("rho", [0.1, 0.5, 0.8, 0.95])
def test_mm1_agrees_with_its_birth_death_chain(rho: float) -> None:
    """Every mean of the M/M/1 queue against the chain's stationary distribution, the
    times through Little's law: the chain knows no closed form."""
    mu = 2000.0
    lam = rho * mu
    res = mm1(lam, mu)
    p = birth_death(lam, mu, 1)
    n = np.arange(len(p))
    in_system = float((n * p).sum())
    queue_length = float((np.maximum(n - 1, 0) * p).sum())
    assert isinstance(res, OpenQueueResult)
    assert res.utilization == pytest.approx(1.0 - p[0], rel=1e-6)
    assert res.p_wait == pytest.approx(1.0 - p[0], rel=1e-6)  # PASTA: an arrival finds n > 0
    assert res.in_system == pytest.approx(in_system, rel=1e-6)
    assert res.queue_length == pytest.approx(queue_length, rel=1e-6)
    assert res.response == pytest.approx(in_system / lam, rel=1e-6)
    assert res.wait == pytest.approx(queue_length / lam, rel=1e-6)


def test_mm1_rejects_unstable_and_invalid() -> None:
    with pytest.raises(ValueError, match="unstable"):
        mm1(100.0, 100.0)
    with pytest.raises(ValueError):
        mm1(-1.0, 100.0)
    with pytest.raises(ValueError):
        mm1(1.0, 0.0)
    assert mm1(0.0, 10.0).wait == 0.0


@pytest.mark.parametrize("rho", [0.2, 0.7, 0.99])
def test_mmc_with_one_server_is_mm1(rho: float) -> None:
    a, b = mmc(rho * 500.0, 500.0, 1), mm1(rho * 500.0, 500.0)
    for field in ("utilization", "wait", "response", "queue_length", "in_system", "p_wait"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)


def test_mmc_two_servers_known_values() -> None:
    res = mmc(1.0, 1.0, 2)  # a = 1 Erlang on 2 servers
    assert res.utilization == pytest.approx(0.5)
    assert res.p_wait == pytest.approx(1.0 / 3.0)
    assert res.wait == pytest.approx(1.0 / 3.0)
    assert res.response == pytest.approx(4.0 / 3.0)
    assert res.in_system == pytest.approx(4.0 / 3.0)
    with pytest.raises(ValueError, match="unstable"):
        mmc(4.0, 1.0, 4)


def test_erlang_c_table_values() -> None:
    assert erlang_c(2, 1.0) == pytest.approx(1.0 / 3.0, rel=1e-12)
    assert erlang_c(10, 8.0) == pytest.approx(0.4092, abs=5e-4)
    assert erlang_c(1, 0.3) == pytest.approx(0.3)
    assert erlang_c(5, 0.0) == 0.0
    assert erlang_c(5, 5.0) == 1.0
    with pytest.raises(ValueError):
        erlang_c(0, 1.0)
    with pytest.raises(ValueError):
        erlang_c(3, -1.0)


@pytest.mark.parametrize("c", [1, 2, 3, 7, 16, 40, 60])
@pytest.mark.parametrize("load", [0.05, 0.5, 0.9, 0.999])
def test_erlang_c_matches_direct_sum(c: int, load: float) -> None:
    a = load * c
    assert erlang_c(c, a) == pytest.approx(erlang_c_direct(c, a), rel=1e-6)


@pytest.mark.parametrize(("c", "a"), [(2000, 1900.0), (10_000, 9_900.0), (10_000, 9_999.9)])
def test_erlang_c_large_c_is_finite(c: int, a: float) -> None:
    p = erlang_c(c, a)
    assert math.isfinite(p)
    assert 0.0 < p < 1.0


def test_erlang_c_increases_with_load() -> None:
    values = [erlang_c(64, a) for a in np.linspace(1.0, 63.0, 40)]
    assert all(np.diff(values) > 0)


def lindley_mean_wait(lam: float, service: float, customers: int, seed: int) -> float:
    """Mean wait in queue of a FCFS single server with Poisson arrivals and constant service,
    from Lindley's recursion W' = max(0, W + S - A) over one seeded arrival stream."""
    gaps = np.random.default_rng(seed).exponential(1.0 / lam, customers)
    wait, total = 0.0, 0.0
    for gap in gaps:
        wait = max(0.0, wait + service - float(gap))
        total += wait
    return total / customers


@pytest.mark.parametrize(("rho", "seed"), [(0.3, 11), (0.5, 12), (0.8, 13)])
def test_md1_wait_agrees_with_lindleys_recursion(rho: float, seed: int) -> None:
    """M/D/1 against the queue itself: Lindley's recursion over 200,000 customers."""
    mu = 1000.0
    res = md1(rho * mu, 1.0 / mu)
    assert res.wait == pytest.approx(lindley_mean_wait(rho * mu, 1.0 / mu, 200_000, seed), rel=0.05)
    assert res.response == pytest.approx(res.wait + 1.0 / mu)
    # deterministic service halves the M/M/1 queueing delay (Pollaczek-Khinchine)
    assert res.wait == pytest.approx(mm1(rho * mu, mu).wait / 2.0)


def test_mg1_exponential_is_mm1_and_variability_hurts() -> None:
    lam, s = 600.0, 1e-3
    a, b = mg1(lam, s, 1.0), mm1(lam, 1.0 / s)
    for field in ("utilization", "wait", "response", "queue_length", "in_system", "p_wait"):
        assert getattr(a, field) == pytest.approx(getattr(b, field), rel=1e-12)
    assert mg1(lam, s, 2.0).wait == pytest.approx(a.wait * 5.0 / 2.0)
    with pytest.raises(ValueError, match="unstable"):
        mg1(1000.0, 1e-3, 0.5)


def test_littles_law() -> None:
    assert littles_law(2000.0, 0.004) == pytest.approx(8.0)


# --------------------------------------------------------------------------------------------
# MVA: single-server and delay stations
# --------------------------------------------------------------------------------------------


def test_single_station_saturates_immediately() -> None:
    d = 2e-3
    res = mva([d], 32)
    assert isinstance(res, MvaResult)
    np.testing.assert_array_equal(res.population, np.arange(1, 33))
    np.testing.assert_allclose(res.throughput, 1.0 / d, rtol=1e-12)
    np.testing.assert_allclose(res.response, res.population * d, rtol=1e-12)
    np.testing.assert_allclose(res.utilization[:, 0], 1.0, rtol=1e-12)
    assert res.queue_lengths.shape == res.residence.shape == res.utilization.shape == (32, 1)


@pytest.mark.parametrize(("demand", "think"), [(5e-3, 0.05), (1e-3, 1e-3), (1e-4, 0.2)])
def test_single_station_with_think_time_is_machine_repairman(demand: float, think: float) -> None:
    n_max = 40
    res = mva([demand], n_max, think_time=think)
    for n in range(1, n_max + 1):
        ratio = demand / think
        inv_p0 = sum(math.perm(n, j) * ratio**j for j in range(n + 1))
        x = (1.0 - 1.0 / inv_p0) / demand
        assert res.throughput[n - 1] == pytest.approx(x, rel=1e-10)
        assert res.response[n - 1] == pytest.approx(n / x - think, rel=1e-6)


@pytest.mark.parametrize("k", [2, 3, 5])
def test_balanced_stations_closed_form(k: int) -> None:
    d = 4e-3
    res = mva([d] * k, 50)
    n = res.population.astype(float)
    np.testing.assert_allclose(res.throughput, n / (d * (n + k - 1)), rtol=1e-12)
    np.testing.assert_allclose(res.queue_lengths, np.repeat(n[:, None] / k, k, axis=1))


def test_littles_law_per_population() -> None:
    demands = [1e-3, 4e-3, 2.5e-3, 5e-4]
    res = mva(demands, 64)
    np.testing.assert_allclose(res.queue_lengths.sum(axis=1), res.population, rtol=1e-12)
    np.testing.assert_allclose(res.residence.sum(axis=1), res.response, rtol=1e-12)
    np.testing.assert_allclose(res.queue_lengths, res.residence * res.throughput[:, None])
    np.testing.assert_allclose(res.utilization, np.outer(res.throughput, demands))
    # A pure delay and a think time hold the remaining jobs.
    res = mva(demands, 64, delay=2e-3, think_time=0.01)
    held = res.queue_lengths.sum(axis=1) + res.throughput * (2e-3 + 0.01)
    np.testing.assert_allclose(held, res.population, rtol=1e-12)
    np.testing.assert_allclose(res.residence.sum(axis=1) + 2e-3, res.response, rtol=1e-12)


def test_infinite_server_and_delay_stations() -> None:
    for servers in ([1, 0], [1, None]):
        res = mva([1e-3, 3e-3], 20, servers=servers)
        np.testing.assert_allclose(res.residence[:, 1], 3e-3)
        ref = mva([1e-3], 20, delay=3e-3)
        np.testing.assert_allclose(res.throughput, ref.throughput, rtol=1e-12)
        np.testing.assert_allclose(res.response, ref.response, rtol=1e-12)


def test_mva_result_is_read_only() -> None:
    res = mva([1e-3], 4)
    with pytest.raises(ValueError):
        res.throughput[0] = 0.0


def test_mva_rejects_invalid_input() -> None:
    with pytest.raises(ValueError):
        mva([1e-3], 0)
    with pytest.raises(ValueError):
        mva([-1e-3], 4)
    with pytest.raises(ValueError):
        mva([], 4)
    with pytest.raises(ValueError):
        mva([1e-3, 1e-3], 4, servers=[1])
    with pytest.raises(ValueError):
        mva([1e-3], 4, servers=[-1])
    with pytest.raises(ValueError, match="infinite throughput"):
        mva([0.0], 4)


# --------------------------------------------------------------------------------------------
# MVA: multi-server (load-dependent) stations
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("demand", "c", "think", "n_max"),
    [
        (1e-2, 2, 0.05, 60),
        (1e-2, 4, 0.02, 300),
        (1e-3, 3, 0.5, 200),
        (1e-2, 8, 1e-4, 400),
        # Far beyond saturation with many servers: the textbook p(0) = 1 - ... recurrence
        # loses >10 % here; the complement-network evaluation must stay exact.
        (1e-2, 16, 0.05, 400),
    ],
)
def test_multiserver_station_is_finite_source_queue(
    demand: float, c: int, think: float, n_max: int
) -> None:
    res = mva([demand], n_max, servers=[c], think_time=think)
    for n in sorted({1, 2, c - 1, c, c + 1, n_max // 4, n_max // 2, n_max}):
        x, r = finite_source(demand, c, think, n)
        assert res.throughput[n - 1] == pytest.approx(x, rel=1e-6)
        assert res.response[n - 1] == pytest.approx(r, rel=1e-6)
    np.testing.assert_allclose(
        res.queue_lengths[:, 0] + res.throughput * think, res.population, rtol=1e-10
    )
    assert np.all(res.utilization <= 1.0 + 1e-12)


@pytest.mark.parametrize("c", [8, 9, 50])
def test_enough_servers_means_no_queueing(c: int) -> None:
    d = 3e-3
    res = mva([d], 8, servers=[c])
    np.testing.assert_allclose(res.response, d, rtol=1e-15)
    np.testing.assert_allclose(res.throughput, res.population / d)
    np.testing.assert_allclose(res.utilization[:, 0], res.population / c)


def test_mixed_network_matches_exact_convolution() -> None:
    # Two multi-server stations, a single-server one, an infinite-server one, think time.
    demands = [Fraction(3, 1000), Fraction(5, 1000), Fraction(4, 1000), Fraction(2, 1000)]
    servers = [2, 1, 3, 0]
    think = Fraction(1, 100)
    n_max = 30
    res = mva([float(d) for d in demands], n_max, servers=servers, think_time=float(think))
    ref = convolution_throughput([*demands, think], [*servers, 0], n_max)
    np.testing.assert_allclose(res.throughput, ref, rtol=1e-12)

    # Only multi-server stations (three of them, no other time in the cycle), saturated.
    demands = [Fraction(1, 100), Fraction(2, 100), Fraction(5, 1000)]
    servers = [4, 8, 2]
    res = mva([float(d) for d in demands], n_max, servers=servers)
    ref = convolution_throughput(demands, servers, n_max)
    np.testing.assert_allclose(res.throughput, ref, rtol=1e-12)
    np.testing.assert_allclose(res.queue_lengths.sum(axis=1), res.population, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Admission limit
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("limit", [None, 16, 40])
@pytest.mark.parametrize("think", [0.0, 5e-3])
def test_mva_bounded_without_binding_limit_is_mva(limit: int | None, think: float) -> None:
    args = ([1e-3, 2e-3, 5e-4], 16, [1, 2, 1], 1e-4)
    a = mva_bounded(*args, limit=limit, think_time=think)
    b = mva(*args, think_time=think)
    for field in ("throughput", "response", "queue_lengths", "residence", "utilization"):
        np.testing.assert_array_equal(getattr(a, field), getattr(b, field))


def test_mva_bounded_limit_caps_throughput() -> None:
    demands, limit, n_max = [1e-3, 2e-3, 1.5e-3], 4, 32
    res = mva_bounded(demands, n_max, delay=1e-3, limit=limit)
    inner = mva(demands, limit, delay=1e-3)
    np.testing.assert_allclose(res.throughput[:limit], inner.throughput)
    np.testing.assert_allclose(res.throughput[limit:], inner.throughput[-1])
    np.testing.assert_allclose(res.response, res.population / res.throughput)
    np.testing.assert_allclose(res.queue_lengths[limit:], inner.queue_lengths[[-1]].repeat(28, 0))
    # Time outside the network = response - delay - time at the stations.
    outside = res.response - 1e-3 - res.residence.sum(axis=1)
    assert np.all(outside[:limit] < 1e-12)
    np.testing.assert_allclose(
        outside[limit:], (res.population[limit:] - limit) / res.throughput[limit:]
    )
    # Without the limit the same population gets more throughput.
    assert np.all(res.throughput[limit:] < mva(demands, n_max, delay=1e-3).throughput[limit:])
    with pytest.raises(ValueError):
        mva_bounded(demands, n_max, limit=0)


@pytest.mark.parametrize("c1", [1, 2])
def test_mva_bounded_with_think_time_close_to_exact_chain(c1: int) -> None:
    d1, d2, think, limit = 1e-2, 6e-3, 3e-2, 4
    res = mva_bounded([d1, d2], 9, servers=[c1, 1], limit=limit, think_time=think)
    for n in range(limit + 1, 10):
        x, q1 = bounded_ctmc(d1, d2, think, n, limit, c1)
        assert res.throughput[n - 1] == pytest.approx(x, rel=0.02)
        assert res.queue_lengths[n - 1, 0] == pytest.approx(q1, rel=0.02)
    for n in range(1, limit + 1):  # limit not reached: exact
        x, _ = bounded_ctmc(d1, d2, think, n, limit, c1)
        assert res.throughput[n - 1] == pytest.approx(x, rel=1e-6)
    held = res.response * res.throughput + think * res.throughput
    np.testing.assert_allclose(held, res.population, rtol=1e-12)


# --------------------------------------------------------------------------------------------
# Bounds and properties
# --------------------------------------------------------------------------------------------


def test_asymptotic_bounds() -> None:
    demands = [1e-3, 4e-3, 2e-3]
    x_up, r_low = asymptotic_bounds(demands, 20, delay=1e-3)
    n = np.arange(1, 21)
    np.testing.assert_allclose(x_up, np.minimum(n / 8e-3, 250.0))
    np.testing.assert_allclose(r_low, np.maximum(8e-3, n * 4e-3))
    res = mva(demands, 20, delay=1e-3)
    assert np.all(res.throughput <= x_up * (1 + 1e-12))
    assert np.all(res.response >= r_low * (1 - 1e-12))
    x_up, r_low = asymptotic_bounds(demands, 20, think_time=0.01, servers=[1, 4, 0])
    np.testing.assert_allclose(x_up, np.minimum(n / 0.017, 1000.0))
    np.testing.assert_allclose(r_low, np.maximum(7e-3, n * 1e-3 - 0.01))


@settings(max_examples=60, deadline=None)
@given(
    stations=st.lists(
        st.tuples(
            st.floats(1e-5, 1e-2),
            st.sampled_from([1, 1, 1, 2, 3, 4, 8, 0]),
        ),
        min_size=1,
        max_size=6,
    ),
    n_max=st.integers(1, 64),
    think=st.sampled_from([0.0, 1e-4, 1e-2]),
    delay=st.sampled_from([0.0, 5e-4]),
)
def test_mva_properties(
    stations: list[tuple[float, int]], n_max: int, think: float, delay: float
) -> None:
    demands = [d for d, _ in stations]
    servers = [c for _, c in stations]
    res = mva(demands, n_max, servers=servers, delay=delay, think_time=think)
    x = res.throughput
    assert np.all(np.isfinite(x))
    assert np.all(np.diff(x) >= -1e-12 * x[1:])
    finite = [d / c for d, c in stations if c > 0]
    if finite:
        assert np.all(x <= (1.0 + 1e-9) / max(finite))
    x_up, r_low = asymptotic_bounds(demands, n_max, delay, think, servers)
    assert np.all(x <= x_up * (1.0 + 1e-9))
    assert np.all(res.response >= r_low * (1.0 - 1e-9))
    held = res.queue_lengths.sum(axis=1) + x * (think + delay)
    np.testing.assert_allclose(held, res.population, rtol=1e-9)
    busy = res.utilization[:, [c > 0 for c in servers]]
    assert np.all(busy <= 1.0 + 1e-9)
