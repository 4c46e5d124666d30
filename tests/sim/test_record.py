"""The animation window's recording (sanpath.sim.record): what it holds, that it changes no
figure of the run, and that its memory is bounded by its frames, not by the run."""

from __future__ import annotations

import tracemalloc
from typing import Any

import numpy as np
import pytest

from sanpath.results import HOST_LINKS, RunResult
from sanpath.sim import run
from sanpath.spec import AUTO_IOS, Scenario, load_scenario
from tests.conftest import SCENARIOS

FAN_IN = SCENARIOS / "animations" / "qfull_storm.yaml"
SPLIT = SCENARIOS / "animations" / "split.yaml"


def _figures(result: RunResult) -> dict[str, Any]:
    """Every figure of the result but those that differ by design: the wall time and the
    overrides (run.animate is one)."""
    out = result.to_dict()
    for key in ("wall_seconds", "overrides"):
        out.pop(key, None)
    return out


def _without(scenario: Scenario) -> Scenario:
    return scenario.model_copy(update={"run": scenario.run.model_copy(update={"animate": None})})


def test_recording_leaves_every_figure_as_it_was() -> None:
    scenario = load_scenario(FAN_IN, {"run.ios": 3000})
    recorded = run(scenario)
    plain = run(_without(scenario))
    assert plain.recording is None
    assert recorded.recording is not None
    assert _figures(recorded) == _figures(plain)
    assert recorded.counters == plain.counters and recorded.totals == plain.totals


def test_the_storm_is_recorded_frame_by_frame() -> None:
    result = run(load_scenario(FAN_IN, {"run.ios": 3000}))
    rec = result.recording
    assert rec is not None
    assert rec.frames == 80
    assert rec.t[0] == 0.0 and rec.t[-1] == pytest.approx(0.04)
    assert np.allclose(np.diff(rec.t), 0.04 / 79)
    port = rec.place("port:0")
    assert rec.held[0, port] == 0  # an empty path at the start
    assert rec.held[:, port].max() == 1600  # the port queue fills to its depth
    assert (rec.held[:, port] <= rec.capacity[:, port]).all()
    # every QUEUE FULL the port and the LUN queues gave reached a host (a frame or so later)
    assert rec.refused[:, port].sum() > 100
    given = int(rec.refused.sum())
    assert abs(int(rec.qfull.sum()) - given) < 0.05 * given
    # the hosts' throttles lowered their LUN queues below the 4 x 32 configured
    queues = [rec.place(f"host:{h}:queue") for h in rec.hosts]
    assert len(rec.hosts) == 16
    assert (rec.capacity[-1, queues] < 128).any() and (rec.capacity[1, queues] == 128).all()
    assert 1 <= len(rec.journeys) <= 12
    issued = [j.issued for j in rec.journeys]
    assert issued == sorted(issued) and issued[-1] > 0.5 * 0.04  # spread over the window
    for j in rec.journeys:
        assert j.layer_at(j.issued) == j.stages[0][0]
        assert j.layer_at(j.done) is None
        assert [t for _, t in j.stages] == sorted(t for _, t in j.stages)
    assert ((rec.busy >= 0) & (rec.busy <= 1)).all()
    # each host's own links: the group's busy time shared out by the bytes each host moved
    assert rec.host_busy.shape == (80, 16, len(HOST_LINKS))
    assert ((rec.host_busy >= 0) & (rec.host_busy <= 1)).all()
    for j, link in enumerate(HOST_LINKS):
        group = rec.busy[:, rec.stations.index(f"esx.{link}")]
        mean = rec.host_busy[:, :, j].mean(axis=1)
        unclipped = (rec.host_busy[:, :, j] < 1).all(axis=1)
        assert np.allclose(mean[unclipped], group[unclipped])
    links = rec.host_busy[:, :, 2:].max(axis=2)
    assert links.max() > 0 and (np.ptp(links, axis=1) > 0.01).any()  # hosts differ
    assert rec.completed.sum() > 0 and np.nanmax(rec.latency_ms) > 1.0


def test_a_large_io_is_recorded_as_its_commands() -> None:
    rec = run(load_scenario(SPLIT)).recording
    assert rec is not None
    assert rec.splits.sum() == rec.completed.sum() > 0  # every 1 MiB read is split
    assert rec.journeys and all(j.parts == 2 and j.size == 1 << 20 for j in rec.journeys)
    one = run(load_scenario(SPLIT, {"hosts.0.hbas.0.max_transfer": "2MiB"})).recording
    assert one is not None and one.splits.sum() == 0
    assert all(j.parts == 1 for j in one.journeys)


def test_a_window_without_duration_ends_after_its_ios_and_keeps_its_frames() -> None:
    scenario = load_scenario(
        FAN_IN, {"run.ios": 6000, "run.animate": {"start": "5ms", "frames": 40, "tracked": 5}}
    )
    rec = run(scenario).recording
    assert rec is not None
    assert rec.frames == 40
    assert rec.t[0] == pytest.approx(0.005)
    assert AUTO_IOS <= rec.completed.sum() < 1.5 * AUTO_IOS
    assert (np.diff(rec.t) > 0).all()
    assert len(rec.journeys) == 5


def test_a_window_past_the_end_of_the_run_records_nothing() -> None:
    rec = run(load_scenario(FAN_IN, {"run.ios": 500, "run.animate.start": "10s"})).recording
    assert rec is not None and rec.frames == 0


@pytest.mark.slow
def test_a_window_of_ten_thousand_commands_costs_under_50_mb() -> None:
    """The whole run of 10,000 I/Os in the window: the recording adds less than 50 MB to the
    run's peak Python memory, and the figures are those of the run without it."""
    base = load_scenario(
        SCENARIOS / "quickstart.yaml",
        {"run.ios": 10_000, "run.warmup_ios": 0, "run.warmup": "fixed", "run.precision": None},
    )
    plain = run(base)
    scenario = base.with_overrides(
        {"run.animate": {"start": 0.0, "duration": plain.sim_seconds * 1.5, "frames": 500}}
    )

    def peak(spec: Scenario) -> tuple[int, RunResult]:
        tracemalloc.start()
        try:
            result = run(spec)
            return tracemalloc.get_traced_memory()[1], result
        finally:
            tracemalloc.stop()

    without, plain = peak(base)
    with_it, recorded = peak(scenario)
    assert recorded.recording is not None
    assert recorded.recording.completed.sum() == pytest.approx(10_000, abs=50)
    assert with_it - without < 50e6
    assert recorded.recording.nbytes() < 5e6
    assert _figures(recorded) == _figures(plain)
