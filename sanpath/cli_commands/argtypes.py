"""Argument types of the command line: what a number, a fraction or a duration on it must
be, refused with a one-line message (argparse exits with code 2)."""

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
    from sanpath.units import UnitError, parse_duration

    try:
        value = parse_duration(text)
    except UnitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value


def start_time(text: str) -> float:
    """A simulated time from the start of a run (``0``, ``20ms``), in seconds: zero or more."""
    from sanpath.units import UnitError, parse_duration

    try:
        value = parse_duration(text)
    except UnitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be zero or more, got {text!r}")
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
