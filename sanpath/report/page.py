"""The report page: one self-contained HTML file (no network, pictures inline as PNG).

:func:`build_report` runs what the page shows (the scenario, and when asked its headroom
and ``sanpath check``) and :func:`render` writes the page from those answers, section by
section: the scenario in words and as a picture of its path, the headline figures with their
95% intervals, where the time goes, the hosts and how fairly they were served, the
bottleneck, the headroom, the check's findings and a sweep's curves.
"""

from __future__ import annotations

import base64
import datetime as dt
import html
import io
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from matplotlib.axes import Axes
from matplotlib.figure import Figure

from sanpath._version import __version__
from sanpath.advice import CheckReport
from sanpath.plotting import per_host, set_titles, subtitle, topology
from sanpath.report.words import scenario_in_words
from sanpath.results import LAYER_LABELS, HeadroomResult, RunResult, SweepResult
from sanpath.spec import Scenario

__all__ = ["Report", "render"]

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccd; padding-bottom: 0.2em;
     margin-top: 1.8em; }
p.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccd; padding: 0.25em 0.6em; text-align: right; }
th { background: #eef2f8; }
td.text, th.text { text-align: left; }
.warning { background: #fdecea; border-left: 4px solid #c0392b; padding: 0.5em 1em; }
.ok { background: #eaf6ec; border-left: 4px solid #2e7d32; padding: 0.5em 1em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
.scroll { overflow-x: auto; }
pre { background: #f6f8fa; padding: 0.6em 1em; white-space: pre-wrap; font-size: 0.88em; }
"""


@dataclass
class Report:
    """What one report shows: the scenario, its run and the optional answers."""

    scenario: Scenario
    result: RunResult
    overrides: dict[str, Any] = field(default_factory=dict)
    headroom: HeadroomResult | None = None
    check: CheckReport | None = None
    sweep: SweepResult | None = None
    sweep_name: str = ""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


def _num(value: float, digits: int = 1) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return f"{value:,.{digits}f}"


def _table(header: Sequence[str], rows: Iterable[Sequence[object]], text_columns: int = 1) -> str:
    head = "".join(
        f'<th class="text">{_esc(h)}</th>' if i < text_columns else f"<th>{_esc(h)}</th>"
        for i, h in enumerate(header)
    )
    body = []
    for row in rows:
        cells = "".join(
            f'<td class="text">{_esc(c)}</td>' if i < text_columns else f"<td>{_esc(c)}</td>"
            for i, c in enumerate(row)
        )
        body.append(f"<tr>{cells}</tr>")
    return f'<div class="scroll"><table><tr>{head}</tr>{"".join(body)}</table></div>'


def _figure(target: Figure | Axes, caption: str, alt: str) -> str:
    fig = target if isinstance(target, Figure) else target.get_figure(root=True)
    if not isinstance(fig, Figure):
        raise TypeError("the Axes belongs to no Figure")
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=110)
    data = base64.b64encode(buffer.getvalue()).decode("ascii")
    return (
        f'<figure><img src="data:image/png;base64,{data}" alt="{_esc(alt)}">'
        f"<figcaption>{_esc(caption)}</figcaption></figure>"
    )


def _header(report: Report) -> str:
    r = report.result
    over = ", ".join(f"{k}={v}" for k, v in report.overrides.items()) or "none"
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    return (
        f"<h1>{_esc(report.scenario.name)}: what the model predicts</h1>"
        f'<p class="meta">sanpath {_esc(__version__)}, seed {r.seed}, overrides: '
        f"{_esc(over)}; written {stamp}</p>"
    )


def _scenario(report: Report) -> str:
    items = "".join(f"<li>{_esc(s)}</li>" for s in scenario_in_words(report.scenario))
    fig = topology(report.scenario, report.result)
    return f"<h2>The scenario</h2><ul>{items}</ul>" + _figure(
        fig,
        "The I/O path as modelled: each box a part of the path, each line a way commands "
        "travel (dashed: a standby failover path). Busy shares come from the run below.",
        "diagram of the I/O path",
    )


def _headline(report: Report) -> str:
    r = report.result
    lo, hi = r.ci95["iops"]
    llo, lhi = r.ci95["latency_ms_mean"]
    lat = r.latency_ms
    rows = [
        ("IOPS", _num(r.iops), f"{_num(lo)} to {_num(hi)}"),
        ("MB/s (10^6 bytes)", _num(r.mb_per_s, 2), ""),
        ("mean latency (ms)", _num(lat["mean"], 3), f"{_num(llo, 3)} to {_num(lhi, 3)}"),
        ("p50 latency (ms)", _num(lat["p50"], 3), ""),
        ("p99 latency (ms)", _num(lat["p99"], 3), ""),
        ("p99.9 latency (ms)", _num(lat["p99_9"], 3), ""),
        ("QUEUE FULL answers", f"{r.counters['qfull']:,}", ""),
    ]
    state = (
        '<p class="ok">Steady state: the figures are the long-run behaviour of this '
        f"configuration ({r.ios:,} I/Os measured over {r.sim_seconds:.3g} simulated s).</p>"
        if r.steady
        else '<p class="warning">NOT STEADY STATE: these figures are not the long-run '
        "behaviour. Read the warnings before acting on them.</p>"
    )
    warnings = "".join(f'<p class="warning">{_esc(w)}</p>' for w in r.warnings)
    return (
        "<h2>Headline results</h2>"
        + state
        + warnings
        + _table(["figure", "value", "95% interval"], rows)
    )


def _breakdown(report: Report) -> str:
    r = report.result
    total = sum(r.breakdown_ms.values()) or 1.0
    rows = [
        (LAYER_LABELS[k], _num(v, 4), f"{100 * v / total:.1f}%")
        for k, v in r.breakdown_ms.items()
        if v > 0
    ]
    fig = Figure(figsize=(8, 0.35 * len(rows) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    labels = [row[0] for row in rows][::-1]
    values = [r.breakdown_ms[k] for k in r.breakdown_ms if r.breakdown_ms[k] > 0][::-1]
    ax.barh(labels, values, color="#4477aa")
    ax.set_xlabel("mean time per I/O (ms)")
    set_titles(
        ax,
        "Where an I/O's time goes, by layer of the path",
        subtitle(r.name, r.extra.get("workload")),
        own_figure=True,
    )
    return (
        "<h2>Where the time goes</h2>"
        + _table(["layer", "mean ms per I/O", "share"], rows)
        + _figure(
            fig,
            "Mean time per I/O in each layer; the bars add up to the mean latency.",
            "bar chart of the latency breakdown",
        )
    )


def _hosts(report: Report, most: int = 40) -> str:
    r = report.result
    hosts = sorted(r.groups.get("hosts", {}).values(), key=lambda g: g.iops)
    if not hosts:
        return ""
    fair = r.fairness
    rows = []
    for g in hosts[:most]:
        lat = g.latency_ms
        rows.append(
            (
                g.name,
                _num(g.iops),
                _num(g.mb_per_s, 2),
                _num(lat["mean"], 3),
                _num(lat["p99"], 3),
                f"{g.qfull:,}",
            )
        )
    more = (
        f"<p>The {most} least served of {len(hosts)} hosts are listed.</p>"
        if len(hosts) > most
        else ""
    )
    out = (
        "<h2>Hosts</h2>"
        f"<p>{len(hosts)} host{'s' if len(hosts) > 1 else ''}, least served first. Jain's "
        f"fairness index {_num(fair['jain'], 3)} (1 is perfectly even); the busiest host "
        f"does {_num(fair['max_min'], 2)} times the IOPS of the least served.</p>"
        + _table(["host", "IOPS", "MB/s", "mean ms", "p99 ms", "QUEUE FULL"], rows)
        + more
    )
    if len(hosts) > 1:
        ax, _ = per_host(r)
        out += _figure(ax, "IOPS and p99 latency of each host.", "per-host bar chart")
    return out


def _bottleneck(report: Report) -> str:
    ranking = report.result.bottlenecks
    if not ranking:
        return ""
    first = ranking[0]
    rows = [
        (b.kind, b.station, f"{100 * b.utilization:.0f}%", f"{100 * b.mean_utilization:.0f}%")
        for b in ranking
    ]
    return (
        "<h2>Bottleneck</h2>"
        f"<p><b>{_esc(first.kind)}</b> ({_esc(first.station)}, busy "
        f"{100 * first.utilization:.0f}%): {_esc(first.meaning)}</p>"
        + _table(["component", "busiest station", "busy", "mean of its kind"], rows, 2)
    )


def _headroom(report: Report) -> str:
    h = report.headroom
    if h is None:
        return ""
    from sanpath.plotting import headroom as headroom_plot

    ax = headroom_plot(h)
    first = (
        f"<p>The load can grow <b>x{h.growth:.3g}</b> ({_esc(h.grow)}) before "
        f"{_esc(h.binding)} breaks; the {_esc(h.bottleneck)} saturates first. "
        f"{_esc(h.meaning)}</p>"
    )
    text = first + f"<pre>{_esc(h.summary())}</pre>"
    return (
        "<h2>Headroom</h2>"
        + text
        + _figure(
            ax,
            "Latency against growth of the load, with the SLO line, the knee "
            "and the answer marked.",
            "headroom curve",
        )
    )


def _check(report: Report) -> str:
    c = report.check
    if c is None:
        return ""
    if not c.findings:
        return '<h2>Check</h2><p class="ok">sanpath check found nothing to change.</p>'
    rows = [(f.severity, f.rule, f.title, f.message) for f in c.findings]
    return "<h2>Check</h2>" + _table(["severity", "rule", "finding", "why"], rows, 4)


def _sweep(report: Report) -> str:
    s = report.sweep
    if s is None:
        return ""
    table = s.summary()
    shown = table.head(60)
    header = [str(c) for c in shown.columns]
    rows = [[_cell(v) for v in row] for row in shown.itertuples(index=False)]
    out = f"<h2>Sweep {_esc(report.sweep_name)}</h2>" + _table(header, rows, len(s.keys))
    if s.keys:
        fig = s.plot.latency_vs_iops()
        out += _figure(fig, "Latency against IOPS over the sweep's points.", "sweep curve")
    return out


def _cell(value: object) -> str:
    if isinstance(value, float):
        return _num(value, 3 if abs(value) < 100 else 1)
    return str(value)


def render(report: Report) -> str:
    """The report page as HTML text."""
    sections = [
        _header(report),
        _scenario(report),
        _headline(report),
        _bottleneck(report),
        _breakdown(report),
        _hosts(report),
        _headroom(report),
        _check(report),
        _sweep(report),
    ]
    title = _esc(f"sanpath report: {report.scenario.name}")
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1"><title>{title}'
        f"</title><style>{STYLE}</style></head><body>{''.join(sections)}</body></html>\n"
    )
