"""The validation page says one thing once: its summary counts what its sections list, and
its figures are written for people (no ``-0.0%``, no ``0.9999`` commands per I/O)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

PAGE = (ROOT / "docs" / "validation.md").read_text(encoding="utf-8")


def sections() -> dict[str, list[list[str]]]:
    """Each experiment's table rows (point, metric, role, published, model, error, ok)."""
    found: dict[str, list[list[str]]] = {}
    for section in re.split(r"(?m)^## ", PAGE)[1:]:
        name, _, body = section.partition("\n")
        if "| point | metric | role |" not in body:
            continue
        rows = [
            [c.strip() for c in line.strip().strip("|").split(" | ")]
            for line in body.splitlines()
            if line.startswith("| ") and not line.startswith("| point |")
        ]
        rows = [r for r in rows if len(r) == 7]
        if rows:
            found[name.strip()] = rows
    return found


def test_the_summary_counts_what_the_sections_list() -> None:
    listed = sections()
    assert listed
    for name, rows in listed.items():
        fitted = sum(1 for r in rows if r[2] == "fitted")
        predicted = sum(1 for r in rows if r[2] == "predicted")
        summary = re.search(
            rf"(?m)^\| \[{re.escape(name)}\]\(#[\w-]+\) \| \d+ \| [^|]+ \| (\d+) \| (\d+) \|", PAGE
        )
        assert summary is not None, name
        assert (int(summary.group(1)), int(summary.group(2))) == (fitted, predicted), name
        assert f"{fitted} point(s) fitted, {predicted} predicted" in PAGE, name


def test_figures_for_people() -> None:
    for rows in sections().values():
        for row in rows:
            assert row[5] not in ("-0.0%", "+0.0%"), row
            digits = re.sub(r"[^0-9]", "", row[4]).lstrip("0")
            assert len(digits) <= 4 or row[4].endswith("0" * (len(digits) - 3)), row


def test_the_page_is_written_from_the_records(monkeypatch: pytest.MonkeyPatch) -> None:
    """The committed page is what its records and scenarios give: a page edited by hand, or
    left behind by a record, fails here (``make validation`` writes both)."""
    from sanpath.experiments.validation import render

    monkeypatch.chdir(ROOT)
    paths = sorted(Path("scenarios").glob("*.yaml"))
    assert render(paths, Path("docs/validation"), Path("docs/validation.md")) == PAGE
    records = sorted(p.name for p in (ROOT / "docs" / "validation").glob("*.json"))
    shown = re.findall(r"(?m)^:files: validation/(\S+\.json)$", PAGE)
    assert records and shown == records
