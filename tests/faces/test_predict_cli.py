"""``sanpath predict``: the twin alone, its shapes, its curve and where it says it does not
apply."""

from __future__ import annotations

import json

import pytest

from sanpath.cli import main
from sanpath.spec import load_scenario
from sanpath.theory.twin import caveats, phases, predict
from tests.conftest import SCENARIOS


def _json(capsys: pytest.CaptureFixture[str], *argv: str) -> dict:
    assert main(["predict", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_predict_prints_the_twin_in_the_shape_of_a_run(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SCENARIOS / "quickstart.yaml")
    out = _json(capsys, path)
    twin = predict(path)
    assert out["analytic"] is True and out["applies"] is True and out["caveats"] == []
    assert out["iops"] == pytest.approx(twin.iops)
    assert out["latency_ms"]["mean"] == pytest.approx(twin.latency_ms_mean)
    assert out["bottleneck"] == "array.r5.drives"
    # the layers sum to the mean latency, the drives dominate a disk-bound path
    assert sum(out["breakdown_ms"].values()) == pytest.approx(out["latency_ms"]["mean"])
    assert max(out["breakdown_ms"], key=out["breakdown_ms"].get) == "drive"
    assert main(["predict", path]) == 0
    text = capsys.readouterr().out
    assert "where the time goes" in text and "bottleneck: array.r5.drives" in text
    assert "not reliable" not in text


def test_set_changes_the_prediction(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SCENARIOS / "quickstart.yaml")
    base = _json(capsys, path)["iops"]
    more = _json(capsys, path, "--set", "workloads.0.outstanding=32")["iops"]
    assert more > base * 1.3


def test_vary_prints_a_curve(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(SCENARIOS / "quickstart.yaml")
    out = _json(capsys, path, "--vary", "workloads.0.outstanding=1..64")
    points = out["points"]
    assert [p["point"]["workloads.0.outstanding"] for p in points] == [1, 2, 4, 8, 16, 32, 64]
    iops = [p["iops"] for p in points]
    assert iops == sorted(iops) and iops[-1] > 5 * iops[0]
    assert main(["predict", path, "--vary", "workloads.0.outstanding=1,8"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[1].split()[:2] == ["workloads.0.outstanding", "IOPS"]
    assert len(lines) == 4


def test_a_qfull_storm_is_flagged_beside_every_figure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = str(SCENARIOS / "fan_in.yaml")
    out = _json(capsys, path)
    assert out["applies"] is False
    assert any(c.startswith("QUEUE FULL storm") for c in out["caveats"])
    assert main(["predict", path]) == 0
    text = capsys.readouterr().out
    assert text.count("not reliable here") == 3  # IOPS, MB/s and the mean latency
    assert "beyond the twin" in text


def test_a_schedule_is_predicted_phase_by_phase(capsys: pytest.CaptureFixture[str]) -> None:
    path = SCENARIOS / "vi_queue_depth_2012.yaml"
    out = _json(capsys, str(path))
    assert [p["from_s"] for p in out["phases"]] == [0.0, 60.0, 120.0]
    assert out["phases"][2]["set"] == {"hosts.0.hbas.0.queue_depth": 32}
    scenario = load_scenario(path)
    last = phases(scenario)[-1]
    assert out["phases"][2]["iops"] == pytest.approx(predict(last.scenario).iops)
    assert main(["predict", str(path), "--vary", "workloads.0.outstanding=1,2"]) == 2
    assert "schedule" in capsys.readouterr().err


@pytest.mark.parametrize(
    "name, expected",
    [
        ("quickstart", []),
        ("qd_sweep_2007", []),
        ("fan_in", ["QUEUE FULL storm", "saturated SPTF pool"]),
        ("modern_afa", []),  # open loops beside a closed one: a mixed network
        ("backup_2013", ["copy jobs", "saturated SPTF pool"]),
        ("transfer_split", ["saturated SPTF pool"]),
        # small cached I/Os behind 320 KiB reads on one 4GFC link: the twin's IOPS was 4x
        ("vi_queue_depth_2012", ["I/Os of very different sizes"]),
    ],
)
def test_caveats_of_the_shipped_scenarios(name: str, expected: list[str]) -> None:
    scenario = load_scenario(SCENARIOS / f"{name}.yaml")
    found = caveats(scenario, predict(scenario))
    assert [next(p for p in expected if c.startswith(p)) for c in found] == expected
