"""The I/O path of a scenario as a picture: hosts, HBA ports, fabric, array ports, controller,
LUNs and pools (``sanpath plot SCENARIO.yaml --kind topology``, and the report's diagram).

The boxes come from the scenario and the lines from :class:`~sanpath.layout.Wiring`, the
same model of the wiring the simulator, the checks and the twin use: a line from an HBA
port to an array port is drawn when some LUN's I/O goes down that path (inactive failover
paths are dashed). Given a run's result, the array ports, the controller and the pools show
their utilization, red from 80%.

This is the one plot drawn from a scenario rather than from results, so the plotting
package reads the scenario's specs and wiring (``spec`` and ``layout``) for it.
"""

from __future__ import annotations

from dataclasses import dataclass

from matplotlib.axes import Axes
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch

from sanpath.layout import Wiring, station_name
from sanpath.plotting.style import set_titles, subtitle
from sanpath.results import RunResult
from sanpath.spec import Scenario, load_line
from sanpath.units import format_bytes, format_rate

__all__ = ["topology"]

COLUMNS = ("hosts", "HBA ports", "fabric", "array ports", "controller", "LUNs", "pools")
"""The columns of the diagram, left to right, as a command travels."""

HOT = 0.8
"""Utilization from which a box is drawn red."""


@dataclass
class _Box:
    column: int
    label: str
    utilization: float | None = None
    y: float = 0.0


def _rate(value: float | None) -> str:
    return "unlimited" if value is None else format_rate(value)


def _depth(value: object) -> str:
    return "no limit" if value is None else str(value)


def topology(scenario: Scenario, result: RunResult | None = None) -> Figure:
    """The scenario's I/O path as boxes and lines (a new Figure), titled with the scenario
    and its load; with ``result``, the busy shares of the run on the array's parts."""
    wiring = Wiring(scenario)
    util = {st.name: st.utilization for st in result.stations} if result is not None else {}
    boxes: dict[tuple[str, object], _Box] = {}
    for g, host in enumerate(scenario.hosts):
        boxes["host", g] = _Box(
            0,
            f"{host.name} x{host.count}, {host.multipath}\nLUN queue "
            f"{_depth(host.lun_queue_depth)}",
        )
        for hp in wiring.host_ports[g]:
            hba = host.hbas[hp.hba]
            boxes["port", (g, hp.index)] = _Box(
                1,
                f"{host.name} HBA{hp.card} port {hp.port}\n{_rate(hba.speed)}, queue "
                f"{_depth(hba.queue_depth)}",
            )
    fabric = scenario.fabric
    boxes["fabric", 0] = _Box(2, f"fabric\n{fabric.one_way_latency * 1e6:.3g} us one way")
    array = scenario.array
    for a in range(array.ports):
        boxes["array", a] = _Box(
            3,
            f"port {a}\n{_rate(array.port_speed)}, queue {_depth(array.port_queue_depth)}",
            max(
                (
                    util[n]
                    for n in (
                        station_name("port_link_in", port=a),
                        station_name("port_link_out", port=a),
                    )
                    if n in util
                ),
                default=None,
            ),
        )
    cache = array.cache
    write_back = "no write cache" if not cache.write_back else f"{format_bytes(cache.write_back)}"
    boxes["controller", 0] = _Box(
        4,
        f"controller x{array.controller.cores}\ncache: {write_back}",
        util.get(station_name("controller")),
    )
    for group in array.luns:
        boxes["lun", group.name] = _Box(
            5, f"{group.name} x{group.count}\nqueue {_depth(group.queue_depth)}"
        )
    for pool in array.pools:
        drive = _drive_label(pool.drive)
        boxes["pool", pool.name] = _Box(
            6,
            f"{pool.name}: {pool.raid}\n{pool.drives * pool.groups} x {drive}",
            util.get(station_name("drives", pool=pool.name)),
        )

    lines: set[tuple[tuple[str, object], tuple[str, object], bool]] = set()
    for g in range(len(scenario.hosts)):
        for hp in wiring.host_ports[g]:
            lines.add((("host", g), ("port", (g, hp.index)), True))
            lines.add((("port", (g, hp.index)), ("fabric", 0), True))
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

    per_column: dict[int, list[_Box]] = {}
    for box in boxes.values():
        per_column.setdefault(box.column, []).append(box)
    tallest = max(len(v) for v in per_column.values())
    for members in per_column.values():
        n = len(members)
        for i, box in enumerate(members):
            box.y = (tallest - 1) / 2 - (n - 1) / 2 + i
    fig = Figure(figsize=(12, 0.75 * tallest + 1.3), layout="constrained")
    ax = fig.add_subplot()
    for start, end, active in sorted(drawn, key=str):
        src, dst = boxes[start], boxes[end]
        ax.plot(
            [src.column + 0.42, dst.column - 0.42],
            [src.y, dst.y],
            color="0.55" if active else "0.8",
            ls="-" if active else "--",
            lw=1,
            zorder=1,
        )
    for box in boxes.values():
        _draw_box(ax, box)
    for c, name in enumerate(COLUMNS):
        ax.text(c, -0.38, name, ha="center", va="bottom", fontsize=9, weight="bold")
    ax.set_xlim(-0.5, len(COLUMNS) - 0.5)
    ax.set_ylim(tallest - 0.5, -0.7)
    ax.axis("off")
    note = "busy shares from the run, red from 80%" if result is not None else ""
    set_titles(
        ax,
        "The I/O path: hosts, HBA ports, fabric, array ports, controller, LUNs, pools",
        subtitle(scenario.name, load_line(scenario), note),
        own_figure=True,
    )
    return fig


def _drive_label(drive: object) -> str:
    """A short name for a pool's drive model."""
    model = getattr(drive, "model", "")
    if model == "hdd":
        return f"{getattr(drive, 'rpm', 0) / 1000:g}k rpm HDD"
    if model == "ssd":
        return "SSD"
    return "textbook drive" if model == "textbook" else "drive"


def _draw_box(ax: Axes, box: _Box) -> None:
    hot = box.utilization is not None and box.utilization >= HOT
    face = "#f4c7c3" if hot else "#e8eef7"
    label = box.label
    if box.utilization is not None:
        label += f"\nbusy {100 * box.utilization:.0f}%"
    ax.add_patch(
        FancyBboxPatch(
            (box.column - 0.42, box.y - 0.3),
            0.84,
            0.6,
            boxstyle="round,pad=0.02",
            facecolor=face,
            edgecolor="#c0392b" if hot else "#4477aa",
            lw=1,
            zorder=2,
        )
    )
    ax.text(box.column, box.y, label, ha="center", va="center", fontsize=8, zorder=3)
