"""Station names: one table of the places on the path, one function that names them.

Every place a command waits or is served (a *station*) plays one :data:`ROLES` entry: the
host group's per-LUN queues, its HBA command slots and processors, the PCIe slots, the links
of each direction, the array's port queues and links, the controller, the per-LUN queues and
the drives of a pool. A role gives the station's name pattern, the latency-breakdown layer
its time counts to (:data:`sanpath.results.LAYERS`) and how it works:

* ``slots`` - a counting semaphore (a queue depth): a command holds a slot;
* ``server`` - servers that each serve one command at a time (processors, flash units);
* ``link`` - a bandwidth server (one direction of an FC link, a PCIe slot).

The simulator's stations (:mod:`sanpath.sim.topology`), the analytic twin's
(:mod:`sanpath.theory.twin`) and the names the bottleneck ranking and the advice read all come
from :func:`station_name`, so a name is spelt in one place; :func:`station_roles` lists a
scenario's stations with their roles, so a name is looked up, never taken apart. Statistics
are kept per host *group* and per LUN *group*: the 64 hosts of ``db`` share ``db.hba.slots``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from sanpath.layout.fabric import isl_labels
from sanpath.spec import Scenario


@dataclass(frozen=True)
class Role:
    """What one kind of station is: its name pattern, layer and way of working."""

    name: str
    """The role's key in :data:`ROLES`."""
    pattern: str
    """The station name with the scope's fields in braces: ``{host}``, ``{port}``,
    ``{pool}``, ``{lun}``."""
    layer: str
    """The latency-breakdown layer its time counts to."""
    kind: str
    """``slots``, ``server`` or ``link``."""
    what: str
    """What it is, in a storage engineer's words."""


ROLES: Final[dict[str, Role]] = {
    role.name: role
    for role in (
        Role("host_queue", "{host}.lun_queue", "host_queue", "slots", "per-LUN queues of a host"),
        Role(
            "queue_pairs",
            "{host}.nvme.queues",
            "host_queue",
            "slots",
            "NVMe I/O queue pairs of a host",
        ),
        Role("host_cpu", "{host}.cpu", "host", "server", "processors of a host"),
        Role("hba_slots", "{host}.hba.slots", "hba", "slots", "HBA command slots"),
        Role("hba_cpu", "{host}.hba.cpu", "hba", "server", "HBA command processors"),
        Role("pcie_down", "{host}.pcie.down", "pcie", "link", "PCIe slots, to the HBA"),
        Role("pcie_up", "{host}.pcie.up", "pcie", "link", "PCIe slots, to host memory"),
        Role("host_link_out", "{host}.link.out", "fabric", "link", "host links, outwards"),
        Role("host_link_in", "{host}.link.in", "fabric", "link", "host links, inwards"),
        Role("isl", "fabric.isl.{isl}", "fabric", "link", "inter-switch links, one direction"),
        Role("port_queue", "array.port{port}.queue", "array_port", "slots", "array port queue"),
        Role("port_link_in", "array.port{port}.link.in", "fabric", "link", "array port link in"),
        Role("port_link_out", "array.port{port}.link.out", "fabric", "link", "array port link out"),
        Role("controller", "array.controller", "controller", "server", "array controller"),
        Role(
            "controllers",
            "array.controller{controller}",
            "controller",
            "server",
            "each of the array's two controllers",
        ),
        Role(
            "controller_bandwidth",
            "array.controller.bandwidth",
            "controller",
            "link",
            "the controllers' data bandwidth",
        ),
        Role(
            "cross_controller",
            "array.cross_controller",
            "controller",
            "link",
            "the link between the controllers",
        ),
        Role("lun_queue", "array.lun.{lun}", "lun_queue", "slots", "the array's per-LUN queues"),
        Role("drives", "array.{pool}.drives", "drive", "server", "the drives of a pool"),
    )
}
"""Every role a station of the path plays, by key."""


def station_name(role: str, **scope: object) -> str:
    """The name of the station playing ``role`` in ``scope``.

    >>> station_name("hba_slots", host="db")
    'db.hba.slots'
    >>> station_name("port_queue", port=3)
    'array.port3.queue'
    """
    return ROLES[role].pattern.format(**scope)


def station_roles(scenario: Scenario) -> dict[str, Role]:
    """Every station ``scenario``'s path can have, by name, with its role.

    For names that arrive without their station (the analytic twin's bottleneck): the name
    is looked up, never taken apart.
    """
    array = scenario.array
    values: dict[str, list[object]] = {
        "host": [host.name for host in scenario.hosts],
        "port": list(range(array.ports)),
        "lun": [group.name for group in array.luns],
        "pool": [pool.name for pool in array.pools],
        "controller": list(range(array.controllers)) if array.controllers > 1 else [],
        "isl": list(isl_labels(scenario)),
    }
    out: dict[str, Role] = {}
    for role in ROLES.values():
        fields = [field for field in values if "{" + field + "}" in role.pattern]
        for value in values[fields[0]] if fields else [None]:
            out[role.pattern.format(**({fields[0]: value} if fields else {}))] = role
    return out
