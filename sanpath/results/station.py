"""Per-station figures and the one table of latency-breakdown layers.

The engine charges each command's time to a layer of :data:`LAYERS`; results, plots and
checks name the layers from the same table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Layer:
    """One latency-breakdown layer: where on the path a command's time is charged."""

    name: str
    """The key (``breakdown_ms[<name>]``)."""
    label: str
    """A storage engineer's name for it, for tables and legends."""
    component: str
    """The kind of component its stations are, as the bottleneck ranking groups them (every
    FC link, the host's and the array's, is a ``link``)."""
    colour: str
    """Its fixed colour in every picture."""


LAYER_TABLE: tuple[Layer, ...] = (
    Layer("host", "host", "host", "#c7c7c7"),
    Layer("host_queue", "host queue", "host queue", "#8c8c8c"),
    Layer("hba", "HBA", "HBA", "#1f77b4"),
    Layer("pcie", "PCIe", "PCIe", "#17becf"),
    Layer("fabric", "fabric", "link", "#2ca02c"),
    Layer("array_port", "array port", "array port", "#bcbd22"),
    Layer("controller", "controller", "controller", "#ff7f0e"),
    Layer("cache", "cache", "cache", "#e377c2"),
    Layer("lun_queue", "LUN queue", "LUN queue", "#9467bd"),
    Layer("drive", "drive", "drives", "#d62728"),
)
"""The one table of layers, in path order: results, plots, the twin and the checks read it."""

LAYERS = tuple(layer.name for layer in LAYER_TABLE)
"""Latency-breakdown layers, in path order (``breakdown_ms[<layer>]``)."""

LAYER_LABELS = {layer.name: layer.label for layer in LAYER_TABLE}
"""A storage engineer's name for each layer of :data:`LAYERS`, for tables and legends."""

KIND_OF_LAYER = {layer.name: layer.component for layer in LAYER_TABLE}
"""The component kind a station of each layer belongs to (every FC link is a ``link``)."""

LAYER_COLORS = {layer.name: layer.colour for layer in LAYER_TABLE}
"""Fixed colour of each layer, in path order."""


@dataclass(frozen=True)
class StationStats:
    """A station's figures over the measurement window (times in seconds)."""

    name: str
    kind: str
    layer: str
    servers: float
    utilization: float
    mean_in_station: float
    mean_queue: float
    mean_wait_s: float
    mean_service_s: float
    throughput: float
    arrivals: int
    completions: int
    rejected: int
    little_residual: float
    """Relative gap between the time-weighted count and the summed time in station."""
    credit_starved: float | None = None
    """Share of the window its links had a frame to send and no buffer-to-buffer credit
    (each link's time counts once per link, as Brocade's ``tim_txcrd_z``); None: no link of
    the station is credit-bound."""
    frames_discarded: int | None = None
    """Frames its switch ports dropped in the window, held longer than the fabric's
    ``frame_timeout``; None: no link of the station is credit-bound."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (milliseconds, None for undefined utilization; ``credit_starved``
        only for a station with a credit-bound link)."""
        out: dict[str, Any] = {
            "name": self.name,
            "kind": self.kind,
            "layer": self.layer,
            "servers": None if not math.isfinite(self.servers) else self.servers,
            "utilization": None if math.isnan(self.utilization) else self.utilization,
            "mean_queue": self.mean_queue,
            "mean_in_station": self.mean_in_station,
            "mean_wait_ms": self.mean_wait_s * 1e3,
            "mean_service_ms": self.mean_service_s * 1e3,
            "throughput": self.throughput,
            "completions": self.completions,
            "rejected": self.rejected,
        }
        if self.credit_starved is not None:  # a credit-bound link's: absent elsewhere
            out["credit_starved"] = self.credit_starved
        if self.frames_discarded is not None:
            out["frames_discarded"] = self.frames_discarded
        return out
