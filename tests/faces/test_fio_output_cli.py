"""``sanpath run`` and ``sanpath sweep`` with ``--output-format fio-json``."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest

from sanpath.cli import main
from sanpath.ingest import fio
from tests.results.test_fio_json import SMALL


@pytest.fixture
def small(tmp_path: Path) -> Path:
    data = copy.deepcopy(SMALL)
    data["run"] = {"ios": 400, "warmup": "fixed", "warmup_ios": 100}
    path = tmp_path / "small.yaml"
    path.write_text(json.dumps(data, indent=2))  # JSON is YAML
    return path


def _out(capsys: pytest.CaptureFixture[str], argv: list[str]) -> tuple[int, str, str]:
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_run_prints_fio_json(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _out(capsys, ["run", str(small), "--output-format", "fio-json"])
    assert code == 0
    doc = json.loads(out)
    assert doc["fio version"].startswith("sanpath-")
    assert [j["jobname"] for j in doc["jobs"]] == ["oltp", "log"]
    oltp = doc["jobs"][0]
    assert oltp["job options"]["iodepth"] == "4"
    assert oltp["job options"]["rw"] == "randrw"
    assert doc["disk_util"]
    # sanpath's own reader takes it as fio output
    path = small.with_suffix(".json")
    path.write_text(out)
    measured = fio.read(path)
    assert [s.device for s in measured.samples] == ["oltp", "log"]


def test_json_and_text_still_work(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = _out(capsys, ["run", str(small), "--json"])
    assert code == 0 and "iops" in json.loads(out)
    code, out2, _ = _out(capsys, ["run", str(small), "--output-format", "json"])
    assert code == 0 and json.loads(out2)["iops"] == json.loads(out)["iops"]
    code, text, _ = _out(capsys, ["run", str(small), "--output-format", "text"])
    assert code == 0 and "scenario fio-small" in text


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--json", "--output-format", "fio-json"], "disagree"),
        (["--analytic", "--output-format", "fio-json"], "--analytic"),
        (["--output-format", "csv"], "invalid choice"),
    ],
)
def test_contradictions_are_refused(
    small: Path, capsys: pytest.CaptureFixture[str], extra: list[str], message: str
) -> None:
    try:
        code, out, err = _out(capsys, ["run", str(small), *extra])
    except SystemExit as exc:  # argparse's usage error
        code, err = int(str(exc.code)), capsys.readouterr().err
        out = ""
    assert code == 2
    assert message in err
    assert out == ""


def test_a_sweep_prints_one_job_per_point(small: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", str(small), "--vary", "workloads.0.outstanding=2,4", "--quiet"]
    code, out, _ = _out(capsys, [*argv, "--replicates", "2", "--output-format", "fio-json"])
    assert code == 0
    doc = json.loads(out)
    assert [j["jobname"] for j in doc["jobs"]] == [
        "workloads.0.outstanding=2, replicate=0",
        "workloads.0.outstanding=2, replicate=1",
        "workloads.0.outstanding=4, replicate=0",
        "workloads.0.outstanding=4, replicate=1",
    ]
    # two workloads per point: one job holding both, with the point's window as options
    job: dict[str, Any] = doc["jobs"][0]
    assert job["read"]["total_ios"] > 0 and job["write"]["total_ios"] > 0
    assert "oltp, log" in job["job options"]["description"]
    assert "runtime" in job["job options"]


def test_a_sweep_keeps_its_table_without_the_flag(
    small: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, monkeypatch: Any
) -> None:
    monkeypatch.chdir(tmp_path)  # the sweep cache goes here
    argv = ["sweep", str(small), "--vary", "workloads.0.outstanding=2", "--quiet"]
    code, out, _ = _out(capsys, argv)
    assert code == 0 and "workloads.0.outstanding" in out and "iops" in out
    code, out, err = _out(capsys, [*argv, "--output-format", "fio-json", "--out", "t.csv"])
    assert code == 2 and "--out" in err and out == ""


def test_a_sweep_in_processes_gives_the_serial_jobs(
    small: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["sweep", str(small), "--vary", "workloads.0.outstanding=2,4", "--quiet"]
    argv += ["--output-format", "fio-json"]
    _, serial, _ = _out(capsys, argv)
    _, parallel, _ = _out(capsys, [*argv, "--jobs", "2"])
    strip = ("timestamp", "timestamp_ms", "time")
    one, two = json.loads(serial), json.loads(parallel)
    assert {k: v for k, v in one.items() if k not in strip} == {
        k: v for k, v in two.items() if k not in strip
    }
