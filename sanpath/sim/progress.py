"""A progress bar for one long run (tqdm, on standard error).

The engine prints nothing: it calls a progress callback at batch boundaries when one is
given. :class:`RunProgress` is such a callback. It shows nothing on a run that ends within
:data:`DELAY` seconds or when standard error is not a terminal (tqdm's own rules), and
otherwise how far the run has got: the warm-up (I/Os so far, the write-back cache's fill),
then the measured window against its length, or against the precision asked for.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from tqdm import tqdm

if TYPE_CHECKING:
    from sanpath.sim.measure import Measurement

DELAY = 3.0
"""Seconds of wall time before the bar appears."""


class RunProgress:
    """Progress of one run as a tqdm bar (percent).

    The run calls it at every batch boundary with its measurement
    (``sanpath.sim.measure.Measurement``). ``label`` names the bar; ``disable`` None shows it
    only when standard error is a terminal, after ``DELAY`` (3) seconds.
    """

    def __init__(self, label: str = "", disable: bool | None = None) -> None:
        self.bar: Any = tqdm(
            total=100,
            desc=label or "run",
            delay=DELAY,
            disable=disable,
            leave=False,
            bar_format="{desc}: {percentage:3.0f}%|{bar}| {postfix} [{elapsed}<{remaining}]",
        )

    def __call__(self, sim: Measurement) -> None:
        spec = sim.run_spec
        info = sim.control.info
        if not sim.measuring:
            text = f"warming up, {sim.completed:,} I/Os"
            cache = sim.cache
            if cache.capacity:
                text += f", cache {100 * cache.dirty / cache.capacity:.0f}% dirty"
            self._show(0.0, text)
            return
        if spec.duration is not None:
            done = (sim.env.now - sim.window_start) / spec.duration
            self._show(done, f"{sim.env.now - sim.window_start:.3g} of {spec.duration:.3g} s")
        elif spec.ios is not None:
            self._show(sim.measured / spec.ios, f"{sim.measured:,} of {spec.ios:,} I/Os")
        else:
            target = info.target or 1.0
            width = max(info.precision.values(), default=math.inf)
            # the half-width shrinks as 1 / sqrt(I/Os): the share of the run done so far
            done = (target / width) ** 2 if math.isfinite(width) and width > 0 else 0.0
            text = f"{sim.measured:,} I/Os"
            if math.isfinite(width):
                text += f", +/-{100 * width:.1f}% (stop at +/-{100 * target:.1f}%)"
            done = max(done, sim.measured / spec.max_ios)
            self._show(done, text)

    def _show(self, fraction: float, text: str) -> None:
        value = 100.0 * min(max(fraction, 0.0), 0.99)
        self.bar.n = value
        self.bar.set_postfix_str(text, refresh=False)
        self.bar.refresh()

    def close(self) -> None:
        """Remove the bar."""
        self.bar.close()
