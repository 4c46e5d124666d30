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
    """Slots a command holds: a queue depth (``refuses``: answers QUEUE FULL when full)."""

    __slots__ = ("back_end", "pool", "refused", "refuses")

    def __init__(
        self, layer: int, pool: SlotPool, refused: str = "", back_end: bool = False
    ) -> None:
        super().__init__(layer)
        self.pool = pool
        self.refuses = refused != ""
        self.refused = refused
        """The counter a QUEUE FULL answer counts to (``port_qfull``); empty: it waits."""
        self.back_end = back_end
        """The slot is given back when the back end is done, not at completion."""


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


def constant(seconds: float) -> Callable[[], float]:
    """A draw that is always ``seconds``."""

    def draw() -> float:
        return seconds

    return draw
