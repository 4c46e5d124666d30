"""The garbage collector's thresholds during a run (sanpath.sim.collector): raised while the
simulation runs, put back afterwards however the run ends."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from typing import Any

import pytest

import sanpath
from sanpath.sim import collector
from sanpath.sim.engine import Simulation
from tests.conftest import SCENARIOS

SHORT = {"run.ios": 200, "run.warmup_ios": 20, "run.warmup": "fixed"}


@pytest.fixture
def thresholds() -> Iterator[tuple[int, int, int]]:
    """Distinctive thresholds for the test, CPython's own put back after it."""
    saved = gc.get_threshold()
    gc.set_threshold(701, 11, 9)
    yield gc.get_threshold()
    gc.set_threshold(*saved)


def test_raised_within_the_block_and_restored_after(thresholds: tuple[int, int, int]) -> None:
    with collector.few_collections():
        assert gc.get_threshold() == (collector.YOUNG, collector.MIDDLE_EVERY, collector.FULL_EVERY)
    assert gc.get_threshold() == thresholds


def test_restored_when_the_block_raises(thresholds: tuple[int, int, int]) -> None:
    with pytest.raises(KeyError), collector.few_collections(young=5_000, every=50, middle=20):
        assert gc.get_threshold() == (5_000, 20, 50)
        raise KeyError("inside")
    assert gc.get_threshold() == thresholds


def test_higher_thresholds_and_automatic_collection_off_are_kept(
    thresholds: tuple[int, int, int],
) -> None:
    gc.set_threshold(50_000, 5_000, 5_000)
    with collector.few_collections():
        assert gc.get_threshold() == (50_000, 5_000, 5_000)
    assert gc.get_threshold() == (50_000, 5_000, 5_000)
    gc.set_threshold(0, 11, 9)  # automatic collection off: a run must not turn it on
    with collector.few_collections():
        assert gc.get_threshold()[0] == 0
    assert gc.get_threshold() == (0, 11, 9)


def simulation() -> Simulation:
    return Simulation(sanpath.load_scenario(SCENARIOS / "quickstart.yaml", SHORT), seed=3)


def test_a_run_raises_them_while_it_simulates_and_puts_them_back(
    thresholds: tuple[int, int, int],
) -> None:
    sim = simulation()
    seen: list[tuple[int, int, int]] = []

    def watch() -> Iterator[Any]:  # a process of the run: it sees the run's thresholds
        yield sim.env.timeout(1e-4)
        seen.append(gc.get_threshold())

    sim.env.process(watch())
    result = sim.run()
    assert result.ios == SHORT["run.ios"]
    assert seen == [(collector.YOUNG, collector.MIDDLE_EVERY, collector.FULL_EVERY)]
    assert gc.get_threshold() == thresholds


def test_a_run_that_fails_puts_them_back(thresholds: tuple[int, int, int]) -> None:
    sim = simulation()
    sim.env.timeout(1e-4).callbacks.append(lambda _: 1 / 0)  # fails mid-run
    with pytest.raises(ZeroDivisionError):
        sim.run()
    assert gc.get_threshold() == thresholds


def test_no_collection_is_due_when_they_are_put_back(thresholds: tuple[int, int, int]) -> None:
    """The block's allocations since its last young collection are collected before the
    thresholds go back, so the postponed collections do not start at its next allocation."""
    with collector.few_collections():
        gc.collect(0)
        kept = [[i] for i in range(5_000)]  # more tracked objects than the usual threshold
        assert gc.get_count()[0] > thresholds[0]
    assert gc.get_count()[0] < thresholds[0]
    assert len(kept) == 5_000
