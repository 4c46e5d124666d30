"""``sanpath predict``: the analytic twin alone, in milliseconds, with no simulation.

The figures of the twin (:mod:`sanpath.theory.twin`) in the shapes ``sanpath run`` prints:
IOPS, MB/s, the mean latency, where the time goes (``breakdown_ms``), the bottleneck and the
twin's notes. ``--vary`` prints a whole curve. Where the twin's assumptions break
(:func:`sanpath.theory.twin.caveats`) every figure says so beside it and the output names
why; a scheduled scenario is predicted phase by phase.
"""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import itertools
import json
import textwrap
from collections.abc import Sequence
from typing import Any

from sanpath.cli_commands.argtypes import add_set
from sanpath.cli_commands.exits import EXIT_OK
from sanpath.cli_commands.simulate import parse_overrides, parse_vary
from sanpath.readable import column_label, figure, number, percent

__all__ = ["add_predict_parser", "cmd_predict"]

WIDTH = 96
"""Characters per line of the notes."""

FLAG = "not reliable here (see: beyond the twin)"
"""What a figure of the twin says beside it where its assumptions break."""


def add_predict_parser(sub: Any) -> None:
    """The ``predict`` subcommand on the subparsers ``sub`` of :func:`sanpath.cli.main`."""
    p = sub.add_parser(
        "predict", help="the analytic twin alone: IOPS, latency and bottleneck in milliseconds"
    )
    p.add_argument("file", metavar="FILE", help="a scenario file (YAML)")
    add_set(p, "change a field before predicting, e.g. hosts.0.count=32")
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="predict a curve: vary a dotted key over values, as sanpath sweep --vary "
        "(repeatable; every combination)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")


def _parse_points(items: Sequence[str]) -> list[dict[str, Any]]:
    """``--vary`` items -> every combination of their values, as dotted overrides."""
    axes: list[list[dict[str, Any]]] = []
    for key, values in parse_vary(items).items():
        keys = key if isinstance(key, tuple) else (key,)
        axes.append([dict(zip(keys, v if isinstance(key, tuple) else (v,), strict=True))
                     for v in values])  # fmt: skip
    return [{k: v for part in combo for k, v in part.items()} for combo in itertools.product(*axes)]


def _as_dict(scenario: Any, prediction: Any) -> dict[str, Any]:
    """One prediction in the keys of ``sanpath run --json`` where they mean the same."""
    from sanpath.theory.twin import caveats

    out = prediction.to_dict()
    mean = out.pop("latency_ms_mean")
    found = caveats(scenario, prediction)
    return {
        "iops": out.pop("iops"),
        "mb_per_s": out.pop("mb_per_s"),
        "latency_ms": {"mean": mean},
        **out,
        "applies": not found,
        "caveats": found,
    }


def _item(text: str) -> str:
    """A list item wrapped to the width ``sanpath run`` writes."""
    return textwrap.fill(text, WIDTH, initial_indent="  - ", subsequent_indent="    ")


def _text(scenario: Any, prediction: Any, indent: str = "") -> list[str]:
    from sanpath.theory.twin import caveats

    found = caveats(scenario, prediction)
    flag = f"   {FLAG}" if found else ""
    busy = prediction.utilization.get(prediction.bottleneck, 0.0)
    lines = [
        f"  IOPS      {figure(prediction.iops):>10}{flag}",
        f"  MB/s      {figure(prediction.mb_per_s):>10}   (10^6 bytes/s){flag}",
        "",
        "latency (ms)",
        f"  mean      {figure(prediction.latency_ms_mean):>10}{flag}",
    ]
    layers = {k: v for k, v in prediction.breakdown_ms.items() if v > 0}
    total = sum(layers.values())
    if layers and total > 0:
        lines += ["", "where the time goes (mean ms per I/O)"]
        for layer, ms in sorted(layers.items(), key=lambda kv: -kv[1]):
            lines.append(f"  {column_label(layer):<14}{figure(ms):>10}  {percent(ms / total):>5}")
    lines += ["", f"bottleneck: {prediction.bottleneck} (utilization {percent(busy)})"]
    if prediction.population is not None:
        lines.append(f"  {number(prediction.population)} commands inside the path")
    if found:
        lines += ["", "beyond the twin (simulate it: sanpath run FILE):"]
        lines += [_item(text) for text in found]
    if prediction.notes:
        lines += ["", "the twin's approximations:"]
        lines += [_item(note) for note in prediction.notes]
    return [indent + line if line else line for line in lines]


def _curve(base: Any, points: list[dict[str, Any]], as_json: bool) -> str:
    from sanpath.theory.twin import predict_many

    predictions = predict_many(base, points)
    scenarios = [base.with_overrides(point) for point in points]
    if as_json:
        rows = [
            {"point": point, **_as_dict(s, p)}
            for point, s, p in zip(points, scenarios, predictions, strict=True)
        ]
        return json.dumps({"name": base.name, "analytic": True, "points": rows}, indent=2)
    from sanpath.theory.twin import caveats

    keys = list(points[0])
    header = [*keys, "IOPS", "MB/s", "mean ms", "bottleneck", "utilization", "applies"]
    cells = []
    flagged: dict[str, list[str]] = {}
    for point, s, p in zip(points, scenarios, predictions, strict=True):
        found = caveats(s, p)
        label = ", ".join(f"{k}={v}" for k, v in point.items())
        for text in found:
            flagged.setdefault(text, []).append(label)
        cells.append(
            [
                *(str(point[k]) for k in keys),
                figure(p.iops),
                figure(p.mb_per_s),
                figure(p.latency_ms_mean),
                p.bottleneck,
                percent(p.utilization.get(p.bottleneck, 0.0)),
                "no" if found else "yes",
            ]
        )
    numeric = (False,) * len(keys) + (True, True, True, False, True, False)
    widths = [max(len(row[i]) for row in [header, *cells]) for i in range(len(header))]
    lines = [f"scenario {base.name}  analytic twin (no simulation)"]
    for row in [header, *cells]:
        lines.append(
            "  ".join(
                c.rjust(w) if right else c.ljust(w)
                for c, w, right in zip(row, widths, numeric, strict=True)
            ).rstrip()
        )
    if flagged:
        lines += [
            "",
            "beyond the twin (applies = no; simulate them: sanpath sweep FILE --vary ...):",
        ]
        for text, labels in flagged.items():
            lines.append(_item(f"{text} (at {len(labels)} of {len(points)} points)"))
    return "\n".join(lines)


def cmd_predict(args: argparse.Namespace) -> int:
    """Print the twin's prediction of a scenario (each phase of a scheduled one), or a curve."""
    from sanpath.spec import load_scenario
    from sanpath.theory.twin import phases, predict

    scenario = load_scenario(args.file, parse_overrides(args.overrides))
    if args.vary:
        if scenario.schedule:
            raise ValueError(
                f"{args.file}: --vary predicts one setting per point, and the schedule changes "
                "the settings during the run; give --set schedule=[] to vary the settings at "
                "time zero"
            )
        points = _parse_points(args.vary)
        print(_curve(scenario, points, args.json))
        return EXIT_OK
    parts = phases(scenario)
    predictions = [predict(part.scenario) for part in parts]
    if args.json:
        body: dict[str, Any] = {"name": scenario.name, "analytic": True}
        if len(parts) == 1:
            body.update(_as_dict(parts[0].scenario, predictions[0]))
        else:
            body["phases"] = [
                {"from_s": part.start_s, "set": part.changes, **_as_dict(part.scenario, p)}
                for part, p in zip(parts, predictions, strict=True)
            ]
        print(json.dumps(body, indent=2))
        return EXIT_OK
    lines = [f"scenario {scenario.name}  analytic twin (mean-value prediction, no simulation)"]
    if len(parts) == 1:
        lines += _text(parts[0].scenario, predictions[0])
    else:
        lines.append(f"  a schedule of {len(parts)} phases, each predicted at its own settings")
        for i, (part, p) in enumerate(zip(parts, predictions, strict=True), 1):
            changes = ", ".join(f"{k}={v}" for k, v in part.changes.items()) or "as the file"
            lines += ["", f"phase {i} of {len(parts)}: from {number(part.start_s)} s ({changes})"]
            lines += _text(part.scenario, p, indent="  ")
    print("\n".join(lines))
    return EXIT_OK
