"""The notebooks as a reader runs and reads them: no docs tools needed, no checks in view.

A reader installs sanpath with its ``notebook`` extra only, so no cell may import MyST-NB;
the figures the prose quotes go through :func:`sanpath.glue.glue`, in cells the site hides
(tag ``remove-cell``) together with the asserts that check the prose's claims.
``make notebooks`` runs every notebook with the docs tools blocked
(``tests/data/without_docs_tools``); the tests here check the same without running them.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT

NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))
BLOCKER = ROOT / "tests" / "data" / "without_docs_tools"


def code_cells(path: Path) -> list[tuple[int, dict[str, Any], str]]:
    cells = json.loads(path.read_text(encoding="utf-8"))["cells"]
    return [(i, c, "".join(c["source"])) for i, c in enumerate(cells) if c["cell_type"] == "code"]


def statements(source: str) -> list[ast.stmt]:
    """The cell's top-level statements and everything under them (magics left out)."""
    text = "\n".join(line for line in source.splitlines() if not line.startswith(("%", "!")))
    return [node for node in ast.walk(ast.parse(text)) if isinstance(node, ast.stmt)]


def hidden(cell: dict[str, Any]) -> bool:
    return "remove-cell" in cell.get("metadata", {}).get("tags", [])


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_no_cell_needs_the_docs_tools(path: Path) -> None:
    for i, _, source in code_cells(path):
        for node in statements(source):
            names = (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else []
            ) + ([node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            assert not any(n.split(".")[0] == "myst_nb" for n in names), (
                f"{path.name} cell {i} imports myst_nb: use sanpath.glue.glue"
            )


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_glue_and_asserts_stay_out_of_the_reader_s_view(path: Path) -> None:
    for i, cell, source in code_cells(path):
        if hidden(cell):
            continue
        for node in statements(source):
            assert not isinstance(node, ast.Assert), f"{path.name} cell {i} shows an assert"
            call = node.value if isinstance(node, ast.Expr) else None
            name = getattr(getattr(call, "func", None), "id", None)
            assert name != "glue", f"{path.name} cell {i} shows a glue call"


def test_glue_without_myst_nb_shows_or_does_nothing() -> None:
    """In a process where MyST-NB cannot be imported, glue still works."""
    script = (
        "from sanpath.glue import glue\n"
        "glue('quiet', 1.5, display=False)\n"
        "glue('shown', 'the value', display=True)\n"
        "try:\n    import myst_nb\nexcept ModuleNotFoundError:\n    print('blocked')\n"
    )
    env_path = f"{BLOCKER}:{ROOT}"
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        check=True,
        env={"PYTHONPATH": env_path, "SANPATH_PURE_PYTHON": "1", "PATH": "/usr/bin:/bin"},
    )
    assert done.stdout.splitlines() == ["the value", "blocked"]
