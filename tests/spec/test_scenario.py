"""Tests for sanpath.spec.scenario: validation, units in fields, located errors and overrides."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanpath.spec import (
    ArraySpec,
    DistSpec,
    HddSpec,
    LunSpec,
    PoolSpec,
    Scenario,
    ScenarioError,
    SsdSpec,
    TextbookDriveSpec,
    expand_names,
    json_schema,
    load_scenario,
    lun_queue_limit,
    parse_assignment,
    read_yaml,
    set_dotted,
    validate_scenario,
)
from sanpath.theory import textbook
from tests.conftest import ROOT, SCENARIOS

SHIPPED = sorted(SCENARIOS.rglob("*.yaml"))
QUICKSTART = SCENARIOS / "quickstart.yaml"

# A small scenario whose line numbers the error tests rely on (1-based):
#  5: the HBA queue_depth value (column 22), 8: the pool item (column 7),
#  9: drives, 12: the LUN's pool value (column 13), 14: the workload item (column 5).
BASE = """\
name: t
hosts:
  - name: db
    hbas:
      - queue_depth: 32
array:
  pools:
    - name: r5
      drives: 5
  luns:
    - name: data
      pool: r5
workloads:
  - name: w
    outstanding: 4
"""


def write(tmp_path: Path, text: str, name: str = "s.yaml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def error_of(source: Any, **kwargs: Any) -> ScenarioError:
    with pytest.raises(ScenarioError) as info:
        load_scenario(source, **kwargs)
    return info.value


def base_with(**changes: Any) -> dict[str, Any]:
    """textbook.free_path() with dotted keys changed."""
    data = textbook.free_path()
    for key, value in changes.items():
        set_dotted(data, key.replace("__", "."), value)
    return data


# --- shipped scenarios ------------------------------------------------------------------


def test_scenarios_are_shipped() -> None:
    assert QUICKSTART in SHIPPED


@pytest.mark.parametrize("path", SHIPPED, ids=lambda p: str(p.relative_to(SCENARIOS)))
def test_shipped_scenario_validates_and_round_trips(path: Path) -> None:
    before = path.read_bytes()
    s = load_scenario(path)
    assert s.name
    assert Scenario.model_validate(s.to_data()) == s
    assert validate_scenario(s.to_data()) == s
    json.dumps(s.to_data())  # plain data only
    assert path.read_bytes() == before


def test_quickstart_values() -> None:
    s = load_scenario(QUICKSTART)
    host = s.hosts[0]
    hba = host.hbas[0]
    assert host.max_io_size == 1 << 20
    assert hba.speed == 425e6
    assert hba.max_transfer == 512 * 1024
    assert hba.command_time == DistSpec(dist="constant", mean=10e-6)
    assert hba.pcie is not None and hba.pcie.bytes_per_s == 1e9
    assert s.array.port_speed == 850e6
    assert s.array.cache.write_back == 1 << 30
    assert s.array.pools[0].drive == HddSpec(
        capacity=450_000_000_000,
        media_rate_outer="204MB/s",
        media_rate_inner="122MB/s",
        write_track_to_track="0.44ms",
        write_average_seek="3.9ms",
        write_full_stroke="7.4ms",
    )
    assert s.workloads[0].block_size == ((8192, 1.0),)
    assert s.workloads[0].closed and s.workloads[0].outstanding_per_lun == 8


# --- round trip property ----------------------------------------------------------------

SPELLINGS = ["{}k", "{}K", "{}KB", "{}KiB", "{} KiB", "{}kb"]


@st.composite
def free_path_variations(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any]]:
    """A textbook.free_path() dict with drawn fields, and what they should become."""
    data = textbook.free_path()
    expect: dict[str, Any] = {}
    host, hba, array = data["hosts"][0], data["hosts"][0]["hbas"][0], data["array"]
    host["count"] = expect["host_count"] = draw(st.integers(1, 64))
    host["lun_queue_depth"] = expect["host_qd"] = draw(st.none() | st.integers(1, 256))
    hba["queue_depth"] = expect["hba_qd"] = draw(st.none() | st.integers(1, 512))
    hba["count"] = expect["hba_count"] = draw(st.integers(1, 4))
    hba["ports"] = expect["hba_ports"] = draw(st.integers(1, 4))
    array["ports"] = expect["array_ports"] = draw(st.integers(1, 16))
    array["port_queue_depth"] = expect["port_qd"] = draw(st.none() | st.integers(1, 4096))
    lun_qd = draw(st.none() | st.integers(1, 256) | st.just("clariion"))
    array["lun_queue_depth"] = expect["lun_qd"] = lun_qd
    array["pools"][0]["drives"] = expect["drives"] = draw(st.integers(1, 24))
    array["pools"][0]["groups"] = expect["groups"] = draw(st.integers(1, 8))
    array["luns"][0]["count"] = expect["lun_count"] = draw(st.integers(1, 32))
    workload = data["workloads"][0]
    workload["threads"] = expect["threads"] = draw(st.integers(1, 8))
    workload["outstanding"] = expect["outstanding"] = draw(st.integers(1, 128))
    kib = draw(st.integers(1, 4096))
    if draw(st.booleans()):
        spelling = draw(st.sampled_from(SPELLINGS))
        workload["block_size"] = spelling.format(kib).replace("kb", "KB")
    else:
        workload["block_size"] = kib * 1024
    expect["block"] = kib * 1024
    return data, expect


@given(free_path_variations())
def test_free_path_variations_validate_and_round_trip(
    case: tuple[dict[str, Any], dict[str, Any]],
) -> None:
    data, expect = case
    original = copy.deepcopy(data)
    s = load_scenario(data)
    assert data == original  # load_scenario does not touch its input
    host, hba, array, w = s.hosts[0], s.hosts[0].hbas[0], s.array, s.workloads[0]
    assert (host.count, host.lun_queue_depth) == (expect["host_count"], expect["host_qd"])
    assert (hba.queue_depth, hba.count, hba.ports) == (
        expect["hba_qd"],
        expect["hba_count"],
        expect["hba_ports"],
    )
    assert host.ports_per_host == expect["hba_count"] * expect["hba_ports"]
    assert (array.ports, array.port_queue_depth, array.lun_queue_depth) == (
        expect["array_ports"],
        expect["port_qd"],
        expect["lun_qd"],
    )
    assert (array.pools[0].drives, array.pools[0].groups) == (expect["drives"], expect["groups"])
    assert array.luns[0].count == expect["lun_count"]
    assert (w.threads, w.outstanding) == (expect["threads"], expect["outstanding"])
    assert w.block_size == ((expect["block"], 1.0),)
    again = Scenario.model_validate(s.to_data())
    assert again == s
    assert again.to_data() == s.to_data()
    assert json.loads(json.dumps(s.to_data())) == s.to_data()


@given(
    st.dictionaries(
        st.integers(1, 2048), st.integers(1, 100) | st.floats(0.01, 100.0), min_size=1, max_size=5
    )
)
def test_block_size_mix_normalises(mix: dict[int, float]) -> None:
    data = base_with(workloads__0__block_size={f"{k}KiB": w for k, w in mix.items()})
    sizes = load_scenario(data).workloads[0].block_size
    total = sum(mix.values())
    assert [s for s, _ in sizes] == [k * 1024 for k in mix]
    assert sum(w for _, w in sizes) == pytest.approx(1.0)
    for (_, weight), raw in zip(sizes, mix.values(), strict=True):
        assert weight == pytest.approx(raw / total)


def flat(pairs: tuple[tuple[int, float], ...]) -> list[float]:
    return [x for pair in pairs for x in pair]


# --- units in fields --------------------------------------------------------------------


@pytest.mark.parametrize("text", ["8k", "8KiB", "8KB", "8K", " 8 KiB ", 8192])
def test_block_size_spellings(text: str | int) -> None:
    s = load_scenario(base_with(workloads__0__block_size=text))
    assert s.workloads[0].block_size == ((8192, 1.0),)
    assert s.workloads[0].mean_block_size == 8192


def test_fc_speed_names_and_durations() -> None:
    s = load_scenario(
        base_with(
            hosts__0__hbas__0__speed="4GFC",
            array__port_speed="8GFC",
            hosts__0__qfull={"retry_delay": "5ms", "ramp_up_period": "2min"},
            fabric__hop_latency="1.5us",
        )
    )
    assert s.hosts[0].hbas[0].speed == 425e6
    assert s.array.port_speed == 850e6
    assert s.hosts[0].qfull.retry_delay == 0.005
    assert s.hosts[0].qfull.ramp_up_period == 120.0
    assert s.fabric.hop_latency == pytest.approx(1.5e-6)


def test_rates_are_si_and_bits() -> None:
    s = load_scenario(base_with(hosts__0__hbas__0__speed="8Gb/s", array__port_speed="200MB/s"))
    assert s.hosts[0].hbas[0].speed == 1e9
    assert s.array.port_speed == 200e6


def test_block_size_mix() -> None:
    mix = load_scenario(base_with(workloads__0__block_size={"8KiB": 0.7, "64KiB": 0.3}))
    assert flat(mix.workloads[0].block_size) == pytest.approx([8192, 0.7, 65536, 0.3])
    raw = load_scenario(base_with(workloads__0__block_size={"8KiB": 7, "64KiB": 3}))
    assert flat(raw.workloads[0].block_size) == pytest.approx([8192, 0.7, 65536, 0.3])
    assert raw.workloads[0].mean_block_size == pytest.approx(0.7 * 8192 + 0.3 * 65536)
    pairs = load_scenario(base_with(workloads__0__block_size=[["4k", 1], ["1MiB", 3]]))
    assert pairs.workloads[0].block_size == ((4096, 0.25), (1 << 20, 0.75))


@pytest.mark.parametrize("weight", [0, -1, "lots", True])
def test_block_size_mix_rejects_bad_weights(weight: Any) -> None:
    err = error_of(base_with(workloads__0__block_size={"8KiB": 1, "64KiB": weight}))
    assert "workloads.0.block_size:" in str(err)
    assert "must be a positive number" in str(err)


@pytest.mark.parametrize("name", ["hdd-15k", "hdd-10k", "hdd-7k2"])
def test_hdd_profiles_by_name(name: str) -> None:
    drive = load_scenario(base_with(array__pools__0__drive=name)).array.pools[0].drive
    assert isinstance(drive, HddSpec)
    assert drive.rpm == {"hdd-15k": 15000, "hdd-10k": 10000, "hdd-7k2": 7200}[name]
    assert drive.track_to_track <= drive.average_seek <= drive.full_stroke


def test_profile_numbers() -> None:
    hdd = load_scenario(base_with(array__pools__0__drive="hdd-10k")).array.pools[0].drive
    assert isinstance(hdd, HddSpec)
    assert (hdd.track_to_track, hdd.average_seek, hdd.full_stroke) == (0.5e-3, 4.5e-3, 9e-3)
    assert (hdd.media_rate_outer, hdd.media_rate_inner) == (124e6, 67e6)
    assert hdd.capacity == 300_000_000_000  # vendor gigabytes, written in bytes
    ssd = load_scenario(base_with(array__pools__0__drive="ssd")).array.pools[0].drive
    assert isinstance(ssd, SsdSpec)
    assert (ssd.units, ssd.read_time, ssd.write_time) == (6, 58e-6, 85e-6)
    assert ssd.bandwidth == 560e6


def test_profile_with_override() -> None:
    data = base_with(array__pools__0__drive={"profile": "hdd-15k", "queue_depth": 8})
    drive = load_scenario(data).array.pools[0].drive
    assert isinstance(drive, HddSpec)
    assert drive.queue_depth == 8
    assert drive.rpm == 15000 and drive.average_seek == 3.4e-3
    plain = load_scenario(base_with(array__pools__0__drive="hdd-15k")).array.pools[0].drive
    assert isinstance(plain, HddSpec) and plain.queue_depth == 64


def test_profile_override_is_validated() -> None:
    err = error_of(base_with(array__pools__0__drive={"profile": "hdd-15k", "full_stroke": "1ms"}))
    assert "array.pools.0.drive:" in str(err)
    assert "track_to_track <= average_seek <= full_stroke" in str(err)


def test_unknown_profile() -> None:
    err = error_of(base_with(array__pools__0__drive={"profile": "hdd-16k"}))
    assert "unknown drive profile 'hdd-16k'" in str(err)
    assert "hdd-15k" in str(err)  # lists the known ones
    err = error_of(base_with(array__pools__0__drive="floppy"))
    assert "array.pools.0.drive: unknown drive 'floppy'" in str(err)


def test_distribution_drive_becomes_textbook() -> None:
    data = base_with(array__pools__0__drive={"dist": "exponential", "mean": "5ms"})
    drive = load_scenario(data).array.pools[0].drive
    assert isinstance(drive, TextbookDriveSpec)
    assert drive.service == DistSpec(dist="exponential", mean=0.005)
    assert drive.servers == 1
    assert drive.service.mean_s == 0.005 and drive.service.scv == 1.0


def test_duration_drive_is_constant_textbook() -> None:
    drive = load_scenario(base_with(array__pools__0__drive="5ms")).array.pools[0].drive
    assert isinstance(drive, TextbookDriveSpec)
    assert drive.service == DistSpec(dist="constant", mean=0.005)
    assert drive.service.scv == 0.0


@pytest.mark.parametrize(
    ("spec", "mean", "scv"),
    [
        ("20us", 20e-6, 0.0),
        ({"dist": "erlang", "k": 4, "mean": "2ms"}, 2e-3, 0.25),
        ({"dist": "lognormal", "mean": "5ms", "cv": 0.5}, 5e-3, 0.25),
        ({"dist": "gamma", "mean": "5ms", "cv": 2}, 5e-3, 4.0),
        ({"dist": "uniform", "low": "1ms", "high": "3ms"}, 2e-3, (2e-3**2 / 12) / 2e-3**2),
    ],
)
def test_service_time_specs(spec: Any, mean: float, scv: float) -> None:
    io_time = load_scenario(base_with(array__controller__io_time=spec)).array.controller.io_time
    assert io_time.mean_s == pytest.approx(mean)
    assert io_time.scv == pytest.approx(scv)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ({"dist": "erlang", "mean": "1ms"}, "dist erlang needs k"),
        ({"dist": "exponential", "mean": "1ms", "cv": 1}, "dist exponential takes mean, not cv"),
        ({"dist": "gamma", "mean": "1ms", "cv": 0}, "gamma needs cv > 0"),
        ({"dist": "weibull", "mean": "1ms"}, "Input should be"),
    ],
)
def test_bad_service_time_specs(spec: Any, message: str) -> None:
    err = error_of(base_with(array__controller__io_time=spec))
    assert "array.controller.io_time" in str(err)
    assert message in str(err)


def test_pcie_forms() -> None:
    s = load_scenario(base_with(hosts__0__hbas__0__pcie={"gen": 3, "lanes": 8}))
    pcie = s.hosts[0].hbas[0].pcie
    assert pcie is not None and pcie.bytes_per_s == pytest.approx(8e9 * 128 / 130)
    s = load_scenario(base_with(hosts__0__hbas__0__pcie={"rate": "1GB/s", "efficiency": 0.92}))
    pcie = s.hosts[0].hbas[0].pcie
    assert pcie is not None and pcie.bytes_per_s == pytest.approx(0.92e9)
    for bad, msg in [
        ({"gen": 2}, "give either rate, or both gen and lanes"),
        ({"gen": 2, "lanes": 4, "rate": "1GB/s"}, "not both"),
        ({"gen": 2, "lanes": 3}, "hosts.0.hbas.0.pcie.lanes"),
    ]:
        assert msg in str(error_of(base_with(hosts__0__hbas__0__pcie=bad)))


# --- located errors ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("old", "new", "where", "message"),
    [
        ("queue_depth: 32", "queue_depth: lots", "5:22: hosts.0.hbas.0.queue_depth:", "integer"),
        (
            "queue_depth: 32",
            "queue_dpeth: 32",
            "5:22: hosts.0.hbas.0.queue_dpeth:",
            "unknown key (check the spelling",
        ),
        (
            "queue_depth: 32",
            "queue_depth: -1",
            "5:22: hosts.0.hbas.0.queue_depth:",
            "greater than or equal to 1 (got -1)",
        ),
        ("pool: r5", "pool: r6", "12:13: array.luns.0.pool:", "no pool named 'r6' (pools: r5)"),
        (
            "outstanding: 4",
            "outstanding: 4\n    hosts: [web]",
            "16:13: workloads.0.hosts.0:",
            "no host named 'web' (hosts: db)",
        ),
        (
            "outstanding: 4",
            "outstanding: 4\n    block_size: 8Kb",
            "16:17: workloads.0.block_size:",
            "'b' means bits",
        ),
        (
            "drives: 5",
            "drives: 5\n      drive: {dist: lognormal, mean: 5ms}",
            "10:7: array.pools.0.drive.service:",
            "dist lognormal needs cv",
        ),
        (
            "drives: 5",
            "drives: 5\n      drive: {dist: uniform, low: 9ms, high: 1ms}",
            "10:7: array.pools.0.drive.service:",
            "uniform needs low <= high",
        ),
        (
            "outstanding: 4",
            "outstanding: 4\n    rate: 100",
            "14:5: workloads.0:",
            "give outstanding (closed loop) or rate (open loop), not both",
        ),
        (
            "drives: 5",
            "drives: 5\n      raid: raid10",
            "8:7: array.pools.0:",
            "raid10 needs an even number of drives per group",
        ),
        (
            "drives: 5",
            "drives: 2\n      raid: raid5",
            "8:7: array.pools.0:",
            "raid5 needs at least 3 drives per group",
        ),
        (
            "pool: r5",
            "pool: r5\n      ports: [0, 9]",
            "13:18: array.luns.0.ports.1:",
            "array port 9 does not exist",
        ),
        (
            "  - name: w",
            "  - name: db\n    hosts: [db]\n  - name: db",
            "16:11: workloads.1.name:",
            "duplicate name 'db'",
        ),
    ],
)
def test_located_errors(tmp_path: Path, old: str, new: str, where: str, message: str) -> None:
    assert BASE.count(old) == 1
    path = write(tmp_path, BASE.replace(old, new))
    before = path.read_bytes()
    err = error_of(path)
    text = str(err)
    assert f"{path}:{where} " in text
    assert message in text
    assert "Traceback" not in text
    assert path.read_bytes() == before


def test_base_is_valid(tmp_path: Path) -> None:
    s = load_scenario(write(tmp_path, BASE))
    assert s.hosts[0].hbas[0].queue_depth == 32
    # the default pool is RAID 5 on the hdd-15k profile
    assert s.array.pools[0].raid == "raid5"
    named = load_scenario(base_with(array__pools__0__drive="hdd-15k")).array.pools[0].drive
    assert s.array.pools[0].drive == named


def test_every_problem_is_reported(tmp_path: Path) -> None:
    text = BASE.replace("queue_depth: 32", "queue_depth: -1").replace(
        "pool: r5", "pool: r5\n      count: 0"
    )
    err = error_of(write(tmp_path, text))
    assert len(err.problems) == 2
    lines = str(err).splitlines()
    assert lines[0].endswith(
        "hosts.0.hbas.0.queue_depth: Input should be greater than or equal to 1 (got -1)"
    )
    assert ":13:14: array.luns.0.count:" in lines[1]
    assert (err.problems[1].line, err.problems[1].column) == (13, 14)


def test_yaml_that_does_not_parse(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("drives: 5", "drives: [5"))
    err = error_of(path)
    assert str(err).startswith(f"{path}:10:7: YAML does not parse:")
    tab = write(tmp_path, "name: t\n\tfoo: 1\n", "tab.yaml")
    assert str(error_of(tab)).startswith(f"{tab}:2:1: YAML does not parse:")


def test_duplicate_yaml_key(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("name: t\n", "name: t\nname: u\n"))
    text = str(error_of(path))
    assert text.startswith(f"{path}:")
    assert "YAML does not parse" in text


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    assert str(error_of(path)) == f"{path}: file not found"
    assert not path.exists()


def test_directory(tmp_path: Path) -> None:
    assert "is a directory" in str(error_of(tmp_path))


@pytest.mark.parametrize("text", ["", "# only a comment\n", "---\n"])
def test_empty_file(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    assert str(error_of(path)) == f"{path}: the file is empty"


@pytest.mark.parametrize("text", ["- 1\n- 2\n", "just a string\n", "42\n"])
def test_not_a_mapping(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    assert str(error_of(path)) == f"{path}: a scenario must be a mapping"


def test_missing_required_fields(tmp_path: Path) -> None:
    path = write(tmp_path, BASE.replace("    - name: data\n      pool: r5\n", "    - count: 2\n"))
    text = str(error_of(path))
    assert f"{path}:11:7: array.luns.0.name: required field is missing" in text
    assert "array.luns.0.pool: required field is missing" in text


def test_dict_errors_have_paths_but_no_lines() -> None:
    err = error_of(base_with(hosts__0__count=0))
    assert str(err).startswith("<dict>: hosts.0.count: Input should be greater than or equal")
    assert err.problems[0].line is None


def test_zoning_references() -> None:
    zones = [{"host": "web", "array_ports": [0]}, {"host": "host", "port": 3, "array_ports": [5]}]
    err = error_of(base_with(zoning=zones))
    text = str(err)
    assert "zoning.0.host: no host named 'web'" in text
    assert "zoning.1.port: host 'host' has 1 HBA port(s), numbered from 0" in text
    assert "zoning.1.array_ports.0: array port 5 does not exist" in text
    ok = load_scenario(base_with(zoning=[{"host": "host", "array_ports": [0]}]))
    assert not isinstance(ok.zoning, str) and ok.zoning[0].port is None
    assert load_scenario(base_with(zoning="one-to-one")).zoning == "one-to-one"
    assert "zoning" in str(error_of(base_with(zoning="some-to-some")))


def test_workload_naming_missing_lun() -> None:
    text = str(error_of(base_with(workloads__0__luns=["lun", "logs"])))
    assert "workloads.0.luns.1: no LUN group named 'logs' (LUNs: lun)" in text


def test_cache_and_hdd_cross_field_checks() -> None:
    err = error_of(base_with(array__cache={"low_watermark": 0.9, "high_watermark": 0.5}))
    assert "array.cache: low_watermark must not exceed high_watermark" in str(err)
    err = error_of(
        base_with(array__pools__0__drive={"model": "hdd", "media_rate_inner": "300MB/s"})
    )
    assert "media_rate_inner must not exceed media_rate_outer" in str(err)


# --- overrides --------------------------------------------------------------------------


def two_hosts() -> Scenario:
    data = textbook.free_path()
    host = data["hosts"][0]
    host["hbas"] = [dict(host["hbas"][0], queue_depth=32), dict(host["hbas"][0], queue_depth=32)]
    data["hosts"] = [dict(host, name="a"), dict(copy.deepcopy(host), name="b")]
    return load_scenario(data)


def test_with_overrides_index_and_units() -> None:
    s = load_scenario(QUICKSTART)
    t = s.with_overrides(
        {
            "hosts.0.hbas.0.queue_depth": 16,
            "workloads.0.block_size": "16KiB",
            "hosts.0.qfull.retry_delay": "5ms",
            "array.pools.0.drive": {"profile": "hdd-7k2"},
        }
    )
    assert t.hosts[0].hbas[0].queue_depth == 16
    assert t.workloads[0].block_size == ((16384, 1.0),)
    assert t.hosts[0].qfull.retry_delay == 0.005
    drive = t.array.pools[0].drive
    assert isinstance(drive, HddSpec) and drive.rpm == 7200
    # the original is untouched and everything else is the same
    assert s.hosts[0].hbas[0].queue_depth == 32
    assert (
        t.with_overrides(
            {
                "hosts.0.hbas.0.queue_depth": 32,
                "workloads.0.block_size": 8192,
                "hosts.0.qfull.retry_delay": 0.003,
                "array.pools.0.drive": {"profile": "hdd-15k", "reorder_window": None},
            }
        )
        == s
    )


def test_with_overrides_wildcards_and_negative_index() -> None:
    s = two_hosts()
    t = s.with_overrides({"hosts.*.hbas.*.queue_depth": 8})
    assert [hba.queue_depth for h in t.hosts for hba in h.hbas] == [8, 8, 8, 8]
    u = s.with_overrides({"hosts.1.hbas.*.queue_depth": 4, "hosts.-1.count": 3})
    assert [hba.queue_depth for hba in u.hosts[0].hbas] == [32, 32]
    assert [hba.queue_depth for hba in u.hosts[1].hbas] == [4, 4]
    assert [h.count for h in u.hosts] == [1, 3]


@pytest.mark.parametrize(
    ("key", "message"),
    [
        ("hosts.3.count", "hosts.3.count: hosts.3: index 3 out of range (the list has 2 items)"),
        ("hosts.first.count", "hosts.first: expected a list index"),
        ("nosuch.0.depth", "nosuch: no such key"),
        ("nosuch.depth", "nosuch: unknown key"),
        ("name.first", "name is a value, not a section"),
        ("run.iox", "run.iox: unknown key"),
    ],
)
def test_with_overrides_bad_keys(key: str, message: str) -> None:
    with pytest.raises(ScenarioError) as info:
        two_hosts().with_overrides({key: 1})
    assert str(info.value).startswith("<overrides>: ")
    assert message in str(info.value)


def test_with_overrides_bad_value() -> None:
    with pytest.raises(ScenarioError) as info:
        two_hosts().with_overrides({"hosts.*.hbas.0.queue_depth": "deep"})
    text = str(info.value)
    assert "<overrides>: hosts.0.hbas.0.queue_depth:" in text
    assert "<overrides>: hosts.1.hbas.0.queue_depth:" in text


def test_set_dotted_on_plain_data() -> None:
    data: dict[str, Any] = {"a": {"x": 1, "y": 2}, "l": [{"v": 0}, {"v": 0}], "n": None}
    shared = [1, 2]
    set_dotted(data, "a.*", shared)
    set_dotted(data, "l.*.v", 5)
    set_dotted(data, "a.z", 3)  # a new leaf key is allowed
    set_dotted(data, "n.k", 4)  # a null section becomes a mapping
    set_dotted(data, "m.k", 6)  # and so does a missing one
    assert data == {
        "a": {"x": [1, 2], "y": [1, 2], "z": 3},
        "l": [{"v": 5}, {"v": 5}],
        "n": {"k": 4},
        "m": {"k": 6},
    }
    shared.append(3)
    assert data["a"]["x"] == [1, 2] and data["a"]["x"] is not data["a"]["y"]
    with pytest.raises(KeyError, match="out of range"):
        set_dotted(data, "l.2.v", 1)
    with pytest.raises(KeyError, match="b: no such key"):
        set_dotted(data, "b.0.c", 1)  # a missing list cannot be started
    with pytest.raises(KeyError, match="b: no such key"):
        set_dotted(data, "b.*.c", 1)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("run.ios=2000", ("run.ios", 2000)),
        (" run.ios = 2000 ", ("run.ios", 2000)),
        ("a.b=8KiB", ("a.b", "8KiB")),
        ("x=0.5", ("x", 0.5)),
        ("x=null", ("x", None)),
        ("x=", ("x", None)),
        ("x=[1, 2]", ("x", [1, 2])),
        ("x={dist: exponential, mean: 5ms}", ("x", {"dist": "exponential", "mean": "5ms"})),
        ("x=a=b", ("x", "a=b")),
        ("x=yes", ("x", "yes")),  # YAML 1.2: only true/false are booleans
        ("x=true", ("x", True)),
    ],
)
def test_parse_assignment(text: str, expected: tuple[str, Any]) -> None:
    assert parse_assignment(text) == expected


@pytest.mark.parametrize("text", ["no-equals-sign", "x=[1", "x={a"])
def test_parse_assignment_errors(text: str) -> None:
    with pytest.raises(ValueError, match=r"expected dotted\.key=value|cannot read"):
        parse_assignment(text)


def test_load_scenario_with_overrides(tmp_path: Path) -> None:
    path = write(tmp_path, BASE)
    before = path.read_bytes()
    # BASE has no run section: overriding a defaulted section still works
    s = load_scenario(path, overrides={"hosts.0.hbas.0.queue_depth": 8, "run.ios": 2000})
    assert s.hosts[0].hbas[0].queue_depth == 8
    assert s.run.ios == 2000
    assert path.read_bytes() == before
    # a bad value is located at the value it replaced
    err = error_of(path, overrides={"hosts.0.hbas.0.queue_depth": -2})
    assert str(err).startswith(f"{path}:5:22: hosts.0.hbas.0.queue_depth:")
    err = error_of(path, overrides={"hosts.4.count": 2})
    assert str(err) == (
        f"{path}: hosts.4.count: hosts.4: index 4 out of range (the list has 1 items)"
    )
    assert path.read_bytes() == before


def test_load_scenario_overrides_on_dict_and_scenario() -> None:
    data = textbook.free_path()
    original = copy.deepcopy(data)
    s = load_scenario(data, overrides={"workloads.0.outstanding": 9})
    assert s.workloads[0].outstanding == 9
    assert data == original
    t = load_scenario(s, overrides={"workloads.0.outstanding": 3})
    assert t.workloads[0].outstanding == 3 and s.workloads[0].outstanding == 9
    assert load_scenario(s) is s
    with pytest.raises(ScenarioError, match="index 7 out of range"):
        load_scenario(s, overrides={"workloads.7.outstanding": 3})


# --- schema, queue limits, names --------------------------------------------------------


def _refs(node: Any) -> list[str]:
    if isinstance(node, dict):
        found = [node["$ref"]] if isinstance(node.get("$ref"), str) else []
        return found + [r for v in node.values() for r in _refs(v)]
    if isinstance(node, list):
        return [r for v in node for r in _refs(v)]
    return []


def test_json_schema_shape() -> None:
    schema = json.loads(json.dumps(json_schema()))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["type"] == "object"
    assert {"hosts", "array", "workloads", "run", "fabric", "zoning"} <= set(schema["properties"])
    assert set(schema["required"]) == {"name", "hosts", "array", "workloads"}
    assert schema["additionalProperties"] is False
    refs = _refs(schema)
    assert refs
    for ref in refs:
        assert ref.startswith("#/$defs/")
        assert ref.removeprefix("#/$defs/") in schema["$defs"]
    size = schema["$defs"]["PoolSpec"]["properties"]["stripe_element"]
    assert "1024-based" in size["description"]


def _types(node: dict[str, Any]) -> set[str]:
    """The JSON types a property schema admits directly (through anyOf)."""
    out = {node["type"]} if "type" in node else set()
    for alt in node.get("anyOf", []):
        out |= _types(alt)
    return out


def test_json_schema_admits_shorthand_forms() -> None:
    defs = json_schema()["$defs"]
    # service times: "20us" or 2e-5 as well as a mapping
    for model, field in [("HbaSpec", "command_time"), ("ControllerSpec", "io_time")]:
        assert {"string", "number"} <= _types(defs[model]["properties"][field])
    assert {"string", "number", "object"} <= _types(defs["PoolSpec"]["properties"]["drive"])
    assert "string" in _types(defs["HbaSpec"]["properties"]["speed"])
    assert "object" in _types(defs["WorkloadSpec"]["properties"]["block_size"])


def test_quickstart_matches_json_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    schema = json_schema()
    data = read_yaml(QUICKSTART)
    jsonschema.validate(json.loads(json.dumps(data)), schema)
    closed = textbook.closed_path(4, "1ms", {"dist": "exponential", "mean": "2ms"}, "3ms")
    jsonschema.validate(closed, schema)
    bad = json.loads(json.dumps(data))
    bad["hosts"][0]["hbas"][0]["queue_dpeth"] = 4
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate(bad, schema)


def _array(pool: PoolSpec, lun: LunSpec, setting: Any = "clariion") -> ArraySpec:
    return ArraySpec(pools=(pool,), luns=(lun,), lun_queue_depth=setting)


@pytest.mark.parametrize(
    ("raid", "drives", "groups", "expected"),
    [
        ("raid5", 5, 1, 88),  # 4+1: 32 + 14 x 4
        ("raid10", 8, 1, 88),  # 4+4: 32 + 14 x 4
        ("raid6", 8, 1, 116),  # 6+2: 32 + 14 x 6
        ("raid0", 3, 1, 74),
        ("raid1", 2, 1, 46),
        ("raid5", 5, 6, 32 + 14 * 4 * 6),  # striped over six 4+1 groups
    ],
)
def test_lun_queue_limit_clariion(raid: str, drives: int, groups: int, expected: int) -> None:
    pool = PoolSpec(name="p", raid=raid, drives=drives, groups=groups)
    lun = LunSpec(name="l", pool="p")
    assert lun_queue_limit(_array(pool, lun), lun, pool) == expected


def test_lun_queue_limit_settings() -> None:
    pool = PoolSpec(name="p", raid="raid5", drives=5)
    plain = LunSpec(name="l", pool="p")
    own = LunSpec(name="l", pool="p", queue_depth=16)
    own_clariion = LunSpec(name="l", pool="p", queue_depth="clariion")
    assert lun_queue_limit(_array(pool, plain, None), plain, pool) is None
    assert lun_queue_limit(_array(pool, plain, 64), plain, pool) == 64
    assert lun_queue_limit(_array(pool, own), own, pool) == 16
    assert lun_queue_limit(_array(pool, own_clariion, None), own_clariion, pool) == 88


def test_quickstart_lun_limit() -> None:
    s = load_scenario(QUICKSTART)
    pool, lun = s.array.pools[0], s.array.luns[0]
    assert lun_queue_limit(s.array, lun, pool) == 32 + 14 * 4 * pool.groups


@pytest.mark.parametrize(
    ("count", "first", "last"),
    [
        (1, "db", "db"),
        (2, "db[0]", "db[1]"),
        (10, "db[0]", "db[9]"),
        (11, "db[00]", "db[10]"),
        (100, "db[00]", "db[99]"),
        (101, "db[000]", "db[100]"),
    ],
)
def test_expand_names(count: int, first: str, last: str) -> None:
    names = expand_names("db", count)
    assert len(names) == count
    assert (names[0], names[-1]) == (first, last)


@given(st.integers(1, 5000))
def test_expand_names_unique_and_sorted(count: int) -> None:
    names = expand_names("h", count)
    assert len(set(names)) == count
    assert sorted(names) == names
    assert len({len(n) for n in names}) == 1


def test_shipped_schema_file_is_current() -> None:
    """docs/scenario.schema.json (referenced by the scenarios) matches `sanpath schema`."""
    from sanpath.spec import json_schema

    shipped = json.loads((ROOT / "docs" / "scenario.schema.json").read_text())
    assert shipped == json.loads(json.dumps(json_schema()))


def test_copy_job_errors_name_the_field() -> None:
    text = str(error_of(base_with(workloads__0__copy_to={"luns": ["backup"]})))
    assert "workloads.0.copy_to.luns.0: no LUN group named 'backup' (LUNs: lun)" in text
    text = str(error_of(base_with(workloads__0__copy_to={"luns": ["lun"], "buffers": 0})))
    assert "workloads.0.copy_to.buffers" in text
    mixed = base_with(workloads__0__copy_to={"luns": ["lun"]}, workloads__0__read_fraction=0.5)
    assert "read_fraction must be 1" in str(error_of(mixed))
    ok = load_scenario(base_with(workloads__0__copy_to={"luns": ["lun"], "files": 2}))
    copy = ok.workloads[0].copy_to
    assert copy is not None and copy.files == 2 and copy.ratio == 1.0


# -- HBA and array profiles ---------------------------------------------------------------------


def _with_hba_and_array(hba: dict[str, Any], array: dict[str, Any]) -> dict[str, Any]:
    data = textbook.free_path()
    data["hosts"][0]["hbas"] = [hba]
    data["array"].update(array)
    return data


def test_profile_names_in_the_schema_are_the_profiles() -> None:
    from typing import get_args

    from sanpath.spec.hardware import ArrayProfile
    from sanpath.spec.host import HbaProfile
    from sanpath.spec.profiles import ARRAY_PROFILES, HBA_PROFILES

    assert set(get_args(HbaProfile)) == set(HBA_PROFILES)
    assert set(get_args(ArrayProfile)) == set(ARRAY_PROFILES)


@pytest.mark.parametrize("name", ["emulex-lp10000", "qlogic-qle2562", "hp-ab379b"])
def test_hba_profile_fields_are_applied(name: str) -> None:
    from sanpath.spec.profiles import HBA_PROFILES

    plain = load_scenario(_with_hba_and_array(dict(HBA_PROFILES[name]), {}))
    named = load_scenario(_with_hba_and_array({"profile": name}, {}))
    hba = named.hosts[0].hbas[0]
    assert hba.profile == name
    assert hba.model_copy(update={"profile": None}) == plain.hosts[0].hbas[0]


def test_fields_beside_a_profile_win_and_cache_fields_merge() -> None:
    data = _with_hba_and_array(
        {"profile": "qlogic-qle2562", "max_transfer": "2MiB", "queue_depth": 16},
        {"profile": "emc-vnx", "port_queue_depth": 2048, "cache": {"write_back": "1GiB"}},
    )
    del data["array"]["lun_queue_depth"], data["array"]["port_speed"]  # left to the profile
    s = load_scenario(data)
    hba, array = s.hosts[0].hbas[0], s.array
    assert (hba.ports, hba.speed, hba.queue_target) == (2, 850e6, "lun")  # from the profile
    assert (hba.max_transfer, hba.queue_depth) == (2 << 20, 16)  # written beside it
    assert array.port_queue_depth == 2048 and array.lun_queue_depth == "clariion"
    assert array.port_speed == 850e6
    assert array.cache.write_back == 1 << 30 and array.cache.write_aside == 1 << 20
    # the written scenario is not changed, and the validated one round-trips
    assert data["array"]["cache"] == {"write_back": "1GiB"}
    assert load_scenario(s.to_data()) == s


def test_unknown_profile_is_a_located_error() -> None:
    err = error_of(_with_hba_and_array({"profile": "qlogic-qle9999"}, {}))
    assert "hosts.0.hbas.0.profile" in str(err)
    assert "qlogic-qle2562" in str(err)
    err = error_of(_with_hba_and_array({}, {"profile": "emc-symmetrix"}))
    assert "array.profile" in str(err) and "emc-vnx" in str(err)


def test_run_length_keys_are_one_at_a_time() -> None:
    data = load_scenario(QUICKSTART).to_data()
    data["run"].update(ios=1000, duration=5.0)
    with pytest.raises(ScenarioError, match="give one of ios"):
        load_scenario(data)
    with pytest.raises(ScenarioError, match="give one of ios"):
        load_scenario(QUICKSTART, {"run.ios": 1000, "run.duration": "5s"})
    # an override of one length replaces the file's: --set run.duration=5s means 5 s
    fixed = load_scenario(QUICKSTART, {"run.ios": 1000})
    assert fixed.run.ios == 1000 and fixed.run.stop_on is None
    timed = fixed.with_overrides({"run.duration": "5s"})
    assert timed.run.ios is None and timed.run.duration == 5.0
    assert load_scenario(QUICKSTART).run.stop_on is not None
