"""Running hops: the declared hops of a route (:mod:`sanpath.layout.hops`) bound to stations.

The engine walks a route's tuple of hops (:meth:`sanpath.sim.engine.Simulation.command`); each
running hop holds the station it stands for and the layer its time counts to (an index into
:data:`sanpath.results.LAYERS`):

* :class:`Gate` - a :class:`~sanpath.sim.station.SlotPool`: the command takes a slot or waits
  for one; a refusing gate never waits, it answers QUEUE FULL (``refused`` names the counter);
* :class:`Server` - a :class:`~sanpath.sim.station.FcfsServer` and the time each command
  needs of it (reads and writes may differ), followed by ``flight`` seconds of propagation in
  the same wake-up (the command frame's trip to the array, counted to ``flight_layer``);
* :class:`Delay` - a pure delay, drawn per command.

How the engine charges their time to the breakdown: a gate opens a span at the command's
arrival; the server that follows in the same layer closes it at the end of its service (the
HBA's slot wait and its processing are one span), a server with no span open counts its own
wait and service, and a delay adds its length. The charges of consecutive hops of one layer
are added up before they reach the layer (the host's processors and its I/O stack are one
sum), and a span still open when the layer changes is charged as it stands.

The objects are plain native classes: a thousand hosts make a route on almost every I/O.
"""

from __future__ import annotations

from collections.abc import Callable

from sanpath.sim.station import FcfsServer, SlotPool


class Hop:
    """A running hop (see the module docstring): its layer's index."""

    __slots__ = ("layer",)

    def __init__(self, layer: int) -> None:
        self.layer = layer


class Gate(Hop):
    """Slots a command holds: a queue depth (``refuses``: answers QUEUE FULL when full).

    ``slot`` is the gate's place among the gates of its route's front (a :class:`Trip` keeps
    each gate's times there)."""

    __slots__ = ("back_end", "pool", "pools", "refused", "refuses", "slot")

    def __init__(
        self,
        layer: int,
        pool: SlotPool,
        slot: int,
        refused: str = "",
        back_end: bool = False,
        pools: tuple[SlotPool, ...] | None = None,
    ) -> None:
        super().__init__(layer)
        if not 0 <= slot < MAX_GATES:
            raise ValueError(f"a route's front holds at most {MAX_GATES} gates, not {slot + 1}")
        self.pool = pool
        self.slot = slot
        self.refuses = refused != ""
        self.refused = refused
        """The counter a QUEUE FULL answer counts to (``port_qfull``); empty: it waits."""
        self.back_end = back_end
        """The slot is given back when the back end is done, not at completion."""
        self.pools = pools
        """NVMe queue pairs: one pool per I/O queue, the command's chosen by the processor
        that issued it (:attr:`sanpath.sim.load.Command.queue`); None: ``pool`` alone."""

    def pool_of(self, queue: int) -> SlotPool:
        """The pool a command issued to I/O queue ``queue`` takes its slot from."""
        pools = self.pools
        return self.pool if pools is None else pools[queue]


class Server(Hop):
    """FCFS servers and the time a command needs of them (s), then ``flight`` s of travel."""

    __slots__ = ("flight", "flight_layer", "sends", "server", "service", "write_service")

    def __init__(
        self,
        layer: int,
        server: FcfsServer,
        service: Callable[[], float],
        write_service: Callable[[], float] | None = None,
        flight: float = 0.0,
        flight_layer: int = 0,
        sends: bool = False,
    ) -> None:
        super().__init__(layer)
        self.server = server
        self.service = service
        self.write_service = service if write_service is None else write_service
        self.flight = flight
        """Seconds of propagation after the service, in the same wake-up."""
        self.flight_layer = flight_layer
        self.sends = sends
        """The end of the service sends the command frame: a fabric exchange begins."""


class Delay(Hop):
    """A pure delay of ``duration()`` seconds (none when it draws zero)."""

    __slots__ = ("duration",)

    def __init__(self, layer: int, duration: Callable[[], float]) -> None:
        super().__init__(layer)
        self.duration = duration


MAX_GATES = 4
"""The gates a route's front may hold (a :class:`Trip` has a place for each one's times)."""


class Trip:
    """One command's walk over the front of its route: when it reached and when it got
    each gate (by the gate's ``slot``), and the charge of the layer it is in (the module
    docstring). Plain fields rather than a list: a float in a list is an object of its own,
    and a command passes four gates."""

    __slots__ = (
        "a0",
        "a1",
        "a2",
        "a3",
        "charge",
        "charged",
        "layers",
        "opened",
        "s0",
        "s1",
        "s2",
        "s3",
    )

    def __init__(self, layers: list[float]) -> None:
        self.layers = layers
        self.charge = 0.0
        """Seconds charged to the layer the command is in, not yet added to it."""
        self.charged = -1
        """That layer (-1: none yet)."""
        self.opened = -1.0
        """When the span a gate opened began (-1: no span open)."""
        self.a0 = self.a1 = self.a2 = self.a3 = 0.0
        self.s0 = self.s1 = self.s2 = self.s3 = 0.0

    def enter(self, layer: int, now: float) -> None:
        """The command reaches a hop of ``layer`` at ``now``: the layer it leaves is charged
        (with its open span, if any)."""
        charged = self.charged
        if layer != charged:
            if charged >= 0:
                opened = self.opened
                spent = self.charge + (now - opened) if opened >= 0.0 else self.charge
                if spent != 0.0:  # a layer's sum is never -0.0: adding zero changes nothing
                    self.layers[charged] += spent
            self.charge = 0.0
            self.charged = layer
            self.opened = -1.0

    def finish(self) -> None:
        """The front is crossed: the last layer's charge is added to it."""
        if self.charged >= 0:
            self.layers[self.charged] += self.charge
        self.charge = 0.0
        self.charged = -1
        self.opened = -1.0

    def restart(self) -> None:
        """After QUEUE FULL: nothing pending (the refusal's time is charged on its own)."""
        self.charge = 0.0
        self.charged = -1
        self.opened = -1.0

    def got(self, slot: int, arrived: float, started: float) -> None:
        """The gate of ``slot``: reached at ``arrived``, a slot taken at ``started``; a span
        opens at ``arrived`` unless one is open."""
        if slot == 0:
            self.a0, self.s0 = arrived, started
        elif slot == 1:
            self.a1, self.s1 = arrived, started
        elif slot == 2:
            self.a2, self.s2 = arrived, started
        else:
            self.a3, self.s3 = arrived, started
        if self.opened < 0.0:
            self.opened = arrived

    def served(self, arrived: float, done: float) -> None:
        """A server reached at ``arrived`` is done at ``done``: the open span (or its own
        stay) is charged."""
        opened = self.opened
        self.charge += done - (opened if opened >= 0.0 else arrived)
        self.opened = -1.0

    def arrived(self, slot: int) -> float:
        """When the command reached the gate of ``slot``."""
        if slot == 0:
            return self.a0
        if slot == 1:
            return self.a1
        if slot == 2:
            return self.a2
        return self.a3

    def started(self, slot: int) -> float:
        """When the command took its slot at the gate of ``slot``."""
        if slot == 0:
            return self.s0
        if slot == 1:
            return self.s1
        if slot == 2:
            return self.s2
        return self.s3


def constant(seconds: float) -> Callable[[], float]:
    """A draw that is always ``seconds``."""

    def draw() -> float:
        return seconds

    return draw
