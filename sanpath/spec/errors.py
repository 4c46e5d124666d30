"""Located errors: every problem names its file, line, column and field path.

YAML is read here, with ruamel.yaml keeping the line and column of every key, because
locating a field means reading its file again (:meth:`ScenarioError.in_file`), and a file that
does not read is itself a located error. The helpers below turn pydantic's error locations
into dotted field paths and short messages.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Problem:
    """One thing wrong with a scenario, located in its file."""

    source: str
    line: int | None
    column: int | None
    path: str
    message: str

    def __str__(self) -> str:
        where = self.source
        if self.line is not None:
            where += f":{self.line}:{self.column or 1}"
        path = f" {self.path}:" if self.path else ""
        return f"{where}:{path} {self.message}"


class ScenarioError(ValueError):
    """A scenario that cannot be used; ``problems`` says where and why."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("\n".join(str(p) for p in self.problems))

    @classmethod
    def at(cls, path: str, message: str, source: str = "<scenario>") -> ScenarioError:
        """A single problem at a field path."""
        return cls([Problem(source, None, None, path, message)])

    def in_file(self, file: str) -> ScenarioError:
        """The same problems, those about ``<scenario>`` located in YAML ``file`` instead."""
        problems = []
        for p in self.problems:
            if p.source == "<scenario>":
                line, column = locate_field(file, p.path) if p.line is None else (p.line, p.column)
                p = Problem(file, line, column, p.path, p.message)
            problems.append(p)
        return ScenarioError(problems)


def locate(data: Any, loc: Sequence[str | int]) -> tuple[int | None, int | None]:
    """Line and column (1-based) of the deepest key of ``loc`` present in ruamel data."""
    line: int | None = None
    column: int | None = None
    node = data
    for part in loc:
        lc = getattr(node, "lc", None)
        try:
            if isinstance(part, int) and isinstance(node, list):
                if lc is not None:
                    line, column = lc.item(part)
                node = node[part]
            elif isinstance(node, Mapping) and part in node:
                if lc is not None:
                    line, column = (
                        lc.value(part)
                        if not isinstance(node[part], Mapping | list)
                        else lc.key(part)
                    )
                node = node[part]
            else:
                break
        except (KeyError, IndexError, TypeError, AttributeError):
            break
    if line is None:
        return None, None
    return line + 1, (column or 0) + 1


def format_loc(loc: Sequence[str | int]) -> str:
    return ".".join(str(p) for p in loc)


def clean_loc(loc: Sequence[str | int]) -> list[str | int]:
    """Drop pydantic's union/function tags from an error location."""
    out: list[str | int] = []
    for part in loc:
        if isinstance(part, str) and (
            part.startswith("function-")
            or part in {"hdd", "ssd", "textbook"}
            or part.startswith("tuple[")
            or part.startswith("literal[")
            or part == "int"
            or part.startswith("constrained-")
        ):
            continue
        out.append(part)
    return out


def describe_error(err: Mapping[str, Any]) -> str:
    msg = str(err["msg"])
    if msg.startswith("Value error, "):
        msg = msg[len("Value error, ") :]
    if err["type"] == "extra_forbidden":
        return "unknown key (check the spelling; see `sanpath schema`)"
    if err["type"] == "missing":
        return "required field is missing"
    value = err.get("input")
    if not isinstance(value, Mapping | list):
        return f"{msg} (got {value!r})"
    return msg


def _yaml() -> Any:
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.version = (1, 2)
    return yaml


MAX_SCENARIO_BYTES = 64 << 20
"""The largest scenario file read (64 MiB; the shipped ones are a few kB)."""


def read_yaml(path: str | Path) -> Any:
    """Read a YAML 1.2 file keeping line/column information; raise ScenarioError on failure."""
    from ruamel.yaml.error import MarkedYAMLError, YAMLError

    source = str(path)
    try:
        info = Path(path).stat()
        if not stat.S_ISREG(info.st_mode) and not stat.S_ISDIR(info.st_mode):
            raise ScenarioError(
                [Problem(source, None, None, "", "is not a regular file (a pipe or a device)")]
            )
        if info.st_size > MAX_SCENARIO_BYTES:
            raise ScenarioError(
                [Problem(source, None, None, "", f"is {info.st_size:,} bytes: not a scenario")]
            )
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ScenarioError([Problem(source, None, None, "", "file not found")]) from None
    except IsADirectoryError:
        raise ScenarioError(
            [Problem(source, None, None, "", "is a directory, expected a YAML file")]
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ScenarioError([Problem(source, None, None, "", f"cannot read: {exc}")]) from None
    try:
        return _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else None
        col = mark.column + 1 if mark is not None else None
        what = exc.problem or exc.context or "cannot parse"
        raise ScenarioError(
            [Problem(source, line, col, "", f"YAML does not parse: {what}")]
        ) from None
    except YAMLError as exc:
        raise ScenarioError(
            [Problem(source, None, None, "", f"YAML does not parse: {exc}")]
        ) from None


def locate_field(source: str | Path, path: str) -> tuple[int | None, int | None]:
    """Line and column (1-based) of dotted ``path`` in the YAML file ``source``, if found."""
    if not str(source).endswith((".yaml", ".yml")) or not Path(source).is_file():
        return None, None
    try:
        data = read_yaml(source)
    except ScenarioError:
        return None, None
    return locate(data, [int(p) if p.isdigit() else p for p in path.split(".")])
