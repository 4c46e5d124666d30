"""Golden check: every shipped scenario and proposal gives the same numbers as a reference.

A refactoring of the engine must not move a single bit of any result. This script runs every
``scenarios/*.yaml`` and ``scenarios/proposals/*.yaml`` at a fixed length (20,000 I/Os after a
fixed 2,000-I/O warm-up), takes the whole ``RunResult.to_dict()`` and the analytic twin's
``predict(...).to_dict()``, and writes them to a JSON file or compares them with one::

    .venv/bin/python tests/benchmarks/golden.py --write out/golden.json   # on the reference
    .venv/bin/python tests/benchmarks/golden.py --check out/golden.json   # after the change

Run it once as is (the compiled core) and once with ``SANPATH_PURE_PYTHON=1``: both cores must
match the same reference. Wall time and other machine-dependent fields are left out.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import sys
from typing import Any

IGNORED = {"wall_time_s", "wall_s", "wall_seconds", "elapsed_s", "io_per_s_wall"}


def _clean(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _clean(v) for k, v in value.items() if k not in IGNORED and "wall" not in k}
    if isinstance(value, list | tuple):
        return [_clean(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return repr(value)
    return value


def collect(ios: int, warmup: int) -> dict[str, Any]:
    """Every shipped scenario's run and twin prediction, keyed by file."""
    import sanpath
    from sanpath.theory.twin import predict

    out: dict[str, Any] = {}
    files = sorted(glob.glob("scenarios/*.yaml")) + sorted(glob.glob("scenarios/proposals/*.yaml"))
    for path in files:
        scenario = sanpath.load_scenario(path)
        short = scenario.with_overrides({"run.ios": ios, "run.warmup_ios": warmup})
        result = sanpath.run(short)
        out[f"run:{path}"] = _clean(json.loads(json.dumps(result.to_dict(), default=str)))
        try:
            twin = predict(scenario).to_dict()
        except Exception as exc:  # a twin that refuses is part of the record
            twin = {"error": f"{type(exc).__name__}: {exc}"}
        out[f"twin:{path}"] = _clean(json.loads(json.dumps(twin, default=str)))
        print(f"  {path}", file=sys.stderr)
    return out


def _diff(a: Any, b: Any, where: str, found: list[str]) -> None:
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                found.append(f"{where}.{k}: only in {'reference' if k in a else 'this run'}")
            else:
                _diff(a[k], b[k], f"{where}.{k}", found)
    elif isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            _diff(x, y, f"{where}[{i}]", found)
    elif a != b:
        found.append(f"{where}: reference {a!r}, now {b!r}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--write", metavar="FILE")
    group.add_argument("--check", metavar="FILE")
    parser.add_argument("--ios", type=int, default=20_000)
    parser.add_argument("--warmup", type=int, default=2_000)
    args = parser.parse_args()
    now = collect(args.ios, args.warmup)
    if args.write:
        with open(args.write, "w") as fh:
            json.dump(now, fh, indent=1, sort_keys=True)
        print(f"{len(now)} records written to {args.write}")
        return 0
    with open(args.check) as fh:
        ref = json.load(fh)
    found: list[str] = []
    _diff(ref, now, "", found)
    for line in found[:40]:
        print(line)
    print(f"{len(found)} differing fields over {len(ref)} records")
    moved = sorted({line[1:].split(".yaml")[0] + ".yaml" for line in found})
    if moved:
        print("records that differ: " + ", ".join(moved))
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
