"""The build's pictures and printed outputs (``docs/_ext/sanpath_plots.py``) show what their
own commands make: a file two commands would make under one name is refused."""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
sanpath_plots = pytest.importorskip("sanpath_plots")

DIRECTIVE = re.compile(r"(?m)^:::\{sanpath-(?:plot|output)\} (.+)\n((?:(?!:::).*\n)*?):::$")


def made_files() -> dict[str, set[str]]:
    """Each file the documentation's setup lines write, with the commands that write it."""
    made: dict[str, set[str]] = defaultdict(set)
    for page in sorted((ROOT / "docs").rglob("*.md")):
        if "_build" in page.parts:
            continue
        for match in DIRECTIVE.finditer(page.read_text(encoding="utf-8")):
            lines = [match.group(1), *match.group(2).splitlines()]
            for line in (x.strip() for x in lines if x.strip().startswith("sanpath ")):
                argv, into = sanpath_plots._argv(line)
                written = into or (sanpath_plots._output(argv) if "--out" in argv else None)
                if written is not None and not written.endswith((".png", ".gif")):
                    made[written].add(" ".join(line.split()))
    return made


def test_no_two_commands_make_a_file_of_the_same_name() -> None:
    made = made_files()
    assert "my-san-qd.csv" in made and "headroom-rate.json" in made
    assert {name: cmds for name, cmds in made.items() if len(cmds) > 1} == {}


def test_a_file_made_by_another_command_is_refused(tmp_path: Path) -> None:
    made = sanpath_plots._Made(tmp_path)
    made.claim("h.json", "sanpath headroom a.yaml --json > h.json")
    made.claim("h.json", "sanpath headroom a.yaml --json > h.json")  # the same command: shared
    with pytest.raises(ValueError, match=r"h\.json is made in this build by `sanpath headroom a"):
        sanpath_plots._Made(tmp_path).claim("h.json", "sanpath headroom b.yaml --json > h.json")
    # a stored record stands for what its command writes
    made.claim("r.json", "the documentation file validation/r.json")
    made.claim("r.json", "sanpath compare r.yaml --out r.json")
    with pytest.raises(ValueError, match=r"r\.json is made"):
        made.claim("r.json", "the documentation file other/r.json")
