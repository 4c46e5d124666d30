"""``--vary`` ranges on ``sweep``; ``--set`` on ``validate`` and ``check`` as on ``run``."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from ruamel.yaml import YAML

from sanpath.cli import main
from sanpath.results import SweepResult
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

OIO = "workloads.0.outstanding"
QUICKSTART = SCENARIOS / "quickstart.yaml"
OVERSUBSCRIBED = SCENARIOS / "proposals" / "oversubscribed_port.yaml"


@pytest.fixture
def tiny(tmp_path: Path) -> Path:
    """A closed loop through three exponential stations, 600 I/Os a run."""
    data = textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=600,
        warmup_ios=60,
    )
    path = tmp_path / "tiny.yaml"
    YAML().dump(data, path)
    return path


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(list(args))
    except SystemExit as exc:
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


# --- --vary ranges ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("1..8", [1, 2, 4, 8]),
        ("2..7:+2", [2, 4, 6]),
        ("1..9:*3", [1, 3, 9]),
        ("1..9:x3", [1, 3, 9]),
        ("1,2..4:+1,16", [1, 2, 3, 4, 16]),  # ranges and single values mix
    ],
)
def test_a_range_expands_into_the_sweep_points(
    capsys: pytest.CaptureFixture[str], tiny: Path, tmp_path: Path, text: str, values: list[int]
) -> None:
    out = tmp_path / "table.csv"
    code, _, err = cli(
        capsys, "sweep", str(tiny), "--quiet", "--no-cache", "--vary", f"{OIO}={text}",
        "--out", str(out),
    )  # fmt: skip
    assert code == 0, err
    table = SweepResult.load(out).table
    assert table[OIO].to_list() == values
    assert str(table[OIO].dtype).startswith("int")  # integers stay integers


def test_a_float_range_gives_floats(capsys: pytest.CaptureFixture[str], tiny: Path) -> None:
    key = "array.cache.read_hit"
    code, out, err = cli(
        capsys, "sweep", str(tiny), "--quiet", "--no-cache", "--vary", f"{key}=0..1:+0.5"
    )
    assert code == 0, err
    first_column = [line.split()[0] for line in out.splitlines()[1:]]
    assert first_column == ["0", "0.5", "1"]


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("64..4", "the range starts above its end (64 > 4)"),
        ("4..64:+0", "the step must be above 0"),
        ("4..64:*1", "the factor must be above 1"),
        ("0..64", "a multiplying range must start above 0"),
        ("four..64", "is not a range"),
        ("4..64:/2", "the step after ':' must be +STEP or *FACTOR"),
        ("1..1e6:+1", "more than 1000 values"),
    ],
)
def test_a_bad_range_is_a_located_error_before_anything_runs(
    capsys: pytest.CaptureFixture[str], tiny: Path, tmp_path: Path, text: str, message: str
) -> None:
    out = tmp_path / "never.csv"
    code, stdout, err = cli(
        capsys, "sweep", str(tiny), "--quiet", "--no-cache", "--vary", f"hosts.0.count={text}",
        "--out", str(out),
    )  # fmt: skip
    assert code == 2
    assert stdout == ""
    assert err.startswith(f"sanpath: error: --vary hosts.0.count={text}: ")
    assert message in err
    assert "Traceback" not in err
    assert not out.exists()


def test_a_range_cannot_vary_keys_together(capsys: pytest.CaptureFixture[str], tiny: Path) -> None:
    code, _, err = cli(capsys, "sweep", str(tiny), "--vary", f"{OIO},hosts.0.count=1..4")
    assert code == 2 and "a range varies one key" in err


def test_a_value_yaml_cannot_read_is_an_error_not_a_traceback(
    capsys: pytest.CaptureFixture[str], tiny: Path
) -> None:
    code, _, err = cli(capsys, "sweep", str(tiny), "--vary", f"{OIO}=[1")
    assert code == 2
    assert f"--vary {OIO}=[1: cannot read '[1'" in err and "Traceback" not in err


# --- --set on validate ------------------------------------------------------------------


def test_validate_applies_set_to_every_file(capsys: pytest.CaptureFixture[str], tiny: Path) -> None:
    code, out, err = cli(capsys, "validate", str(tiny), str(QUICKSTART), "--set", "seed=7")
    assert code == 0, err
    assert out.splitlines() == [f"{tiny}: ok (closed)", f"{QUICKSTART}: ok (quickstart)"]


def test_validate_reports_a_value_the_set_makes_invalid(
    capsys: pytest.CaptureFixture[str], tiny: Path
) -> None:
    code, out, err = cli(capsys, "validate", str(tiny), "--set", "hosts.0.hbas.0.queue_depth=-1")
    assert code == 2 and out == ""
    assert f"{tiny}" in err and "hosts.0.hbas.0.queue_depth" in err
    code, _, err = cli(capsys, "validate", str(tiny), "--set", "hosts.5.count=2")
    assert code == 2 and "hosts.5" in err and "out of range" in err


@pytest.mark.parametrize("command", ["run", "validate", "check"])
def test_a_malformed_set_reads_the_same_on_every_command(
    capsys: pytest.CaptureFixture[str], tiny: Path, command: str
) -> None:
    for bad, words in (("nonsense", "expected dotted.key=value"), ("seed=[1", "cannot read")):
        code, _, err = cli(capsys, command, str(tiny), "--set", bad)
        assert code == 2
        assert err.startswith("sanpath: error: ") and words in err
        assert "Traceback" not in err


# --- --set on check ---------------------------------------------------------------------


def test_check_with_set_checks_the_changed_proposal(capsys: pytest.CaptureFixture[str]) -> None:
    base = ["check", str(OVERSUBSCRIBED), "--no-simulate", "--fail-on", "error"]
    code, out, _ = cli(capsys, *base)
    assert code == 1 and "ERROR    SP001-fan-in" in out
    # the fix the finding suggests, given with --set: the port queue is just full (a planning
    # warning), no longer overrun
    code, out, _ = cli(capsys, *base, "--set", "hosts.0.lun_queue_depth=25")
    assert code == 0, out
    assert "ERROR" not in out and "WARNING  SP001-fan-in" in out
    assert "checked with: --set hosts.0.lun_queue_depth=25" in out


def test_check_report_records_the_overrides_and_seed(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "check", str(OVERSUBSCRIBED), "--no-simulate", "--json",
        "--set", "hosts.0.count=6", "--set", "seed=9",
    )  # fmt: skip
    assert code == 0
    report = json.loads(out)
    assert report["overrides"] == {"hosts.0.count": 6, "seed": 9}
    assert report["seed"] == 9
    code, out, _ = cli(capsys, "check", str(OVERSUBSCRIBED), "--no-simulate", "--json")
    assert json.loads(out)["overrides"] == {} and json.loads(out)["seed"] == 202


def test_the_try_line_keeps_the_users_set(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = cli(
        capsys, "check", str(OVERSUBSCRIBED), "--no-simulate", "--set", "hosts.0.count=7"
    )
    assert code == 0
    tries = [line.strip() for line in out.splitlines() if line.strip().startswith("Try:")]
    assert tries
    for line in tries:
        assert "--set hosts.0.count=7" in line


def test_check_names_the_file_for_a_key_the_set_cannot_reach(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, _, err = cli(capsys, "check", str(OVERSUBSCRIBED), "--set", "hosts.3.count=2")
    assert code == 2
    assert str(OVERSUBSCRIBED) in err and "hosts.3" in err and "Traceback" not in err
