"""Pictures of runs and sweeps: one function per plot kind, and the ``.plot`` accessor."""

from sanpath.plotting.core import (
    KINDS,
    LAYER_COLORS,
    PlotInputError,
    SweepPlots,
    breakdown,
    dashboard,
    fan_in,
    find_knee,
    iops_vs_outstanding,
    latency_cdf,
    latency_vs_iops,
    picture_path,
    plot_files,
    save,
    short_name,
    transfer_size,
)

__all__ = [
    "KINDS",
    "LAYER_COLORS",
    "PlotInputError",
    "SweepPlots",
    "breakdown",
    "dashboard",
    "fan_in",
    "find_knee",
    "iops_vs_outstanding",
    "latency_cdf",
    "latency_vs_iops",
    "picture_path",
    "plot_files",
    "save",
    "short_name",
    "transfer_size",
]
