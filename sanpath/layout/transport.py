"""What a host group's transport grants and costs, from the scenario alone.

One place for the figures the simulator, the twin and the checks read alike
(:mod:`sanpath.spec.transport` holds the transports' facts):

* :func:`host_framing` - how the host's data is framed on the links;
* :func:`nvme_queues` - an NVMe host's I/O queues per controller association and their size,
  after the array's caps;
* :func:`transport_cpu_time` - the host's processor time per command for the transport;
* :func:`transport_delay` - what a command waits in the transport's stack besides;
* :func:`nvme_io_time` and :func:`target_time` - the controller's time per command of a
  host's transport, and the array's processor time for the transport on top of it.

Times are seconds, sizes bytes.
"""

from __future__ import annotations

from typing import Final

from sanpath.spec import TRANSPORTS, Framing, Scenario, ethernet_framing

DEFAULT_CPUS: Final = 32
"""Processors assumed for an NVMe host without ``cpus`` (Linux gives it one I/O queue per
online CPU): a two-socket server of 16-core processors, an assumption."""


def host_framing(scenario: Scenario, group: int) -> Framing:
    """How host group ``group``'s transport frames its data on the links: the fabric's Fibre
    Channel frames, or Ethernet frames of the host's MTU
    (:func:`~sanpath.spec.ethernet_framing`)."""
    host = scenario.hosts[group]
    if TRANSPORTS[host.transport].ethernet:
        return ethernet_framing(host.transport, host.effective_mtu)
    return Framing(scenario.fabric.frame_payload, scenario.fabric.frame_overhead)


def nvme_queues(scenario: Scenario, group: int) -> tuple[int, int]:
    """``(io_queues, queue_size)`` of an NVMe host group's association with one controller:
    what the host asks (``nvme.io_queues``, else one per processor) capped by what the array
    grants (``array.nvme.max_io_queues``, ``max_queue_size``). A queue holds
    ``queue_size - 1`` commands."""
    host = scenario.hosts[group]
    grants = scenario.array.nvme
    asked = host.nvme.io_queues
    if asked is None:
        asked = host.cpus if host.cpus is not None else DEFAULT_CPUS
    io_queues = asked if grants.max_io_queues is None else min(asked, grants.max_io_queues)
    size = host.nvme.queue_size
    if grants.max_queue_size is not None:
        size = min(size, grants.max_queue_size)
    return io_queues, size


def transport_cpu_time(scenario: Scenario, group: int) -> float:
    """Host processor time per command of host group ``group``'s transport, seconds
    (``transport_cpu_time``, else the transport's figure)."""
    host = scenario.hosts[group]
    given = host.transport_cpu_time
    return TRANSPORTS[host.transport].host_cpu_time if given is None else given


def transport_delay(scenario: Scenario, group: int) -> float:
    """Seconds a command of host group ``group`` waits in its transport's stack beyond
    processor time (a pure delay: interrupts, wake-ups, socket hand-offs)."""
    return TRANSPORTS[scenario.hosts[group].transport].stack_delay


def nvme_io_time(scenario: Scenario, transport: str) -> float | None:
    """The controller's own time per command of ``transport`` when it differs from
    ``controller.io_time`` (``array.nvme.io_time`` for an NVMe transport), seconds; None:
    the controller's time."""
    return scenario.array.nvme.io_time if TRANSPORTS[transport].nvme else None


def target_time(scenario: Scenario, transport: str) -> float:
    """Array processor time per command of ``transport``'s own stack, seconds, on top of the
    controller's time per command (``array.nvme.tcp_time``, ``iscsi_time`` or
    ``rdma_time``, else the transport's figure)."""
    grants = scenario.array.nvme
    given = {"nvme-tcp": grants.tcp_time, "iscsi": grants.iscsi_time, "nvme-roce": grants.rdma_time}
    value = given.get(transport)
    return TRANSPORTS[transport].target_time if value is None else value
