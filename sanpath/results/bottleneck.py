"""Which component limits a run: stations ranked by utilization, grouped by kind.

A run's stations (:class:`~sanpath.results.station.StationStats`) are grouped by the kind of
component a storage engineer would name (host queue, HBA, PCIe, link, array port,
controller, cache, LUN queue, drives), and the groups are ranked by the utilization of their
busiest station. The first group is the run's bottleneck; :attr:`Bottleneck.meaning` says in
one sentence what its load means and what relieves it.

Utilization is a fraction in [0, 1]: for servers and links, the busy fraction per server;
for slot pools (host and LUN queues, HBA command slots, the array port queue), the mean
fraction of slots held, so a full slot pool means its queue-depth limit binds.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sanpath.results.station import KIND_OF_LAYER, LAYERS, StationStats

__all__ = ["KIND_OF_LAYER", "Bottleneck", "rank_bottlenecks"]

SATURATED = 0.9
"""Utilization from which a component is called saturated."""
BUSY = 0.7
"""Utilization from which a component is called heavily loaded."""
QUIET = 0.5
"""Below this utilization for the busiest component, nothing is near saturation."""


@dataclass(frozen=True)
class Bottleneck:
    """One kind of component, with its busiest station.

    Attributes
    ----------
    kind
        The component kind: ``host``, ``host queue``, ``HBA``, ``PCIe``, ``link``,
        ``array port``, ``controller``, ``cache``, ``LUN queue`` or ``drives``.
    station
        Name of the kind's busiest station group (e.g. ``array.r5.drives``).
    station_kind
        ``slots``, ``server`` or ``link``: how that station works.
    utilization
        Utilization of that station, a fraction in [0, 1].
    mean_utilization
        Plain mean of the utilizations of the kind's stations (fraction).
    stations
        How many station groups of this kind did work in the window.
    credit_starved
        For a link short of buffer-to-buffer credits, the share of the window it had frames
        to send and no credit to send them with; None elsewhere.
    """

    kind: str
    station: str
    station_kind: str
    utilization: float
    mean_utilization: float
    stations: int
    credit_starved: float | None = None

    @property
    def meaning(self) -> str:
        """In one sentence, what this component's load means and what relieves it (below 50%
        utilization, that nothing is near saturation)."""
        return _meaning(self, quiet=True)

    @property
    def saturating(self) -> str:
        """In one sentence, what it means when this component saturates, at any utilization."""
        return _meaning(self, quiet=False)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-friendly dict (fractions, not percentages)."""
        return {
            "kind": self.kind,
            "station": self.station,
            "station_kind": self.station_kind,
            "utilization": self.utilization,
            "mean_utilization": self.mean_utilization,
            "stations": self.stations,
            "meaning": self.meaning,
        } | ({} if self.credit_starved is None else {"credit_starved": self.credit_starved})


def rank_bottlenecks(stations: Iterable[StationStats]) -> tuple[Bottleneck, ...]:
    """Group ``stations`` by kind and rank the kinds by their busiest station's utilization.

    Stations without a utilization (unlimited slots or servers) or with no work in the window
    are left out. A slot pool is held while its command waits further down the path, so when
    a server or link is saturated (utilization at least ``SATURATED``) no slot pool ranks
    above it: the full queue is the symptom, the saturated server the cause. Otherwise ties go
    to servers and links before slot pools, then to path order.
    """
    groups: dict[str, list[StationStats]] = {}
    for st in stations:
        u = st.utilization
        if not math.isfinite(u) or u <= 0.0:
            continue
        groups.setdefault(KIND_OF_LAYER.get(st.layer, st.layer), []).append(st)
    ranked = []
    for kind, members in groups.items():
        top = max(members, key=_order)
        ranked.append(
            Bottleneck(
                kind=kind,
                station=top.name,
                station_kind=top.kind,
                utilization=min(1.0, top.utilization),
                mean_utilization=min(1.0, sum(m.utilization for m in members) / len(members)),
                stations=len(members),
                credit_starved=top.credit_starved,
            )
        )
    busiest_server = max((b.utilization for b in ranked if b.station_kind != "slots"), default=0.0)

    def key(b: Bottleneck) -> tuple[float, bool, int]:
        u = b.utilization
        if b.station_kind == "slots" and busiest_server >= SATURATED:
            u = min(u, busiest_server)
        return (-u, b.station_kind == "slots", _path(b))

    return tuple(sorted(ranked, key=key))


def _order(st: StationStats) -> tuple[float, bool]:
    return (st.utilization, st.kind != "slots")


def _path(b: Bottleneck) -> int:
    kinds = [KIND_OF_LAYER[layer] for layer in LAYERS]
    return kinds.index(b.kind) if b.kind in kinds else len(kinds)


CREDIT_BOUND = 0.25
"""Share of the window a link must be short of credits for its bottleneck to be called
credit-bound rather than a busy wire."""


def _level(u: float) -> str:
    if u >= SATURATED:
        return "saturated"
    if u >= BUSY:
        return "heavily loaded"
    return "the busiest component"


def _port_of(name: str) -> str:
    """``array.port3.link.in`` -> ``port3``; ``""`` for a name without an array port."""
    parts = name.split(".")
    return (
        parts[1] if len(parts) > 1 and parts[0] == "array" and parts[1].startswith("port") else ""
    )


def _meaning(b: Bottleneck, quiet: bool) -> str:
    pct = f"{100 * b.utilization:.0f}%"
    if quiet and b.utilization < QUIET:
        return (
            f"nothing is near saturation: the busiest component, {b.station} ({b.kind}), is "
            f"busy {pct} of the time, so the latency is mostly service time and the path has "
            "room for more load"
        )
    level = _level(b.utilization)
    slots = b.station_kind == "slots"
    if b.kind == "drives":
        return (
            f"the drives ({b.station}) are {level}, busy {pct} of the time: every extra I/O "
            "waits for a disk; more drives, faster drives or a RAID level with fewer back-end "
            "operations per write add capacity"
        )
    if b.kind == "controller":
        return (
            f"the array controller ({b.station}) is {level}, busy {pct} of the time: it sets "
            "the array's IOPS ceiling, so more load only queues there; move load to another "
            "controller or array, or use a faster one"
        )
    if b.kind == "array port":
        return (
            f"the array front-end port queue ({b.station}) is {level}, {pct} of its slots "
            "held: more hosts on this port will get QUEUE FULL; spread LUNs over more ports or "
            "lower the hosts' queue depths"
        )
    if b.kind == "link" and b.credit_starved is not None and b.credit_starved >= CREDIT_BOUND:
        return (
            f"the link {b.station} is {level}, busy {pct} of the time, and for "
            f"{100 * b.credit_starved:.0f}% of it had frames to send and no buffer-to-buffer "
            "credit to send them with: they wait for credits, not for the wire. Its receiver "
            "returns them slowly (a slow-draining host: find why, and meanwhile "
            "fabric.frame_timeout or port fencing protect the hosts that share its ISLs) or it "
            "is too long for its credits (give its ports more: hbas.M.credits, isls.N.credits)"
        )
    if b.kind == "link":
        port = _port_of(b.station)
        if port:
            return (
                f"the link of array front-end {port} ({b.station}) is {level}, busy {pct} of "
                "the time: more hosts on this port will queue; spread LUNs over more ports or "
                "use a faster port speed"
            )
        return (
            f"the link {b.station} is {level}, busy {pct} of the time: transfers queue for "
            "the wire; a faster link or more paths (multipath over more HBA ports) relieve it"
        )
    if b.kind == "PCIe":
        return (
            f"the PCIe slot ({b.station}) is {level}, busy {pct} of the time moving data: "
            "large transfers queue for the bus; a wider or newer-generation slot relieves it"
        )
    if b.kind == "HBA":
        if slots:
            return (
                f"the HBA command slots ({b.station}) are {level}, {pct} of them held: "
                "commands wait in the driver for a slot; a larger HBA queue depth (if the "
                "array can take it) or more HBA ports relieve it"
            )
        return (
            f"the HBA processor ({b.station}) is {level}, busy {pct} of the time: the card's "
            "command rate is the limit; more HBAs or ports relieve it"
        )
    if b.kind == "host queue":
        return (
            f"the host's per-LUN queue ({b.station}) is {level}, {pct} of its slots held: I/Os "
            "beyond the queue depth wait in the operating system; a larger queue depth (if the "
            "array can take it) or more LUNs relieve it"
        )
    if b.kind == "LUN queue":
        return (
            f"the array's per-LUN queue ({b.station}) is {level}, {pct} of its slots held: "
            "more outstanding I/O per LUN will get QUEUE FULL; spread the data over more LUNs"
        )
    if b.kind == "host":
        if slots:
            return (
                f"the host's copy buffers ({b.station}) are {level}, {pct} of them held: the "
                "copy job waits for a free buffer; more buffers or a faster writer relieve it"
            )
        return (
            f"the host's processors ({b.station}) are {level}, busy {pct} of the time: the "
            "host itself limits the I/O rate; more CPUs or less CPU time per I/O relieve it"
        )
    return f"{b.station} ({b.kind}) is {level}, busy {pct} of the time"
