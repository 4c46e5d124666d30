"""fio-shaped output: fio's keys and types (against a file fio wrote), consistent values, and
the round trip through sanpath's own fio readers (``import`` and ``calibrate``)."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from sanpath.experiments.calibrate import read_fio_json
from sanpath.experiments.fio_output import job_options
from sanpath.ingest import fio_json as ingest
from sanpath.results import GroupFigures, RunResult
from sanpath.results.fio_json import (
    FIO_PERCENTILES,
    combine,
    fio_document,
    fio_job,
    latency_buckets,
)
from sanpath.sim import run
from sanpath.spec import Scenario, load_scenario
from sanpath.stats import LatencyHistogram

REFERENCE = Path(__file__).resolve().parent.parent / "data" / "fio" / "reference.json"

# Two hosts; a closed-loop mixed workload with a block-size mix on two LUNs, and an open-loop
# sequential writer on a third: both directions, both loops, two jobs in one group.
SMALL: dict[str, Any] = {
    "name": "fio-small",
    "seed": 5,
    "run": {"ios": 1500, "warmup": "fixed", "warmup_ios": 200},
    "hosts": [
        {
            "name": "db",
            "count": 2,
            "lun_queue_depth": 32,
            "hbas": [{"count": 1, "ports": 1, "speed": "8GFC", "queue_depth": 64}],
        }
    ],
    "array": {
        "ports": 2,
        "port_speed": "8GFC",
        "controller": {"cores": 2, "io_time": "20us"},
        "cache": {"read_hit": 0.3, "write_back": "1GiB", "hit_time": "20us"},
        "pools": [{"name": "r10", "raid": "raid10", "drives": 8, "groups": 1, "drive": "hdd-15k"}],
        "luns": [
            {"name": "data", "count": 2, "pool": "r10"},
            {"name": "logs", "count": 1, "pool": "r10"},
        ],
    },
    "workloads": [
        {
            "name": "oltp",
            "luns": ["data"],
            "outstanding": 4,
            "block_size": {"4KiB": 0.6, "8KiB": 0.4},
            "read_fraction": 0.7,
        },
        {
            "name": "log",
            "luns": ["logs"],
            "rate": 200,
            "block_size": "64KiB",
            "read_fraction": 0.0,
            "pattern": "sequential",
        },
    ],
}


@pytest.fixture(scope="module")
def scenario() -> Scenario:
    return load_scenario(SMALL)


@pytest.fixture(scope="module")
def result(scenario: Scenario) -> RunResult:
    return run(scenario)


@pytest.fixture(scope="module")
def document(scenario: Scenario, result: RunResult) -> dict[str, Any]:
    """sanpath's output as a reader gets it: through JSON text."""
    doc = result.to_fio_json(job_options(scenario), timestamp=1_700_000_000.5)
    loaded: dict[str, Any] = json.loads(json.dumps(doc, indent=2))
    return loaded


@pytest.fixture(scope="module")
def reference() -> dict[str, Any]:
    text = REFERENCE.read_text()
    data: dict[str, Any] = json.loads(text[text.index("{") :])  # fio's note line comes first
    return data


def _json_type(value: Any) -> str:
    return {bool: "bool", int: "int", float: "float", str: "str", dict: "object"}.get(
        type(value), type(value).__name__
    )


def _paths(node: Any, prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], str]]:
    """Every key path below ``node`` with its JSON type (``job options`` values left out:
    they are the job's own)."""
    if isinstance(node, dict):
        for key, value in node.items():
            path = (*prefix, key)
            yield path, _json_type(value)
            if key != "job options":
                yield from _paths(value, path)


def _get(node: Any, path: tuple[str, ...]) -> Any:
    for part in path:
        node = node[part]
    return node


# -- keys and types against the file fio wrote -----------------------------------------------


def test_the_reference_is_fio_output(reference: dict[str, Any]) -> None:
    assert reference["fio version"].startswith("fio-")
    job = reference["jobs"][0]
    assert job["read"]["total_ios"] > 0
    assert job["write"]["total_ios"] > 0
    assert list(job["read"]["clat_ns"]["percentile"]) == [f"{p:f}" for p in FIO_PERCENTILES]


def test_every_job_key_fio_writes_is_there_with_fios_type(
    document: dict[str, Any], reference: dict[str, Any]
) -> None:
    fio_job_tree = reference["jobs"][0]
    for job in document["jobs"]:
        missing, wrong = [], []
        for path, kind in _paths(fio_job_tree):
            try:
                ours = _get(job, path)
            except KeyError:
                if "percentile" not in path:  # a direction without I/O has none, as in fio
                    missing.append(".".join(path))
                continue
            if _json_type(ours) != kind:
                wrong.append(f"{'.'.join(path)}: {_json_type(ours)}, fio {kind}")
        assert not missing, f"job {job['jobname']}: missing {missing}"
        assert not wrong, f"job {job['jobname']}: {wrong}"
        assert all(isinstance(v, str) for v in job["job options"].values())


def test_the_written_direction_has_fios_percentile_keys(
    document: dict[str, Any], reference: dict[str, Any]
) -> None:
    fio_keys = list(reference["jobs"][0]["read"]["clat_ns"]["percentile"])
    for job in document["jobs"]:
        for key in ("read", "write"):
            if job[key]["total_ios"]:
                assert list(job[key]["clat_ns"]["percentile"]) == fio_keys
                assert "percentile" not in job[key]["lat_ns"]  # fio: lat_percentiles=0
            else:
                assert "percentile" not in job[key]["clat_ns"]


def test_top_level_and_disk_util_keys(document: dict[str, Any], reference: dict[str, Any]) -> None:
    for key, value in reference.items():
        if key not in ("jobs", "disk_util"):
            assert _json_type(document[key]) == _json_type(value), key
    assert document["fio version"].startswith("sanpath-")
    assert document["timestamp"] == 1_700_000_000
    assert document["timestamp_ms"] == 1_700_000_000_500
    fio_disk = reference["disk_util"][0]
    assert document["disk_util"]
    for disk in document["disk_util"]:
        for key, value in fio_disk.items():
            assert _json_type(disk[key]) == _json_type(value), key
        assert 0.0 <= disk["util"] <= 100.0


# -- values consistent, in fio's file and in ours ---------------------------------------------


def _check_direction(d: dict[str, Any]) -> None:
    assert d["io_kbytes"] == d["io_bytes"] >> 10
    assert d["bw"] == d["bw_bytes"] // 1024
    assert d["clat_ns"]["N"] == d["total_ios"]
    assert d["lat_ns"]["N"] == d["total_ios"]
    if not d["total_ios"]:
        assert d["iops"] == 0.0 and d["runtime"] == 0
        return
    # iops from the exact window, runtime rounded up to whole ms: within one ms of I/Os
    assert d["iops"] * d["runtime"] / 1e3 == pytest.approx(d["total_ios"], abs=d["iops"] / 1e3 + 1)
    assert d["bw_bytes"] == pytest.approx(d["iops"] * d["io_bytes"] / d["total_ios"], rel=1e-6)
    for name in ("clat_ns", "lat_ns"):
        lat = d[name]
        assert lat["min"] <= lat["mean"] <= lat["max"]
        assert lat["stddev"] >= 0.0
    pct = list(d["clat_ns"]["percentile"].values())
    assert pct == sorted(pct)
    assert d["clat_ns"]["min"] <= pct[0] and pct[-1] <= d["clat_ns"]["max"]


def test_fios_own_file_passes_the_consistency_checks(reference: dict[str, Any]) -> None:
    for key in ("read", "write"):
        _check_direction(reference["jobs"][0][key])


def test_values_are_consistent(document: dict[str, Any]) -> None:
    for job in document["jobs"]:
        for key in ("read", "write", "trim"):
            _check_direction(job[key])
        assert sum(job["iodepth_level"].values()) == pytest.approx(100.0)
        shares = [*job["latency_ns"].values(), *job["latency_us"].values()]
        shares += job["latency_ms"].values()
        assert sum(shares) == pytest.approx(100.0, abs=0.1)
        assert job["job_runtime"] == max(job["read"]["runtime"], job["write"]["runtime"])


def test_figures_match_the_result(document: dict[str, Any], result: RunResult) -> None:
    for job in document["jobs"]:
        fig = result.groups["workloads"][job["jobname"]]
        assert job["read"]["total_ios"] == fig.reads
        assert job["write"]["io_bytes"] == fig.bytes_written
        assert job["read"]["iops"] == pytest.approx(fig.read_iops, rel=1e-12)
        if fig.writes:
            assert job["write"]["lat_ns"]["mean"] == pytest.approx(fig.write.mean * 1e9)
            assert job["write"]["clat_ns"]["mean"] == job["write"]["lat_ns"]["mean"]
            assert job["write"]["slat_ns"]["N"] == 0


def test_bw_agg_is_each_jobs_share_of_the_group(document: dict[str, Any]) -> None:
    writes = [job["write"] for job in document["jobs"] if job["write"]["bw_samples"]]
    assert len(writes) == 2
    assert sum(w["bw_agg"] for w in writes) == pytest.approx(100.0, rel=1e-6)


def test_the_closed_loop_sits_at_its_iodepth(document: dict[str, Any]) -> None:
    oltp = next(j for j in document["jobs"] if j["jobname"] == "oltp")
    assert oltp["iodepth_level"]["4"] == 100.0
    assert oltp["latency_depth"] == 4


# -- the round trip through sanpath's fio readers ----------------------------------------------


def test_import_reads_back_the_runs_figures(
    document: dict[str, Any], result: RunResult, scenario: Scenario
) -> None:
    measured = ingest.parse(json.dumps(document), "sanpath.json")
    assert not measured.warnings
    samples = {s.device: s for s in measured.samples}
    assert set(samples) == set(result.groups["workloads"])
    iops = sum(s.iops for s in samples.values())
    assert iops == pytest.approx(result.iops, rel=1e-9)
    mb = sum(s.bytes_per_s for s in samples.values()) / 1e6
    assert mb == pytest.approx(result.mb_per_s, rel=1e-6)  # bw_bytes are whole bytes/s
    reads = sum(s.read_iops for s in samples.values())
    assert reads / iops == pytest.approx(result.read_iops / result.iops, rel=1e-9)
    weighted = sum(
        s.read_iops * (s.read_latency_s or 0.0) + s.write_iops * (s.write_latency_s or 0.0)
        for s in samples.values()
    )
    assert weighted / iops * 1e3 == pytest.approx(result.latency_ms["mean"], rel=1e-9)
    jobs = {j.name: j for j in measured.jobs}
    oltp, log = jobs["oltp"], jobs["log"]
    spec = {w.name: w for w in scenario.workloads}
    assert oltp.read_fraction == spec["oltp"].read_fraction
    assert dict(oltp.block_sizes) == pytest.approx(dict(spec["oltp"].block_size))
    assert (oltp.iodepth, oltp.numjobs, oltp.rate_iops) == (4, 1, None)
    assert oltp.random_fraction == 1.0
    assert log.read_fraction == 0.0 and log.random_fraction == 0.0
    assert log.rate_iops == 400.0  # 200 per host x 2 hosts
    assert log.poisson


def test_calibrate_reads_back_the_runs_figures(document: dict[str, Any]) -> None:
    points = {p.label: p for p in read_fio_json(document, "sanpath.json")}
    job = next(j for j in document["jobs"] if j["jobname"] == "oltp")
    oltp = points["oltp"]
    iops = job["read"]["iops"] + job["write"]["iops"]
    assert oltp.metrics["iops"] == pytest.approx(iops)
    lat = (
        job["read"]["iops"] * job["read"]["lat_ns"]["mean"]
        + job["write"]["iops"] * job["write"]["lat_ns"]["mean"]
    ) / iops
    assert oltp.metrics["latency_ms_mean"] == pytest.approx(lat / 1e6)
    assert oltp.settings == {
        "workloads.0.outstanding": 4,
        "workloads.0.block_size": [[4096, 0.6], [8192, 0.4]],  # the bssplit the run wrote
        "workloads.0.threads": 1,
        "workloads.0.pattern": "random",
        "workloads.0.read_fraction": 0.7,
    }


def test_the_readers_read_fios_own_file(reference: dict[str, Any]) -> None:
    measured = ingest.parse(REFERENCE.read_text(), str(REFERENCE))
    (sample,) = measured.samples
    assert sample.read_iops == reference["jobs"][0]["read"]["iops"]
    assert measured.jobs[0].iodepth == 4
    assert read_fio_json(reference)[0].metrics["iops"] > 0


# -- the pieces, on figures made by hand -------------------------------------------------------


def _figures(read_s: list[float], write_s: list[float], span_s: float = 1.0) -> GroupFigures:
    read, write = LatencyHistogram(bits=6), LatencyHistogram(bits=6)
    read.record_many(read_s)
    write.record_many(write_s)
    return GroupFigures(
        name="job",
        span_s=span_s,
        reads=len(read_s),
        writes=len(write_s),
        bytes_read=4096 * len(read_s),
        bytes_written=8192 * len(write_s),
        qfull=0,
        read=read,
        write=write,
        read_sumsq=sum(x * x for x in read_s),
        write_sumsq=sum(x * x for x in write_s),
    )


def test_percentiles_and_moments_in_ns() -> None:
    values = [i * 1e-5 for i in range(1, 1001)]  # 10 us .. 10 ms
    job = fio_job("job", _figures(values, []))
    clat = job["read"]["clat_ns"]
    assert clat["N"] == 1000
    assert (clat["min"], clat["max"]) == (10_000, 10_000_000)
    assert clat["mean"] == pytest.approx(sum(values) / 1000 * 1e9)
    mean = sum(values) / 1000
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / 999)
    assert clat["stddev"] == pytest.approx(sd * 1e9, rel=1e-9)
    for p in FIO_PERCENTILES:
        exact = values[math.ceil(p / 100 * 1000) - 1] * 1e9
        assert clat["percentile"][f"{p:f}"] == pytest.approx(exact, rel=2**-6)
    assert job["read"]["bw_bytes"] == 4096 * 1000
    assert job["read"]["bw"] == 4000
    assert job["read"]["runtime"] == 1000
    assert job["write"]["runtime"] == 0 and job["write"]["bw_samples"] == 0


def test_latency_buckets_follow_fios_ranges() -> None:
    hist = LatencyHistogram(bits=6)
    hist.record_many([1.5e-6, 30e-6, 30e-6, 3e-3, 2.5])  # 1.5 us, 30 us x2, 3 ms, 2.5 s
    buckets = latency_buckets(hist)
    assert buckets["latency_us"]["2"] == pytest.approx(20.0)  # 1 us (truncated) < 2
    assert buckets["latency_us"]["50"] == pytest.approx(40.0)
    assert buckets["latency_ms"]["4"] == pytest.approx(20.0)
    assert buckets["latency_ms"][">=2000"] == pytest.approx(20.0)
    assert sum(buckets["latency_ns"].values()) == 0.0


def test_an_open_loop_without_iodepth_sits_at_its_mean_in_flight() -> None:
    job = fio_job("job", _figures([0.01] * 100, [], span_s=0.1))  # 1000 IOPS x 10 ms = 10
    assert job["iodepth_level"]["8"] == 100.0
    assert "job options" not in job  # fio leaves out an empty option list


def test_a_document_of_several_groups() -> None:
    jobs = [
        fio_job("a", combine("a", [_figures([1e-3] * 10, []), _figures([1e-3] * 30, [])])),
        fio_job("b", _figures([1e-3] * 20, []), groupid=1),
    ]
    doc = fio_document(jobs, timestamp=0)
    assert [j["read"]["total_ios"] for j in doc["jobs"]] == [40, 20]
    assert [j["read"]["bw_agg"] for j in doc["jobs"]] == [100.0, 100.0]
    assert "global options" not in doc and "disk_util" not in doc
