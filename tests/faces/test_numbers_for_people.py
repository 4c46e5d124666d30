"""What the commands print for people holds figures people read: no e-notation, thousands
separators, no more than three significant digits in a measured or computed figure, and no
rows of nothing. Inputs (what a scenario or profile states, counts of I/Os, seeds) stay as
written.

The commands run on the shipped scenarios, cut short (``run.ios``); JSON output is not
checked here: it keeps full precision for programs.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from sanpath.cli import main
from tests.conftest import SCENARIOS

SHORT = ["--set", "run.ios=2000", "--set", "run.warmup_ios=500"]

E_NOTATION = re.compile(r"\b\d+(\.\d+)?e[+-]?\d+\b", re.IGNORECASE)
DECIMAL = re.compile(r"(?<![\w.])-?\d[\d,]*\.\d+")
WHOLE = re.compile(r"(?<![\w.,\[])\d{1,3}(,\d{3})+(?![\d.])|(?<![\w.,\[])\d{5,}(?![\d.,])")


def significant(text: str) -> int:
    """Significant digits of a number as printed (``27,200``: 3; ``0.0134``: 3)."""
    digits = re.sub(r"[^0-9]", "", text).lstrip("0")
    return len(digits) if "." in text else len(digits.rstrip("0"))


def offending(out: str, allowed: set[str] = frozenset()) -> list[str]:
    """The numbers in ``out`` people should not be given."""
    bad = [m.group(0) for m in E_NOTATION.finditer(out)]
    for line in out.splitlines():
        if re.search(r"--set |sanpath run |seed \d|\(run\.ios\)|\[\d+\]", line):
            continue  # commands to type, seeds and host names are not figures
        line = re.sub(r"\b\d+-\d{5,}-\d+\b", "", line)  # document numbers (53-1001256-01)
        for m in DECIMAL.finditer(line):
            if significant(m.group(0)) > 3:
                bad.append(m.group(0))
        for m in WHOLE.finditer(line):
            exact = line[m.end() :].startswith(" I/Os")  # a count of I/Os is exact
            if significant(m.group(0)) > 3 and m.group(0) not in allowed and not exact:
                bad.append(m.group(0))
    return bad


def _out(capsys: pytest.CaptureFixture[str], argv: list[str]) -> str:
    assert main(argv) == 0, argv
    return capsys.readouterr().out


@pytest.mark.parametrize("name", ["quickstart", "fan_in", "backup_2013"])
def test_run_prints_a_short_summary_for_people(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    out = _out(capsys, ["run", str(SCENARIOS / f"{name}.yaml"), *SHORT])
    assert offending(out) == []
    assert "IOPS" in out and "bottleneck:" in out and "--detail" in out
    assert "stations (" not in out and "\ncounters" not in out  # behind --detail
    # a tenth of an IOPS and four decimals of a millisecond are gone
    assert not re.search(r"IOPS\s+[\d,]+\.\d", out)
    assert not re.search(r"\b[1-9]\d*\.\d{4}\b", out)
    # 2,000 I/Os put 2 beyond the p99.9: it is not shown, and says why
    assert "p99.9" in out and "not shown: only 2 of the 2,000" in out


def test_run_detail_leaves_out_stations_that_carried_nothing(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = _out(capsys, ["run", str(SCENARIOS / "fan_in.yaml"), *SHORT, "--detail"])
    counters = out[out.index("\ncounters") : out.index("stations (")]
    figures = out.replace(counters, "")
    assert offending(figures, allowed={"2,048"}) == []  # exact counts: slots of the HBAs
    # the counters are exact counts of events: whole, with separators, never e-notation
    assert re.search(r"qfull\s+\d,\d{3}\n", counters)
    assert not E_NOTATION.search(counters) and not re.search(r"\d{4}|\.\d", counters)
    stations = out[out.index("stations (those that carried traffic)") :].splitlines()[2:]
    names = [line.split()[0] for line in stations if line.strip()]
    assert "array.port0.queue" in names and "array.r10.drives" in names
    assert not any(".pcie." in n for n in names)  # fan_in's HBAs have no PCIe stage modelled
    assert "counters" in out and "by kind" in out


def test_sweep_table_has_no_e_notation(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["sweep", str(SCENARIOS / "quickstart.yaml"), "--vary", "workloads.0.outstanding=2,64"]
    out = _out(capsys, [*argv, *SHORT])
    assert offending(out) == []
    assert re.search(r"\b1\d,\d00\b|\b\d,\d\d0\b", out)  # IOPS to three significant digits


@pytest.mark.parametrize("path", sorted(SCENARIOS.glob("*.yaml")), ids=lambda p: p.stem)
def test_check_findings_for_people(path: object, capsys: pytest.CaptureFixture[str]) -> None:
    main(["check", str(path), "--no-simulate"])
    out = capsys.readouterr().out
    # exact counts of commands may need five digits (65,536 = 256 x 8 x 32), written with
    # their separators; nothing else
    bad = [x for x in offending(out) if not re.fullmatch(r"\d{1,3}(,\d{3})+", x)]
    assert bad == []
    assert not re.search(r"\b\d{4,}\.\d\b", out)  # no 148037.0
    assert not re.search(r"(?<![\w.,-])\d{5,}(?![\d.,-])", out)  # no 178079


def test_headroom_prints_factors_and_knobs_for_people(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = ["headroom", str(SCENARIOS / "quickstart.yaml"), "--slo", "p99<60ms"]
    out = _out(capsys, [*argv, "--grow", "outstanding", "--simulations", "0"])
    assert offending(out) == []
    assert "workloads.0.outstanding 8 -> " in out


def test_headroom_simulated_figures_have_three_digits_and_a_spread(
    capsys: pytest.CaptureFixture[str],
) -> None:
    argv = [
        "headroom",
        str(SCENARIOS / "quickstart.yaml"),
        "--slo",
        "p99<60ms",
        "--slo",
        "mean<20ms",
    ]
    out = _out(capsys, [*argv, "--grow", "outstanding", "--simulations", "1", *SHORT])
    assert offending(out) == []
    assert "simulated   x" in out
    # p99 46.5 ms ±2.9% (95% CI): the interval as a spread, not as [45.19, 47.87]
    assert re.search(r"p99 \d+(\.\d)? ms ±[\d.]+% \(95% CI\)", out)
    assert re.search(r"mean \d+(\.\d+)? ms ", out)
    assert "CI [" not in out


@pytest.mark.parametrize("name", ["fan_in", "enterprise", "quickstart"])
def test_predict_figures_for_people(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, ["predict", str(SCENARIOS / f"{name}.yaml")])
    assert offending(out) == []
    assert "IOPS" in out


def test_run_with_the_twin_beside_it_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, ["run", str(SCENARIOS / "quickstart.yaml"), *SHORT, "--analytic"])
    assert offending(out) == []
    assert re.search(r"IOPS\s+simulated\s+[\d,]+\s+twin\s+[\d,]+\s+\([+-]\d", out)


def test_compare_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, ["compare", str(SCENARIOS / "qd_sweep_2007.yaml"), "--ios", "2000"])
    assert offending(out) == []
    # published bands are the scenario's inputs, as written (0.6, not 0.6000)
    assert re.search(r"too low hurts\)\s+iops\s+0\.6\s", out)


def test_calibrate_for_people(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    measured = tmp_path / "measured.csv"
    measured.write_text("workloads.0.outstanding,iops\n1,500\n4,900\n")
    argv = ["calibrate", str(SCENARIOS / "quickstart.yaml"), "--measured", str(measured)]
    out = _out(capsys, [*argv, "--fit", "array.controller.io_time", "--ios", "1000",
                        "--out", str(tmp_path / "c.yaml")])  # fmt: skip
    err = capsys.readouterr().err
    assert "rms relative error" in out
    assert offending(out) == []
    assert offending(out + err) == [] or "model 672.1" not in err


def test_validate_and_profiles_for_people(capsys: pytest.CaptureFixture[str]) -> None:
    out = _out(capsys, ["validate", *map(str, sorted(SCENARIOS.glob("*.yaml")))])
    assert offending(out) == []
    # profiles list their values as a scenario file would state them (inputs, to copy):
    # no e-notation, and nothing computed beside them
    out = _out(capsys, ["profiles"])
    assert "hdd-15k" in out and not E_NOTATION.search(out)


def test_diff_for_people(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    files = []
    for qd in (4, 8):
        path = tmp_path / f"qd{qd}.json"
        argv = ["run", str(SCENARIOS / "quickstart.yaml"), *SHORT, "--json"]
        path.write_text(_out(capsys, [*argv, "--set", f"workloads.0.outstanding={qd}"]))
        files.append(str(path))
    main(["diff", *files])
    out = capsys.readouterr().out
    assert "iops" in out.lower() and offending(out) == []
