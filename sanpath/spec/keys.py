"""Dotted keys: ``--set hosts.0.hbas.*.queue_depth=16`` read and applied to scenario data.

Used by :func:`sanpath.spec.scenario.load_scenario` and
:meth:`sanpath.spec.scenario.Scenario.with_overrides` before the data are validated again.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Any

RUN_LENGTH = ("ios", "duration", "precision")
"""The run-length keys, one at a time (see :class:`~sanpath.spec.run.RunSpec`)."""


def _replace_run_length(data: Any, overrides: Mapping[str, Any]) -> None:
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
