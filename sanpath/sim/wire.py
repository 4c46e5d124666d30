"""Bytes on the wire: a transport's framing of a transfer, remembered per transfer size.

Fibre Channel carries data in frames of at most 2,048 bytes with 60 bytes of headers,
delimiters and idles each, plus the status frame; Ethernet transports in MTU-sized frames
with their IP, TCP or RDMA headers and PDU headers (:class:`~sanpath.spec.Framing`). A route
carries the :class:`Wire` of its host's transport; the data legs it crosses
(:mod:`sanpath.sim.transfer`) ask it for the bytes a transfer puts on a framed link.
"""

from __future__ import annotations

from typing import Final

from sanpath.spec import Framing

_WIRE_SIZES: Final = 4096
"""At most this many transfer sizes keep their bytes on the wire in a :class:`Wire`."""


class Wire:
    """Bytes on a framed link for a transfer of ``n`` data bytes under ``framing``
    (:meth:`~sanpath.spec.Framing.wire_bytes`), remembered for the sizes seen first."""

    __slots__ = ("framing", "sizes")

    def __init__(self, framing: Framing) -> None:
        self.framing = framing
        self.sizes: dict[int, int] = {}
        """Bytes on the wire by transfer size, for the sizes seen so far."""

    def bytes(self, nbytes: int) -> int:
        """Bytes on the link for ``nbytes`` of data."""
        wire = self.sizes.get(nbytes)
        if wire is None:
            wire = self.framing.wire_bytes(nbytes)
            if len(self.sizes) < _WIRE_SIZES:
                self.sizes[nbytes] = wire
        return wire
