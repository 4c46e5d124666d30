"""Preconditioning: start a run with the write-back cache as dirty as a long run leaves it.

A write-back cache that absorbs writes at tens of MB/s takes minutes of simulated time to
reach the level where destaging starts; until then the drives see no write at all and every
figure is the filling transient. Storage benchmarks precondition for the same reason (SNIA's
Performance Test Specification fills a device before it measures). The steady state does not
depend on where the run starts, only how long it takes to get there, so sanpath starts the
cache full of dirty data (``run.precondition``, on by default). That is where a sustained
write load leaves a cache whose drives cannot keep up, the case where the cache matters
most (fan-in onto a busy array settles within a second of simulated time from there); a
cache whose drives do keep up drains from there at full destage concurrency to the level
where destaging matches the writes, which can take minutes of simulated time: the cache
controller's own time constant (the quickstart scenario with 30% writes, whose 1 GiB cache
settles about 72% dirty, warms up for 273 simulated seconds from full, 93 from 80%, and
fan-in onto a full cache takes 0.2 s from full against more than 16 s from 80%).

The dirty data is made of the scenario's own writes, drawn from separate random streams: each
workload that writes puts its share (write fraction x block size x intensity) on the LUNs it
writes to, at the addresses its pattern would use, so sequential streams destage as full
stripes as they would have. Copy jobs are left out: they fill a cache in seconds on their own.
"""

from __future__ import annotations

from collections.abc import Callable

from sanpath.components.array import Lun
from sanpath.components.cache import Cache
from sanpath.components.raid import RaidPool
from sanpath.scenario import Scenario
from sanpath.streams import Streams, UniformStream
from sanpath.topology import Topology
from sanpath.workload import IoSource

Draw = Callable[[], tuple[Lun, int, int]]


class _PoolWrites:
    """The write sources of one pool, chosen by weight, extents merged as the cache would."""

    def __init__(self, pick: UniformStream) -> None:
        self.pick = pick
        self.sources: list[tuple[float, Lun, IoSource]] = []
        self.total = 0.0

    def add(self, weight: float, lun: Lun, source: IoSource) -> None:
        self.total += weight
        self.sources.append((self.total, lun, source))

    def draw(self) -> tuple[Lun, int, int]:
        """The next dirty extent: (LUN, offset, size)."""
        x = self.pick() * self.total
        for cum, lun, source in self.sources:
            if x < cum:
                break
        size, _, offset = source.next_io()
        if source.pattern == "sequential":
            # contiguous writes of one stream join one extent, up to the LUN's merge size
            while size < lun.destage_merge:
                position = source.position
                more, _, at = source.next_io()
                if at != offset + size or size + more > lun.destage_merge:
                    source.position = position
                    break
                size += more
        return lun, offset, size


def precondition(scenario: Scenario, topology: Topology, streams: Streams) -> int:
    """Fill ``topology``'s write-back cache with dirty data; returns the bytes put in.

    Nothing happens without a write-back cache, with ``run.precondition: false`` or when no
    workload writes into the cache (reads only, copy jobs, writes all larger than
    ``write_aside``).
    """
    cache: Cache = topology.cache
    if not scenario.run.precondition or cache.capacity <= 0:
        return 0
    pools: dict[RaidPool, _PoolWrites] = {}
    hosts = {h.name: h.count for h in scenario.hosts}
    for wi, w in enumerate(scenario.workloads):
        if w.copy_to is not None or w.read_fraction >= 1.0:
            continue
        cached = [(size, share) for size, share in w.block_size if cache.absorbs(size)]
        if not cached:
            continue
        writes_only = w.model_copy(update={"read_fraction": 0.0, "block_size": tuple(cached)})
        n_hosts = sum(hosts.values()) if w.hosts == "all" else sum(hosts[h] for h in w.hosts)
        groups = list(topology.luns_by_group) if w.luns == "all" else list(w.luns)
        luns = [lun for g in groups for lun in topology.luns_by_group[g]]
        mean_size = sum(size * share for size, share in cached) / sum(s for _, s in cached)
        if w.closed:
            per_lun = float(w.outstanding_per_lun * n_hosts)
        else:
            assert w.rate is not None
            per_lun = w.rate * n_hosts / len(luns)
        weight = (1.0 - w.read_fraction) * mean_size * per_lun
        for lun in luns:
            group = pools.get(lun.pool)
            if group is None:
                group = pools[lun.pool] = _PoolWrites(
                    streams.uniform(f"precondition.pool{len(pools)}")
                )
            threads = w.threads if w.pattern == "sequential" else 1
            for thread in range(threads):
                u = streams.uniform(f"precondition.w{wi}.{lun.name}.t{thread}")
                source = IoSource(writes_only, lun.size, u, thread)
                group.add(weight / threads, lun, source)
    total = sum(g.total for g in pools.values())
    if total <= 0:
        return 0
    target = cache.capacity
    put = 0
    for pool, group in pools.items():
        nbytes = int(target * group.total / total)
        cache.precondition(pool, nbytes, group.draw)
        put += nbytes
    return put
