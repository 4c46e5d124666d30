"""Drive geometry shared by the simulated drives and the analytic twin.

Seek curve: for a seek over a fraction ``x`` of the full stroke,
``t(x) = track + A x + B sqrt(x)``. A datasheet's "average seek" weights every start/end
pair (a triangular distance distribution, E[x] = 1/3, E[sqrt x] = 8/15), which gives
``B = (15 avg - 10 track - 5 full) / 3`` and ``A = full - track - B``. For the Cheetah 15K.7
(0.2 / 3.4 / 6.6 ms): A = 1.07 ms, B = 5.33 ms.

:func:`queue_gain` is the closed form of what a drive's scheduler gains from its queue, used
by the analytic twin and the checks (the simulator schedules command by command instead).
"""

from __future__ import annotations

import math
from typing import Final

from sanpath.spec import HddSpec

CYLINDERS: Final = 100_000
"""Seek distances below one cylinder (1/CYLINDERS of the stroke) cost no seek."""


def seek_curve(spec: HddSpec, write: bool = False) -> tuple[float, float, float]:
    """(track, A, B) of the seek curve ``t(x) = track + A x + B sqrt(x)`` of a read (or with
    ``write`` of a write: :attr:`~sanpath.spec.HddSpec.write_seeks`), seconds."""
    if write:
        track, average, full = spec.write_seeks
    else:
        track, average, full = spec.track_to_track, spec.average_seek, spec.full_stroke
    b = max((15.0 * average - 10.0 * track - 5.0 * full) / 3.0, 0.0)
    return track, full - track - b, b


SPTF_GAMMA: Final = 0.27
"""Exponent of the SPTF positioning speed-up ``g(q) = q^0.27``: within 2% of a Monte-Carlo of
ideal shortest-positioning-time-first scheduling for q = 2..64 (see ``docs/model.md``)."""

_SQRT_SHAPE: Final = (8.0 / 15.0) / math.sqrt(1.0 / 3.0)
"""E[sqrt x] / sqrt(E[x]) of the triangular seek distance: it makes the elevator's seek below
equal the random seek with one candidate."""


def random_seek(spec: HddSpec, span: float = 1.0) -> float:
    """Mean seek (s) between two uniform points of a region ``span`` of the stroke."""
    if span * CYLINDERS < 1.0:
        return 0.0
    track, a, b = seek_curve(spec)
    return track + a * span / 3.0 + b * (8.0 / 15.0) * math.sqrt(span)


def elevator_seek(spec: HddSpec, candidates: float, span: float = 1.0) -> float:
    """Mean seek (s) of an elevator (LOOK) choosing among ``candidates`` queued commands.

    The arm moves to the nearest cylinder ahead, about ``(2/3) span / (c + 1)`` of the stroke
    away with ``c`` uniform candidates: the random seek for ``c = 1`` and, against the
    simulator's own elevator, within 5% for ``c`` = 2..63 (the 15k, 10k and 7.2k profiles,
    random reads over the whole disk).
    """
    c = max(candidates, 1.0)
    m = (2.0 / 3.0) * span / (c + 1.0)
    if m * CYLINDERS < 1.0:
        return 0.0
    track, a, b = seek_curve(spec)
    return track + a * m + b * _SQRT_SHAPE * math.sqrt(m)


def queue_gain(spec: HddSpec, queued: float, span: float = 1.0) -> float:
    """How many times shorter a random operation's positioning is with ``queued`` commands.

    ``queued`` commands at the drive (at least 1; the scheduler considers at most its
    window of them) on a region ``span`` of the stroke: ``fifo`` gains nothing, ``sptf``
    ``min(q, window)^0.27`` (:data:`SPTF_GAMMA`), ``elevator`` shortens the seek only
    (:func:`elevator_seek`) while the rotational wait stays half a revolution.
    """
    q = min(max(queued, 1.0), float(spec.window))
    if q <= 1.0:
        return 1.0
    if spec.scheduler == "sptf":
        return float(q**SPTF_GAMMA)
    if spec.scheduler == "elevator":
        half_turn = 30.0 / spec.rpm
        return (random_seek(spec, span) + half_turn) / (elevator_seek(spec, q, span) + half_turn)
    return 1.0
