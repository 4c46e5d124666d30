"""The address distributions of ``access`` as numbers: cumulative mass and inverse draws.

A workload's span is cut into ``blocks`` equal blocks (the workload's smallest I/O size).
Every distribution is described by its *popularity curve*: the share of the accesses that
goes to the hottest fraction ``c`` of the blocks (:meth:`AccessModel.hot_mass`), and by an
inverse draw that turns uniform numbers in [0, 1) into block indices (:meth:`AccessModel.blocks`).
The simulator draws offsets with the second, the cache's derived hit ratio and the twin use
the first, so both follow one parameterisation.

Zipf: the block of rank ``i`` (1 = hottest) has weight ``i^-theta``. The partial sums
``H(m) = sum_{i <= m} i^-theta`` are exact up to :data:`ZIPF_HEAD` ranks and continue with
the midpoint integral ``H(K) + integral_{K+1/2}^{m+1/2} x^-theta dx`` above, whose error is
far below one part in a million there; the inverse draw uses the same two pieces. fio draws
Zipf ranks with Gray et al.'s closed-form approximation, whose tail is coarser.

Pareto: the rank is ``floor((blocks - 1) u^p)`` with ``p = ln h / ln(1 - h)``, as fio's
``pareto_next``; the hottest fraction ``c`` of the blocks then takes ``c^(1/p)`` of the
accesses.

Zoned: zone ``z`` takes ``a_z`` percent of the accesses over ``s_z`` percent of the span,
uniformly inside it; the hottest blocks are those of the densest zones (``a_z / s_z``).

Zipf and pareto ranks are scattered over the span by the bijection
``block = rank x step mod blocks`` (``step`` near ``0.618 blocks`` and coprime with it), so that
hot blocks do not sit side by side, as fio's hashing of the rank does.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

import numpy as np

from sanpath.spec import AccessSpec, Scenario, WorkloadSpec, lun_sizes

ZIPF_HEAD = 10_000
"""Ranks whose Zipf weights are summed exactly (the rest by the midpoint integral)."""

_GOLDEN = (math.sqrt(5.0) - 1.0) / 2.0


def _zipf_g(x: np.ndarray | float, theta: float) -> np.ndarray | float:
    """Antiderivative of ``x^-theta``."""
    if theta == 1.0:
        return np.log(x)
    return np.power(x, 1.0 - theta) / (1.0 - theta)


def _zipf_g_inverse(y: np.ndarray, theta: float) -> np.ndarray:
    if theta == 1.0:
        return np.asarray(np.exp(y), dtype=np.float64)
    return np.asarray(np.power(y * (1.0 - theta), 1.0 / (1.0 - theta)), dtype=np.float64)


def scatter_step(blocks: int) -> int:
    """The multiplier of the rank-to-block bijection: near ``0.618 blocks``, coprime with it."""
    if blocks <= 2:
        return 1
    step = max(1, int(blocks * _GOLDEN))
    while math.gcd(step, blocks) != 1:
        step += 1
    return step


class AccessModel:
    """One access distribution over ``blocks`` blocks: popularity curve and inverse draws."""

    def __init__(self, spec: AccessSpec, blocks: int) -> None:
        self.spec = spec
        self.blocks = max(1, int(blocks))
        self.step = scatter_step(self.blocks)
        n = self.blocks
        if spec.dist == "zipf":
            assert spec.theta is not None
            self.theta = spec.theta
            head = min(n, ZIPF_HEAD)
            self._cum = np.cumsum(np.arange(1, head + 1, dtype=np.float64) ** -self.theta)
            self._head = head
            self.total = self._harmonic(n)
        elif spec.dist == "pareto":
            assert spec.h is not None
            self.power = math.log(spec.h) / math.log(1.0 - spec.h)
        elif spec.dist == "zoned":
            assert spec.zones is not None
            access = np.array([z[0] for z in spec.zones]) / 100.0
            span = np.array([z[1] for z in spec.zones]) / 100.0
            self._zone_access = np.cumsum(access)
            self._zone_access[-1] = 1.0
            self._access = access
            edges = np.concatenate(([0.0], np.cumsum(span)))
            edges[-1] = 1.0
            self._edges = edges

    # -- the popularity curve -------------------------------------------------------------

    def _harmonic(self, m: float) -> float:
        """``H(m)``: the Zipf weight of the ``m`` hottest blocks."""
        if m <= 0:
            return 0.0
        head = self._head
        if m <= head:
            whole = int(m)
            part = float(self._cum[whole - 1]) if whole > 0 else 0.0
            if whole < m:  # a fraction of the next block
                part += (m - whole) * (whole + 1) ** -self.theta
            return part
        extra = _zipf_g(m + 0.5, self.theta) - _zipf_g(head + 0.5, self.theta)
        return float(self._cum[head - 1]) + float(extra)

    def hot_mass(self, fraction: float) -> float:
        """Share of the accesses that go to the hottest ``fraction`` of the blocks (0..1)."""
        c = min(1.0, max(0.0, fraction))
        if c >= 1.0:
            return 1.0
        match self.spec.dist:
            case "uniform":
                return c
            case "zipf":
                return min(1.0, self._harmonic(c * self.blocks) / self.total)
            case "pareto":
                return float(c ** (1.0 / self.power))
            case "zoned":
                return _zoned_hot_mass(self.spec, c)
        raise AssertionError(self.spec.dist)  # pragma: no cover

    # -- inverse draws ----------------------------------------------------------------------

    def ranks(self, u: np.ndarray) -> np.ndarray:
        """Popularity ranks (0 = hottest) for uniform draws ``u`` in [0, 1) (zipf, pareto)."""
        n = self.blocks
        if self.spec.dist == "pareto":
            return np.asarray(np.floor((n - 1) * np.power(u, self.power)), dtype=np.int64)
        target = u * self.total
        head_total = float(self._cum[-1])
        rank = np.searchsorted(self._cum, target, side="left").astype(np.int64)
        tail = target > head_total
        if tail.any():
            y = target[tail] - head_total + _zipf_g(self._head + 0.5, self.theta)
            x = _zipf_g_inverse(np.asarray(y), self.theta)
            rank[tail] = np.ceil(x - 0.5).astype(np.int64) - 1
        return np.asarray(np.clip(rank, 0, n - 1), dtype=np.int64)

    def blocks_of(self, u: np.ndarray) -> np.ndarray:
        """Block indices in ``[0, blocks)`` for uniform draws ``u`` in [0, 1)."""
        n = self.blocks
        match self.spec.dist:
            case "uniform":
                return np.minimum((u * n).astype(np.int64), n - 1)
            case "zoned":
                zone = np.searchsorted(self._zone_access, u, side="right")
                zone = np.minimum(zone, len(self._access) - 1)
                start = self._zone_access[zone] - self._access[zone]
                within = np.where(
                    self._access[zone] > 0,
                    (u - start) / np.maximum(self._access[zone], 1e-300),
                    0.0,
                )
                lo = self._edges[zone]
                hi = self._edges[zone + 1]
                where = (lo + np.clip(within, 0.0, 1.0) * (hi - lo)) * n
                return np.asarray(np.clip(where.astype(np.int64), 0, n - 1), dtype=np.int64)
        rank = self.ranks(u)
        if n * self.step < 2**62:
            return (rank * self.step) % n
        return np.array([(int(r) * self.step) % n for r in rank], dtype=np.int64)


def _zoned_hot_mass(spec: AccessSpec, c: float) -> float:
    """Hottest-first accumulation over the zones, densest zone first."""
    assert spec.zones is not None
    zones = sorted(spec.zones, key=lambda z: z[0] / z[1], reverse=True)
    left = c * 100.0
    mass = 0.0
    for access, span in zones:
        take = min(span, left)
        mass += access * take / span
        left -= take
        if left <= 0:
            break
    return min(1.0, mass / 100.0)


@cache
def hot_mass(spec: AccessSpec, blocks: int, fraction: float) -> float:
    """Share of the accesses to the hottest ``fraction`` of ``blocks`` blocks under ``spec``."""
    return access_model(spec, blocks).hot_mass(fraction)


@lru_cache(maxsize=256)
def access_model(spec: AccessSpec, blocks: int) -> AccessModel:
    """The :class:`AccessModel` of ``spec`` over ``blocks`` blocks, shared: it never changes
    once built, so every source of a workload on LUNs of one size draws through one."""
    return AccessModel(spec, blocks)


def access_blocks(w: WorkloadSpec, lun_size: int) -> tuple[int, int]:
    """(block size in bytes, blocks) of workload ``w``'s span on a LUN of ``lun_size`` bytes.

    The block is the workload's smallest I/O; the span is ``span x lun_size``, at least one
    of the largest I/Os (as the simulator's sources take it).
    """
    unit = min(w.sizes)
    span = max(int(lun_size * w.span), max(w.sizes))
    return unit, max(1, span // unit)


def read_hits(s: Scenario) -> dict[tuple[int, int], float]:
    """Read hit ratio of every (workload index, LUN group index) the workload reads.

    A ``read_hit`` written for the LUN group, else for the cache, wins. Otherwise the hit
    ratio is derived, a static "hottest blocks stay in cache" approximation:

    * ``read_cache`` bytes are shared equally by the LUNs that some workload reads, and a
      LUN's share equally by the workloads that read it;
    * a workload's share holds the hottest blocks of its span on that LUN, a fraction
      ``c = min(1, share / span bytes)`` of them;
    * the hit ratio is the share of the workload's accesses that go to those blocks
      (:meth:`AccessModel.hot_mass`): ``c`` for uniform access, more the more skewed.

    Without ``read_cache`` the derived ratio is 0.
    """
    cache = s.array.cache
    sizes = lun_sizes(s)
    readers: dict[int, list[int]] = {}
    for wi, w in enumerate(s.workloads):
        if w.read_fraction <= 0.0:
            continue
        groups = range(len(s.array.luns)) if w.luns == "all" else _group_ids(s, w.luns)
        for gi in groups:
            readers.setdefault(gi, []).append(wi)
    read_luns = sum(s.array.luns[gi].count for gi in readers)
    out: dict[tuple[int, int], float] = {}
    for gi, wis in readers.items():
        group = s.array.luns[gi]
        user = group.read_hit if group.read_hit is not None else cache.read_hit
        for wi in wis:
            if user is not None:
                out[wi, gi] = user
                continue
            if not cache.read_cache or read_luns == 0:
                out[wi, gi] = 0.0
                continue
            w = s.workloads[wi]
            share = cache.read_cache / read_luns / len(wis)
            unit, blocks = access_blocks(w, sizes[gi])
            out[wi, gi] = hot_mass(w.access, blocks, min(1.0, share / (blocks * unit)))
    return out


def read_hit(s: Scenario, wi: int, gi: int) -> float:
    """Read hit ratio of workload ``wi`` on LUN group ``gi`` (see :func:`read_hits`)."""
    return read_hits(s).get((wi, gi), 0.0)


def _group_ids(s: Scenario, names: tuple[str, ...]) -> list[int]:
    wanted = set(names)
    return [i for i, g in enumerate(s.array.luns) if g.name in wanted]
