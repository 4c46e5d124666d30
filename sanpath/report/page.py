"""The report page: one self-contained HTML file (no network, pictures inline as PNG).

:func:`build_report` runs what the page shows (the scenario, and when asked its headroom
and ``sanpath check`` with its simulated second opinions) and :func:`render` writes the page
from those answers in the order a reader acts on them: first the verdict
(:mod:`~sanpath.report.verdict`), then the findings to act on first with their fix, the
command to try it and its simulated effect, then the evidence: the scenario in words and as a
picture of its path, the headline figures with their 95% intervals, the bottleneck, where the
time goes, the hosts and how fairly they were served, the headroom, every finding of the
check in full and a sweep's curves. Figures are rounded for people
(:func:`sanpath.readable.figure`), intervals written as ``±%``.
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
from sanpath.advice import (
    CheckReport,
    Finding,
    SecondOpinion,
    effect,
    opinion_table,
    set_args,
    try_command,
)
from sanpath.plotting import per_host, set_titles, subtitle, topology
from sanpath.readable import figure, number, percent, plus_minus
from sanpath.report.verdict import (
    top_findings,
    verdict,
    write_cache_note,
)
from sanpath.report.words import scenario_in_words
from sanpath.results import (
    LAYER_LABELS,
    PERCENTILES,
    HeadroomResult,
    RunResult,
    SweepResult,
    beyond,
    shortfall_text,
    tail_note,
)
from sanpath.spec import Scenario

__all__ = ["Report", "render"]

STYLE = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1200px;
       color: #222; line-height: 1.45; padding: 0 1em; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; }
h2 { font-size: 1.25em; border-bottom: 1px solid #ccd; padding-bottom: 0.2em;
     margin-top: 1.8em; }
h3 { font-size: 1.05em; margin: 1.2em 0 0.3em; }
p.meta { color: #666; margin-top: 0; }
table { border-collapse: collapse; margin: 0.6em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccd; padding: 0.25em 0.6em; text-align: right; }
th { background: #eef2f8; }
td.text, th.text { text-align: left; }
.warning { background: #fdecea; border-left: 4px solid #c0392b; padding: 0.5em 1em; }
.ok { background: #eaf6ec; border-left: 4px solid #2e7d32; padding: 0.5em 1em; }
.verdict { font-size: 1.2em; font-weight: 600; padding: 0.6em 1em; }
.verdict.meets, .verdict.headroom { background: #eaf6ec; border-left: 6px solid #2e7d32; }
.verdict.at-risk { background: #fff6e0; border-left: 6px solid #e0a000; }
.verdict.fails, .verdict.saturated { background: #fdecea; border-left: 6px solid #c0392b; }
.finding { border: 1px solid #ccd; border-radius: 4px; padding: 0.2em 1em 0.6em;
           margin: 0.8em 0; }
.finding p { margin: 0.35em 0; }
code { background: #f6f8fa; padding: 0.1em 0.3em; font-size: 0.9em; }
figure { margin: 1em 0; }
figure img { max-width: 100%; height: auto; border: 1px solid #eee; }
figcaption { color: #555; font-size: 0.9em; }
.scroll { overflow-x: auto; }
pre { background: #f6f8fa; padding: 0.6em 1em; white-space: pre-wrap; font-size: 0.88em; }
"""


@dataclass
class Report:
    """What one report shows: the scenario, its run and the optional answers.

    ``source`` is the scenario's file as the reader named it, for the commands the page
    prints (empty when the scenario came from Python).
    """

    scenario: Scenario
    result: RunResult
    overrides: dict[str, Any] = field(default_factory=dict)
    headroom: HeadroomResult | None = None
    check: CheckReport | None = None
    sweep: SweepResult | None = None
    sweep_name: str = ""
    source: str = ""


def _esc(value: object) -> str:
    return html.escape(str(value), quote=True)


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


def _verdict(report: Report) -> str:
    v = verdict(report.result, report.headroom, report.check)
    notes = "".join(f"<li>{_esc(q)}</li>" for q in v.qualifiers)
    return (
        "<h2>Verdict</h2>"
        f'<p class="verdict {v.level.replace(" ", "-")}">{_esc(v.sentence)}</p>'
        + (f"<ul>{notes}</ul>" if notes else "")
    )


def _try_line(report: Report, check: CheckReport, f: Finding) -> str:
    command = try_command(check, f, report.source or None)
    return "" if command is None else f"<p><b>Try:</b> <code>{_esc(command)}</code></p>"


def _act_first(report: Report) -> str:
    c = report.check
    if c is None:
        return (
            "<h2>What to change first</h2><p>No check was run: <code>sanpath report FILE "
            "--check</code> adds the findings, each with its fix and the fix simulated.</p>"
        )
    first = top_findings(c)
    if not first:
        return "<h2>What to change first</h2><p>sanpath check found nothing to change.</p>"
    out = ["<h2>What to change first</h2>"]
    for f in first:
        op = f.second_opinion
        simulated = "" if op is None else f"<p><b>Effect:</b> {_esc(effect(op))}.</p>"
        out.append(
            '<div class="finding">'
            f"<h3>{_esc(f.severity.upper())} {_esc(f.rule)}: {_esc(f.title)}</h3>"
            f"<p><b>Fix:</b> {_esc(f.fix_text or 'see the finding under Check')}</p>"
            + _try_line(report, c, f)
            + simulated
            + "</div>"
        )
    more = len(c.findings) - len(first)
    if more > 0:
        out.append(
            f"<p>{more} more finding{'s' if more > 1 else ''} under Check, with the evidence "
            "below.</p>"
        )
    return "".join(out)


def _scenario(report: Report) -> str:
    items = "".join(f"<li>{_esc(s)}</li>" for s in scenario_in_words(report.scenario))
    fig = topology(report.scenario, report.result)
    return f"<h2>The scenario</h2><ul>{items}</ul>" + _figure(
        fig,
        "The I/O path as modelled: each box a part of the path, each line a way commands "
        "travel (dashed: a standby failover path). A box takes the colour of its busiest "
        "station in the run below, queues as well as links (red from 80%), and names it.",
        "diagram of the I/O path",
    )


def _tail_row(r: RunResult, key: str, label: str) -> tuple[str, ...]:
    """A latency percentile's row: its value when :data:`~sanpath.results.MIN_TAIL_IOS`
    measured I/Os lie beyond it, else why it is not shown."""
    note = tail_note(r.ios, key)
    if note is not None:
        return (label, "not shown", "", note)
    n = beyond(r.ios, PERCENTILES[key])
    return (
        label,
        figure(r.latency_ms[key]),
        "",
        f"the {n:,} slowest of {r.ios:,} I/Os lie beyond it",
    )


def _headline(report: Report) -> str:
    r = report.result
    lat = r.latency_ms
    rows = [
        ("IOPS", figure(r.iops), plus_minus(r.iops, r.ci95.get("iops")), ""),
        ("MB/s (10^6 bytes)", figure(r.mb_per_s), "", ""),
        (
            "mean latency (ms)",
            figure(lat["mean"]),
            plus_minus(lat["mean"], r.ci95.get("latency_ms_mean")),
            "",
        ),
        ("p50 latency (ms)", figure(lat["p50"]), "", ""),
        _tail_row(r, "p99", "p99 latency (ms)"),
        _tail_row(r, "p99_9", "p99.9 latency (ms)"),
        ("QUEUE FULL answers", number(r.counters["qfull"]), "", ""),
    ]
    state = (
        f'<p class="ok">Steady state: {number(r.ios)} I/Os measured over '
        f"{figure(r.sim_seconds)} simulated s after the warm-up; the intervals are 95% "
        "intervals from batch means.</p>"
        if r.steady
        else '<p class="warning">NOT STEADY STATE: these figures are not the long-run '
        "behaviour. Read the warnings before acting on them.</p>"
    )
    warnings = "".join(f'<p class="warning">{_esc(w)}</p>' for w in r.warnings)
    return (
        "<h2>Headline results</h2>"
        + state
        + warnings
        + _table(["figure", "value", "95% interval", "note"], rows)
    )


def _breakdown(report: Report) -> str:
    r = report.result
    total = sum(r.breakdown_ms.values()) or 1.0
    shown = {k: v for k, v in r.breakdown_ms.items() if v > 0}
    rows = [(LAYER_LABELS[k], figure(v), percent(v / total, digits=1)) for k, v in shown.items()]
    fig = Figure(figsize=(8, 0.35 * len(rows) + 1.2), layout="constrained")
    ax = fig.add_subplot()
    ax.barh([LAYER_LABELS[k] for k in shown][::-1], list(shown.values())[::-1], color="#4477aa")
    ax.set_xlabel("mean time per I/O (ms)")
    set_titles(
        ax,
        "Where an I/O's time goes, by layer of the path",
        subtitle(r.name, r.extra.get("workload")),
        own_figure=True,
    )
    cache = write_cache_note(r)
    return (
        "<h2>Where the time goes</h2>"
        + (f'<p class="warning">{_esc(cache)}</p>' if cache else "")
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
    if len(hosts) == 1:
        return (
            "<h2>Hosts</h2>"
            f"<p>One host, {_esc(hosts[0].name)}, carries the whole load: the headline "
            "figures are its own.</p>"
        )
    fair = r.fairness
    share = r.served
    hosts.sort(key=lambda g: share.get(g.name, math.nan))
    named = _esc(shortfall_text(r.short_of_demand, share))
    rows = [
        (
            g.name,
            figure(g.iops),
            percent(share.get(g.name, math.nan)),
            figure(g.mb_per_s),
            figure(g.latency_ms["mean"]),
            figure(g.latency_ms["p99"]),
            number(g.qfull),
        )
        for g in hosts[:most]
    ]
    more = (
        f"<p>The {most} least served of {len(hosts)} hosts are listed.</p>"
        if len(hosts) > most
        else ""
    )
    ax, _ = per_host(r)
    return (
        "<h2>Hosts</h2>"
        f"<p>{len(hosts)} hosts, least served first: a host is served by what it got over "
        "what it asked for (an open loop asks for its rate, a closed loop for its queue share "
        f"of what the closed loops completed). Jain's fairness index of those shares is "
        f"{figure(fair['jain'])} (1: every host got the same share of its demand); {named}. "
        "A host's percentiles come from its own, coarser histogram (within 0.8%).</p>"
        + _table(["host", "IOPS", "served", "MB/s", "mean ms", "p99 ms", "QUEUE FULL"], rows)
        + more
        + _figure(ax, "IOPS and p99 latency of each host.", "per-host bar chart")
    )


def _bottleneck(report: Report) -> str:
    ranking = report.result.bottlenecks
    if not ranking:
        return ""
    first = ranking[0]
    rows = [
        (b.kind, b.station, percent(b.utilization), percent(b.mean_utilization)) for b in ranking
    ]
    return (
        "<h2>Bottleneck</h2>"
        f"<p><b>{_esc(first.kind)}</b> ({_esc(first.station)}, busy "
        f"{percent(first.utilization)}): {_esc(first.meaning)}</p>"
        + _table(["component", "busiest station", "busy", "mean of its kind"], rows, 2)
    )


def _headroom(report: Report) -> str:
    h = report.headroom
    if h is None:
        return ""
    from sanpath.plotting import headroom as headroom_plot

    ax = headroom_plot(h)
    first = (
        f"<p>The load can grow <b>{_esc(h.answer_text)}</b> ({_esc(h.grow)}) before "
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


def _opinion(op: SecondOpinion, title: str) -> str:
    """A second opinion as a table, the figure the finding is about marked."""
    head = f"<p><b>{_esc(title)}:</b> simulated with seed {op.seed}, {number(op.ios)} I/Os each"
    if op.error is not None:
        return head + f"; the fixed scenario does not run: {_esc(op.error)}</p>"
    t = opinion_table(op)
    rows = [(label + (" \u25c0" if marked else ""), *cells) for label, cells, marked in t.rows]
    notes = "".join(f"<p>{_esc(n)}</p>" for n in t.notes)
    return head + ".</p>" + _table(["figure", *t.header], rows) + notes


def _finding(report: Report, c: CheckReport, f: Finding) -> str:
    """One finding in full, as ``sanpath check`` prints it."""
    parts = [f"<h3>{_esc(f.severity.upper())} {_esc(f.rule)}: {_esc(f.title)}</h3>"]
    if f.severity_note:
        parts.append(f"<p><b>Severity:</b> {_esc(f.severity_note)}</p>")
    parts.append(f"<p>{_esc(f.message)}</p>")
    parts.append(f"<p><b>Why:</b> {_esc(f.mechanism)}</p>")
    if f.fix_text:
        parts.append(f"<p><b>Fix:</b> {_esc(f.fix_text)}</p>")
    parts.append(_try_line(report, c, f))
    parts.append(f"<p><b>Source:</b> {_esc(f.source)}</p>")
    if f.second_opinion is not None:
        parts.append(_opinion(f.second_opinion, "Second opinion"))
    return '<div class="finding">' + "".join(parts) + "</div>"


def _check(report: Report) -> str:
    c = report.check
    if c is None:
        return ""
    if not c.findings:
        return '<h2>Check</h2><p class="ok">sanpath check found nothing to change.</p>'
    out = "<h2>Check</h2>" + "".join(_finding(report, c, f) for f in c.findings)
    if c.combined is not None:
        out += (
            "<h3>Every simulated fix together: "
            f"<code>{_esc(set_args(c.combined.fix))}</code></h3>"
            + _opinion(c.combined, "Second opinion")
        )
    return out


def _sweep(report: Report) -> str:
    s = report.sweep
    if s is None:
        return ""
    shown = s.summary().head(60)
    header = [str(c) for c in shown.columns]
    rows = [
        [figure(v) if isinstance(v, float) else str(v) for v in row]
        for row in shown.itertuples(index=False)
    ]
    out = f"<h2>Sweep {_esc(report.sweep_name)}</h2>" + _table(header, rows, len(s.keys))
    if s.keys:
        fig = s.plot.latency_vs_iops()
        out += _figure(fig, "Latency against IOPS over the sweep's points.", "sweep curve")
    return out


def render(report: Report) -> str:
    """The report page as HTML text: the verdict and what to change first, then the
    evidence."""
    sections = [
        _header(report),
        _verdict(report),
        _act_first(report),
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
