"""Pictures of runs and sweeps: one function per plot kind, and the ``.plot`` accessor."""

# The modules, from the top down (nothing here imports this face):
#   accessor   SweepPlots, the ``.plot`` accessor of a SweepResult
#   files      save, picture_path, plot_files and KINDS (the ``sanpath plot`` command)
#   curves     iops_vs_outstanding, latency_vs_iops, find_knee
#   breakdown, fan_in, transfer, per_host, headroom, run (dashboard, latency_cdf),
#              comparison, topology: one plot kind each (topology draws a scenario, the
#              rest results)
#   player     an animation written out (HTML player, GIF, MP4), Player in a notebook
#   animate    PathAnimation: a run's recording drawn on the path picture, frame by frame
#   draw       new figures, a metric as a line with its confidence band
#   tables     a sweep table turned into the points and lines a plot draws; PlotInputError
#   style      axis labels, legends, axis scales, titles and subtitles (LAYER_COLORS: results)

from sanpath.plotting.accessor import SweepPlots
from sanpath.plotting.breakdown import breakdown
from sanpath.plotting.comparison import comparison, comparison_points
from sanpath.plotting.curves import find_knee, iops_vs_outstanding, latency_vs_iops
from sanpath.plotting.fan_in import fan_in
from sanpath.plotting.files import KINDS, picture_path, plot_files, save
from sanpath.plotting.headroom import headroom
from sanpath.plotting.per_host import per_host
from sanpath.plotting.player import (
    ANIMATION_FORMATS,
    AnimationFormatError,
    Player,
    write_animation,
)
from sanpath.plotting.run import dashboard, latency_cdf
from sanpath.plotting.style import log_ms_axis, set_titles, subtitle
from sanpath.plotting.tables import PlotInputError
from sanpath.plotting.topology import topology
from sanpath.plotting.transfer import transfer_size
from sanpath.readable import short_name
from sanpath.results import LAYER_COLORS

__all__ = [
    "ANIMATION_FORMATS",
    "KINDS",
    "LAYER_COLORS",
    "AnimationFormatError",
    "Player",
    "PlotInputError",
    "SweepPlots",
    "breakdown",
    "comparison",
    "comparison_points",
    "dashboard",
    "fan_in",
    "find_knee",
    "headroom",
    "iops_vs_outstanding",
    "latency_cdf",
    "latency_vs_iops",
    "log_ms_axis",
    "per_host",
    "picture_path",
    "plot_files",
    "save",
    "set_titles",
    "short_name",
    "subtitle",
    "topology",
    "transfer_size",
    "write_animation",
]
