"""fio job files (INI): ``[global]`` and job sections, one :class:`JobSpec` per job.

The layout follows fio's ``__parse_jobs_ini`` (init.c): a line whose first non-blank
character is ``;`` or ``#`` is a comment; ``[name]`` opens a section; ``[global]`` sets
options for the jobs after it (a later ``[global]`` adds to them); ``key=value`` or a bare
``key`` sets an option. Options are read by :mod:`sanpath.ingest.fio_options`. ``include``
lines, environment variables (``${VAR}``) and options outside a section are refused with a
located error.
"""

from __future__ import annotations

import re
from pathlib import Path

from sanpath.ingest.fio_options import Opt, job_spec
from sanpath.ingest.model import JobSpec, Measured, bad_file
from sanpath.ingest.text import read_text

_SECTION = re.compile(r"\[([^\]]*)\]\s*")


def read(path: str | Path) -> Measured:
    """The jobs of a fio job file."""
    return parse(read_text(path), str(path))


def parse(text: str, source: str = "<fio job>") -> Measured:
    """The jobs of a fio job file's ``text``."""
    common: list[Opt] = []
    sections: list[tuple[str, list[Opt]]] = []
    current: list[Opt] | None = None
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not stripped or stripped[0] in ";#":
            continue
        indent = len(raw) - len(raw.lstrip()) + 1
        if stripped.startswith("["):
            m = _SECTION.fullmatch(stripped)
            if m is None or not m.group(1).strip():
                raise bad_file(source, number, indent, stripped, "a section header must be [name]")
            name = m.group(1).strip()
            if name == "global":
                current = common
            else:
                current = list(common)
                sections.append((name, current))
            continue
        if re.match(r"include\s", stripped):
            raise bad_file(
                source,
                number,
                indent,
                "include",
                "include files are not supported: paste the included options into this file",
            )
        if "${" in stripped:
            raise bad_file(
                source, number, raw.index("${") + 1, stripped.split("=")[0].strip(),
                "environment variables are not expanded: write the value itself",
            )  # fmt: skip
        key, eq, value = stripped.partition("=")
        key = key.strip()
        if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", key):
            raise bad_file(
                source, number, indent, key or stripped, "expected an option: name=value"
            )
        if current is None:
            raise bad_file(
                source, number, indent, key, "option outside a [job] or [global] section"
            )
        column: int | None = None
        if eq:
            after = raw.index("=", raw.index(key) + len(key)) + 1
            column = after + len(raw[after:]) - len(raw[after:].lstrip()) + 1
        current.append(Opt(key, value.strip() if eq else None, number, column or indent))
    if not sections:
        raise bad_file(source, None, None, "", "no job section ([name] other than [global])")
    jobs: list[JobSpec] = []
    warnings: list[str] = []
    for name, options in sections:
        spec, notes = job_spec(name, options, source)
        jobs.append(spec)
        warnings.extend(notes)
    columns = {"jobs": ", ".join(f"[{name}]" for name, _ in sections)}
    return Measured(source, "fio-job", jobs=tuple(jobs), columns=columns, warnings=tuple(warnings))
