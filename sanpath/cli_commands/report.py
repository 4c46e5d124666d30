"""``sanpath report``: one self-contained HTML page of a scenario and its answers."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse

from sanpath.cli_commands.exits import EXIT_OK


def cmd_report(args: argparse.Namespace) -> int:
    from sanpath.cli_commands.simulate import parse_overrides
    from sanpath.files import check_output
    from sanpath.report import build_report, write_report

    check_output(args.out, (".html", ".htm"), "report", force=args.force)  # before running
    if args.slo:
        from sanpath.results import parse_slo

        for text in args.slo:
            parse_slo(text)  # a bad SLO fails before anything runs
    report = build_report(
        args.file,
        overrides=parse_overrides(args.overrides),
        seed=args.seed,
        slo=args.slo or None,
        grow=args.grow,
        check=args.check,
        sweep=args.sweep,
        force=args.force,
        progress=None,
    )
    path = write_report(report, args.out, force=args.force)
    print(f"report written to {path}")
    return EXIT_OK
