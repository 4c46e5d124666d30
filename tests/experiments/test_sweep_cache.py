"""The sweep cache keeps no stale and no damaged rows (issue 36, cases 2 and 4): its key holds
the content of every file a point reads, its folder is checked before the first point, and an
entry that is not whole is moved aside by name and run again."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path
from typing import Any

import pytest

from sanpath.cli import main
from sanpath.experiments.cache import (
    CACHE_ENV,
    DEFAULT_CACHE,
    QUARANTINE,
    CacheWarning,
    open_cache,
    read_entry,
)
from sanpath.experiments.sweep import Task, run_task, sweep
from sanpath.files import OutputError
from tests.conftest import SCENARIOS
from tests.sim.test_replay import scenario as replay_scenario

OIO = "workloads.0.outstanding"


def replaying(trace: Path) -> dict[str, Any]:
    """A scenario replaying the MSR trace ``trace`` open loop, 30 records."""
    return replay_scenario({"file": str(trace), "format": "msr"})


def grown(trace: Path, factor: int) -> None:
    """Multiply every record's size (the sixth field of an MSR line) by ``factor``."""
    lines = []
    for line in trace.read_text().splitlines():
        fields = line.split(",")
        fields[5] = str(int(fields[5]) * factor)
        lines.append(",".join(fields))
    trace.write_text("\n".join(lines) + "\n")


@pytest.fixture
def counted(monkeypatch: pytest.MonkeyPatch) -> list[Task]:
    calls: list[Task] = []

    def counting(task: Task) -> dict[str, Any]:
        calls.append(task)
        return run_task(task)

    monkeypatch.setattr(sys.modules["sanpath.experiments.sweep"], "run_task", counting)
    return calls


def test_a_changed_trace_is_run_again_not_read_from_the_cache(
    tmp_path: Path, counted: list[Task]
) -> None:
    trace = tmp_path / "hm_0.csv"
    shutil.copy(SCENARIOS / "measured" / "msr_hm_0.csv", trace)
    cache = tmp_path / "cache"
    grid = {"workloads.0.trace.speed": [1.0, 2.0]}
    before = sweep(replaying(trace), grid, cache=cache)
    assert len(counted) == 2
    again = sweep(replaying(trace), grid, cache=cache)
    assert len(counted) == 2  # the same trace: every point from the cache
    assert again.table["mb_per_s"].tolist() == before.table["mb_per_s"].tolist()
    grown(trace, 16)
    after = sweep(replaying(trace), grid, cache=cache)
    assert len(counted) == 4  # the sizes changed: both points ran again
    truth = sweep(replaying(trace), grid, cache=None)
    assert after.table["mb_per_s"].tolist() == truth.table["mb_per_s"].tolist()
    ratio = after.table["mb_per_s"] / before.table["mb_per_s"]
    assert (ratio > 10).all(), ratio.tolist()  # 16 times the bytes at the same arrivals


def small() -> dict[str, Any]:
    from tests.experiments.test_outputs import small as outputs_small

    return outputs_small()


@pytest.mark.parametrize(
    ("damage", "why"),
    [
        (b"", "empty"),
        (b'{"sanpath_cache": 1, "key": "', "not JSON"),
        (b"[1, 2, 3]", "expected a JSON object, found list"),
        (b'{"iops": 5}', "not an entry of this key"),
        (b"\xff\xfe\x00", "not JSON"),
    ],
    ids=["empty", "truncated", "list", "foreign", "binary"],
)
def test_a_damaged_entry_is_quarantined_by_name_and_run_again(
    tmp_path: Path, counted: list[Task], damage: bytes, why: str
) -> None:
    cache = tmp_path / "cache"
    first = sweep(small(), {OIO: [1, 4]}, cache=cache)
    entries = sorted(cache.glob("*.json"))
    assert len(entries) == 2 and len(counted) == 2
    entries[0].write_bytes(damage)
    with pytest.warns(CacheWarning) as caught:
        second = sweep(small(), {OIO: [1, 4]}, cache=cache)
    (warning,) = caught
    aside = cache / QUARANTINE / entries[0].name
    message = str(warning.message)
    assert str(entries[0]) in message and why in message and str(aside) in message
    assert aside.read_bytes() == damage
    assert len(counted) == 3  # the damaged point alone ran again
    assert second.table["iops"].tolist() == first.table["iops"].tolist()
    assert read_entry(cache, entries[0].stem) is not None  # rewritten whole


def test_the_cache_folder_is_checked_before_the_first_point(
    tmp_path: Path, counted: list[Task], monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "plain-file"
    blocker.write_text("x")
    for folder in (blocker / "cache", Path("/proc/sanpath-cache")):
        with pytest.raises(OutputError, match=rf"{folder}: cannot keep the sweep cache here"):
            sweep(small(), {OIO: [1, 4]}, cache=folder)
    assert counted == []
    assert open_cache(None) is None
    monkeypatch.setenv(CACHE_ENV, str(tmp_path / "elsewhere"))
    assert open_cache(DEFAULT_CACHE) == tmp_path / "elsewhere"
    assert open_cache(tmp_path / "given") == tmp_path / "given"  # an explicit folder wins
    monkeypatch.chdir(tmp_path)
    sweep(small(), {OIO: [1]})
    assert len(list((tmp_path / "elsewhere").glob("*.json"))) == 1
    assert not (tmp_path / DEFAULT_CACHE).exists()


def test_cli_cache_option_and_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from ruamel.yaml import YAML

    path = tmp_path / "small.yaml"
    YAML().dump(small(), path)
    monkeypatch.chdir(tmp_path)
    argv = ["sweep", str(path), "--quiet", "--vary", f"{OIO}=1,2"]
    assert main([*argv, "--cache", "mine"]) == 0
    entries = sorted((tmp_path / "mine").glob("*.json"))
    assert len(entries) == 2 and not (tmp_path / DEFAULT_CACHE).exists()
    entries[1].write_text(json.dumps([1]))
    capsys.readouterr()
    assert main([*argv, "--cache", "mine"]) == 0
    err = capsys.readouterr().err
    assert f"sanpath: warning: mine/{entries[1].name}: damaged sweep cache entry" in err
    assert "Traceback" not in err
    blocked = tmp_path / "plain"
    blocked.write_text("")
    assert main([*argv, "--cache", str(blocked / "c")]) == 2
    err = capsys.readouterr().err
    assert "cannot keep the sweep cache here" in err and "--no-cache" in err
