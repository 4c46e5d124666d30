"""A run too short for its busiest queue says so: the batch means of batches shorter than a
few relaxation times look independent but are not, and their intervals under-cover (M/M/1
at 90% busy, 20,000 I/Os: 91% of the 95% intervals held the exact mean)."""

from __future__ import annotations

from typing import Any

from sanpath.sim import run
from sanpath.theory import textbook


def exp(ms: float) -> dict[str, Any]:
    return {"dist": "exponential", "mean": f"{ms}ms"}


def relaxation_notes(result: Any) -> list[str]:
    return [w for w in result.warnings if "relaxes in about" in w]


def test_a_run_short_for_a_90_percent_busy_queue_says_how_long_to_run() -> None:
    data = textbook.open_queue(900.0, exp(1.0))
    data["run"] = {"ios": 20_000}
    (note,) = relaxation_notes(run(data))
    assert "may be too narrow" in note and "90% busy" in note
    # S / (1 - sqrt(0.9))^2 with S = 1 ms: about 380 ms (the measured utilization moves it),
    # so 20 batches of 10 relaxation times: about 76 simulated s, some 68,000 I/Os
    assert "run.ios" in note
    need = int(note.split("at least ")[-1].split(" I/Os")[0].replace(",", ""))
    assert 40_000 <= need <= 120_000
    # half as long again: the utilization a run measures moves the relaxation time (at 90%
    # busy, one point of utilization is about a fifth of it)
    data["run"] = {"ios": need * 3 // 2}
    assert relaxation_notes(run(data)) == []


def test_no_note_at_80_percent_busy_or_in_a_closed_loop() -> None:
    data = textbook.open_queue(800.0, exp(1.0))
    data["run"] = {"ios": 20_000}
    assert relaxation_notes(run(data)) == []
    closed = textbook.free_path()
    closed["array"]["pools"][0]["drive"] = exp(1.0)
    closed["workloads"][0]["outstanding"] = 32  # the drive 100% busy: a closed loop's queue
    closed["run"] = {"ios": 20_000}
    assert relaxation_notes(run(closed)) == []
