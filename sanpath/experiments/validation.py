"""The validation report: stored comparison records, and the page drawn from them.

``make validation`` runs every scenario's ``reference`` section (:func:`write_records`) and
keeps one small JSON record per experiment beside the page: each published figure with the
model's value and 95% interval, the band the write-up allows and the settings it was run at.
The page (:func:`render`) is written from those records and the scenarios' own text; its
pictures are drawn by the documentation build from the records (``sanpath plot RECORD.json
--kind compare``), so no picture is committed. :func:`stale_records` says where a record no
longer matches its scenario's reference section.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from sanpath.experiments.reference import (
    Comparison,
    band_of,
    compare,
    error_summary,
    measured_errors,
)
from sanpath.files import write_text
from sanpath.readable import figure, number, percent
from sanpath.spec import ReferencePointSpec, Scenario, load_line, load_scenario

__all__ = [
    "comparison_record",
    "read_record",
    "render",
    "stale_records",
    "write_records",
    "write_report",
]


def record_path(records: str | Path, scenario: str | Path) -> Path:
    """Where the record of the scenario file ``scenario`` is kept: ``RECORDS/STEM.json``."""
    return Path(records) / f"{Path(scenario).stem}.json"


def _settings(point: ReferencePointSpec) -> dict[str, Any]:
    """What a record keeps of a point's set-up besides its figures."""
    return {
        "set": json.loads(json.dumps(point.set, default=str)),
        "relative_to": point.relative_to,
        "window": list(point.window) if point.window is not None else None,
    }


def comparison_record(
    path: str | Path, scenario: Scenario, rows: Sequence[Comparison], ios: int | None = None
) -> dict[str, Any]:
    """The record of ``rows``, what :func:`~sanpath.experiments.reference.compare` returned
    for ``scenario`` (read from ``path``; ``ios``: the run length it was given, if any).

    Its keys: ``experiment`` (the scenario's name), ``scenario`` (the file), ``setup`` (its
    description), ``load`` (hosts, LUNs and workloads in one line), ``seed``, ``run`` (the
    reference section's run settings) and ``points``: each a
    :meth:`~sanpath.experiments.reference.Comparison.to_dict` with the point's ``set``,
    ``relative_to`` and ``window``.
    """
    if scenario.reference is None:
        raise ValueError("the scenario has no reference section")
    points = scenario.reference.points
    run = json.loads(json.dumps(scenario.reference.run, default=str))
    if ios is not None:
        run["ios"] = ios
    return {
        "experiment": scenario.name,
        "scenario": Path(path).as_posix(),
        "setup": scenario.description.strip(),
        "load": load_line(scenario),
        "seed": scenario.seed,
        "run": run,
        "points": [r.to_dict() | _settings(p) for r, p in zip(rows, points, strict=True)],
    }


def write_records(
    paths: Sequence[str | Path], records: str | Path, ios: int | None = None
) -> list[Path]:
    """Run every scenario of ``paths`` with a ``reference`` section and keep its record.

    Returns the records written (``records/STEM.json``); a record whose scenario is no
    longer listed or has no reference section is removed.
    """
    folder = Path(records)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for path in paths:
        scenario = load_scenario(path)
        if scenario.reference is None:
            continue
        rows = compare(scenario, ios=ios)
        data = comparison_record(path, scenario, rows, ios=ios)
        target = record_path(folder, path)
        write_text(target, json.dumps(data, indent=1, ensure_ascii=False) + "\n")
        written.append(target)
    for old in _records_in(folder):
        if old not in written:
            old.unlink()
    return written


def _records_in(folder: Path) -> list[Path]:
    """The records kept in ``folder`` (JSON files naming an experiment)."""
    found = []
    for path in sorted(folder.glob("*.json")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        if isinstance(data, dict) and "experiment" in data:
            found.append(path)
    return found


def read_record(path: str | Path) -> dict[str, Any]:
    """A record :func:`write_records` kept (its points as :class:`Comparison` dictionaries)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not isinstance(data.get("points"), list):
        raise ValueError(f"{path}: not a validation record (no 'points' list)")
    return data


def stale_records(paths: Sequence[str | Path], records: str | Path) -> list[str]:
    """Where the records disagree with the scenarios' reference sections, one line each.

    A scenario with a reference section needs a record; the record's experiment, set-up and
    points (label, metric, role, published figure, band and settings, in order) must be the
    scenario's; a record without such a scenario is stale too. An empty list: they agree.
    """
    problems = []
    expected: set[Path] = set()
    for path in paths:
        scenario = load_scenario(path)
        if scenario.reference is None:
            continue
        where = record_path(records, path)
        expected.add(where)
        if not where.exists():
            problems.append(f"{where}: missing (the scenario {path} has a reference section)")
            continue
        data = read_record(where)
        for key, value in (("experiment", scenario.name), ("setup", scenario.description.strip())):
            if data.get(key) != value:
                problems.append(f"{where}: {key} is not the scenario's")
        stored = data["points"]
        wanted = scenario.reference.points
        if [p.get("label") for p in stored] != [p.label for p in wanted]:
            problems.append(f"{where}: its points are not the scenario's (labels differ)")
            continue
        for kept, point in zip(stored, wanted, strict=True):
            for field, value in _static(point).items():
                if kept.get(field) != value:
                    problems.append(
                        f"{where}: point {point.label!r}: {field} {kept.get(field)!r}, "
                        f"the scenario says {value!r}"
                    )
    problems += [
        f"{old}: no scenario with a reference section writes it"
        for old in _records_in(Path(records))
        if old not in expected
    ]
    return problems


def _static(point: ReferencePointSpec) -> dict[str, Any]:
    """The fields of a point's record that come from the scenario, not from a run."""
    band = band_of(point)
    return {
        "metric": point.metric,
        "role": "base" if point.value is None else point.role,
        "published": point.value,
        "band": list(band) if band is not None else None,
        **_settings(point),
    }


def _sentence(text: str) -> str:
    return text[:1].upper() + text[1:]


def _section(
    path: str | Path, scenario: Scenario, rows: list[Comparison], record: str
) -> tuple[str, list[str]]:
    """The summary row and the section of one experiment (``record``: the record's path as
    the documentation source names it)."""
    ref = scenario.reference
    assert ref is not None
    passed = [r for r in rows if r.within is not None]
    within = sum(1 for r in passed if r.within)
    errors = measured_errors(rows)
    # one count of each role, for the summary's row and the section's sentence alike
    fitted = sum(1 for r in rows if r.role == "fitted")
    measured = sum(1 for r in rows if r.role == "measured")
    predicted = sum(1 for r in rows if r.role == "predicted")
    summary = (
        f"| [{scenario.name}](#{scenario.name}) | {len(passed)} | {within} of {len(passed)} | "
        f"{fitted} | {predicted} | "
        f"{percent(float(np.mean(errors)), digits=1) if errors else '-'} | "
        f"{percent(max(errors), digits=1) if errors else '-'} |"
    )
    lines = [
        f"## {scenario.name}",
        "",
        f"**Source.** {ref.source.strip()}",
        "",
        f"**Set-up.** {scenario.description.strip()} (`{Path(path).as_posix()}`)",
        "",
    ]
    if ref.calibrated:
        lines += ["**Calibrated** (what the write-up does not say):", ""]
        lines += [f"* `{k}`: {v}" for k, v in ref.calibrated.items()]
        lines.append("")
    on_own = f", {measured} measured on the system itself" if measured else ""
    lines += [
        f"{fitted} point(s) fitted, {predicted} predicted{on_own}. "
        f"{_sentence(error_summary(rows))}; {within} of {len(passed)} within their tolerance.",
        "",
        "| point | metric | role | published | model | error | ok |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        ok = "" if r.within is None else ("yes" if r.within else "**no**")
        published = number(r.published, 4) if math.isfinite(r.published) else "-"
        lines.append(
            f"| {r.label} | {r.metric} | {r.role} | {published} | "
            f"{figure(r.model)} | {percent(r.error, signed=True, digits=1)} | {ok} |"
        )
    stem = Path(record).stem
    lines += [
        "",
        f":::{{sanpath-plot}} sanpath plot {stem}.json --kind compare --out validation-{stem}.png",
        f":files: {record}",
        f":alt: {scenario.name}: each published figure as model over published, with the band "
        "the write-up allows",
        f":caption: {within} of {len(passed)} figures inside the band the write-up allows "
        "(grey): a marker is green inside it and red outside; a line through it is the model's "
        "95% interval, where the run gives one and it is wider than the marker.",
        ":::",
        "",
    ]
    if ref.mechanism:
        lines += [f"**Mechanism.** {ref.mechanism.strip()}", ""]
    if ref.disagreements:
        lines += [f"**Where the model still disagrees.** {ref.disagreements.strip()}", ""]
    return summary, lines


def render(paths: Sequence[str | Path], records: str | Path, markdown: str | Path) -> str:
    """The validation page (Markdown) for ``paths`` from their records under ``records``.

    Numbers come from the records, text from the scenarios; scenarios without a
    ``reference`` section are listed as not yet compared. ``markdown`` is where the page
    goes: the records and the included tables are named relative to it.
    """
    markdown = Path(markdown)
    folder = Path(records)
    lines = [
        "# Validation: the published experiments against the model",
        "",
        "Generated by `make validation` (`sanpath.experiments.validation.write_report`); every "
        "number below comes from that run. Errors are signed: (model - published) / published. "
        f"Each experiment's figures are kept in a record beside this page "
        f"(`{_relative(folder, markdown).as_posix()}/NAME.json`: each published figure, the "
        "model's value and 95% interval, the band, the settings), and the documentation build "
        "draws every picture from it with the command shown above the picture.",
        "",
    ]
    summary = [
        "| experiment | figures compared | within their band | fitted | predicted "
        "| mean \\|error\\| | max \\|error\\| |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    sections: list[str] = []
    pending = []
    for path in paths:
        scenario = load_scenario(path)
        if scenario.reference is None:
            pending.append(scenario)
            continue
        where = record_path(folder, path)
        rows = [Comparison.from_dict(p) for p in read_record(where)["points"]]
        row, section = _section(path, scenario, rows, _relative(where, markdown).as_posix())
        summary.append(row)
        sections += section
    summary += [f"| `{s.name}` | not yet compared | | | | | |" for s in pending]
    lines += [
        "## Summary",
        "",
        "Each experiment's published figures against the model: how many the scenario "
        "compares, how many fall within the band the write-up allows, how many were used to "
        "fit the model's unknowns and how many it predicts, and the mean and largest error "
        "over the measured figures (bounds such as *under 25 ms* left out). The sections "
        "below give every figure.",
        "",
        *summary,
        "",
        *sections,
    ]
    if pending:
        lines += ["## Not yet compared", ""]
        lines += [
            f"* `{s.name}`: runnable set-up, no published figures attached yet." for s in pending
        ]
        lines.append("")
    lines += _included(
        folder / "datasheets.md",
        markdown,
        "Profiles against their datasheets",
        "Each profile of today's hardware alone at its datasheet's conditions "
        "(`sanpath.experiments.datasheets`, written by `make validation`): flash drives' "
        "IOPS, depth-1 latency and sequential MB/s, HBAs' per-port IOPS and MB/s, all-flash "
        "arrays' controller ceilings. `sanpath profiles NAME` gives each figure's origin.",
    )
    lines += _included(
        folder / "transports.md",
        markdown,
        "Transports against published comparisons",
        "Each published comparison of transports rebuilt as a scenario whose only costs are "
        "the transports' (`sanpath.experiments.transports`, written by `make validation`). "
        "A `fitted` figure is one a default was taken from; a `predicted` one is checked "
        "against its band, and a miss is listed with its cause.",
    )
    return "\n".join(lines)


def write_report(
    paths: Sequence[str | Path],
    markdown: str | Path,
    records: str | Path,
    ios: int | None = None,
) -> str:
    """Run the experiments, keep their records under ``records`` and write the page.

    Returns the Markdown text (also written to ``markdown``); see :func:`write_records` and
    :func:`render`.
    """
    write_records(paths, records, ios=ios)
    text = render(paths, records, markdown)
    write_text(Path(markdown), text)
    return text


def _relative(path: Path, markdown: Path) -> Path:
    """``path`` as the page at ``markdown`` names it (relative where it can be)."""
    return path.relative_to(markdown.parent) if path.is_relative_to(markdown.parent) else path


def _included(table: Path, markdown: Path, title: str, text: str) -> list[str]:
    """A section of the report titled ``title`` that says ``text`` and includes ``table``
    (a page ``make validation`` writes), relative to the report where it can be."""
    return [
        f"## {title}",
        "",
        text,
        "",
        f"```{{include}} {_relative(table, markdown).as_posix()}",
        "```",
        "",
    ]
