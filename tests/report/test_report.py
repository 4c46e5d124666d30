"""The report: the verdict first, the findings to act on with their fix, the scenario in
words, the path picture and the evidence."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest
from matplotlib.patches import FancyBboxPatch
from matplotlib.text import Text

import sanpath
from sanpath.advice import effect
from sanpath.plotting import topology
from sanpath.report import build_report, render, write_report
from sanpath.report.verdict import verdict, write_cache_note
from sanpath.report.words import scenario_in_words
from sanpath.results import MIN_TAIL_IOS
from tests.conftest import SCENARIOS


@pytest.fixture(scope="module")
def fan_in_report() -> sanpath.report.Report:
    return build_report(SCENARIOS / "fan_in.yaml", overrides={"run.ios": 2_000}, check=True)


@pytest.fixture(scope="module")
def quickstart_report() -> sanpath.report.Report:
    return build_report(SCENARIOS / "quickstart.yaml", overrides={"run.ios": 2_000})


def _headings(page: str) -> list[str]:
    return re.findall(r"<h2>(.*?)</h2>", page)


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
        "copies what it reads",
    ):
        assert part in words


def test_words_split_at_the_wiring_limit_not_the_host_setting() -> None:
    # quickstart: max_io_size 1 MiB, but the HBA moves at most 512 KiB per command
    quickstart = " ".join(scenario_in_words(sanpath.load_scenario(SCENARIOS / "quickstart.yaml")))
    assert "splitting I/Os above 512 KiB" in quickstart
    assert "1 MiB" not in quickstart and "1MiB" not in quickstart
    # backup: SQL Server asks for 4 MiB, the QLogic default cuts at 512 KiB
    backup = " ".join(scenario_in_words(sanpath.load_scenario(SCENARIOS / "backup_2013.yaml")))
    assert "splitting I/Os above 512 KiB" in backup and "4MiB" not in backup


def test_words_for_people_no_stutter() -> None:
    words = " ".join(scenario_in_words(sanpath.load_scenario(SCENARIOS / "fan_in.yaml")))
    assert "Array array" not in words and "The array: 1 front-end port" in words
    assert "850 MB/s" in words and "2 µs one way" in words and "queue depth 1,600" in words
    assert "850MB/s" not in words and "2us" not in words


def test_verdict_comes_first_then_what_to_change(fan_in_report: sanpath.report.Report) -> None:
    page = render(fan_in_report)
    headings = _headings(page)
    assert headings[:3] == ["Verdict", "What to change first", "The scenario"]
    assert headings.index("Check") > headings.index("Headline results")
    # no target: the headroom before the busiest server saturates (the drives, at 100%)
    v = verdict(fan_in_report.result, None, fan_in_report.check)
    assert v.level == "saturated" and "drives" in v.sentence
    first_screen = page[: page.index("<h2>The scenario</h2>")]
    assert html.escape(v.sentence) in first_screen
    counts = fan_in_report.check.counts() if fan_in_report.check else {}
    assert sum(counts.values()) >= 1  # SP001 fires (its severity follows its second opinion)
    assert "sanpath check finds " in first_screen
    worst = next(level for level in ("error", "warning", "info") if counts.get(level))
    assert f"{counts[worst]} {worst}" in first_screen


def test_every_finding_keeps_its_fix_try_and_second_opinion(
    fan_in_report: sanpath.report.Report,
) -> None:
    page = render(fan_in_report)
    check = fan_in_report.check
    assert check is not None and check.simulated
    act = page[page.index("<h2>What to change first</h2>") : page.index("<h2>The scenario</h2>")]
    for f in check.findings:
        assert f.fix_text and f"<b>Fix:</b> {html.escape(f.fix_text)}" in page
    top = [f for f in check.findings if f.severity in ("error", "warning")][:3]
    for f in top:
        assert f"{f.rule}: {html.escape(f.title)}" in act
        if f.fix:
            key, value = next(iter(f.fix.items()))
            line = act[act.index(f"{f.rule}: ") :].split("Try:</b> <code>")[1].split("</code>")[0]
            assert line.startswith(f"sanpath run {SCENARIOS / 'fan_in.yaml'} --set ")
            assert f"--set {key}={value}" in line and "--set run.ios=2000" in line
        if f.second_opinion is not None:
            assert html.escape(effect(f.second_opinion)) in act
    opinions = [f for f in check.findings if f.second_opinion is not None]
    assert opinions  # the fan-in and LUN-queue fixes are simulated
    assert page.count("<b>Second opinion:</b>") == len(opinions) + (check.combined is not None)


def test_the_port_is_coloured_by_its_queue(fan_in_report: sanpath.report.Report) -> None:
    result = fan_in_report.result
    queue = result.station("array.port0.queue").utilization
    link = max(result.station(f"array.port0.link.{d}").utilization for d in ("in", "out"))
    assert queue >= 0.8 > link  # the port's queue is full while its link has room
    fig = topology(fan_in_report.scenario, result)
    ax = fig.axes[0]
    label = next(t for t in ax.texts if isinstance(t, Text) and t.get_text().startswith("port 0"))
    assert f"busiest: queue {100 * queue:.0f}%" in label.get_text().replace("\n", " ")
    x, _ = label.get_position()
    box = next(
        p
        for p in ax.patches
        if isinstance(p, FancyBboxPatch) and p.get_x() < x < p.get_x() + p.get_width()
    )
    assert box.get_facecolor()[:3] == pytest.approx((0xF4 / 255, 0xC7 / 255, 0xC3 / 255))


def test_a_full_write_cache_is_named(fan_in_report: sanpath.report.Report) -> None:
    result = fan_in_report.result
    forced, cached = result.counters["forced_flushes"], result.counters["cached_writes"]
    assert forced > 0
    note = write_cache_note(result)
    assert note is not None and "The write cache is full" in note
    assert f"{forced:,} of the {cached:,} cached writes" in note
    page = render(fan_in_report)
    assert page.index("The write cache is full") < page.index("<h2>What to change first</h2>")
    # a run whose writes found room says nothing of it
    quiet = sanpath.load_scenario(SCENARIOS / "quickstart.yaml", {"run.ios": 500})
    assert write_cache_note(sanpath.run(quiet)) is None


def test_one_host_has_no_fairness_and_tails_need_their_ios(
    quickstart_report: sanpath.report.Report,
) -> None:
    page = render(quickstart_report)
    result = quickstart_report.result
    hosts = page[page.index("<h2>Hosts</h2>") :]
    assert "Jain" not in page and "carries the whole load" in hosts
    assert "<table>" not in hosts.split("<h2>")[1]  # no per-host row that could disagree
    # p99.9 from 2,000 I/Os rests on 2: not shown; p99 rests on 20: shown
    assert result.ios * 0.001 < MIN_TAIL_IOS <= result.ios * 0.01
    assert "p99.9 latency (ms)</td><td>not shown" in page
    assert f"the {int(result.ios * 0.01)} slowest of {result.ios:,} I/Os" in page


def test_figures_are_for_people(fan_in_report: sanpath.report.Report) -> None:
    page = render(fan_in_report)
    text = re.sub(r'src="data:image/png;base64,[^"]*"', "", page)
    text = re.sub(r"<style>.*?</style>", "", text, flags=re.S)
    cells = re.findall(r"<td>([^<]*)</td>", text)
    assert not [c for c in cells if re.search(r"\de[+-]?\d", c)]  # no e-notation
    numbers = [c for c in cells if re.fullmatch(r"[-±]?[0-9][0-9,]*(\.[0-9]+)?%?", c)]
    assert len(numbers) > 50
    for cell in numbers:
        digits = re.sub(r"[^0-9]", "", cell).lstrip("0")
        if "." in cell:  # measured figures: three significant digits (no 75.235)
            assert len(digits) <= 3, cell
        else:  # whole numbers: at most four (no 27,201; exact counts such as 4,312 pass)
            assert len(digits.rstrip("0")) <= 4, cell
    r = fan_in_report.result
    assert f"{r.iops:,.1f}" not in page
    assert "±" in page  # intervals as +-%


def test_page_has_every_section(fan_in_report: sanpath.report.Report) -> None:
    page = render(fan_in_report)
    for heading in (
        "Verdict",
        "What to change first",
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
    v = verdict(report.result, headroom)
    assert v.level in ("meets", "at risk", "fails") and "p99<40ms" in v.sentence
    assert html.escape(v.sentence) in page[: page.index("<h2>The scenario</h2>")]
    assert page.count('src="data:image/png;base64,') == 4  # path, breakdown, headroom, sweep
