"""``sanpath diff``: two run results side by side (what a what-if changed, and whether it is
outside the runs' intervals); the comparison itself is :mod:`sanpath.results.diff`."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import json
from typing import Any

from sanpath.cli_commands.exits import EXIT_OK


def read_result(path: str) -> dict[str, Any]:
    """A run result written by ``sanpath run --json``.

    Raises
    ------
    ValueError
        Naming the file: missing, unreadable, not JSON, or not a run result.
    """
    from sanpath.files import read_input
    from sanpath.results import NotAResultError, check_result

    text = read_input(path, "run result")
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}:{exc.lineno}:{exc.colno}: not JSON ({exc.msg}); sanpath diff compares "
            "what `sanpath run FILE --json` writes"
        ) from None
    try:
        return dict(check_result(data))
    except NotAResultError as exc:
        raise ValueError(f"{path}: {exc}") from None


def cmd_diff(args: argparse.Namespace) -> int:
    from sanpath.results import diff_results

    a, b = read_result(args.a), read_result(args.b)
    diff = diff_results(a, b, labels=(args.a, args.b))
    if args.json:
        print(json.dumps(diff.to_dict(), indent=2))
    else:
        print(diff.summary(full=args.all))
    return EXIT_OK
