"""Wall time per simulated I/O: the datasheet flash drive against the simple ``ssd`` model.

Two set-ups, each run on both drive models in the same process, alternating, best of
``REPEATS``: the quickstart scenario with its pool's drives replaced (a whole path, RAID 5,
write-back cache), and one drive alone behind a path that costs nothing (the drive's own
cost stands out). Prints seconds per 1,000 I/Os and the ratio flash / ssd.

Run: .venv/bin/python tests/benchmarks/flash_speed.py
"""

from __future__ import annotations

import copy
import time
from typing import Any

import sanpath
from sanpath.spec import read_yaml
from sanpath.theory.textbook import free_path

REPEATS = 5
IOS = 60_000
DRIVES = ("ssd", "solidigm-d7-p5510")


def _path_scenario() -> dict[str, Any]:
    data = copy.deepcopy(read_yaml("scenarios/quickstart.yaml"))
    data["run"] = {"ios": IOS, "warmup_ios": IOS // 10}
    return data


def _alone() -> dict[str, Any]:
    data = free_path("alone", ios=IOS, warmup_ios=IOS // 10)
    data["workloads"][0].update(outstanding=32, block_size="8KiB", read_fraction=0.7)
    return data


def _with_drive(data: dict[str, Any], drive: str) -> dict[str, Any]:
    out = copy.deepcopy(data)
    for pool in out["array"]["pools"]:
        pool["drive"] = drive
    return out


def per_thousand(runs: dict[str, dict[str, Any]]) -> dict[str, float]:
    """Best wall seconds per 1,000 measured I/Os of each scenario over REPEATS rounds, the
    scenarios taking turns within a round (so a busy machine slows both alike)."""
    best = dict.fromkeys(runs, float("inf"))
    for _ in range(REPEATS):
        for name, data in runs.items():
            t = time.perf_counter()
            result = sanpath.run(data)
            best[name] = min(best[name], (time.perf_counter() - t) / (result.ios / 1000))
    return best


TARGET = 1.05
"""A run on datasheet flash drives may cost at most this much per I/O against the ``ssd``
model (the same cost, within the noise of a shared machine)."""


def sections() -> dict[str, dict[str, float]]:
    """Per set-up: seconds per 1,000 I/Os of each drive model, and their ratio; printed."""
    out: dict[str, dict[str, float]] = {}
    for label, base in (("quickstart path", _path_scenario()), ("drive alone", _alone())):
        times = per_thousand({d: _with_drive(base, d) for d in DRIVES})
        ratio = times[DRIVES[1]] / times[DRIVES[0]]
        cells = ", ".join(f"{d} {t * 1000:.1f} ms" for d, t in times.items())
        print(f"{label}: per 1,000 I/Os {cells}; flash / ssd = {ratio:.3f}")
        out[label] = {**times, "ratio": ratio}
    return out


def summary_rows(report: dict[str, dict[str, float]]) -> list[dict[str, Any]]:
    """The summary table's rows of :func:`sections`' figures (bench.py's format)."""
    return [
        {
            "what": f"flash drive / ssd per I/O, {label}",
            "measured": f"x{figures['ratio']:.3f}",
            "target": f"<= x{TARGET:g}",
            "ok": figures["ratio"] <= TARGET,
        }
        for label, figures in report.items()
    ]


def main() -> None:
    from sanpath.compiled import core

    print(f"core: {core()}")
    sections()


if __name__ == "__main__":
    main()
