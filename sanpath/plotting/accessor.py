"""The sweep plots bound to one sweep: ``SweepResult.plot``."""

from __future__ import annotations

from pathlib import Path

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sanpath.plotting.breakdown import breakdown
from sanpath.plotting.curves import iops_vs_outstanding, latency_vs_iops
from sanpath.plotting.draw import AxesLike
from sanpath.plotting.fan_in import fan_in
from sanpath.plotting.files import save
from sanpath.plotting.tables import SweepLike
from sanpath.plotting.transfer import transfer_size

__all__ = ["SweepPlots"]


class SweepPlots:
    """The sweep plots bound to one sweep (``SweepResult.plot``).

    >>> ax = result.plot.latency_vs_iops(hue="hosts.0.hbas.0.queue_depth")  # doctest: +SKIP
    >>> result.plot.save(ax, "hockey.png")                                   # doctest: +SKIP
    """

    def __init__(self, sweep: SweepLike) -> None:
        self.sweep = sweep

    def iops_vs_outstanding(
        self,
        x: str = "workloads.0.outstanding",
        hue: str | None = "hosts.0.hbas.0.queue_depth",
        ax: Axes | None = None,
    ) -> Axes:
        """See :func:`sanpath.plotting.iops_vs_outstanding`."""
        return iops_vs_outstanding(self.sweep, x, hue, ax=ax)

    def latency_vs_iops(
        self,
        hue: str | None = None,
        ax: Axes | None = None,
        mark_knee: bool = True,
        percentile: str | None = "p99",
        load: str | None = None,
    ) -> Axes:
        """See :func:`sanpath.plotting.latency_vs_iops`."""
        return latency_vs_iops(
            self.sweep, hue, ax=ax, mark_knee=mark_knee, percentile=percentile, load=load
        )

    def breakdown(self, x: str | None = None, ax: Axes | None = None) -> Axes:
        """See :func:`sanpath.plotting.breakdown`."""
        return breakdown(self.sweep, x, ax=ax)

    def fan_in(
        self,
        x: str = "hosts.0.count",
        port_queue_depth: int | None = None,
        commands_per_host: int | None = None,
        axes: AxesLike | None = None,
    ) -> tuple[Axes, Axes, Axes]:
        """See :func:`sanpath.plotting.fan_in`."""
        return fan_in(self.sweep, x, port_queue_depth, commands_per_host, axes=axes)

    def transfer_size(
        self,
        x: str = "workloads.0.block_size",
        hue: str | None = "hosts.0.hbas.0.max_transfer",
        axes: AxesLike | None = None,
    ) -> tuple[Axes, Axes]:
        """See :func:`sanpath.plotting.transfer_size`."""
        return transfer_size(self.sweep, x, hue, axes=axes)

    @staticmethod
    def save(fig_or_ax: Figure | Axes | AxesLike, path: str | Path, *, force: bool = False) -> Path:
        """See :func:`sanpath.plotting.save`."""
        return save(fig_or_ax, path, force=force)
