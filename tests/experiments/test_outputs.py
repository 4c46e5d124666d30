"""Outputs never lose work: every --out checked before the work starts, sweeps that own their
tables, calibrations that say when a fit is poor. The file helpers themselves:
tests/test_files.py."""

from __future__ import annotations

import errno
import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import sanpath
from sanpath.cli import main
from sanpath.experiments.calibrate import CalibrationResult, MeasuredPoint, calibrate
from sanpath.experiments.sweep import Task, run_task, sweep
from sanpath.files import OutputError
from sanpath.results import SweepResult
from sanpath.results.sweep import SIDECAR_SUFFIX
from sanpath.theory import textbook
from tests.conftest import SCENARIOS

OIO = "workloads.0.outstanding"


def small() -> dict[str, Any]:
    return textbook.closed_path(
        4,
        {"dist": "exponential", "mean": "0.2ms"},
        {"dist": "exponential", "mean": "0.5ms"},
        {"dist": "exponential", "mean": "1ms"},
        ios=800,
        warmup_ios=80,
    )


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    YAML().dump(small(), path)
    return path


@pytest.fixture
def no_runs(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Record (and forbid) every simulation: checks must come before any run."""
    calls: list[Any] = []

    def forbidden(*args: Any, **kwargs: Any) -> Any:
        calls.append(args)
        raise AssertionError("a simulation started before the output was checked")

    monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", forbidden)
    monkeypatch.setattr(sys.modules["sanpath.sim"], "run", forbidden)
    return calls


# --- every --out is checked before the work starts -----------------------------------------


@pytest.mark.parametrize(
    ("out", "message"),
    [
        ("{dir}", "is a directory"),
        ("{dir}/missing/t.csv", "does not exist"),
        ("{dir}/t.txt", "expected .csv or .json"),
    ],
)
def test_sweep_out_is_checked_before_running(
    out: str,
    message: str,
    scenario_file: Path,
    no_runs: list[Any],
    capsys: pytest.CaptureFixture[str],
) -> None:
    target = out.format(dir=scenario_file.parent)
    code = main(["sweep", str(scenario_file), "--quiet", "--vary", f"{OIO}=1,2", "--out", target])
    err = capsys.readouterr().err
    assert code == 2
    assert no_runs == []
    assert message in err and "Traceback" not in err
    assert target.replace("/missing/t.csv", "/missing") in err or target in err
    with pytest.raises(OutputError, match=message):
        sweep(scenario_file, {OIO: [1, 2]}, cache=None, out=target)


def test_calibrate_out_is_checked_before_running(
    scenario_file: Path, no_runs: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    measured = scenario_file.parent / "measured.csv"
    measured.write_text("workloads.0.outstanding,iops\n1,500\n4,900\n")
    base = ["calibrate", str(scenario_file), "--measured", str(measured)]
    fit = ["--fit", "array.controller.io_time"]
    for out, message in (
        (scenario_file.parent, "is a directory"),
        (scenario_file.parent / "nowhere" / "c.yaml", "does not exist"),
        (scenario_file.parent / "c.json", "expected .yaml or .yml"),
        (scenario_file, "is the scenario being calibrated"),
    ):
        assert main([*base, *fit, "--out", str(out)]) == 2
        err = capsys.readouterr().err
        assert message in err and str(out) in err
    assert no_runs == []


def test_plot_and_compare_outputs_are_checked_first(
    tmp_path: Path, no_runs: list[Any], capsys: pytest.CaptureFixture[str]
) -> None:
    table = tmp_path / "t.csv"
    SweepResult(sanpath_table(), [OIO]).save(table)
    assert main(["plot", str(table), "--kind", "iops-vs-outstanding", "--out", str(tmp_path)]) == 2
    assert "is a directory" in capsys.readouterr().err
    bad = tmp_path / "p.docx"
    assert main(["plot", str(table), "--kind", "iops-vs-outstanding", "--out", str(bad)]) == 2
    err = capsys.readouterr().err
    assert "cannot write a picture with '.docx'" in err and ".png" in err
    reference = SCENARIOS / "qd_sweep_2007.yaml"
    for plot in (tmp_path, tmp_path / "none" / "c.png"):
        assert main(["compare", str(reference), "--ios", "500", "--plot", str(plot)]) == 2
        assert str(plot) in capsys.readouterr().err
    assert no_runs == []


def test_existing_outputs_are_refused_without_force(
    scenario_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Issue 36, case 1: calibrate, report and plot replaced a hand-written file with exit 0."""
    measured = tmp_path / "measured.csv"
    measured.write_text("workloads.0.outstanding,iops\n1,500\n4,900\n")
    table = tmp_path / "t.csv"
    SweepResult(sanpath_table(), [OIO]).save(table)
    mine = "# my notes, by hand\nkeep: me\n"
    commands = {
        "other.yaml": [
            "calibrate", str(scenario_file), "--measured", str(measured),
            "--fit", "array.controller.io_time", "--ios", "300",
        ],
        "notes.html": ["report", str(scenario_file)],
        "pic.png": ["plot", str(table), "--kind", "iops-vs-outstanding"],
        "ref.png": ["compare", str(SCENARIOS / "qd_sweep_2007.yaml"), "--ios", "300", "--plot"],
    }  # fmt: skip
    runs: list[Any] = []
    monkeypatch.setattr(sys.modules["sanpath.sim"], "run", lambda *a, **k: runs.append(a))
    for name, argv in commands.items():
        out = tmp_path / name
        out.write_text(mine)
        flag = [] if argv[-1] == "--plot" else ["--out"]
        assert main([*argv, *flag, str(out)]) == 2, name
        err = capsys.readouterr().err
        assert f"{out}: already exists" in err and "--force" in err and "Traceback" not in err
        assert out.read_text() == mine and runs == []  # refused before any work
    monkeypatch.undo()
    for name in ("other.yaml", "notes.html", "pic.png"):
        out = tmp_path / name
        assert main([*commands[name], "--out", str(out), "--force"]) == 0, name
        capsys.readouterr()
        assert out.read_text(errors="replace") != mine
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def sanpath_table() -> Any:
    import pandas as pd

    return pd.DataFrame(
        {
            OIO: [1, 2, 4],
            "replicate": [0, 0, 0],
            "iops": [100.0, 180.0, 250.0],
            "latency_ms_mean": [10.0, 11.0, 16.0],
        }
    )


# --- a sweep owns its table ----------------------------------------------------------------


def test_same_sweep_resumes_and_overwrites_its_own_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    cache = tmp_path / "cache"
    out = tmp_path / "t.csv"
    first = sweep(small(), {OIO: [1, 4]}, cache=cache, out=out)
    assert first.identity and len(first.identity) == 16
    sidecar = json.loads(Path(f"{out}{SIDECAR_SUFFIX}").read_text())
    assert sidecar["sweep_id"] == first.identity and sidecar["keys"] == [OIO]
    assert out.read_text().splitlines()[0].startswith(f"{OIO},replicate,")  # plain CSV
    calls: list[Task] = []

    def counting(task: Task) -> dict[str, Any]:
        calls.append(task)
        return run_task(task)

    monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", counting)
    out.write_text(out.read_text() + "stale,line\n")
    again = sweep(small(), {OIO: [1, 4]}, cache=cache, out=out)
    assert calls == []  # every point came from the cache
    assert again.identity == first.identity
    loaded = SweepResult.load(out)
    assert len(loaded.table) == 2 and loaded.identity == first.identity  # rewritten whole
    assert loaded.keys == [OIO] and loaded.attrs == first.attrs


def test_a_different_sweep_may_not_overwrite_the_table(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("t.csv", "t.json"):
        out = tmp_path / name
        mine = sweep(small(), {OIO: [1, 4]}, cache=None, out=out)
        before = out.read_text()
        calls: list[Task] = []
        monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", calls.append)
        with pytest.raises(OutputError) as info:
            sweep(small(), {OIO: [2, 8]}, cache=None, out=out)
        message = str(info.value)
        assert str(out) in message and "different sweep" in message and "--force" in message
        assert calls == [] and out.read_text() == before
        with pytest.raises(OutputError, match="different sweep"):  # replicates count too
            sweep(small(), {OIO: [1, 4]}, replicates=2, cache=None, out=out)
        monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", run_task)
        theirs = sweep(small(), {OIO: [2, 8]}, cache=None, out=out, force=True)
        assert theirs.identity != mine.identity
        assert SweepResult.load(out).identity == theirs.identity
        with pytest.raises(OutputError, match="different sweep"):
            mine.save(out)
        assert mine.save(out, force=True) == out


def test_a_file_sanpath_did_not_write_is_kept(tmp_path: Path) -> None:
    out = tmp_path / "measured.csv"
    out.write_text("workloads.0.outstanding,iops\n1,500\n")
    with pytest.raises(OutputError, match="did not write"):
        sweep(small(), {OIO: [1]}, cache=None, out=out)
    assert out.read_text() == "workloads.0.outstanding,iops\n1,500\n"
    built = SweepResult(sanpath_table(), [OIO])  # a table built by hand has no identity
    with pytest.raises(OutputError, match="did not write"):
        built.save(out)


def test_two_sweeps_on_one_out_from_the_command_line(
    scenario_file: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "table.csv"
    first = ["sweep", str(scenario_file), "--quiet", "--no-cache", "--out", str(out)]
    assert main([*first, "--vary", f"{OIO}=1,2"]) == 0
    assert f"table written to {out}" in capsys.readouterr().out
    assert main([*first, "--vary", f"{OIO}=1,2"]) == 0  # the same sweep again: its own table
    capsys.readouterr()
    assert main([*first, "--vary", f"{OIO}=4,8"]) == 2
    err = capsys.readouterr().err
    assert f"{out}: already holds a table written by a different sweep" in err
    assert "--force" in err and "Traceback" not in err
    assert SweepResult.load(out).table[OIO].to_list() == [1, 2]
    assert main([*first, "--vary", f"{OIO}=4,8", "--force"]) == 0
    capsys.readouterr()
    assert SweepResult.load(out).table[OIO].to_list() == [4, 8]
    picture = tmp_path / "qd.png"
    assert main(["plot", str(out), "--kind", "iops-vs-outstanding", "--out", str(picture)]) == 0
    assert picture.read_bytes()[:4] == b"\x89PNG"


# --- calibrate says when a fit is poor -----------------------------------------------------


def fake_result(errors: list[float]) -> CalibrationResult:
    points = [
        {
            "label": f"N={i}",
            "metric": "iops",
            "measured": 100.0,
            "model": 100.0 * (1 + e),
            "error": e,
        }
        for i, e in enumerate(errors)
    ]
    rms = (sum(e * e for e in errors) / len(errors)) ** 0.5
    return CalibrationResult({}, {}, points, sanpath.load_scenario(small()), [], 0, rms)


def test_poor_fit_warning_names_the_worst_points() -> None:
    assert fake_result([0.01, -0.02, 0.03]).warning() is None
    result = fake_result([0.01, -0.5, 0.3, 0.02, -0.1])
    assert [p["label"] for p in result.worst()] == ["N=1", "N=2", "N=4"]
    warning = result.warning()
    assert warning is not None
    assert "rms relative error 26.5% is above 10%" in warning
    assert "N=1 iops: measured 100, model 50.0 (-50.0%)" in warning
    assert "N=3" not in warning  # only the worst three
    assert fake_result([0.06, -0.06]).warning(0.05) is not None


@pytest.mark.slow
def test_calibrate_cli_warns_and_fails_above(
    tmp_path: Path, scenario_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Figures no controller time can explain: 800 I/O per s with one outstanding needs a fast
    # controller, 500 with sixteen a slow one (the drive alone carries 1,000).
    measured = tmp_path / "measured.csv"
    measured.write_text("label,workloads.0.outstanding,iops\nlow,1,800\nhigh,16,500\n")
    base = [
        "calibrate",
        str(scenario_file),
        "--measured",
        str(measured),
        "--ios",
        "400",
        "--fit",
        "array.controller.io_time",
        "--out",
        str(tmp_path / "c.yaml"),
    ]
    assert main(base) == 0
    err = capsys.readouterr().err
    assert "sanpath: warning: poor fit" in err
    assert "high iops: measured 500, model" in err and "low iops: measured 800" in err
    base.append("--force")  # the reruns replace the calibrated copy
    assert main([*base, "--fail-above", "0.9"]) == 0  # still warned, but within the bound
    assert "poor fit" in capsys.readouterr().err
    assert main([*base, "--fail-above", "0.1"]) == 1
    err = capsys.readouterr().err
    assert "fails --fail-above 0.1" in err and "poor fit" in err
    assert (tmp_path / "c.yaml").exists()  # the work is still written
    with pytest.raises(SystemExit) as info:  # a usage error, before any work
        main([*base, "--fail-above", "lots"])
    assert info.value.code == 2
    assert "expected a fraction such as 0.1, got 'lots'" in capsys.readouterr().err


def test_a_good_fit_is_quiet(tmp_path: Path) -> None:
    truth = sanpath.run(small(), overrides={OIO: 2})
    points = [MeasuredPoint("N=2", {OIO: 2}, {"iops": truth.iops})]
    result = calibrate(small(), points, ["array.controller.io_time"])
    assert result.rms_error < 0.02 and result.warning() is None


# --- a full disk loses no work (issue 36, case 4) ------------------------------------------


def _disk_full(monkeypatch: pytest.MonkeyPatch) -> None:
    def full(handle: int) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(os, "fsync", full)


def test_a_full_disk_names_the_file_and_the_same_sweep_resumes(
    scenario_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "t.csv"
    cache = tmp_path / "cache"
    argv = ["sweep", str(scenario_file), "--quiet", "--vary", f"{OIO}=1,2"]
    argv += ["--cache", str(cache), "--out", str(out)]
    _disk_full(monkeypatch)
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert f"{cache}: cannot keep finished points any more" in err  # warned, went on
    assert f"{out}.sweep.json: not written: No space left on device" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["cache", "small.yaml"]
    assert list(cache.iterdir()) == []  # no empty entry left behind
    monkeypatch.undo()
    assert main(argv) == 0  # space freed: the same sweep runs and writes its table
    capsys.readouterr()
    assert SweepResult.load(out).table[OIO].tolist() == [1, 2]
    _disk_full(monkeypatch)
    assert main(argv) == 2  # a rerun on a full disk keeps the old table and its identity
    capsys.readouterr()
    monkeypatch.undo()
    assert SweepResult.load(out).identity and main(argv) == 0


def test_import_and_report_on_a_full_disk_are_named_errors(
    scenario_file: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    imported = tmp_path / "imported.yaml"
    page = tmp_path / "page.html"
    perfmon = SCENARIOS / "measured" / "perfmon_sql.csv"
    _disk_full(monkeypatch)
    for argv, out in (
        (["import", str(perfmon), "--out", str(imported)], imported),
        (["report", str(scenario_file), "--out", str(page)], page),
    ):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert f"{out}: not written: No space left on device" in err and "Traceback" not in err
        assert not out.exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["small.yaml"]
