"""A schedule is checked when the scenario is validated, not when it runs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import sanpath
from sanpath.spec import ScenarioError

ROOT = Path(__file__).resolve().parents[2]


def _quickstart(schedule: list[dict[str, Any]]) -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "scenarios/quickstart.yaml").read_text())
    data["schedule"] = schedule
    return data


def test_a_key_that_cannot_change_is_refused_with_its_place(tmp_path: Path) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(
        yaml.safe_dump(_quickstart([{"at": "1s", "set": {"array.cache.write_back": "1GiB"}}]))
    )
    with pytest.raises(ScenarioError) as info:
        sanpath.load_scenario(path)
    (problem,) = info.value.problems
    assert problem.path == "schedule.0.set.array.cache.write_back"
    assert problem.source == str(path) and problem.line is not None
    assert "cannot change during a run" in problem.message


def test_an_invalid_value_is_refused_at_the_schedule_entry() -> None:
    with pytest.raises(ScenarioError) as info:
        sanpath.load_scenario(_quickstart([{"at": "2s", "set": {"hosts.0.lun_queue_depth": 0}}]))
    (problem,) = info.value.problems
    assert problem.path == "schedule.0.set.hosts.0.lun_queue_depth"
    assert "greater than or equal to 1" in problem.message


def test_a_valid_schedule_loads_and_changes_the_setting() -> None:
    data = _quickstart([{"at": "0.5s", "set": {"hosts.*.lun_queue_depth": 4}}])
    data["run"] = {"duration": "1s", "warmup": "fixed", "warmup_ios": 0}
    result = sanpath.run(data)
    settings = [(s["t_s"], s["value"]) for s in result.settings]
    assert settings[-1] == (0.5, 4)
    assert settings[0][0] == 0.0 and settings[0][1] != 4
