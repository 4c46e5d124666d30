"""Profiles of today's hardware: flash drives by datasheet, 8-32GFC HBAs, all-flash arrays.

Every number has its origin beside it (:mod:`sanpath.spec.profiles.origin`). Figures marked
"as recalled" are the vendor's published figures as remembered when the profile was written
(no copy of the document was at hand): they are the right order and, to our knowledge, the
published value, but check them against the vendor's current datasheet before relying on
them. "retrieved" marks figures read in a copy of the source while writing.

Arrays use the scenario format's one controller stage: a dual-controller array's ceiling
is written as ``cores`` servers of ``io_time`` each, with ``io_time`` the controllers' part
of the unloaded latency and ``cores = ceiling x io_time`` (two controllers together; issue 29
adds dual controllers). Drive count and type and cache size are the installation's (the
scenario's pools and cache): :data:`ABOUT` gives the vendor's configuration for reference.
"""

from __future__ import annotations

from typing import Any

from sanpath.spec.profiles.origin import Origin, assumed, field_paths, sourced

RECALLED = "as recalled; check the current datasheet"

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


def _origins(
    sheet: str,
    latency: Origin | None = None,
    write: Origin | None = None,
    depth: Origin = _DEPTH256,
    interface: Origin | None = None,
) -> dict[str, Origin]:
    src = sourced(sheet)
    return {
        "interface.kind": interface or src,
        "interface.gen": interface or src,
        "interface.lanes": interface or src,
        "interface.ports": interface or src,
        "cell": src,
        "read_iops": src,
        "write_iops": write or src,
        "iops_depth": depth,
        "read_latency": latency or src,
        "write_latency": latency or src,
        "read_rate": src,
        "write_rate": write or src,
        "seq_block": _SEQ,
        "seq_depth": _SEQ,
        "capacity": src,
    }


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
        3_840_000_000_000,
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
        1_920_000_000_000,
        iops_depth=32,
    ),
}
"""Flash drives by datasheet (``model: flash``)."""

_KIOXIA = (
    "Kioxia Gen5 x4 enterprise SSD (CM7 family) shown at CFM 2023: 13.5 GB/s read, 9.7 GB/s "
    "write, 3M random reads/s, 1.06M random writes/s, read latency 27 us (TechPowerUp 306397, "
    "via modern-parameters.md, 2023)"
)

FLASH_ORIGINS: dict[str, dict[str, Origin]] = {
    "intel-p4510": _origins(
        f"Intel SSD DC P4510 4 TB product brief (2018; {RECALLED}): 636.5K / 111.5K random "
        "4 KiB IOPS, 3,000 / 2,900 MB/s, 77 / 18 us typical latency, PCIe 3.1 x4, 64-layer TLC"
    ),
    "solidigm-d7-p5510": _origins(
        f"Intel/Solidigm D7-P5510 7.68 TB product brief (2021; {RECALLED}): 930K / 190K random "
        "4 KiB IOPS, 6,500 / 4,200 MB/s, PCIe 4.0 x4, 144-layer TLC",
        latency=assumed(
            f"82 us read / 15 us write at depth 1: the brief's typical latency ({RECALLED}); "
            "the sister SLC part D7-P5810 quotes 10-15 us writes (computerbase, 2023)"
        ),
    ),
    "samsung-pm9a3": _origins(
        "Samsung PM9A3 U.2 3.84 TB press data sheet (May 2020, retrieved via heise.de and "
        "computerbase.de): 6,500 / 3,500 MB/s, 900K / 200K random IOPS, PCIe 4.0 x4, V6 TLC",
        latency=assumed(
            "not in the press data sheet: 85 us read / 20 us write, the level of the other "
            "PCIe 4.0 TLC drives here"
        ),
    ),
    "micron-7450-pro": _origins(
        f"Micron 7450 PRO U.3 7.68 TB product brief (2022; {RECALLED}); 'up to 6.8 GB/s' and "
        "'about 1M IOPS' retrieved (servethehome, via modern-parameters.md)",
        latency=assumed(f"80 us read / 15 us write: Micron's typical QD1 figures ({RECALLED})"),
    ),
    "micron-9400-pro": _origins(
        f"Micron 9400 PRO 7.68 TB product brief (2023; {RECALLED}): 1.6M / 300K random IOPS, "
        "7,000 / 7,000 MB/s, PCIe 4.0 x4",
        latency=assumed(f"70 us read / 10 us write at depth 1 ({RECALLED})"),
    ),
    "kioxia-cm7": {
        **_origins(_KIOXIA),
        "write_latency": assumed("not given: 10 us, a power-safe write buffer's acknowledgement"),
        "capacity": assumed("3.84 TB, a common capacity point of the family"),
    },
    "samsung-pm1643a": _origins(
        f"Samsung PM1643a 3.84 TB SAS 12 Gb/s data sheet (2019; {RECALLED}): 2,100 / 2,000 "
        "MB/s and 450K / 90K random IOPS over both ports",
        latency=assumed("100 us read / 30 us write: SAS adds protocol time to NVMe's"),
        interface=sourced("SAS-3 12 Gb/s, dual port: the datasheet's figures use both ports"),
    ),
    "kingston-dc600m": _origins(
        "Kingston DC600M 1.92 TB data sheet and Puget Systems review (2023, parameter "
        "catalogue 1.7): 94K / 65K random 4 KiB IOPS, 560 / 530 MB/s, SATA 6 Gb/s",
        latency=sourced(
            "63 us mean at depth 1: an fio log of a SATA data-centre SSD (shaojwa/tools, "
            "parameter catalogue 1.7), the figure the ssd profile cites; write 30 us assumed"
        ),
        depth=_DEPTH32_SATA,
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


def _hba_origins(speed: str, iops: Origin, depth: Origin) -> dict[str, Origin]:
    return {
        "ports": sourced("two ports (the model number's last digit)"),
        "speed": sourced(speed),
        "queue_depth": depth,
        "queue_target": assumed("per LUN, as the Linux drivers count"),
        "command_time": iops,
        "processor": _PER_PORT,
    }


MODERN_HBA_ORIGINS: dict[str, dict[str, Origin]] = {
    "emulex-lpe12002": _hba_origins(
        "8GFC (Emulex LightPulse LPe12002)",
        sourced(f"1 / 200,000 s: the blog's '5x' below the LPe16002's 1M ({_EMULEX_BLOG})"),
        _LPFC,
    ),
    "emulex-lpe16002": _hba_origins(
        "16GFC (Emulex LPe16002, Gen 5)", sourced(f"1 / 1,000,000 s ({_EMULEX_BLOG})"), _LPFC
    ),
    "emulex-lpe32002": _hba_origins(
        "32GFC (Emulex LPe32002, Gen 6)",
        sourced(f"1 / 1.6M s: 'up to 1.6 million IOPS per port' (Broadcom brief; {RECALLED})"),
        _LPFC,
    ),
    "emulex-lpe35002": _hba_origins(
        "32GFC (Emulex LPe35002, Gen 7)",
        sourced(
            "1 / 4.8M s: three times the Gen 6 card's 1.6M per port (Broadcom/Dell Gen 7 test "
            "report, retrieved: 'nearly 3x as many IOPS across two ports', 'about 1/3 latency')"
        ),
        _LPFC,
    ),
    "qlogic-qle2692": _hba_origins(
        "16GFC (Marvell QLogic QLE2692, 2690 series, Gen 6)",
        sourced(f"1 / 1.3M s: 'up to 1.3 million IOPS' per port (2690 brief; {RECALLED})"),
        _QLA,
    ),
    "qlogic-qle2772": _hba_origins(
        "32GFC (Marvell QLogic QLE2772, 2770 series, Gen 7)",
        sourced(f"1 / 2.6M s: 'up to 2.6 million IOPS' per port (2770 brief; {RECALLED})"),
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
        sourced("32 Gb/s FC target ports (NetApp AFF A900 hardware universe)"),
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
        sourced(f"4.5M cache-hit IOPS per control enclosure ({RECALLED}). {_CORES}"),
        sourced(f"70 us: 'latency as low as 70 us' ({RECALLED})"),
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
