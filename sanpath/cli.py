"""The ``sanpath`` command line: a thin face over the Python API.

Exit codes: 0 success, 1 a check failed (reserved for ``check``), 2 bad input (a scenario
that does not validate, a file that does not exist, a malformed ``--set``). Bad input never
prints a traceback: the message names the file, line, column and field.
"""

from __future__ import annotations

import argparse
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


def _cmd_schema(_args: argparse.Namespace) -> int:
    from sanpath.scenario import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    from sanpath.scenario import ScenarioError

    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {"validate": _cmd_validate, "run": _cmd_run, "schema": _cmd_schema}
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
