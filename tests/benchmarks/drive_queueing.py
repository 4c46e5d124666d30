"""Print random-read IOPS of one drive against outstanding I/Os (the table in docs/model.md).

Run: .venv/bin/python tests/benchmarks/drive_queueing.py
"""

from __future__ import annotations

import sanpath
from sanpath.theory import textbook

OUTSTANDING = (1, 4, 8, 16, 32, 64)


def main() -> None:
    print("profile   " + "".join(f"{n:>8}" for n in OUTSTANDING))
    for profile in ("hdd-15k", "hdd-10k", "hdd-7k2"):
        row = []
        for outstanding in OUTSTANDING:
            data = textbook.free_path(ios=6_000, warmup_ios=600)
            data["array"]["pools"][0]["drive"] = {
                "profile": profile,
                "queue_depth": 64,
                "overhead": 0,
            }
            data["workloads"][0].update(outstanding=outstanding, block_size="8KiB")
            row.append(sanpath.run(data).iops)
        print(f"{profile:<10}" + "".join(f"{x:8.0f}" for x in row))


if __name__ == "__main__":
    main()
