"""The array cache (sanpath.sim.components.cache) driven by hand: read-ahead on a sequential
stream, and the write-back cache's dirty bytes, watermarks, destaging and forced flushes.

The array is the textbook free path with one LUN on a one-drive RAID 0 pool whose drive takes
a constant 1 ms per operation, so every destage is one drive write of 1 ms, one after another.
"""

from __future__ import annotations

from typing import Any

import sanpath
from sanpath.sim.components.array import Lun
from sanpath.sim.components.cache import Cache
from sanpath.sim.control import EARLY_IOS, RunControl
from sanpath.sim.kernel import Kernel
from sanpath.sim.precondition import Preconditioner
from sanpath.sim.streams import Streams
from sanpath.sim.topology import Topology, build_topology
from sanpath.theory import textbook

KiB, MiB = 1 << 10, 1 << 20


def array(cache: dict[str, Any]) -> Topology:
    data = textbook.free_path()
    data["array"]["cache"] = cache
    data["array"]["pools"][0]["drive"] = "1ms"
    scenario = sanpath.load_scenario(data)
    return build_topology(Kernel(), scenario, Streams(scenario.seed))


# -- read-ahead -------------------------------------------------------------------------------


def test_a_sequential_stream_is_served_by_read_ahead_after_its_first_read() -> None:
    topology = array({"read_ahead": "4MiB"})
    env = topology.env
    (lun,) = topology.luns
    readahead = lun.readahead
    assert readahead is not None
    assert (readahead.depth, readahead.chunk) == (4 * MiB, 1 * MiB)
    size = 64 * KiB
    assert readahead.lookup(0, size) is None  # the first read of a stream: a miss
    (stream,) = readahead.streams
    assert stream.next_offset == size and not stream.chunks
    waits = readahead.lookup(size, size)  # continues it: the trigger
    assert waits is not None and len(waits) == 1  # wait for the first chunk only
    # prefetched from where the stream was to 4 MiB beyond this read, in 1 MiB chunks
    assert [(lo, hi) for lo, hi, _ in stream.chunks] == [
        (size + i * MiB, size + (i + 1) * MiB) for i in range(5)
    ]
    assert stream.prefetched_to == 5 * MiB + size >= 2 * size + 4 * MiB
    env.run()
    assert env.now > 0  # the drive read the chunks
    # the reader is now served from cache: nothing to wait for
    assert readahead.lookup(2 * size, size) == []
    assert stream.next_offset == 3 * size
    assert len(stream.chunks) == 5  # and keeps 4 MiB ahead of it (no new chunk yet)


def test_read_ahead_keeps_ahead_of_the_reader_and_drops_consumed_chunks() -> None:
    topology = array({"read_ahead": "4MiB"})
    (lun,) = topology.luns
    readahead = lun.readahead
    assert readahead is not None
    readahead.lookup(0, MiB)
    readahead.lookup(MiB, MiB)
    (stream,) = readahead.streams
    assert stream.prefetched_to == 6 * MiB
    topology.env.run()
    assert readahead.lookup(2 * MiB, MiB) == []
    assert stream.prefetched_to == 7 * MiB  # one more chunk to stay 4 MiB ahead
    assert [lo for lo, _, _ in stream.chunks] == [2 * MiB, 3 * MiB, 4 * MiB, 5 * MiB, 6 * MiB]
    waits = readahead.lookup(3 * MiB, MiB)
    assert waits is not None and len(waits) == 0  # the new chunk is beyond this read


def test_a_random_read_is_a_miss_and_starts_a_new_stream() -> None:
    topology = array({"read_ahead": "4MiB"})
    (lun,) = topology.luns
    readahead = lun.readahead
    assert readahead is not None
    readahead.lookup(0, 8 * KiB)
    assert readahead.lookup(8 * KiB, 8 * KiB) is not None
    assert readahead.lookup(1000 * MiB, 8 * KiB) is None  # far from every stream
    assert len(readahead.streams) == 2
    for i in range(readahead.MAX_STREAMS):
        readahead.lookup((2000 + 100 * i) * MiB, 8 * KiB)
    assert len(readahead.streams) == readahead.MAX_STREAMS  # the oldest are forgotten


def test_no_read_ahead_unless_configured() -> None:
    (lun,) = array({}).luns
    assert lun.readahead is None


# -- write-back -------------------------------------------------------------------------------


def write_back(concurrency: int = 4, **knobs: Any) -> tuple[Topology, Cache, Lun]:
    """1 MiB of dirty space, destaging from 50% (512 KiB), all of it from 75% (768 KiB);
    oldest first, each write waiting for room adding a destage, unless ``knobs`` say."""
    topology = array(
        {
            "write_back": "1MiB",
            "write_aside": "256KiB",
            "low_watermark": 0.5,
            "high_watermark": 0.75,
            "destage_concurrency": concurrency,
            "destage_order": "arrival",
            "forced_flush_destages": True,
            **knobs,
        }
    )
    (lun,) = topology.luns
    return topology, topology.cache, lun


def fill(cache: Cache, lun: Lun, first: int, count: int, size: int = 64 * KiB) -> None:
    """``count`` writes of ``size`` at 1 MiB strides (never contiguous: one extent each)."""
    for i in range(first, first + count):
        assert cache.reserve(lun, i * MiB, size) is None


def test_what_goes_into_write_back() -> None:
    _, cache, _ = write_back()
    assert cache.absorbs(8 * KiB) and cache.absorbs(256 * KiB)
    assert not cache.absorbs(256 * KiB + 1)  # write-aside: straight to the drives
    assert not array({}).cache.absorbs(8 * KiB)  # write-through


def test_writes_below_the_low_watermark_only_fill_the_cache() -> None:
    topology, cache, lun = write_back()
    fill(cache, lun, 0, 8)
    assert cache.dirty == cache.absorbed == 512 * KiB == cache.low
    assert cache.active == 0 and cache.destaged == 0
    topology.env.run()
    assert topology.env.now == 0  # nothing was started
    assert cache.dirty == 512 * KiB


def test_destage_concurrency_rises_with_the_dirty_level_between_the_watermarks() -> None:
    _, cache, lun = write_back(concurrency=4)
    fill(cache, lun, 0, 8)
    active = []
    for i in range(8, 13):
        fill(cache, lun, i, 1)
        active.append(cache.active)
    # 576, 640, 704, 768 (the high watermark), 832 KiB: a quarter, a half, ... of 4
    assert active == [1, 2, 3, 4, 4]


def test_destaging_stops_at_the_low_watermark() -> None:
    topology, cache, lun = write_back(concurrency=4)
    fill(cache, lun, 0, 12)  # 768 KiB: at the high watermark, 4 destages in flight
    assert cache.active == 4
    (destager,) = cache.destagers.values()
    assert len(destager.extents) == 8  # the oldest four left the queue
    topology.env.run()
    # each completion lowers the level and the share with it: no new destage starts
    assert topology.env.now == 0.004  # four 1 ms drive writes, one after another
    assert cache.active == 0
    assert cache.dirty == cache.low == 512 * KiB
    assert cache.destaged == 4 * 64 * KiB
    assert len(destager.extents) == 8


def test_a_full_cache_forces_a_flush_and_admits_the_write_when_room_is_made() -> None:
    topology, cache, lun = write_back(concurrency=2)
    env = topology.env
    fill(cache, lun, 0, 16)  # 1 MiB: full
    assert cache.dirty == cache.capacity and cache.active == 2
    event = cache.reserve(lun, 100 * MiB, 64 * KiB)
    assert event is not None and not event.triggered
    assert cache.forced_flushes == 1
    (destager,) = cache.destagers.values()
    assert destager.waiting == 1
    assert cache.active == 3  # the waiting write adds a destage of its own
    # a small write that would fit waits its turn behind the waiting one (FIFO)
    later = cache.reserve(lun, 200 * MiB, 64 * KiB)
    assert later is not None and cache.forced_flushes == 2 and destager.waiting == 2
    env.run(until=0.0015)  # the first destage ended at 1 ms: room for the first waiter
    assert event.processed and not later.triggered
    assert cache.dirty == cache.capacity and destager.waiting == 1
    env.run()
    assert later.processed and destager.waiting == 0
    assert cache.dirty == cache.low  # then destaging drains down to the low watermark
    assert cache.absorbed == 18 * 64 * KiB
    assert cache.dirty_peak == cache.capacity


def test_contiguous_writes_join_one_extent_up_to_the_merge_size() -> None:
    _, cache, lun = write_back()
    assert lun.destage_merge == 256 * KiB  # four 64 KiB rows of the one-drive RAID 0
    for offset in (0, 10 * MiB, 64 * KiB, 10 * MiB + 64 * KiB, 128 * KiB, 192 * KiB, 256 * KiB):
        assert cache.reserve(lun, offset, 64 * KiB) is None  # two interleaved streams
    (destager,) = cache.destagers.values()
    assert [(e.offset, e.size) for e in destager.extents] == [
        (0, 256 * KiB),
        (10 * MiB, 128 * KiB),
        (256 * KiB, 64 * KiB),
    ]
    assert cache.dirty == 7 * 64 * KiB


# -- destaging as array controllers do it -----------------------------------------------------


def destages(cache: Cache) -> list[tuple[int, int]]:
    """(offset, size) of the destages the cache would start next, in order, until none is
    left (taken from the queue without running them)."""
    (destager,) = cache.destagers.values()
    out = []
    if destager.sweeps:
        (sweep,) = destager.sweeps
        while (extent := sweep.pop()) is not None:
            out.append((extent.offset, extent.size))
    else:
        while (extent := destager.pop_oldest()) is not None:
            out.append((extent.offset, extent.size))
    return out


def test_arrival_order_destages_the_oldest_first() -> None:
    _, cache, lun = write_back(high_watermark=1.0, low_watermark=1.0)
    for offset in (5, 1, 3):
        assert cache.reserve(lun, offset * MiB, 64 * KiB) is None
    assert destages(cache) == [(5 * MiB, 64 * KiB), (1 * MiB, 64 * KiB), (3 * MiB, 64 * KiB)]


def test_sweep_order_goes_up_the_addresses_and_starts_again_from_the_lowest() -> None:
    _, cache, lun = write_back(destage_order="sweep", high_watermark=1.0, low_watermark=1.0)
    for offset in (5, 1, 3):
        assert cache.reserve(lun, offset * MiB, 64 * KiB) is None
    (destager,) = cache.destagers.values()
    (sweep,) = destager.sweeps
    extent = sweep.pop()
    assert extent is not None and extent.offset == 1 * MiB
    extent = sweep.pop()
    assert extent is not None and extent.offset == 3 * MiB
    # written behind the pointer: it waits for the next sweep, after 5 MiB
    assert cache.reserve(lun, 2 * MiB, 64 * KiB) is None
    assert cache.reserve(lun, 4 * MiB, 64 * KiB) is None  # ahead: taken in this sweep
    assert destages(cache) == [(4 * MiB, 64 * KiB), (5 * MiB, 64 * KiB), (2 * MiB, 64 * KiB)]


def test_a_write_joins_the_dirty_extent_it_runs_into_and_fills_gaps() -> None:
    for order in ("sweep", "arrival"):
        _, cache, lun = write_back(destage_order=order, high_watermark=1.0, low_watermark=1.0)
        for offset in (64, 192):
            assert cache.reserve(lun, offset * KiB, 64 * KiB) is None
        assert cache.reserve(lun, 0, 64 * KiB) is None  # ends where the first begins
        assert cache.reserve(lun, 128 * KiB, 64 * KiB) is None  # fills the gap: one extent
        assert destages(cache) == [(0, 256 * KiB)], order
        assert cache.dirty == 4 * 64 * KiB


def test_without_coalescing_only_a_write_that_continues_an_extent_joins_it() -> None:
    _, cache, lun = write_back(destage_coalesce=False, high_watermark=1.0, low_watermark=1.0)
    for offset in (64, 0, 128):
        assert cache.reserve(lun, offset * KiB, 64 * KiB) is None
    assert destages(cache) == [(64 * KiB, 128 * KiB), (0, 64 * KiB)]


def test_joined_extents_stay_within_blocks_of_the_merge_size() -> None:
    """Extents join within one aligned block of the merge size (whole rows): a stream that
    started off a block's start still fills the next blocks whole."""
    _, cache, lun = write_back(destage_order="sweep", high_watermark=1.0, low_watermark=1.0)
    assert lun.destage_merge == 256 * KiB
    for offset in (64, 128, 192, 256):
        assert cache.reserve(lun, offset * KiB, 64 * KiB) is None  # 256: the next block
    assert cache.reserve(lun, 0, 64 * KiB) is None  # fills the first block from below
    # the first block was written to since it was queued: its recency bit lets the other go first
    assert destages(cache) == [(256 * KiB, 64 * KiB), (0, 256 * KiB)]


def test_the_sweep_skips_an_extent_written_since_it_passed_once() -> None:
    """WOW's recency bit: a joined extent is passed over once, then taken on the next turn."""
    _, cache, lun = write_back(destage_order="sweep", high_watermark=1.0, low_watermark=1.0)
    for offset in (0, 64, 512):
        assert cache.reserve(lun, offset * KiB, 64 * KiB) is None  # 0 and 64 join
    (destager,) = cache.destagers.values()
    (sweep,) = destager.sweeps
    first = sweep.pop()
    assert first is not None and (first.offset, first.size) == (512 * KiB, 64 * KiB)
    second = sweep.pop()
    assert second is not None and (second.offset, second.size) == (0, 128 * KiB)
    assert not second.recent and sweep.pop() is None


def test_a_full_cache_destages_at_full_throttle_unless_each_waiting_write_adds_one() -> None:
    for per_write, expected in ((False, 2), (True, 3)):
        _, cache, lun = write_back(
            concurrency=2, destage_order="sweep", forced_flush_destages=per_write
        )
        fill(cache, lun, 0, 16)  # 1 MiB: full
        assert cache.active == 2
        assert cache.reserve(lun, 100 * MiB, 64 * KiB) is not None  # waits for room
        assert cache.active == expected, per_write


def test_a_preconditioned_backlog_destages_in_address_order_with_the_run_s_writes() -> None:
    _, cache, lun = write_back(destage_order="sweep", high_watermark=1.0, low_watermark=1.0)
    (pool,) = cache.destagers
    draws = iter([(7 * MiB, 64 * KiB), (2 * MiB, 64 * KiB), (9 * MiB, 64 * KiB)])

    def draw() -> tuple[Lun, int, int]:
        offset, size = next(draws)
        return lun, offset, size

    cache.precondition(pool, 3 * 64 * KiB, draw)
    assert cache.dirty == 3 * 64 * KiB
    assert cache.reserve(lun, 8 * MiB, 64 * KiB) is None
    assert [offset // MiB for offset, _ in destages(cache)] == [2, 7, 8, 9]


def test_each_raid_group_has_a_sweep_of_its_own() -> None:
    data = textbook.free_path()
    data["array"]["cache"] = {"write_back": "1MiB", "destage_concurrency": 4}
    data["array"]["pools"][0].update({"drive": "1ms", "groups": 2})
    scenario = sanpath.load_scenario(data)
    topology = build_topology(Kernel(), scenario, Streams(scenario.seed))
    (destager,) = topology.cache.destagers.values()
    assert len(destager.sweeps) == 2
    layout = destager.pool.layout
    rows = [destager.group(r * layout.row_bytes) for r in range(4)]
    assert rows == [0, 1, 0, 1]  # consecutive rows, consecutive groups


def test_the_preconditioner_compares_the_rates_without_read_priority() -> None:
    """Below the high watermark read priority holds destages back, so a cache starting at it
    would seem to fill faster than full-concurrency destaging frees it: the comparison is
    made without it, and the cache's own setting comes back once it is made."""
    data = textbook.free_path()
    data["array"]["cache"] = {"write_back": "1MiB"}
    data["workloads"][0]["read_fraction"] = 0.5
    scenario = sanpath.load_scenario(data)
    streams = Streams(scenario.seed)
    topology = build_topology(Kernel(), scenario, streams)
    cache = topology.cache
    assert cache.read_priority
    pre = Preconditioner(scenario, topology, streams)
    assert pre.start(0.0) > 0
    assert not cache.read_priority
    pre.settle(0.0)
    assert cache.read_priority


def test_an_automatic_warm_up_with_write_back_waits_for_the_preconditioner_s_check() -> None:
    """The check (and the read priority it holds back) comes before anything is measured,
    however soon the latencies look settled; without write-back the warm-up may end sooner."""
    spec = sanpath.load_scenario(textbook.free_path(ios=5_000, warmup_ios=100)).run
    checked: list[float] = []

    def early(now: float) -> bool:
        checked.append(now)
        return False

    for write_back in (True, False):
        control = RunControl(spec, False, write_back, lambda: (0.0, 1.0, 0.0), early=early)
        n = 1
        while not control.warm_up(n * 1e-3, 1e-3):
            n += 1
        assert (n >= EARLY_IOS) == write_back, (write_back, n)
    assert len(checked) == 1  # the run without write-back ended its warm-up before it
