"""Sweeps: table shape, determinism across executors, resume, zipped and wildcard keys."""

from __future__ import annotations

import concurrent.futures as cf
import json
import sys
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

import sanpath
from sanpath.cli import main
from sanpath.experiments.sweep import Task, expand_grid, run_task, sweep
from sanpath.results import SweepResult
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

QD = "hosts.0.hbas.0.queue_depth"
OIO = "workloads.0.outstanding"


def small() -> dict[str, Any]:
    data = textbook.closed_path(
        8,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=1_500,
        warmup_ios=150,
    )
    return data


def comparable(table: pd.DataFrame) -> pd.DataFrame:
    return (
        table.drop(columns=["wall_seconds"])
        .sort_values([QD, OIO, "replicate"])
        .reset_index(drop=True)
    )


def test_expand_grid_product_zip_and_tuple_keys() -> None:
    points = expand_grid({"a": [1, 2], "b": ["x", "y", "z"]})
    assert len(points) == 6 and points[0] == {"a": 1, "b": "x"} and points[-1] == {"a": 2, "b": "z"}
    zipped = expand_grid({"a": [1, 2]}, zipped={"b": [10, 20], "c": [100, 200]})
    assert zipped == [
        {"a": 1, "b": 10, "c": 100},
        {"a": 1, "b": 20, "c": 200},
        {"a": 2, "b": 10, "c": 100},
        {"a": 2, "b": 20, "c": 200},
    ]
    assert expand_grid({("a", "b"): [(1, 2), (3, 4)]}) == [{"a": 1, "b": 2}, {"a": 3, "b": 4}]
    with pytest.raises(ValueError, match="same length"):
        expand_grid(zipped={"a": [1], "b": [1, 2]})


def test_table_shape_and_summary(tmp_path: Path) -> None:
    result = sweep(small(), {QD: [1, 4], OIO: [1, 8, 16]}, replicates=2, cache=tmp_path)
    table = result.table
    assert len(table) == 2 * 3 * 2
    assert list(table.columns[:4]) == [QD, OIO, "replicate", "seed"]
    for column in (
        "iops",
        "mb_per_s",
        "latency_ms_mean",
        "latency_ms_p50",
        "latency_ms_p99",
        "latency_ms_p99_9",
        "qfull",
        "breakdown_ms_drive",
    ):
        assert column in table.columns
    summary = result.summary()
    assert len(summary) == 6
    assert {"iops", "iops_lo", "iops_hi", "replicates"} <= set(summary.columns)
    assert (summary["iops_lo"] <= summary["iops"]).all()
    assert (summary["iops"] <= summary["iops_hi"]).all()
    # queue depth 1 caps the population: more outstanding I/Os add latency, not IOPS
    capped = summary[summary[QD] == 1].sort_values(OIO)
    assert capped["iops"].max() / capped["iops"].min() < 1.15
    assert capped["latency_ms_mean"].is_monotonic_increasing


def test_common_random_numbers_and_replicates(tmp_path: Path) -> None:
    result = sweep(small(), {OIO: [4, 4]}, replicates=2, cache=None)
    t = result.table
    # the same replicate index gives the same numbers at identical points
    r0 = t[t["replicate"] == 0]["iops"].to_list()
    r1 = t[t["replicate"] == 1]["iops"].to_list()
    assert r0[0] == r0[1] and r1[0] == r1[1]
    assert r0[0] != r1[0]


def test_process_pool_gives_the_serial_table(tmp_path: Path) -> None:
    grid = {QD: [2, 8], OIO: [4, 16]}
    serial = sweep(small(), grid, replicates=2, cache=None)
    with cf.ProcessPoolExecutor(max_workers=2) as pool:
        parallel = sweep(small(), grid, replicates=2, executor=pool, cache=None)
    jobs = sweep(small(), grid, replicates=2, jobs=2, cache=None)
    assert len(serial.table) == 2 * 2 * 2
    pd.testing.assert_frame_equal(comparable(serial.table), comparable(parallel.table))
    pd.testing.assert_frame_equal(comparable(serial.table), comparable(jobs.table))


@pytest.mark.slow
def test_dask_local_cluster_gives_the_serial_table() -> None:
    distributed = pytest.importorskip("distributed")
    grid = {QD: [2, 8], OIO: [4, 16]}
    serial = sweep(small(), grid, replicates=2, cache=None)
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        dask = sweep(small(), grid, replicates=2, executor=client.get_executor(), cache=None)
    assert len(serial.table) == 2 * 2 * 2
    pd.testing.assert_frame_equal(comparable(serial.table), comparable(dask.table))


def test_resume_after_interruption(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    grid = {OIO: [1, 2, 4, 8]}
    calls: list[dict[str, Any]] = []
    sweep_module = sys.modules["sanpath.experiments.sweep"]

    def interrupted(task: Task) -> dict[str, Any]:
        if len(calls) == 2:
            raise KeyboardInterrupt
        calls.append(task.point)
        return run_task(task)

    monkeypatch.setattr(sweep_module, "run_task", interrupted)
    partial = sweep(small(), grid, cache=tmp_path)
    assert not partial.complete
    assert len(partial.table) == 2
    assert len(list(tmp_path.glob("*.json"))) == 2

    resumed_calls: list[dict[str, Any]] = []

    def counting(task: Task) -> dict[str, Any]:
        resumed_calls.append(task.point)
        return run_task(task)

    monkeypatch.setattr(sweep_module, "run_task", counting)
    full = sweep(small(), grid, cache=tmp_path)
    assert full.complete and len(full.table) == 4
    assert len(resumed_calls) == 2  # only the points not finished before
    fresh = sweep(small(), grid, cache=None)
    pd.testing.assert_frame_equal(
        full.table.drop(columns="wall_seconds"), fresh.table.drop(columns="wall_seconds")
    )


def test_wildcard_keys_change_every_hba(tmp_path: Path) -> None:
    data = small()
    data["hosts"].append(json.loads(json.dumps(data["hosts"][0])) | {"name": "other"})
    result = sweep(data, {"hosts.*.hbas.*.queue_depth": [1, 2]}, cache=None)
    assert result.table["hosts.*.hbas.*.queue_depth"].to_list() == [1, 2]
    assert result.table["iops"].iloc[1] > result.table["iops"].iloc[0]


def test_bad_point_is_reported_before_running() -> None:
    with pytest.raises(sanpath.ScenarioError, match="sweep"):
        sweep(small(), {QD: [4, -1]}, cache=None)


def test_scenario_sweep_section_and_cli(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = small()
    data["sweep"] = {"vary": {OIO: [1, 4]}, "replicates": 2}
    path = tmp_path / "s.yaml"
    from ruamel.yaml import YAML

    YAML().dump(data, path)
    from_section = sweep(path, cache=None)
    assert len(from_section.table) == 4
    out = tmp_path / "table.csv"
    code = main(["sweep", str(path), "--no-cache", "--quiet", "--out", str(out)])
    assert code == 0
    loaded = SweepResult.load(out)
    assert loaded.keys == [OIO]
    assert len(loaded.table) == 4
    code = main(
        [
            "sweep",
            str(path),
            "--no-cache",
            "--quiet",
            "--vary",
            f"{QD}=1,2",
            "--vary",
            f"{OIO}=2,8",
            "--out",
            str(tmp_path / "t.json"),
        ]
    )
    assert code == 0
    payload = json.loads((tmp_path / "t.json").read_text())
    assert payload["keys"] == [QD, OIO] and len(payload["rows"]) == 4
    assert main(["sweep", str(path), "--vary", "nonsense"]) == 2
    assert main(["sweep", str(path), "--no-cache", "--quiet", "--vary", "no.such.key=1"]) == 2
    capsys.readouterr()


def test_shipped_scenarios_with_sweep_sections_validate() -> None:
    swept = []
    for path in sorted(SCENARIOS.glob("*.yaml")):
        scenario = sanpath.load_scenario(path)
        if scenario.sweep is not None:
            swept.append(path.stem)
            points = expand_grid(dict(scenario.sweep.vary), dict(scenario.sweep.zip) or None)
            assert len(points) > 1, path.name
            for point in points:
                scenario.model_copy(update={"sweep": None}).with_overrides(point)
    assert {"fan_in", "qd_sweep_2007", "transfer_split"} <= set(swept)
