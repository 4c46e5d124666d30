"""The one model of the wiring, shared by the simulator, the checks and the twin.

How hosts reach LUNs (active paths, failover, split limits, wire bytes, station names), what
each host's transport grants and costs (NVMe queue pairs, framing, processor time), how a
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
from sanpath.layout.credits import CreditLimit, host_link_credits, host_link_rates
from sanpath.layout.demand import host_demand
from sanpath.layout.fabric import (
    IslHop,
    host_switch,
    isl_credits,
    isl_hops,
    isl_label,
    isl_labels,
    isl_light,
    port_switch,
    reverse,
)
from sanpath.layout.geometry import CYLINDERS, SPTF_GAMMA, queue_gain, seek_curve
from sanpath.layout.hops import (
    DELAY,
    FLIGHT,
    GATE,
    KINDS,
    LINK,
    REFUSING_GATE,
    SERVER,
    Hop,
    front_hops,
)
from sanpath.layout.raid import (
    DESTAGE_PER_DRIVE,
    WRITE_PENALTY,
    RaidLayout,
    Spans,
    command_lengths,
    merge,
)
from sanpath.layout.stations import ROLES, Role, station_name, station_roles
from sanpath.layout.transport import (
    DEFAULT_CPUS,
    host_framing,
    nvme_io_time,
    nvme_queues,
    target_time,
    transport_cpu_time,
    transport_delay,
)
from sanpath.layout.wiring import (
    HostPort,
    LunPlace,
    PathInfo,
    Wiring,
    command_limit,
    failover_path,
    lun_owner,
    port_controller,
    split_limit,
    split_sizes,
    wire_bytes,
)

__all__ = [
    "CYLINDERS",
    "DEFAULT_CPUS",
    "DELAY",
    "DESTAGE_PER_DRIVE",
    "FLIGHT",
    "GATE",
    "KINDS",
    "LINK",
    "REFUSING_GATE",
    "ROLES",
    "SERVER",
    "SPTF_GAMMA",
    "WRITE_PENALTY",
    "AccessModel",
    "CreditLimit",
    "Hop",
    "HostPort",
    "IslHop",
    "LunPlace",
    "PathInfo",
    "RaidLayout",
    "Role",
    "Spans",
    "Wiring",
    "access_blocks",
    "access_model",
    "command_lengths",
    "command_limit",
    "failover_path",
    "front_hops",
    "host_demand",
    "host_framing",
    "host_link_credits",
    "host_link_rates",
    "host_switch",
    "hot_mass",
    "isl_credits",
    "isl_hops",
    "isl_label",
    "isl_labels",
    "isl_light",
    "lun_owner",
    "merge",
    "nvme_io_time",
    "nvme_queues",
    "port_controller",
    "port_switch",
    "queue_gain",
    "read_hit",
    "read_hits",
    "reverse",
    "seek_curve",
    "split_limit",
    "split_sizes",
    "station_name",
    "station_roles",
    "target_time",
    "transport_cpu_time",
    "transport_delay",
    "wire_bytes",
]
