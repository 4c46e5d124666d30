"""Experiments: sweeps over knobs, calibration to measurements, published reference points.

* :mod:`~sanpath.experiments.sweep` - a grid of points, run in parallel (:func:`sanpath.sweep`);
* :mod:`~sanpath.experiments.cache` - the sweep's finished points on disk, keyed by content;
* :mod:`~sanpath.experiments.workers` - local worker processes that end with their parent;
* :mod:`~sanpath.experiments.calibrate` - fit unknown parameters to measured figures;
* :mod:`~sanpath.experiments.reference` - the published figures a scenario reproduces.
"""

from sanpath.experiments.cache import DEFAULT_CACHE
from sanpath.experiments.headroom import headroom
from sanpath.experiments.sweep import sweep

__all__ = [
    "DEFAULT_CACHE",
    "headroom",
    "sweep",
]
