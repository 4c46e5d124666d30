"""The registry of knobs: the scenario keys that size a station or set the load.

One table (:data:`KNOBS`) says, for every such key, its pattern (``hosts.{host}.lun_queue_depth``),
what it sizes (a station role of :mod:`sanpath.layout.stations`, or ``load``), and whether a
``schedule`` may change it during a run. Everything that spells these keys reads them here:

* validation of a scenario's ``schedule`` (:data:`SCHEDULABLE`, :data:`NOT_SCHEDULABLE`);
* the simulator's queues, which register under their key (:func:`knob_key`) so a schedule
  finds them, and its schedule, which tells a load key from a queue depth (:func:`match_knob`);
* the declared hops of a route (:mod:`sanpath.layout.hops`), which name the key sizing each;
* the analytic twin, which re-solves a sweep point without rebuilding its network when the
  point changes only populations (:mod:`sanpath.theory.twin`).

In a pattern, ``{host}``, ``{hba}``, ``{lun}`` and ``{workload}`` are indices into
``hosts``, ``hosts.N.hbas``, ``array.luns`` and ``workloads``; a key may put ``*`` there for
every one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final


@dataclass(frozen=True)
class Knob:
    """One kind of scenario key that sizes a station or sets the load."""

    name: str
    pattern: str
    """The dotted key, with ``{host}``, ``{hba}``, ``{lun}``, ``{workload}`` for indices."""
    sizes: str
    """The role of the hop it sizes (:mod:`sanpath.layout.hops`), or ``load``."""
    schedulable: bool
    """True when a ``schedule`` may change it during a run."""
    what: str
    """What it is, in a storage engineer's words."""

    @property
    def regex(self) -> str:
        """The regular expression a key of this knob matches (an index or ``*``)."""
        return re.sub(r"\\\{(\w+)\\\}", r"(?P<\1>\\d+|\\*)", re.escape(self.pattern))


KNOBS: Final[tuple[Knob, ...]] = (
    Knob(
        "host_queue_depth",
        "hosts.{host}.lun_queue_depth",
        "host_queue",
        True,
        "a host's per-LUN (per path) queue depth",
    ),
    Knob(
        "nvme_queue_size",
        "hosts.{host}.nvme.queue_size",
        "queue_pairs",
        False,
        "entries of an NVMe host's I/O queues (each holds one fewer command)",
    ),
    Knob(
        "hba_queue_depth",
        "hosts.{host}.hbas.{hba}.queue_depth",
        "hba_slots",
        True,
        "an HBA's command slots per LUN or per target",
    ),
    Knob("host_cpus", "hosts.{host}.cpus", "host_cpu", False, "a host's processors"),
    Knob("host_io_time", "hosts.{host}.io_time", "host_io", False, "a host's I/O stack time"),
    Knob(
        "hba_command_time",
        "hosts.{host}.hbas.{hba}.command_time",
        "hba_cpu",
        False,
        "an HBA's processing time per command",
    ),
    Knob("hop_latency", "fabric.hop_latency", "fabric", False, "the fabric's latency per hop"),
    Knob(
        "port_queue_depth",
        "array.port_queue_depth",
        "port_queue",
        True,
        "the array's front-end port queue",
    ),
    Knob(
        "array_lun_queue_depth",
        "array.lun_queue_depth",
        "lun_queue",
        True,
        "the array's per-LUN queue limit",
    ),
    Knob(
        "lun_queue_depth",
        "array.luns.{lun}.queue_depth",
        "lun_queue",
        True,
        "one LUN group's per-LUN queue limit",
    ),
    Knob(
        "controller_cores", "array.controller.cores", "controller", False, "the controller's cores"
    ),
    Knob(
        "failed_controller",
        "array.failed_controller",
        "controller",
        True,
        "the array controller that has failed (its LUNs move to the survivor)",
    ),
    Knob(
        "cross_time",
        "array.cross_controller.time",
        "cross_forward",
        False,
        "forwarding a command to the owning controller",
    ),
    Knob(
        "outstanding",
        "workloads.{workload}.outstanding",
        "load",
        True,
        "a closed loop's outstanding I/Os",
    ),
    Knob("rate", "workloads.{workload}.rate", "load", True, "an open loop's arrival rate"),
)
"""Every knob, by the order a command meets what it sizes (the load last)."""

BY_NAME: Final[dict[str, Knob]] = {knob.name: knob for knob in KNOBS}

_MATCHERS: Final = tuple((knob, re.compile(knob.regex)) for knob in KNOBS)


def knob_key(name: str, **indices: int) -> str:
    """The dotted key of knob ``name`` at ``indices``.

    >>> knob_key("hba_queue_depth", host=0, hba=1)
    'hosts.0.hbas.1.queue_depth'
    """
    return BY_NAME[name].pattern.format(**indices)


def match_knob(key: str) -> tuple[Knob, dict[str, str]] | None:
    """The knob a dotted ``key`` sets and its indices (``"*"`` for every one), or None.

    >>> match_knob("workloads.*.rate")[0].name, match_knob("workloads.*.rate")[1]
    ('rate', {'workload': '*'})
    """
    for knob, matcher in _MATCHERS:
        found = matcher.fullmatch(key)
        if found:
            return knob, found.groupdict()
    return None


SCHEDULABLE: Final = tuple(knob.regex for knob in KNOBS if knob.schedulable)
"""Keys a ``schedule`` may change during a run (regular expressions): queue depths and the
load. Anything else is refused when the scenario is validated."""


def _listed(knobs: list[Knob]) -> str:
    return ", ".join(
        k.pattern.replace("{host}", "N").replace("{hba}", "M").replace("{lun}", "N")
        .replace("{workload}", "N")
        for k in knobs
    )  # fmt: skip


NOT_SCHEDULABLE: Final = (
    "cannot change during a run; a schedule can change queue depths ("
    + _listed([k for k in KNOBS if k.schedulable and k.sizes != "load"])
    + ") and the load ("
    + _listed([k for k in KNOBS if k.schedulable and k.sizes == "load"])
    + ")"
)
"""Why a key outside :data:`SCHEDULABLE` is refused in a schedule."""
