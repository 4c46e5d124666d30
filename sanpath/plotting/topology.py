"""The I/O path of a scenario as a picture: hosts, HBA ports, fabric, array ports, controller,
LUNs and pools (``sanpath plot SCENARIO.yaml --kind topology``, and the report's diagram).

The boxes come from the scenario and the lines from :class:`~sanpath.layout.Wiring`, the
same model of the wiring the simulator, the checks and the twin use: a line from an HBA
port to an array port is drawn when some LUN's I/O goes down that path (inactive failover
paths are dashed). A host group is drawn host by host, up to :data:`EACH_HOST` boxes, the
last one a stack of the hosts left over with their count. Given a run's
result, each box takes the utilization of its busiest station and names it (an array port's
queue as well as its links: a port whose queue is full while its link idles is red), red
from 80%.

This is the one plot drawn from a scenario rather than from results, so the plotting
package reads the scenario's specs and wiring (``spec`` and ``layout``) for it.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.lines import Line2D
from matplotlib.patches import FancyBboxPatch, Patch
from matplotlib.text import Text

from sanpath.layout import Wiring, nvme_queues, station_name
from sanpath.plotting.style import set_titles, subtitle
from sanpath.readable import duration, percent, rate, size
from sanpath.results import RunResult
from sanpath.spec import TRANSPORTS, Scenario, expand_names, load_line

__all__ = [
    "PathBox",
    "PathLayout",
    "draw_box",
    "path_layout",
    "path_line",
    "topology",
    "wrap_label",
]

COLUMNS = ("hosts", "HBA ports", "fabric", "array ports", "controller", "LUNs", "pools")
"""The columns of the diagram, left to right, as a command travels."""

HOT = 0.8
"""Utilization from which a box is drawn red."""

FONT_SIZE = 10
"""Points of a box's text (legible when the page scales the picture to its width)."""

WIDTH = 11.0
"""Inches of the picture: seven columns of boxes whose 10-point text stays legible (about
13 px) when a page shows the picture 1,000 px wide."""

LINE_CHARACTERS = 15
"""Characters a line of a box holds; longer lines break after a comma. Text that still does
not fit its box once drawn (a long station name) is shrunk to fit (:func:`fit_texts`)."""

TEXT_PAD = 0.06
"""Share of a box's width and height kept clear around its text."""

ROW_HEIGHT = 1.3
"""Inches per row of boxes (up to five lines of text)."""

EACH_HOST = 6
"""Host boxes a host group is drawn with at most in the still picture (the last one a stack
of the rest, with their count)."""

PART: dict[str, str] = {
    "host_queue": "LUN queues",
    "queue_pairs": "NVMe queues",
    "host_cpu": "CPUs",
    "hba_slots": "HBA slots",
    "hba_cpu": "HBA CPU",
    "pcie_down": "PCIe out",
    "pcie_up": "PCIe in",
    "host_link_out": "link out",
    "host_link_in": "link in",
    "port_queue": "queue",
    "port_link_in": "link in",
    "port_link_out": "link out",
    "controller": "cores",
    "controllers": "a controller",
    "controller_bandwidth": "bandwidth",
    "cross_controller": "cross link",
    "lun_queue": "queues",
    "drives": "drives",
}
"""What each station role is called inside its box (``busiest: queue 99%``)."""


HBA_ROLES = ("hba_slots", "hba_cpu", "pcie_down", "pcie_up", "host_link_out", "host_link_in")
"""The station roles of a host's HBA port box."""


@dataclass
class PathBox:
    """One box of the path picture: its column (:data:`COLUMNS`), text and place."""

    column: int
    label: str
    utilization: float | None = None
    busiest: str = ""
    """The part whose utilization the box shows."""
    y: float = 0.0
    stack: int = 1
    """How many like parts the box stands for (a host group's hosts), drawn as a stack."""
    members: tuple[str, ...] = ()
    """The host instances a host or HBA port box stands for."""


@dataclass
class PathLayout:
    """The placed boxes of the path picture, by key, and its lines: (from key, to key,
    solid); ``tallest`` is the number of boxes in the fullest column."""

    boxes: dict[tuple[str, object], PathBox]
    lines: set[tuple[tuple[str, object], tuple[str, object], bool]]
    tallest: int


def _depth(value: object) -> str:
    if value is None:
        return "no limit"
    return f"{value:,}" if isinstance(value, int) else str(value)


def _busiest(
    util: Mapping[str, float], roles: Sequence[tuple[str, Mapping[str, object]]]
) -> tuple[float | None, str]:
    """The busiest of the stations playing ``roles`` (each with its scope) in ``util``
    (station name -> utilization): (its utilization, its part's name in :data:`PART`), or
    (None, "") when the run had none of them."""
    found = [
        (util[name], PART[role])
        for role, scope in roles
        if (name := station_name(role, **scope)) in util and math.isfinite(util[name])
    ]
    if not found:
        return None, ""
    return max(found, key=lambda x: x[0])


def path_layout(
    scenario: Scenario, util: Mapping[str, float] | None = None, each_host: int = 0
) -> PathLayout:
    """The boxes and lines of ``scenario``'s path picture, placed; ``util`` (station name ->
    utilization) names each box's busiest station. ``each_host``: a host group of several
    hosts is drawn as one stack (0), or host by host, up to ``each_host`` boxes (the last a
    stack of the hosts left over, with their count)."""
    wiring = Wiring(scenario)
    util = {} if util is None else util
    boxes: dict[tuple[str, object], PathBox] = {}
    nvme = [TRANSPORTS[host.transport].nvme for host in scenario.hosts]
    shown = {g: _shown(host.name, host.count, each_host) for g, host in enumerate(scenario.hosts)}
    for g, host in enumerate(scenario.hosts):
        who = {"host": host.name}
        if nvme[g]:
            io_queues, queue_size = nvme_queues(scenario, g)
            queues = (
                f"{host.transport}\n{host.nvme.iopolicy}, {io_queues} queues x {queue_size - 1}"
            )
        else:
            scsi = "" if host.transport == "fcp" else f"{host.transport}, "
            queues = f"{scsi}{host.multipath}\nLUN queue {_depth(host.lun_queue_depth)}"
        for k, (hosts, members) in enumerate(shown[g]):
            boxes["host", (g, k)] = PathBox(
                0,
                f"{hosts}, {queues}",
                *_busiest(util, [("host_queue", who), ("queue_pairs", who), ("host_cpu", who)]),
                stack=len(members),
                members=members,
            )
            name = members[0] if len(members) == 1 and host.count > 1 else host.name
            for hp in wiring.host_ports[g]:
                hba = host.hbas[hp.hba]
                boxes["port", (g, k, hp.index)] = PathBox(
                    1,
                    f"{name} HBA{hp.card} port {hp.port}\n{rate(hba.speed)}"
                    + ("" if nvme[g] else f", queue {_depth(hba.queue_depth)}"),
                    *_busiest(util, [(role, who) for role in HBA_ROLES]),
                    stack=len(members),
                    members=members,
                )
    fabric = scenario.fabric
    boxes["fabric", 0] = PathBox(2, f"fabric\n{duration(fabric.one_way_latency)} one way")
    array = scenario.array
    for a in range(array.ports):
        port = {"port": a}
        boxes["array", a] = PathBox(
            3,
            f"port {a}\n{rate(array.port_speed)}"
            + ("" if all(nvme) else f", queue {_depth(array.port_queue_depth)}"),
            *_busiest(
                util, [("port_queue", port), ("port_link_in", port), ("port_link_out", port)]
            ),
        )
    cache = array.cache
    write_back = "no write cache" if not cache.write_back else size(cache.write_back)
    boxes["controller", 0] = PathBox(
        4,
        (
            f"controller x{array.controller.cores}"
            if array.controllers == 1
            else f"{array.controllers} controllers x {array.controller.cores}"
        )
        + f"\ncache: {write_back}",
        *_busiest(
            util,
            [(role, {}) for role in ("controller", "controller_bandwidth", "cross_controller")]
            + [("controllers", {"controller": c}) for c in range(array.controllers)],
        ),
    )
    for group in array.luns:
        boxes["lun", group.name] = PathBox(
            5,
            f"{group.name} x{group.count}"
            + ("" if all(nvme) else f"\nqueue {_depth(group.queue_depth)}"),
            *_busiest(util, [("lun_queue", {"lun": group.name})]),
        )
    for pool in array.pools:
        drive = _drive_label(pool.drive)
        boxes["pool", pool.name] = PathBox(
            6,
            f"{pool.name}: {pool.raid}\n{pool.drives * pool.groups} x {drive}",
            *_busiest(util, [("drives", {"pool": pool.name})]),
        )

    lines: set[tuple[tuple[str, object], tuple[str, object], bool]] = set()
    for g in range(len(scenario.hosts)):
        for k in range(len(shown[g])):
            for hp in wiring.host_ports[g]:
                lines.add((("host", (g, k)), ("port", (g, k, hp.index)), True))
                lines.add((("port", (g, k, hp.index)), ("fabric", 0), True))
    for paths in wiring.paths.values():
        for p in paths:
            lines.add((("fabric", 0), ("array", p.array_port), p.active))
    for a in range(array.ports):
        lines.add((("array", a), ("controller", 0), True))
    for place in wiring.luns:
        group = array.luns[place.group]
        lines.add((("controller", 0), ("lun", group.name), True))
        lines.add((("lun", group.name), ("pool", place.pool.name), True))
    # a line drawn solid once is solid
    solid = {(a, b) for a, b, active in lines if active}
    drawn = {(a, b, (a, b) in solid) for a, b, _ in lines}

    per_column: dict[int, list[PathBox]] = {}
    for box in boxes.values():
        per_column.setdefault(box.column, []).append(box)
    tallest = max(len(v) for v in per_column.values())
    for column in per_column.values():
        n = len(column)
        for i, box in enumerate(column):
            box.y = (tallest - 1) / 2 - (n - 1) / 2 + i
    return PathLayout(boxes, drawn, tallest)


def _shown(name: str, count: int, each_host: int) -> list[tuple[str, tuple[str, ...]]]:
    """The host boxes of a group ``name`` of ``count`` hosts: (label, host instances)."""
    instances = tuple(expand_names(name, count))
    if count == 1:
        return [(f"host {name}", instances)]
    if each_host <= 0:
        return [(f"{count} hosts {name}", instances)]
    if count <= each_host:
        return [(f"host {member}", (member,)) for member in instances]
    own = [(f"host {member}", (member,)) for member in instances[: each_host - 1]]
    rest = instances[each_host - 1 :]
    return [*own, (f"{len(rest)} more hosts {name}", rest)]


def topology(scenario: Scenario, result: RunResult | None = None) -> Figure:
    """The scenario's I/O path as boxes and lines (a new Figure), titled with the scenario
    and its load; with ``result``, the busy shares of the run on the array's parts."""
    util = {st.name: st.utilization for st in result.stations} if result is not None else {}
    layout = path_layout(scenario, util, each_host=EACH_HOST)
    boxes, drawn, tallest = layout.boxes, layout.lines, layout.tallest
    fig = Figure(figsize=(WIDTH, ROW_HEIGHT * tallest + 1.6), layout="constrained")
    ax = fig.add_subplot()
    for start, end, active in sorted(drawn, key=str):
        path_line(ax, boxes[start], boxes[end], active)
    placed = [draw_box(ax, box) for box in boxes.values()]
    for c, name in enumerate(COLUMNS):
        ax.text(c, -0.42, name, ha="center", va="bottom", fontsize=FONT_SIZE, weight="bold")
    ax.set_xlim(-0.5, len(COLUMNS) - 0.5)
    ax.set_ylim(tallest - 0.5, -0.75)
    ax.axis("off")
    note = (
        "each box shows its busiest station in the run, red from 80% busy"
        if result is not None
        else ""
    )
    set_titles(
        ax,
        "The I/O path: hosts, HBA ports, fabric, array ports, controller, LUNs, pools",
        subtitle(scenario.name, load_line(scenario), note),
        own_figure=True,
    )
    fit_texts(fig, placed)
    return fig


def fit_texts(fig: Figure, placed: Sequence[tuple[Text, Patch]]) -> None:
    """Shrink each text that, as matplotlib's renderer draws it, reaches beyond its box
    (less :data:`TEXT_PAD` on each side), so no text overflows; most need no change."""
    canvas = FigureCanvasAgg(fig)
    for _ in range(3):
        canvas.draw()  # type: ignore[no-untyped-call]
        renderer = canvas.get_renderer()  # type: ignore[no-untyped-call]
        shrunk = False
        for text, patch in placed:
            have = patch.get_window_extent(renderer)
            need = text.get_window_extent(renderer)
            if need.width <= 0 or need.height <= 0:
                continue
            room = min(
                have.width * (1 - 2 * TEXT_PAD) / need.width,
                have.height * (1 - 2 * TEXT_PAD) / need.height,
            )
            if room < 1.0:
                text.set_fontsize(float(text.get_fontsize()) * room * 0.98)
                shrunk = True
        if not shrunk:
            return


def _drive_label(drive: object) -> str:
    """A short name for a pool's drive model."""
    model = getattr(drive, "model", "")
    if model == "hdd":
        return f"{getattr(drive, 'rpm', 0) / 1000:g}k rpm HDD"
    if model == "ssd":
        return "SSD"
    return "textbook drive" if model == "textbook" else "drive"


def path_line(ax: Axes, src: PathBox, dst: PathBox, active: bool) -> Line2D:
    """The line from box ``src`` to box ``dst`` (dashed where no I/O takes it)."""
    (line,) = ax.plot(
        [src.column + 0.42, dst.column - 0.42],
        [src.y, dst.y],
        color="0.55" if active else "0.8",
        ls="-" if active else "--",
        lw=1,
        zorder=1,
    )
    return line


def draw_box(ax: Axes, box: PathBox) -> tuple[Text, Patch]:
    """Draw ``box`` on ``ax`` (a stack for several hosts; red from :data:`HOT` busy);
    returns its text and its front box, for :func:`fit_texts`."""
    hot = box.utilization is not None and box.utilization >= HOT
    face = "#f4c7c3" if hot else "#e8eef7"
    edge = "#c0392b" if hot else "#4477aa"
    label = box.label
    if box.utilization is not None:
        label += f"\nbusiest: {box.busiest} {percent(box.utilization)}"
    # a group of hosts: up to two more boxes peek out below the first, drawn behind it
    patches = [
        ax.add_patch(
            FancyBboxPatch(
                (box.column - 0.42 + 0.025 * k, box.y - 0.36 + 0.05 * k),
                0.84,
                0.72,
                boxstyle="round,pad=0.02",
                facecolor=face,
                edgecolor=edge,
                lw=1,
                zorder=2 - 0.1 * k,
            )
        )
        for k in range(max(min(box.stack, 3), 1) - 1, -1, -1)
    ]
    text = ax.text(
        box.column, box.y, wrap_label(label), ha="center", va="center", fontsize=FONT_SIZE, zorder=3
    )
    return text, patches[-1]


def wrap_label(label: str, width: int = LINE_CHARACTERS) -> str:
    """A box's text with lines longer than ``width`` broken after their commas (and, for a
    part still too long, between words), so it fits its column.

    >>> wrap_label("port 0\\n850 MB/s, queue 1,600")
    'port 0\\n850 MB/s,\\nqueue 1,600'
    """
    out: list[str] = []
    for line in label.split("\n"):
        current = ""
        for part in line.split(", "):
            joined = f"{current}, {part}" if current else part
            if len(joined) <= width or not current:
                current = joined
            else:
                out.extend(_balanced(current + ",", width))
                current = part
        out.extend(_balanced(current, width))
    return "\n".join(out)


def _balanced(text: str, width: int) -> list[str]:
    """``text`` in lines of at most ``width`` characters, as even as the words allow (no
    lone ``0`` under ``esx[00] HBA0 port``)."""
    lines = textwrap.wrap(text, width, break_long_words=False) or [""]
    if len(lines) > 1:
        even = textwrap.wrap(text, math.ceil(len(text) / len(lines)) + 1, break_long_words=False)
        if len(even) == len(lines):
            return even
    return lines
