"""Tests for the ``sanpath`` command line: exit codes, messages and the JSON it prints."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from sanpath import __version__, compiled
from sanpath.cli import main
from tests.conftest import ROOT, SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"
FAST = ["--set", "run.ios=2000", "--set", "run.warmup_ios=200"]

# A reduced quickstart: four LUNs on two RAID 5 groups, a short run. Line 16 holds the HBA
# queue_depth (value at column 22).
SMALL = """\
name: small
seed: 3
run: {ios: 2000, warmup_ios: 200}
hosts:
  - name: db
    max_io_size: 1MiB
    lun_queue_depth: 32
    multipath: round-robin
    qfull: {retry_delay: 3ms, throttle: vmware}
    hbas:
      - count: 1
        ports: 2
        speed: 4GFC
        max_transfer: 512KiB
        command_time: 10us
        queue_depth: 32
        pcie: {gen: 1, lanes: 4}
array:
  ports: 4
  port_speed: 8GFC
  controller: {cores: 2, io_time: 20us}
  lun_queue_depth: clariion
  pools:
    - {name: r5, raid: raid5, drives: 5, groups: 2, drive: hdd-15k}
  luns:
    - {name: data, count: 4, pool: r5}
workloads:
  - name: oltp
    outstanding: 8
    block_size: 8KiB
"""

LATENCY_KEYS = {"mean", "p50", "p90", "p99", "p99_9", "max"}
LAYERS = {
    "host",
    "host_queue",
    "hba",
    "pcie",
    "fabric",
    "array_port",
    "controller",
    "cache",
    "lun_queue",
    "drive",
}


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL, encoding="utf-8")
    return path


def run_json(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[dict[str, Any], str]:
    code = main(["run", *args, "--json"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert err == ""
    return json.loads(out), out


# --- validate ---------------------------------------------------------------------------


def test_validate_ok(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    assert main(["validate", str(QUICKSTART), str(small)]) == 0
    out, err = capsys.readouterr()
    assert out.splitlines() == [f"{QUICKSTART}: ok (quickstart)", f"{small}: ok (small)"]
    assert err == ""


def test_validate_bad(capsys: pytest.CaptureFixture[str], small: Path, tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(SMALL.replace("queue_depth: 32\n        pcie", "queue_depth: -8\n        pcie"))
    missing = tmp_path / "missing.yaml"
    code = main(["validate", str(bad), str(small), str(missing)])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == f"{small}: ok (small)\n"  # the good file is still checked
    assert f"{bad}:16:22: hosts.0.hbas.0.queue_depth: Input should be greater than" in err
    assert f"{missing}: file not found" in err
    assert "Traceback" not in err


def test_validate_empty_and_unparsable(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    broken = tmp_path / "broken.yaml"
    broken.write_text("name: x\nhosts: [\n")
    assert main(["validate", str(empty), str(broken)]) == 2
    _, err = capsys.readouterr()
    assert f"{empty}: the file is empty" in err
    assert f"{broken}:3:1: YAML does not parse" in err


# --- run --------------------------------------------------------------------------------


def test_run_json(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    data, _ = run_json(capsys, str(small))
    assert {"name", "seed", "ios", "sim_seconds", "iops", "mb_per_s"} <= set(data)
    assert data["name"] == "small"
    assert data["seed"] == 3
    assert data["ios"] == 2000
    assert data["sim_seconds"] > 0
    assert data["iops"] == pytest.approx(data["ios"] / data["sim_seconds"])
    # every I/O is an 8 KiB read, and MB/s are 10^6 bytes/s
    assert data["mb_per_s"] == pytest.approx(data["iops"] * 8192 / 1e6)
    latency = data["latency_ms"]
    assert set(latency) >= LATENCY_KEYS
    assert 0 < latency["p50"] <= latency["p90"] <= latency["p99"] <= latency["p99_9"]
    assert latency["mean"] <= latency["max"]
    assert set(data["ci95"]) >= {"iops", "latency_ms_mean"}
    for lo, hi in data["ci95"].values():
        assert lo <= hi
    counters = data["counters"]
    assert {"commands", "split_children", "qfull", "retries"} <= set(counters)
    assert counters["commands"] >= data["ios"]
    assert counters["split_children"] == 0  # 8 KiB never reaches the 512 KiB split limit
    stations = data["stations"]
    assert stations
    for st in stations:
        assert {"name", "kind", "utilization", "mean_queue", "mean_wait_ms"} <= set(st)
        assert "mean_service_ms" in st
    names = {st["name"] for st in stations}
    assert {"array.controller", "array.r5.drives", "array.lun.data", "db.hba.cpu"} <= names
    controller = next(st for st in stations if st["name"] == "array.controller")
    assert controller["mean_service_ms"] == pytest.approx(0.020)
    breakdown = data["breakdown_ms"]
    assert set(breakdown) == LAYERS
    assert sum(breakdown.values()) == pytest.approx(latency["mean"], rel=1e-6)
    assert breakdown["controller"] >= 0.020 - 1e-9
    assert breakdown["drive"] > 0


def test_run_seed(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    a, text_a = run_json(capsys, str(small), "--seed", "11")
    _, text_b = run_json(capsys, str(small), "--seed", "11")
    c, _ = run_json(capsys, str(small), "--seed", "12")
    assert text_a == text_b
    assert a["seed"] == 11 and c["seed"] == 12
    assert c["iops"] != a["iops"]
    assert c["latency_ms"]["mean"] != a["latency_ms"]["mean"]


def test_run_quickstart_with_set(capsys: pytest.CaptureFixture[str]) -> None:
    data, _ = run_json(capsys, str(QUICKSTART), *FAST, "--set", "workloads.0.block_size=16KiB")
    assert data["name"] == "quickstart"
    assert data["ios"] == 2000
    assert data["mb_per_s"] == pytest.approx(data["iops"] * 16384 / 1e6)


def test_run_summary(capsys: pytest.CaptureFixture[str], small: Path) -> None:
    assert main(["run", str(small)]) == 0
    out, _ = capsys.readouterr()
    assert out.startswith("scenario small  seed 3")
    assert "latency (ms)" in out and "where the time goes" in out
    with pytest.raises(json.JSONDecodeError):
        json.loads(out)


@pytest.mark.parametrize(
    ("assignment", "message"),
    [
        ("run.iox=1", "{path}:3:1: run.iox: unknown key"),
        ("hosts.0.hbas.0.queue_depth=-4", "{path}:16:22: hosts.0.hbas.0.queue_depth: Input"),
        ("hosts.0.hbas.0.speed=3GFC", "{path}:13:16: hosts.0.hbas.0.speed: unknown Fibre"),
        ("hosts.2.count=1", "{path}: hosts.2.count: hosts.2: index 2 out of range"),
        ("workloads.0.block_size=8Kb", "'b' means bits"),
        ("no-equals", "sanpath: error: expected dotted.key=value"),
        ("run.ios=[1", "sanpath: error: run.ios: cannot read '[1'"),
    ],
)
def test_run_bad_set(
    capsys: pytest.CaptureFixture[str], small: Path, assignment: str, message: str
) -> None:
    code = main(["run", str(small), "--set", assignment])
    out, err = capsys.readouterr()
    assert code == 2
    assert out == ""
    assert message.format(path=small) in err
    assert "Traceback" not in err


def test_run_missing_file(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    assert main(["run", str(tmp_path / "nope.yaml"), "--json"]) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.strip() == f"{tmp_path / 'nope.yaml'}: file not found"


# --- schema, usage ----------------------------------------------------------------------


def test_schema(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["schema"]) == 0
    out, _ = capsys.readouterr()
    schema = json.loads(out)
    assert {"hosts", "array", "workloads"} <= set(schema["properties"])
    assert schema["title"] == "sanpath scenario"


def test_profiles_lists_every_profile(capsys: pytest.CaptureFixture[str]) -> None:
    from sanpath.spec.profiles import ARRAY_PROFILES, DRIVE_PROFILES, HBA_PROFILES

    assert main(["profiles", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    origins = listed.pop("provenance")
    listed.pop("about")
    assert listed == {"drive": DRIVE_PROFILES, "hba": HBA_PROFILES, "array": ARRAY_PROFILES}
    assert origins["qlogic-qle2562"]["command_time"]["kind"] == "assumed"
    assert main(["profiles"]) == 0
    text = capsys.readouterr().out
    for name in (*DRIVE_PROFILES, *HBA_PROFILES, *ARRAY_PROFILES):
        assert f"  {name} " in text
    assert "max_transfer: 512KiB" in text  # values as a scenario writes them
    assert "sourced" in text and "assumed" in text


def test_one_profile_prints_each_number_with_its_origin(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["profiles", "kingston-dc600m"]) == 0
    text = capsys.readouterr().out
    assert "read_iops: 94000  [sourced] Kingston SEDC600M" in text
    assert "read_latency: 63us  [assumed] 63 us" in text  # not a Kingston figure
    assert "units: 4" in text  # derived from the datasheet, printed
    assert main(["profiles", "emulex-lpe16002", "--json"]) == 0
    one = json.loads(capsys.readouterr().out)
    assert one["kind"] == "hba"
    assert one["provenance"]["command_time"]["kind"] == "sourced"
    assert "1 million" in one["provenance"]["command_time"]["note"]
    assert main(["profiles", "no-such-card"]) == 2


@pytest.mark.parametrize("argv", [["frobnicate"], [], ["run"], ["validate"], ["run", "x", "-z"]])
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    _, err = capsys.readouterr()
    assert "sanpath" in err and "error:" in err
    assert "Traceback" not in err


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    out = capsys.readouterr().out.strip()
    assert out == f"sanpath {__version__}, {compiled.describe()}"


# --- the module entry point -------------------------------------------------------------


@pytest.mark.slow
def test_python_m_sanpath(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhosts: []\n")
    ok = subprocess.run(
        [sys.executable, "-m", "sanpath", "validate", str(QUICKSTART)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert ok.returncode == 0, ok.stderr
    assert ok.stdout.strip() == f"{QUICKSTART}: ok (quickstart)"
    failed = subprocess.run(
        [sys.executable, "-m", "sanpath", "validate", str(bad)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    assert failed.returncode == 2
    assert f"{bad}:2:1: hosts: Tuple should have at least 1 item" in failed.stderr
    assert "array: required field is missing" in failed.stderr
    assert "Traceback" not in failed.stderr
