"""Profiles of today's hardware: flash drives by datasheet, 8-32GFC HBAs, all-flash arrays.

Every number has its origin beside it (:mod:`sanpath.spec.profiles.origin`). A figure is
``sourced`` only where a copy of the document was read ("retrieved") and the note names it
with its date; a vendor figure remembered but not read in a copy is ``assumed`` and says "as
recalled": the right order and, to our knowledge, the published value, but check it against
the vendor's current datasheet before relying on it.

Arrays use the scenario format's one controller stage: a dual-controller array's ceiling
is written as ``cores`` servers of ``io_time`` each, with ``io_time`` the controllers' part
of the unloaded latency and ``cores = ceiling x io_time`` (two controllers together; issue 29
adds dual controllers). Drive count and type and cache size are the installation's (the
scenario's pools and cache): :data:`ABOUT` gives the vendor's configuration for reference.
"""

from __future__ import annotations

from typing import Any

from sanpath.spec.profiles.origin import Origin, assumed, field_paths, sourced

RECALLED = "as recalled, not retrieved; check the vendor's current brief"

# --------------------------------------------------------------------------------------------
# Flash drives (model: flash)
# --------------------------------------------------------------------------------------------

_DEPTH256 = assumed(
    "the figure's test depth: enterprise NVMe datasheets quote 4 KiB random IOPS at 256 "
    "outstanding (Micron, 'Micron 7500' blog, 2023: 'at queue depth (QD) 256'); this one's "
    "footnote was not at hand"
)
_DEPTH32_SATA = assumed("SATA NCQ holds 32 commands: the deepest a SATA datasheet can test")
_SEQ = assumed("sequential figures taken at 128 KiB, 32 outstanding (the usual datasheet test)")


def _flash(
    interface: dict[str, Any],
    cell: str,
    read_iops: float,
    write_iops: float,
    read_latency: str,
    write_latency: str,
    read_rate: str,
    write_rate: str,
    capacity: int,
    iops_depth: int = 256,
) -> dict[str, Any]:
    return {
        "model": "flash",
        "interface": interface,
        "cell": cell,
        "read_iops": read_iops,
        "write_iops": write_iops,
        "iops_depth": iops_depth,
        "read_latency": read_latency,
        "write_latency": write_latency,
        "read_rate": read_rate,
        "write_rate": write_rate,
        "seq_block": "128KiB",
        "seq_depth": 32,
        "capacity": capacity,
    }


_FIELDS = (
    "interface.kind",
    "interface.gen",
    "interface.lanes",
    "interface.ports",
    "cell",
    "read_iops",
    "write_iops",
    "read_latency",
    "write_latency",
    "read_rate",
    "write_rate",
    "capacity",
)
_GROUPS = {
    "interface": ("interface.kind", "interface.gen", "interface.lanes", "interface.ports"),
    "latency": ("read_latency", "write_latency"),
    "rates": ("read_rate", "write_rate"),
    "iops": ("read_iops", "write_iops"),
}


def _origins(default: Origin, depth: Origin = _DEPTH256, **given: Origin) -> dict[str, Origin]:
    """Every datasheet field from ``default``, except those ``given`` (a field, or a group of
    :data:`_GROUPS`: ``interface``, ``latency``, ``rates``, ``iops``)."""
    out = dict.fromkeys(_FIELDS, default)
    out.update(iops_depth=depth, seq_block=_SEQ, seq_depth=_SEQ)
    for key, origin in given.items():
        out.update(dict.fromkeys(_GROUPS.get(key, (key,)), origin))
    return out


_NVME4 = {"kind": "nvme", "gen": 4, "lanes": 4}

FLASH_DRIVES: dict[str, dict[str, Any]] = {
    "intel-p4510": _flash(
        {"kind": "nvme", "gen": 3, "lanes": 4},
        "tlc",
        636_500,
        111_500,
        "77us",
        "18us",
        "3000MB/s",
        "2900MB/s",
        4_000_000_000_000,
    ),
    "solidigm-d7-p5510": _flash(
        _NVME4,
        "tlc",
        930_000,
        190_000,
        "82us",
        "15us",
        "6500MB/s",
        "4200MB/s",
        7_680_000_000_000,
    ),
    "samsung-pm9a3": _flash(
        _NVME4,
        "tlc",
        900_000,
        200_000,
        "85us",
        "20us",
        "6500MB/s",
        "3500MB/s",
        7_680_000_000_000,
    ),
    "micron-7450-pro": _flash(
        _NVME4,
        "tlc",
        1_000_000,
        180_000,
        "80us",
        "15us",
        "6800MB/s",
        "5300MB/s",
        7_680_000_000_000,
    ),
    "micron-9400-pro": _flash(
        _NVME4,
        "tlc",
        1_600_000,
        300_000,
        "70us",
        "10us",
        "7000MB/s",
        "7000MB/s",
        7_680_000_000_000,
    ),
    "kioxia-cm7": _flash(
        {"kind": "nvme", "gen": 5, "lanes": 4},
        "tlc",
        3_000_000,
        1_060_000,
        "27us",
        "10us",
        "13500MB/s",
        "9700MB/s",
        3_840_000_000_000,
    ),
    "solidigm-d5-p5336": _flash(
        _NVME4,
        "qlc",
        1_005_000,
        38_000,
        "110us",
        "30us",
        "7000MB/s",
        "3300MB/s",
        61_440_000_000_000,
    ),
    "samsung-pm1643a": _flash(
        {"kind": "sas", "gen": 3, "ports": 2},
        "tlc",
        450_000,
        90_000,
        "100us",
        "30us",
        "2100MB/s",
        "2000MB/s",
        3_840_000_000_000,
    ),
    "kingston-dc600m": _flash(
        {"kind": "sata"},
        "tlc",
        94_000,
        65_000,
        "63us",
        "30us",
        "560MB/s",
        "530MB/s",
        960_000_000_000,
        iops_depth=32,
    ),
}
"""Flash drives by datasheet (``model: flash``)."""

_KIOXIA = (
    "a Kioxia Gen5 x4 enterprise SSD of the CM7 family shown at CFM 2023: 13.5 GB/s read, "
    "9.7 GB/s write, 3M random reads/s, 1.06M random writes/s, read latency 27 us "
    "(TechPowerUp news 306397, 2023, via modern-parameters.md)"
)
_P4500 = (
    "the P4500 4 TB on the same controller gives 645K / 62.5K random 4 KiB IOPS, 3.2 / 1.8 "
    "GB/s and 115 / 20 us random latency (Lenovo product guide 4XB7A08539, retrieved)"
)
_P5500 = (
    "its predecessor D7-P5500 7.68 TB gives 7,000 / 4,300 MB/s and 1M / 130K random 4 KiB "
    "IOPS (Intel launch, AnandTech via geektopia.es, 2020-06-18, retrieved)"
)
_PM1643 = (
    "the PM1643 30.72 TB (2018) gives 400K / 50K random IOPS and 2,100 / 1,700 MB/s "
    "(Samsung press release via StorageReview, 2018-02, retrieved)"
)
_PUGET = (
    "Kingston SEDC600M/960G: 94K / 65K random 4 KiB IOPS, 560 / 530 MB/s, SATA 6 Gb/s, 960 GB "
    "(Puget Systems parts page, retrieved; parameters.md 1.7)"
)
_COMPUTERBASE_9400 = "ComputerBase, 'Micron 9400 SSD', 2023-01, retrieved"
_STH_7450 = "ServeTheHome 'Micron 7450 SSDs launched', 2022, retrieved"

FLASH_ORIGINS: dict[str, dict[str, Origin]] = {
    "intel-p4510": _origins(
        assumed(
            "Intel SSD DC P4510 4 TB product brief (2018) as recalled, not retrieved: 636.5K / "
            "111.5K random 4 KiB IOPS, 3,000 / 2,900 MB/s, 77 / 18 us, PCIe 3.1 x4; for "
            f"comparison {_P4500}"
        ),
        cell=sourced("64-layer 3D TLC (AnandTech, 'Intel SSD DC P4510 review', 2018-02-15)"),
    ),
    "solidigm-d7-p5510": _origins(
        assumed(
            "Intel/Solidigm D7-P5510 7.68 TB product brief (2021) as recalled, not retrieved: "
            "930K / 190K random 4 KiB IOPS, 6,500 / 4,200 MB/s, 82 / 15 us, PCIe 4.0 x4, "
            f"144-layer TLC; {_P5500}"
        ),
    ),
    "samsung-pm9a3": _origins(
        sourced(
            "Samsung PM9A3 press data sheet (OCP summit, May 2020; heise.de 4720224 and "
            "computerbase.de 2020-05, retrieved): U.2 7.68 TB, 6,500 / 3,500 MB/s, 900K / 200K "
            "random IOPS, PCIe 4.0 x4, V-NAND V6 TLC"
        ),
        latency=assumed(
            "not in the press data sheet: 85 us read / 20 us write, the level of the other "
            "PCIe 4.0 TLC drives here"
        ),
    ),
    "micron-7450-pro": _origins(
        assumed(
            "Micron 7450 PRO U.3 7.68 TB product brief (2022) as recalled, not retrieved; "
            f"{_STH_7450} says writes reach 'up to 5.6GB/s for the higher-speed drives'"
        ),
        read_rate=sourced(f"6.8 GB/s: 'generally around 6.8GB/s' ({_STH_7450})"),
        read_iops=sourced(
            "1M: 'up to 6.8 GB/s and 1 million IOPS', U.3 and high capacities (techunwrapped, "
            "'Micron 7450', 2022, retrieved; modern-parameters.md)"
        ),
        cell=sourced(f"176-layer TLC ({_STH_7450})"),
        interface=sourced(f"PCIe Gen4 x4 NVMe ({_STH_7450})"),
        capacity=sourced("7.68 TB U.3 (TweakTown, 'Micron 7450 PRO 7.68TB' review, 2022)"),
    ),
    "micron-9400-pro": _origins(
        assumed(
            "Micron 9400 PRO 7.68 TB product brief (2023) as recalled, not retrieved: 1.6M / "
            "300K random IOPS, 70 / 10 us"
        ),
        rates=sourced(f"7,000 MB/s read and write, every capacity ({_COMPUTERBASE_9400})"),
        read_iops=assumed(
            f"1.6M: the series' 'up to 1.6 million' ({_COMPUTERBASE_9400}); the 7.68 TB point's "
            "own figure was not found"
        ),
        cell=sourced(f"176-layer TLC ({_COMPUTERBASE_9400})"),
        interface=sourced(f"PCIe 4.0 x4 ({_COMPUTERBASE_9400})"),
        capacity=sourced(f"7.68 TB, the smallest 9400 PRO ({_COMPUTERBASE_9400})"),
    ),
    "kioxia-cm7": _origins(
        sourced(_KIOXIA),
        write_latency=assumed("not given: 10 us, a power-safe write buffer's acknowledgement"),
        capacity=assumed("3.84 TB, a common capacity point of the family"),
        cell=assumed("TLC: not given in the news item; Kioxia's enterprise line is TLC"),
    ),
    "solidigm-d5-p5336": _origins(
        sourced(
            "Solidigm D5-P5336 61.44 TB: 1,005,000 / 38,000 random 4 KiB IOPS, 7,000 / 3,300 "
            "MB/s (architecting.it, '100TB SSDs', 2024-08, retrieved, quoting Solidigm's "
            "figures beside the 122.88 TB model's 930K / 25K); PCIe 4.0 x4, 192-layer QLC "
            "(hwcooling.net, 2024-11, retrieved)"
        ),
        read_latency=assumed(
            "110 us: not in the sources read; a QLC page read takes longer than a TLC one, so "
            "above the 70-85 us of the TLC drives here"
        ),
        write_latency=assumed(
            "30 us: not in the sources read; a power-safe buffer acknowledges the write, but "
            "a 4 KiB write into a 16 KiB indirection unit first reads the unit, so above the "
            "10-20 us of the TLC drives"
        ),
    ),
    "samsung-pm1643a": _origins(
        assumed(
            "Samsung PM1643a 3.84 TB SAS data sheet (2019) as recalled, not retrieved: 450K / "
            f"90K random IOPS, 2,100 / 2,000 MB/s over both ports; {_PM1643}"
        ),
        latency=assumed("100 us read / 30 us write: SAS adds protocol time to NVMe's"),
        interface=assumed(
            "SAS-3 12 Gb/s, dual port (the PM1643's interface, Samsung 2018); the figures above "
            "need both ports"
        ),
    ),
    "kingston-dc600m": _origins(
        sourced(_PUGET),
        depth=_DEPTH32_SATA,
        read_latency=assumed(
            "63 us: the mean depth-1 4 KiB read of an unnamed SATA data-centre SSD in an fio log "
            "(shaojwa/tools, parameters.md 1.7), not a Kingston figure"
        ),
        write_latency=assumed("30 us: a power-safe write buffer over SATA's AHCI path"),
        cell=assumed("TLC: not on the parts page; the DC600M is a 3D TLC drive as recalled"),
    ),
}

FLASH_ORIGINS = {
    name: {k: v for k, v in found.items() if k in field_paths(FLASH_DRIVES[name])}
    for name, found in FLASH_ORIGINS.items()
}

# --------------------------------------------------------------------------------------------
# HBAs: per-port command processors, command time = 1 / published IOPS per port
# --------------------------------------------------------------------------------------------


def _hba(ports: int, speed: str, iops: float, depth: int = 64) -> dict[str, Any]:
    return {
        "ports": ports,
        "speed": speed,
        "queue_depth": depth,
        "queue_target": "lun",
        "command_time": f"{1e6 / iops:.4g}us",
        "processor": "port",
    }


HBA_PORT_IOPS: dict[str, float] = {
    "emulex-lpe12002": 200_000,
    "emulex-lpe16002": 1_000_000,
    "emulex-lpe32002": 1_600_000,
    "emulex-lpe35002": 4_800_000,
    "qlogic-qle2692": 1_300_000,
    "qlogic-qle2772": 2_600_000,
}
"""Published small-I/O commands per second of one port (origins below)."""

_SPEEDS = {
    "emulex-lpe12002": "8GFC",
    "emulex-lpe16002": "16GFC",
    "emulex-lpe32002": "32GFC",
    "emulex-lpe35002": "32GFC",
    "qlogic-qle2692": "16GFC",
    "qlogic-qle2772": "32GFC",
}

MODERN_HBAS: dict[str, dict[str, Any]] = {
    name: _hba(2, _SPEEDS[name], iops) for name, iops in HBA_PORT_IOPS.items()
}
"""HBAs of the 8, 16 and 32GFC generations (Gen 5 to Gen 7)."""

_LPFC = sourced("lpfc lun_queue_depth 64 since 2020 (kernel commit 763a18cbf79b)")
_QLA = sourced("ql2xmaxqdepth 'Default is 64' (Linux qla_os.c)")
_PER_PORT = assumed(
    "one processor per port at the published per-port rate: multi-core cards (the LPe16002 "
    "has an 8-core processor) are modelled as independent ports"
)
_EMULEX_BLOG = (
    "Emulex 'Speed bump' blog, 2011-10-10 (retrieved): the LPe16002 single port does 'just "
    "over 1 million' IOPS, '5x that of previous adapters', 1,576 MB/s against 789 MB/s for "
    "the 8GFC LPe12002"
)


_DELL_GEN7 = (
    "Broadcom/Dell 'Gen 7 HBA' test report (Dell solution resources, retrieved): 'nearly 3x as "
    "many IOPS across two ports', 'about 1/3 latency'"
)


def _hba_origins(speed: Origin, iops: Origin, depth: Origin) -> dict[str, Origin]:
    return {
        "ports": assumed("two ports: the dual-port model of its family (the last digit, 2)"),
        "speed": speed,
        "queue_depth": depth,
        "queue_target": assumed("per LUN, as the Linux drivers count"),
        "command_time": iops,
        "processor": _PER_PORT,
    }


MODERN_HBA_ORIGINS: dict[str, dict[str, Origin]] = {
    "emulex-lpe12002": _hba_origins(
        sourced(f"8GFC ({_EMULEX_BLOG})"),
        sourced(f"1 / 200,000 s: the blog's '5x' below the LPe16002's 1M ({_EMULEX_BLOG})"),
        _LPFC,
    ),
    "emulex-lpe16002": _hba_origins(
        sourced(f"16GFC ({_EMULEX_BLOG})"), sourced(f"1 / 1,000,000 s ({_EMULEX_BLOG})"), _LPFC
    ),
    "emulex-lpe32002": _hba_origins(
        assumed(f"32GFC: Emulex Gen 6 ({RECALLED})"),
        assumed(f"1 / 1.6M s: 'up to 1.6 million IOPS per port' (Broadcom brief, {RECALLED})"),
        _LPFC,
    ),
    "emulex-lpe35002": _hba_origins(
        assumed(f"32GFC: Emulex Gen 7, whose Fibre Channel generation is 32GFC ({_DELL_GEN7})"),
        assumed(
            "1 / 4.8M s: three times the Gen 6 card's 1.6M per port; the 3x is sourced "
            f"({_DELL_GEN7}), the 1.6M is {RECALLED}"
        ),
        _LPFC,
    ),
    "qlogic-qle2692": _hba_origins(
        assumed(f"16GFC: Marvell QLogic 2690 series, Gen 6 ({RECALLED})"),
        assumed(f"1 / 1.3M s: 'up to 1.3 million IOPS' per port (2690 brief, {RECALLED})"),
        _QLA,
    ),
    "qlogic-qle2772": _hba_origins(
        assumed(f"32GFC: Marvell QLogic 2770 series, Gen 7 ({RECALLED})"),
        assumed(f"1 / 2.6M s: 'up to 2.6 million IOPS' per port (2770 brief, {RECALLED})"),
        _QLA,
    ),
}

# --------------------------------------------------------------------------------------------
# All-flash arrays
# --------------------------------------------------------------------------------------------


def _afa(
    port_queue: int | None, ceiling: float, io_time_us: float, speed: str = "32GFC"
) -> dict[str, Any]:
    return {
        "port_speed": speed,
        "port_queue_depth": port_queue,
        "lun_queue_depth": None,
        "controller": {"cores": round(ceiling * io_time_us * 1e-6), "io_time": f"{io_time_us}us"},
    }


FLASH_ARRAYS: dict[str, dict[str, Any]] = {
    "netapp-aff-a900": _afa(2048, 950_000, 150),
    "pure-flasharray-x50r3": _afa(None, 400_000, 150),
    "pure-flasharray-c60": _afa(None, 250_000, 500),
    "ibm-flashsystem-9200": _afa(2048, 4_500_000, 70),
    "dell-powerstore-9200t": _afa(None, 1_000_000, 200),
}
"""All-flash arrays: front-end queue limits and the controllers' ceiling and floor."""

ARRAY_CEILINGS: dict[str, float] = {
    "netapp-aff-a900": 950_000,
    "pure-flasharray-x50r3": 400_000,
    "pure-flasharray-c60": 250_000,
    "ibm-flashsystem-9200": 4_500_000,
    "dell-powerstore-9200t": 1_000_000,
}
"""The controller ceiling each array profile is written from, commands per second."""

_NO_QUEUE = sourced(
    "none: 'we do not have a volume or target limit' and no SCSI BUSY (Pure SE blog, "
    "kiwistorageguy.com 2015; Cody Hosterman, Pure blog; via modern-parameters.md)"
)
_NO_LUN = assumed("no per-LUN limit published for this array")
_CORES = "cores = ceiling x io_time: the two controllers' ceiling in one stage (issue 29)"


def _afa_origins(speed: Origin, queue: Origin, ceiling: Origin, floor: Origin) -> dict[str, Origin]:
    return {
        "port_speed": speed,
        "port_queue_depth": queue,
        "lun_queue_depth": _NO_LUN,
        "controller.cores": ceiling,
        "controller.io_time": floor,
    }


FLASH_ARRAY_ORIGINS: dict[str, dict[str, Origin]] = {
    "netapp-aff-a900": _afa_origins(
        sourced(
            "32 Gb/s FC target ports: FC-NVMe 'AFF with 32G FC ports' (NetApp ONTAP docs, "
            "fc-nvme-config-concept.adoc, ONTAP 9.4+; modern-parameters.md)"
        ),
        sourced("2048 per FC target port (NetApp ONTAP 'calculate queue depth')"),
        sourced(
            "950K: SPECstorage 2020_swbuild, 2-node AFF A900, 949,973 ops/s at 4.9 ms "
            f"(spec.org storage2020-20231002-00055, 2023; retrieved); file operations, not "
            f"4 KiB blocks. {_CORES}"
        ),
        assumed(
            "150 us of controller time per command: the A90's lightest SPECstorage point "
            "is 0.4 ms end to end, of which drives and fabric take the rest"
        ),
    ),
    "pure-flasharray-x50r3": _afa_origins(
        assumed("32 Gb/s FC: the current FC option"),
        _NO_QUEUE,
        assumed(f"400K: Pure publishes no IOPS ceiling; an estimate for //X50R3. {_CORES}"),
        assumed(
            "150 us: Pure's //X latency estimate is 0.4-0.9 ms at 70/30 32 KiB (Pure support, "
            "'//C performance expectations vs //X', retrieved); the controllers' share"
        ),
    ),
    "pure-flasharray-c60": _afa_origins(
        assumed("32 Gb/s FC: the current FC option"),
        _NO_QUEUE,
        assumed(f"250K: Pure publishes no IOPS ceiling; an estimate for //C60. {_CORES}"),
        assumed(
            "500 us: Pure's //C60 estimate is 3.0-4.0 ms at 70/30 32 KiB (same page, "
            "retrieved), most of it the QLC drives"
        ),
    ),
    "ibm-flashsystem-9200": _afa_origins(
        assumed("32 Gb/s FC: the current FC option"),
        sourced("total queue depth on one FC port at most 2048 (IBM FlashSystem 8.4 docs)"),
        assumed(f"4.5M cache-hit IOPS per control enclosure ({RECALLED}). {_CORES}"),
        assumed(f"70 us: 'latency as low as 70 us' ({RECALLED})"),
    ),
    "dell-powerstore-9200t": _afa_origins(
        assumed("32 Gb/s FC: the current FC option"),
        assumed("no per-port limit found in Dell's documents: unlimited"),
        assumed(f"1M: no published ceiling found; an estimate for the 9200T pair. {_CORES}"),
        assumed("200 us: a typical all-flash controller floor; calibrate to a measurement"),
    ),
}

ABOUT: dict[str, str] = {
    "netapp-aff-a900": "NetApp AFF A900: HA pair (2 controllers), 32GFC / NVMe-FC, NVMe SSDs",
    "pure-flasharray-x50r3": "Pure FlashArray //X50R3: 2 controllers, DirectFlash TLC modules",
    "pure-flasharray-c60": "Pure FlashArray //C60: 2 controllers, DirectFlash QLC modules",
    "ibm-flashsystem-9200": "IBM FlashSystem 9200: 2 canisters, FlashCore modules, NVMe",
    "dell-powerstore-9200t": "Dell PowerStore 9200T: 2 nodes, NVMe SSDs",
}
"""What each array is, for the listing; the pools and cache are the scenario's."""
