"""Scenarios remember the overrides they were made with; ``--vary`` ranges (spec.keys)."""

from __future__ import annotations

import pickle

import pytest

from sanpath.spec import load_scenario
from sanpath.spec.keys import MAX_RANGE_VALUES, is_range, parse_range
from tests.conftest import SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"
QD = "hosts.0.hbas.0.queue_depth"


# --- the overrides a scenario was made with ---------------------------------------------


def test_a_scenario_records_the_overrides_as_given() -> None:
    plain = load_scenario(QUICKSTART)
    assert plain.overrides == {}
    s = load_scenario(QUICKSTART, {QD: 8, "workloads.0.block_size": "16KiB"})
    assert s.overrides == {QD: 8, "workloads.0.block_size": "16KiB"}  # as written, not bytes
    assert s.workloads[0].block_size == ((16384, 1.0),)  # while the spec holds the bytes
    s.overrides["seed"] = 5  # a copy: the scenario is not changed through it
    assert "seed" not in s.overrides


def test_with_overrides_adds_to_the_overrides_it_starts_from() -> None:
    s = load_scenario(QUICKSTART, {QD: 8, "seed": 2})
    t = s.with_overrides({QD: 16, "run.ios": 1000})
    assert t.overrides == {QD: 16, "seed": 2, "run.ios": 1000}
    assert s.overrides == {QD: 8, "seed": 2}  # the first is untouched
    assert load_scenario(t, {"seed": 3}).overrides == {QD: 16, "seed": 3, "run.ios": 1000}
    assert load_scenario(t).overrides == t.overrides


def test_dict_sources_and_copies_keep_them() -> None:
    data = load_scenario(QUICKSTART).to_data()
    s = load_scenario(data, {"seed": 4})
    assert s.overrides == {"seed": 4}
    assert s.model_copy(update={"sweep": None}).overrides == {"seed": 4}
    assert pickle.loads(pickle.dumps(s)).overrides == {"seed": 4}  # process pools, Dask


def test_overrides_are_provenance_not_content() -> None:
    by_override = load_scenario(QUICKSTART, {QD: 8})
    data = load_scenario(QUICKSTART).to_data()
    data["hosts"][0]["hbas"][0]["queue_depth"] = 8
    by_file = load_scenario(data)
    assert by_file.overrides == {}
    assert by_override == by_file and hash(by_override) == hash(by_file)
    assert by_override != load_scenario(QUICKSTART)
    assert hash(by_override) != hash(load_scenario(QUICKSTART))


# --- ranges -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("4..64", [4, 8, 16, 32, 64]),
        ("4..64:+4", list(range(4, 65, 4))),
        ("1..81:*3", [1, 3, 9, 27, 81]),
        ("1..81:x3", [1, 3, 9, 27, 81]),
        ("4..60", [4, 8, 16, 32]),  # END only when a step lands on it
        ("5..5", [5]),
        ("-4..4:+4", [-4, 0, 4]),
        ("-8..-2:+3", [-8, -5, -2]),
        ("0.1..0.5:+0.1", [0.1, 0.2, 0.3, 0.4, 0.5]),
        ("0.25..1", [0.25, 0.5, 1.0]),
        ("1..3:*1.5", [1.0, 1.5, 2.25]),
        (" 2 .. 8 : + 3 ", [2, 5, 8]),
    ],
)
def test_ranges(text: str, values: list[float]) -> None:
    got = parse_range(text)
    assert got == values
    whole = all(isinstance(v, int) for v in values)
    assert all(isinstance(v, int) for v in got) == whole


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("64..4", "starts above its end (64 > 4)"),
        ("4..64:+0", "the step must be above 0"),
        ("4..64:+-2", "the step must be above 0"),
        ("4..64:*1", "the factor must be above 1"),
        ("4..64:*0.5", "the factor must be above 1"),
        ("0..64", "must start above 0"),
        ("-4..64", "must start above 0"),
        ("a..b", "is not a range"),
        ("4..", "is not a range"),
        ("4..64:", "the step after ':'"),
        ("4..64:4", "the step after ':'"),
        (f"1..{MAX_RANGE_VALUES}0:+1", f"more than {MAX_RANGE_VALUES} values"),
    ],
)
def test_bad_ranges(text: str, message: str) -> None:
    with pytest.raises(ValueError) as info:
        parse_range(text)
    assert message in str(info.value)
    assert repr(text) in str(info.value)


def test_only_text_with_two_dots_is_a_range() -> None:
    assert is_range("4..64") and is_range("a..b")
    assert not is_range("4.5") and not is_range("16KiB")
