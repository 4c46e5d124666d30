"""The host bus adapter: command slots, per-command processing, its ports and its PCIe slot.

An HBA card spends ``command_time`` (seconds) on every command in a command processor (an
:class:`~sanpath.sim.station.FcfsServer` with one server). With ``processor: card`` every port
of the card shares one processor, so a second port adds bandwidth but no command rate; with
``processor: port`` each port has its own, so the card's command rate grows with its ports.
The card sits in a PCIe slot shared by all its ports (one
:class:`~sanpath.sim.station.Link` per direction), and has ``ports`` FC ports, each with a link
per direction at ``speed``.

Command slots (``queue_depth``) are counted per HBA port and per LUN (``queue_target:
lun``, Emulex QueueTarget 0) or per HBA port and per target port (``queue_target:
target``, QueueTarget 1); commands beyond the limit wait in the driver.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from sanpath.sim.hops import Hop
from sanpath.sim.station import FcfsServer, Link, SlotPool


@dataclass(eq=False)
class HbaPort:
    """One FC port of an HBA card.

    ``cpu`` is the command processor that serves this port's commands (shared with the
    card's other ports under ``processor: card``) and ``command_time`` draws its time per
    command, seconds.
    """

    name: str
    cpu: FcfsServer
    command_time: Callable[[], float]
    link_out: Link
    link_in: Link
    slots: dict[tuple[str, int], SlotPool] = field(default_factory=dict)
    hops: dict[tuple[str, int], tuple[Hop, ...]] = field(default_factory=dict)
    """Per slot pool (its key), the port's running hops: the slot gate and the processor."""
    bytes_in_flight: int = 0

    def service_time(self, size: int) -> float:
        """Bytes in flight plus ``size`` over the link rate (the service-time policy)."""
        rate = self.link_out.rate or 1.0
        return (self.bytes_in_flight + size) / rate


@dataclass(eq=False)
class Hba:
    """One HBA card: its PCIe slot and its ports (each port knows its processor)."""

    name: str
    pcie_down: Link
    pcie_up: Link
    ports: list[HbaPort]
