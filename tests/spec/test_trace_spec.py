"""``workloads.N.trace``: validated when the scenario loads, errors located at the field."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from sanpath.spec import ScenarioError, load_scenario
from sanpath.traces import summarize
from tests.conftest import SCENARIOS
from tests.sim.test_replay import scenario

MEASURED = SCENARIOS / "measured"


def problems(data: dict[str, Any] | Path) -> list[tuple[str, str]]:
    with pytest.raises(ScenarioError) as info:
        load_scenario(data)
    return [(p.path, p.message) for p in info.value.problems]


def test_a_relative_file_is_read_from_the_scenario_files_folder(tmp_path: Path) -> None:
    (tmp_path / "traces").mkdir()
    shutil.copy(MEASURED / "msr_hm_0.csv", tmp_path / "traces" / "hm_0.csv")
    path = tmp_path / "s.yaml"
    path.write_text(
        "name: s\nhosts: [{name: h, hbas: [{count: 1}]}]\n"
        "array: {ports: 1, pools: [{name: p, raid: raid1, drives: 2, drive: ssd}],"
        " luns: [{name: d, pool: p}]}\n"
        "workloads: [{name: w, rate: 23, trace: {file: traces/hm_0.csv, format: msr}}]\n"
    )
    trace = load_scenario(path).workloads[0].trace
    assert trace is not None and Path(trace.file) == (tmp_path / "traces" / "hm_0.csv").resolve()
    # validated again from its data (overrides), the path stays the same file
    again = load_scenario(path, overrides={"workloads.0.trace.speed": 2})
    assert again.workloads[0].trace.file == trace.file  # type: ignore[union-attr]


def test_an_open_loop_replay_needs_its_rate_and_is_told_the_traces() -> None:
    trace = {"file": str(MEASURED / "msr_hm_0.csv"), "format": "msr", "speed": 2}
    found = problems(scenario(trace, rate=None))
    s = summarize(MEASURED / "msr_hm_0.csv", "msr")
    assert found[0][0] == "workloads.0.rate"
    assert f"mean rate is {s.iops * 2:.6g} I/O per s" in found[0][1]
    assert load_scenario(scenario(trace, outstanding=4)).workloads[0].closed


def test_map_names_luns_of_the_workload() -> None:
    base = {"file": str(MEASURED / "alibaba.csv"), "format": "alibaba"}
    found = problems(scenario({**base, "map": {"419": "logs"}}, luns=("a", "b")))
    assert found == [
        (
            "workloads.0.trace.map.419",
            "'logs' is not a LUN group of this workload (its LUN groups: a, b; or one LUN of "
            "them, e.g. a[0])",
        )
    ]
    found = problems(scenario({**base, "map": {"419": "a[3]"}}, luns=("a", "b")))
    assert "LUN group a has 1 LUN(s)" in found[0][1]
    ok = load_scenario(scenario({**base, "map": {419: "a[0]", "420": "b"}}, luns=("a", "b")))
    assert ok.workloads[0].trace.targets == {"419": "a[0]", "420": "b"}  # type: ignore[union-attr]


@pytest.mark.parametrize(
    ("change", "path", "words"),
    [
        ({"speed": 0}, "workloads.0.trace.speed", "greater than 0"),
        ({"format": "pcap"}, "workloads.0.trace.format", "Input should be"),
        ({"columns": {"time": "t"}}, "workloads.0.trace", "only for a csv trace"),
        ({"start": "2s", "end": "1s"}, "workloads.0.trace", "must be after start"),
        ({"file": "/no/such/trace.csv"}, "workloads.0.trace.file", "file not found"),
        ({"format": "alibaba"}, "workloads.0.trace", "msr_hm_0.csv:1:"),
    ],
)
def test_fields_are_checked(change: dict[str, Any], path: str, words: str) -> None:
    trace = {"file": str(MEASURED / "msr_hm_0.csv"), "format": "msr", **change}
    found = problems(scenario(trace))
    assert any(p == path and words in m for p, m in found), found


def test_what_a_trace_cannot_do() -> None:
    v2 = {"file": str(MEASURED / "fio_iolog_v2.log"), "format": "fio-iolog"}
    assert problems(scenario(v2))[0][0] == "workloads.0.trace.format"
    assert load_scenario(scenario(v2, outstanding=8)).workloads[0].outstanding == 8
    msr = {"file": str(MEASURED / "msr_hm_0.csv"), "format": "msr"}
    data = scenario(msr)
    data["workloads"][0]["think_time"] = "1ms"
    assert "neither copy_to nor think_time" in problems(data)[0][1]
    data = scenario(msr)
    data["schedule"] = [{"at": "1s", "set": {"workloads.0.rate": 50}}]
    assert problems(data)[0][0] == "schedule.0.set.workloads.0.rate"
