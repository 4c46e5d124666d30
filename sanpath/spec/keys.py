"""Dotted keys: ``--set hosts.0.hbas.*.queue_depth=16`` read and applied to scenario data,
and the ranges ``--vary`` accepts (``4..64``, ``4..64:+4``, ``1..81:*3``).

Used by :func:`sanpath.spec.scenario.load_scenario` and
:meth:`sanpath.spec.scenario.Scenario.with_overrides` before the data are validated again.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Iterable, Mapping
from typing import Any

RUN_LENGTH = ("ios", "duration", "precision")
"""The run-length keys, one at a time (see :class:`~sanpath.spec.run.RunSpec`)."""


def replace_run_length(data: Any, overrides: Mapping[str, Any]) -> None:
    """An override that sets one run-length key replaces the length the file gives.

    ``--set run.duration=30s`` on a scenario written with ``run.ios`` means "run for 30 s",
    so the file's ``ios`` (and ``precision``) are cleared, unless an override sets them too
    (then validation says they conflict). A file that sets two of them is an error.
    """
    given = {
        key.split(".")[1]
        for key, value in overrides.items()
        if key.startswith("run.") and key.count(".") >= 1 and value is not None
    } & set(RUN_LENGTH)
    run = data.get("run") if isinstance(data, dict) else None
    if not given or not isinstance(run, dict):
        return
    for key in RUN_LENGTH:
        if key not in given and not any(k.startswith(f"run.{key}") for k in overrides):
            run.pop(key, None)


def set_dotted(data: Any, key: str, value: Any) -> None:
    """Set ``value`` at dotted ``key`` inside nested dicts/lists (``*`` = every element).

    Raises
    ------
    KeyError
        When a list index or list part of the path does not exist (new keys and sections
        in a mapping are allowed; validation rejects the unknown ones).
    """
    parts = key.split(".")

    def walk(node: Any, i: int) -> None:
        part = parts[i]
        last = i == len(parts) - 1
        if isinstance(node, tuple):
            raise KeyError(f"{'.'.join(parts[:i])} cannot be changed in place")
        if isinstance(node, list):
            if part == "*":
                indices: Iterable[int] = range(len(node))
            else:
                try:
                    index = int(part)
                except ValueError:
                    raise KeyError(f"{'.'.join(parts[: i + 1])}: expected a list index") from None
                if not -len(node) <= index < len(node):
                    raise KeyError(
                        f"{'.'.join(parts[: i + 1])}: index {index} out of range "
                        f"(the list has {len(node)} items)"
                    )
                indices = [index]
            for idx in indices:
                if last:
                    node[idx] = copy.deepcopy(value)
                else:
                    walk(node[idx], i + 1)
        elif isinstance(node, dict):
            if part == "*":
                keys: Iterable[Any] = list(node)
            else:
                keys = [part]
            for k in keys:
                if last:
                    node[k] = copy.deepcopy(value)
                elif k not in node or node[k] is None:
                    # A section left at its defaults may be absent: start it empty and let
                    # validation reject unknown keys. A list cannot be started this way.
                    if k not in node and (
                        parts[i + 1] == "*" or parts[i + 1].lstrip("-").isdigit()
                    ):
                        raise KeyError(f"{'.'.join(parts[: i + 1])}: no such key")
                    node[k] = {}
                    walk(node[k], i + 1)
                else:
                    walk(node[k], i + 1)
        else:
            raise KeyError(f"{'.'.join(parts[:i])} is a value, not a section")

    walk(data, 0)


def parse_assignment(text: str) -> tuple[str, Any]:
    """Split a command-line ``dotted.key=value`` and read the value as a YAML scalar."""
    if "=" not in text:
        raise ValueError(f"expected dotted.key=value, got {text!r}")
    key, _, raw = text.partition("=")
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        value = YAML(typ="safe").load(raw) if raw.strip() else None
    except YAMLError as exc:
        problem = getattr(exc, "problem", None) or "not a YAML value"
        raise ValueError(f"{key.strip()}: cannot read {raw!r}: {problem}") from None
    return key.strip(), value


MAX_RANGE_VALUES = 1000
"""The most values one range (``4..64:+4``) may expand to."""

_NUMBER = r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?"
_RANGE = re.compile(rf"\s*(?P<start>{_NUMBER})\s*\.\.\s*(?P<end>{_NUMBER})\s*(?::(?P<rest>.*))?")
_STEP = re.compile(rf"\s*(?P<op>[+*x])\s*(?P<step>{_NUMBER})\s*")


def _range_number(text: str) -> int | float:
    try:
        return int(text)
    except ValueError:
        return float(text)


def is_range(text: str) -> bool:
    """True when ``text`` is written as a range (it contains ``..``)."""
    return ".." in text


def parse_range(text: str) -> list[int | float]:
    """The values of a range written ``START..END`` (doubling), ``START..END:+STEP`` (adding
    STEP) or ``START..END:*FACTOR`` (multiplying), from START up to END inclusive.

    ``4..64`` is 4, 8, 16, 32, 64; ``4..64:+4`` is 4, 8, ..., 64; ``1..81:*3`` (or ``:x3``,
    which a shell does not expand) is 1, 3, 9, 27, 81. END is included when a step lands on
    it (``4..60`` stops at 32). Integers stay integers when START and the step are integers;
    otherwise the values are floats, rounded to 12 significant digits so ``0.1..0.5:+0.1``
    ends at 0.5.

    Raises
    ------
    ValueError
        For text that is not a numeric range, START above END, a step that is not positive
        (or a factor not above 1), a multiplying range that does not start above 0, or more
        than :data:`MAX_RANGE_VALUES` values.
    """
    match = _RANGE.fullmatch(text)
    if match is None:
        raise ValueError(
            f"{text!r} is not a range: expected numbers as START..END, START..END:+STEP or "
            "START..END:*FACTOR"
        )
    start, end = _range_number(match["start"]), _range_number(match["end"])
    op, step_text = "*", "2"
    if match["rest"] is not None:
        step_match = _STEP.fullmatch(match["rest"])
        if step_match is None:
            raise ValueError(
                f"{text!r}: the step after ':' must be +STEP or *FACTOR, got {match['rest']!r}"
            )
        op, step_text = step_match["op"].replace("x", "*"), step_match["step"]
    step = _range_number(step_text)
    if start > end:
        raise ValueError(f"{text!r}: the range starts above its end ({start} > {end})")
    if op == "+" and step <= 0:
        raise ValueError(f"{text!r}: the step must be above 0, got {step_text}")
    if op == "*":
        if step <= 1:
            raise ValueError(f"{text!r}: the factor must be above 1, got {step_text}")
        if start <= 0:
            raise ValueError(
                f"{text!r}: a multiplying range must start above 0 (use START..END:+STEP)"
            )
    whole = isinstance(start, int) and isinstance(step, int)
    slack = 0.0 if whole else 1e-12 * max(abs(start), abs(end), abs(step))
    values: list[int | float] = []
    i = 0
    while True:
        value = start + i * step if op == "+" else start * step**i
        if value > end + slack:
            break
        if len(values) == MAX_RANGE_VALUES:
            raise ValueError(f"{text!r}: more than {MAX_RANGE_VALUES} values; choose a larger step")
        values.append(int(value) if whole else float(f"{value:.12g}"))
        i += 1
    return values
