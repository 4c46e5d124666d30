"""``calibrate --measured`` reads measured files with the import's readers (issue 36, case 5):
every malformed input is a located error (file, line, column, key) and exit code 2, never a
traceback, and nothing runs before the file has been read."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sanpath.cli import main
from sanpath.experiments.calibrate import read_measurements
from sanpath.spec import ScenarioError
from tests.experiments.test_outputs import small

HEADER = "workloads.0.outstanding,iops,latency_ms_mean\n"
FIT = "array.controller.io_time"


def job(**changes: Any) -> dict[str, Any]:
    """One fio job as fio 3 writes it, with ``changes`` merged in."""
    direction = {"iops": 500.0, "bw_bytes": 4_096_000, "runtime": 60_000}
    found: dict[str, Any] = {
        "jobname": "qd4",
        "job options": {"iodepth": "4", "bs": "8k", "rw": "randread"},
        "read": {**direction, "clat_ns": {"mean": 2e6, "percentile": {"99.000000": 9e6}}},
        "write": {"iops": 0.0, "bw_bytes": 0, "runtime": 0},
    }
    found.update(changes)
    return found


def fio(*jobs: Any) -> str:
    return json.dumps({"fio version": "fio-3.36", "jobs": list(jobs)}, indent=1)


# (file name, bytes, what the message must say, line or None)
MALFORMED = [
    ("list.json", b"[1, 2]", "no JSON object", 1),
    ("scalars.json", fio(1, 2).encode(), "jobs[0]: expected a job object", 4),
    ("no-mean.json", fio(job(read={"iops": 5.0, "runtime": 9, "bw_bytes": 1,
                                    "clat_ns": {"N": 3}})).encode(), "", None),
    ("options.json", fio(job(**{"job options": "iodepth=4"})).encode(),
     "jobs[0].job options: expected an object", None),
    ("nan.json", fio(job(read={"iops": float("nan"), "bw_bytes": 1, "runtime": 9})).encode(),
     "jobs[0].read.iops: nan: expected a finite number >= 0", None),
    ("depth.json", fio(job(**{"job options": {"iodepth": "four"}})).encode(), "iodepth", None),
    ("unclosed.csv", (HEADER + "[unclosed,500,2\n").encode(),
     "2:1: workloads.0.outstanding: '[unclosed' is not a value", 2),
    ("short.csv", (HEADER + "4,500\n").encode(), "2 cells, the header has 3", 2),
    ("tag.csv", (HEADER + "!!python/object:os.system x,500,2\n").encode(),
     "is not a value", 2),
    ("word.csv", (HEADER + "4,lots,2\n").encode(), "2:3: iops: 'lots' is not a number", 2),
    ("nan.csv", (HEADER + "4,nan,2\n").encode(), "iops: nan: expected a finite number", 2),
    ("inf.csv", (HEADER + "4,500,inf\n").encode(), "latency_ms_mean: inf: expected a finite", 2),
    ("negative.csv", (HEADER + "4,-500,2\n").encode(), "iops: -500 is below 0", 2),
    ("latin1.csv", (HEADER + "4,500,2\n# caf\xe9\n").encode("latin-1"),
     "3:6: file: not UTF-8 or UTF-16 text", 3),
    ("empty.csv", b"", "empty file", 1),
    ("header.csv", b"workloads.0.outstanding,qd\n4,5\n", "no figure column", 1),
    ("twice.csv", b"iops,iops\n4,5\n", "iops: this column name is given twice", 1),
    ("nothing.csv", HEADER.encode(), "no points below the header", None),
]  # fmt: skip


@pytest.fixture
def scenario(tmp_path: Path) -> Path:
    path = tmp_path / "base.yaml"
    YAML().dump(small(), path)
    return path


def calibrate_cli(scenario: Path, measured: Path, out: Path) -> int:
    """``sanpath calibrate`` of ``scenario`` to ``measured``, written to ``out``."""
    return main(
        ["calibrate", str(scenario), "--measured", str(measured), "--fit", FIT, "--out", str(out)]
    )


@pytest.mark.parametrize(
    ("name", "content", "message", "line"), MALFORMED, ids=[m[0] for m in MALFORMED]
)
def test_every_malformed_measured_file_is_a_located_error(
    scenario: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    name: str,
    content: bytes,
    message: str,
    line: int | None,
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    if name == "no-mean.json":  # a latency without a mean is no latency: the point reads
        (point,) = read_measurements(path)
        assert "latency_ms_mean" not in point.metrics and point.metrics["iops"] == 5.0
        return
    runs: list[Any] = []
    monkeypatch.setattr(sys.modules["sanpath.sim"], "run", lambda *a, **k: runs.append(a))
    assert calibrate_cli(scenario, path, tmp_path / "out.yaml") == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and runs == []
    assert err.startswith(f"{path}:" + (f"{line}:" if line is not None else "")), err
    assert message in err, err
    with pytest.raises(ScenarioError):
        read_measurements(path)


def test_a_byte_order_mark_and_utf16_read_as_the_plain_file(tmp_path: Path) -> None:
    text = HEADER + "4,500,2\n16,900,8\n"
    plain = tmp_path / "plain.csv"
    plain.write_text(text)
    expected = read_measurements(plain)
    assert [p.settings for p in expected] == [
        {"workloads.0.outstanding": 4},
        {"workloads.0.outstanding": 16},
    ]
    for name, raw in (
        ("bom.csv", b"\xef\xbb\xbf" + text.encode()),
        ("utf16.csv", text.encode("utf-16")),
        ("utf16be.csv", b"\xfe\xff" + text.encode("utf-16-be")),
    ):
        path = tmp_path / name
        path.write_bytes(raw)
        assert read_measurements(path) == expected, name
    fio_file = tmp_path / "fio.json"
    fio_file.write_bytes(fio(job()).encode("utf-16"))
    (point,) = read_measurements(fio_file)
    assert point.settings == {
        "workloads.0.outstanding": 4,
        "workloads.0.block_size": 8192,
        "workloads.0.pattern": "random",
        "workloads.0.read_fraction": 1.0,
    }
    assert point.metrics == pytest.approx(
        {"iops": 500.0, "mb_per_s": 4.096, "latency_ms_mean": 2.0, "latency_ms_p99": 9.0}
    )


def test_a_pipe_or_a_device_is_refused_by_name(
    scenario: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import os

    fifo = tmp_path / "pipe.csv"
    os.mkfifo(fifo)
    for path in (fifo, Path("/dev/zero")):
        assert calibrate_cli(scenario, path, tmp_path / "o.yaml") == 2
        err = capsys.readouterr().err
        assert f"{path}: is not a regular file" in err, err
