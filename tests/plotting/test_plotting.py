"""Tests for :mod:`sanpath.plotting`: each picture draws what it says, headless, off pyplot."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_hex
from matplotlib.container import BarContainer, ErrorbarContainer
from matplotlib.figure import Figure
from matplotlib.legend import Legend
from matplotlib.lines import Line2D

import sanpath
from sanpath import plotting
from sanpath.cli import main
from sanpath.plotting import (
    LAYER_COLORS,
    PlotInputError,
    SweepPlots,
    find_knee,
    plot_files,
    short_name,
)
from sanpath.results import RunResult, SweepResult
from sanpath.spec import load_scenario
from tests.conftest import SCENARIOS

PNG = b"\x89PNG\r\n\x1a\n"
QD = "hosts.0.hbas.0.queue_depth"
OUT = "workloads.0.outstanding"
HOSTS = "hosts.0.count"
BS = "workloads.0.block_size"
MT = "hosts.0.hbas.0.max_transfer"
LAYERS = list(LAYER_COLORS)


@pytest.fixture(autouse=True)
def _no_pyplot_figures() -> Iterator[None]:
    """Every test must leave pyplot's global figure list empty."""
    plt.close("all")
    yield
    assert plt.get_fignums() == []


# -- synthetic sweeps ------------------------------------------------------------------------


def _row(point: dict[str, Any], replicate: int, iops: float, latency: float) -> dict[str, Any]:
    """One sweep-table row; the breakdown layers add up to ``latency`` (weights 1..n)."""
    row: dict[str, Any] = {**point, "replicate": replicate, "seed": 7}
    row.update(
        iops=iops,
        mb_per_s=iops * 8192 / 1e6,
        latency_ms_mean=latency,
        latency_ms_p50=0.9 * latency,
        latency_ms_p90=1.5 * latency,
        latency_ms_p99=2.0 * latency,
        latency_ms_p99_9=3.0 * latency,
        latency_ms_max=4.0 * latency,
        qfull=0,
        retries=0,
        commands=int(2 * iops),
        split_children=0,
    )
    for i, layer in enumerate(LAYERS):
        row[f"breakdown_ms_{layer}"] = latency * (i + 1) / (len(LAYERS) * (len(LAYERS) + 1) / 2)
    row.update(sim_seconds=2.0, ios=int(2 * iops))
    return row


def qd_sweep(
    replicates: int = 1,
    depths: tuple[int, ...] = (8, 32),
    outstanding: tuple[int, ...] = (1, 2, 4, 8, 16, 32, 64),
) -> SweepResult:
    """A closed loop with 5 ms service: IOPS = min(N, qd) x 200, latency = N / IOPS."""
    rows = []
    for qd in depths:
        for n in outstanding:
            for r in range(replicates):
                noise = 1.0 + 0.02 * r
                iops = min(n, qd) * 200.0 * noise
                rows.append(_row({QD: qd, OUT: n}, r, iops, n / iops * 1e3))
    return SweepResult(pd.DataFrame(rows), [QD, OUT], "synthetic")


def fan_sweep(replicates: int = 1, attrs: dict[str, Any] | None = None) -> SweepResult:
    """Hosts x 128 commands onto a 1600-command port; QUEUE FULL beyond it."""
    rows = []
    for hosts in (1, 2, 4, 8, 16, 32):
        for r in range(replicates):
            iops = min(hosts * 128, 1600) * 100.0 * (1 + 0.01 * r)
            row = _row({HOSTS: hosts}, r, iops, hosts * 128 / iops * 1e3)
            row["qfull"] = max(0, hosts * 128 - 1600) * 10
            rows.append(row)
    return SweepResult(pd.DataFrame(rows), [HOSTS], "fan", attrs=attrs or {})


def transfer_sweep() -> SweepResult:
    """Sizes as written in scenario files (strings); commands = ios x ceil(size / max)."""
    sizes = {"64KiB": 64 << 10, "256KiB": 256 << 10, "1MiB": 1 << 20, "4MiB": 4 << 20}
    maxes = {"512KiB": 512 << 10, "2MiB": 2 << 20}
    rows = []
    for mt_text, mt in maxes.items():
        for bs_text, bs in sizes.items():
            iops = 2000.0 / max(1, bs // (256 << 10))
            row = _row({MT: mt_text, BS: bs_text}, 0, iops, 5.0)
            row["mb_per_s"] = iops * bs / 1e6
            row["commands"] = int(row["ios"] * math.ceil(bs / mt))
            rows.append(row)
    return SweepResult(pd.DataFrame(rows), [MT, BS], "transfer")


def data_lines(ax: Axes) -> list[Line2D]:
    """Plotted series: lines with a public label (helpers and guides start with '_')."""
    return [line for line in ax.get_lines() if not str(line.get_label()).startswith("_")]


def bands(ax: Axes) -> list[PolyCollection]:
    return [c for c in ax.collections if isinstance(c, PolyCollection)]


def legend_title(ax: Axes) -> str:
    legend = ax.get_legend()
    assert legend is not None
    return str(legend.get_title().get_text())


# -- helpers ---------------------------------------------------------------------------------


def test_short_name() -> None:
    assert short_name(QD) == "HBA queue depth"
    assert short_name("hosts.*.hbas.*.queue_depth") == "HBA queue depth"
    assert short_name(OUT) == "outstanding I/Os"
    assert short_name(HOSTS) == "hosts"
    assert short_name(MT) == "HBA max transfer"
    assert short_name("array.port_queue_depth") == "array port queue depth"
    assert short_name("array.luns.0.queue_depth") == "LUN queue depth"
    assert short_name("hosts.0.lun_queue_depth") == "host lun queue depth"


def test_find_knee_hockey_stick_corner() -> None:
    iops = [200, 400, 800, 1600, 1600, 1600, 1600]
    latency = [5, 5, 5, 5, 10, 20, 40]
    assert find_knee(iops, latency) == 3


def test_find_knee_smooth_curve_and_scale_invariance() -> None:
    # M/M/1-like: latency = S / (1 - U); the knee sits at high but not full utilisation.
    u = np.linspace(0.05, 0.98, 40)
    latency = 1.0 / (1.0 - u)
    k = find_knee(u, latency)
    assert 0.7 < u[k] < 0.95
    assert find_knee(u * 12345.0, latency * 0.001) == k


def test_find_knee_throughput_falls_back_past_saturation() -> None:
    iops = [100, 200, 300, 320, 310]
    latency = [1.0, 1.1, 1.3, 3.0, 10.0]
    assert find_knee(iops, latency) == 2


def test_find_knee_edge_cases() -> None:
    assert find_knee([], []) == -1
    assert find_knee([1, 2], [1, 2]) == -1
    assert find_knee([1, 2, 3, 4], [1, 2, 3, 4]) == -1  # straight: no knee
    assert find_knee([1, 2, 3, 4], [0, 3, 3.5, 3.6]) == -1  # bends downwards
    assert find_knee([1, 1, 1], [1, 2, 3]) == -1  # no spread in x
    # NaN points are skipped and the index refers to the original sequence.
    assert find_knee([200, math.nan, 400, 800, 800, 800], [5, 1, 5, 5, 20, 80]) == 3
    with pytest.raises(ValueError, match="same length"):
        find_knee([1, 2, 3], [1, 2])


# -- iops_vs_outstanding -----------------------------------------------------------------------


def test_iops_vs_outstanding_one_line_per_queue_depth() -> None:
    ax = plotting.iops_vs_outstanding(qd_sweep())
    assert isinstance(ax, Axes)
    assert isinstance(ax.get_figure(root=True), Figure)
    lines = data_lines(ax)
    assert [line.get_label() for line in lines] == ["8", "32"]
    assert ax.get_xscale() == "log"
    assert ax.xaxis.get_transform().base == 2  # type: ignore[attr-defined]
    assert "IOPS" in ax.get_ylabel()
    assert "outstanding" in ax.get_xlabel()
    assert legend_title(ax) == "HBA queue depth"
    x, y = lines[0].get_data()
    assert list(np.asarray(x)) == [1, 2, 4, 8, 16, 32, 64]
    assert list(np.asarray(y)) == [200, 400, 800, 1600, 1600, 1600, 1600]
    assert bands(ax) == []  # one replicate: no interval


def test_iops_vs_outstanding_averages_replicates_with_bands() -> None:
    sweep = qd_sweep(replicates=3)
    ax = plotting.iops_vs_outstanding(sweep)
    lines = data_lines(ax)
    assert len(lines) == 2
    assert len(bands(ax)) == 2
    y = np.asarray(lines[0].get_data()[1], dtype=float)
    assert y[0] == pytest.approx(200 * (1 + 0.02))  # mean of x1.00, x1.02, x1.04
    expected = sweep.summary().query(f"`{QD}` == 8")["iops"].to_numpy()
    np.testing.assert_allclose(y, expected)


def test_iops_vs_outstanding_accepts_frames_and_bound_plots() -> None:
    sweep = qd_sweep(replicates=2)
    reference = data_lines(plotting.iops_vs_outstanding(sweep))
    for source in (sweep.table, sweep.summary()):
        lines = data_lines(plotting.iops_vs_outstanding(source))
        assert len(lines) == len(reference)
        for a, b in zip(lines, reference, strict=True):
            np.testing.assert_allclose(np.asarray(a.get_ydata()), np.asarray(b.get_ydata()))
    assert isinstance(sweep.plot, SweepPlots)
    assert len(data_lines(sweep.plot.iops_vs_outstanding())) == 2


def test_iops_vs_outstanding_draws_on_given_axes() -> None:
    fig = Figure()
    ax = fig.add_subplot()
    assert plotting.iops_vs_outstanding(qd_sweep(), ax=ax) is ax
    assert fig.axes == [ax]


def test_default_keys_fall_back_and_explicit_keys_must_exist() -> None:
    only_load = qd_sweep(depths=(32,))
    table = only_load.table.drop(columns=[QD])
    ax = plotting.iops_vs_outstanding(SweepResult(table, [OUT]))
    assert len(data_lines(ax)) == 1
    assert ax.get_legend() is None
    with pytest.raises(PlotInputError, match=r"no column 'hosts\.0\.lun_queue_depth'"):
        plotting.iops_vs_outstanding(qd_sweep(), hue="hosts.0.lun_queue_depth")
    with pytest.raises(PlotInputError, match="varied keys"):
        plotting.fan_in(qd_sweep())


def test_wildcard_keys_match_columns() -> None:
    sweep = qd_sweep()
    table = sweep.table.rename(columns={QD: "hosts.*.hbas.*.queue_depth"})
    ax = plotting.iops_vs_outstanding(SweepResult(table, ["hosts.*.hbas.*.queue_depth", OUT]))
    assert len(data_lines(ax)) == 2
    assert legend_title(ax) == "HBA queue depth"


def test_other_varied_keys_split_lines_unless_tied_to_x() -> None:
    sweep = qd_sweep()
    table = sweep.table.copy()
    # A key zipped with the load (one value per x) does not split lines ...
    table["run.ios"] = table[OUT] * 1000
    ax = plotting.iops_vs_outstanding(SweepResult(table, [QD, OUT, "run.ios"]))
    assert len(data_lines(ax)) == 2
    # ... a key crossed with the grid does.
    crossed = pd.concat([sweep.table.assign(**{"array.ports": p}) for p in (1, 2)])
    ax = plotting.iops_vs_outstanding(SweepResult(crossed, [QD, OUT, "array.ports"]))
    assert len(data_lines(ax)) == 4
    assert legend_title(ax) == "HBA queue depth, array ports"


# -- latency_vs_iops -----------------------------------------------------------------------------


def test_latency_vs_iops_hockey_stick() -> None:
    sweep = qd_sweep()
    shuffled = sweep.table.sample(frac=1.0, random_state=3).reset_index(drop=True)
    ax = plotting.latency_vs_iops(SweepResult(shuffled, [QD, OUT]), hue=QD)
    means = [line for line in data_lines(ax) if line.get_linestyle() == "-"]
    assert [line.get_label() for line in means] == ["8", "32"]
    x, y = means[0].get_data()
    # Points are in load order (outstanding 1..64), whatever the table order.
    assert list(np.asarray(x)) == [200, 400, 800, 1600, 1600, 1600, 1600]
    assert list(np.asarray(y)) == pytest.approx([5, 5, 5, 5, 10, 20, 40])
    dashed = [line for line in ax.get_lines() if line.get_linestyle() == "--"]
    assert len(dashed) == 2
    np.testing.assert_allclose(np.asarray(dashed[0].get_ydata()), 2 * np.asarray(y))
    knees = [line for line in ax.get_lines() if line.get_gid() == "knee"]
    assert len(knees) == 2
    assert np.asarray(knees[0].get_xdata())[0] == 1600
    assert np.asarray(knees[0].get_ydata())[0] == pytest.approx(5.0)  # outstanding = qd = 8
    assert ax.get_xlabel() == "IOPS"
    assert ax.get_ylabel() == "latency (ms)"
    assert legend_title(ax) == "HBA queue depth"
    style = [c for c in ax.get_children() if isinstance(c, Legend) and c is not ax.get_legend()]
    assert [t.get_text() for t in style[0].get_texts()] == ["mean", "p99", "knee"]


def test_latency_vs_iops_options() -> None:
    ax = plotting.latency_vs_iops(qd_sweep(), hue=QD, mark_knee=False, percentile=None)
    assert [line for line in ax.get_lines() if line.get_gid() == "knee"] == []
    assert [line for line in ax.get_lines() if line.get_linestyle() == "--"] == []
    # Without hue, the lines are told apart by the varied keys other than the load.
    ax = plotting.latency_vs_iops(qd_sweep())
    assert len([line for line in data_lines(ax) if line.get_linestyle() == "-"]) == 2
    assert legend_title(ax) == "HBA queue depth"


def test_latency_vs_iops_error_bars_with_replicates() -> None:
    ax = plotting.latency_vs_iops(qd_sweep(replicates=3), hue=QD)
    assert len([c for c in ax.containers if isinstance(c, ErrorbarContainer)]) == 2


# -- breakdown -----------------------------------------------------------------------------------


def test_breakdown_stacks_every_layer_per_point() -> None:
    sweep = qd_sweep(depths=(8,), outstanding=(1, 8, 16, 64))
    ax = plotting.breakdown(sweep, x=OUT)
    containers = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(containers) == len(LAYERS)
    assert sum(len(c.patches) for c in containers) == len(LAYERS) * 4
    for container, layer in zip(containers, LAYERS, strict=True):
        assert to_hex(container.patches[0].get_facecolor()) == LAYER_COLORS[layer]
    tops = [p.get_y() + p.get_height() for p in containers[-1].patches]
    np.testing.assert_allclose(tops, [5, 5, 10, 40])  # the stack adds up to the mean latency
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "8", "16", "64"]
    assert "ms" in ax.get_ylabel()
    assert legend_title(ax) == "layer"
    legend = ax.get_legend()
    assert legend is not None
    assert legend.get_texts()[0].get_text() == "drive"  # top of the stack first
    assert len(legend.get_texts()) == len(LAYERS)


def test_breakdown_groups_bars_by_the_other_keys() -> None:
    ax = plotting.breakdown(qd_sweep(outstanding=(1, 8, 64)), x=OUT)
    containers = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert sum(len(c.patches) for c in containers) == len(LAYERS) * 6
    centres = [p.get_x() + p.get_width() / 2 for p in containers[0].patches]
    assert centres == pytest.approx([0, 1, 2, 3.8, 4.8, 5.8])  # a gap between the groups
    assert [t.get_text() for t in ax.get_xticklabels()] == ["1", "8", "64"] * 2
    groups = [t.get_text() for t in ax.texts if t.get_gid() == "group"]
    assert groups == ["HBA queue depth 8", "HBA queue depth 32"]


def test_breakdown_error_bars_and_empty_layers() -> None:
    sweep = qd_sweep(replicates=3, depths=(8,), outstanding=(1, 16))
    table = sweep.table.assign(breakdown_ms_pcie=0.0)
    ax = plotting.breakdown(SweepResult(table, sweep.keys))
    containers = [c for c in ax.containers if isinstance(c, BarContainer)]
    assert len(containers) == len(LAYERS) - 1
    assert len([c for c in ax.containers if isinstance(c, ErrorbarContainer)]) == 1
    ax = plotting.breakdown(SweepResult(table, sweep.keys), drop_empty=False)
    assert len([c for c in ax.containers if isinstance(c, BarContainer)]) == len(LAYERS)


def test_breakdown_needs_breakdown_columns() -> None:
    table = qd_sweep().table
    table = table[[c for c in table.columns if not c.startswith("breakdown_ms_")]]
    with pytest.raises(PlotInputError, match="breakdown_ms_"):
        plotting.breakdown(table)


# -- fan_in --------------------------------------------------------------------------------------


def test_fan_in_panels_and_port_limit() -> None:
    axes = plotting.fan_in(fan_sweep(), port_queue_depth=1600, commands_per_host=128)
    assert len(axes) == 3
    total, per_host, latency = axes
    assert "IOPS" in total.get_ylabel() and "IOPS" in per_host.get_ylabel()
    assert latency.get_ylabel() == "p99 latency (ms)"
    assert latency.get_xlabel() == "hosts (log2 scale)"
    for ax in axes:
        assert ax.get_xscale() == "log"
        limits = [line for line in ax.get_lines() if line.get_gid() == "port-limit"]
        assert len(limits) == 1
        assert set(np.asarray(limits[0].get_xdata())) == {12.5}
    x, y = data_lines(total)[0].get_data()
    mean = next(line for line in per_host.get_lines() if line.get_gid() != "port-limit")
    np.testing.assert_allclose(np.asarray(mean.get_ydata()), np.asarray(y) / np.asarray(x))
    fig = total.get_figure(root=True)
    assert fig is not None
    twin = [a for a in fig.axes if a not in axes]
    assert len(twin) == 1 and twin[0].get_ylabel() == "QUEUE FULL per s"
    qfull = np.asarray(twin[0].get_lines()[0].get_ydata())
    assert list(qfull) == [0, 0, 0, 0, 4480 / 2.0, 24960 / 2.0]  # per simulated second
    # no per-host figures in the table: no spread drawn, and the legends do not list one
    legends = [ax.get_legend() for ax in axes if ax.get_legend() is not None]
    legend_texts = [t.get_text() for legend in legends for t in legend.get_texts()]
    assert not any("lowest to highest" in t for t in legend_texts)
    assert fig.get_suptitle().startswith("Fan-in")
    assert total.get_title(loc="left").startswith("fan")  # the scenario named


def test_fan_in_shades_the_spread_across_hosts() -> None:
    sweep = fan_sweep()
    table = sweep.table.copy()
    spreads = []
    for i, hosts in enumerate(table[HOSTS]):
        mean = table["iops"].iloc[i] / hosts
        figures = {
            f"h{j}": {"iops": mean * (0.5 + j / max(hosts - 1, 1)), "latency_ms_p99": 10.0 + j}
            for j in range(int(hosts))
        }
        spreads.append((mean * 0.5, mean * 1.5))
        table.loc[i, "hosts"] = json.dumps(figures)
    axes = plotting.fan_in(SweepResult(table, [HOSTS], "fan"))
    per_host = axes[1]
    (shade,) = [c for c in bands(per_host) if c.get_label().endswith("lowest to highest host")]
    lows = shade.get_paths()[0].vertices[:, 1]
    assert min(lows) == pytest.approx(min(lo for lo, _ in spreads))
    assert max(lows) == pytest.approx(max(hi for _, hi in spreads))
    legend = [t.get_text() for t in per_host.get_legend().get_texts()]
    assert legend == ["mean of the hosts", "lowest to highest host"]
    latency_legend = [t.get_text() for t in axes[2].get_legend().get_texts()]
    assert "hosts' p99, lowest to highest host" in latency_legend


def test_fan_in_limit_from_attrs_or_none() -> None:
    axes = plotting.fan_in(fan_sweep(attrs={"port_queue_depth": 1024, "commands_per_host": 64}))
    limits = [line for line in axes[0].get_lines() if line.get_gid() == "port-limit"]
    assert set(np.asarray(limits[0].get_xdata())) == {16.0}
    axes = plotting.fan_in(fan_sweep())
    assert not any(line.get_gid() == "port-limit" for ax in axes for line in ax.get_lines())


def test_fan_in_replicates_and_given_axes() -> None:
    fig = Figure()
    given = fig.subplots(3, 1)
    axes = plotting.fan_in(fan_sweep(replicates=3), axes=given)
    assert list(axes) == list(given)
    assert all(len(bands(ax)) == 1 for ax in axes)
    with pytest.raises(ValueError, match="expected 3 Axes"):
        plotting.fan_in(fan_sweep(), axes=given[:2])


# -- transfer_size -------------------------------------------------------------------------------


def test_transfer_size_panels() -> None:
    ax_mb, ax_cmd = plotting.transfer_size(transfer_sweep())
    assert ax_mb.get_ylabel() == "MB/s (10^6 B/s)"
    assert ax_cmd.get_ylabel() == "commands/s"
    for ax in (ax_mb, ax_cmd):
        assert [line.get_label() for line in data_lines(ax)] == ["512KiB", "2MiB"]
        assert ax.get_xscale() == "log"
    assert legend_title(ax_mb) == "HBA max transfer"
    ax_mb.get_figure(root=True).canvas.draw()  # type: ignore[union-attr]
    labels = [t.get_text() for t in ax_mb.get_xticklabels()]
    assert labels == ["64KiB", "256KiB", "1MiB", "4MiB"]
    # commands per second = commands / sim_seconds: a 4 MiB I/O is 8 commands of 512 KiB.
    small_max = np.asarray(data_lines(ax_cmd)[0].get_ydata())
    ios_per_s = np.array([2000.0, 2000.0, 500.0, 125.0])
    np.testing.assert_allclose(small_max, ios_per_s * [1, 1, 2, 8])


# -- run plots -----------------------------------------------------------------------------------


def _vi_data() -> dict[str, Any]:
    data: dict[str, Any] = load_scenario(SCENARIOS / "vi_queue_depth_2012.yaml").to_data()
    return data


@pytest.fixture(scope="module")
def scheduled_run() -> RunResult:
    """A tiny run of the 2012 dashboard: queue depth 4, then 8, then 32."""
    data = _vi_data()
    data["run"] = {"duration": 0.75, "warmup_ios": 300, "record_interval": 0.05}
    data["schedule"] = [
        {"at": 0.25, "set": {QD: 8}},
        {"at": 0.5, "set": {QD: 32}},
    ]
    return sanpath.run(data)


@pytest.fixture(scope="module")
def plain_runs() -> list[RunResult]:
    """Two short runs without time series or schedule, at queue depth 4 and 32."""
    runs = []
    for q in (4, 32):
        data = _vi_data()
        data["run"] = {"ios": 1500, "warmup_ios": 150}
        data["schedule"] = []
        data["hosts"][0]["hbas"][0]["queue_depth"] = q
        runs.append(sanpath.run(data))
    return runs


def _check_dashboard(axes: tuple[Axes, Axes, Axes], end: float) -> None:
    top, middle, bottom = axes
    assert top.get_shared_x_axes().joined(top, bottom)
    assert top.get_ylabel() == "latency (ms)"
    assert [line.get_label() for line in data_lines(top)] == ["mean", "p99"]
    assert middle.get_ylabel() == "MB/s (10^6 B/s)"
    twin = [a for a in middle.get_figure(root=True).axes if a not in axes]  # type: ignore[union-attr]
    assert len(twin) == 1 and twin[0].get_ylabel() == "IOPS"
    steps = data_lines(bottom)
    assert len(steps) == 1
    assert steps[0].get_drawstyle() == "steps-post"
    assert list(np.asarray(steps[0].get_ydata())) == [4, 8, 32, 32]
    xs = np.asarray(steps[0].get_xdata(), dtype=float)
    np.testing.assert_allclose(xs[:3], [0.0, 0.25, 0.5])
    assert xs[-1] == pytest.approx(end)
    assert bottom.get_ylabel() == "HBA queue depth"
    assert bottom.get_xlabel() == "simulated time (s)"
    changes = [line for line in top.get_lines() if line.get_gid() == "change"]
    assert sorted(float(np.asarray(c.get_xdata())[0]) for c in changes) == [0.25, 0.5]


def test_dashboard_from_run_and_json(scheduled_run: RunResult) -> None:
    series = scheduled_run.timeseries
    assert series is not None
    t = series["t_start_s"]
    end = t[-1] + (t[1] - t[0])
    _check_dashboard(plotting.dashboard(scheduled_run), end)
    _check_dashboard(plotting.dashboard(json.loads(scheduled_run.to_json())), end)


def test_exchange_dashboard_shows_probe_times_and_queue_full(scheduled_run: RunResult) -> None:
    series = scheduled_run.timeseries
    assert series is not None
    top, _middle, bottom = plotting.dashboard(scheduled_run, times="exchange")
    assert top.get_ylabel() == "exchange completion time (ms)"
    assert top.get_yscale() == "log"
    lines = {line.get_label(): line for line in data_lines(top)}
    assert list(lines) == ["p50", "mean", "p99", "max"]
    np.testing.assert_allclose(np.asarray(lines["p99"].get_ydata()), series["exchange_ms_p99"])
    # depth 32 overflows the 64-command port: QUEUE FULL answers per second on a right axis
    assert max(series["qfull"]) > 0
    (qfull_axis,) = [
        a
        for a in top.get_figure(root=True).axes  # type: ignore[union-attr]
        if a.get_ylabel() == "QUEUE FULL per s"
    ]
    assert qfull_axis.get_zorder() < top.get_zorder()
    assert bottom.get_ylabel() == "HBA queue depth"
    with pytest.raises(PlotInputError, match="times must be"):
        plotting.dashboard(scheduled_run, times="bogus")


def test_dashboard_needs_a_time_series(plain_runs: list[RunResult]) -> None:
    with pytest.raises(PlotInputError, match="record_interval"):
        plotting.dashboard(plain_runs[0])


def test_latency_cdf_lines(plain_runs: list[RunResult]) -> None:
    ax = plotting.latency_cdf(plain_runs, labels=["qd 4", "qd 32"])
    lines = data_lines(ax)
    assert [line.get_label() for line in lines] == ["qd 4", "qd 32"]
    assert ax.get_xscale() == "log"
    assert "latency (ms)" in ax.get_xlabel()
    for line in lines:
        x = np.asarray(line.get_xdata(), dtype=float)
        y = np.asarray(line.get_ydata(), dtype=float)
        assert len(x) > 100
        assert np.all((y >= 0) & (y <= 1))
        assert np.all(np.diff(y) >= 0) and np.all(np.diff(x) >= 0)
    assert legend_title(ax) == "run"


def test_latency_cdf_accepts_dicts_and_json(plain_runs: list[RunResult]) -> None:
    as_json = [json.loads(r.to_json()) for r in plain_runs]
    ax = plotting.latency_cdf({"a": plain_runs[0], "b": as_json[1]})
    assert [line.get_label() for line in data_lines(ax)] == ["a", "b"]
    np.testing.assert_allclose(
        np.asarray(data_lines(ax)[1].get_xdata()),
        np.asarray(plain_runs[1].latency_cdf()["latency_ms"]),
    )
    ax = plotting.latency_cdf(as_json[0])  # one run on its own
    assert [line.get_label() for line in data_lines(ax)] == ["vi-queue-depth-2012"]
    ax = plotting.latency_cdf(as_json)  # same names: numbered
    assert [line.get_label() for line in data_lines(ax)] == [
        "vi-queue-depth-2012 #0",
        "vi-queue-depth-2012 #1",
    ]
    with pytest.raises(PlotInputError, match="latency_cdf"):
        plotting.latency_cdf([{"name": "x"}])


# -- save ----------------------------------------------------------------------------------------


def test_save_axes_and_panels(tmp_path: Path) -> None:
    ax = plotting.iops_vs_outstanding(qd_sweep())
    path = plotting.save(ax, tmp_path / "iops.png")
    assert path.read_bytes().startswith(PNG)
    panels = plotting.transfer_size(transfer_sweep())
    path = SweepPlots.save(panels, tmp_path / "transfer")
    assert path.suffix == ".png" and path.read_bytes().startswith(PNG)


def test_plot_without_extension_writes_png(tmp_path: Path) -> None:
    table = tmp_path / "t.json"
    qd_sweep().save(table)
    written = plot_files([table], "iops-vs-outstanding", tmp_path / "picture")
    assert written == tmp_path / "picture.png" and written.read_bytes()[:4] == b"\x89PNG"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["picture.png", "t.json"]


# -- CLI -----------------------------------------------------------------------------------------


@pytest.fixture
def files(tmp_path: Path, scheduled_run: RunResult, plain_runs: list[RunResult]) -> dict[str, Path]:
    out = {}
    qd = qd_sweep(replicates=2)
    for name, sweep in (("qd", qd), ("fan", fan_sweep()), ("transfer", transfer_sweep())):
        sweep.save(tmp_path / f"{name}.csv")
        out[name] = tmp_path / f"{name}.csv"
    qd.save(tmp_path / "qd.json")
    out["qd_json"] = tmp_path / "qd.json"
    for name, run in (("run", scheduled_run), ("run4", plain_runs[0]), ("run32", plain_runs[1])):
        path = tmp_path / f"{name}.json"
        path.write_text(run.to_json())
        out[name] = path
    return out


@pytest.mark.parametrize(
    ("kind", "inputs", "extra"),
    [
        ("iops-vs-outstanding", ["qd"], []),
        ("iops-vs-outstanding", ["qd_json"], ["--x", OUT, "--hue", QD]),
        ("latency-vs-iops", ["qd"], ["--hue", QD]),
        ("breakdown", ["qd_json"], ["--x", OUT]),
        ("fan-in", ["fan"], ["--port-queue-depth", "1600", "--commands-per-host", "128"]),
        ("transfer-size", ["transfer"], []),
        ("dashboard", ["run"], []),
        ("cdf", ["run4", "run32"], []),
    ],
)
def test_cli_plot_writes_png(
    kind: str,
    inputs: list[str],
    extra: list[str],
    files: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / f"{kind}.png"
    argv = ["plot", *[str(files[i]) for i in inputs], "--kind", kind, "--out", str(out), *extra]
    assert main(argv) == 0
    assert out.read_bytes().startswith(PNG)
    assert str(out) in capsys.readouterr().out


@pytest.mark.parametrize(
    ("kind", "inputs", "extra"),
    [
        ("iops-vs-outstanding", ["qd"], []),
        ("latency-vs-iops", ["qd"], ["--hue", QD]),
        ("breakdown", ["qd_json"], ["--x", OUT]),
        ("fan-in", ["fan"], []),
        ("transfer-size", ["transfer"], []),
        ("dashboard", ["run"], []),
        ("exchange-dashboard", ["run"], []),
        ("cdf", ["run4", "run32"], []),
        ("per-host", ["run4"], []),
    ],
)
def test_every_plot_has_a_title_and_a_subtitle(
    kind: str,
    inputs: list[str],
    extra: list[str],
    files: dict[str, Path],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """What ``sanpath plot`` draws says what it shows and what was simulated."""
    drawn: list[Figure] = []
    real_save = plotting.files.save

    def keep(target: Any, path: Any, *, force: bool = False) -> Path:
        written = real_save(target, path, force=force)
        drawn.append(plotting.files._figure_of(target))
        return written

    monkeypatch.setattr(plotting.files, "save", keep)
    argv = ["plot", *[str(files[i]) for i in inputs], "--kind", kind]
    assert main([*argv, "--out", str(tmp_path / "p.png"), *extra]) == 0
    (fig,) = drawn
    assert fig.get_suptitle(), "no title"
    top = min(
        (ax for ax in fig.axes if ax.get_title(loc="left")),
        key=lambda ax: -ax.get_position().y1,
    )
    sub = top.get_title(loc="left")
    names = {"synthetic", "fan", "transfer", "vi-queue-depth-2012"}
    assert any(sub.startswith(name) for name in names), sub
    if inputs[0].startswith("run"):  # a run records what it simulated
        assert "host" in sub and "LUN" in sub and "outstanding" in sub, sub


@pytest.mark.parametrize(
    ("kind", "content", "message"),
    [
        ("breakdown", None, "no such file"),
        ("breakdown", "not,a\nsweep,table\n", "not a sweep table"),
        ("breakdown", "\x89PNG garbage\n\x00\x01", "not a sweep table"),
        ("cdf", "{not json", "not a run JSON"),
        ("dashboard", '{"name": "x"}', "not a run JSON"),
    ],
)
def test_cli_plot_bad_file(
    kind: str,
    content: str | None,
    message: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / ("bad.json" if kind in ("cdf", "dashboard") else "bad.csv")
    if content is not None:
        path.write_text(content)
    out = tmp_path / "out.png"
    assert main(["plot", str(path), "--kind", kind, "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert message in err and str(path) in err
    assert "Traceback" not in err
    assert not out.exists()


def test_cli_plot_wrong_kind_of_file(
    files: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = str(tmp_path / "out.png")
    assert main(["plot", str(files["run"]), "--kind", "breakdown", "--out", out]) == 2
    assert "run JSON" in capsys.readouterr().err
    assert main(["plot", str(files["run4"]), "--kind", "dashboard", "--out", out]) == 2
    assert "record_interval" in capsys.readouterr().err
    assert main(["plot", str(files["qd"]), "--kind", "fan-in", "--out", out]) == 2
    assert "hosts.0.count" in capsys.readouterr().err
    assert (
        main(["plot", str(files["qd"]), str(files["qd"]), "--kind", "breakdown", "--out", out]) == 2
    )
    assert "only cdf" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # argparse: unknown --kind
        main(["plot", str(files["qd"]), "--kind", "pie", "--out", out])
    assert exc.value.code == 2
    assert "invalid choice: 'pie'" in capsys.readouterr().err


def test_cli_offers_exactly_the_plot_kinds() -> None:
    """The CLI lists the kinds itself (so that its parser does not load matplotlib)."""
    import argparse

    from sanpath.cli import _parser

    parser = _parser()
    subparsers = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    plot = subparsers.choices["plot"]
    kind = next(a for a in plot._actions if a.dest == "kind")
    assert tuple(kind.choices or ()) == plotting.KINDS


def _covered_points(ax: Axes, axes: list[Axes]) -> int:
    """Data points of ``axes``' lines that fall inside ``ax``'s legend box, on screen."""
    figure = ax.get_figure(root=True)
    assert isinstance(figure, Figure)
    figure.canvas.draw()  # type: ignore[no-untyped-call]
    legend = ax.get_legend()
    assert legend is not None
    box = legend.get_window_extent()
    covered = 0
    for target in axes:
        for line in data_lines(target):
            points = target.transData.transform(np.column_stack(line.get_data()))
            covered += int(np.sum([box.contains(x, y) for x, y in points]))
    return covered


@pytest.mark.parametrize("times", ["latency", "exchange"])
def test_dashboard_legends_cover_no_data(scheduled_run: RunResult, times: str) -> None:
    top, middle, _ = plotting.dashboard(scheduled_run, times=times)
    figure = top.get_figure(root=True)
    assert isinstance(figure, Figure)
    twins = [a for a in figure.axes if a not in (top, middle, _)]
    assert _covered_points(top, [top]) == 0
    assert _covered_points(middle, [middle, *twins]) == 0


def test_breakdown_of_a_long_sweep_keeps_a_page_s_aspect() -> None:
    sweep = qd_sweep(depths=(8, 32, 128), outstanding=(1, 2, 4, 8, 16, 32, 64, 128, 256))
    figure = plotting.breakdown(sweep, x=OUT).get_figure(root=True)
    assert isinstance(figure, Figure)
    width, height = figure.get_size_inches()
    assert width / height <= 2.2  # it was 16 x 4.6 inches, 3.5:1


def test_tick_labels_read_alike_on_every_axis(scheduled_run: RunResult) -> None:
    """Thousands separators everywhere, no powers of ten: 1,200 beside 14,000."""
    axes = plotting.dashboard(scheduled_run, times="exchange")
    figure = axes[0].get_figure(root=True)
    assert isinstance(figure, Figure)
    figure.canvas.draw()  # type: ignore[no-untyped-call]
    labels = [
        t.get_text()
        for ax in figure.axes
        for t in [*ax.get_yticklabels(), *ax.get_xticklabels()]
        if t.get_text()
    ]
    assert labels
    for label in labels:
        assert re.fullmatch(r"-?\d{1,3}(,\d{3})*(\.\d+)?", label), label
