"""One class mix as a single-class network: per-member demands per customer.

Both solutions work on :class:`Arrays`, the classes of a
:class:`~sanpath.theory.twin.model.Network` weighted by their command shares and aggregated
into one class of *customers* (a command, or one of its parallel drive operations), with the
load-dependent rates of SPTF drives, mirrored pairs and multi-server
stations. Demands in seconds per customer.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from sanpath.layout import station_name
from sanpath.theory.kernels import FloatArray
from sanpath.theory.twin.model import (
    F1,
    P1,
    PH,
    ROT,
    SFF,
    SFP,
    SPP,
    SPTF_GAMMA,
    Network,
    V,
)


@dataclass
class Arrays:
    """The aggregated single-class network of one class mix (demands per customer)."""

    keys: list[tuple[str, int]]
    fixed: FloatArray  # per member, per customer
    pos: FloatArray  # SPTF-scalable part
    bg_fixed: FloatArray  # background (destage) per customer
    bg_pos: FloatArray
    bg_rot: FloatArray  # revolutions of sweep-order destages per customer (s)
    bg_depth: FloatArray  # per drive: destage operations queued at full throttle
    count: FloatArray
    servers: npt.NDArray[np.int64]
    tcq: npt.NDArray[np.int64]
    gains: list[FloatArray]  # per member: positioning speed-up with 0..tcq commands queued
    sptf_window: FloatArray  # per member: > 0 for SPTF, whose speed-up is min(q, window)^0.27
    mirror: npt.NDArray[np.bool_]
    second: FloatArray  # E[S^2] per visit
    visits: FloatArray  # per member per customer
    delay: float
    parallel: float  # customers (branches) per command: parallel drive operations
    open_util: FloatArray | None = None  # per member: utilisation taken by refused commands
    delays: dict[str, float] = field(default_factory=dict)  # per layer, per command (s)

    @property
    def reorder(self) -> list[int]:
        """Members whose drives reorder their queue (elevator, SPTF) and have positioning."""
        return [k for k in range(len(self.keys)) if self.tcq[k] > 0 and self.pos[k] > 0]

    def gain(self, k: int, queued: FloatArray) -> FloatArray:
        """Positioning speed-up of member ``k``'s drives with ``queued`` commands (constant
        from its tcq on): ``min(q, window)^0.27`` for SPTF, else its tabulated gain."""
        q = np.minimum(np.maximum(queued, 1.0), float(self.tcq[k]))
        window = float(self.sptf_window[k])
        if window > 0:
            return np.asarray(np.minimum(q, window) ** SPTF_GAMMA, dtype=np.float64)
        table = self.gains[k]
        return np.asarray(np.interp(q, np.arange(table.size, dtype=np.float64), table))

    def bg_fixed_at(self, queued: FloatArray | None = None) -> FloatArray:
        """Background (destage) demand per command at every member that no reordering
        scales (s): with ``queued`` destage operations at each drive, a sweep-order destage
        waits the least of their rotational waits, a revolution / (queued + 1), ``queued``
        between 1 and the full-throttle depth; without, at that depth."""
        depth = self.bg_depth if queued is None else np.minimum(queued, self.bg_depth)
        return np.asarray(
            self.bg_fixed + self.bg_rot / (np.maximum(depth, 1.0) + 1.0), dtype=np.float64
        )

    def load_dependent(self, k: int, n_max: int) -> bool:
        """True for members solved as load-dependent stations."""
        return bool(
            (self.tcq[k] > 0 and self.pos[k] > 0) or self.mirror[k] or 1 < self.servers[k] < n_max
        )

    def detailed(self, k: int) -> bool:
        """Load-dependent members whose utilisation needs the marginal probabilities."""
        return bool(
            (self.tcq[k] > 0 and self.pos[k] > 0) or (self.mirror[k] and self.servers[k] == 1)
        )

    def saturation(self, k: int) -> int:
        """Commands from which member ``k`` serves at its full rate."""
        c = int(self.servers[k]) * (2 if self.mirror[k] else 1)
        if self.tcq[k] > 0 and self.pos[k] > 0:
            return int(self.tcq[k]) * (2 if self.mirror[k] else 1)
        return c

    def ld_demand(self, k: int, n: int, infl: float = 1.0, extra: float = 0.0) -> FloatArray:
        """Demand at member ``k`` with ``1..n`` customers present (load-dependent rate).

        A reordering drive (elevator, SPTF): positioning divided by its gain ``g(j)``
        (:func:`~sanpath.layout.geometry.queue_gain`, constant from ``tcq`` on), where ``j``
        counts the customers and ``extra`` commands of the background (destage) queued
        beside them. A
        mirrored pair: reads go to the less busy copy, so the pair works like two drives
        sharing one queue, each with about half of it. Multi-server: ``min(j, c)`` servers busy.
        """
        j = np.arange(1, n + 1, dtype=np.float64)
        f, p = float(self.fixed[k]) * infl, float(self.pos[k]) * infl
        c = int(self.servers[k])
        sptf = self.tcq[k] > 0 and p > 0

        def one(q: FloatArray) -> FloatArray:
            if not sptf:
                return np.full(q.shape, f + p)
            return f + p / self.gain(k, q + extra)

        result: FloatArray
        if self.mirror[k] and c == 1:
            # demand of the pair per customer is per drive-visit x 2 visits' share: each drive
            # serves half the pair's visits, so the pair's rate is the sum of two drives' rates
            hi, lo = np.ceil(j / 2.0), np.floor(j / 2.0)
            rate = 1.0 / one(hi) + np.where(lo > 0, 1.0 / one(np.maximum(lo, 1.0)), 0.0)
            result = 1.0 / rate
        elif self.mirror[k]:
            result = (f + p) / np.minimum(j, 2 * c)
        elif sptf:
            result = one(j)
        else:
            result = (f + p) / np.minimum(j, c)
        return result

    def busy(self, k: int, p: FloatArray) -> float:
        """Utilisation per drive of a detailed member from its marginal ``p(0..n)``."""
        if self.mirror[k]:
            j = np.arange(p.size, dtype=np.float64)
            return float(np.minimum(j, 2.0) @ p) / 2.0
        return 1.0 - float(p[0])


def arrays(net: Network, mix: Sequence[float], prefetch: Mapping[int, float]) -> Arrays:
    """Aggregate the classes with command shares ``mix`` into one class of customers."""
    keys = list(net.members)
    index = {key: k for k, key in enumerate(keys)}
    n_k = len(keys)
    fixed, pos, bgf, bgp = np.zeros(n_k), np.zeros(n_k), np.zeros(n_k), np.zeros(n_k)
    bgr = np.zeros(n_k)
    second, visits = np.zeros(n_k), np.zeros(n_k)
    delay = overlap = 0.0
    delays: dict[str, float] = {}
    ops = phases = 0.0
    for c, share in zip(net.classes, mix, strict=True):
        if share <= 0:
            continue
        delay += share * c.delay
        overlap += share * c.overlap
        for layer, seconds in c.delays.items():
            delays[layer] = delays.get(layer, 0.0) + share * seconds
        for key, acc in c.work.items():
            k = index[key]
            fixed[k] += share * acc[F1]
            pos[k] += share * acc[P1]
            visits[k] += share * acc[V]
            second[k] += share * (acc[SFF] + 2 * acc[SFP] + acc[SPP])
            if acc[PH] > 0:
                ops += share * acc[V]
                phases += share * acc[PH]
        for key, acc in c.background.items():
            k = index[key]
            bgf[k] += share * acc[F1]
            bgp[k] += share * acc[P1]
            bgr[k] += share * acc[ROT]
        for pi, nbytes in c.prefetch.items():
            k = index[(station_name("drives", pool=net.pools[pi].name), 1)]
            fixed[k] += share * nbytes / prefetch[pi]
            visits[k] += share
            second[k] += share * (nbytes / prefetch[pi]) ** 2
    members = [net.members[key] for key in keys]
    count = np.array([mb.count for mb in members], dtype=np.float64)
    # Parallel drive operations of one command: the command is `parallel` customers that
    # share its work (so the drives see them at once, the host stages one after the other).
    parallel = ops / phases if phases > 0 else 1.0
    return Arrays(
        keys=keys,
        fixed=fixed / count / parallel,
        pos=pos / count / parallel,
        bg_fixed=bgf / count,
        bg_pos=bgp / count,
        bg_rot=bgr / count,
        bg_depth=np.array([mb.destage_depth for mb in members]),
        count=count,
        servers=np.array([mb.servers for mb in members], dtype=np.int64),
        tcq=np.array([mb.tcq for mb in members], dtype=np.int64),
        gains=[np.array(mb.gains or (1.0,), dtype=np.float64) for mb in members],
        sptf_window=np.array([float(mb.sptf_window) for mb in members]),
        mirror=np.array([mb.mirror for mb in members], dtype=np.bool_),
        second=np.where(visits > 0, second / np.where(visits > 0, visits, 1.0), 0.0),
        visits=visits / count / parallel,
        delay=delay - overlap / parallel,
        parallel=parallel,
        delays={**delays, "fabric": delays.get("fabric", 0.0) - overlap / parallel},
    )
