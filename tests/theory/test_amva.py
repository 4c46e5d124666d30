"""Bard-Schweitzer approximate MVA (sanpath.theory.amva) against exact MVA.

Tolerances: Bard-Schweitzer's throughput error is a few percent, largest at small
populations near the network's saturation point, and it vanishes as the population grows
(Lazowska et al., *Quantitative System Performance*, section 6.4.2). Measured here over
random networks of 2 to 6 stations: at most 7% with single servers, 12% with multi-server
stations (taken as their birth-death chain), at populations up to 80; within 0.5% from a
few hundred customers, where the twin uses it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import sanpath
from sanpath.theory.amva import amva
from sanpath.theory.mva import mva
from sanpath.theory.twin import predict_many
from sanpath.theory.twin.solve import mva as twin_mva
from tests.conftest import SCENARIOS

networks = st.tuples(
    st.lists(st.floats(1e-3, 1e-2), min_size=2, max_size=6),
    st.sampled_from([0.0, 5e-3, 5e-2]),
)


@given(networks, st.integers(1, 80))
@settings(max_examples=200)
def test_single_servers_within_seven_percent_and_exact_at_one(
    network: tuple[list[float], float], n: int
) -> None:
    demands, think = network
    exact = mva(demands, n, think_time=think)
    approx = amva(demands, n, think_time=think)
    x = float(exact.throughput[-1])
    if n == 1:
        assert approx.throughput == pytest.approx(x, rel=1e-12)
    assert abs(approx.throughput - x) <= 0.07 * x
    # Little's law per station and for the cycle
    assert np.allclose(approx.queue_lengths, approx.throughput * approx.residence)
    assert approx.throughput * (think + approx.response) == pytest.approx(n)
    assert np.all(approx.utilization <= 1.0 + 1e-9)


@given(
    networks,
    st.lists(st.sampled_from([0, 1, 1, 2, 4, 8]), min_size=6, max_size=6),
    st.integers(1, 80),
)
@settings(max_examples=200)
def test_multi_server_stations_within_twelve_percent(
    network: tuple[list[float], float], servers: list[int], n: int
) -> None:
    demands, think = network
    c = servers[: len(demands)]
    exact = float(mva(demands, n, servers=c, think_time=think).throughput[-1])
    approx = amva(demands, n, servers=c, think_time=think).throughput
    assert abs(approx - exact) <= 0.12 * exact


@pytest.mark.parametrize("n", [300, 1000])
def test_large_populations_are_nearly_exact(n: int) -> None:
    """Controller cores, a link, a drive pool as 4-server station and a host delay."""
    demands, servers = [4e-4, 1e-4, 2.4e-3, 1e-3], [4, 1, 4, 0]
    exact = mva(demands, n, servers=servers)
    approx = amva(demands, n, servers=servers)
    assert approx.throughput == pytest.approx(float(exact.throughput[-1]), rel=5e-3)
    assert approx.response == pytest.approx(float(exact.response[-1]), rel=5e-3)


def test_bad_arguments_are_refused_as_mva_refuses_them() -> None:
    with pytest.raises(ValueError):
        amva([0.0, 0.0], 3)
    with pytest.raises(ValueError):
        amva([1e-3], 0)
    with pytest.raises(ValueError):
        amva([1e-3, -1.0], 3)


def test_the_twin_s_approximation_agrees_with_its_exact_solution(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The quickstart from 16 to 1,024 outstanding commands (SPTF drives of a RAID 5 pool,
    controller cores): the twin solved exactly, then with Bard-Schweitzer at every size."""
    scenario = sanpath.load_scenario(SCENARIOS / "quickstart.yaml")
    points = [{"workloads.0.outstanding": n} for n in (2, 8, 32, 128)]
    exact = predict_many(scenario, points)
    monkeypatch.setattr(twin_mva, "EXACT_POPULATION", 0)
    approx = predict_many(scenario.model_copy(update={"name": scenario.name}), points)
    for e, a in zip(exact, approx, strict=True):
        assert a.iops == pytest.approx(e.iops, rel=0.05)
        assert a.latency_ms_mean == pytest.approx(e.latency_ms_mean, rel=0.05)
    assert approx[-1].iops == pytest.approx(exact[-1].iops, rel=0.01)  # 1,024 commands
