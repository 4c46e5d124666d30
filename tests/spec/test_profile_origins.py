"""Every number of every profile says where it comes from."""

from __future__ import annotations

import re

import pytest

from sanpath.spec.profiles import (
    ARRAY_PROFILES,
    DRIVE_PROFILES,
    HBA_PROFILES,
    PROVENANCE,
    field_paths,
    origins,
)

ALL = {**DRIVE_PROFILES, **HBA_PROFILES, **ARRAY_PROFILES}


@pytest.mark.parametrize("name", sorted(ALL))
def test_every_field_has_an_origin(name: str) -> None:
    paths = [p for p in field_paths(ALL[name]) if p != "model"]
    missing = [p for p in paths if p not in PROVENANCE.get(name, {})]
    assert not missing, f"{name}: no origin for {missing}"
    stray = [p for p in PROVENANCE.get(name, {}) if p not in paths]
    assert not stray, f"{name}: origins for fields it does not have: {stray}"
    for path, origin in origins(name).items():
        assert origin.kind in ("sourced", "assumed", "fitted"), path
        assert len(origin.note) > 10, path


def test_the_cheetah_profile_is_hdd_15k_with_the_fitted_window() -> None:
    from sanpath.spec import PoolSpec

    named = PoolSpec(name="p", drive="seagate-cheetah-15k7").drive
    changed = PoolSpec(name="p", drive={"profile": "hdd-15k", "reorder_window": 16}).drive
    assert named == changed
    assert PROVENANCE["seagate-cheetah-15k7"]["reorder_window"].kind == "fitted"


def test_the_generic_hard_disks_weigh_their_eras_window() -> None:
    """hdd-15k and hdd-10k default to the window their era's drives show (16 commands): fitted
    for the 15k, assumed (the 15k's value) for the 10k; ``reorder_window: null`` is the whole
    queue the seed scenarios were calibrated with."""
    from sanpath.spec import HddSpec, PoolSpec

    for name, kind in (("hdd-15k", "fitted"), ("hdd-10k", "assumed")):
        drive = PoolSpec(name="p", drive=name).drive
        assert isinstance(drive, HddSpec) and drive.reorder_window == 16, name
        assert origins(name)["reorder_window"].kind == kind, name
        whole = PoolSpec(name="p", drive={"profile": name, "reorder_window": None}).drive
        assert isinstance(whole, HddSpec) and whole.reorder_window is None, name


_DOCUMENT = re.compile(r"\b(19|20)\d\d\b|\b[\w/.-]+\.(c|h|txt|adoc|md)\b|seed post|commit \w+")


def test_a_sourced_number_names_a_document_read_in_a_copy() -> None:
    """``sourced`` means read in the document the note names (with its date, file or commit);
    a figure only remembered is ``assumed`` and says so."""
    for name, fields in PROVENANCE.items():
        for path, origin in fields.items():
            if origin.kind != "sourced":
                continue
            assert "recalled" not in origin.note, f"{name}.{path}: {origin.note}"
            assert _DOCUMENT.search(origin.note), f"{name}.{path} names no document: {origin.note}"
