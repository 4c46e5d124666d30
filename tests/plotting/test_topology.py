"""The picture of a scenario's I/O path: ``sanpath plot SCENARIO --kind topology``."""

from __future__ import annotations

import re
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

import sanpath
from sanpath.cli import main
from sanpath.plotting import topology
from sanpath.plotting.topology import COLUMNS, EACH_HOST, FONT_SIZE, LINE_CHARACTERS
from tests.conftest import SCENARIOS

PNG = b"\x89PNG\r\n\x1a\n"


def test_diagram_marks_the_busy_parts() -> None:
    scenario = sanpath.load_scenario(SCENARIOS / "fan_in.yaml")
    result = sanpath.run(scenario, overrides={"run.ios": 1_500})
    fig = topology(scenario, result)
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "hosts" in texts and "pools" in texts
    # the drives of the fan-in pool are saturated: their box says how busy
    pool = next(t for t in texts if t.startswith("r10: raid10"))
    busy = int(re.search(r"busiest:\s+drives (\d+)%", pool).group(1))  # type: ignore[union-attr]
    drives = result.station("array.r10.drives").utilization
    assert busy == round(100 * drives)
    assert len(fig.axes[0].lines) >= 6  # every column joined


@pytest.mark.parametrize("name", ["quickstart", "fan_in", "fast_track_2012", "backup_2013"])
def test_every_part_of_the_path_has_a_column_and_a_box(name: str) -> None:
    scenario = sanpath.load_scenario(SCENARIOS / f"{name}.yaml")
    fig = topology(scenario)
    ax = fig.axes[0]
    texts = [t.get_text() for t in ax.texts]
    assert [t for t in texts if t in COLUMNS] == list(COLUMNS)
    hosts = [t for t in texts if re.match(r"(host |\d+ more\s+hosts )", t)]
    assert len(hosts) == sum(min(h.count, EACH_HOST) for h in scenario.hosts)
    ports = [t for t in texts if re.match(r"port \d+\n", t)]
    assert len(ports) == scenario.array.ports
    pools = [t for t in texts if any(t.startswith(f"{p.name}: ") for p in scenario.array.pools)]
    assert len(pools) == len(scenario.array.pools)
    # titled with what it shows, subtitled with the scenario and its load
    assert fig.get_suptitle().startswith("The I/O path")
    assert ax.get_title(loc="left").startswith(f"{scenario.name}: ")
    assert sanpath.spec.load_line(scenario) in ax.get_title(loc="left")


def test_cli_draws_a_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "path.png"
    argv = ["plot", str(SCENARIOS / "fan_in.yaml"), "--kind", "topology", "--out", str(out)]
    assert main(argv) == 0
    assert out.read_bytes().startswith(PNG)
    assert str(out) in capsys.readouterr().out


def test_cli_names_a_bad_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("name: x\nhosts: 3\n")
    out = tmp_path / "path.png"
    assert main(["plot", str(bad), "--kind", "topology", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert str(bad) in err and "hosts" in err and "Traceback" not in err
    assert not out.exists()


def test_a_fan_in_is_drawn_host_by_host_in_legible_text() -> None:
    """16 hosts: five drawn one by one, then a stack that says how many more; the text at a
    size a page 1,000 px wide still shows at about 13 px, units written as people write them."""
    scenario = sanpath.load_scenario(SCENARIOS / "fan_in.yaml")
    fig = topology(scenario)
    texts = [t.get_text() for t in fig.axes[0].texts]
    lines = [t.replace("\n", " ") for t in texts]  # a box's lines, read as one
    hosts = [t.split(",")[0] for t in lines if re.match(r"(host |\d+ more hosts )", t)]
    assert hosts == [f"host esx[{i:02d}]" for i in range(EACH_HOST - 1)] + ["11 more hosts esx"]
    width_px = fig.get_size_inches()[0] * 120  # sanpath.plotting.save writes 120 dpi
    assert FONT_SIZE * 120 / 72 * 1000 / width_px >= 12
    for text in texts:
        assert all(len(line) <= LINE_CHARACTERS + 1 for line in text.splitlines()), text
    words = " ".join(texts)
    assert "2 µs one way" in words and "850 MB/s" in words
    assert " us " not in words and "MB/s," in words.replace("\n", " ")


def _box_overflows(fig: Figure) -> list[str]:
    """The texts of the picture whose rendered extent leaves the box they sit in (or, for
    a column heading, its column), as matplotlib's renderer measures them."""
    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    ax = fig.axes[0]
    boxes = [p.get_window_extent(renderer) for p in ax.patches]
    bad = []
    for text in ax.texts:
        extent = text.get_window_extent(renderer)
        x, y = (extent.x0 + extent.x1) / 2, (extent.y0 + extent.y1) / 2
        around = [b for b in boxes if b.contains(x, y)]
        if around:
            inside = any(
                b.x0 <= extent.x0 and extent.x1 <= b.x1 and b.y0 <= extent.y0 and extent.y1 <= b.y1
                for b in around
            )
        else:  # a column heading: within its column's share of the axes
            column = ax.get_window_extent(renderer).width / len(COLUMNS)
            inside = extent.width <= column
        if not inside:
            bad.append(f"{text.get_text()!r}: {extent.width:.0f} x {extent.height:.0f} px")
    return bad


@pytest.mark.parametrize("name", sorted(p.stem for p in SCENARIOS.glob("*.yaml")))
def test_every_text_of_a_path_picture_fits_its_box(name: str) -> None:
    scenario = sanpath.load_scenario(SCENARIOS / f"{name}.yaml")
    fig = topology(scenario)
    assert fig.axes[0].texts
    assert _box_overflows(fig) == []


def test_text_fits_its_box_with_a_run_busy_line() -> None:
    scenario = sanpath.load_scenario(
        SCENARIOS / "fan_in.yaml", overrides={"run.ios": 2_000, "run.warmup_ios": 500}
    )
    fig = topology(scenario, sanpath.run(scenario))
    assert "busiest:" in " ".join(t.get_text() for t in fig.axes[0].texts)
    assert _box_overflows(fig) == []
