"""What recording an animation window costs a run (``run.animate``), as ratios.

Usage::

    .venv/bin/python tests/benchmarks/bench_animate.py [--ios N] [--rounds R]

Three runs of ``scenarios/quickstart.yaml`` (``N`` I/Os, fixed warm-up), side by side in
rounds, the best of each kept (machines are shared and noisy; read the ratios):

* ``off``: no ``run.animate`` (what every run that does not ask for an animation does);
* ``idle``: a window that opens after the run has ended: the recorder exists and is asked
  about every completed I/O, but never samples (the cost of the hook, an upper bound on what
  recording costs a run without it);
* ``on``: a window over the whole run, 96 frames and 12 tracked I/Os.

The figures of the three runs must be the same (the recorder only reads).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

from common import say  # tests/benchmarks/common.py, beside this script

import sanpath
from sanpath.results import RunResult

ROOT = Path(__file__).resolve().parents[2]


def _figures(result: RunResult) -> dict[str, Any]:
    out = result.to_dict()
    out.pop("wall_seconds", None)
    out.pop("overrides", None)
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ios", type=int, default=20_000)
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args(argv)
    base = sanpath.load_scenario(
        ROOT / "scenarios" / "quickstart.yaml",
        {"run.ios": args.ios, "run.warmup": "fixed", "run.warmup_ios": 0, "run.precision": None},
    )
    span = sanpath.run(base).sim_seconds
    specs = {
        "off": base,
        "idle": base.with_overrides({"run.animate": {"start": 10 * span + 1.0}}),
        "on": base.with_overrides({"run.animate": {"start": 0.0, "duration": span}}),
    }
    best = dict.fromkeys(specs, float("inf"))
    figures: dict[str, dict[str, Any]] = {}
    for _ in range(args.rounds):
        for name, spec in specs.items():
            t0 = time.perf_counter()
            result = sanpath.run(spec)
            best[name] = min(best[name], time.perf_counter() - t0)
            figures[name] = _figures(result)
    core = sanpath.compiled.describe()
    say(f"quickstart, {args.ios:,} I/Os, best of {args.rounds} rounds ({core})")
    for name in specs:
        say(f"  {name:<5} {best[name]:7.3f} s   {best[name] / best['off']:.3f}x off")
    same = figures["off"] == figures["idle"] == figures["on"]
    say(f"  the same figures with and without recording: {same}")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
