"""The smaller failure paths of issue 36 (case 8): a whole trace validated, grids and jobs
sized before the work, names that cannot drive the terminal, workers that die with their
parent, unstable fio-json runs named, and two sweeps racing for one table."""

from __future__ import annotations

from pathlib import Path

import pytest
from ruamel.yaml import YAML

from sanpath.cli import main
from tests.conftest import SCENARIOS
from tests.sim.test_replay import scenario as replay_scenario


def test_validate_reads_every_line_of_a_trace(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = (SCENARIOS / "measured" / "msr_hm_0.csv").read_text().splitlines()
    lines = [records[i % len(records)] for i in range(9_000)]
    lines.append("128166372003586542,hm,0,Read,not-an-offset,4096,4913")  # line 9,001
    trace = tmp_path / "long.csv"
    trace.write_text("\n".join(lines) + "\n")
    path = tmp_path / "replay.yaml"
    YAML().dump(replay_scenario({"file": str(trace), "format": "msr"}), path)
    assert main(["validate", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{trace}:9001:" in err and "Traceback" not in err
    trace.write_text("\n".join(lines[:-1]) + "\n")
    assert main(["validate", str(path)]) == 0
    assert "ok" in capsys.readouterr().out


def test_a_huge_grid_and_absurd_jobs_are_refused_before_any_point(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys
    import tracemalloc

    sweep_module = sys.modules["sanpath.experiments.sweep"]
    built: list[object] = []
    monkeypatch.setattr(sweep_module, "expand_grid", lambda *a: built.append(a) or [])
    path = SCENARIOS / "quickstart.yaml"
    values = ",".join(str(i) for i in range(1, 1001))
    argv = ["sweep", str(path), "--quiet", "--no-cache"]
    tracemalloc.start()
    code = main([*argv, "--vary", f"workloads.0.outstanding={values}", "--vary", f"seed={values}"])
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert code == 2 and built == [] and peak < 50e6
    err = capsys.readouterr().err
    assert "1,000,000 points (1000 x 1000)" in err and "--force" in err
    assert main([*argv, "--vary", "workloads.0.outstanding=1,2", "--jobs", "100000"]) == 2
    err = capsys.readouterr().err
    assert "jobs=100000: expected 1 to" in err and "array.luns" not in err


def test_names_cannot_drive_the_terminal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = YAML(typ="safe").load((SCENARIOS / "quickstart.yaml").read_text())
    data["name"] = "ok\x1b]0;owned\x07\x1b[2J\x9b"
    path = tmp_path / "s.yaml"
    YAML().dump(data, path)
    assert main(["validate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out and "\x9b" not in out
    assert "ok\\x1b]0;owned\\x07\\x1b[2J\\x9b" in out
    assert main(["run", str(path), "--set", "run.ios=300", "--set", "run.warmup_ios=30"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\\x1b[2J" in out


def test_two_sweeps_finishing_at_once_on_one_table_cannot_both_win(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys
    import threading
    import time

    import pandas as pd

    from sanpath.files import OutputError, recorded_identity
    from sanpath.results import SweepResult

    module = sys.modules["sanpath.results.sweep"]
    real = module.check_overwrite

    def slow(*args: object, **kwargs: object) -> None:
        real(*args, **kwargs)  # type: ignore[arg-type]
        time.sleep(0.3)  # the window between the check and the replace, held open

    monkeypatch.setattr(module, "check_overwrite", slow)
    out = tmp_path / "table.csv"
    table = pd.DataFrame({"x": [1], "replicate": [0], "iops": [1.0]})
    results = [SweepResult(table, ["x"], identity=name * 16) for name in "ab"]
    refused: list[str] = []

    def save(result: SweepResult) -> None:
        try:
            result.save(out)
        except OutputError as exc:
            refused.append(str(exc))

    threads = [threading.Thread(target=save, args=(r,)) for r in results]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(refused) == 1 and "different sweep" in refused[0]
    assert recorded_identity(out, ".sweep.json") in ("a" * 16, "b" * 16)


def test_fio_json_output_names_a_run_in_doubt(capsys: pytest.CaptureFixture[str]) -> None:
    import json

    short = ["--set", "run.ios=30", "--set", "run.warmup_ios=0"]
    path = str(SCENARIOS / "quickstart.yaml")
    assert main(["run", path, *short, "--json"]) == 0
    warnings = json.loads(capsys.readouterr().out)["warnings"]
    assert warnings  # the short run's intervals are in doubt
    assert main(["run", path, *short, "--output-format", "fio-json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["jobs"]
    for text in warnings:
        assert f"sanpath: warning: {text}" in captured.err
    vary = ["--vary", "workloads.0.outstanding=8"]
    assert main(["sweep", path, *short, *vary, "--output-format", "fio-json"]) == 0
    captured = capsys.readouterr()
    (job,) = json.loads(captured.out)["jobs"]
    assert job["sanpath warnings"] == warnings
    assert f"sanpath: warning: {job['jobname']}: {warnings[0]}" in captured.err


def _alive(pid: int) -> bool:
    """Whether process ``pid`` runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def _children(pid: int) -> list[int]:
    """Process ids whose parent is ``pid`` (from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
def test_sweep_workers_end_when_their_parent_is_killed(tmp_path: Path) -> None:
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import sanpath\n"
        f"sanpath.sweep({str(SCENARIOS / 'quickstart.yaml')!r},\n"
        "    {'workloads.0.outstanding': [1, 2, 3, 4], 'run.ios': [10**7]},\n"
        "    jobs=2, cache=None, force=True)\n"
    )
    env = {**os.environ, "SANPATH_PURE_PYTHON": "1"}
    parent = subprocess.Popen([sys.executable, str(script)], env=env)
    try:
        deadline = time.monotonic() + 60
        while len(workers := _children(parent.pid)) < 2 and time.monotonic() < deadline:
            time.sleep(0.2)
        assert len(workers) >= 2, "the pool did not start"
        time.sleep(1.0)  # the workers are running their points
    finally:
        parent.send_signal(signal.SIGKILL)
        parent.wait()
    deadline = time.monotonic() + 10
    while any(_alive(w) for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    alive = [w for w in workers if _alive(w)]
    for w in alive:
        os.kill(w, signal.SIGKILL)
    assert alive == [], "workers outlived their parent"
