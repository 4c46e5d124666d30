"""``sanpath headroom``: how much more load fits before a latency target breaks."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import json

from sanpath.cli_commands.exits import EXIT_OK


def cmd_headroom(args: argparse.Namespace) -> int:
    from sanpath.cli_commands.simulate import parse_overrides
    from sanpath.experiments import headroom
    from sanpath.results import parse_slo
    from sanpath.spec import ScenarioError, load_scenario

    slos = [parse_slo(text) for text in args.slo]  # bad SLO text: exit 2 before any work
    picture = None
    if args.plot:
        from sanpath.plotting import picture_path

        picture = picture_path(args.plot, force=args.force)
    scenario = load_scenario(args.file, parse_overrides(args.overrides))
    try:
        result = headroom(
            scenario,
            slos,
            grow=args.grow,
            seed=args.seed,
            simulations=args.simulations,
            precision=args.precision,
            force=args.force,
            progress=None,
            budget=args.budget,
        )
    except ScenarioError as exc:
        raise exc.in_file(args.file) from None
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(result.summary())
    if picture is not None:
        from sanpath.plotting import headroom as draw_headroom
        from sanpath.plotting import save

        save(draw_headroom(result), picture, force=args.force)
        if not args.json:
            print(f"plot written to {picture}")
    return EXIT_OK
