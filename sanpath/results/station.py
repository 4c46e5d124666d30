"""Per-station figures and the one table of latency-breakdown layers.

The engine charges each command's time to a layer of :data:`LAYERS`; results, plots and
checks name the layers from the same table.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

LAYERS = (
    "host",
    "host_queue",
    "hba",
    "pcie",
    "fabric",
    "array_port",
    "controller",
    "cache",
    "lun_queue",
    "drive",
)
"""Latency-breakdown layers, in path order (``breakdown_ms[<layer>]``)."""

LAYER_LABELS = {
    "host": "host",
    "host_queue": "host queue",
    "hba": "HBA",
    "pcie": "PCIe",
    "fabric": "fabric",
    "array_port": "array port",
    "controller": "controller",
    "cache": "cache",
    "lun_queue": "LUN queue",
    "drive": "drive",
}
"""A storage engineer's name for each layer of :data:`LAYERS`, for tables and legends."""


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
    in_station_at_end: int
    little_residual: float
    """Relative gap between the time-weighted count and the summed time in station."""

    def to_dict(self) -> dict[str, Any]:
        """JSON-friendly dict (milliseconds, None for undefined utilization)."""
        return {
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
