"""Origins of the numbers of the profiles sanpath shipped before the flash work (2005-2013
hardware): the sources the profiles' docstring always named, now field by field."""

from __future__ import annotations

from sanpath.spec.profiles.origin import Origin, assumed, fitted, sourced

_CHEETAH = sourced(
    "Seagate Cheetah 15K.7 ST3450857SS product manual 100516226 (2009), as quoted in "
    "Seagate/cortx-motr desim/ut/chs_test.c"
)
_SAVVIO = sourced(
    "Seagate Savvio 10K.3 data sheet (2008): 10,000 rpm, 67-124 MB/s sustained (parameter "
    "catalogue 1.5, datasheet examples)"
)
_SEEK_10K = assumed(
    "0.5 / 4.5 / 9 ms: a generic 10k SAS drive's seeks, not a Savvio 10K.3 figure (its data "
    "sheet was not retrieved); checked against 125-150 random IOPS at depth 1 (Wikipedia "
    "'IOPS'): the model gives 131"
)
_CHEETAH_RATE = assumed(
    "122-204 MB/s sustained: the Cheetah 15K.7 manual's figure as recalled; the chs_test.c "
    "comment gives its seeks, speed and geometry, not its media rate"
)
_OVERHEAD = assumed(
    "per-command drive overhead: 0.1 ms, the low end of the 0.1-0.5 ms given for "
    "modern drives (parameter catalogue 1.5, unverified there)"
)
_SPTF = assumed(
    "rotational position ordering, as drive makers describe it (US patent 5,729,718); no "
    "Seagate document gives the window (docs/model.md, command queueing by era)"
)
_WINDOW_15K = fitted(
    "to the measured curve of a Cheetah 15K.7 (Peter Xu, 'Performance measurement of SAS 15K "
    "drive', 2013: 355 / 862 / 952 / 1015 random 4 KiB reads/s at depth 1 / 16 / 32 / 64): "
    "within 10% from depth 8 on, where the whole queue is 18% high at 32 and 25% at 64 "
    "(docs/model.md, command queueing by era)"
)
_WINDOW_10K = assumed(
    "16 commands, the window fitted to the 15k drive of the same era (Cheetah 15K.7, Xu 2013): "
    "no measured depth curve of a Savvio 10K.3 was found; it gives 2.1x from depth 1 to 32 "
    "over the whole disk, within the 'more than doubling' of Savvio drives with deep queues "
    "(Wikipedia 'IOPS')"
)
_NEARLINE = assumed(
    "a generic nearline 7,200 rpm SATA drive: no single data sheet; checked against the rule of "
    "thumb of 75-100 random IOPS at depth 1 (Wikipedia 'IOPS')"
)
_MECHANICS = (
    "rpm",
    "track_to_track",
    "average_seek",
    "full_stroke",
    "media_rate_outer",
    "media_rate_inner",
    "capacity",
)
_RATES = ("media_rate_outer", "media_rate_inner")
_SEEKS = ("track_to_track", "average_seek", "full_stroke")
_WRITE_SEEKS = ("write_track_to_track", "write_average_seek", "write_full_stroke")
_TCQ = assumed("64 commands: typical SAS/FC tagged queue (parameter catalogue 1.5)")
_DC600M = "Kingston DC600M figures on the Puget Systems parts page (parameters.md 1.7)"
_LUN_FORMULA = sourced(
    "32 + 14 x data drives: EMC's per-LUN limit as quoted in Linchi Shea, 'The QueueDepth "
    "setting of an HBA' (sqlblog.com, 2007, seed post 000)"
)
_LP10000 = sourced(
    "2 Gb/s: 'Emulex LightPulse LP10000 2 Gigabit PCI Fibre Channel Adapter' (Linchi Shea, "
    "sqlblog.com, 2007, seed post 000)"
)
_AB379B = sourced(
    "'2-port 4 Gb/s AB379B Fibre Channel adapter' (HP, 'HP-UX 11i v3 mass storage I/O "
    "performance improvements' white paper, seed post 004)"
)
_WRITE_ASIDE = sourced(
    "write-aside 2048 blocks of 512 bytes, 1 MiB, the CLARiiON and VNX default (Lonny "
    "Niederstadt, 2013, seed post 003, citing EMC white paper h5773)"
)

LEGACY: dict[str, dict[str, Origin]] = {
    "hdd-15k": {
        **dict.fromkeys(_MECHANICS, _CHEETAH),
        **dict.fromkeys(_WRITE_SEEKS, _CHEETAH),
        **dict.fromkeys(_RATES, _CHEETAH_RATE),
        "overhead": _OVERHEAD,
        "queue_depth": _TCQ,
        "scheduler": _SPTF,
        "reorder_window": _WINDOW_15K,
    },
    "seagate-cheetah-15k7": {
        **dict.fromkeys(_MECHANICS, _CHEETAH),
        **dict.fromkeys(_WRITE_SEEKS, _CHEETAH),
        **dict.fromkeys(_RATES, _CHEETAH_RATE),
        "overhead": _OVERHEAD,
        "queue_depth": _TCQ,
        "scheduler": _SPTF,
        "reorder_window": _WINDOW_15K,
    },
    "hdd-10k": {
        **dict.fromkeys(_MECHANICS, _SAVVIO),
        **dict.fromkeys(_SEEKS, _SEEK_10K),
        "capacity": assumed("300 GB: the Savvio 10K.3's largest capacity point as recalled"),
        "overhead": _OVERHEAD,
        "queue_depth": _TCQ,
        "scheduler": _SPTF,
        "reorder_window": _WINDOW_10K,
    },
    "hdd-7k2": {
        **dict.fromkeys(_MECHANICS, _NEARLINE),
        "overhead": _OVERHEAD,
        "queue_depth": sourced("SATA NCQ: 32 commands (Serial ATA 2.6 specification, 2007)"),
        "scheduler": _SPTF,
        "reorder_window": fitted(
            "to the about 2x gain from depth 1 to 32 of 7.2k NCQ drives (Wikipedia 'IOPS'; PC "
            "Perspective, WD 6TB Black / Red Pro review, 2015): 2.04 with 16, 2.43 with the "
            "whole queue"
        ),
    },
    "ssd": {
        "units": fitted(
            f"six units at 58 us per 4 KiB read give about 94K IOPS ({_DC600M}); in fact the "
            "model gives 58,900 at depth 32 and 102 us at depth 1 (see the flash profile "
            "kingston-dc600m for a drive that meets both)"
        ),
        "read_time": fitted(f"with units, to 94K random 4 KiB reads/s ({_DC600M})"),
        "write_time": fitted(f"with units, to about 65K random 4 KiB writes/s ({_DC600M})"),
        "bandwidth": sourced(f"560 MB/s sequential read ({_DC600M})"),
        "capacity": sourced(f"960 GB capacity point ({_DC600M})"),
    },
    "emulex-lp10000": {
        "ports": assumed("one port: the single-port LP10000 (the dual-port card is LP10000DC)"),
        "speed": _LP10000,
        "queue_depth": sourced(
            "Storport QueueDepth 32, 'the vendor suggested default' (Linchi Shea, 2007)"
        ),
        "queue_target": sourced(
            "Emulex QueueTarget 0 (per LUN), the setting of the seed post (Linchi Shea, 2007)"
        ),
        "max_transfer": sourced(
            "(MaximumSGList - 1) x 4 KiB with MaximumSGList 255: 1016 KiB (HP Data Protector "
            "guide; smallvoid.com; parameters.md 1.3)"
        ),
        "command_time": assumed(
            "no Emulex figure: stand-in from HP's A6826A performance paper (dual 2 Gb/s PCI-X), "
            "35,180 1 KiB reads/s on one port, processor-limited: 1 / 35,180 s = 28 us"
        ),
        "processor": assumed("card: with one port, per port and per card are the same"),
        "pcie.rate": assumed("64-bit/133 MHz PCI-X, 1064 MB/s (parameter catalogue 1.1, [M])"),
    },
    "qlogic-qle2562": {
        "ports": assumed("two ports: the QLE2562 is QLogic's dual-port 8 Gb/s card, as recalled"),
        "speed": assumed("8GFC: the QLE25xx generation, as recalled"),
        "queue_depth": sourced(
            "ql2xmaxqdepth 'Default is 64' (Linux drivers/scsi/qla2xxx/qla_os.c)"
        ),
        "queue_target": assumed("per LUN, as ql2xmaxqdepth counts"),
        "max_transfer": sourced("512 KiB by default (Lonny Niederstadt, 2013)"),
        "command_time": assumed(
            "10 us: the parameter catalogue's figure for a 4 Gb/s HBA of 2008, kept so the "
            "scenarios calibrated with it do not move"
        ),
        "processor": assumed("card: the cautious choice, no paper comparing one port with two"),
    },
    "hp-ab379b": {
        "ports": _AB379B,
        "speed": _AB379B,
        "queue_depth": sourced(
            "HP-UX max_fcp_reqs default 512 (NetApp ONTAP docs, set-queue-depth-task.adoc)"
        ),
        "queue_target": assumed("max_fcp_reqs counted per target port here"),
        "command_time": assumed("10 us: parameter catalogue, 4 Gb/s HBA of 2008"),
        "processor": assumed(
            "per port, inferred from HP's A6826A paper (small I/O doubling with the second "
            "port, processor-limited) and the AB379B paper's 410 to 820 MB/s at 256 KiB"
        ),
        "pcie.rate": assumed("PCI-X 2.0 266 MHz: 2133 MB/s, the AB379B's bus as recalled"),
    },
    "emc-clariion": {
        "port_speed": assumed("4 Gb/s FC: the CX3 generation's front end, as recalled"),
        "port_queue_depth": sourced(
            "2048 per FC port, 'do the math with 1600' (EMC host connectivity guide; 50mu.net, "
            "2011)"
        ),
        "lun_queue_depth": _LUN_FORMULA,
        "cache.write_aside": _WRITE_ASIDE,
        "cache.low_watermark": sourced("60% (emcstorageinfo.com 2008; storagenerve.com 2009)"),
        "cache.high_watermark": sourced("80% (emcstorageinfo.com 2008; storagenerve.com 2009)"),
    },
    "emc-vnx": {
        "port_speed": assumed("8 Gb/s FC: the VNX's front-end modules, as recalled"),
        "port_queue_depth": sourced(
            "2048 per FC port, 'do the math with 1600' (EMC host connectivity guide; 50mu.net, "
            "2011)"
        ),
        "lun_queue_depth": _LUN_FORMULA,
        "cache.write_aside": _WRITE_ASIDE,
        "cache.low_watermark": sourced("60% (emcstorageinfo.com 2008)"),
        "cache.high_watermark": sourced("80% (emcstorageinfo.com 2008)"),
    },
    "hitachi-ams": {
        "port_queue_depth": sourced("512 per port (Hitachi README_queue_depth.txt, DF AMS/WMS)"),
        "lun_queue_depth": sourced("at most 32 per LUN (Hitachi README_queue_depth.txt, DF)"),
    },
    "hitachi-usp-v": {
        "port_speed": assumed("4 Gb/s FC: the USP V's ports, as recalled"),
        "port_queue_depth": sourced("2048 per port (Hitachi README_queue_depth.txt)"),
        "lun_queue_depth": sourced("at most 32 per LUN (Hitachi README_queue_depth.txt)"),
    },
    "netapp-ontap-fc": {
        "port_queue_depth": sourced(
            "2048 per FC target port (NetApp ONTAP SAN configuration, 'calculate queue depth')"
        ),
    },
}
"""Origins of the pre-flash profiles' numbers, by profile and dotted field."""
