"""The write-back cache's dirty set: what a preconditioned cache starts with, how writes find
the extents they may join (sanpath.sim.components.destage.Openings), and what an extent
costs in memory, so that a long run's memory is its cache's and not its length's.
"""

from __future__ import annotations

import tracemalloc
from typing import Any

import sanpath
from sanpath.sim.components.array import Lun
from sanpath.sim.components.cache import Cache
from sanpath.sim.components.destage import Extent, Openings
from sanpath.sim.kernel import Kernel
from sanpath.sim.precondition import Preconditioner
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology, build_topology
from sanpath.spec import Scenario
from sanpath.theory import textbook

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


def topology_of(data: dict[str, Any]) -> tuple[Topology, Streams, Scenario]:
    scenario = sanpath.load_scenario(data)
    streams = Streams(scenario.seed)
    return build_topology(Kernel(), scenario, streams), streams, scenario


def sweep_cache(write_back: str = "1GiB") -> tuple[Cache, Lun]:
    data = textbook.free_path()
    data["array"]["cache"] = {"write_back": write_back, "destage_order": "sweep"}
    data["array"]["pools"][0].update({"drive": "1ms", "drives": 4, "raid": "raid5"})
    data["array"]["luns"][0]["size"] = "1TiB"
    topology, _, _ = topology_of(data)
    (lun,) = topology.luns
    return topology.cache, lun


def test_a_write_joins_an_extent_the_cache_was_preconditioned_with() -> None:
    cache, lun = sweep_cache()
    (pool,) = cache.destagers
    cache.low = cache.high = float(cache.capacity)  # nothing destages during the test
    draws = iter([(10 * lun.destage_merge + 8 * KiB, 8 * KiB)])
    cache.precondition(pool, 8 * KiB, lambda: (lun, *next(draws)))
    assert cache.reserve(lun, 10 * lun.destage_merge + 16 * KiB, 8 * KiB) is None
    (destager,) = cache.destagers.values()
    extents = [e for sweep in destager.sweeps for e in sweep.ahead + sweep.behind if not e.gone]
    assert [(e.offset - 10 * lun.destage_merge, e.size) for e in extents] == [(8 * KiB, 16 * KiB)]


def test_the_preconditioner_draws_each_workload_as_often_as_it_writes() -> None:
    """Two workloads at the same write rate, 4 KiB and 64 KiB, on LUNs of their own: the
    dirty data holds as many extents of each, and 16 times the bytes of the larger (a draw
    weighted by bytes would hold 16 times the extents and 256 times the bytes)."""
    data = textbook.free_path()
    data["array"]["cache"] = {"write_back": "256MiB", "destage_order": "sweep"}
    data["array"]["pools"][0].update({"drive": "1ms", "drives": 4, "raid": "raid5"})
    data["array"]["luns"] = [
        {"name": "small", "pool": "pool", "size": "1TiB"},
        {"name": "large", "pool": "pool", "size": "1TiB"},
    ]
    data["workloads"] = [
        {"name": n, "luns": [n], "rate": 100, "block_size": b, "read_fraction": 0.0}
        for n, b in (("small", "4KiB"), ("large", "64KiB"))
    ]
    topology, streams, scenario = topology_of(data)
    cache = topology.cache
    cache.low = cache.high = float(cache.capacity)
    pre = Preconditioner(scenario, topology, streams)
    assert pre.start(0.0) > 0
    (destager,) = cache.destagers.values()
    extents = [e for sweep in destager.sweeps for e in sweep.ahead + sweep.behind if not e.gone]
    count = dict.fromkeys(("small", "large"), 0)
    nbytes = dict(count)
    for e in extents:
        count[e.lun.name] += 1
        nbytes[e.lun.name] += e.size
    assert 0.9 < count["large"] / count["small"] < 1.1, count
    assert 14.4 < nbytes["large"] / nbytes["small"] < 17.6, nbytes


def test_openings_find_the_newest_extent_at_an_end_and_forget_closed_ones() -> None:
    _, lun = sweep_cache()
    openings = Openings()
    a, b = Extent(lun, 0, 4 * KiB), Extent(lun, 8 * KiB, 4 * KiB)
    twin = Extent(lun, 0, 4 * KiB)  # a rewrite of a's bytes, dirty beside it
    for extent in (a, b, twin):
        openings.add(7, extent)
    assert openings.find(7, lun, 4 * KiB, ending=True) is twin
    assert openings.find(7, lun, 8 * KiB, ending=False) is b
    assert openings.find(8, lun, 4 * KiB, ending=True) is None  # another block
    openings.remove(7, twin)
    assert openings.find(7, lun, 4 * KiB, ending=True) is a
    openings.remove(7, a)
    openings.remove(7, a)  # not open: nothing happens
    assert len(openings) == 1
    assert openings.blocks == {7: b}  # one extent a block is kept without a list
    openings.remove(7, b)
    assert openings.blocks == {}


def test_a_dirty_extent_costs_a_few_hundred_bytes() -> None:
    """A large write-back cache holds hundreds of thousands of extents: one costs its object,
    a heap entry and its place among the openings (it cost about 600 bytes when the openings
    were two dictionaries keyed by (LUN, offset) and the heap held tuples)."""
    cache, lun = sweep_cache(write_back="4GiB")
    cache.low = cache.high = float(cache.capacity)
    n = 20_000
    merge = lun.destage_merge
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    for block in range(n):  # one extent a block, as random writes make them
        assert cache.reserve(lun, block * merge + 8 * KiB, 8 * KiB) is None
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    per_extent = (after - before) / n
    print(f"{per_extent:.0f} bytes an extent")
    assert per_extent < 320, per_extent
