"""Experiments: sweeps over knobs, calibration to measurements, published reference points.

* :mod:`~sanpath.experiments.sweep` - a grid of points, run in parallel (:func:`sanpath.sweep`);
* :mod:`~sanpath.experiments.calibrate` - fit unknown parameters to measured figures;
* :mod:`~sanpath.experiments.reference` - the published figures a scenario reproduces.
"""
