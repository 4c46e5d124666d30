"""The twin's accuracy table of ``docs/twin.md`` (written by ``make validation``)."""

from __future__ import annotations

import math
from pathlib import Path

import pytest

from sanpath.experiments.twin_accuracy import (
    REPORT_OVERRIDES,
    Accuracy,
    accuracy_markdown,
    outstanding_ios,
    twin_accuracy,
    write_twin_accuracy,
)
from sanpath.spec import load_scenario
from tests.conftest import SCENARIOS


def test_outstanding_ios_follow_the_settings() -> None:
    fan_in = load_scenario(SCENARIOS / "fan_in.yaml")
    assert outstanding_ios(fan_in) == 16 * 4 * 32  # hosts x LUNs x outstanding
    track = load_scenario(SCENARIOS / "fast_track_2012.yaml")
    assert outstanding_ios(track) == 20 * 10  # LUNs x threads, one each
    assert outstanding_ios(load_scenario(SCENARIOS / "backup_2013.yaml")) is None  # a copy job
    opened = fan_in.with_overrides({"workloads.0.outstanding": None, "workloads.0.rate": 100.0})
    assert outstanding_ios(opened) is None


def test_the_table_writes_numbers_for_people() -> None:
    row = Accuracy("fan-in", 61155.7, 52318.2, 24.368, 39.145, "array.r10.drives", 2048)
    assert row.little_ms == pytest.approx(2048 / 61155.7 * 1e3)
    text = accuracy_markdown([row, Accuracy("open", 10.0, 11.0, 1.0, 1.0, "x", None)])
    lines = text.splitlines()
    assert lines[2] == (
        "| fan-in | 61,200 | 52,300 | -14.5% | 24.4 | 39.1 | +60.6% | 33.5 | `array.r10.drives` |"
    )
    assert lines[3].split("|")[8].strip() == "-"  # no Little's law without outstanding I/Os
    assert math.isnan(Accuracy("x", 0.0, 1.0, 1.0, 1.0, "x", 4).little_ms)


SHORT = {**REPORT_OVERRIDES, "run.ios": 3_000, "run.warmup_ios": 1_000}


def test_a_scenario_and_its_variant_are_compared(tmp_path: Path) -> None:
    paths = [SCENARIOS / "quickstart.yaml", SCENARIOS / "fast_track_2012.yaml"]
    rows = twin_accuracy(paths, SHORT)
    assert [r.scenario for r in rows] == [
        "quickstart",
        "fast-track-2012",
        "fast-track-2012, random offsets",
    ]
    for r in rows:
        assert r.sim_iops > 0 and r.twin_iops > 0 and r.sim_ms > 0 and r.twin_ms > 0
    quick = rows[0]
    # a closed loop without QUEUE FULL obeys Little's law: outstanding / IOPS = mean latency
    assert quick.little_ms == pytest.approx(quick.sim_ms, rel=0.03)
    out = tmp_path / "twin.md"
    text = write_twin_accuracy(paths[:1], out, SHORT)
    assert out.read_text() == text and "| quickstart |" in text
