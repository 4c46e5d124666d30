"""``sanpath headroom``: its JSON, its text, and exit code 2 on bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from sanpath.cli import main
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

PNG = b"\x89PNG\r\n\x1a\n"

KEYS = {
    "kind",
    "name",
    "grow",
    "slos",
    "base",
    "growth",
    "growth_twin",
    "growth_limit",
    "realised",
    "knee",
    "saturation",
    "binding",
    "bottleneck",
    "bottleneck_utilization",
    "bottleneck_simulated",
    "meaning",
    "confirmed",
    "simulated",
    "curve",
    "notes",
    "seed",
    "upper",
    "resolved",
    "to_resolve",
}


@pytest.fixture
def mm1(tmp_path: Path) -> Path:
    """An open M/M/1 queue: 1 ms exponential service, 250 I/Os per second (JSON is YAML)."""
    path = tmp_path / "mm1.yaml"
    data = textbook.open_queue(250.0, {"dist": "exponential", "mean": "1ms"}, ios=20_000)
    path.write_text(json.dumps(data))
    return path


def test_json_keys_twin_only(mm1: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["headroom", str(mm1), "--slo", "mean<=2ms", "--simulations", "0", "--json"])
    assert code == 0
    payload = json.loads(capsys.readouterr().out)
    assert set(payload) == KEYS
    assert payload["growth"] == pytest.approx(2.0, rel=1e-3)  # (1000 - 1/0.002) / 250
    assert payload["slos"] == [{"slo": "mean<=2ms", "metric": "mean", "op": "<=", "limit_ms": 2.0}]
    assert payload["confirmed"] is None
    assert payload["simulated"] == []
    assert payload["realised"]["workloads.0.rate"] == pytest.approx(500.0, rel=1e-3)


@pytest.mark.slow
def test_simulated_confirmation_text_and_plot(
    mm1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    png = tmp_path / "headroom.png"
    code = main(
        [
            "headroom",
            str(mm1),
            "--slo",
            "mean<=2ms",
            "--slo",
            "p99<20ms",
            "--simulations",
            "1",
            "--precision",
            "0.05",
            "--seed",
            "3",
            "--plot",
            str(png),
        ]
    )
    assert code == 0
    out = capsys.readouterr().out
    assert "answer      x2" in out
    assert "simulated   x2" in out
    assert "95% CI" in out
    assert "saturates first: array.pool.drives" in out
    assert f"plot written to {png}" in out
    assert png.read_bytes().startswith(PNG)


def test_set_overrides_apply_before_the_search(
    mm1: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["headroom", str(mm1), "--slo", "mean<=2ms", "--simulations", "0", "--json"]
    assert main([*args, "--set", "workloads.0.rate=125"]) == 0
    assert json.loads(capsys.readouterr().out)["growth"] == pytest.approx(4.0, rel=1e-3)


@pytest.mark.parametrize(
    ("slo", "message"),
    [
        ("p99<20", "no unit"),
        ("p99>20ms", "upper limit"),
        ("p42<20ms", "unknown metric"),
        ("mean<", "cannot read the limit"),
    ],
)
def test_bad_slo_exits_2_without_a_traceback(
    mm1: Path, slo: str, message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["headroom", str(mm1), "--slo", slo]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert "Traceback" not in err


def test_bad_input_exits_2(mm1: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    quickstart = str(SCENARIOS / "quickstart.yaml")
    assert main(["headroom", quickstart, "--slo", "p99<20ms"]) == 2
    assert "not rate-driven" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["headroom", str(mm1), "--slo", "p99<20ms", "--grow", "drives"])
    assert exc.value.code == 2
    with pytest.raises(SystemExit) as exc:
        main(["headroom", str(mm1)])  # --slo is required
    assert exc.value.code == 2
    assert main(["headroom", str(tmp_path / "missing.yaml"), "--slo", "p99<20ms"]) == 2
    assert main(["headroom", str(mm1), "--slo", "p99<20ms", "--set", "hosts.0.count=0"]) == 2
    capsys.readouterr()
