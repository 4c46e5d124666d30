"""What-if in Jupyter: sliders whose analytic prediction redraws at once.

``what_if(scenario)`` shows sliders for the knobs a capacity planner turns first (hosts,
HBA queue depth, LUNs, I/O size, read fraction, outstanding I/Os). Every change redraws the
analytic twin's latency-against-IOPS curve (over outstanding I/Os) and marks the current
point; the *Simulate* button runs the simulator at the current setting and adds the measured
point, so the picture shows where the simple theory holds and where it does not. *Animate* then
runs the point just simulated again from an empty path, recording the window an animation
shows (``run.animate``), and plays it under the panel: the queues of every hop filling.

The widgets come from ipywidgets (``pip install sanpath[notebook]``). The state lives in a
:class:`WhatIf` object, so the same logic is testable without a browser. A page without a
running kernel (the documentation site, a notebook viewer) cannot show live widgets: the
panel also carries a picture of itself (:meth:`WhatIf.panel_figure`), which such pages show
instead.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sanpath.readable import figure
from sanpath.spec import Scenario, load_line, load_scenario

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

ANIMATE_FRAMES = 24
"""Frames of the what-if panel's animation (each takes a moment to draw)."""

CURVE = (1, 2, 4, 8, 16, 32, 64, 128, 256)
"""Outstanding I/Os along the predicted curve."""

SLIDERS: dict[str, tuple[str, float, float, float]] = {
    "hosts": ("hosts", 1, 64, 1),
    "queue_depth": ("HBA QD", 1, 256, 1),
    "luns": ("LUNs", 1, 32, 1),
    "io_size_kib": ("I/O KiB", 1, 4096, 1),
    "read_fraction": ("reads", 0.0, 1.0, 0.05),
    "outstanding": ("outstanding", 1, 256, 1),
}
"""Slider name -> (label, lowest, highest, step), for the widget and its picture."""

IO_SIZES_KIB = tuple(2**i for i in range(13))
"""The I/O size slider's stops, in KiB: powers of two from 1 to 4,096, evenly spaced (a
logarithmic slider, so 4 KiB and 8 KiB are as far apart as 1 MiB and 2 MiB)."""


def slider_share(name: str, value: float) -> float:
    """Where ``value`` sits along slider ``name``, from 0 (its lowest) to 1 (its highest):
    linear, or by powers of two for the I/O size."""
    _label, low, high, _step = SLIDERS[name]
    if name == "io_size_kib":
        low, high, value = math.log2(low), math.log2(high), math.log2(max(value, low))
    share = (value - low) / (high - low) if high > low else 0.0
    return min(max(share, 0.0), 1.0)


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

    def overrides(self, values: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The current slider values (or ``values``) as dotted overrides."""
        values = self.values if values is None else values
        out = {KNOBS[k]: v for k, v in values.items()}
        out[KNOBS["io_size_kib"]] = f"{int(values['io_size_kib'])}KiB"
        return out

    def scenario(self) -> Scenario:
        """The base scenario at the current slider values (run length for a quick look)."""
        return self._at(self.values)

    def _at(self, values: Mapping[str, Any]) -> Scenario:
        """The base scenario at the slider ``values`` (run length for a quick look)."""
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
        return self.base.with_overrides({**self.overrides(values), **length})

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
        from sanpath.theory import explain

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

    def animate(self, frames: int = ANIMATE_FRAMES) -> Any:
        """The animation of the point simulated last (:class:`sanpath.plotting.Player`): its
        settings run again from an empty path for :data:`sanpath.spec.AUTO_IOS` completed
        I/Os, recorded as ``frames`` frames.

        Raises
        ------
        ValueError
            When no point has been simulated yet.
        """
        from sanpath.sim import run
        from sanpath.spec import AUTO_IOS

        if not self.points:
            raise ValueError("simulate a point first: Animate shows the point simulated last")
        spec = self._at(self.points[-1].settings).with_overrides(
            {
                "run.ios": AUTO_IOS,
                "run.duration": None,
                "run.precision": None,
                "run.warmup": "fixed",
                "run.warmup_ios": 0,
                "run.animate": {"start": 0.0, "frames": frames},
            }
        )
        return run(spec).animate()

    def status(self, current: Any) -> str:
        """The status line under the sliders for the twin's ``current`` prediction."""
        return (
            f"twin: {figure(current.iops)} IOPS, {figure(current.latency_ms_mean)} ms "
            f"mean, bottleneck {current.bottleneck}"
        )

    def _draw_curve(self, ax: Any) -> Any:
        """The twin's curve, the current point and the simulated points on ``ax``."""
        from sanpath.plotting import set_titles, subtitle

        iops, latency, current = self.predict()
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
        ax.legend(fontsize=8)
        spec = self.scenario()
        set_titles(
            ax,
            "Latency against IOPS as outstanding I/Os grow",
            subtitle(
                spec.name,
                load_line(spec, {KNOBS["outstanding"]: f"1-{CURVE[-1]}"}),
                f"bottleneck {current.bottleneck}",
            ),
            own_figure=False,
        )
        return current

    def figure(self) -> Any:
        """Latency against IOPS: the twin's curve, the current point, simulated points."""
        from matplotlib.figure import Figure

        fig = Figure(figsize=(6.5, 4.4), layout="constrained")
        self._draw_curve(fig.add_subplot())
        return fig

    def panel_figure(self) -> Any:
        """A picture of the whole panel: the sliders at their values, the *Simulate* and
        *Animate* buttons, the status line and the curve, as a page without a kernel shows
        the widget."""
        from matplotlib.figure import Figure
        from matplotlib.patches import FancyBboxPatch

        fig = Figure(figsize=(11.0, 4.2), layout="constrained")
        left, right = fig.subplots(1, 2, width_ratios=[1.0, 1.5])
        current = self._draw_curve(right)
        left.set_xlim(0, 1)
        left.set_ylim(len(SLIDERS) + 1.6, -0.6)
        left.axis("off")
        for row, (name, (label, _low, _high, _step)) in enumerate(SLIDERS.items()):
            value = float(self.values[name])
            left.text(0.27, row, label, ha="right", va="center", fontsize=9)
            left.plot([0.3, 0.82], [row, row], color="0.8", lw=4, solid_capstyle="round")
            knob = 0.3 + 0.52 * slider_share(name, value)
            left.plot([0.3, knob], [row, row], color="#1f77b4", lw=4, solid_capstyle="round")
            left.plot([knob], [row], "o", color="white", mec="#1f77b4", ms=9)
            shown = f"{value:.2f}" if name == "read_fraction" else f"{value:,.0f}"
            left.text(0.86, row, shown, va="center", fontsize=9)
        button = len(SLIDERS) + 0.2
        for x, label, colour in (
            (0.3, "Simulate", "black"),
            (0.58, "Animate", "black" if self.points else "0.6"),  # once a point is simulated
        ):
            left.add_patch(
                FancyBboxPatch(
                    (x, button - 0.35),
                    0.25,
                    0.7,
                    boxstyle="round,pad=0.02",
                    facecolor="#eeeeee",
                    edgecolor="0.6",
                )
            )
            left.text(x + 0.125, button, label, ha="center", va="center", fontsize=9, color=colour)
        left.text(0.0, button + 1.1, self.status(current), fontsize=8, va="center", wrap=True)
        fig.suptitle(
            f"What-if panel for {self.base.name} (a picture: sliders need a running kernel)",
            fontsize=10,
            x=0.02,
            ha="left",
        )
        return fig

    def panel_png(self) -> bytes:
        """:meth:`panel_figure` as PNG bytes."""
        import io

        buffer = io.BytesIO()
        self.panel_figure().savefig(buffer, format="png", dpi=100)
        return buffer.getvalue()


def what_if(scenario: Scenario | str | Mapping[str, Any], ios: int | None = None) -> Any:
    """Show the what-if widget for ``scenario`` (returns the ipywidgets box).

    The returned box has a ``what_if`` attribute (the :class:`WhatIf` state), ``sliders``
    (by name), ``button`` (*Simulate*), ``animate`` (*Animate*, once a point is simulated)
    and ``player`` (the animation shown last, None before), so a notebook or a test can
    drive it.
    """
    import base64
    import importlib

    import ipywidgets as widgets

    display: Any = importlib.import_module("IPython.display").display

    state = WhatIf(scenario, ios)
    v = state.values
    sliders: dict[str, Any] = {}
    for name, (label, low, high, step) in SLIDERS.items():
        if name == "io_size_kib":  # powers of two, the scenario's own size among them
            stops = sorted({*IO_SIZES_KIB, int(v[name])})
            sliders[name] = widgets.SelectionSlider(
                options=[(f"{k:,}", k) for k in stops], value=int(v[name]), description=label
            )
            continue
        kind = widgets.FloatSlider if name == "read_fraction" else widgets.IntSlider
        sliders[name] = kind(value=v[name], min=low, max=high, step=step, description=label)
    for slider in sliders.values():
        slider.continuous_update = False
    button = widgets.Button(description="Simulate", tooltip="run the simulator at this point")
    animate = widgets.Button(
        description="Animate",
        tooltip="watch the point simulated last: its queues filling, hop by hop",
        disabled=True,
    )
    output = widgets.Output()
    movie = widgets.Output()
    status = widgets.Label()

    def redraw() -> None:
        output.clear_output(wait=True)
        with output:
            display(state.figure())
        status.value = state.status(state.predict()[2])

    def on_change(change: Any) -> None:
        for name, slider in sliders.items():
            state.values[name] = slider.value
        redraw()

    def on_click(_button: Any) -> None:
        status.value = "simulating..."
        point = state.simulate()
        redraw()
        status.value += f" | simulated: {figure(point.iops)} IOPS, {figure(point.latency_ms)} ms"
        if not point.steady:
            status.value += " | NOT STEADY STATE: " + " ".join(point.warnings)
        animate.disabled = False

    def on_animate(_button: Any) -> None:
        before = status.value
        status.value = before + " | animating..."
        player = state.animate()
        movie.clear_output(wait=True)
        with movie:
            display(player)
        box.player = player
        status.value = before + " | animated: the point simulated last, from an empty path"

    for slider in sliders.values():
        slider.observe(on_change, names="value")
    button.on_click(on_click)
    animate.on_click(on_animate)

    class Panel(widgets.VBox):  # type: ignore[misc]
        """The live panel, which also carries a picture of itself for pages without a
        kernel (``image/png`` beside the widget view in its display data)."""

        def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
            bundle = dict(super()._repr_mimebundle_(**kwargs) or {})
            bundle["image/png"] = base64.b64encode(state.panel_png()).decode("ascii")
            return bundle

    buttons = widgets.VBox([button, animate])
    box = Panel(
        [widgets.HBox([widgets.VBox(list(sliders.values())), buttons]), status, output, movie]
    )
    box.what_if = state
    box.sliders = sliders
    box.button = button
    box.animate = animate
    box.player = None
    box.status = status
    redraw()
    return box
