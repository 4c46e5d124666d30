"""Speed of the analytic twin: a 5 x 16 QueueDepth sweep in under 50 ms.

Usage::

    .venv/bin/python tests/benchmarks/twin_bench.py
    .venv/bin/python tests/benchmarks/twin_bench.py --repeat 10

The sweep is ``scenarios/qd_sweep_2007.yaml`` at HBA queue depths 8..128 (5 values) against
1..256 outstanding I/Os (16 values), as in the 2007 QueueDepth post. It is timed from a loaded
scenario (reading the YAML file is not the twin's work; its time is printed apart), best of
``--repeat`` runs. Each repeat starts from a fresh copy of the scenario, so the twin's mapping
is computed inside every timed run (the per-pool RAID mapping is memoised across runs; the
first, cold run is printed too). ``predict`` one point at a time is shown for comparison.
Prints PASS or MISS against the target; exits 0 unless something crashed.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

from sanpath.spec import Scenario, load_scenario
from sanpath.theory.twin import predict, predict_many

ROOT = Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "qd_sweep_2007.yaml"
TARGET_MS = 50.0
QUEUE_DEPTHS = (8, 16, 32, 64, 128)
OUTSTANDING = (1, 2, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 160, 192, 256)


def points() -> list[dict[str, int]]:
    """The 80 points of the sweep."""
    return [
        {"hosts.0.hbas.0.queue_depth": q, "workloads.0.outstanding": n}
        for q in QUEUE_DEPTHS
        for n in OUTSTANDING
    ]


def fresh(base: Scenario) -> Scenario:
    """An equal but distinct scenario object (the twin caches its mapping per object)."""
    return base.model_copy(update={"name": base.name})


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="timed runs (best is reported)")
    args = parser.parse_args()
    t0 = time.perf_counter()
    base = load_scenario(SCENARIO)
    load_ms = (time.perf_counter() - t0) * 1e3
    grid = points()
    times = []
    result = []
    for _ in range(args.repeat):
        scenario = fresh(base)
        t0 = time.perf_counter()
        result = predict_many(scenario, grid)
        times.append(time.perf_counter() - t0)
    best = min(times)
    t0 = time.perf_counter()
    for point in grid:
        predict(base.with_overrides(point))
    one_by_one = time.perf_counter() - t0
    best_ms = best * 1e3
    print(f"twin: {len(grid)}-point QueueDepth sweep ({len(QUEUE_DEPTHS)} x {len(OUTSTANDING)})")
    print(f"  predict_many        {best_ms:8.2f} ms  (best of {args.repeat})")
    print(f"  first run           {times[0] * 1e3:8.2f} ms  (cold: RAID mapping not yet memoised)")
    print(
        f"  predict per point   {one_by_one * 1e3:8.2f} ms  (validated overrides, for comparison)"
    )
    print(f"  loading the YAML    {load_ms:8.2f} ms  (not counted)")
    print("  queue depth x outstanding -> IOPS:")
    for i, q in enumerate(QUEUE_DEPTHS):
        row = result[i * len(OUTSTANDING) : (i + 1) * len(OUTSTANDING)]
        print(f"    {q:>4}: " + " ".join(f"{p.iops:6.0f}" for p in row))
    verdict = "PASS" if best_ms < TARGET_MS else "MISS"
    print(f"{verdict}: {best_ms:.2f} ms against the {TARGET_MS:.0f} ms target")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
