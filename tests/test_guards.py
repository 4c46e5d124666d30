"""Guards: impossible values refused at validation, impossible runs refused before they start."""

from __future__ import annotations

import math
import sys
import time
import typing
from pathlib import Path
from typing import Any

import pytest
from conftest import SCENARIOS

import sanpath
from sanpath.cli import main
from sanpath.experiments.sweep import Task, run_task, sweep
from sanpath.sim import budget
from sanpath.spec import ScenarioError, Spec, load_scenario, parse_assignment, scenario
from sanpath.theory import textbook
from sanpath.units import UnitError, parse_bytes, parse_duration, parse_rate

QUICKSTART = SCENARIOS / "quickstart.yaml"
SHIPPED = sorted(SCENARIOS.glob("*.yaml")) + sorted((SCENARIOS / "proposals").glob("*.yaml"))
OPEN = {"workloads.0.outstanding": None}


def refused(overrides: dict[str, Any], source: Path = QUICKSTART) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(source, overrides)
    return info.value


def small(ios: int = 1_000) -> dict[str, Any]:
    return textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=ios,
        warmup_ios=100,
    )


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


@pytest.mark.parametrize("text", [".inf", "-.inf", "inf", "+Infinity", "NaN", float("inf")])
def test_unit_parsers_refuse_infinities(text: Any) -> None:
    for parse in (parse_bytes, parse_rate, parse_duration):
        with pytest.raises(UnitError, match="not a finite number"):
            parse(text)


def test_parse_bytes_refuses_astronomical_sizes() -> None:
    assert parse_bytes("1PiB") == 1 << 50
    with pytest.raises(UnitError, match="too large"):
        parse_bytes("1e30")


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: p.name)
def test_shipped_scenarios_validate_and_fit_the_budget(path: Path) -> None:
    spec = load_scenario(path)
    estimate = budget.check(spec, source=path)
    assert budget.BASE_BYTES < estimate.memory_bytes < 1e9
    assert 0.0 < estimate.seconds < 300.0


def test_cli_validate_accepts_every_shipped_file(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", *map(str, SHIPPED)]) == 0
    assert capsys.readouterr().out.count(": ok (") == len(SHIPPED)


# --- the estimate -------------------------------------------------------------------------


def test_estimate_counts_what_the_topology_builds() -> None:
    one = budget.estimate(load_scenario(QUICKSTART, {"run.ios": 50_000}))
    # 1 host x 8 LUNs x (2 HBA ports x 4 array ports); 8 LUNs x 8 outstanding
    assert (one.hosts, one.paths, one.luns, one.drives, one.processes) == (1, 64, 8, 30, 64)
    many = budget.estimate(load_scenario(QUICKSTART, {"hosts.0.count": 10}))
    assert (many.paths, many.processes) == (640, 640)
    zoned = budget.estimate(load_scenario(QUICKSTART, {"zoning": "one-to-one"}))
    assert zoned.paths == 16  # each HBA port sees one array port
    threads = budget.estimate(load_scenario(QUICKSTART, {"workloads.0.threads": 4}))
    assert threads.processes == 256
    assert one.ios == 55_000  # run.ios + run.warmup_ios
    precision = budget.estimate(load_scenario(QUICKSTART))
    assert precision.ios == 2_000_000 + 5_000  # run.max_ios, the cap, and the warm-up
    assert "run.max_ios" in precision.length


def test_estimate_counts_the_schedule_and_splits() -> None:
    data = load_scenario(QUICKSTART).to_data()
    data["schedule"] = [{"at": 1.0, "set": {"workloads.0.outstanding": 64}}]
    assert budget.estimate(load_scenario(data)).processes == 8 * 64
    split = budget.estimate(load_scenario(QUICKSTART, {"workloads.0.block_size": "1MiB"}))
    assert split.commands_per_io == 2.0  # max_transfer 512KiB


def test_estimate_agrees_with_measured_runs() -> None:
    """Memory within 3x of what tracemalloc measures for 10 hosts (640 paths, 80 sources);
    time within 6x of the wall time (a shared machine; the constants fit the compiled core,
    the pure-Python one is about 3x slower)."""
    spec = load_scenario(QUICKSTART, {"hosts.0.count": 10, "run.ios": 500, "run.warmup_ios": 50})
    result = sanpath.run(spec, trace_memory=True)
    measured = result.extra["peak_memory_mb"] * 1e6
    built = budget.estimate(spec).memory_bytes - budget.BASE_BYTES
    assert measured / 3 < built < 3 * measured, (built, measured)
    spec = load_scenario(QUICKSTART, {"run.ios": 5_000, "run.warmup_ios": 500})
    wall = sanpath.run(spec).wall_seconds
    slow = 3.0 if sanpath.compiled.core() == "python" else 1.0
    assert wall / 6 < budget.estimate(spec).seconds * slow < 6 * wall


def test_open_loop_beyond_capacity_grows_a_backlog() -> None:
    below = budget.estimate(load_scenario(QUICKSTART, {**OPEN, "workloads.0.rate": 1000}))
    above = budget.estimate(load_scenario(QUICKSTART, {**OPEN, "workloads.0.rate": 1e6}))
    assert below.in_flight < 100 and below.arrivals == 0
    assert above.in_flight > 1e5 and above.arrivals > above.in_flight


# --- refusals ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("overrides", "path", "what"),
    [
        ({"run.ios": 10**12}, "run.ios", "longer than"),
        ({"run.ios": None, "run.max_ios": 10**10}, "run.max_ios", "longer than"),
        ({"run.ios": None, "run.duration": "1000h"}, "run.duration", "longer than"),
        ({"run.warmup_ios": 10**11}, "run.warmup_ios", "longer than"),
        ({"hosts.0.count": 50_000}, "hosts.0.count", "more memory than"),
        ({"workloads.0.outstanding": 2_000_000}, "workloads.0.outstanding", "more memory than"),
        ({**OPEN, "workloads.0.rate": 1e12}, "workloads.0.rate", "more memory than"),
        (
            {"run.ios": None, "run.duration": "100s", "run.record_interval": "1us"},
            "run.record_interval",
            "more memory than",
        ),
    ],
)
def test_runs_beyond_the_limits_are_refused_at_their_field(
    overrides: dict[str, Any], path: str, what: str
) -> None:
    spec = load_scenario(QUICKSTART, overrides)
    with pytest.raises(ScenarioError) as info:
        budget.check(spec, source=QUICKSTART)
    (problem,) = info.value.problems
    assert problem.path == path
    assert what in problem.message
    assert "--force" in problem.message and "force=True" in problem.message
    assert "estimated about" in problem.message
    assert problem.line is not None or path not in QUICKSTART.read_text()


def test_memory_limit_follows_the_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = load_scenario(QUICKSTART, {"hosts.0.count": 2_000})  # about 1.7 GB
    budget.check(spec)
    monkeypatch.setattr(budget, "available_memory", lambda: 1e9)
    with pytest.raises(ScenarioError, match="this machine has free"):
        budget.check(spec)
    with pytest.raises(ScenarioError, match=r"2 runs at once"):
        budget.check(load_scenario(QUICKSTART, {"hosts.0.count": 500}), runs_at_once=2)
    assert budget.available_memory() == 1e9


def test_available_memory_is_read_from_the_machine() -> None:
    available = budget.available_memory()
    if sys.platform.startswith("linux"):
        assert available is not None and available > 1e8


def test_engine_run_checks_unless_forced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    with pytest.raises(ScenarioError, match=r"run\.ios.*--force"):
        sanpath.run(small())
    result = sanpath.run(small(), force=True)
    assert result.ios == 1_000


@pytest.mark.parametrize(
    "assignments",
    [
        ["run.ios=1e12"],
        ["hosts.0.count=10000000"],
        ["hosts.0.count=50000"],
        ["workloads.0.outstanding=null", "workloads.0.rate=1e12"],
    ],
)
def test_cli_refuses_impossible_runs_at_once(
    assignments: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    start = time.perf_counter()
    code = main(["run", str(QUICKSTART), *[a for x in assignments for a in ("--set", x)]])
    elapsed = time.perf_counter() - start
    out, err = capsys.readouterr()
    assert code == 2
    assert elapsed < 1.0
    assert out == "" and "Traceback" not in err
    key = assignments[-1].split("=")[0]
    assert err.startswith(f"{QUICKSTART}:") and f" {key}: " in err
    validation = assignments == ["hosts.0.count=10000000"]  # beyond MAX_HOSTS: not a budget
    assert ("at most 100,000 hosts" in err) if validation else ("--force" in err)


def test_cli_force_runs_anyway(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ruamel.yaml import YAML

    path = tmp_path / "small.yaml"
    YAML().dump(small(), path)
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    assert main(["run", str(path), "--json"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["run", str(path), "--json", "--force"]) == 0
    assert '"iops"' in capsys.readouterr().out


def test_sweep_checks_every_point_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[Task] = []

    def counting(task: Task) -> dict[str, Any]:
        calls.append(task)
        return run_task(task)

    monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", counting)
    with pytest.raises(ScenarioError) as info:
        sweep(small(), {"run.ios": [500, 10**12]}, cache=None)
    assert calls == []
    (problem,) = info.value.problems
    assert problem.path == "run.ios"
    assert "sweep (run.ios=1000000000000)" in problem.message and "--force" in problem.message
    monkeypatch.setattr(budget, "MAX_SECONDS", 1e-9)
    forced = sweep(small(), {"run.ios": [300]}, cache=None, force=True)
    assert len(forced.table) == 1 and len(calls) == 1


def test_sweep_cli_refusal_names_the_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code = main(
        ["sweep", str(QUICKSTART), "--quiet", "--no-cache", "--vary", "hosts.0.count=1,60000"]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith(f"{QUICKSTART}:9:12: hosts.0.count: sweep (hosts.0.count=60000)")
    assert "--force" in err


def test_compare_and_calibrate_check_before_running(monkeypatch: pytest.MonkeyPatch) -> None:
    from sanpath.experiments import calibrate, reference

    data = small()
    data["reference"] = {
        "source": "synthetic",
        "points": [
            {"label": "fine", "value": 1000.0},
            {"label": "huge", "set": {"run.ios": 10**12}, "value": 1000.0},
        ],
    }
    ran: list[Any] = []
    monkeypatch.setattr(sys.modules["sanpath.sim.engine"], "run", lambda *a, **k: ran.append(a))
    with pytest.raises(ScenarioError, match=r"reference point 'huge'.*--force"):
        reference.compare(data)
    points = [calibrate.MeasuredPoint("huge", {"run.ios": 10**12}, {"iops": 1000.0})]
    with pytest.raises(ScenarioError, match=r"measured point 'huge'.*--force"):
        calibrate.calibrate(small(), points, ["array.controller.io_time"])
    assert ran == []
