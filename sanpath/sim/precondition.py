"""Preconditioning: start a run with the write-back cache as dirty as a long run leaves it.

A write-back cache that absorbs writes at tens of MB/s takes minutes of simulated time to
reach the level where destaging starts; until then the drives see no write at all and every
figure is the filling transient. Storage benchmarks precondition for the same reason (SNIA's
Performance Test Specification fills a device before it measures). The steady state does not
depend on where the run starts, only how long it takes to get there, so with
``run.precondition`` (on by default) sanpath starts the cache at its high watermark, where
destaging runs at full concurrency, and early in the warm-up compares the rates: when the
writes come in faster than the drives destage, the cache is bound to fill, and it is filled
at once; otherwise the dirty level drains to where destaging keeps up with the writes.

That last approach can still take a while: it is the cache controller's own time constant
(the quickstart scenario with 30% writes, whose 1 GiB cache settles about 72% dirty, warms
up for 93 simulated seconds from the high watermark). Fan-in onto an array whose drives
cannot keep up settles within a second of simulated time once the cache is full, where
climbing from the high watermark took more than 16 s.

The dirty data is made of the scenario's own writes, drawn from separate random streams: each
workload that writes puts its share (write fraction x block size x intensity) on the LUNs it
writes to, at the addresses its pattern would use, so sequential streams destage as full
stripes as they would have. Copy jobs are left out: they fill a cache in seconds on their own.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable

from sanpath.sim.components import Cache, Lun, RaidPool
from sanpath.sim.sources import IoSource, make_source
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology
from sanpath.spec import Scenario


class _PoolWrites:
    """The write sources of one pool, each drawn as often as it writes (the cache joins a
    stream's contiguous writes into extents as it joins the run's own)."""

    def __init__(self, pick: Callable[[], float]) -> None:
        self.pick = pick
        self.sources: list[tuple[Lun, IoSource]] = []
        self.upto: list[float] = []
        """The sources' cumulative rates (a draw's uniform number picks by bisection)."""
        self.rate = 0.0
        """Writes into the cache, every source together: per second for open loops, the
        outstanding writes for closed ones (only the sources' proportions matter)."""
        self.total = 0.0
        """Bytes per second into the cache (the pool's share of the dirty data)."""

    def add(self, rate: float, size: float, lun: Lun, source: IoSource) -> None:
        """``source`` writes ``rate`` times a second to ``lun``, ``size`` bytes on average."""
        self.rate += rate
        self.total += rate * size
        self.upto.append(self.rate)
        self.sources.append((lun, source))

    def draw(self) -> tuple[Lun, int, int]:
        """The next dirty write: (LUN, offset, size).

        A source is chosen by its write rate, not its bytes: each draw is one of its writes,
        whose own size then gives the source its share of the bytes.
        """
        i = bisect_right(self.upto, self.pick() * self.rate)
        lun, source = self.sources[min(i, len(self.sources) - 1)]
        size, _, offset = source.next_io()
        return lun, offset, size


class Preconditioner:
    """The dirty data a run starts with, and the one top-up it may get.

    :meth:`start` fills the cache to its high watermark, where destaging runs at full
    concurrency. Early in the warm-up :meth:`settle` compares the rate writes come into the
    cache with the rate the drives destage: when writes are faster the cache is bound to
    fill, and it is filled at once (the slow climb from the high watermark to full is the
    transient this saves); otherwise the dirty level drains to where destaging keeps up.
    The comparison is with destaging at full concurrency, the host's operations and the
    destages at the drives as equals: the cache's ``read_priority``, which holds destages
    back below the high watermark, waits until it is made.
    """

    def __init__(self, scenario: Scenario, topology: Topology, streams: Streams) -> None:
        self.cache = topology.cache
        self.pools = _write_sources(scenario, topology, streams)
        self.total = sum(g.total for g in self.pools.values())
        self.decided = not self.pools
        self.t_start = 0.0
        self.read_priority = self.cache.read_priority
        """The cache's own setting, given back once the rates are compared."""

    def start(self, now: float) -> int:
        """Fill the cache to its high watermark; returns the bytes put in."""
        self.t_start = now
        if not self.decided:
            self.cache.read_priority = False
        return self._fill(int(self.cache.high) - self.cache.dirty)

    def settle(self, now: float) -> bool:
        """Once: fill the cache when writes come in faster than destaging frees it (True)."""
        if self.decided:
            return False
        self.decided = True
        cache = self.cache
        cache.read_priority = self.read_priority
        elapsed = now - self.t_start
        if elapsed <= 0 or cache.absorbed <= FASTER * cache.destaged:
            return False
        return self._fill(cache.capacity - cache.dirty) > 0

    def _fill(self, nbytes: int) -> int:
        if nbytes <= 0 or self.total <= 0:
            return 0
        put = 0
        for pool, group in self.pools.items():
            share = int(nbytes * group.total / self.total)
            self.cache.precondition(pool, share, group.draw)
            put += share
        return put


FASTER = 1.05
"""Writes outpace destaging when the bytes written into cache exceed the bytes destaged by
this factor over the first part of the warm-up."""


def _write_sources(
    scenario: Scenario, topology: Topology, streams: Streams
) -> dict[RaidPool, _PoolWrites]:
    """Each pool's write sources (empty when nothing writes into a write-back cache)."""
    cache: Cache = topology.cache
    pools: dict[RaidPool, _PoolWrites] = {}
    if not scenario.run.precondition or cache.capacity <= 0:
        return pools

    hosts = {h.name: h.count for h in scenario.hosts}
    for wi, w in enumerate(scenario.workloads):
        if w.copy_to is not None or w.read_fraction >= 1.0:
            continue
        cached = [(size, share) for size, share in w.write_sizes if cache.absorbs(size)]
        if not cached:
            continue
        writes_only = w.model_copy(
            update={
                "read_fraction": 0.0,
                "block_size": tuple(cached),
                "read_block_size": None,
                "write_block_size": None,
            }
        )
        n_hosts = sum(hosts.values()) if w.hosts == "all" else sum(hosts[h] for h in w.hosts)
        groups = list(topology.luns_by_group) if w.luns == "all" else list(w.luns)
        luns = [lun for g in groups for lun in topology.luns_by_group[g]]
        mean_size = sum(size * share for size, share in cached) / sum(s for _, s in cached)
        if w.closed:
            per_lun = float(w.outstanding_per_lun * n_hosts)
        else:
            assert w.rate is not None
            per_lun = w.rate * n_hosts / len(luns)
        rate = (1.0 - w.read_fraction) * per_lun
        for lun in luns:
            if lun.write_hit >= 1.0:
                continue  # its writes overwrite dirty data: they never fill the cache
            group = pools.get(lun.pool)
            if group is None:
                group = pools[lun.pool] = _PoolWrites(
                    streams.uniform(f"precondition.pool{len(pools)}")
                )
            threads = w.threads if w.pattern == "sequential" else 1
            for thread in range(threads):
                name = f"precondition.w{wi}.{lun.name}.t{thread}"
                source = make_source(writes_only, lun.size, streams, name, thread)
                group.add(rate * (1.0 - lun.write_hit) / threads, mean_size, lun, source)
    return pools
