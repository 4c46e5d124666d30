"""The analytic twin: a scenario as a queueing network, solved by MVA in milliseconds."""

from sanpath.theory.twin.core import TwinPrediction, predict, predict_many

__all__ = ["TwinPrediction", "predict", "predict_many"]
