"""Reads have limits (issue 36, case 6): a pipe, a device or an endless file given as a
scenario, a result, a measured file or a trace is refused by name at once, never read until
memory runs out or waited on forever."""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from sanpath.files import InputError, check_input, read_input
from sanpath.traces import TraceError, check
from tests.conftest import SCENARIOS
from tests.sim.test_replay import scenario as replay_scenario

ROOT = Path(__file__).resolve().parents[2]


def sanpath(*argv: str) -> subprocess.CompletedProcess[str]:
    """The command line in its own process, given 60 s (a blocked read fails the test)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SANPATH_PURE_PYTHON": "1"}
    return subprocess.run(
        [sys.executable, "-m", "sanpath", *argv],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
        check=False,
    )


@pytest.fixture
def fifo(tmp_path: Path) -> Path:
    path = tmp_path / "pipe.json"
    os.mkfifo(path)
    return path


def test_pipes_and_devices_are_refused_by_every_reader(tmp_path: Path, fifo: Path) -> None:
    run_json = tmp_path / "run.json"
    run_json.write_text("{}")
    picture = str(tmp_path / "p.png")
    for bad, argv in (
        (fifo, ["validate", str(fifo)]),
        (fifo, ["plot", str(fifo), "--kind", "dashboard", "--out", picture]),
        (fifo, ["plot", str(fifo), "--kind", "breakdown", "--out", picture]),
        (fifo, ["import", str(fifo), "--format", "perfmon", "--out", str(tmp_path / "i.yaml")]),
        (Path("/dev/zero"), ["validate", "/dev/zero"]),
        (Path("/dev/zero"), ["diff", "/dev/zero", str(run_json)]),
    ):
        done = sanpath(*argv)
        assert done.returncode == 2, (argv, done.stderr)
        assert f"{bad}: is not a regular file" in done.stderr, (argv, done.stderr)
        assert "Traceback" not in done.stderr and "not found" not in done.stderr


def test_a_trace_that_is_a_device_is_named_as_such(tmp_path: Path) -> None:
    path = tmp_path / "replay.yaml"
    YAML().dump(replay_scenario({"file": "/dev/zero", "format": "msr"}), path)
    done = sanpath("validate", str(path))
    assert done.returncode == 2
    assert "is not a regular file (a pipe or a device)" in done.stderr
    assert "file not found" not in done.stderr


def test_a_compressed_bomb_is_a_located_error_not_a_memory_error(tmp_path: Path) -> None:
    bomb = tmp_path / "bomb.csv.gz"
    with gzip.open(bomb, "wb", compresslevel=9) as handle:
        block = b"\0" * (1 << 20)
        for _ in range(64):  # 64 MiB of one endless line, about 64 kB on disk
            handle.write(block)
    assert bomb.stat().st_size < 1 << 20
    with pytest.raises(TraceError, match=r"bomb\.csv\.gz:1:1: a line longer than 1,048,576"):
        check(bomb, "msr")
    records = (SCENARIOS / "measured" / "msr_hm_0.csv").read_bytes()
    fine = tmp_path / "fine.csv.gz"
    fine.write_bytes(gzip.compress(records))
    check(fine, "msr")  # a real compressed trace still reads


def test_result_files_have_a_size_limit(tmp_path: Path) -> None:
    big = tmp_path / "run.json"
    big.write_text("{" + " " * 5000 + "}")
    with pytest.raises(InputError, match=r"run\.json: is 5.0 kB; a run result is read whole, up"):
        check_input(big, "run result", limit=4096)
    assert read_input(big, "run result", limit=10_000).strip() == "{" + " " * 5000 + "}"
