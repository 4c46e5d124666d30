"""A hard disk's ``scheduler`` and ``reorder_window``: values, the former name, errors."""

from __future__ import annotations

from typing import Any

import pytest

from sanpath.spec import HddSpec, ScenarioError, load_scenario
from sanpath.spec.profiles import DRIVE_PROFILES
from tests.conftest import SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"


def drive_of(drive: Any) -> HddSpec:
    spec = load_scenario(QUICKSTART, {"array.pools.0.drive": drive}).array.pools[0].drive
    assert isinstance(spec, HddSpec)
    return spec


def test_every_hdd_profile_names_its_scheduler() -> None:
    for name, profile in DRIVE_PROFILES.items():
        if profile["model"] == "hdd":
            assert profile["scheduler"] in ("fifo", "elevator", "sptf"), name


@pytest.mark.parametrize("scheduler", ["fifo", "elevator", "sptf"])
def test_the_three_schedulers(scheduler: str) -> None:
    assert drive_of({"profile": "hdd-15k", "scheduler": scheduler}).scheduler == scheduler


def test_scheduling_is_read_as_the_former_name_of_scheduler() -> None:
    assert drive_of({"profile": "hdd-15k", "scheduling": "fifo"}).scheduler == "fifo"
    assert drive_of({"model": "hdd", "scheduling": "fifo"}).scheduler == "fifo"
    with pytest.raises(ScenarioError, match="give scheduler only"):
        drive_of({"model": "hdd", "scheduler": "sptf", "scheduling": "fifo"})


def test_an_unknown_scheduler_is_refused_with_the_choices() -> None:
    with pytest.raises(ScenarioError) as info:
        drive_of({"profile": "hdd-15k", "scheduler": "scan"})
    text = str(info.value)
    assert "array.pools.0.drive.scheduler" in text
    assert "'fifo', 'elevator' or 'sptf' (got 'scan')" in text


@pytest.mark.parametrize("window", [0, -1, True, 2.5])
def test_a_reorder_window_is_a_positive_whole_number(window: Any) -> None:
    with pytest.raises(ScenarioError, match=r"array\.pools\.0\.drive\.reorder_window"):
        drive_of({"profile": "hdd-15k", "reorder_window": window})


def test_the_window_is_the_queue_unless_smaller() -> None:
    assert drive_of({"model": "hdd", "queue_depth": 12}).window == 12
    assert drive_of({"model": "hdd", "queue_depth": 12, "reorder_window": 40}).window == 12
    assert drive_of({"model": "hdd", "reorder_window": 6}).window == 6
    assert drive_of({"profile": "hdd-7k2"}).window == 16
    assert drive_of({"profile": "hdd-7k2", "reorder_window": None}).window == 32
