"""Each profile against its own datasheet: the table "profile, figure, datasheet, model, error".

* A flash drive (``model: flash``) alone behind a path that costs nothing: random reads and
  writes of ``iops_block`` at ``iops_depth`` outstanding, one of each at depth 1 (mean
  latency), sequential reads and writes of ``seq_block`` at ``seq_depth``.
* An HBA profile: one port, 512-byte reads from an array and drive that cost nothing, 256
  outstanding: its per-port IOPS; and, where the vendor published one, its MB/s with 1 MiB
  reads.
* An all-flash array profile: 4 KiB reads that hit the cache, ports and links unlimited,
  enough outstanding to keep every controller server busy: its controller ceiling.

``sanpath.experiments.datasheets.write_table`` writes the table (``make validation``).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple

from sanpath.files import write_text
from sanpath.sim.runner import run
from sanpath.spec import FlashSpec, PoolSpec
from sanpath.spec.profiles import ARRAY_PROFILES, DRIVE_PROFILES
from sanpath.spec.profiles.modern import (
    ARRAY_CEILINGS,
    FLASH_ARRAYS,
    HBA_PORT_IOPS,
    MODERN_HBAS,
)
from sanpath.theory.textbook import free_path

HBA_MBPS: dict[str, float] = {"emulex-lpe12002": 789e6, "emulex-lpe16002": 1576e6}
"""Per-port MB/s the vendor published (Emulex 'Speed bump' blog, 2011)."""


class Row(NamedTuple):
    """One figure of one profile: the datasheet's value and the model's."""

    profile: str
    figure: str
    datasheet: float
    model: float
    unit: str

    @property
    def error(self) -> float:
        """Relative error of the model, (model - datasheet) / datasheet."""
        return (self.model - self.datasheet) / self.datasheet


def _scenario(ios: int) -> dict[str, Any]:
    return free_path("datasheet", ios=ios, warmup_ios=max(ios // 10, 200))


def _drive_run(name: str, depth: int, block: int, read: bool, seq: bool, ios: int) -> Any:
    data = _scenario(ios)
    data["array"]["pools"][0]["drive"] = name
    data["workloads"][0].update(
        outstanding=depth,
        block_size=block,
        read_fraction=1.0 if read else 0.0,
        pattern="sequential" if seq else "random",
    )
    return run(data)


def flash_drives() -> list[str]:
    """Names of the flash-drive profiles (``model: flash``)."""
    return [n for n, f in DRIVE_PROFILES.items() if f.get("model") == "flash"]


def drive_rows(name: str, ios: int = 20_000) -> list[Row]:
    """The six datasheet figures of flash-drive profile ``name`` and the model's."""
    spec = PoolSpec(name="p", drive=name).drive
    assert isinstance(spec, FlashSpec)
    d, b = spec.iops_depth, spec.iops_block
    sd, sb = spec.seq_depth, spec.seq_block
    rows = []
    for read in (True, False):
        word = "read" if read else "write"
        r = _drive_run(name, d, b, read, False, ios)
        iops = getattr(spec, f"{word}_iops")
        rows.append(Row(name, f"random {b // 1024} KiB {word}s/s at depth {d}", iops, r.iops, ""))
        r = _drive_run(name, 1, b, read, False, max(ios // 4, 2000))
        lat = getattr(spec, f"{word}_latency") * 1e6
        rows.append(Row(name, f"{word} latency at depth 1", lat, r.latency_ms["mean"] * 1e3, "us"))
        r = _drive_run(name, sd, sb, read, True, max(ios // 4, 2000))
        rate = getattr(spec, f"{word}_rate") / 1e6
        rows.append(
            Row(
                name,
                f"sequential {word} MB/s ({sb // 1024} KiB, depth {sd})",
                rate,
                r.iops * sb / 1e6,
                "MB/s",
            )
        )
    return rows


def hba_rows(name: str, ios: int = 20_000) -> list[Row]:
    """Per-port IOPS (and MB/s where published) of HBA profile ``name``."""
    data = _scenario(ios)
    data["hosts"][0]["hbas"] = [{"profile": name, "ports": 1, "queue_depth": None, "pcie": None}]
    published = HBA_PORT_IOPS[name]
    data["workloads"][0].update(outstanding=256, block_size=512)
    rows = [Row(name, "512-byte reads/s on one port", published, run(data).iops, "")]
    if name in HBA_MBPS:
        data = copy.deepcopy(data)
        data["array"]["port_speed"] = None
        data["workloads"][0].update(outstanding=32, block_size="1MiB")
        r = run(data)
        rows.append(
            Row(
                name,
                "MB/s on one port (1 MiB reads)",
                HBA_MBPS[name] / 1e6,
                r.iops * 1048576 / 1e6,
                "MB/s",
            )
        )
    return rows


def array_rows(name: str, ios: int = 40_000) -> list[Row]:
    """The controller ceiling of array profile ``name``: 4 KiB cache hits, nothing else limits."""
    data = _scenario(ios)
    fields = ARRAY_PROFILES[name]
    cores = fields["controller"]["cores"]
    array = data["array"]
    array.update(profile=name, port_speed=None, port_queue_depth=None)
    array["cache"] = {"read_hit": 1.0}
    del array["controller"]
    data["workloads"][0].update(outstanding=2 * cores, block_size=4096)
    return [
        Row(name, "controller ceiling, 4 KiB reads/s", ARRAY_CEILINGS[name], run(data).iops, "")
    ]


def all_rows(ios: int = 20_000) -> list[Row]:
    """Every modern profile's rows: flash drives, HBAs, all-flash arrays."""
    rows: list[Row] = []
    for name in flash_drives():
        rows.extend(drive_rows(name, ios))
    for name in MODERN_HBAS:
        rows.extend(hba_rows(name, ios))
    for name in FLASH_ARRAYS:
        rows.extend(array_rows(name, 2 * ios))
    return rows


def table(rows: Iterable[Row]) -> str:
    """The rows as a Markdown table."""
    lines = [
        "| profile | figure | datasheet | model | error |",
        "|---|---|---:|---:|---:|",
    ]
    for r in rows:
        unit = f" {r.unit}" if r.unit else ""
        lines.append(
            f"| `{r.profile}` | {r.figure} | {r.datasheet:,.0f}{unit} | {r.model:,.0f}{unit} "
            f"| {r.error:+.1%} |"
        )
    return "\n".join(lines) + "\n"


HEADER = (
    "<!-- Generated by `make validation` (sanpath.experiments.datasheets); do not edit. -->\n\n"
)


def write_table(path: str | Path, ios: int = 20_000) -> str:
    """Run every check and write the Markdown table to ``path``; return the text."""
    text = HEADER + table(all_rows(ios))
    write_text(path, text)
    return text
