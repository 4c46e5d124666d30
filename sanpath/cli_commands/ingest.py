"""``sanpath import``: measured counters or fio jobs in, a scenario out."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import sys

from sanpath.cli_commands.exits import EXIT_OK


def cmd_import(args: argparse.Namespace) -> int:
    from sanpath.ingest import TraceOptions, import_scenario, parse_columns, summary

    trace = TraceOptions(
        speed=args.speed,
        outstanding=args.outstanding,
        columns=parse_columns(args.columns),
        time_unit=args.time_unit,
    )
    imported = import_scenario(
        args.files,
        out=args.out,
        format=args.format,
        into=args.into,
        interval=args.interval,
        map=args.map,
        load_kind=args.load,
        force=args.force,
        trace=trace,
    )
    facts = summary(imported)
    print(f"scenario written to {facts['written']}")
    print(f"  devices: {', '.join(facts['devices'])}")
    print(f"  interval: {facts['interval']}")
    print(f"  workloads: {', '.join(facts['workloads'])}")
    for line in facts.get("trace", []):
        print(f"  {line}")
    for warning in facts["warnings"]:
        print(f"sanpath: warning: {warning}", file=sys.stderr)
    return EXIT_OK
