"""The animation window of ``sanpath animate`` and ``sanpath run --animate``: a scenario set
to record one, and the recording written out."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import sys
from typing import Any


def animated(scenario: Any, **fields: Any) -> Any:
    """``scenario`` recording an animation window: its own ``run.animate`` (or the defaults of
    :class:`sanpath.spec.AnimateSpec`) with ``fields`` (those not None) set."""
    from sanpath.spec import AnimateSpec

    spec = scenario.run.animate if scenario.run.animate is not None else AnimateSpec()
    given = {k: v for k, v in fields.items() if v is not None}
    spec = AnimateSpec.model_validate({**spec.model_dump(), **given})
    return scenario.model_copy(update={"run": scenario.run.model_copy(update={"animate": spec})})


def write_run_animation(result: Any, out: str, frames: int | None = None) -> None:
    """Write ``result``'s recording to ``out`` and say where (and whether the run ended
    before the window did)."""
    from sanpath.plotting import write_animation
    from sanpath.readable import duration

    recording = result.recording
    spec = result.recording.scenario["run"]["animate"]
    path = write_animation(recording, out, frames=frames)
    start, end = float(recording.t[0]), float(recording.t[-1])
    if spec.get("duration") is not None and end < spec["start"] + spec["duration"] * 0.999:
        print(
            f"sanpath: warning: the run ended at {duration(end)}, before the animation window "
            "did; run longer (run.ios, run.duration) or start the window earlier",
            file=sys.stderr,
        )
    print(
        f"animation of {recording.frames} frames, {duration(start)} to {duration(end)} of "
        f"simulated time, written to {path}"
    )
