"""Every result says how it was made: the seed and the overrides of a run and of each
sweep point (run JSON, sweep tables in memory, CSV and JSON, and their metadata)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sanpath.cli import main
from sanpath.experiments.sweep import sweep
from sanpath.results import SweepResult
from sanpath.spec import load_scenario
from sanpath.theory import textbook

OIO = "workloads.0.outstanding"
QD = "hosts.0.hbas.0.queue_depth"


def tiny() -> dict[str, Any]:
    return textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=600,
        warmup_ios=60,
    )


@pytest.fixture
def tiny_file(tmp_path: Path) -> Path:
    path = tmp_path / "tiny.yaml"
    YAML().dump(tiny(), path)
    return path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, Any]:
    assert main(["run", *args, "--json"]) == 0
    out, _ = capsys.readouterr()
    data: dict[str, Any] = json.loads(out)
    return data


def test_run_json_records_the_seed_and_the_overrides_as_written(
    capsys: pytest.CaptureFixture[str], tiny_file: Path
) -> None:
    plain = run_json(capsys, str(tiny_file))
    assert plain["overrides"] == {}
    assert plain["seed"] == load_scenario(tiny_file).seed
    changed = run_json(
        capsys, str(tiny_file), "--seed", "11", "--set", f"{QD}=2",
        "--set", "workloads.0.block_size=8KiB",
    )  # fmt: skip
    assert changed["seed"] == 11
    assert changed["overrides"] == {QD: 2, "workloads.0.block_size": "8KiB"}
    # --analytic prints the same object with the twin beside it
    with_twin = run_json(capsys, str(tiny_file), "--set", f"{QD}=2", "--analytic")
    assert with_twin["overrides"] == {QD: 2} and "analytic" in with_twin


def test_sweep_table_has_seed_and_each_points_overrides(tiny_file: Path) -> None:
    base = load_scenario(tiny_file, {QD: 3})
    result = sweep(base, {OIO: [1, 2]}, replicates=2, cache=None)
    table = result.table
    assert list(table.columns[:4]) == [OIO, "replicate", "seed", "overrides"]
    assert (table["seed"] == base.seed).all()
    made_with = [json.loads(text) for text in table["overrides"]]
    assert made_with == [{QD: 3, OIO: 1}] * 2 + [{QD: 3, OIO: 2}] * 2
    assert result.attrs["overrides"] == {QD: 3}


def test_a_point_that_repeats_the_base_keeps_its_own_overrides(tiny_file: Path) -> None:
    # outstanding 4 is the file's own value: the same scenario as the base, run once (one
    # cache key) but listed with the override it was asked for
    result = sweep(tiny_file, {OIO: [4, 4]}, cache=None)
    assert [json.loads(t) for t in result.table["overrides"]] == [{OIO: 4}, {OIO: 4}]


def test_sweep_files_carry_them(
    capsys: pytest.CaptureFixture[str], tiny_file: Path, tmp_path: Path
) -> None:
    for name in ("t.csv", "t.json"):
        out = tmp_path / name
        code = main(
            [
                "sweep", str(tiny_file), "--quiet", "--no-cache", "--set", f"{QD}=2",
                "--vary", f"{OIO}=1..2", "--out", str(out),
            ]
        )  # fmt: skip
        assert code == 0, capsys.readouterr().err
        loaded = SweepResult.load(out)
        assert loaded.keys == [OIO]  # the new column does not become a varied key
        assert [json.loads(t) for t in loaded.table["overrides"]] == [
            {QD: 2, OIO: 1},
            {QD: 2, OIO: 2},
        ]
        assert loaded.attrs["overrides"] == {QD: 2}
        assert "seed" in loaded.table.columns
        assert not loaded.summary().empty  # a text column does not disturb the summary
    capsys.readouterr()


def test_cached_points_get_the_overrides_of_the_sweep_that_reads_them(
    tiny_file: Path, tmp_path: Path
) -> None:
    cache = tmp_path / "cache"
    sweep(tiny_file, {OIO: [2]}, cache=cache)
    # the same scenario reached through an override of the base instead of the grid
    again = sweep(load_scenario(tiny_file, {OIO: 2}), None, cache=cache, zipped={QD: [None]})
    assert json.loads(again.table["overrides"].iloc[0]) == {OIO: 2, QD: None}
