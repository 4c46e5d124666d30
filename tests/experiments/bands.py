"""Shared check of a scenario's cited figures against their bands, with known misses."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from sanpath import load_scenario
from sanpath.experiments.reference import Comparison
from tests.conftest import SCENARIOS


def assert_bands(name: str, rows: list[Comparison], known: Mapping[tuple[str, str], str]) -> None:
    """Every banded point of ``name`` is within its band, unless listed in ``known``.

    A known miss must still miss: when it starts to pass, the list (and the validation
    report's "where the model still disagrees") has to be updated.
    """
    checked = [r for r in rows if r.within is not None]
    assert checked, f"{name}: no reference point with a band"
    for row in checked:
        detail = f"{name}: {row.label}: model {row.model:.4g} against {row.published:.4g}"
        if (name, row.label) in known:
            assert not row.within, f"{detail} is now within its band: update KNOWN_MISSES"
        else:
            assert row.within, f"{detail} is outside its band"


def reference_points(names: Iterable[str]) -> set[tuple[str, str]]:
    """(scenario, point label) of every reference point of the named shipped scenarios."""
    points = set()
    for name in names:
        reference = load_scenario(SCENARIOS / f"{name}.yaml").reference
        assert reference is not None and reference.points, name
        points |= {(name, p.label) for p in reference.points}
    return points
