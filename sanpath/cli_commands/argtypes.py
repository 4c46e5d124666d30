"""Argument types of the command line: what a number, a fraction or a duration on it must
be, refused with a one-line message (argparse exits with code 2); and the options several
commands share (``--set``, ``--force``)."""

from __future__ import annotations

import argparse


def fraction(text: str) -> float:
    """A positive number written as a fraction (``0.1``)."""
    try:
        return positive_float(text)
    except argparse.ArgumentTypeError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.1, got {text!r}") from None


def positive_duration(text: str) -> float:
    """A positive duration (``30s``, ``5ms``), in seconds."""
    return _duration(text, zero=False)


def start_time(text: str) -> float:
    """A simulated time from the start of a run (``0``, ``20ms``), in seconds: zero or more."""
    return _duration(text, zero=True)


def _duration(text: str, zero: bool) -> float:
    """A duration in seconds, above zero (or zero or more with ``zero``)."""
    from sanpath.units import UnitError, parse_duration

    try:
        value = parse_duration(text)
    except UnitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value < 0 or (value == 0 and not zero):
        expected = "zero or more" if zero else "positive"
        raise argparse.ArgumentTypeError(f"must be {expected}, got {text!r}")
    return value


def positive_float(text: str) -> float:
    """A positive, finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive number, got {text!r}")
    return value


def positive_int(text: str) -> int:
    """A whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_set(parser: argparse.ArgumentParser, text: str) -> None:
    """The repeatable ``--set KEY=VALUE`` option (dotted scenario keys) into ``overrides``."""
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help=f"{text} (repeatable)",
    )


def add_force(parser: argparse.ArgumentParser, also: str = "") -> None:
    """``--force``: run beyond the estimated memory and time limits (sanpath.sim.budget)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="run even when the estimated memory or time is beyond sanpath's limits" + also,
    )
