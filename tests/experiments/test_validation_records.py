"""The validation records: one per experiment, agreeing with its scenario, drawn by
``sanpath plot --kind compare`` (``sanpath compare --out`` writes the same record)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from sanpath.cli import main
from sanpath.experiments.validation import read_record, record_path, stale_records
from sanpath.plotting import PlotInputError, plot_files
from tests.conftest import ROOT, SCENARIOS
from tests.experiments.test_calibrate import scenario_with_reference

RECORDS = ROOT / "docs" / "validation"
SHIPPED = sorted(SCENARIOS.glob("*.yaml"))


def test_every_experiment_has_a_record_that_matches_its_scenario() -> None:
    """A scenario's reference section and its record agree point by point; a record that no
    longer does (a point added, a published figure or band changed) fails here, before the
    page shows it: run ``make validation``."""
    assert stale_records(SHIPPED, RECORDS) == []
    experiments = [read_record(p)["experiment"] for p in sorted(RECORDS.glob("*.json"))]
    assert len(experiments) >= 7


def test_no_validation_picture_is_committed() -> None:
    """The build draws the pictures from the records; none is kept beside them."""
    assert sorted(RECORDS.glob("*.png")) == []


def test_a_stale_record_is_named(tmp_path: Path) -> None:
    paths = [SCENARIOS / "qd_sweep_2007.yaml", SCENARIOS / "mixed_p2000.yaml"]
    for path in paths:
        shutil.copy(record_path(RECORDS, path), tmp_path)
    assert stale_records(paths, tmp_path) == []
    qd = record_path(tmp_path, paths[0])
    data = json.loads(qd.read_text())
    changed = next(p for p in data["points"] if p["published"] is not None)
    changed["published"] *= 2
    data["points"][0]["band"] = [0, 1]
    qd.write_text(json.dumps(data))
    (tmp_path / "old_experiment.json").write_text(json.dumps(data))
    record_path(tmp_path, paths[1]).unlink()
    problems = stale_records(paths, tmp_path)
    assert len(problems) == 4, problems
    assert any(f"point {changed['label']!r}: published" in p for p in problems)
    assert any(f"point {data['points'][0]['label']!r}: band [0, 1]" in p for p in problems)
    assert f"{record_path(tmp_path, paths[1])}: missing" in problems[-2]
    assert "old_experiment.json: no scenario" in problems[-1]
    data["points"].pop()
    qd.write_text(json.dumps(data))
    assert "its points are not the scenario's" in stale_records(paths[:1], tmp_path)[0]


def test_compare_keeps_a_record_that_plot_draws(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "ref.yaml"
    YAML().dump(scenario_with_reference(), path)
    record = tmp_path / "ref.json"
    assert main(["compare", str(path), "--out", str(record)]) == 0
    assert f"record written to {record}" in capsys.readouterr().out
    data = read_record(record)
    assert data["scenario"] == str(path) and data["points"][0]["set"]
    ios = [p for p in data["points"] if p["metric"] == "iops" and p["relative_to"] is None]
    assert ios and all(p["interval"][0] < p["model"] < p["interval"][1] for p in ios)
    assert main(["compare", str(path), "--out", str(record)]) == 2  # kept unless --force
    png = tmp_path / "ref.png"
    assert main(["plot", str(record), "--kind", "compare", "--out", str(png)]) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_compare_plot_names_what_is_wrong_in_its_input(tmp_path: Path) -> None:
    good = read_record(record_path(RECORDS, "qd_sweep_2007.yaml"))
    path = tmp_path / "points.json"
    path.write_text(json.dumps(good["points"]))  # the list compare --json prints
    assert plot_files([path], "compare", tmp_path / "list.png").exists()
    good["points"][1]["within"] = "yes"
    path.write_text(json.dumps(good))
    with pytest.raises(PlotInputError, match=r"points\[1\]\.within: expected true, false or null"):
        plot_files([path], "compare", tmp_path / "bad.png")
    path.write_text(json.dumps({"experiment": "x"}))
    with pytest.raises(PlotInputError, match="not a comparison"):
        plot_files([path], "compare", tmp_path / "bad.png")
