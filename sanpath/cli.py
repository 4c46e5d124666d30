"""The ``sanpath`` command line: a thin face over the Python API.

Exit codes: 0 success, 1 a check failed (reserved for ``check``), 2 bad input (a scenario
that does not validate, a file that does not exist, a malformed ``--set``). Bad input never
prints a traceback: the message names the file, line, column and field.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from typing import Any

from sanpath import __version__

EXIT_OK = 0
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and a one-line message on usage errors."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sanpath",
        description="Simulate the SAN I/O path as a network of queues.",
    )
    parser.add_argument("--version", action="version", version=f"sanpath {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("validate", help="check scenario files and report every problem")
    p.add_argument("files", nargs="+", metavar="FILE")

    p = sub.add_parser("run", help="simulate one scenario and print its results")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    p.add_argument("--replicate", type=int, default=0, help="replication index (default 0)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="change a field before running, e.g. hosts.0.hbas.0.queue_depth=16 (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")

    p = sub.add_parser("sweep", help="run a scenario at every point of a grid of knob values")
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="vary a dotted key over values (repeatable; every combination is run); "
        "KEY1,KEY2=A1:B1,A2:B2 varies two keys together",
    )
    p.add_argument("--replicates", type=int, default=None, help="replications per point")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--jobs", type=int, default=None, help="local worker processes")
    group.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a Dask scheduler, e.g. tcp://host:8786",
    )
    p.add_argument("--out", default=None, metavar="FILE", help="write the table (.csv or .json)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse or keep finished points")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help="change a field of the base scenario first (repeatable)",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")

    sub.add_parser("schema", help="print the JSON Schema of scenario files")
    return parser


def _overrides(items: Sequence[str]) -> dict[str, Any]:
    from sanpath.scenario import parse_assignment

    out: dict[str, Any] = {}
    for item in items:
        key, value = parse_assignment(item)
        out[key] = value
    return out


def _cmd_validate(args: argparse.Namespace) -> int:
    from sanpath.scenario import ScenarioError, load_scenario

    status = EXIT_OK
    for path in args.files:
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            print(str(exc), file=sys.stderr)
            status = EXIT_BAD_INPUT
        else:
            print(f"{path}: ok ({scenario.name})")
    return status


def _cmd_run(args: argparse.Namespace) -> int:
    from sanpath.engine import run
    from sanpath.scenario import load_scenario

    overrides = _overrides(args.overrides)
    scenario = load_scenario(args.file, overrides)
    result = run(scenario, seed=args.seed, replicate=args.replicate)
    if args.json:
        print(result.to_json())
    else:
        print(result.summary())
    return EXIT_OK


def _parse_vary(items: Sequence[str]) -> dict[Any, list[Any]]:
    """``key=v1,v2`` -> {key: [v1, v2]}; ``k1,k2=a1:b1,a2:b2`` -> {(k1, k2): [(a1, b1), ...]}."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")

    def scalar(text: str) -> Any:
        text = text.strip()
        return yaml.load(text) if text else None

    grid: dict[Any, list[Any]] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--vary expects KEY=V1,V2,..., got {item!r}")
        left, _, right = item.partition("=")
        keys = [k.strip() for k in left.split(",")]
        values = right.split(",")
        if not right.strip():
            raise ValueError(f"--vary {left}: give at least one value")
        if len(keys) == 1:
            grid[keys[0]] = [scalar(v) for v in values]
        else:
            points = []
            for v in values:
                parts = v.split(":")
                if len(parts) != len(keys):
                    raise ValueError(
                        f"--vary {left}: each value needs {len(keys)} parts separated by ':', "
                        f"got {v!r}"
                    )
                points.append(tuple(scalar(x) for x in parts))
            grid[tuple(keys)] = points
    return grid


def _cmd_sweep(args: argparse.Namespace) -> int:
    from sanpath.scenario import load_scenario
    from sanpath.sweep import DEFAULT_CACHE, sweep

    scenario = load_scenario(args.file, _overrides(args.overrides))
    grid = _parse_vary(args.vary) or None
    if grid is None and scenario.sweep is None:
        raise ValueError(f"{args.file}: no --vary given and the scenario has no sweep section")
    executor = None
    client = None
    if args.scheduler:
        try:
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise ValueError("--scheduler needs Dask: pip install sanpath[distributed]") from None
        client = distributed.Client(args.scheduler)
        executor = client.get_executor()
    try:
        result = sweep(
            scenario,
            grid,
            replicates=args.replicates,
            executor=executor,
            jobs=args.jobs,
            progress=not args.quiet,
            cache=None if args.no_cache else DEFAULT_CACHE,
        )
    finally:
        if client is not None:
            client.close()
    columns = [
        *result.keys,
        "replicate",
        "iops",
        "mb_per_s",
        "latency_ms_mean",
        "latency_ms_p99",
        "qfull",
    ]
    if not result.table.empty:
        print(
            result.table[[c for c in columns if c in result.table.columns]].to_string(
                index=False, float_format=lambda x: f"{x:.4g}"
            )
        )
    if args.out:
        result.save(args.out)
        print(f"table written to {args.out}")
    if not result.complete:
        print("sweep interrupted: the table holds the points finished so far", file=sys.stderr)
        return 130
    return EXIT_OK


def _cmd_schema(_args: argparse.Namespace) -> int:
    from sanpath.scenario import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    from sanpath.scenario import ScenarioError

    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {
        "validate": _cmd_validate,
        "run": _cmd_run,
        "sweep": _cmd_sweep,
        "schema": _cmd_schema,
    }
    try:
        return handlers[args.command](args)
    except ScenarioError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        print(f"sanpath: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("sanpath: interrupted", file=sys.stderr)
        return 130
