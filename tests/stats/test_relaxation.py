"""Run length against the busiest queue's relaxation time (sanpath.stats.steady)."""

from __future__ import annotations

import math

import pytest

from sanpath.stats import RELAXATIONS_PER_BATCH, relaxation_time, short_batches


def test_relaxation_time_is_morse_s_formula() -> None:
    assert relaxation_time(0.001, 0.81) == pytest.approx(0.1)  # 1 ms / (1 - 0.9)^2
    assert relaxation_time(0.001, 0.25) == pytest.approx(0.004)
    assert relaxation_time(0.001, 1.0) == math.inf


def test_short_batches_names_the_slowest_queue_only_when_batches_are_short() -> None:
    queues = [("hba", 0.5, 0.0001), ("drives", 0.81, 0.001), ("link", math.nan, 0.001)]
    tau = 0.1  # the drives': the longest
    long_enough = 1.01 * RELAXATIONS_PER_BATCH * tau * 20
    assert short_batches(queues, long_enough, 20) is None
    found = short_batches(queues, 0.98 * long_enough, 20)
    assert found is not None
    name, utilization, relax, batch_s = found
    assert (name, utilization) == ("drives", 0.81)
    assert relax == pytest.approx(tau)
    assert batch_s == pytest.approx(0.98 * long_enough / 20)
    assert short_batches([("idle", 0.0, 0.001)], 1e-6, 20) is None
    assert short_batches(queues, 1.0, 0) is None
