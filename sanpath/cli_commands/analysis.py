"""``sanpath check``, ``calibrate`` and ``plot``: review a proposal, fit to measurements, draw."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import json
import sys

from sanpath.cli_commands.exits import EXIT_CHECK_FAILED, EXIT_OK


def cmd_calibrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from sanpath.experiments.calibrate import (
        RMS_WARNING,
        calibrate,
        read_measurements,
        reference_points,
        write_calibrated,
    )
    from sanpath.files import OutputError, check_output
    from sanpath.spec import load_scenario

    out = Path(args.out) if args.out else Path(args.file).with_suffix(".calibrated.yaml")
    for given, what in ((args.file, "the scenario being calibrated"), (args.measured, "")):
        if given and Path(given).exists() and out.is_file() and out.samefile(given):
            raise OutputError(f"{out}: is {what or 'the measurements'}; give another --out")
    check_output(out, (".yaml", ".yml"), "calibrated scenario", force=args.force)
    if args.measured is None:
        measured = reference_points(load_scenario(args.file))
    else:
        measured = read_measurements(args.measured)
    keys = [k.strip() for k in args.fit.split(",") if k.strip()]
    result = calibrate(args.file, measured, keys, ios=args.ios, force=args.force)
    write_calibrated(args.file, result, out, force=args.force)
    if args.json:
        print(json.dumps({**result.to_dict(), "written": str(out)}, indent=2))
    else:
        print(result.text())
        print(f"calibrated scenario written to {out}")
    for caution in result.cautions:
        print(f"sanpath: warning: {caution}", file=sys.stderr)
    limit = args.fail_above
    warning = result.warning(RMS_WARNING if limit is None else min(limit, RMS_WARNING))
    if warning is not None:
        print(f"sanpath: warning: {warning}", file=sys.stderr)
    if limit is not None and result.rms_error > limit:
        print(
            f"sanpath: the fit fails --fail-above {limit:g}: rms relative error "
            f"{100 * result.rms_error:.1f}%",
            file=sys.stderr,
        )
        return EXIT_CHECK_FAILED
    return EXIT_OK


def cmd_check(args: argparse.Namespace) -> int:
    from sanpath.advice import DEFAULT_CHECK_IOS, check
    from sanpath.cli_commands.simulate import parse_overrides
    from sanpath.spec import load_scenario

    scenario = load_scenario(args.file, parse_overrides(args.overrides))
    report = check(
        scenario,
        latency_target=args.latency_target,
        simulate=not args.no_simulate,
        ios=args.ios if args.ios is not None else DEFAULT_CHECK_IOS,
        force=args.force,
    )
    print(report.to_json() if args.json else report.text(args.file))
    if args.fail_on is not None and report.at_least(args.fail_on):
        return EXIT_CHECK_FAILED
    return EXIT_OK


def cmd_plot(args: argparse.Namespace) -> int:
    from sanpath.plotting import plot_files

    path = plot_files(
        args.files,
        args.kind,
        args.out,
        x=args.x,
        hue=args.hue,
        port_queue_depth=args.port_queue_depth,
        commands_per_host=args.commands_per_host,
        force=args.force,
    )
    print(f"plot written to {path}")
    return EXIT_OK
