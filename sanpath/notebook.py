"""What-if in Jupyter: sliders whose analytic prediction redraws at once.

``what_if(scenario)`` shows sliders for the knobs a capacity planner turns first (hosts,
HBA queue depth, LUNs, I/O size, read fraction, outstanding I/Os). Every change redraws the
analytic twin's latency-against-IOPS curve (over outstanding I/Os) and marks the current
point; the *Simulate* button runs the simulator at the current setting and adds the measured
point, so the picture shows where the simple theory holds and where it does not.

The widgets come from ipywidgets (``pip install sanpath[notebook]``). The state lives in a
:class:`WhatIf` object, so the same logic is testable without a browser.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sanpath.spec import Scenario, load_scenario

KNOBS: dict[str, str] = {
    "hosts": "hosts.0.count",
    "queue_depth": "hosts.0.hbas.0.queue_depth",
    "luns": "array.luns.0.count",
    "io_size_kib": "workloads.0.block_size",
    "read_fraction": "workloads.0.read_fraction",
    "outstanding": "workloads.0.outstanding",
}
"""Slider name -> the dotted scenario key it sets."""

QUICK_PRECISION = 0.05
"""Relative half-width of the mean latency's 95% interval at which a simulated point stops."""

CURVE = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""Outstanding I/Os along the predicted curve."""


@dataclass(frozen=True)
class Point:
    """One simulated point: the settings and what the simulator measured."""

    settings: dict[str, Any]
    iops: float
    latency_ms: float
    twin_iops: float
    twin_latency_ms: float
    steady: bool = True
    """False when the simulated figures are not steady state (see ``warnings``)."""
    warnings: tuple[str, ...] = ()


class WhatIf:
    """The state and logic behind the what-if widget."""

    def __init__(
        self, scenario: Scenario | str | Mapping[str, Any], ios: int | None = None
    ) -> None:
        base = load_scenario(scenario)
        self.base = base.model_copy(update={"sweep": None, "reference": None, "schedule": ()})
        self.ios = ios
        """Measured I/Os of a simulated point; None: stop at +/-:data:`QUICK_PRECISION` of
        the mean latency (after the automatic warm-up)."""
        host, workload = self.base.hosts[0], self.base.workloads[0]
        self.values: dict[str, Any] = {
            "hosts": host.count,
            "queue_depth": host.hbas[0].queue_depth or 256,
            "luns": self.base.array.luns[0].count,
            "io_size_kib": max(1, workload.block_size[0][0] // 1024),
            "read_fraction": workload.read_fraction,
            "outstanding": workload.outstanding_per_lun,
        }
        self.points: list[Point] = []

    def overrides(self) -> dict[str, Any]:
        """The current slider values as dotted overrides."""
        out = {KNOBS[k]: v for k, v in self.values.items()}
        out[KNOBS["io_size_kib"]] = f"{int(self.values['io_size_kib'])}KiB"
        return out

    def scenario(self) -> Scenario:
        """The base scenario at the current slider values (run length for a quick look)."""
        if self.ios is None:
            length: dict[str, Any] = {
                "run.ios": None,
                "run.duration": None,
                "run.precision": {"metric": "latency_ms_mean", "half_width": QUICK_PRECISION},
            }
        else:
            length = {
                "run.ios": self.ios,
                "run.duration": None,
                "run.precision": None,
                "run.warmup_ios": self.ios // 10,
            }
        return self.base.with_overrides({**self.overrides(), **length})

    def predict(self) -> tuple[list[float], list[float], Any]:
        """The twin along outstanding I/Os: (IOPS, latency ms) lists and the current point."""
        from sanpath.theory.twin import predict, predict_many

        spec = self.scenario()
        curve = predict_many(spec, [{KNOBS["outstanding"]: n} for n in CURVE])
        current = predict(spec)
        return [p.iops for p in curve], [p.latency_ms_mean for p in curve], current

    def simulate(self) -> Point:
        """Run the simulator at the current values and keep the point."""
        from sanpath.sim import run
        from sanpath.theory.explain import explain

        spec = self.scenario()
        result = explain(spec, run(spec))
        _, _, twin = self.predict()
        point = Point(
            dict(self.values),
            result.iops,
            result.latency_ms["mean"],
            twin.iops,
            twin.latency_ms_mean,
            result.steady,
            result.warnings,
        )
        self.points.append(point)
        return point

    def figure(self) -> Any:
        """Latency against IOPS: the twin's curve, the current point, simulated points."""
        from matplotlib.figure import Figure

        iops, latency, current = self.predict()
        fig = Figure(figsize=(6.5, 4))
        ax = fig.add_subplot()
        ax.plot(iops, latency, "-o", color="#1f77b4", ms=3, label="analytic twin")
        ax.plot(
            [current.iops],
            [current.latency_ms_mean],
            "o",
            color="#1f77b4",
            ms=10,
            mfc="none",
            label="current setting (twin)",
        )
        if self.points:
            ax.plot(
                [p.iops for p in self.points],
                [p.latency_ms for p in self.points],
                "s",
                color="#d62728",
                label="simulated",
            )
        ax.set_xlabel("IOPS")
        ax.set_ylabel("mean latency (ms)")
        ax.set_title(f"bottleneck: {current.bottleneck}", fontsize=9)
        ax.legend(fontsize=8)
        return fig


def what_if(scenario: Scenario | str | Mapping[str, Any], ios: int | None = None) -> Any:
    """Show the what-if widget for ``scenario`` (returns the ipywidgets box).

    The returned box has a ``what_if`` attribute (the :class:`WhatIf` state), ``sliders``
    (by name) and ``button``, so a notebook or a test can drive it.
    """
    import importlib

    import ipywidgets as widgets

    display: Any = importlib.import_module("IPython.display").display

    state = WhatIf(scenario, ios)
    v = state.values
    sliders = {
        "hosts": widgets.IntSlider(value=v["hosts"], min=1, max=64, description="hosts"),
        "queue_depth": widgets.IntSlider(
            value=v["queue_depth"], min=1, max=256, description="HBA QD"
        ),
        "luns": widgets.IntSlider(value=v["luns"], min=1, max=32, description="LUNs"),
        "io_size_kib": widgets.IntSlider(
            value=v["io_size_kib"], min=1, max=4096, description="I/O KiB"
        ),
        "read_fraction": widgets.FloatSlider(
            value=v["read_fraction"], min=0.0, max=1.0, step=0.05, description="reads"
        ),
        "outstanding": widgets.IntSlider(
            value=v["outstanding"], min=1, max=256, description="outstanding"
        ),
    }
    for slider in sliders.values():
        slider.continuous_update = False
    button = widgets.Button(description="Simulate", tooltip="run the simulator at this point")
    output = widgets.Output()
    status = widgets.Label()

    def redraw() -> None:
        output.clear_output(wait=True)
        with output:
            display(state.figure())
        _, _, current = state.predict()
        status.value = (
            f"twin: {current.iops:,.0f} IOPS, {current.latency_ms_mean:.2f} ms "
            f"mean, bottleneck {current.bottleneck}"
        )

    def on_change(change: Any) -> None:
        for name, slider in sliders.items():
            state.values[name] = slider.value
        redraw()

    def on_click(_button: Any) -> None:
        status.value = "simulating..."
        point = state.simulate()
        redraw()
        status.value += f" | simulated: {point.iops:,.0f} IOPS, {point.latency_ms:.2f} ms"
        if not point.steady:
            status.value += " | NOT STEADY STATE: " + " ".join(point.warnings)

    for slider in sliders.values():
        slider.observe(on_change, names="value")
    button.on_click(on_click)
    box = widgets.VBox(
        [widgets.HBox([widgets.VBox(list(sliders.values())), button]), status, output]
    )
    box.what_if = state
    box.sliders = sliders
    box.button = button
    box.status = status
    redraw()
    return box
