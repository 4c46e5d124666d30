"""Print random-read IOPS of one drive against outstanding I/Os (the tables in docs/model.md).

Three tables: every HDD profile as shipped (8 KiB random reads over the whole disk), with the
analytic twin's figures beside; the 15k profile under each scheduler and window (the profile
weighs 16 commands; ``reorder_window: null`` the whole queue); and the 15k profile on the
small region of Peter Xu's Cheetah 15K.7 measurement (4 KiB reads, region fitted to its
depth-1 figure).

Run: .venv/bin/python tests/benchmarks/drive_queueing.py
"""

from __future__ import annotations

from typing import Any

import sanpath
from sanpath.theory import textbook
from sanpath.theory.twin import predict

OUTSTANDING = (1, 4, 8, 16, 32, 64)


def iops(
    drive: Any, outstanding: int, block: str = "8KiB", span: float = 1.0, twin: bool = False
) -> float:
    data = textbook.free_path(ios=6_000, warmup_ios=600)
    data["array"]["pools"][0]["drive"] = drive
    data["workloads"][0].update(outstanding=outstanding, block_size=block, span=span)
    return predict(data).iops if twin else sanpath.run(data).iops


def table(
    title: str, rows: dict[str, Any], block: str = "8KiB", span: float = 1.0, twin: bool = False
) -> None:
    print(f"\n{title}")
    print(f"{'':<28}" + "".join(f"{n:>8}" for n in OUTSTANDING))
    for label, drive in rows.items():
        for analytic in (False, True) if twin else (False,):
            row = [iops(drive, n, block, span, analytic) for n in OUTSTANDING]
            name = f"{label} (twin)" if analytic else label
            print(f"{name:<28}" + "".join(f"{x:8.0f}" for x in row))


def main() -> None:
    table("profiles as shipped", {p: p for p in ("hdd-15k", "hdd-10k", "hdd-7k2")}, twin=True)
    whole = {"profile": "hdd-15k", "reorder_window": None}
    table(
        "hdd-15k by scheduler",
        {
            "fifo": {"profile": "hdd-15k", "scheduler": "fifo"},
            "elevator": {"profile": "hdd-15k", "scheduler": "elevator", "reorder_window": None},
            "sptf, whole queue": whole,
            "sptf, window 16 (profile)": "hdd-15k",
        },
    )
    table(
        "hdd-15k on 3% of the disk, 4 KiB (Xu: 355 / 628 / 752 / 862 / 952 / 1015)",
        {"sptf, whole queue": whole, "sptf, window 16 (profile)": "hdd-15k"},
        block="4KiB",
        span=0.03,
    )


if __name__ == "__main__":
    main()
