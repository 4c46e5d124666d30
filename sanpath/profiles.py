"""Named hardware profiles: drives users can name in a scenario instead of writing numbers.

A profile is plain data: the fields of a drive model plus the sources they come from. A
scenario names one (``drive: hdd-15k``) or starts from one and changes a field
(``drive: {profile: hdd-15k, queue_depth: 64}``).

Numbers and their sources (see also ``docs/model.md``):

* Seek curves use three datasheet points, track-to-track, average and full stroke. The
  curve between them is fitted in :mod:`sanpath.components.drive`.
* ``hdd-15k`` is a Seagate Cheetah 15K.7 (ST3450857SS): 0.2 / 3.4 / 6.6 ms read seeks, 15,000
  rpm, 450 GB, 122-204 MB/s sustained (Seagate product manual 100516226, as quoted in
  Seagate/cortx-motr ``desim/ut/chs_test.c``).
* ``hdd-10k`` uses 0.5 / 4.5 / 9 ms at 10,000 rpm and 67-124 MB/s (Seagate Savvio 10K.3 data
  sheet range).
* ``hdd-7k2`` uses 1.0 / 8.5 / 16 ms at 7,200 rpm, 60-140 MB/s: a nearline SATA drive.
* Rules of thumb to check these against: 75-100, 125-150 and 175-210 random IOPS at queue
  depth 1 for 7.2k, 10k and 15k drives (Wikipedia "IOPS").
* ``ssd`` is a SATA data-centre SSD: 94K random 4 KiB reads and 65K random writes per second,
  560/530 MB/s sequential (Kingston DC600M, Puget Systems review), and 63 us mean latency at
  queue depth 1 (an fio log in shaojwa/tools). Six parallel units at 58 us per read give
  about 94K IOPS.
* Capacities are vendor gigabytes (10^9 bytes), written here in bytes.
* Per-command drive overhead of 0.1 ms is an estimate in the range 0.1-0.5 ms given for
  modern drives; drive command queues of 32 (NCQ) and 64 (SAS/FC TCQ) are typical.
"""

from __future__ import annotations

from typing import Any

DRIVE_PROFILES: dict[str, dict[str, Any]] = {
    "hdd-15k": {
        "model": "hdd",
        "rpm": 15000,
        "track_to_track": "0.2ms",
        "average_seek": "3.4ms",
        "full_stroke": "6.6ms",
        "media_rate_outer": "204MB/s",
        "media_rate_inner": "122MB/s",
        "capacity": 450_000_000_000,
        "overhead": "0.1ms",
        "queue_depth": 64,
    },
    "hdd-10k": {
        "model": "hdd",
        "rpm": 10000,
        "track_to_track": "0.5ms",
        "average_seek": "4.5ms",
        "full_stroke": "9ms",
        "media_rate_outer": "124MB/s",
        "media_rate_inner": "67MB/s",
        "capacity": 300_000_000_000,
        "overhead": "0.1ms",
        "queue_depth": 64,
    },
    "hdd-7k2": {
        "model": "hdd",
        "rpm": 7200,
        "track_to_track": "1ms",
        "average_seek": "8.5ms",
        "full_stroke": "16ms",
        "media_rate_outer": "140MB/s",
        "media_rate_inner": "60MB/s",
        "capacity": 1_000_000_000_000,
        "overhead": "0.1ms",
        "queue_depth": 32,
    },
    "ssd": {
        "model": "ssd",
        "units": 6,
        "read_time": "58us",
        "write_time": "85us",
        "bandwidth": "560MB/s",
        "capacity": 960_000_000_000,
    },
}
"""Drive profiles by name; values are unit strings as a user would write them."""
