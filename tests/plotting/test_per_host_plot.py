"""The per-host plot, from one run and from a sweep over the host count."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

import sanpath
from sanpath.plotting import PlotInputError, per_host
from sanpath.results import SweepResult
from tests.conftest import SCENARIOS


@pytest.fixture(scope="module")
def fan_in_sweep() -> SweepResult:
    base = sanpath.load_scenario(
        SCENARIOS / "fan_in.yaml", overrides={"run.ios": 1_500, "run.warmup_ios": 300}
    )
    return sanpath.sweep(base, {"hosts.0.count": [2, 4]}, jobs=1, cache=None)


def test_sweep_keeps_each_hosts_figures(fan_in_sweep: SweepResult, tmp_path: Path) -> None:
    hosts = fan_in_sweep.hosts
    assert hosts is not None
    assert len(hosts) == 2 + 4
    assert set(hosts.columns) >= {"hosts.0.count", "host", "iops", "latency_ms_p99", "qfull"}
    four = hosts[hosts["hosts.0.count"] == 4]
    total = fan_in_sweep.table.set_index("hosts.0.count").loc[4, "iops"]
    assert four["iops"].sum() == pytest.approx(total, rel=1e-9)
    # the per-host figures survive a CSV round trip
    out = fan_in_sweep.save(tmp_path / "s.csv")
    again = SweepResult.load(out).hosts
    assert again is not None and len(again) == 6
    assert again["iops"].sum() == pytest.approx(hosts["iops"].sum())


def test_per_host_plot_from_a_sweep(fan_in_sweep: SweepResult) -> None:
    ax_iops, ax_lat = per_host(fan_in_sweep)
    # one dot per host and point, and the lowest/median/highest host as lines
    assert len(ax_iops.collections[0].get_offsets()) == 6
    assert [line.get_label() for line in ax_iops.lines] == [
        "lowest host",
        "median host",
        "highest host",
    ]
    assert ax_lat.get_ylabel() == "p99 latency (ms)"


def test_per_host_plot_from_a_run() -> None:
    result = sanpath.run(SCENARIOS / "fan_in.yaml", overrides={"run.ios": 1_500})
    ax_iops, _ = per_host(result)
    assert len(ax_iops.patches) == 16
    heights = sorted(p.get_height() for p in ax_iops.patches)
    assert heights == pytest.approx(sorted(g.iops for g in result.groups["hosts"].values()))
    assert "Jain" in ax_iops.get_title(loc="left")


def test_per_host_plot_needs_hosts() -> None:
    table = SweepResult(pd.DataFrame({"x": [1]}), ["x"])
    with pytest.raises(PlotInputError, match="per-host"):
        per_host(table)


@pytest.mark.slow
def test_plot_command_draws_per_host(fan_in_sweep: SweepResult, tmp_path: Path) -> None:
    from sanpath.cli import main

    table = fan_in_sweep.save(tmp_path / "fan.csv")
    assert main(["plot", str(table), "--kind", "per-host", "--out", str(tmp_path / "a.png")]) == 0
    run = tmp_path / "run.json"
    run.write_text(sanpath.run(SCENARIOS / "fan_in.yaml", overrides={"run.ios": 800}).to_json())
    assert main(["plot", str(run), "--kind", "per-host", "--out", str(tmp_path / "b.png")]) == 0
    assert (tmp_path / "a.png").stat().st_size > 5_000
    assert (tmp_path / "b.png").stat().st_size > 5_000
