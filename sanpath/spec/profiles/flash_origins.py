"""Where the numbers of the flash drive profiles come from (:mod:`sanpath.spec.profiles.modern`).

A figure is ``sourced`` only where a copy of the document the note names was read
("retrieved"); a vendor figure remembered but not read is ``assumed`` and says "as recalled".
"""

from __future__ import annotations

from sanpath.spec.profiles.origin import Origin, assumed, sourced

_DEPTH256 = assumed(
    "the figure's test depth: enterprise NVMe datasheets quote 4 KiB random IOPS at 256 "
    "outstanding (Micron, 'Micron 7500' blog, 2023: 'at queue depth (QD) 256'); this one's "
    "footnote was not at hand"
)
_DEPTH32_SATA = assumed("SATA NCQ holds 32 commands: the deepest a SATA datasheet can test")
_SEQ = assumed("sequential figures taken at 128 KiB, 32 outstanding (the usual datasheet test)")


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
