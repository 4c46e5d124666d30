"""The ``headroom`` plot: latency against growth, SLO lines, the knee and the answer."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest
from matplotlib.axes import Axes
from matplotlib.container import ErrorbarContainer
from matplotlib.lines import Line2D

from sanpath import plotting
from sanpath.cli import main
from sanpath.plotting import PlotInputError, plot_files
from sanpath.results import HeadroomResult, parse_slo
from sanpath.results.headroom import SimulatedPoint

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(autouse=True)
def _no_pyplot_figures() -> Iterator[None]:
    plt.close("all")
    yield
    assert plt.get_fignums() == []


def result() -> HeadroomResult:
    """An M/M/1 queue (1 ms service, 250 I/Os per second) grown by its arrival rate."""
    growth: list[float | None] = [0.25 * i for i in range(1, 16)]
    mean: list[float | None] = [1.0 / (1000.0 - 250.0 * (g or 0.0)) * 1e3 for g in growth]
    point = SimulatedPoint(
        growth=2.0,
        iops=500.5,
        latency_ms={"mean": 2.04, "p50": 1.4, "p90": 4.7, "p99": 9.3, "p99_9": 14.0, "max": 30.0},
        ci95={"mean": (1.99, 2.09), "p99": (9.0, 9.6)},
        verdict={"mean<=2ms": "at the limit", "p99<12ms": "meets"},
        meets=False,
        ios=40_000,
        bottleneck="drives: array.pool.drives (50%)",
    )
    return HeadroomResult(
        name="mm1",
        grow="rate",
        slos=(parse_slo("mean<=2ms"), parse_slo("p99<12ms")),
        base={"workloads.0.rate": 250.0},
        growth=2.0,
        growth_twin=2.0,
        growth_limit=1e6,
        knee=2.0 * 0.999,
        saturation=3.96,
        binding="mean<=2ms",
        bottleneck="array.pool.drives",
        bottleneck_utilization=0.5,
        bottleneck_simulated="drives: array.pool.drives",
        meaning="the drives are the busiest component",
        curve={
            "growth": growth,
            "iops": [250.0 * (g or 0.0) for g in growth],
            "latency_ms_mean": mean,
            "utilization": [0.25 * (g or 0.0) for g in growth],
            "latency_ms_p99": [4.605 * (m or 0.0) for m in mean],
        },
        simulated=(point,),
        realised={"workloads.0.rate": 500.0},
        notes=("a note",),
        seed=1,
    )


def _lines(ax: Axes) -> list[Line2D]:
    return [line for line in ax.get_lines() if isinstance(line, Line2D)]


def test_draws_the_twin_curves_the_slo_lines_the_knee_and_the_answer() -> None:
    r = result()
    ax = plotting.headroom(r)
    assert isinstance(ax, Axes)
    labels = [str(line.get_label()) for line in _lines(ax)]
    assert "twin mean" in labels
    assert "twin p99 (exponential tail)" in labels
    assert "SLO mean<=2ms" in labels and "SLO p99<12ms" in labels
    assert any(label.startswith("knee x") for label in labels)
    assert "answer x2" in labels
    slo = next(line for line in _lines(ax) if line.get_label() == "SLO p99<12ms")
    assert np.asarray(slo.get_ydata(), dtype=float).tolist() == [12.0, 12.0]
    answer = next(line for line in _lines(ax) if line.get_label() == "answer x2")
    assert np.asarray(answer.get_xdata(), dtype=float).tolist() == [2.0, 2.0]
    bars = [c for c in ax.containers if isinstance(c, ErrorbarContainer)]
    assert len(bars) == 2  # one simulated point, two SLO metrics
    assert ax.get_ylim()[1] >= 12.0
    assert "latency" in ax.get_ylabel()
    assert "arrival rate" in ax.get_xlabel()
    legend = ax.get_legend()
    assert legend is not None
    texts = [t.get_text() for t in legend.get_texts()]
    assert len(texts) == len(set(texts))
    figure = ax.get_figure(root=True)
    figure.canvas.draw()  # type: ignore[union-attr]
    # beside the panel: the curves and the SLO lines stay in view
    assert legend.get_window_extent().x0 >= ax.get_window_extent().x1


def test_reads_the_json_of_sanpath_headroom(tmp_path: Path) -> None:
    path = tmp_path / "headroom.json"
    path.write_text(json.dumps(result().to_dict()))
    ax = plotting.headroom(json.loads(path.read_text()))
    assert isinstance(ax, Axes)
    written = plot_files([path], "headroom", tmp_path / "picture")
    assert written == tmp_path / "picture.png"
    assert written.read_bytes().startswith(PNG)
    assert "headroom" in plotting.KINDS
    assert main(["plot", str(path), "--kind", "headroom", "--out", str(tmp_path / "b.png")]) == 0
    assert (tmp_path / "b.png").read_bytes().startswith(PNG)


def test_refuses_what_is_not_a_headroom_result(tmp_path: Path) -> None:
    run = tmp_path / "run.json"
    run.write_text(json.dumps({"latency_cdf": {}, "iops": 1.0}))
    with pytest.raises(PlotInputError, match="not a headroom result"):
        plot_files([run], "headroom", tmp_path / "x.png")
    with pytest.raises(PlotInputError, match="no such file"):
        plot_files([tmp_path / "missing.json"], "headroom", tmp_path / "x.png")
    with pytest.raises(PlotInputError, match="not a headroom result"):
        plotting.headroom({"kind": "headroom"})
