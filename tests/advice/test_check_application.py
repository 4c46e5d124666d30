"""Check advice judged by the application: a fix agrees only when the application's IOPS and
latency do not get worse; runs the time cap stopped are unfinished and do not vote; Windows
hosts get the HBA QueueDepth knob; no "queue too shallow" on idle flash; controller balance.
"""

from __future__ import annotations

from sanpath.advice.analysis import cap_fix
from sanpath.advice.check import check
from sanpath.advice.report import SecondOpinion, application_cost, effect, opinion_table
from sanpath.advice.second_opinion import verdict
from sanpath.spec import load_scenario
from tests.advice.test_check import TRIGGERS, variant
from tests.conftest import SCENARIOS

IOS = 10_000

# the fan-in fix of the issue: QUEUE FULL 2,947 -> 0 while the application got slower
BEFORE = {
    "iops": 198_000.0,
    "iops_ci_lo": 196_000.0,
    "iops_ci_hi": 200_000.0,
    "latency_ms_mean": 18.3,
    "latency_ms_mean_ci_lo": 18.0,
    "latency_ms_mean_ci_hi": 18.6,
    "port_qfull": 2947.0,
    "ios": float(IOS),
}
SLOWER = {
    "iops": 194_000.0,
    "iops_ci_lo": 192_000.0,
    "iops_ci_hi": 196_000.0,
    "latency_ms_mean": 21.1,
    "latency_ms_mean_ci_lo": 20.8,
    "latency_ms_mean_ci_hi": 21.4,
    "port_qfull": 0.0,
    "ios": float(IOS),
}


def test_a_fix_that_slows_the_application_does_not_agree() -> None:
    assert verdict("port_qfull", "lower", BEFORE, SLOWER, IOS) == "disagrees"
    assert application_cost(BEFORE, SLOWER) == "mean latency (ms) 18.3 -> 21.1"
    same = {**SLOWER, "latency_ms_mean": 18.4, "iops": 198_500.0}
    same.update(latency_ms_mean_ci_lo=18.1, latency_ms_mean_ci_hi=18.7)
    same.update(iops_ci_lo=196_500.0, iops_ci_hi=200_500.0)
    assert verdict("port_qfull", "lower", BEFORE, same, IOS) == "agrees"
    op = SecondOpinion(BEFORE, SLOWER, {"x.y": 1}, "port_qfull", "lower", "disagrees", IOS, 1)
    assert "the application got worse: mean latency (ms) 18.3 -> 21.1" in effect(op)
    assert any("application got worse" in n for n in opinion_table(op).notes)


def test_a_run_stopped_by_the_cap_is_unfinished_and_does_not_vote() -> None:
    capped = {"iops": 0.0, "latency_ms_mean": float("nan"), "port_qfull": 0.0, "ios": 0.0}
    assert verdict("port_qfull", "lower", BEFORE, capped, IOS) == "not judged"
    part = {**SLOWER, "ios": 1_200.0, "latency_ms_mean": 17.0, "iops": 250_000.0}
    assert verdict("iops", "higher", BEFORE, part, IOS) == "not judged"
    op = SecondOpinion(BEFORE, capped, {"x.y": 1}, "port_qfull", "lower", "not judged", IOS, 1)
    table = opinion_table(op)
    fixed = [cells[1] for _, cells, _ in table.rows]
    assert set(fixed) == {"unfinished"}  # never "0" or "nan"
    assert any("does not vote" in n for n in table.notes)
    assert "unfinished" in effect(op) and "IOPS 0" not in effect(op)


def test_a_windows_host_is_capped_by_its_hba_queue_depth() -> None:
    data = variant({"hosts.0.lun_queue_depth": None, "hosts.0.qfull": {"throttle": "storport"}})
    s = load_scenario(data)
    assert cap_fix(s, [0], 8) == {"hosts.0.hbas.0.queue_depth": 8}
    linux = load_scenario(variant({}))
    assert cap_fix(linux, [0], 8) == {"hosts.0.lun_queue_depth": 8}


def test_no_queue_too_shallow_on_idle_flash() -> None:
    trigger = TRIGGERS["SP010-queue-too-shallow"][0]
    hdd = check(variant(trigger), rules=["SP010"], simulate=False)
    assert [f.rule for f in hdd.findings] == ["SP010-queue-too-shallow"]
    flash = {**trigger, "array.pools.0.drive": "micron-7450-pro"}
    assert check(variant(flash), rules=["SP010"], simulate=False).findings == ()


def test_one_controller_carrying_the_load_is_a_warning() -> None:
    # the VMs' 400,000 IOPS on namespaces a and c (both owned by controller 0), the backup
    # (an open loop here) on b (controller 1)
    open_backup = {"workloads.1.outstanding": None, "workloads.1.rate": 400}
    lopsided = {
        **open_backup,
        "array.luns": [{"name": n, "count": 1, "pool": "nvme"} for n in "abcd"],
        "workloads.0.luns": ["a", "c"],
        "workloads.1.luns": ["b"],
    }
    data = load_scenario(SCENARIOS / "modern_afa.yaml", lopsided)
    report = check(data, rules=["SP022"], simulate=False)
    (found,) = report.findings
    assert found.rule == "SP022-controller-balance" and found.severity == "warning"
    assert found.numbers["busy_controller"] == 0
    assert found.numbers["utilization"] >= 2 * found.numbers["other_utilization"]
    even = check(
        load_scenario(SCENARIOS / "modern_afa.yaml", open_backup), rules=["SP022"], simulate=False
    )
    assert even.findings == ()
