"""A check that agrees with itself: an error's severity follows its own second opinion, and a
suggested fix changes only what it names (RAID 10 keeps the drive count unless it says why)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

from sanpath.advice import registry
from sanpath.advice.check import check
from sanpath.advice.registry import rule_by_id
from sanpath.advice.report import Finding, SecondOpinion, Step
from sanpath.advice.rules.raid import raid10_drives
from sanpath.advice.second_opinion import agree_severity, verdict
from sanpath.cli import main
from sanpath.spec import load_scenario
from tests.advice.test_check import IOS, RAID5, TRIGGERS, variant

# --------------------------------------------------------------------------------------
# severity against the second opinion, on findings made by hand
# --------------------------------------------------------------------------------------

BEFORE = {"iops": 1000.0, "iops_ci_lo": 980.0, "iops_ci_hi": 1020.0, "port_qfull": 500.0}


def opinion(after: dict[str, float], metric: str, better: Any, **kw: Any) -> SecondOpinion:
    judged = verdict(metric, better, BEFORE, after, ios=10_000)
    return SecondOpinion(BEFORE, after, {"x.y": 1}, metric, better, judged, 10_000, 1, **kw)


def finding(severity: Any, op: SecondOpinion | None, rule: str = "SP001-fan-in") -> Finding:
    return Finding(
        rule=rule,
        severity=severity,
        title="t",
        message="m",
        mechanism="why",
        source="src",
        numbers={"fan_in": 2048, "fan_in_at_workload": 4096, "port_queue_depth": 1600, "port": 0},
        fix={"x.y": 1},
        second_opinion=op,
    )


def plain_rule(rule_id: str) -> registry.Rule:
    """The registered rule without its explanation of what a simulation misses."""
    return dataclasses.replace(rule_by_id(rule_id), missed=None)


def test_verdict_needs_intervals_that_do_not_overlap() -> None:
    # 6% more IOPS is beyond the 5% band, but the runs' 95% intervals overlap
    wide = {"iops": 1060.0, "iops_ci_lo": 1010.0, "iops_ci_hi": 1110.0}
    assert verdict("iops", "higher", BEFORE, wide) == "no clear difference"
    narrow = {"iops": 1060.0, "iops_ci_lo": 1050.0, "iops_ci_hi": 1070.0}
    assert verdict("iops", "higher", BEFORE, narrow) == "agrees"
    # a metric without intervals keeps the band alone
    assert verdict("iops", "higher", {"iops": 1000.0}, {"iops": 1060.0}) == "agrees"


def test_an_error_whose_fix_shows_no_clear_difference_is_a_warning_that_says_why() -> None:
    op = opinion({"port_qfull": 495.0}, "port_qfull", "lower")
    assert op.verdict == "no clear difference"
    f = agree_severity(finding("error", op), plain_rule("SP001"))
    assert f.severity == "warning"
    assert f.severity_note.startswith("reported as a warning, not an error: ")
    assert "shows no clear difference in QUEUE FULL from ports: 500 in the proposal, 495 fixed" in (
        f.severity_note
    )
    assert f.to_dict()["severity_note"] == f.severity_note


def test_overlapping_intervals_are_named_in_the_note() -> None:
    op = opinion({"iops": 1060.0, "iops_ci_lo": 1010.0, "iops_ci_hi": 1110.0}, "iops", "higher")
    f = agree_severity(finding("error", op), plain_rule("SP001"))
    assert f.severity == "warning"
    assert "(95% intervals [980, 1020] and [1010, 1110] overlap)" in f.severity_note


def test_an_error_whose_fix_goes_the_wrong_way_is_a_warning_too() -> None:
    op = opinion({"port_qfull": 900.0}, "port_qfull", "lower")
    assert op.verdict == "disagrees"
    f = agree_severity(finding("error", op), plain_rule("SP001"))
    assert f.severity == "warning" and "moved the other way" in f.severity_note


@pytest.mark.parametrize(
    "op",
    [
        opinion({"port_qfull": 0.0}, "port_qfull", "lower"),  # agrees
        # no clear difference alone, but it pays on top of the earlier fixes
        opinion(
            {"port_qfull": 495.0},
            "port_qfull",
            "lower",
            with_earlier=Step({"port_qfull": 300.0}, {"port_qfull": 0.0}, {}, "agrees"),
        ),
        opinion({}, "port_qfull", "lower"),  # not judged
        opinion({}, "port_qfull", "lower", error="does not validate"),
        None,
    ],
)
def test_an_error_the_simulation_backs_or_cannot_judge_stays_an_error(
    op: SecondOpinion | None,
) -> None:
    f = finding("error", op)
    assert agree_severity(f, plain_rule("SP001")) == f


def test_warnings_are_left_as_they_are() -> None:
    f = finding("warning", opinion({"port_qfull": 495.0}, "port_qfull", "lower"))
    assert agree_severity(f, plain_rule("SP001")) == f


def test_a_rule_that_explains_what_the_simulation_missed_keeps_its_error() -> None:
    op = opinion({"port_qfull": 500.0}, "port_qfull", "lower")
    f = finding("error", op)
    f = dataclasses.replace(f, numbers={**f.numbers, "fan_in_at_workload": 64})
    kept = agree_severity(f, rule_by_id("SP001"))
    assert kept.severity == "error"
    assert kept.severity_note.startswith("stays an error although the simulated fix shows no")
    assert "puts 64 commands on port 0, within its 1,600-slot queue" in kept.severity_note
    assert "the 2,048 commands the queue depths allow" in kept.severity_note
    # when the proposal's own load does overrun the port, there is nothing to explain
    assert agree_severity(finding("error", op), rule_by_id("SP001")).severity == "warning"


# --------------------------------------------------------------------------------------
# the same through check(), with simulation
# --------------------------------------------------------------------------------------

# The fan-in trigger with a light workload: the queue depths allow 4 LUNs x 32 = 128 commands
# on each 64-slot port (an error), but the proposal itself keeps 2 per LUN outstanding, so
# neither the proposal nor its fix ever sees QUEUE FULL.
LIGHT_FAN_IN = {
    **TRIGGERS["SP001-fan-in"][0],
    "workloads.0.outstanding": 2,
    "workloads.0.read_fraction": 1.0,  # no write-back cache to fill: a short warm-up
}


def test_an_error_the_simulated_load_cannot_reach_stays_an_error_with_the_reason() -> None:
    report = check(variant(LIGHT_FAN_IN), rules=["SP001"], simulate=True, ios=IOS)
    (f,) = report.findings
    assert f.severity == "error"
    op = f.second_opinion
    assert op is not None and op.before["port_qfull"] == 0 and op.after["port_qfull"] == 0
    assert op.verdict == "no clear difference"
    assert "cannot show QUEUE FULL" in f.severity_note
    assert "Severity: stays an error although" in report.text()


@pytest.fixture
def without_reason() -> Iterator[None]:
    """SP001 registered without its explanation of what a simulation misses (the registry's
    own list is changed, since check() holds it by reference, and restored afterwards)."""
    index = next(i for i, r in enumerate(registry.RULES) if r.id == "SP001-fan-in")
    original = registry.RULES[index]
    registry.RULES[index] = plain_rule("SP001")
    try:
        yield
    finally:
        registry.RULES[index] = original


def test_without_that_reason_the_error_is_reported_as_a_warning(
    without_reason: None,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    report = check(variant(LIGHT_FAN_IN), rules=["SP001"], simulate=True, ios=IOS)
    (f,) = report.findings
    assert f.severity == "warning"
    assert "no clear difference in QUEUE FULL from ports: 0 in the proposal, 0 fixed" in (
        f.severity_note
    )
    assert report.worst_severity == "warning"
    # and --fail-on error follows the agreed severity; --no-simulate keeps the rule's own
    path = tmp_path / "p.yaml"
    YAML().dump(variant(LIGHT_FAN_IN), path)
    args = ["check", str(path), "--fail-on", "error", "--ios", str(IOS)]
    assert main(args) == 0
    assert main([*args, "--no-simulate"]) == 1
    capsys.readouterr()


def test_an_error_the_simulation_backs_stays_an_error() -> None:
    changes, kwargs, _ = TRIGGERS["SP001-fan-in"]
    report = check(variant(changes), rules=["SP001"], simulate=True, ios=IOS, **kwargs)
    (f,) = report.findings
    assert f.severity == "error" and f.severity_note == ""
    assert f.second_opinion is not None and f.second_opinion.verdict == "agrees"


# --------------------------------------------------------------------------------------
# a RAID 10 suggestion keeps the drive count unless it says why not
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("drives", "expected", "why"),
    [(4, 4, ""), (6, 6, ""), (8, 8, ""), (5, 4, "pairs"), (7, 6, "pairs"), (3, 4, "two mirrored")],
)
def test_raid10_drive_count(drives: int, expected: int, why: str) -> None:
    got, reason = raid10_drives(drives)
    assert got == expected
    assert (reason == "") == (got == drives)
    assert why in reason


def raid_finding(pool: dict[str, Any]) -> Finding:
    changes = {**TRIGGERS["SP012-raid-write-penalty"][0], "array.pools.0": pool}
    (f,) = check(variant(changes), rules=["SP012"]).findings
    return f


@pytest.mark.parametrize(("raid", "drives"), [("raid5", 6), ("raid5", 8), ("raid6", 4)])
def test_an_even_group_becomes_raid10_with_the_same_drives(raid: str, drives: int) -> None:
    f = raid_finding({**RAID5, "raid": raid, "drives": drives})
    assert f.fix == {"array.pools.0.raid": "raid10"}  # the RAID level and nothing else
    assert f"keeping its {drives} drives per group" in f.fix_text
    assert f.numbers["raid10_drives_per_group"] == drives


def test_an_odd_group_changes_its_drive_count_and_says_why() -> None:
    f = raid_finding(RAID5)  # RAID 5 (4+1): five drives per group
    assert f.fix == {"array.pools.0.raid": "raid10", "array.pools.0.drives": 4}
    assert "with 4 drives per group instead of 5" in f.fix_text
    assert "mirrors drives in pairs" in f.fix_text
    assert f.numbers["raid10_drives_per_group"] == 4


def test_the_raid_fix_changes_only_the_pool_it_names() -> None:
    changes = {**TRIGGERS["SP012-raid-write-penalty"][0], "array.pools.0": {**RAID5, "drives": 6}}
    proposal = load_scenario(variant(changes))
    (f,) = check(proposal, rules=["SP012"]).findings
    assert f.fix is not None
    before, after = proposal.to_data(), proposal.with_overrides(f.fix).to_data()
    assert after["array"]["pools"][0].pop("raid") == "raid10"
    assert before["array"]["pools"][0].pop("raid") == "raid5"
    assert after == before
