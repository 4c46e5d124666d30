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

from sanpath.spec.profiles.flash_origins import FLASH_ORIGINS as _FLASH_ORIGINS
from sanpath.spec.profiles.origin import Origin, assumed, field_paths, sourced

RECALLED = "as recalled, not retrieved; check the vendor's current brief"

# --------------------------------------------------------------------------------------------
# Flash drives (model: flash)
# --------------------------------------------------------------------------------------------


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

FLASH_ORIGINS: dict[str, dict[str, Origin]] = {
    name: {k: v for k, v in found.items() if k in field_paths(FLASH_DRIVES[name])}
    for name, found in _FLASH_ORIGINS.items()
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
