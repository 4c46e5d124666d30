"""fio readers: JSON results (json, json+), job files, option values and located errors."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sanpath.ingest import fio, fio_job, fio_json
from sanpath.ingest.workload import Placement, from_jobs
from sanpath.spec import ScenarioError, WorkloadSpec
from tests.conftest import SCENARIOS

RESULT = SCENARIOS / "measured" / "fio_result.json"
JOBFILE = SCENARIOS / "measured" / "fio_oltp.fio"


def located(exc: pytest.ExceptionInfo[ScenarioError]) -> tuple[str, int | None, int | None]:
    (problem,) = exc.value.problems
    return problem.source, problem.line, problem.column


# -- JSON results ---------------------------------------------------------------------------


def test_result_totals_from_raw_numbers() -> None:
    raw = json.loads(RESULT.read_text())
    m = fio.read(RESULT)
    assert m.format == "fio-json" and m.devices == ["oltp", "seqread"]
    for job, s in zip(raw["jobs"], m.samples, strict=True):
        rd, wr = job["read"], job["write"]
        seconds = max(rd["runtime"], wr["runtime"]) / 1000  # runtime is in ms
        ios = rd["total_ios"] + wr["total_ios"]
        nbytes = rd["io_bytes"] + wr["io_bytes"]
        assert s.seconds == pytest.approx(seconds)
        assert s.iops == pytest.approx(ios / seconds)
        assert s.bytes_per_s / 1e6 == pytest.approx(nbytes / seconds / 1e6, rel=1e-6)
        assert s.read_fraction == pytest.approx(rd["total_ios"] / ios)
        assert s.bytes_per_s / s.iops == pytest.approx(nbytes / ios, rel=1e-6)
        assert s.read_latency_s == pytest.approx(rd["lat_ns"]["mean"] * 1e-9)  # ns -> s
    oltp = m.samples[0]
    assert oltp.bytes_per_s / oltp.iops == pytest.approx(8192)
    assert m.samples[1].write_latency_s is None  # no writes, no write latency


def test_result_job_options() -> None:
    oltp, seq = fio.read(RESULT).jobs
    assert (oltp.name, oltp.read_fraction, oltp.random_fraction) == ("oltp", 0.7, 1.0)
    assert oltp.block_sizes == ((8192, 1.0),) and oltp.write_block_sizes is None
    assert (oltp.iodepth, oltp.runtime_s, oltp.filenames) == (16, 60.0, ("/dev/sdb",))
    assert (seq.read_fraction, seq.random_fraction, seq.block_sizes) == (1.0, 0.0, ((262144, 1.0),))


def edited(tmp_path: Path, change: Any) -> Path:
    data = json.loads(RESULT.read_text())
    change(data)
    path = tmp_path / "result.json"
    path.write_text(json.dumps(data, indent=2))
    return path


def test_json_plus_bins_and_kib_fallback(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        read = data["jobs"][0]["read"]
        read["clat_ns"]["bins"] = {"2048": 10, "4096": 50}
        del read["bw_bytes"]
        read["bw"] = 44800  # KiB/s

    s = fio.read(edited(tmp_path, change)).samples[0]
    assert s.read_bytes_per_s == 44800 * 1024


def test_preamble_lines_skipped(tmp_path: Path) -> None:
    path = tmp_path / "out.json"
    path.write_text("note: both iodepth >= 1 and synchronous I/O engine are selected\n")
    path.write_text(path.read_text() + RESULT.read_text())
    m = fio.read(path)
    assert len(m.samples) == 2 and "skipped 1 line" in m.warnings[0]


def test_missing_jobs_key(tmp_path: Path) -> None:
    path = tmp_path / "nojobs.json"
    path.write_text('{\n  "fio version": "fio-3.36",\n  "global options": {}\n}\n')
    with pytest.raises(ScenarioError, match="jobs") as exc:
        fio.read(path)
    assert located(exc) == (str(path), 1, 1)
    assert exc.value.problems[0].path == "jobs"


def test_bad_value_located_at_its_key(tmp_path: Path) -> None:
    def change(data: dict[str, Any]) -> None:
        data["jobs"][1]["job options"]["bs"] = "4q"
        data["jobs"][1]["read"]["iops"] = "many"

    path = edited(tmp_path, change)
    lines = path.read_text().splitlines()
    with pytest.raises(ScenarioError, match="not a number") as exc:
        fio.read(path)
    line = next(i for i, t in enumerate(lines, 1) if '"iops": "many"' in t)
    assert located(exc) == (str(path), line, lines[line - 1].index('"iops"') + 1)
    assert exc.value.problems[0].path == "jobs[1].read.iops"

    def options_only(data: dict[str, Any]) -> None:
        data["jobs"][1]["job options"]["bs"] = "4q"

    path = edited(tmp_path, options_only)
    lines = path.read_text().splitlines()
    with pytest.raises(ScenarioError, match="not a size") as exc:
        fio.read(path)
    line = next(i for i, t in enumerate(lines, 1) if '"bs": "4q"' in t)
    assert located(exc) == (str(path), line, lines[line - 1].index('"bs"') + 1)
    assert exc.value.problems[0].path == "jobs[1].job options.bs"


def test_not_json(tmp_path: Path) -> None:
    path = tmp_path / "broken.json"
    path.write_text('{\n  "jobs": [\n    {"jobname": "a",}\n  ]\n}\n')
    with pytest.raises(ScenarioError, match="not JSON") as exc:
        fio_json.read(path)
    assert located(exc)[:2] == (str(path), 3)


# -- job files ------------------------------------------------------------------------------


def test_job_file_sample() -> None:
    m = fio.read(JOBFILE)
    assert m.format == "fio-job"
    oltp, log = m.jobs
    # bssplit=8k/60:64k/10:4k:16k,8k/80:64k/20 -> 4k and 16k share the remaining 30%
    assert dict(oltp.block_sizes) == pytest.approx({8192: 0.6, 65536: 0.1, 4096: 0.15, 16384: 0.15})
    assert oltp.write_block_sizes is not None
    assert dict(oltp.write_block_sizes) == pytest.approx({8192: 0.8, 65536: 0.2})
    assert oltp.read_fraction == pytest.approx(0.7)
    assert oltp.random_fraction == pytest.approx(0.7 * 0.9 + 0.3 * 0.8)
    assert oltp.rate_iops == 1000 and oltp.poisson
    assert oltp.thinktime_s == pytest.approx(250e-6)  # fio's thinktime unit is µs
    assert (oltp.iodepth, oltp.numjobs) == (16, 4)
    assert (oltp.runtime_s, oltp.ramp_time_s) == (600.0, 30.0)  # runtime=10m is minutes
    assert oltp.filenames == ("/dev/mapper/lun01", "/dev/mapper/lun02")
    assert oltp.random_distribution == "zipf:1.1"
    assert (log.read_fraction, log.block_sizes, log.size, log.offset) == (
        0.0,
        ((65536, 1.0),),
        2 * 1024**3,
        1024**3,
    )
    assert log.unsupported == ("verify=crc32c",) and oltp.unsupported == ()
    assert any("logwriter" in w and "verify=crc32c" in w for w in m.warnings)


def job(text: str) -> Any:
    return fio_job.parse("[global]\nioengine=libaio\n[j]\n" + text, "t.fio").jobs[0]


@pytest.mark.parametrize(
    ("option", "reads", "writes"),
    [
        (
            "bssplit=4k/10:64k/50:32k/40,4k/50:8k",
            {4096: 0.1, 65536: 0.5, 32768: 0.4},
            {4096: 0.5, 8192: 0.5},
        ),
        ("bssplit=4k/20:8k:16k", {4096: 0.2, 8192: 0.4, 16384: 0.4}, None),
        ("bssplit=4k/0:8k/50", {4096: 0.5, 8192: 0.5}, None),  # /0 counts as missing
        ("bssplit=,16k", {4096: 1.0}, {16384: 1.0}),  # empty read part keeps bs
        ("bsrange=4k-64k", {4096: 0.5, 65536: 0.5}, None),
        ("bs=8k,32k", {8192: 1.0}, {32768: 1.0}),
        ("bs=16k", {16384: 1.0}, None),
    ],
)  # fmt: skip
def test_block_size_options(option: str, reads: dict[int, float], writes: Any) -> None:
    spec = job(f"rw=randrw\n{option}\n")
    assert dict(spec.block_sizes) == pytest.approx(reads)
    if writes is None:
        assert spec.write_block_sizes is None
    else:
        assert dict(spec.write_block_sizes) == pytest.approx(writes)


def test_bssplit_rest_to_largest_share() -> None:
    m = fio_job.parse("[j]\nrw=randread\nbssplit=4k/30:8k/50\n", "t.fio")
    assert dict(m.jobs[0].block_sizes) == pytest.approx({4096: 0.3, 8192: 0.7})
    assert "add to 80" in m.warnings[0]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("bs=4k", 4096),
        ("bs=1m", 1024**2),
        ("bs=4kib", 4000),  # kb_base=1024 (default): IEC prefixes are powers of 1000
        ("kb_base=1000\nbs=4k", 4000),
        ("kb_base=1000\nbs=4kib", 4096),
        ("bs=0x2000", 8192),
    ],
)
def test_size_suffixes(text: str, expected: int) -> None:
    assert job(text).block_sizes == ((expected, 1.0),)


@pytest.mark.parametrize(
    ("text", "field", "expected"),
    [
        ("thinktime=250", "thinktime_s", 250e-6),
        ("thinktime=2ms", "thinktime_s", 0.002),
        ("runtime=90", "runtime_s", 90.0),
        ("runtime=2m", "runtime_s", 120.0),
        ("ramp_time=500ms", "ramp_time_s", 0.5),
        ("timeout=1h", "runtime_s", 3600.0),
    ],
)
def test_time_units(text: str, field: str, expected: float) -> None:
    assert getattr(job(text), field) == pytest.approx(expected)


def test_mix_rate_and_inheritance() -> None:
    m = fio_job.parse(
        "[global]\nrw=randrw\nrwmixwrite=40\n[a]\n[global]\nbs=64k\n[b]\nrwmixread=90\n",
        "t.fio",
    )
    a, b = m.jobs
    assert (a.read_fraction, a.block_sizes) == (pytest.approx(0.6), ((4096, 1.0),))
    assert (b.read_fraction, b.block_sizes) == (pytest.approx(0.9), ((65536, 1.0),))
    # one rate_iops value caps reads and writes apart: 500 + 500, read share 1/2
    m = fio_job.parse("[j]\nrw=randrw\nrwmixread=70\nrate_iops=500\n", "t.fio")
    assert m.jobs[0].rate_iops == 1000 and m.jobs[0].read_fraction == 0.5
    assert "read share" in m.warnings[0]
    spec = job("rw=randrw\nrate_iops=500,\n")
    assert spec.rate_iops is None and spec.unsupported[0].startswith("rate_iops=500,")
    assert job("rw=randread\nrate_iops=800\n").rate_iops == 800


def test_unsupported_options_warned() -> None:
    m = fio_job.parse("[j]\nrw=randtrim\ndirect=0\nfsync=1\nzonemode=zbd\nverify\n", "t.fio")
    spec = m.jobs[0]
    assert set(spec.unsupported) == {"rw=randtrim", "direct=0", "fsync=1", "zonemode=zbd", "verify"}
    assert any("direct=0" in w and "fsync=1" in w and "zonemode=zbd" in w for w in m.warnings)
    assert job("filename=/dev/dsk/foo@3,0\\:c:/dev/sdb").filenames == (
        "/dev/dsk/foo@3,0:c",
        "/dev/sdb",
    )


@pytest.mark.parametrize(
    ("text", "line", "column", "where", "message"),
    [
        ("[j]\nrw=randread\nbs=4q\n", 3, 4, "bs", "not a size"),
        ("[j]\nbssplit=4k/50:8q/50\n", 2, 15, "bssplit", "not a size"),
        ("[j]\n  runtime = 10 sec\n", 2, 13, "runtime", "not a time"),
        ("[j]\nrw=randomread\n", 2, 4, "rw", "not an I/O pattern"),
        ("[j]\niodepth=0\n", 2, 9, "iodepth", "out of range"),
        ("[j]\nrwmixread=150\n", 2, 11, "rwmixread", "out of range"),
        ("[j]\nbssplit=4k/80:8k/40\n", 2, 9, "bssplit", "more than 100"),
        ("bs=4k\n[j]\n", 1, 1, "bs", "outside"),
        ("[j]\ninclude other.fio\n", 2, 1, "include", "not supported"),
        ("[j]\nfilename=${DEV}\n", 2, 10, "filename", "environment"),
        ("[global]\nbs=4k\n", None, None, "", "no job section"),
    ],
)
def test_bad_job_files(
    tmp_path: Path, text: str, line: int | None, column: int | None, where: str, message: str
) -> None:
    path = tmp_path / "bad.fio"
    path.write_text(text)
    with pytest.raises(ScenarioError, match=message) as exc:
        fio.read(path)
    assert located(exc) == (str(path), line, column)
    assert exc.value.problems[0].path == where


# -- job options mapped onto the workload's shape ------------------------------------------


def shaped(options: str) -> dict[str, Any]:
    """The workload (as written) of a one-job file with ``options``; it must validate."""
    (spec,) = fio_job.parse(f"[j]\n{options}\n", "t.fio").jobs
    (w,) = from_jobs([spec], {"j": "data"}, Placement(1, {"data": 1}))
    WorkloadSpec.model_validate({k: v for k, v in w.data.items() if k not in ("hosts", "luns")})
    return w.data


def test_job_shape_maps_onto_the_new_fields() -> None:
    data = shaped(
        "rw=randrw\nrwmixread=70\npercentage_random=30\nbssplit=8k/50:64k/50,4k\n"
        "random_distribution=zoned:60/10:30/20:10/70\nthinktime=500\niodepth=4"
    )
    assert data["random_fraction"] == pytest.approx(0.3) and data["pattern"] == "random"
    assert data["block_size"] == [[8192, 0.5], [65536, 0.5]]
    assert data["write_block_size"] == [[4096, 1.0]]
    assert data["access"] == {"dist": "zoned", "zones": [[60, 10], [30, 20], [10, 70]]}
    assert data["think_time"] == "500us" and data["outstanding"] == 4


@pytest.mark.parametrize(
    ("distribution", "access"),
    [
        ("zipf:1.2", {"dist": "zipf", "theta": 1.2}),
        ("pareto:0.2", {"dist": "pareto", "h": 0.2}),
        ("random", None),
        ("normal:10", None),
    ],
)
def test_random_distribution_maps_to_access(distribution: str, access: Any) -> None:
    data = shaped(f"rw=randread\nrandom_distribution={distribution}")
    assert data.get("access") == access and "random_fraction" not in data


def test_unmodelled_distributions_are_named() -> None:
    (spec,) = fio_job.parse("[j]\nrw=randread\nrandom_distribution=zipf:1.2:0.25\n", "t").jobs
    assert spec.access == {"dist": "zipf", "theta": 1.2}
    assert any("centre" in u for u in spec.unsupported)
    (spec,) = fio_job.parse("[j]\nrw=randread\nrandom_distribution=gauss:5\n", "t").jobs
    assert spec.access is None and any("uniform" in u for u in spec.unsupported)


def test_open_loop_thinktime_is_left_out_with_a_note() -> None:
    (spec,) = fio_job.parse("[j]\nrw=randread\nrate_iops=100\nthinktime=1ms\n", "t").jobs
    (w,) = from_jobs([spec], {"j": "data"}, Placement(1, {"data": 1}))
    assert "think_time" not in w.data and "thinktime" in w.comment


@pytest.mark.parametrize(
    ("value", "column", "message"),
    [
        ("zipf:x", 26, "not a number"),
        ("pareto:1.5", 28, "between 0 and 1"),
        ("zoned:60/10:30", 33, "not a zone"),
        ("zoned:60/10:30/20", 21, "add to 90"),
    ],
)
def test_bad_distributions_are_located(
    tmp_path: Path, value: str, column: int, message: str
) -> None:
    path = tmp_path / "bad.fio"
    path.write_text(f"[j]\nrw=randread\nrandom_distribution={value}\n")
    with pytest.raises(ScenarioError, match=message) as exc:
        fio.read(path)
    assert located(exc) == (str(path), 3, column)
