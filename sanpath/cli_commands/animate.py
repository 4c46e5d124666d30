"""``sanpath animate``: a run's window as an animation of its path (HTML, GIF or MP4)."""

from __future__ import annotations

import argparse
from typing import Any

from sanpath.cli_commands.animation import animated, write_run_animation
from sanpath.cli_commands.argtypes import (
    add_force,
    add_set,
    positive_duration,
    positive_int,
    start_time,
)
from sanpath.cli_commands.exits import EXIT_OK


def add_animate_parser(sub: Any) -> None:
    """The ``animate`` subcommand on the subparsers ``sub`` of :func:`sanpath.cli.main`."""
    p = sub.add_parser(
        "animate",
        help="a window of a run as an animation of its path: HTML player, GIF or MP4",
    )
    p.add_argument(
        "file", metavar="SCENARIO", help="a scenario file (YAML); run.animate sets its window"
    )
    p.add_argument(
        "--out", required=True, metavar="FILE", help="the animation to write: .html, .gif or .mp4"
    )
    add_set(p, "change a field before running, e.g. hosts.0.qfull.throttle=none")
    p.add_argument(
        "--start", type=start_time, default=None, help="simulated time the window starts (0)"
    )
    p.add_argument(
        "--duration",
        type=positive_duration,
        default=None,
        help="simulated time the window lasts (default: until 2,000 I/Os completed in it)",
    )
    p.add_argument("--frames", type=positive_int, default=None, help="frames (default 96)")
    p.add_argument(
        "--fps", type=positive_int, default=None, help="frames per second of playback (8)"
    )
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    add_force(p, ", and replace an existing --out")


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
