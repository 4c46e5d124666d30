"""The one model of the wiring, shared by the simulator, the checks and the twin.

How hosts reach LUNs (active paths, failover, split limits, wire bytes, station names), how a
RAID group maps a host command to drive operations, and the drive geometry constants. This
package reads frozen specs only; it knows nothing of SimPy, statistics or rules.
"""

from sanpath.layout.access import (
    AccessModel,
    access_blocks,
    access_model,
    hot_mass,
    read_hit,
    read_hits,
)
from sanpath.layout.geometry import CYLINDERS, SPTF_GAMMA, queue_gain, seek_curve
from sanpath.layout.raid import RaidLayout, Spans, command_lengths, merge
from sanpath.layout.wiring import (
    HostPort,
    LunPlace,
    PathInfo,
    Wiring,
    split_limit,
    split_sizes,
    wire_bytes,
)

__all__ = [
    "CYLINDERS",
    "SPTF_GAMMA",
    "AccessModel",
    "HostPort",
    "LunPlace",
    "PathInfo",
    "RaidLayout",
    "Spans",
    "Wiring",
    "access_blocks",
    "access_model",
    "command_lengths",
    "hot_mass",
    "merge",
    "queue_gain",
    "read_hit",
    "read_hits",
    "seek_curve",
    "split_limit",
    "split_sizes",
    "wire_bytes",
]
