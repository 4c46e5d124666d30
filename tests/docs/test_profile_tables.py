"""The profile tables of the documentation are generated from the catalogue, not typed.

``docs/_ext/sanpath_docs.py`` renders ``sanpath profiles --json`` into the pages that show
profiles (directive ``sanpath-profiles``). These tests hold the rendered rows to the
catalogue itself (every number of every profile, its value and origin) and the pages to the
directive (no profile row typed by hand)."""

from __future__ import annotations

import json
import re
import sys
from typing import Any

import pytest

from sanpath.spec.profiles import (
    ARRAY_PROFILES,
    DRIVE_PROFILES,
    HBA_PROFILES,
    field_paths,
    origins,
)
from tests.conftest import ROOT

sys.path.insert(0, str(ROOT / "docs" / "_ext"))
sanpath_docs = pytest.importorskip("sanpath_docs")

KINDS = {"drive": DRIVE_PROFILES, "hba": HBA_PROFILES, "array": ARRAY_PROFILES}


def _leaf(fields: dict[str, Any], path: str) -> Any:
    for part in path.split("."):
        fields = fields[part]
    return fields


def _catalogue(kind: str) -> list[tuple[str, str, str, str, str]]:
    out = []
    for name, fields in KINDS[kind].items():
        found = origins(name)
        for path in field_paths(fields):
            if path == "model":
                continue
            value = _leaf(fields, path)
            text = value if isinstance(value, str) else json.dumps(value)
            out.append((name, path, text, found[path].kind, found[path].note))
    return out


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_the_generated_table_is_the_catalogue(kind: str) -> None:
    rows = sanpath_docs.profile_rows(kind)
    # the label is the name, with a drive's model beside it
    named = [(label.split(" (")[0], *rest) for label, *rest in rows]
    assert named == _catalogue(kind)
    assert {kind for _, _, _, kind, _ in rows} <= {"sourced", "assumed", "fitted"}
    if kind == "drive":  # the era's window, fitted
        assert ("hdd-15k (hdd)", "reorder_window", "16", "fitted") in [r[:4] for r in rows]


def test_names_and_fields_keep_only_those() -> None:
    rows = sanpath_docs.profile_rows("hba", ["qlogic-qle2562"], ["processor", "command_time"])
    assert [(r[0], r[1], r[2], r[3]) for r in rows] == [
        ("qlogic-qle2562", "command_time", "10us", "assumed"),
        ("qlogic-qle2562", "processor", "card", "assumed"),
    ]
    with pytest.raises(ValueError, match="unknown drive profiles: hdd-16k"):
        sanpath_docs.profile_rows("drive", ["hdd-16k"])
    with pytest.raises(ValueError, match="no 'disk' profiles"):
        sanpath_docs.profile_rows("disk")


def test_the_pages_use_the_generated_tables_and_type_no_profile_row() -> None:
    pages = {p.name: p.read_text(encoding="utf-8") for p in (ROOT / "docs").glob("*.md")}
    for kind in KINDS:
        assert f"```{{sanpath-profiles}} {kind}\n" in pages["scenario.md"], kind
    assert "```{sanpath-profiles} drive\n" in pages["model.md"]
    assert "```{sanpath-profiles} hba\n" in pages["model.md"]
    names = "|".join(re.escape(n) for profiles in KINDS.values() for n in profiles)
    typed = re.compile(rf"^\| `({names})` \|", re.M)
    for name, text in pages.items():
        assert not typed.findall(text), f"docs/{name} types a profile row by hand"
