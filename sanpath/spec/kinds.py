"""What a dotted scenario key measures, read from the scenario's schema: a duration, a
size, a rate, or a plain number (so a fitted ``io_time`` prints as ``38 µs``)."""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from typing import Any

from sanpath.spec.scenario import json_schema

__all__ = ["key_kind"]

_KINDS = {
    "a duration": "duration",
    "a constant service time": "duration",
    "a size": "size",
    "a rate": "rate",
}


@functools.cache
def _schema() -> dict[str, Any]:
    return json_schema()


def _alternatives(node: Mapping[str, Any], defs: Mapping[str, Any]) -> Iterator[Mapping[str, Any]]:
    """A schema node and the alternatives it allows, references followed."""
    if "$ref" in node:
        yield from _alternatives(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
        return
    yield node
    for alternative in node.get("anyOf", []) + node.get("oneOf", []) + node.get("allOf", []):
        yield from _alternatives(alternative, defs)


def key_kind(key: str) -> str | None:
    """What the value at dotted ``key`` measures, as the scenario's schema describes it:
    ``"duration"`` (seconds), ``"size"`` (bytes), ``"rate"`` (bytes/s), or None (a count,
    a share, or a key the schema does not know).

    >>> key_kind("array.controller.io_time.mean"), key_kind("hosts.0.hbas.0.queue_depth")
    ('duration', None)
    """
    schema = _schema()
    defs = schema.get("$defs", {})
    nodes: list[Mapping[str, Any]] = [schema]
    for part in key.split("."):
        found: list[Mapping[str, Any]] = []
        for node in nodes:
            for alternative in _alternatives(node, defs):
                if (part.isdigit() or part == "*") and "items" in alternative:
                    found.append(alternative["items"])
                elif part in alternative.get("properties", {}):
                    found.append(alternative["properties"][part])
        nodes = found
    for node in nodes:
        for alternative in _alternatives(node, defs):
            words = str(alternative.get("description", ""))
            for opening, kind in _KINDS.items():
                if words.startswith(opening):
                    return kind
    return None
