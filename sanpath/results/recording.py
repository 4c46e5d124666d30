"""What a run recorded for its animation: a window of simulated time, frame by frame.

A :class:`Recording` holds, at each of its frames (simulated seconds in :attr:`Recording.t`),
the occupancy of every queue of the path that a command takes a slot of (a host's LUN
queues, its HBA command slots, an array port's queue, a LUN group's queues): the slots in
use, the commands waiting and the slots there are (a throttle lowers them); over the
interval that ends at each frame, the busy share of every station, the QUEUE FULL answers
each host received and each queue gave, the application I/Os completed, their mean latency
and how many were split into several commands; the busy share of each host's own links
(:attr:`Recording.host_busy`); and the journeys of a few application I/Os
(:class:`Journey`): when each entered each layer of the path. Its size is bounded by the
number of frames and the size of the path, never by the run's length
(:class:`sanpath.spec.AnimateSpec`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

HOST_LINKS = {"pcie.down": True, "pcie.up": False, "link.out": True, "link.in": False}
"""A host's own links, as its group's station names end (``<group>.link.out``), in the order
of :attr:`~sanpath.results.Recording.host_busy`; True for those writes' data crosses (reads'
the others)."""


@dataclass(frozen=True)
class Journey:
    """One tracked application I/O: where it was when (simulated seconds).

    ``stages`` lists, in path order, each layer of the latency breakdown (a key of
    ``breakdown_ms``) it spent time in and when it entered it (the last command's, for an
    I/O split into ``parts`` commands); it completed at ``done``.
    """

    host: str
    """The host instance that issued it."""
    lun: str
    """Its LUN group."""
    port: int
    """The array port its first path goes through."""
    size: int
    """Bytes."""
    parts: int
    """Commands it became; more than one when split by the host's maximum transfer size."""
    issued: float
    done: float
    stages: tuple[tuple[str, float], ...]

    def layer_at(self, t: float) -> str | None:
        """The layer it is in at ``t`` (s); None before it was issued or after it completed."""
        if t < self.issued or t >= self.done:
            return None
        current = self.stages[0][0] if self.stages else None
        for layer, entered in self.stages:
            if entered > t:
                break
            current = layer
        return current


@dataclass(frozen=True)
class Recording:
    """A run's animation window (see the module docstring); arrays are indexed by frame
    first. Times are simulated seconds, latencies milliseconds."""

    scenario: dict[str, Any]
    """The scenario as run (its JSON form), for the picture of its path."""
    t: np.ndarray
    """(frames,) the simulated time of each frame."""
    places: tuple[str, ...]
    """The queues counted, as ``host:<instance>:queue``, ``host:<instance>:hba``,
    ``port:<index>`` and ``lun:<group>``."""
    held: np.ndarray
    """(frames, places) slots in use."""
    waiting: np.ndarray
    """(frames, places) commands waiting for a slot."""
    capacity: np.ndarray
    """(frames, places) slots there are (``inf``: no limit; 0: not used yet)."""
    refused: np.ndarray
    """(frames, places) QUEUE FULL answers the queue gave in the interval ending at the frame."""
    stations: tuple[str, ...]
    """The stations whose busy share is kept (:attr:`busy`), by name."""
    busy: np.ndarray
    """(frames, stations) busy share (0 to 1) over the interval ending at the frame."""
    hosts: tuple[str, ...]
    """The host instances, in the topology's order."""
    qfull: np.ndarray
    """(frames, hosts) QUEUE FULL answers each host received in the interval."""
    host_busy: np.ndarray
    """(frames, hosts, :data:`~sanpath.results.recording.HOST_LINKS`) each host's busy share
    (0 to 1) of its own links over the interval ending at the frame: its group's busy time
    on the link, shared out by the bytes each host completed in that direction in the
    interval."""
    completed: np.ndarray
    """(frames,) application I/Os completed in the interval ending at the frame."""
    latency_ms: np.ndarray
    """(frames,) their mean latency, NaN where none completed."""
    splits: np.ndarray
    """(frames,) of them, those split into several commands."""
    journeys: tuple[Journey, ...]
    fps: int
    """Frames per second of playback."""

    @property
    def frames(self) -> int:
        """The number of frames."""
        return len(self.t)

    def iops(self) -> np.ndarray:
        """(frames,) application I/Os per simulated second over the interval ending at each
        frame (the first frame: 0)."""
        dt = np.diff(self.t, prepend=self.t[:1])
        out: np.ndarray = np.divide(self.completed, dt, out=np.zeros(len(self.t)), where=dt > 0)
        return out

    def place(self, name: str) -> int:
        """The column of place ``name`` in :attr:`held`, :attr:`waiting` and :attr:`capacity`.

        Raises
        ------
        KeyError
            When the recording has no such place.
        """
        try:
            return self.places.index(name)
        except ValueError:
            raise KeyError(f"no place {name!r} in the recording") from None

    def nbytes(self) -> int:
        """The bytes the recording's arrays take."""
        arrays = (
            self.t,
            self.held,
            self.waiting,
            self.capacity,
            self.refused,
            self.busy,
            self.qfull,
            self.host_busy,
            self.completed,
            self.latency_ms,
            self.splits,
        )
        return int(sum(a.nbytes for a in arrays))
