"""Every number the executed pages state in their text is one their run backs (see
:mod:`tests.docs.claims`): the check the documentation build runs on itself."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import ROOT
from tests.docs.claims import unbacked_numbers


def executed(build: Path) -> list[Path]:
    return sorted((build / "jupyter_execute").rglob("*.ipynb"))


def test_every_tutorial_was_executed(build: Path) -> None:
    names = {p.name for p in executed(build)}
    expected = {p.name for p in (ROOT / "notebooks").glob("*.ipynb")}
    assert expected and expected <= names


def test_executed_pages_state_only_numbers_their_run_backs(build: Path) -> None:
    problems = []
    for path in executed(build):
        notebook = json.loads(path.read_text(encoding="utf-8"))
        problems += [f"{path.name}: {u}" for u in unbacked_numbers(notebook, ROOT)]
    assert problems == [], "numbers typed by hand:\n" + "\n".join(problems)
