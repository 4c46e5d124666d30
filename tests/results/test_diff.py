"""Two results side by side (sanpath.results.diff): figures, intervals, groups, set-up."""

from __future__ import annotations

import copy
import json
import math
from typing import Any

import pytest

from sanpath.results.diff import (
    NO_INTERVAL,
    ONLY_IN_A,
    ONLY_IN_B,
    OVERLAP,
    SIGNIFICANT,
    NotAResultError,
    check_result,
    diff_results,
    intervals_overlap,
    significance,
)

LATENCY = {"mean": 10.0, "p50": 8.0, "p90": 20.0, "p99": 40.0, "p99_9": 60.0, "max": 80.0}


def group(iops: float, p99: float = 40.0, qfull: int = 0) -> dict[str, Any]:
    """A host, workload or LUN entry as a run reports it."""
    return {
        "iops": iops,
        "mb_per_s": iops * 8192 / 1e6,
        "read_iops": iops,
        "write_iops": 0.0,
        "latency_ms": {**LATENCY, "p99": p99},
        "read_latency_ms_mean": 10.0,
        "write_latency_ms_mean": None,
        "qfull": qfull,
    }


def result(**changes: Any) -> dict[str, Any]:
    """A run result dict (the shape of RunResult.to_dict()), with top-level changes."""
    data: dict[str, Any] = {
        "name": "t",
        "seed": 1,
        "replicate": 0,
        "ios": 1000,
        "iops": 1000.0,
        "mb_per_s": 8.192,
        "read_iops": 700.0,
        "write_iops": 300.0,
        "latency_ms": dict(LATENCY),
        "read_latency_ms_mean": 9.0,
        "write_latency_ms_mean": 12.0,
        "ci95": {"iops": [990.0, 1010.0], "latency_ms_mean": [9.5, 10.5]},
        "counters": {"qfull": 0, "commands": 1000},
        "breakdown_ms": {"host": 0.1, "hba": 0.9, "drive": 9.0},
        "stations": [
            {"name": "db.hba.slots", "utilization": 0.5},
            {"name": "array.r5.drives", "utilization": 0.8},
            {"name": "array.controller", "utilization": None},
        ],
        "steady": True,
        "overrides": {},
    }
    data.update(changes)
    return data


def test_intervals_overlap_and_significance() -> None:
    assert intervals_overlap((1.0, 2.0), (2.0, 3.0)) is True  # touching counts as overlap
    assert intervals_overlap((1.0, 2.0), (2.5, 3.0)) is False
    assert intervals_overlap((2.5, 3.0), (1.0, 2.0)) is False
    assert intervals_overlap(None, (1.0, 2.0)) is None
    assert significance((1.0, 2.0), (3.0, 4.0)) == SIGNIFICANT
    assert significance((1.0, 2.0), (1.5, 4.0)) == OVERLAP
    assert significance((1.0, 2.0), None) == NO_INTERVAL


def test_a_change_beyond_both_intervals_is_significant_and_one_within_is_not() -> None:
    b = result(
        iops=1100.0,
        ci95={"iops": [1090.0, 1110.0], "latency_ms_mean": [9.8, 10.9]},
        latency_ms={**LATENCY, "mean": 10.3},
    )
    d = diff_results(result(), b)
    iops = d.get("iops")
    assert (iops.a, iops.b, iops.change) == (1000.0, 1100.0, 100.0)
    assert iops.relative == pytest.approx(0.1)
    assert iops.significance == SIGNIFICANT
    assert iops.a_ci == (990.0, 1010.0) and iops.b_ci == (1090.0, 1110.0)
    mean = d.get("latency_ms.mean")
    assert mean.change == pytest.approx(0.3)
    assert mean.significance == OVERLAP
    # percentiles and MB/s carry no interval in a run result
    assert d.get("latency_ms.p99").significance == NO_INTERVAL
    assert d.get("mb_per_s").significance == NO_INTERVAL
    assert [c.metric for c in d.significant()] == ["iops"]


def test_a_missing_or_null_interval_says_no_interval() -> None:
    b = result(iops=2000.0, ci95={"iops": [None, None], "latency_ms_mean": [9.5, 10.5]})
    assert diff_results(result(), b).get("iops").significance == NO_INTERVAL
    c = result(iops=2000.0, ci95={"latency_ms_mean": [9.5, 10.5]})
    assert diff_results(result(), c).get("iops").significance == NO_INTERVAL


def test_every_headline_figure_is_compared() -> None:
    d = diff_results(result(), result())
    metrics = [c.metric for c in d.section("headline")]
    for name in ("iops", "mb_per_s", "read_iops", "write_iops", "counters.qfull"):
        assert name in metrics
    for key in LATENCY:
        assert f"latency_ms.{key}" in metrics
    assert all(not c.changed for c in d.changes)


def test_breakdown_in_layer_order_and_utilization_by_station() -> None:
    b = result(
        breakdown_ms={"host": 0.1, "hba": 0.2, "drive": 9.5, "lun_queue": 0.4},
        stations=[
            {"name": "db.hba.slots", "utilization": 0.25},
            {"name": "array.r5.drives", "utilization": 0.8},
            {"name": "array.controller", "utilization": None},
            {"name": "array.port0.queue", "utilization": 0.1},
        ],
    )
    d = diff_results(result(), b)
    layers = [c.item for c in d.section("breakdown_ms")]
    assert layers == ["host", "hba", "lun_queue", "drive"]  # LAYERS order, not file order
    lun = d.get("ms", "lun_queue")
    assert lun.a is None and lun.b == 0.4 and lun.significance == ONLY_IN_B
    assert d.get("ms", "hba").change == pytest.approx(-0.7)
    util = {c.item: c for c in d.section("utilization")}
    assert util["db.hba.slots"].change == pytest.approx(-0.25)
    assert not util["array.r5.drives"].changed
    assert "array.controller" not in util  # unlimited on both sides: nothing to compare
    assert util["array.port0.queue"].significance == ONLY_IN_B


def test_hosts_workloads_and_luns_are_compared_when_both_runs_have_them() -> None:
    a = result(
        hosts={"web[0]": group(500.0), "web[1]": group(500.0)},
        workloads={"oltp": group(1000.0)},
        luns={"data[0]": group(1000.0)},
    )
    b = result(
        hosts={"web[0]": group(450.0, p99=90.0, qfull=12), "web[1]": group(520.0)},
        workloads={"oltp": group(970.0)},
        luns={"data[0]": group(970.0)},
    )
    d = diff_results(a, b)
    assert d.sections == ("headline", "breakdown_ms", "utilization", "hosts", "workloads", "luns")
    web0 = {c.metric: c for c in d.section("hosts") if c.item == "web[0]"}
    assert web0["iops"].change == pytest.approx(-50.0)
    assert web0["latency_ms.p99"].change == pytest.approx(50.0)
    assert web0["qfull"].change == 12
    assert web0["iops"].significance == NO_INTERVAL
    # a value null on both sides (no writes) is not a figure to compare
    assert "write_latency_ms_mean" not in web0
    assert d.get("iops", "oltp", "workloads").change == pytest.approx(-30.0)
    assert d.get("latency_ms.mean", "data[0]", "luns").changed is False
    assert d.skipped == ()


def test_group_entries_with_their_own_intervals_are_judged_by_them() -> None:
    a = result(hosts={"h": {**group(500.0), "ci95": {"iops": [490.0, 510.0]}}})
    b = result(hosts={"h": {**group(600.0), "ci95": {"iops": [590.0, 610.0]}}})
    change = diff_results(a, b).get("iops", "h", "hosts")
    assert change.significance == SIGNIFICANT
    assert diff_results(a, b).get("mb_per_s", "h", "hosts").significance == NO_INTERVAL


def test_a_host_in_one_run_only_and_a_section_in_one_run_only() -> None:
    a = result(hosts={"h1": group(500.0)}, luns={"data": group(500.0)})
    b = result(hosts={"h1": group(500.0), "h2": group(300.0)})
    d = diff_results(a, b)
    h2 = [c for c in d.section("hosts") if c.item == "h2"]
    assert h2 and all(c.significance == ONLY_IN_B for c in h2)
    assert "luns" not in d.sections
    assert d.skipped == ("luns: only in A",)
    assert "not compared: luns: only in A" in d.summary()
    removed = diff_results(b, a)
    assert {c.significance for c in removed.section("hosts") if c.item == "h2"} == {ONLY_IN_A}


def test_results_without_group_sections_are_compared_on_the_rest() -> None:
    d = diff_results(result(), result(iops=1200.0))
    assert d.sections == ("headline", "breakdown_ms", "utilization")
    assert d.skipped == ()


def test_set_up_differences_name_the_seed_and_each_override() -> None:
    a = result(overrides={"run.ios": 2000, "hosts.0.count": 4})
    b = result(seed=2, overrides={"run.ios": 2000, "hosts.0.count": 8, "array.ports": 2})
    d = diff_results(a, b, labels=("base.json", "what-if.json"))
    assert d.setup_changes() == {
        "seed": {"a": 1, "b": 2},
        "overrides.hosts.0.count": {"a": 4, "b": 8},
        "overrides.array.ports": {"b": 2},
    }
    text = d.summary()
    assert text.splitlines()[0].startswith("A: base.json  t, seed 1, replicate 0")
    assert "--set hosts.0.count: 4 -> 8" in text
    assert "--set array.ports: (not set) -> 2" in text
    assert "seed: 1 -> 2" in text


def test_a_result_without_recorded_overrides_says_so() -> None:
    old = result()
    del old["overrides"]
    d = diff_results(old, result())
    assert d.runs[0]["overrides"] is None
    assert "overrides not recorded" in d.summary().splitlines()[0]


def test_summary_hides_equal_figures_unless_asked() -> None:
    d = diff_results(result(), result(iops=1100.0))
    text = d.summary()
    assert "iops" in text and "significant" in text
    assert "latency_ms.p99 " not in text
    assert "figure(s) equal in both runs not shown" in text
    assert "latency_ms.p99" in d.summary(full=True)


def test_to_dict_is_json_and_to_frame_has_one_row_per_figure() -> None:
    d = diff_results(result(hosts={"h": group(1.0)}), result(hosts={"h": group(2.0)}))
    payload = json.loads(json.dumps(d.to_dict()))
    assert payload["a"]["seed"] == 1 and payload["sections"][-1] == "hosts"
    first = payload["changes"][0]
    assert first["metric"] == "iops" and first["significance"] == OVERLAP
    assert first["a_ci95"] == [990.0, 1010.0]
    frame = d.to_frame()
    assert len(frame) == len(d.changes)
    assert list(frame.columns[:5]) == ["section", "item", "metric", "a", "b"]
    row = frame[(frame.section == "headline") & (frame.metric == "iops")].iloc[0]
    assert row.a_ci_lo == 990.0 and row.b_ci_hi == 1010.0
    assert math.isnan(frame[frame.metric == "mb_per_s"].iloc[0].a_ci_lo)


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ([1, 2], "holds a list"),
        ({"rows": [], "keys": []}, "looks like a sweep table"),
        ({"findings": [], "scenario": "x"}, "looks like a sanpath check report"),
        ({"iops": 1.0}, "'mb_per_s'"),
        ({**result(), "ci95": [1, 2]}, "must be objects"),
    ],
)
def test_what_is_not_a_result_is_refused_with_the_reason(data: Any, words: str) -> None:
    with pytest.raises(NotAResultError, match="not a sanpath run result") as info:
        check_result(data)
    assert words in str(info.value)
    with pytest.raises(ValueError, match="not a sanpath run result"):
        diff_results(result(), data)


def test_the_inputs_are_not_changed() -> None:
    a, b = result(hosts={"h": group(1.0)}), result(hosts={"h": group(2.0)})
    before = copy.deepcopy((a, b))
    diff_results(a, b)
    assert (a, b) == before


def test_run_result_diff_compares_two_real_runs() -> None:
    import sanpath

    scenario = sanpath.load_scenario(
        "scenarios/quickstart.yaml", {"run.ios": 1500, "run.warmup_ios": 300}
    )
    a = sanpath.run(scenario)
    b = sanpath.run(scenario.with_overrides({"workloads.0.outstanding": 1}))
    d = a.diff(b)
    iops = d.get("iops")
    assert iops.a == a.iops and iops.b == b.iops
    # one outstanding I/O per LUN instead of the scenario's depth: far fewer IOPS
    assert iops.change is not None and iops.change < 0
    assert iops.significance == SIGNIFICANT
    assert d.get("latency_ms.mean").significance in (SIGNIFICANT, OVERLAP)
    assert {c.item for c in d.section("breakdown_ms")} <= set(a.breakdown_ms)
    assert d.section("utilization")
    # the same comparison from the JSON a run writes
    again = diff_results(json.loads(a.to_json()), json.loads(b.to_json()))
    assert again.get("iops").change == pytest.approx(iops.change)
