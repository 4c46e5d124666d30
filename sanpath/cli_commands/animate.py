"""``sanpath animate``: a run's window as an animation of its path (HTML, GIF or MP4)."""

from __future__ import annotations

import argparse

from sanpath.cli_commands.animation import animated, write_run_animation
from sanpath.cli_commands.exits import EXIT_OK


def cmd_animate(args: argparse.Namespace) -> int:
    from sanpath.cli_commands.simulate import parse_overrides
    from sanpath.files import check_output
    from sanpath.plotting import ANIMATION_FORMATS
    from sanpath.sim import budget, run
    from sanpath.spec import load_scenario

    check_output(args.out, ANIMATION_FORMATS, "animation", force=args.force)  # before running
    scenario = animated(
        load_scenario(args.file, parse_overrides(args.overrides)),
        start=args.start,
        duration=args.duration,
        fps=args.fps,
        frames=args.frames,
    )
    if not args.force:
        budget.check(scenario, source=args.file)
    result = run(scenario, seed=args.seed, force=True, progress=None)
    write_run_animation(result, args.out)
    return EXIT_OK
