"""Drive geometry shared by the simulated drives and the analytic twin.

Seek curve: for a seek over a fraction ``x`` of the full stroke,
``t(x) = track + A x + B sqrt(x)``. A datasheet's "average seek" weights every start/end
pair (a triangular distance distribution, E[x] = 1/3, E[sqrt x] = 8/15), which gives
``B = (15 avg - 10 track - 5 full) / 3`` and ``A = full - track - B``. For the Cheetah 15K.7
(0.2 / 3.4 / 6.6 ms): A = 1.07 ms, B = 5.33 ms.
"""

from __future__ import annotations

from typing import Final

from sanpath.spec import HddSpec

CYLINDERS: Final = 100_000
"""Seek distances below one cylinder (1/CYLINDERS of the stroke) cost no seek."""


def seek_curve(spec: HddSpec) -> tuple[float, float, float]:
    """(track, A, B) of the seek curve ``t(x) = track + A x + B sqrt(x)``, seconds."""
    track = spec.track_to_track
    b = max((15.0 * spec.average_seek - 10.0 * track - 5.0 * spec.full_stroke) / 3.0, 0.0)
    return track, spec.full_stroke - track - b, b
