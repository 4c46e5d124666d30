"""The published experiments: every reference point of the shipped seed scenarios is checked.

Each scenario's ``reference:`` section holds the published figures and the band each must
fall in (see ``docs/validation.md``). A point the model is known to miss is listed in
``KNOWN_MISSES`` with the reason; the test fails if such a point starts to pass, so the list
(and the validation report's "where the model still disagrees") is kept true.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sanpath.experiments.reference import compare
from tests.conftest import SCENARIOS
from tests.experiments.bands import assert_bands, reference_points

SEEDS = (
    "qd_sweep_2007",
    "vi_queue_depth_2012",
    "fast_track_2012",
    "backup_2013",
    "hpux_max_q_depth",
)

KNOWN_MISSES: dict[tuple[str, str], str] = {}
"""(scenario, point label) -> why the model misses it; empty while every point is met."""


@pytest.mark.slow
@pytest.mark.parametrize("name", SEEDS)
def test_published_points_fall_in_their_bands(name: str) -> None:
    assert_bands(name, compare(SCENARIOS / f"{name}.yaml"), KNOWN_MISSES)


def test_known_misses_name_existing_points() -> None:
    points = reference_points(SEEDS)
    assert len(points) >= 2 * len(SEEDS)
    assert set(KNOWN_MISSES) <= points, set(KNOWN_MISSES) - points


def test_the_report_opens_with_a_summary_and_writes_numbers_for_people(tmp_path: Path) -> None:
    from sanpath.experiments.validation import write_report

    paths = [SCENARIOS / "qd_sweep_2007.yaml", SCENARIOS / "quickstart.yaml"]
    text = write_report(paths, tmp_path / "validation.md", tmp_path / "records", ios=2_000)
    assert (tmp_path / "validation.md").read_text() == text
    lines = text.splitlines()
    summary = lines.index("## Summary")
    first = next(i for i, line in enumerate(lines) if line.startswith("## qd-sweep-2007"))
    assert summary < first  # the summary comes before every experiment
    row = next(line for line in lines[summary:first] if line.startswith("| [qd-sweep"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    assert cells[0] == "[qd-sweep-2007](#qd-sweep-2007)"
    compared, within = int(cells[1]), cells[2]
    assert within.endswith(f"of {compared}") and cells[5].endswith("%")
    assert any("`quickstart` | not yet compared" in line for line in lines[summary:first])
    assert not re.search(r"\de[+-]\d", text), "no scientific notation"
    # no picture is written: the page names the record the documentation build draws from
    assert [p.name for p in (tmp_path / "records").iterdir()] == ["qd_sweep_2007.json"]
    assert (
        ":::{sanpath-plot} sanpath plot qd_sweep_2007.json --kind compare "
        "--out validation-qd_sweep_2007.png\n:files: records/qd_sweep_2007.json\n" in text
    )
