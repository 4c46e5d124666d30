"""Named hardware profiles: drives, HBAs and arrays users can name instead of writing numbers.

A profile is plain data: the fields of a scenario section plus the sources they come from. A
scenario names one (``drive: hdd-15k``) or starts from one and changes a field
(``drive: {profile: hdd-15k, queue_depth: 64}``, ``hbas: [{profile: qlogic-qle2562,
max_transfer: 2MiB}]``, ``array: {profile: emc-vnx, pools: ..., luns: ...}``). Fields the
scenario writes win over the profile's; an array profile's ``cache`` fields are merged with
the scenario's ``cache`` mapping field by field.

A profile holds what a vendor or driver documents. What differs between installations (the
PCIe slot a card sits in, cache size, the drives behind the array) stays in the scenario. An
HBA profile also states where the card processes commands (``processor``) and how long it
takes per command (``command_time``); where no published figure was found, the value is an
assumption and the list below says so and why.

Every number of every profile says where it comes from: ``sourced`` (the document, table and
date), ``assumed`` (why this value) or ``fitted`` (to which experiment); :data:`PROVENANCE`
holds them by profile and dotted field (:mod:`sanpath.spec.profiles.origin`), ``sanpath
profiles NAME`` prints them. Today's hardware (flash drives given by their datasheets,
8-32GFC HBAs, all-flash arrays) is in :mod:`sanpath.spec.profiles.modern`; the origins of
the older profiles below are in :mod:`sanpath.spec.profiles.legacy`.

Numbers and their sources of the older profiles (see also ``docs/model.md``):

* Seek curves use three datasheet points, track-to-track, average and full stroke. The
  curve between them is fitted in :mod:`sanpath.sim.components.drive`.
* ``hdd-15k`` is a Seagate Cheetah 15K.7 (ST3450857SS): 0.2 / 3.4 / 6.6 ms read seeks and
  0.44 / 3.9 / 7.4 ms write seeks, 15,000 rpm, 450 GB, 122-204 MB/s sustained (Seagate
  product manual 100516226, as quoted in Seagate/cortx-motr ``desim/ut/chs_test.c``).
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

HBAs (:data:`HBA_PROFILES`):

* ``emulex-lp10000``: Emulex LightPulse LP10000, one 2 Gb/s FC port on 64-bit/133 MHz PCI-X
  (1064 MB/s, shared by the card), Windows Storport miniport: QueueDepth 32 by default ("the
  vendor suggested default, which is 32 for this Emulex card", Linchi Shea, 2007), counted
  per LUN (QueueTarget 0); largest transfer (MaximumSGList - 1) x 4 KiB with MaximumSGList at
  its maximum of 255, 1016 KiB (HP Data Protector guide; smallvoid.com).
  Processing: ``card`` (the card has a single port, so per port and per card are the same).
  ``command_time`` 28 us is a stand-in from a card of the same generation, not an Emulex
  figure: HP's performance paper for the A6826A (dual-channel 2 Gb/s PCI-X) measured 35,180
  1 KiB reads per second on one port, "limited by the processor used on the adapter", that
  is 1 / 35,180 s = 28 us per command. No Emulex per-command figure was found.
* ``qlogic-qle2562``: QLogic QLE2562, two 8 Gb/s FC ports; 64 commands per LUN
  (``ql2xmaxqdepth`` "Default is 64", Linux ``qla_os.c``); largest transfer 512 KiB by
  default, 2 MiB after ``qlfcx64 -tsize /fc /set 2048`` (Lonny Niederstadt, 2013). The PCIe
  slot is the server's: set ``pcie`` in the scenario.
  Processing: ``card`` and ``command_time`` 10 us are assumptions. No QLogic paper measuring
  one port against two at small I/O sizes was found, so the profile keeps the cautious
  choice (a second port adds bandwidth, not command rate) and the per-command time the
  parameter catalogue gives for a 4 Gb/s HBA of 2008; an 8 Gb/s card is unlikely to be
  slower. Set ``processor: port`` to model independent per-port engines.
* ``hp-ab379b``: HP AB379B, two 4 Gb/s FC ports on PCI-X 2.0 266 MHz (2133 MB/s); HP-UX
  ``max_fcp_reqs`` 512 commands per adapter port by default (counted per target port here;
  NetApp host configuration documentation).
  Processing: ``port``. HP's AB379B performance paper (Integrity servers) shows 256 KiB
  reads and writes scaling from 410 MB/s on one port to 820 MB/s on two, and HP's paper for
  the previous dual-channel card, the A6826A, shows small-I/O rates doubling with the second
  port (1 KiB reads 35,180 to 70,032 per second, writes 20,619 to 41,221) while "limited by
  the processor used on the adapter": each channel has its own processor. The AB379B
  paper's own small-I/O figures were not retrieved, so per port is inferred from that
  design. ``command_time`` 10 us is the parameter catalogue's figure for a 4 Gb/s HBA of
  2008 (an assumption for this card; the A6826A's 28 us is the 2 Gb/s generation).

Arrays (:data:`ARRAY_PROFILES`):

* ``emc-clariion`` (CX3, 4 Gb/s front end) and ``emc-vnx`` (8 Gb/s): 2048 commands per FC
  port, "do the math with 1600" (EMC connectivity guide; 50mu.net, 2011); per-LUN limit
  32 + 14 x data drives; write cache watermarks 60/80%; write-aside 2048 blocks (1 MiB)
  (EMC CLARiiON best practices; emcstorageinfo.com, 2008).
* ``hitachi-ams``: 512 commands per port, at most 32 per LUN (Hitachi
  ``README_queue_depth.txt``, DF 9500V / AMS / WMS).
* ``hitachi-usp-v``: 2048 commands per port, at most 32 per LUN, 4 Gb/s ports (same source).
* ``netapp-ontap-fc``: 2048 commands per FC target port (NetApp ONTAP SAN configuration,
  "calculate queue depth").
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any

from sanpath.spec.profiles.legacy import LEGACY
from sanpath.spec.profiles.modern import (
    ABOUT,
    FLASH_ARRAY_ORIGINS,
    FLASH_ARRAYS,
    FLASH_DRIVES,
    FLASH_ORIGINS,
    MODERN_HBA_ORIGINS,
    MODERN_HBAS,
)
from sanpath.spec.profiles.origin import Origin, field_paths

__all__ = [
    "ABOUT",
    "ARRAY_PROFILES",
    "DRIVE_PROFILES",
    "HBA_PROFILES",
    "PROVENANCE",
    "Origin",
    "field_paths",
    "origins",
    "with_profile",
]

_HDD_15K: dict[str, Any] = {
    "model": "hdd",
    "rpm": 15000,
    "track_to_track": "0.2ms",
    "average_seek": "3.4ms",
    "full_stroke": "6.6ms",
    "write_track_to_track": "0.44ms",
    "write_average_seek": "3.9ms",
    "write_full_stroke": "7.4ms",
    "media_rate_outer": "204MB/s",
    "media_rate_inner": "122MB/s",
    "capacity": 450_000_000_000,
    "overhead": "0.1ms",
    "queue_depth": 64,
    "scheduler": "sptf",
    "reorder_window": 16,
}
"""A generic 15k RPM disk of the 2010s (the basis of ``hdd-15k`` and the Cheetah 15K.7)."""

DRIVE_PROFILES: dict[str, dict[str, Any]] = {
    "hdd-15k": dict(_HDD_15K),
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
        "scheduler": "sptf",
        "reorder_window": 16,
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
        "scheduler": "sptf",
        "reorder_window": 16,
    },
    "seagate-cheetah-15k7": dict(_HDD_15K),
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
DRIVE_PROFILES.update(copy.deepcopy(FLASH_DRIVES))


HBA_PROFILES: dict[str, dict[str, Any]] = {
    "emulex-lp10000": {
        "ports": 1,
        "speed": "2GFC",
        "queue_depth": 32,
        "queue_target": "lun",
        "max_transfer": "1016KiB",
        "command_time": "28us",
        "processor": "card",
        "pcie": {"rate": "1064MB/s"},
    },
    "qlogic-qle2562": {
        "ports": 2,
        "speed": "8GFC",
        "queue_depth": 64,
        "queue_target": "lun",
        "max_transfer": "512KiB",
        "command_time": "10us",
        "processor": "card",
    },
    "hp-ab379b": {
        "ports": 2,
        "speed": "4GFC",
        "queue_depth": 512,
        "queue_target": "target",
        "command_time": "10us",
        "processor": "port",
        "pcie": {"rate": "2133MB/s"},
    },
}
"""HBA profiles by name (fields of ``hosts.N.hbas.M``)."""
HBA_PROFILES.update(copy.deepcopy(MODERN_HBAS))

_EMC_CACHE = {"write_aside": "1MiB", "low_watermark": 0.6, "high_watermark": 0.8}

ARRAY_PROFILES: dict[str, dict[str, Any]] = {
    "emc-clariion": {
        "port_speed": "4GFC",
        "port_queue_depth": 1600,
        "lun_queue_depth": "clariion",
        "cache": dict(_EMC_CACHE),
    },
    "emc-vnx": {
        "port_speed": "8GFC",
        "port_queue_depth": 1600,
        "lun_queue_depth": "clariion",
        "cache": dict(_EMC_CACHE),
    },
    "hitachi-ams": {"port_queue_depth": 512, "lun_queue_depth": 32},
    "hitachi-usp-v": {"port_speed": "4GFC", "port_queue_depth": 2048, "lun_queue_depth": 32},
    "netapp-ontap-fc": {"port_queue_depth": 2048},
}
"""Array profiles by name (fields of ``array``)."""
ARRAY_PROFILES.update(copy.deepcopy(FLASH_ARRAYS))

PROVENANCE: dict[str, dict[str, Origin]] = {
    **LEGACY,
    **FLASH_ORIGINS,
    **MODERN_HBA_ORIGINS,
    **FLASH_ARRAY_ORIGINS,
}
"""Where each profile number comes from, by profile name and dotted field."""


def origins(name: str) -> dict[str, Origin]:
    """The origin of every field of profile ``name`` (``model``, a kind, is not a number)."""
    fields = DRIVE_PROFILES.get(name) or HBA_PROFILES.get(name) or ARRAY_PROFILES[name]
    known = PROVENANCE.get(name, {})
    return {path: known[path] for path in field_paths(fields) if path != "model" and path in known}


def with_profile(
    value: Any, profiles: Mapping[str, Mapping[str, Any]], nested: tuple[str, ...] = ()
) -> Any:
    """``value`` (a section's mapping) on top of the profile it names, if any.

    The section's own fields win; the ``nested`` mappings (an array's ``cache``) are merged
    field by field. An unknown name is left for the field's own validation to report.
    """
    if not isinstance(value, Mapping) or value.get("profile") not in profiles:
        return value
    merged: dict[str, Any] = copy.deepcopy(dict(profiles[value["profile"]]))
    for key, item in value.items():
        base = merged.get(key)
        if key in nested and isinstance(base, Mapping) and isinstance(item, Mapping):
            merged[key] = {**base, **item}
        else:
            merged[key] = item
    return merged
