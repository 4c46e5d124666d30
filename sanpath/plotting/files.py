"""Pictures as files: saving a figure, and the ``sanpath plot`` command's result files."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sanpath.files import InputError, atomic_path, check_output, read_input
from sanpath.plotting.breakdown import breakdown
from sanpath.plotting.comparison import comparison, comparison_points
from sanpath.plotting.curves import iops_vs_outstanding, latency_vs_iops
from sanpath.plotting.draw import AxesLike
from sanpath.plotting.fan_in import fan_in
from sanpath.plotting.headroom import headroom
from sanpath.plotting.per_host import per_host
from sanpath.plotting.run import dashboard, latency_cdf
from sanpath.plotting.tables import PlotInputError
from sanpath.plotting.topology import topology
from sanpath.plotting.transfer import transfer_size
from sanpath.results import HeadroomResult, SweepResult
from sanpath.spec import load_scenario

__all__ = ["KINDS", "picture_path", "plot_files", "save"]


def picture_path(path: str | Path, *, force: bool = False) -> Path:
    """Check a picture's path before drawing: ``.png`` added when it has no extension.

    Raises
    ------
    OutputError
        For a directory, a missing or unwritable directory, an existing file (unless
        ``force``), or an extension matplotlib cannot write (the message lists the ones it
        can).
    """
    path = Path(path)
    if not path.suffix and not path.is_dir():
        path = path.with_suffix(".png")
    formats = sorted(Figure().canvas.get_supported_filetypes())
    return check_output(path, tuple(f".{f}" for f in formats), "picture", force=force)


def save(fig_or_ax: Figure | Axes | AxesLike, path: str | Path, *, force: bool = False) -> Path:
    """Save the Figure of ``fig_or_ax`` (a Figure, an Axes or several) as PNG, atomically.

    dpi 120 and a tight bounding box; a path without extension gets ``.png`` (another
    extension, e.g. ``.svg``, picks that format; see :func:`picture_path`). An existing file
    is replaced only with ``force``. Returns the path written.
    """
    path = picture_path(path, force=force)
    with atomic_path(path, replace=force) as tmp:
        _figure_of(fig_or_ax).savefig(
            tmp, dpi=120, bbox_inches="tight", format=path.suffix[1:].lower()
        )
    return path


def _figure_of(target: Figure | Axes | AxesLike) -> Figure:
    if isinstance(target, Figure):
        return target
    if isinstance(target, Axes):
        fig = target.get_figure(root=True)
    else:
        flat = list(np.asarray(target, dtype=object).ravel())
        if not flat or not isinstance(flat[0], Axes):
            raise TypeError("expected a Figure, an Axes or a sequence of Axes")
        fig = flat[0].get_figure(root=True)
    if not isinstance(fig, Figure):
        raise TypeError("the Axes belongs to no Figure")
    return fig


KINDS = (
    "iops-vs-outstanding",
    "latency-vs-iops",
    "breakdown",
    "fan-in",
    "transfer-size",
    "dashboard",
    "exchange-dashboard",
    "cdf",
    "headroom",
    "per-host",
    "topology",
    "compare",
)
"""Plot kinds of ``sanpath plot --kind``."""


_RUN_KINDS = ("dashboard", "exchange-dashboard", "cdf", "headroom", "topology", "compare")


def plot_files(
    files: Sequence[str | Path],
    kind: str,
    out: str | Path,
    *,
    x: str | None = None,
    hue: str | None = None,
    port_queue_depth: int | None = None,
    commands_per_host: int | None = None,
    force: bool = False,
) -> Path:
    """Draw result files as one picture and save it (what ``sanpath plot`` runs).

    An existing ``out`` is refused before anything is read, unless ``force``.

    Sweep kinds read one table written by :meth:`SweepResult.save`; ``dashboard`` and
    ``exchange-dashboard`` read one run JSON and ``cdf`` one or more; ``headroom`` reads the
    JSON of ``sanpath headroom --json``; ``topology`` reads a scenario file (YAML);
    ``compare`` reads the JSON of ``sanpath compare --json`` or a validation record. Raises
    :class:`PlotInputError` (a ValueError) for files that cannot be plotted, and
    :class:`~sanpath.spec.scenario.ScenarioError` for a scenario that is not valid.
    """
    if kind not in KINDS:
        raise PlotInputError(f"unknown plot kind {kind!r}; choose from {', '.join(KINDS)}")
    paths = [Path(f) for f in files]
    if not paths:
        raise PlotInputError("give a result file")
    if len(paths) > 1 and kind != "cdf":
        raise PlotInputError(f"--kind {kind} draws one file; only cdf takes several")
    if kind in _RUN_KINDS and (x is not None or hue is not None):
        raise PlotInputError(f"--x and --hue apply to sweep plots, not {kind}")
    out = picture_path(out, force=force)
    target: Figure | Axes | tuple[Axes, ...]
    if kind == "topology":
        target = topology(load_scenario(paths[0]))
    elif kind == "cdf":
        runs = [_load_run(p) for p in paths]
        labels = [p.stem for p in paths]
        if len(set(labels)) < len(labels):
            labels = [str(p) for p in paths]
        target = latency_cdf(runs, labels=labels)
    elif kind == "headroom":
        target = headroom(_load_headroom(paths[0]))
    elif kind == "compare":
        target = _comparison(paths[0])
    elif kind == "per-host":
        if hue is not None:
            raise PlotInputError("--hue does not apply to per-host")
        target = _per_host(paths[0], x)
    elif kind in ("dashboard", "exchange-dashboard"):
        run = _load_run(paths[0])
        if not isinstance(run.get("timeseries"), dict):
            raise PlotInputError(f"{paths[0]}: the run has no time series; set run.record_interval")
        target = dashboard(run, times="exchange" if kind == "exchange-dashboard" else "latency")
    else:
        sweep = _load_sweep(paths[0])
        try:
            target = _sweep_plot(sweep, kind, x, hue, port_queue_depth, commands_per_host)
        except PlotInputError as exc:
            raise PlotInputError(f"{paths[0]}: {exc}") from None
    try:
        return save(target, out, force=force)
    except OSError as exc:
        raise PlotInputError(f"cannot write {out}: {exc}") from None


def _sweep_plot(
    sweep: SweepResult,
    kind: str,
    x: str | None,
    hue: str | None,
    port_queue_depth: int | None,
    commands_per_host: int | None,
) -> Axes | tuple[Axes, ...]:
    kwargs: dict[str, Any] = {}
    if x is not None:
        kwargs["x"] = x
    if hue is not None:
        kwargs["hue"] = hue
    if kind == "iops-vs-outstanding":
        return iops_vs_outstanding(sweep, **kwargs)
    if kind == "latency-vs-iops":
        if x is not None:
            kwargs["load"] = kwargs.pop("x")
        return latency_vs_iops(sweep, **kwargs)
    if kind == "breakdown":
        if hue is not None:
            raise PlotInputError("--hue does not apply to breakdown")
        return breakdown(sweep, **kwargs)
    if kind == "fan-in":
        return fan_in(
            sweep,
            port_queue_depth=port_queue_depth,
            commands_per_host=commands_per_host,
            **kwargs,
        )
    return transfer_size(sweep, **kwargs)


def _per_host(path: Path, x: str | None) -> tuple[Axes, ...]:
    """``per-host`` from a run JSON (one bar per host) or a sweep table (as hosts are added)."""
    try:
        data = json.loads(read_input(path, "run result")) if path.suffix == ".json" else None
    except InputError as exc:
        raise PlotInputError(str(exc)) from None
    except (OSError, ValueError):
        data = None
    try:
        if isinstance(data, dict) and "latency_cdf" in data:
            return per_host(data)
        return per_host(_load_sweep(path), x=x)
    except PlotInputError as exc:
        raise PlotInputError(f"{path}: {exc}") from None


def _load_sweep(path: Path) -> SweepResult:
    what = f"{path}: not a sweep table written by SweepResult.save (.csv or .json)"
    try:
        result = SweepResult.load(path)
    except InputError as exc:
        raise PlotInputError(str(exc)) from None
    except KeyError:
        hint = ""
        try:
            if "latency_cdf" in json.loads(path.read_text()):
                hint = "; it is a run JSON: use --kind dashboard or cdf"
        except (OSError, ValueError, TypeError):
            pass
        raise PlotInputError(what + hint) from None
    except (OSError, ValueError, TypeError) as exc:
        detail = " ".join(str(exc).split())
        raise PlotInputError(f"{what}: {detail}") from None
    if result.table.empty or "iops" not in result.table.columns:
        raise PlotInputError(f"{what} (no 'iops' column)")
    return result


def _load_headroom(path: Path) -> HeadroomResult:
    what = f"{path}: not a headroom result (from sanpath headroom --json)"
    try:
        payload = json.loads(read_input(path, "headroom result"))
    except InputError as exc:
        raise PlotInputError(str(exc)) from None
    except (OSError, ValueError) as exc:
        raise PlotInputError(f"{what}: {' '.join(str(exc).split())}") from None
    if not isinstance(payload, dict):
        raise PlotInputError(what)
    try:
        return HeadroomResult.from_dict(payload)
    except (KeyError, TypeError, ValueError):
        raise PlotInputError(what) from None


def _comparison(path: Path) -> Axes:
    """The picture of a comparison file (``sanpath compare --json``, or a validation record,
    titled with its experiment)."""
    data = _read_json(path, "comparison", "a comparison JSON")
    points = comparison_points(data, str(path))
    if not isinstance(data, dict):
        return comparison(points)
    name, load = data.get("experiment"), data.get("load")
    return comparison(
        points,
        name=name if isinstance(name, str) else None,
        load=load if isinstance(load, str) else None,
    )


def _read_json(path: Path, what: str, expected: str) -> Any:
    """The JSON in ``path`` (a ``what`` file); a file that cannot be read or parsed is a
    :class:`PlotInputError` saying it is not ``expected``."""
    try:
        return json.loads(read_input(path, what))
    except InputError as exc:
        raise PlotInputError(str(exc)) from None
    except (OSError, ValueError) as exc:
        detail = " ".join(str(exc).split())
        raise PlotInputError(f"{path}: not {expected}: {detail}") from None


def _load_run(path: Path) -> dict[str, Any]:
    payload = _read_json(path, "run result", "a run JSON (from sanpath run --json)")
    if not isinstance(payload, dict) or not isinstance(payload.get("latency_cdf"), dict):
        raise PlotInputError(f"{path}: not a run JSON (from sanpath run --json)")
    return payload
