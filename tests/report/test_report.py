"""The report: the scenario in words, the path picture and the page's sections."""

from __future__ import annotations

from pathlib import Path

import pytest

import sanpath
from sanpath.report import build_report, render, write_report
from sanpath.report.words import scenario_in_words
from tests.conftest import SCENARIOS


@pytest.fixture(scope="module")
def fan_in_report() -> sanpath.report.Report:
    return build_report(SCENARIOS / "fan_in.yaml", overrides={"run.ios": 2_000}, check=True)


def test_words_name_every_part_of_the_path() -> None:
    scenario = sanpath.load_scenario(SCENARIOS / "backup_2013.yaml")
    words = " ".join(scenario_in_words(scenario))
    for part in (
        "host sqlserver",
        "Fabric",
        "Array vnx",
        "Pool pool: RAID5",
        "db (x24)",
        "Workload backup",
        "splitting I/Os above 4MiB",
        "copies what it reads",
    ):
        assert part in words


def test_page_has_every_section(fan_in_report: sanpath.report.Report) -> None:
    page = render(fan_in_report)
    for heading in (
        "The scenario",
        "Headline results",
        "Bottleneck",
        "Where the time goes",
        "Hosts",
        "Check",
    ):
        assert f"<h2>{heading}</h2>" in page
    # self-contained: pictures inline, nothing fetched
    assert "http://" not in page and "https://" not in page
    assert page.count('src="data:image/png;base64,') == 3
    # the figures on the page are the run's
    result = fan_in_report.result
    assert f"{result.iops:,.1f}" in page
    assert "esx[00]" in page
    assert "SP001" in page  # the check's port fan-in finding


def test_report_writes_html_only(tmp_path: Path, fan_in_report: sanpath.report.Report) -> None:
    out = write_report(fan_in_report, tmp_path / "r.html")
    assert out.read_text().startswith("<!DOCTYPE html>")
    with pytest.raises(Exception, match="html"):
        write_report(fan_in_report, tmp_path / "r.pdf")


@pytest.mark.slow
def test_page_with_headroom_and_sweep(tmp_path: Path) -> None:
    base = sanpath.load_scenario(
        SCENARIOS / "quickstart.yaml",
        {"run.ios": 800, "run.warmup": "fixed", "run.warmup_ios": 200},
    )
    table = sanpath.sweep(
        base,
        {"workloads.0.outstanding": [2, 4]},
        jobs=1,
        cache=None,
    ).save(tmp_path / "qd.csv")
    report = build_report(
        SCENARIOS / "quickstart.yaml",
        overrides={"run.ios": 1_500},
        slo="p99<40ms",
        grow="outstanding",
        simulations=1,
        sweep=table,
    )
    page = render(report)
    assert "<h2>Headroom</h2>" in page and "<h2>Sweep qd.csv</h2>" in page
    headroom = report.headroom
    assert headroom is not None
    assert f"x{headroom.growth:.3g}" in page
    assert page.count('src="data:image/png;base64,') == 4  # path, breakdown, headroom, sweep
