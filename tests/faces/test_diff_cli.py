"""``sanpath diff``: two run JSONs side by side; bad files exit 2 naming the file."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from sanpath.cli import main
from tests.conftest import SCENARIOS
from tests.results.test_diff import group, result

QUICKSTART = SCENARIOS / "quickstart.yaml"
FAST = ["--set", "run.ios=1500", "--set", "run.warmup_ios=300"]


def write(path: Path, data: Any) -> str:
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def cli(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    try:
        code = main(["diff", *args])
    except SystemExit as exc:  # usage errors leave through argparse
        code = int(exc.code or 0)
    out, err = capsys.readouterr()
    return code, out, err


def test_text_shows_the_changes_side_by_side(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a = write(tmp_path / "a.json", result(hosts={"web": group(500.0)}))
    b = write(
        tmp_path / "b.json",
        result(
            iops=1200.0,
            ci95={"iops": [1190.0, 1210.0], "latency_ms_mean": [9.5, 10.5]},
            hosts={"web": group(620.0)},
            overrides={"hosts.0.count": 8},
        ),
    )
    code, out, err = cli(capsys, a, b)
    assert code == 0 and err == ""
    lines = out.splitlines()
    assert lines[0].startswith(f"A: {a}")
    assert lines[1].startswith(f"B: {b}") and "--set hosts.0.count=8" in lines[1]
    assert "--set hosts.0.count: (not set) -> 8" in out
    iops = next(line for line in lines if line.split()[:1] == ["iops"])
    assert iops.split() == ["iops", "1,000", "1,200", "+200", "+20.0%", "significant"]
    assert "per host" in out and "web iops" in out


def test_json_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    a = write(tmp_path / "a.json", result())
    b = write(tmp_path / "b.json", result(iops=1005.0))
    code, out, _ = cli(capsys, a, b, "--json")
    assert code == 0
    payload = json.loads(out)
    assert payload["a"]["label"] == a and payload["b"]["label"] == b
    iops = next(c for c in payload["changes"] if c["metric"] == "iops")
    assert iops["change"] == pytest.approx(5.0)
    assert iops["significance"] == "within the intervals"


def test_all_lists_the_equal_figures_too(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    a = write(tmp_path / "a.json", result())
    _, short, _ = cli(capsys, a, a)
    _, full, _ = cli(capsys, a, a, "--all")
    assert "latency_ms.p99" not in short and "equal in both runs not shown" in short
    assert "latency_ms.p99" in full


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "no such file"),
        ("{not json", ":1:2: not JSON"),
        ("[1, 2, 3]", "not a sanpath run result: the JSON holds a list"),
        ('{"rows": [], "keys": ["x"]}', "(it looks like a sweep table)"),
        ('{"iops": 3}', "it has no 'mb_per_s'"),
        (b"\xff\xfe\x00bad", "not UTF-8 text"),
    ],
)
def test_a_bad_file_exits_2_naming_it(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | bytes | None, message: str
) -> None:
    good = write(tmp_path / "good.json", result())
    bad = tmp_path / "bad.json"
    if isinstance(content, bytes):
        bad.write_bytes(content)
    elif content is not None:
        bad.write_text(content, encoding="utf-8")
    for args in ((good, str(bad)), (str(bad), good)):
        code, out, err = cli(capsys, *args)
        assert code == 2
        assert out == ""
        assert err.startswith(f"sanpath: error: {bad}")
        assert message in err
        assert "Traceback" not in err


def test_a_directory_and_a_missing_argument_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = write(tmp_path / "good.json", result())
    code, _, err = cli(capsys, good, str(tmp_path))
    assert code == 2 and "is a directory" in err
    code, _, err = cli(capsys, good)
    assert code == 2 and "B.json" in err


def test_two_real_runs_from_sanpath_run(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    files = []
    for name, depth in (("qd32.json", "32"), ("qd1.json", "1")):
        assert (
            main(
                [
                    "run",
                    str(QUICKSTART),
                    *FAST,
                    "--set",
                    f"workloads.0.outstanding={depth}",
                    "--json",
                ]
            )
            == 0
        )
        out, _ = capsys.readouterr()
        files.append(write(tmp_path / name, json.loads(out)))
    code, out, err = cli(capsys, *files, "--json")
    assert code == 0, err
    payload = json.loads(out)
    assert payload["setup"] == {"overrides.workloads.0.outstanding": {"a": 32, "b": 1}}
    iops = next(c for c in payload["changes"] if c["metric"] == "iops")
    assert iops["change"] < 0 and iops["significance"] == "significant"
    # per-host, per-workload and per-LUN figures are compared exactly when the runs have them
    written = json.loads(Path(files[0]).read_text(encoding="utf-8"))
    for section in ("hosts", "workloads", "luns"):
        assert (section in payload["sections"]) == (section in written)
