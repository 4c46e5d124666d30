"""A hard disk's scheduler and reorder window, and each drive profile against measured drives.

The published figures (sources in ``docs/model.md``, "Command queueing by era"):

* random reads at queue depth 1 over the whole disk: 175-210 IOPS for a 15k drive, 125-150
  for a 10k drive, 75-100 for a 7.2k drive (the rules of thumb of the parameter catalogue,
  from Wikipedia "IOPS" and two practitioner tables);
* Seagate Cheetah 15K.7 ST3300657SS, fio 4 KiB random reads with libaio (Peter Xu, 2013, read
  from the published chart): 355 IOPS at iodepth 1, 862 at 16, 952 at 32, 1015 at 64. The
  region the test covered is not stated; its queue-depth-1 figure pins it (a few percent of
  the disk), so the model is run on the region that gives the same depth-1 IOPS;
* 7.2k SATA drives with NCQ: random IOPS about double from queue depth 1 to 32 ("nearly
  100%" for enterprise SATA drives, Wikipedia "IOPS"; "random performance *doubles* from
  QD=1 to QD=32", PC Perspective, 2015);
* 10k SAS (Seagate Savvio): "more than doubling" with deep queues (Wikipedia "IOPS").
"""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.sim.components.drive import DriveOp, Hdd, Join, Yielding
from sanpath.sim.kernel import Kernel
from sanpath.sim.station import Station
from sanpath.spec import HddSpec
from sanpath.spec.profiles import DRIVE_PROFILES
from sanpath.theory import textbook

DEPTHS = (1, 32)


def one_drive(
    drive: Any, outstanding: int, span: float = 1.0, block: str = "8KiB", ios: int = 6_000
) -> float:
    """Random-read IOPS of one drive behind a path that costs nothing."""
    data = textbook.free_path(ios=ios, warmup_ios=ios // 10)
    data["array"]["pools"][0]["drive"] = drive
    data["workloads"][0].update(outstanding=outstanding, block_size=block, span=span)
    return sanpath.run(data).iops


# -- the schedulers --------------------------------------------------------------------------


def test_fifo_gains_nothing_elevator_some_sptf_most() -> None:
    iops = {
        scheduler: [
            one_drive({"profile": "hdd-15k", "scheduler": scheduler, "reorder_window": None}, q)
            for q in DEPTHS
        ]
        for scheduler in ("fifo", "elevator", "sptf")
    }
    base = iops["fifo"][0]
    for scheduler in iops:  # one command at a time: nothing to choose from
        assert iops[scheduler][0] == pytest.approx(base, rel=0.03)
    assert iops["fifo"][1] == pytest.approx(base, rel=0.05)
    # the elevator shortens seeks (about 1.8x at 32 on a 15k drive); SPTF also the rotation
    assert 1.5 * base < iops["elevator"][1] < 2.1 * base
    assert iops["sptf"][1] > 1.2 * iops["elevator"][1]


def test_elevator_gains_little_where_rotation_dominates() -> None:
    """On a small region seeks are short and the rotational wait is most of the positioning:
    an elevator (seek order) gains little there, rotational ordering (SPTF) a lot. The
    measured Cheetah 15K.7 gains 2.7x on such a region, so its firmware orders by rotation."""
    drive = {"profile": "hdd-15k", "reorder_window": None}
    gain = {
        scheduler: one_drive({**drive, "scheduler": scheduler}, 32, span=0.03, block="4KiB")
        / one_drive({**drive, "scheduler": scheduler}, 1, span=0.03, block="4KiB")
        for scheduler in ("elevator", "sptf")
    }
    assert gain["elevator"] < 1.3
    assert gain["sptf"] > 2.5


def test_reorder_window_caps_the_gain() -> None:
    drive = {"profile": "hdd-15k", "reorder_window": 8}
    at = {q: one_drive(drive, q) for q in (1, 9, 32, 64)}
    assert at[9] > 1.4 * at[1]  # up to the window the queue helps as before
    # beyond it the firmware looks at no more commands: the IOPS stay put
    assert at[32] == pytest.approx(at[9], rel=0.04)
    assert at[64] == pytest.approx(at[9], rel=0.04)
    whole = one_drive({"profile": "hdd-15k", "reorder_window": None}, 32)
    assert whole > 1.3 * at[32]


def test_elevator_serves_every_command() -> None:
    """LOOK turns at the last command ahead: no command waits for ever (every I/O finishes,
    and the tail stays within a few sweeps of the mean)."""
    data = textbook.free_path(ios=4_000, warmup_ios=400)
    data["array"]["pools"][0]["drive"] = {"profile": "hdd-7k2", "scheduler": "elevator"}
    data["workloads"][0].update(outstanding=32, block_size="8KiB")
    result = sanpath.run(data)
    assert result.ios >= 4_000
    assert result.latency_ms["max"] < 8 * result.latency_ms["mean"]


# -- each profile against its cited figures --------------------------------------------------

QD1_RULE = {"hdd-15k": (175.0, 210.0), "hdd-10k": (125.0, 150.0), "hdd-7k2": (75.0, 100.0)}
"""Random 8 KiB reads over the whole disk at queue depth 1 (rules of thumb)."""


@pytest.mark.parametrize("profile", sorted(QD1_RULE))
def test_profile_depth_1_within_the_rule_of_thumb(profile: str) -> None:
    """Tolerance: the published range itself, less 3% below for the model's 0.1 ms command
    overhead, which the rules of thumb (seek plus half a turn) leave out."""
    low, high = QD1_RULE[profile]
    assert 0.97 * low <= one_drive(profile, 1) <= high


@pytest.mark.slow
def test_cheetah_15k7_against_the_measured_queue_curve() -> None:
    """hdd-15k against Xu's ST3300657SS (fio 4 KiB random reads): the region is fitted to the
    queue-depth-1 figure (355), then the deeper queues are predictions.

    The profile's reorder window of 16 (fitted to this curve) meets it within 10% from depth
    8 on (tolerance: figures read off a chart, about 2%; the region known only through the
    depth-1 figure, about 5% on the deep-queue IOPS; one drive). SPTF over the whole queue
    (``reorder_window: null``, what the seed scenarios were calibrated with) is optimistic:
    9% high at 16, 18% at 32, 25% at 64 (held to that: above the measurement, at most 27%
    over).
    """
    span = 0.03
    assert one_drive("hdd-15k", 1, span=span, block="4KiB") == pytest.approx(355, rel=0.03)
    whole = {"profile": "hdd-15k", "reorder_window": None}
    for depth, measured in ((16, 862), (32, 952), (64, 1015)):
        model = one_drive(whole, depth, span=span, block="4KiB")
        assert measured < model < 1.27 * measured, depth
        fitted = one_drive("hdd-15k", depth, span=span, block="4KiB")
        assert fitted == pytest.approx(measured, rel=0.10), depth


@pytest.mark.parametrize(
    ("profile", "band"),
    [
        # "doubles" / "nearly 100%": read as 2.0 within 10% (the sources give no decimals)
        ("hdd-7k2", (1.8, 2.2)),
        # "more than doubling" (Savvio); the profile weighs 16 commands (about 2.1; the ideal
        # SPTF over the whole queue about 2.6)
        ("hdd-10k", (2.0, 2.8)),
        # measured on a small region only (above); over the whole disk at least doubling
        ("hdd-15k", (2.0, 2.8)),
    ],
)
def test_profile_gain_from_depth_1_to_32(profile: str, band: tuple[float, float]) -> None:
    gain = one_drive(profile, 32) / one_drive(profile, 1)
    assert band[0] <= gain <= band[1]


def test_a_write_seeks_longer_than_a_read_on_the_cheetah() -> None:
    from sanpath.layout.geometry import seek_curve
    from sanpath.spec.profiles import DRIVE_PROFILES

    spec = sanpath.spec.HddSpec.model_validate(DRIVE_PROFILES["hdd-15k"])
    assert spec.write_seeks == pytest.approx((0.44e-3, 3.9e-3, 7.4e-3))
    read, write = seek_curve(spec), seek_curve(spec, write=True)
    for d in (1e-4, 0.01, 1 / 3, 1.0):
        assert (
            write[0] + write[1] * d + write[2] * d**0.5 > read[0] + read[1] * d + read[2] * d**0.5
        )
    plain = sanpath.spec.HddSpec()  # no write seeks given: a write seeks as a read
    assert seek_curve(plain, write=True) == seek_curve(plain)
    with pytest.raises(ValueError, match="write seek times"):
        sanpath.spec.HddSpec(write_track_to_track=5e-3)


# -- read priority over the cache's destages ----------------------------------------------------


@pytest.mark.parametrize("yielding", [True, False])
def test_a_yielding_destage_waits_for_the_host_operation_queued_beside_it(yielding: bool) -> None:
    """A destage under the head and a read across the disk wait while the drive is busy:
    SPTF takes the destage first, unless the cache's switch makes it yield (read priority)."""
    env = Kernel()
    drive = Hdd(
        env, HddSpec.model_validate(DRIVE_PROFILES["hdd-15k"]), Station("d", "drive", 1, "drives")
    )
    switch = Yielding()
    switch.on = yielding
    join = Join(env, 0.0)
    join.remaining = 3
    near = drive.capacity // 100
    busy = DriveOp(near, 8192, False, join)
    destage = DriveOp(near + 65536, 8192, True, join, switch)
    read = DriveOp(drive.capacity * 9 // 10, 8192, False, join)
    for op in (busy, destage, read):
        drive.submit(op, 0.0)
    assert drive.deferrable == 1
    env.run()
    assert drive.deferrable == 0
    assert (read.t_start < destage.t_start) == yielding
