"""The simulator against textbook queueing theory.

Each configuration reduces the path to a queue whose answer is known (see
``sanpath.theory.textbook``). The simulated figure must contain the exact answer in its own 95%
batch-means interval and be within 3% of it.
"""

from __future__ import annotations

import pytest

import sanpath
from sanpath.stats import mean_ci
from sanpath.theory import queues as analytic
from sanpath.theory import textbook

EXP = "exponential"


def exp(mean_ms: float) -> dict[str, object]:
    return {"dist": EXP, "mean": f"{mean_ms}ms"}


def assert_agrees(ci: tuple[float, float], value: float, exact: float) -> None:
    lo, hi = ci
    assert lo <= exact <= hi, f"exact {exact:.6g} outside the 95% interval [{lo:.6g}, {hi:.6g}]"
    assert abs(value - exact) <= 0.03 * exact, f"{value:.6g} is more than 3% from {exact:.6g}"


@pytest.mark.slow
@pytest.mark.parametrize("rho", [0.5, 0.8])
def test_mm1_drive(rho: float) -> None:
    service_ms = 1.0
    rate = rho / (service_ms / 1e3)
    result = sanpath.run(textbook.open_queue(rate, exp(service_ms), ios=120_000))
    exact = analytic.mm1(rate, 1e3 / service_ms).response * 1e3
    assert_agrees(result.ci95["latency_ms_mean"], result.latency_ms["mean"], exact)
    assert result.iops == pytest.approx(rate, rel=0.03)


@pytest.mark.slow
def test_mmc_controller_erlang_c() -> None:
    cores, service_ms, rate = 4, 1.0, 3000.0
    data = textbook.open_queue(
        rate, exp(service_ms), servers=cores, station="controller", ios=120_000
    )
    result = sanpath.run(data)
    exact = analytic.mmc(rate, 1e3 / service_ms, cores).response * 1e3
    assert_agrees(result.ci95["latency_ms_mean"], result.latency_ms["mean"], exact)
    controller = result.station("array.controller")
    assert controller.utilization == pytest.approx(rate * service_ms / 1e3 / cores, rel=0.03)


@pytest.mark.slow
def test_md1_pollaczek_khinchine() -> None:
    rate = 800.0
    result = sanpath.run(textbook.open_queue(rate, "1ms", ios=120_000))
    exact = analytic.md1(rate, 1e-3).response * 1e3
    assert_agrees(result.ci95["latency_ms_mean"], result.latency_ms["mean"], exact)


@pytest.mark.slow
@pytest.mark.parametrize(
    ("service", "cv"),
    [
        ({"dist": "erlang", "k": 4, "mean": "1ms"}, 0.5),
        ({"dist": "uniform", "low": "0.2ms", "high": "1.8ms"}, 0.8 / 3**0.5),
    ],
)
def test_mg1_pollaczek_khinchine(service: dict[str, object], cv: float) -> None:
    rate = 750.0
    result = sanpath.run(textbook.open_queue(rate, service, ios=150_000))
    exact = analytic.mg1(rate, 1e-3, cv).response * 1e3
    assert_agrees(result.ci95["latency_ms_mean"], result.latency_ms["mean"], exact)


@pytest.mark.slow
def test_mg1_lognormal_over_replicates() -> None:
    """Skewed service converges slowly: use independent replicates and their t-interval."""
    rate, cv = 750.0, 0.75
    data = textbook.open_queue(rate, {"dist": "lognormal", "mean": "1ms", "cv": cv}, ios=80_000)
    means = [sanpath.run(data, replicate=r).latency_ms["mean"] for r in range(5)]
    exact = analytic.mg1(rate, 1e-3, cv).response * 1e3
    assert_agrees(mean_ci(means), sum(means) / len(means), exact)


DEMANDS_MS = (0.2, 0.5, 1.0)


@pytest.mark.parametrize("outstanding", [1, 2, 4, 8, 16, 32, 64])
def test_closed_loop_matches_exact_mva(outstanding: int) -> None:
    data = textbook.closed_path(
        outstanding, exp(DEMANDS_MS[0]), exp(DEMANDS_MS[1]), exp(DEMANDS_MS[2]), ios=60_000
    )
    result = sanpath.run(data)
    mva = analytic.mva([d / 1e3 for d in DEMANDS_MS], outstanding)
    assert_agrees(result.ci95["iops"], result.iops, float(mva.throughput[-1]))
    # Little's law on the whole loop: N = X * R.
    assert result.latency_ms["mean"] == pytest.approx(mva.response[-1] * 1e3, rel=0.03)


def test_closed_loop_multicore_controller_load_dependent_mva() -> None:
    demands = (0.2e-3, 1.6e-3, 0.5e-3)
    data = textbook.closed_path(8, exp(0.2), exp(1.6), exp(0.5), cores=2, ios=60_000)
    result = sanpath.run(data)
    mva = analytic.mva(list(demands), 8, servers=[1, 2, 1])
    assert_agrees(result.ci95["iops"], result.iops, float(mva.throughput[-1]))


def test_host_cpus_queue_and_host_io_time_delays() -> None:
    """Host processors (2 exponential servers) and the host's pure delay, before a
    controller and a drive: a product-form network with a delay station, solved by MVA."""
    data = textbook.closed_path(12, 0, exp(0.4), exp(0.5), ios=60_000)
    data["hosts"][0].update(cpus=2, cpu_time=exp(0.8), io_time=exp(0.3))
    result = sanpath.run(data)
    mva = analytic.mva([0.8e-3, 0.4e-3, 0.5e-3], 12, servers=[2, 1, 1], delay=0.3e-3)
    assert_agrees(result.ci95["iops"], result.iops, float(mva.throughput[-1]))
    cpu = result.station("host.cpu")
    assert cpu.servers == 2
    assert cpu.utilization == pytest.approx(result.iops * 0.8e-3 / 2, rel=0.03)
    assert result.breakdown_ms["host"] > 0.8 + 0.3


@pytest.mark.parametrize("queue_depth", [1, 4, 8])
def test_hba_queue_depth_caps_population(queue_depth: int) -> None:
    """32 outstanding I/Os through an HBA with Q slots behave as MVA at population Q."""
    data = textbook.closed_path(
        32,
        exp(DEMANDS_MS[0]),
        exp(DEMANDS_MS[1]),
        exp(DEMANDS_MS[2]),
        hba_queue_depth=queue_depth,
        ios=60_000,
    )
    result = sanpath.run(data)
    mva = analytic.mva([d / 1e3 for d in DEMANDS_MS], queue_depth)
    assert_agrees(result.ci95["iops"], result.iops, float(mva.throughput[-1]))
    # The other 32 - Q wait in the host, so latency = 32 / X (Little's law).
    assert result.latency_ms["mean"] == pytest.approx(32 / result.iops * 1e3, rel=0.02)
    assert result.breakdown_ms["hba"] > 0


def test_littles_law_on_every_station_of_a_steady_run() -> None:
    data = textbook.closed_path(16, exp(0.2), exp(0.5), exp(1.0), ios=40_000)
    data["hosts"][0]["hbas"][0].update(speed="4GFC", pcie={"gen": 1, "lanes": 4})
    result = sanpath.run(data)
    checked = 0
    for st in result.stations:
        if st.completions < 1000:
            continue
        little = st.throughput * (st.mean_wait_s + st.mean_service_s)
        assert st.mean_in_station == pytest.approx(little, rel=0.01, abs=1e-6), st.name
        checked += 1
    assert checked >= 6
