"""Sweeps, comparisons and calibrations check every point's budget before running any."""

from __future__ import annotations

import sys
from typing import Any

import pytest

from sanpath.experiments.sweep import Task, run_task, sweep
from sanpath.sim import budget
from sanpath.spec import ScenarioError
from sanpath.theory import textbook


def small(ios: int = 1_000) -> dict[str, Any]:
    return textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=ios,
        warmup_ios=100,
    )


def test_sweep_checks_every_point_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Task] = []

    def counting(task: Task) -> dict[str, Any]:
        calls.append(task)
        return run_task(task)

    monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", counting)
    with pytest.raises(ScenarioError) as info:
        sweep(small(), {"run.ios": [500, 10**12]}, cache=None)
    assert calls == []
    (problem,) = info.value.problems
    assert problem.path == "run.ios"
    assert "sweep (run.ios=1000000000000)" in problem.message and "--force" in problem.message
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    forced = sweep(small(), {"run.ios": [300]}, cache=None, force=True)
    assert len(forced.table) == 1 and len(calls) == 1


def test_compare_and_calibrate_check_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    from sanpath.experiments import calibrate, reference

    data = small()
    data["reference"] = {
        "source": "synthetic",
        "points": [
            {"label": "fine", "value": 1000.0},
            {"label": "huge", "set": {"run.ios": 10**12}, "value": 1000.0},
        ],
    }
    ran: list[Any] = []
    monkeypatch.setattr(sys.modules["sanpath.sim"], "run", lambda *a, **k: ran.append(a))
    with pytest.raises(ScenarioError, match=r"reference point 'huge'.*--force"):
        reference.compare(data)
    points = [calibrate.MeasuredPoint("huge", {"run.ios": 10**12}, {"iops": 1000.0})]
    with pytest.raises(ScenarioError, match=r"measured point 'huge'.*--force"):
        calibrate.calibrate(small(), points, ["array.controller.io_time"])
    assert ran == []
