"""The command line refuses impossible runs at once, naming the field, unless forced."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest

from sanpath.cli import main
from sanpath.sim import budget
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"
SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted((SCENARIOS / "proposals").glob("*.yaml"))


def small(ios: int = 1_000) -> dict[str, Any]:
    return textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=ios,
        warmup_ios=100,
    )


def test_cli_validate_accepts_every_shipped_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert len(SHIPPED) >= 8
    assert main(["validate", *map(str, SHIPPED)]) == 0
    assert capsys.readouterr().out.count(": ok (") == len(SHIPPED)


@pytest.mark.parametrize(
    "assignments",
    [
        ["run.ios=1e12"],
        ["hosts.0.count=10000000"],
        ["hosts.0.count=50000"],
        ["workloads.0.outstanding=null", "workloads.0.rate=1e12"],
    ],
)
def test_cli_refuses_impossible_runs_at_once(
    assignments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.perf_counter()
    code = main(["run", str(QUICKSTART), *[a for x in assignments for a in ("--set", x)]])
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert code == 2
    assert elapsed < 1.0
    assert out == "" and "Traceback" not in err
    key = assignments[-1].split("=")[0]
    assert err.startswith(f"{QUICKSTART}:") and f" {key}: " in err
    validation = assignments == ["hosts.0.count=10000000"]  # beyond MAX_HOSTS: not a budget
    assert ("at most 100,000 hosts" in err) if validation else ("--force" in err)


def test_cli_force_runs_anyway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ruamel.yaml import YAML

    path = tmp_path / "small.yaml"
    YAML().dump(small(), path)
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    assert main(["run", str(path), "--json"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["run", str(path), "--json", "--force"]) == 0
    assert '"iops"' in capsys.readouterr().out


def test_sweep_cli_refusal_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["sweep", str(QUICKSTART), "--quiet", "--no-cache", "--vary", "hosts.0.count=1,60000"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"{QUICKSTART}:9:12: hosts.0.count: sweep (hosts.0.count=60000)")
    assert "--force" in err
