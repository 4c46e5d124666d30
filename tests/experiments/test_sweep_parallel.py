"""Parallel sweeps: longest runs sent first, the table in grid order, Dask's sweep settings."""

from __future__ import annotations

import concurrent.futures as cf
import importlib
from collections.abc import Callable
from typing import Any

import pandas as pd
import pytest

from sanpath.experiments.dask_settings import SWEEP_SETTINGS, environment
from sanpath.experiments.sweep import Task, longest_first, sweep
from sanpath.sim.budget import estimate
from sanpath.spec import load_scenario
from tests.conftest import ROOT
from tests.experiments.test_sweep import small

IOS = "run.ios"


class RecordingExecutor(cf.Executor):
    """Runs each task when it is submitted, in this process, and keeps the order."""

    def __init__(self) -> None:
        self.sent: list[Task] = []

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> cf.Future[Any]:
        self.sent.append(args[0])
        future: cf.Future[Any] = cf.Future()
        future.set_result(fn(*args, **kwargs))
        return future


def test_longest_runs_are_sent_first_and_the_table_keeps_grid_order() -> None:
    grid = {IOS: [600, 2_400, 1_200]}
    serial = sweep(small(), grid, replicates=2, cache=None)
    pool = RecordingExecutor()
    parallel = sweep(small(), grid, replicates=2, executor=pool, cache=None)
    assert [t.point[IOS] for t in pool.sent] == [2_400, 2_400, 1_200, 1_200, 600, 600]
    assert [t.replicate for t in pool.sent] == [0, 1, 0, 1, 0, 1]
    pd.testing.assert_frame_equal(
        serial.table.drop(columns=["wall_seconds"]), parallel.table.drop(columns=["wall_seconds"])
    )
    assert parallel.table[IOS].to_list() == [600, 600, 2_400, 2_400, 1_200, 1_200]


def test_longest_first_orders_by_the_budget_estimate() -> None:
    specs = [load_scenario(small(), {IOS: n}) for n in (500, 4_000, 2_000, 500)]
    tasks = [Task(s.to_data(), {IOS: s.run.ios}, 0, f"k{i}") for i, s in enumerate(specs)]
    seconds = {t.key: estimate(s).seconds for t, s in zip(tasks, specs, strict=True)}
    assert seconds["k1"] > seconds["k2"] > seconds["k0"] == seconds["k3"]
    assert [t.key for t in longest_first(tasks, seconds)] == ["k1", "k2", "k0", "k3"]


def test_serial_sweeps_run_in_grid_order(monkeypatch: pytest.MonkeyPatch) -> None:
    # the module, not the function the experiments face exports under the same name
    sweep_module = importlib.import_module("sanpath.experiments.sweep")

    ran: list[int] = []
    original = sweep_module.run_task

    def spy(task: Task) -> dict[str, Any]:
        ran.append(task.point[IOS])
        return original(task)

    monkeypatch.setattr(sweep_module, "run_task", spy)
    sweep(small(), {IOS: [600, 2_400, 1_200]}, cache=None)
    assert ran == [600, 2_400, 1_200]


def test_sweep_settings_are_dask_keys_and_round_trip_through_the_environment() -> None:
    pytest.importorskip("distributed")  # adds its defaults to Dask's configuration
    dask_config = pytest.importorskip("dask.config")
    for key in SWEEP_SETTINGS:
        dask_config.get(key)  # a key Dask does not know raises KeyError
    env = environment()
    assert env["DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED"] == "False"
    collected = dask_config.collect_env(env)
    for key, value in SWEEP_SETTINGS.items():
        node: Any = collected
        for part in key.replace("-", "_").split("."):
            node = node[part]
        assert node == value


def test_the_dask_how_to_exports_the_settings() -> None:
    howto = (ROOT / "docs" / "howto" / "dask.md").read_text()
    for name, value in environment().items():
        assert f"export {name}={value}\n" in howto
