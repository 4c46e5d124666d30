"""The animated path: a run's recording (:class:`~sanpath.results.Recording`) drawn frame by
frame on the picture of its path (``sanpath animate``, ``RunResult.animate()``).

Each frame is the path picture of :mod:`sanpath.plotting.topology`, its host groups drawn
host by host (up to :data:`EACH_HOST` boxes a group, the last one a stack of the rest with
their count), with:

* each queue a command takes a slot of as a bar in its box, filled with the slots in use
  and red once they are all taken; the commands waiting for a slot are written beside it;
* the controller's and the drives' busy shares as bars, and each link line glowing with its
  busy share (grey idle, orange busy, thicker the busier);
* QUEUE FULL answers as red flashes travelling from the array port back to the hosts that
  received them, one column a frame;
* the tracked application I/Os as dots at the hop they are at; an I/O split into several
  commands shows as several dots, with its size and its command count;
* beside the path, the I/Os per second and the mean latency growing, a cursor at the frame.

Times are simulated; the frame's time is in its title.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import cast

import numpy as np
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.text import Text

from sanpath.plotting.style import subtitle
from sanpath.plotting.topology import (
    COLUMNS,
    FONT_SIZE,
    PathBox,
    draw_box,
    path_layout,
    path_line,
)
from sanpath.readable import duration, size
from sanpath.results import Recording
from sanpath.spec import load_line, load_scenario

__all__ = ["EACH_HOST", "PathAnimation"]

EACH_HOST = 8
"""Host boxes a host group is drawn with at most (the last one a stack of the rest)."""

COLUMN_OF_LAYER = {
    "host_queue": -0.2,
    "host": 0.15,
    "hba": 1.0,
    "pcie": 0.8,
    "fabric": 2.0,
    "array_port": 3.0,
    "controller": 4.0,
    "cache": 4.2,
    "lun_queue": 5.0,
    "drive": 6.0,
}
"""Where a tracked command is drawn in each layer of the path (a column of the picture)."""

FULL = "#c0392b"
FILL = "#4477aa"
IDLE_LINE = np.array([0.55, 0.55, 0.55])
BUSY_LINE = np.array([1.0, 0.5, 0.0])
DOT_COLOURS = ("#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02", "#a6761d")


@dataclass
class _Bar:
    """A bar in a box: the places (or station) it counts and its artists."""

    box: PathBox
    places: list[int]
    stations: list[int]
    fill: Rectangle
    text: Text


class PathAnimation:
    """The frames of ``recording`` on one Figure (see the module docstring): :meth:`draw`
    puts frame ``i`` on it.

    Raises
    ------
    ValueError
        When the recording has fewer than two frames (the window lay past the run's end).
    """

    def __init__(self, recording: Recording, each_host: int = EACH_HOST, dpi: int = 72) -> None:
        if recording.frames < 2:
            raise ValueError(
                "the recording has fewer than two frames: the animation window "
                "(run.animate.start) lies past the end of the run; start it earlier or run longer"
            )
        self.rec = recording
        scenario = load_scenario(recording.scenario)
        self.scenario = scenario
        self.layout = path_layout(scenario, each_host=each_host)
        tallest = self.layout.tallest
        height = max(0.85 * tallest + 1.6, 4.5)
        self.fig = Figure(figsize=(17, height), dpi=dpi)
        top = 1 - 0.9 / height  # room for the title and the subtitle, inches
        self.ax = self.fig.add_axes((0.005, 0.01, 0.75, top - 0.01))
        self.ax_iops = self.fig.add_axes((0.8, 0.55, 0.185, top - 0.57))
        self.ax_lat = self.fig.add_axes((0.8, 0.6 / height, 0.185, 0.45 - 0.6 / height))
        self.links: list[tuple[Line2D, list[int]]] = []
        self.bars: list[_Bar] = []
        self._draw_path()
        self._draw_curves()
        self.flashes = self.ax.scatter([], [], s=150, marker="*", color=FULL, zorder=6)
        self.dots = self.ax.scatter([], [], s=90, zorder=7, edgecolors="black", linewidths=0.6)
        self.dot_labels = [
            self.ax.text(0, 0, "", fontsize=FONT_SIZE - 1, zorder=8, visible=False)
            for _ in recording.journeys
        ]
        self.title = self.fig.suptitle("", fontweight="bold", x=0.02, ha="left")
        self.draw(0)

    # -- the still parts -----------------------------------------------------------------------

    def _station(self, name: str) -> int | None:
        try:
            return self.rec.stations.index(name)
        except ValueError:
            return None

    def _stations(self, names: list[str]) -> list[int]:
        return [i for name in names if (i := self._station(name)) is not None]

    def _draw_path(self) -> None:
        ax, layout = self.ax, self.layout
        scenario = self.scenario
        hosts = [h.name for h in scenario.hosts]
        for start, end, active in sorted(layout.lines, key=str):
            src, dst = layout.boxes[start], layout.boxes[end]
            line = path_line(ax, src, dst, active)
            kind, key = start
            if kind == "host":
                group = hosts[key[0]]  # type: ignore[index]
                names = [f"{group}.pcie.down", f"{group}.pcie.up"]
            elif kind == "port":
                group = hosts[key[0]]  # type: ignore[index]
                names = [f"{group}.link.out", f"{group}.link.in"]
            elif kind == "fabric":
                a = end[1]
                names = [f"array.port{a}.link.in", f"array.port{a}.link.out"]
            elif kind == "array":
                names = ["array.controller.bandwidth", "array.cross_controller"]
            else:
                names = []
            self.links.append((line, self._stations(names)))
        for key, box in layout.boxes.items():
            box.label = box.label.split("\n")[0]
            draw_box(ax, box)
            ax.texts[-1].set(y=box.y - 0.22, fontsize=FONT_SIZE - 2)
            places, stations = self._counted(key, box)
            if not places and not stations:
                continue
            x0, y0 = box.column - 0.36, box.y - 0.06
            outline = Rectangle((x0, y0), 0.72, 0.14, facecolor="white", edgecolor="0.4", lw=0.8)
            ax.add_patch(outline).set_zorder(4)
            fill = Rectangle((x0, y0), 0.0, 0.14, facecolor=FILL, zorder=5)
            ax.add_patch(fill)
            text = ax.text(
                box.column, box.y + 0.12, "", ha="center", va="top", fontsize=FONT_SIZE - 2
            )
            self.bars.append(_Bar(box, places, stations, fill, text))
        for c, name in enumerate(COLUMNS):
            ax.text(c, -0.42, name, ha="center", va="bottom", fontsize=FONT_SIZE, weight="bold")
        ax.set_xlim(-0.5, len(COLUMNS) - 0.5)
        ax.set_ylim(layout.tallest - 0.5, -0.75)
        ax.axis("off")
        ax.set_title(
            subtitle(scenario.name, load_line(scenario), "bars: slots in use, red when full"),
            loc="left",
            fontsize="small",
            color="0.3",
        )

    def _counted(self, key: tuple[str, object], box: PathBox) -> tuple[list[int], list[int]]:
        """The places (or the stations' busy shares) the bar of the box ``key`` shows."""
        kind, what = key
        index = {name: i for i, name in enumerate(self.rec.places)}
        if kind == "host":
            return [index[f"host:{m}:queue"] for m in box.members], []
        if kind == "port":
            g, k, port = cast(tuple[int, int, int], what)
            ports = [
                cast(tuple[int, int, int], key)
                for kind_, key in self.layout.boxes
                if kind_ == "port"
            ]
            first = min(p for gg, kk, p in ports if (gg, kk) == (g, k))
            if port != first:
                return [], []
            return [index[f"host:{m}:hba"] for m in box.members], []
        if kind == "array":
            return [index[f"port:{what}"]], []
        if kind == "lun":
            return [index[f"lun:{what}"]], []
        if kind == "controller":
            names = [n for n in self.rec.stations if n.startswith("array.controller")]
            return [], self._stations([n for n in names if "bandwidth" not in n])
        if kind == "pool":
            return [], self._stations([f"array.{what}.drives"])
        return [], []

    def _draw_curves(self) -> None:
        rec = self.rec
        t_ms = (rec.t - rec.t[0]) * 1e3
        iops = rec.iops()
        for ax, values, label in (
            (self.ax_iops, iops, "I/Os per second"),
            (self.ax_lat, rec.latency_ms, "mean latency (ms)"),
        ):
            ax.plot(t_ms, values, color="0.85", lw=1)
            ax.set_ylabel(label)
            top = np.nanmax(values) if np.isfinite(values).any() else 1.0
            ax.set_ylim(0, max(top, 1e-9) * 1.1)
            ax.grid(alpha=0.3)
        self.ax_lat.set_xlabel(f"simulated ms from t = {duration(float(rec.t[0]))}")
        (self.iops_line,) = self.ax_iops.plot([], [], color=FILL, lw=1.8)
        (self.lat_line,) = self.ax_lat.plot([], [], color=FULL, lw=1.8)
        self.cursors = [ax.axvline(0, color="black", lw=1) for ax in (self.ax_iops, self.ax_lat)]
        self.t_ms, self.iops = t_ms, iops

    # -- one frame -----------------------------------------------------------------------------

    def draw(self, i: int) -> Figure:
        """Put frame ``i`` on the figure and return it."""
        rec = self.rec
        for bar in self.bars:
            self._bar(bar, i)
        for line, stations in self.links:
            u = float(max((rec.busy[i, s] for s in stations), default=0.0))
            line.set_color(tuple(IDLE_LINE + (BUSY_LINE - IDLE_LINE) * u))
            line.set_linewidth(1 + 5 * u)
        self.flashes.set_offsets(self._flashes(i))
        self._dots(i)
        self.iops_line.set_data(self.t_ms[: i + 1], self.iops[: i + 1])
        self.lat_line.set_data(self.t_ms[: i + 1], rec.latency_ms[: i + 1])
        for cursor in self.cursors:
            cursor.set_xdata([self.t_ms[i]])
        qfull = int(rec.qfull[i].sum())
        splits = int(rec.splits[i])
        self.title.set_text(
            f"t = {duration(float(rec.t[i]))}   frame {i + 1}/{rec.frames}   "
            f"{int(rec.completed[i])} I/Os done"
            + (f", {qfull} QUEUE FULL" if qfull else "")
            + (f", {splits} split" if splits else "")
        )
        return self.fig

    def _bar(self, bar: _Bar, i: int) -> None:
        rec = self.rec
        if bar.stations:
            u = float(np.mean([rec.busy[i, s] for s in bar.stations]))
            bar.fill.set_width(0.72 * u)
            bar.fill.set_facecolor(FULL if u >= 0.95 else FILL)
            bar.text.set_text(f"busy {u:.0%}")
            return
        held = int(rec.held[i, bar.places].sum())
        waiting = int(rec.waiting[i, bar.places].sum())
        slots = float(rec.capacity[i, bar.places].sum())
        refused = int(rec.refused[i, bar.places].sum())
        if math.isfinite(slots) and slots > 0:
            share = min(held / slots, 1.0)
            text = f"{held:,}/{slots:,.0f} slots"
            if held > slots:  # a throttle lowered the limit below the slots still held
                text = f"{held:,} in use, limit {slots:,.0f}"
        else:
            peak = float(rec.held[:, bar.places].sum(axis=1).max())
            share = held / peak if peak > 0 else 0.0
            text = f"{held:,} in use"
        full = math.isfinite(slots) and slots > 0 and held >= slots
        bar.fill.set_width(0.72 * share)
        bar.fill.set_facecolor(FULL if full else FILL)
        if waiting:
            text += f"\n{waiting:,} waiting"
        if refused:
            text += f"{',' if waiting else chr(10)} {refused:,} QUEUE FULL"
        bar.text.set_text(text)
        bar.text.set_color(FULL if full or refused else "black")

    def _host_box(self, host: str) -> PathBox | None:
        for (kind, _), box in self.layout.boxes.items():
            if kind == "host" and host in box.members:
                return box
        return None

    def _flashes(self, i: int) -> np.ndarray:
        """QUEUE FULL answers of the last frames, one column nearer their host each frame."""
        rec = self.rec
        points = []
        ports = [b for (k, _), b in self.layout.boxes.items() if k == "array"]
        port_y = float(np.mean([b.y for b in ports])) if ports else 0.0
        for age in range(4):
            f = i - age
            if f < 0:
                break
            for h, host in enumerate(rec.hosts):
                if rec.qfull[f, h] <= 0:
                    continue
                box = self._host_box(host)
                if box is None:
                    continue
                share = age / 3
                points.append((3.0 - 3.0 * share + 0.0, port_y + (box.y - port_y) * share))
        return np.array(points) if points else np.empty((0, 2))

    def _dots(self, i: int) -> None:
        rec = self.rec
        t = float(rec.t[i])
        boxes = self.layout.boxes
        points, colours = [], []
        for j, journey in enumerate(rec.journeys):
            label = self.dot_labels[j]
            layer = journey.layer_at(t)
            host = self._host_box(journey.host)
            if layer is None or host is None:
                label.set_visible(False)
                continue
            x = COLUMN_OF_LAYER[layer]
            if x < 0.5:
                y = host.y
            elif x < 1.5:
                y = next(
                    b.y for (k, _), b in boxes.items() if k == "port" and journey.host in b.members
                )
            elif x < 2.5:
                y = boxes["fabric", 0].y
            elif x < 3.5:
                y = boxes["array", journey.port].y
            elif x < 4.5:
                y = boxes["controller", 0].y
            elif x < 5.5:
                y = boxes["lun", journey.lun].y
            else:
                pool = next(g.pool for g in self.scenario.array.luns if g.name == journey.lun)
                y = boxes["pool", pool].y
            colour = DOT_COLOURS[j % len(DOT_COLOURS)]
            for part in range(journey.parts):
                points.append((x + 0.12 * part, y - 0.3 + 0.02 * j))
                colours.append(colour)
            label.set_visible(journey.parts > 1)
            if journey.parts > 1:
                label.set_position((x + 0.12 * journey.parts, y - 0.3))
                label.set_text(f"{size(journey.size)} I/O = {journey.parts} commands")
        self.dots.set_offsets(np.array(points) if points else np.empty((0, 2)))
        self.dots.set_facecolor(colours if colours else "none")


def frame_indices(frames: int, wanted: int | None) -> list[int]:
    """``wanted`` frame numbers spread evenly over ``frames`` (all of them for None)."""
    if wanted is None or wanted >= frames:
        return list(range(frames))
    return [round(float(x)) for x in np.linspace(0, frames - 1, max(wanted, 1))]
