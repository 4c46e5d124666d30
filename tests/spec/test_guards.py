"""Guards at validation: impossible values (infinities, NaN, booleans, absurd sizes and counts)
refused where they are. Runs too big for the machine: tests/sim/test_budget.py."""

from __future__ import annotations

import math
import typing
from pathlib import Path
from typing import Any

import pytest

from sanpath.spec import ScenarioError, Spec, load_scenario, parse_assignment, scenario
from tests.conftest import SCENARIOS

QUICKSTART = SCENARIOS / "quickstart.yaml"
OPEN = {"workloads.0.outstanding": None}


def refused(overrides: dict[str, Any], source: Path = QUICKSTART) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(source, overrides)
    return info.value


# --- validation: infinities, NaN, absurd sizes and counts ----------------------------------


@pytest.mark.parametrize(
    ("assignment", "path", "expected"),
    [
        ("workloads.0.rate=.inf", "workloads.0.rate", "finite number"),
        ("workloads.0.rate=.nan", "workloads.0.rate", "finite number"),
        ("workloads.0.block_size=.inf", "workloads.0.block_size", "not a finite number"),
        ("workloads.0.block_size=1PiB", "workloads.0.block_size", "at most 1GiB"),
        ("workloads.0.block_size={8KiB: 1, 2GiB: 1}", "workloads.0.block_size", "2GiB is too"),
        (
            "workloads.0.block_size={8KiB: .inf}",
            "workloads.0.block_size",
            "positive number (finite)",
        ),
        ("workloads.0.read_fraction=.nan", "workloads.0.read_fraction", "finite number"),
        ("fabric.distance_km=.inf", "fabric.distance_km", "finite number"),
        ("hosts.0.hbas.0.speed=.inf", "hosts.0.hbas.0.speed", "not a finite number"),
        ("hosts.0.io_time=.inf", "hosts.0.io_time.mean", "not a finite number"),
        ("hosts.0.hbas.0.max_transfer=2GiB", "hosts.0.hbas.0.max_transfer", "at most 1GiB"),
        ("array.pools.0.stripe_element=4GiB", "array.pools.0.stripe_element", "at most 1GiB"),
        ("array.luns.0.size=1e30", "array.luns.0.size", "too large"),
        ("hosts.0.count=10000000", "hosts.0.count", "at most 100,000 hosts"),
        ("hosts.0.hbas.0.count=65", "hosts.0.hbas.0.count", "at most 64 HBA cards"),
        ("hosts.0.hbas.0.ports=17", "hosts.0.hbas.0.ports", "at most 16 ports"),
        ("array.luns.0.count=70000", "array.luns.0.count", "at most 65,536 LUNs"),
        ("array.ports=5000", "array.ports", "at most 4,096"),
        ("hosts.0.count=true", "hosts.0.count", "expected a whole number, not a boolean"),
        ("array.cache.read_hit=true", "array.cache.read_hit", "expected a number, not a boolean"),
        ("array.lun_queue_depth=true", "array.lun_queue_depth", "not a boolean"),
        ("array.luns.0.ports=[true]", "array.luns.0.ports", "not a boolean (true/false) in the"),
        ("hosts.0.hbas.0.pcie.lanes=true", "hosts.0.hbas.0.pcie.lanes", "not a boolean"),
        ("seed=false", "seed", "expected a whole number, not a boolean"),
    ],
)
def test_impossible_values_are_refused_where_they_are(
    assignment: str, path: str, expected: str
) -> None:
    key, value = parse_assignment(assignment)
    overrides = {key: value, **(OPEN if key == "workloads.0.rate" else {})}
    problems = refused(overrides).problems
    assert [p.path for p in problems] == [path]
    assert expected in problems[0].message
    assert problems[0].source == str(QUICKSTART)
    assert problems[0].line is not None  # located in the file


def test_a_boolean_count_in_a_file_is_located(tmp_path: Path) -> None:
    text = QUICKSTART.read_text().replace("    count: 1\n", "    count: true\n", 1)
    path = tmp_path / "bool.yaml"
    path.write_text(text)
    with pytest.raises(ScenarioError) as info:
        load_scenario(path)
    line = 1 + text.splitlines().index("    count: true")
    assert str(info.value).startswith(f"{path}:{line}:12: hosts.0.count: expected a whole number")
    assert "(got True)" in str(info.value)


def test_a_drive_model_field_refuses_booleans() -> None:
    problems = refused({"array.pools.0.drive": {"profile": "hdd-15k", "rpm": True}}).problems
    assert problems[0].path == "array.pools.0.drive.rpm"
    assert "not a boolean" in problems[0].message
    # booleans still go where they belong
    spec = load_scenario(
        QUICKSTART, {"array.pools.0.drive": {"profile": "hdd-15k", "read_lookahead": False}}
    )
    drive = spec.array.pools[0].drive
    assert isinstance(drive, scenario.HddSpec) and drive.read_lookahead is False


def test_a_pool_beyond_an_exabyte_is_refused() -> None:
    problems = refused(
        {"array.pools.0.drive": {"model": "hdd", "capacity": "1000PiB"}, "array.pools.0.groups": 9}
    ).problems
    assert problems[0].path == "array.pools.0.groups"
    assert "at most 1024PiB" in problems[0].message


def _numeric(annotation: Any) -> bool:
    """True when the type holds an int or float and no bool (independent of sanpath's own)."""
    if annotation is bool or annotation is Any:
        return False
    origin = typing.get_origin(annotation)
    if origin is typing.Literal:
        args = typing.get_args(annotation)
        return any(type(a) in (int, float) for a in args) and not any(
            isinstance(a, bool) for a in args
        )
    if origin is typing.Annotated:
        return _numeric(typing.get_args(annotation)[0])
    if annotation in (int, float):
        return True
    args = typing.get_args(annotation)
    if any(a is bool or a is Any for a in args):
        return False
    if origin in (tuple, list, dict):
        return False  # containers: checked by the parametrized cases
    return any(_numeric(a) for a in args)


def _spec_classes() -> list[type[Spec]]:
    found: list[type[Spec]] = []
    todo = list(Spec.__subclasses__())
    while todo:
        cls = todo.pop()
        found.append(cls)
        todo.extend(cls.__subclasses__())
    return sorted(set(found), key=lambda c: c.__name__)


NUMERIC_FIELDS = [
    (cls, name)
    for cls in _spec_classes()
    for name, info in cls.model_fields.items()
    if _numeric(info.annotation)
]


def test_every_numeric_field_is_covered() -> None:
    names = {f"{cls.__name__}.{name}" for cls, name in NUMERIC_FIELDS}
    # a sample of what must be there, across sections (RunSpec's too)
    for expected in (
        "HostSpec.count",
        "HbaSpec.queue_depth",
        "HddSpec.rpm",
        "SsdSpec.units",
        "RunSpec.ios",
        "RunSpec.max_ios",
        "WorkloadSpec.rate",
        "Scenario.seed",
        "CacheSpec.read_hit",
        "PcieSpec.lanes",
        "ReferencePointSpec.value",
    ):
        assert expected in names
    assert len(NUMERIC_FIELDS) > 60


@pytest.mark.parametrize(("cls", "name"), NUMERIC_FIELDS, ids=lambda x: getattr(x, "__name__", x))
def test_every_numeric_field_refuses_booleans_and_infinities(cls: type[Spec], name: str) -> None:
    for value in (True, False, math.inf, math.nan):
        with pytest.raises(Exception) as info:  # pydantic ValidationError
            cls.model_validate({name: value})
        errors = [e for e in info.value.errors() if e["loc"] and e["loc"][0] == name]  # type: ignore[attr-defined]
        assert errors, f"{cls.__name__}.{name} took {value!r}"
        text = " ".join(e["msg"] for e in errors)
        if isinstance(value, bool):  # refused saying what was expected
            assert "not a boolean" in text or "expected a" in text, text


def test_a_slice_must_hold_whole_stripe_rows() -> None:
    problems = refused(
        {"array.pools.0.raid": "raid5", "array.pools.0.drives": 5, "array.pools.0.slice": "100KiB"}
    ).problems
    assert [p.path for p in problems] == ["array.pools.0"]
    assert "multiple of data drives x stripe_element" in problems[0].message
