"""Workloads in fio's words, and a sweep as one fio job per point."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from sanpath.experiments.fio_output import fio_size, job_options, sweep_fio_json
from sanpath.ingest.fio_options import Opt, job_spec
from sanpath.spec import load_scenario
from tests.conftest import SCENARIOS
from tests.results.test_fio_json import SMALL


def _spec(options: dict[str, str]) -> Any:
    spec, warnings = job_spec("job", [Opt(k, v, None, None) for k, v in options.items()], "t")
    assert not warnings
    return spec


def test_sizes_in_fios_units() -> None:
    assert [fio_size(n) for n in (512, 4096, 65536, 1 << 20, 3 << 30, 1000)] == [
        "512",
        "4k",
        "64k",
        "1m",
        "3g",
        "1000",
    ]


def test_the_fan_in_workload_in_fios_words() -> None:
    options = job_options(load_scenario(SCENARIOS / "fan_in.yaml"))["vm-io"]
    assert options["rw"] == "randrw"
    assert options["rwmixread"] == "70"
    assert options["bssplit"] == "4k/50:8k/30:64k/20"
    assert (options["iodepth"], options["numjobs"]) == ("32", "1")
    assert "16 host(s) x 4 LUN(s)" in options["description"]
    spec = _spec(options)  # fio's option reader takes them as they are
    assert spec.read_fraction == 0.7
    assert spec.block_sizes == ((4096, 0.5), (8192, 0.3), (65536, 0.2))


@pytest.mark.parametrize(
    ("read_fraction", "rw", "rate_iops"),
    [(1.0, "read", "400"), (0.0, "write", ",400"), (0.25, "rw", "100,300")],
)
def test_an_open_loop_is_a_poisson_rate(read_fraction: float, rw: str, rate_iops: str) -> None:
    data = copy.deepcopy(SMALL)
    data["workloads"][1]["read_fraction"] = read_fraction
    options = job_options(load_scenario(data))["log"]
    assert options["rw"] == rw
    assert options["rate_iops"] == rate_iops  # 200 per host x 2 hosts
    assert "iodepth" not in options
    spec = _spec(options)
    assert spec.rate_iops == 400.0 and spec.poisson
    assert spec.read_fraction == read_fraction


def test_a_mix_rounds_to_whole_percents_adding_to_100() -> None:
    data = copy.deepcopy(SMALL)
    data["workloads"][0]["block_size"] = {"4KiB": 1, "8KiB": 1, "16KiB": 1}
    options = job_options(load_scenario(data))["oltp"]
    parts = [p.split("/") for p in options["bssplit"].split(":")]
    assert sum(int(p) for _, p in parts) == 100


def test_a_sweep_is_one_job_per_point() -> None:
    data = copy.deepcopy(SMALL)
    data["run"] = {"ios": 400, "warmup": "fixed", "warmup_ios": 100}
    data["workloads"] = data["workloads"][:1]
    doc = sweep_fio_json(data, {"workloads.0.outstanding": [2, 4]}, timestamp=0)
    jobs = doc["jobs"]
    assert [j["jobname"] for j in jobs] == [
        "workloads.0.outstanding=2",
        "workloads.0.outstanding=4",
    ]
    assert [j["groupid"] for j in jobs] == [0, 1]
    assert [j["job options"]["iodepth"] for j in jobs] == ["2", "4"]
    assert all(j["job options"]["runtime"].endswith("us") for j in jobs)
    assert all(j["read"]["bw_agg"] == 100.0 for j in jobs)
    assert doc["global options"] == {"direct": "1"}
