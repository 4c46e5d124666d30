"""``sanpath run``, ``sweep`` and ``compare``: simulate a scenario and print the results."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import importlib
import json
import sys
from collections.abc import Sequence
from typing import Any

from sanpath.cli_commands import EXIT_OK


def parse_overrides(items: Sequence[str]) -> dict[str, Any]:
    """``--set KEY=VALUE`` items -> {dotted key: value}."""
    from sanpath.spec import parse_assignment

    out: dict[str, Any] = {}
    for item in items:
        key, value = parse_assignment(item)
        out[key] = value
    return out


def _in_file(exc: Exception, file: str) -> Exception:
    """A ScenarioError about a loaded scenario, located in ``file`` (line and column)."""
    from sanpath.spec import ScenarioError

    return exc.in_file(file) if isinstance(exc, ScenarioError) else exc


def cmd_run(args: argparse.Namespace) -> int:
    from sanpath.sim import budget, run
    from sanpath.spec import load_scenario
    from sanpath.theory.explain import explain

    overrides = parse_overrides(args.overrides)
    scenario = load_scenario(args.file, overrides)
    if not args.force:
        budget.check(scenario, source=args.file)
    result = run(scenario, seed=args.seed, replicate=args.replicate, force=True, progress=None)
    result = explain(scenario, result)
    twin = None
    if args.analytic:
        from sanpath.theory.twin import predict

        twin = predict(scenario)
    if args.json:
        if twin is None:
            print(result.to_json())
        else:
            print(json.dumps({**result.to_dict(), "analytic": twin.to_dict()}, indent=2))
    else:
        print(result.summary())
        if twin is not None:
            print()
            print(twin.summary())
            for key, sim, model in (
                ("IOPS", result.iops, twin.iops),
                ("MB/s", result.mb_per_s, twin.mb_per_s),
                ("latency ms", result.latency_ms["mean"], twin.latency_ms_mean),
            ):
                error = model / sim - 1.0 if sim else float("nan")
                print(f"  {key:<11} simulated {sim:12.4g}   twin {model:12.4g}   ({error:+.1%})")
    return EXIT_OK


def _parse_vary(items: Sequence[str]) -> dict[Any, list[Any]]:
    """``key=v1,v2`` -> {key: [v1, v2]}; ``k1,k2=a1:b1,a2:b2`` -> {(k1, k2): [(a1, b1), ...]}."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="safe")

    def scalar(text: str) -> Any:
        text = text.strip()
        return yaml.load(text) if text else None

    grid: dict[Any, list[Any]] = {}
    for item in items:
        if "=" not in item:
            raise ValueError(f"--vary expects KEY=V1,V2,..., got {item!r}")
        left, _, right = item.partition("=")
        keys = [k.strip() for k in left.split(",")]
        values = right.split(",")
        if not right.strip():
            raise ValueError(f"--vary {left}: give at least one value")
        if len(keys) == 1:
            grid[keys[0]] = [scalar(v) for v in values]
        else:
            points = []
            for v in values:
                parts = v.split(":")
                if len(parts) != len(keys):
                    raise ValueError(
                        f"--vary {left}: each value needs {len(keys)} parts separated by ':', "
                        f"got {v!r}"
                    )
                points.append(tuple(scalar(x) for x in parts))
            grid[tuple(keys)] = points
    return grid


def cmd_sweep(args: argparse.Namespace) -> int:
    from sanpath.experiments.sweep import DEFAULT_CACHE, sweep
    from sanpath.spec import ScenarioError, load_scenario

    scenario = load_scenario(args.file, parse_overrides(args.overrides))
    grid = _parse_vary(args.vary) or None
    if grid is None and scenario.sweep is None:
        raise ValueError(f"{args.file}: no --vary given and the scenario has no sweep section")
    executor = None
    client = None
    if args.scheduler:
        try:
            distributed: Any = importlib.import_module("distributed")
        except ImportError:
            raise ValueError("--scheduler needs Dask: pip install sanpath[distributed]") from None
        client = distributed.Client(args.scheduler)
        executor = client.get_executor()
    try:
        result = sweep(
            scenario,
            grid,
            replicates=args.replicates,
            executor=executor,
            jobs=args.jobs,
            progress=not args.quiet,
            cache=None if args.no_cache else DEFAULT_CACHE,
            out=args.out,
            force=args.force,
        )
    except ScenarioError as exc:
        raise _in_file(exc, args.file) from None
    finally:
        if client is not None:
            client.close()
    columns = [
        *result.keys,
        "replicate",
        "iops",
        "mb_per_s",
        "latency_ms_mean",
        "latency_ms_p99",
        "qfull",
        "steady",
    ]
    if not result.table.empty:
        print(
            result.table[[c for c in columns if c in result.table.columns]].to_string(
                index=False, float_format=lambda x: f"{x:.4g}"
            )
        )
        _warn_unsteady(result.table, result.keys)
    if args.out:
        print(f"table written to {args.out}")
    if not result.complete:
        print("sweep interrupted: the table holds the points finished so far", file=sys.stderr)
        return 130
    return EXIT_OK


def _warn_unsteady(table: Any, keys: Sequence[str]) -> None:
    """Name, on standard error, every sweep point whose figures are not steady state."""
    if "steady" not in table.columns:
        return
    bad = table[~table["steady"].astype(bool)]
    if bad.empty:
        return
    print(
        f"NOT STEADY STATE at {len(bad)} of {len(table)} points (their figures are not steady "
        "state; the table's steady column marks them):",
        file=sys.stderr,
    )
    for _, row in bad.iterrows():
        label = ", ".join(f"{k}={row[k]}" for k in keys) or "base"
        print(f"  {label}: {row.get('warning_text', '')}", file=sys.stderr)


def cmd_compare(args: argparse.Namespace) -> int:
    from sanpath.experiments import reference
    from sanpath.spec import load_scenario

    overrides = parse_overrides(args.overrides)
    if args.seed is not None:
        overrides["seed"] = args.seed
    picture = None
    if args.plot:
        from sanpath.plotting import picture_path

        picture = picture_path(args.plot)
    try:
        rows = reference.compare(
            load_scenario(args.file, overrides), ios=args.ios, force=args.force
        )
    except ValueError as exc:
        raise _in_file(exc, args.file) from None
    if args.json:
        print(json.dumps([r.to_dict() for r in rows], indent=2))
    else:
        print(reference.table(rows))
    if picture is not None:
        from sanpath.plotting import save

        save(reference.plot(rows), picture)
        if not args.json:
            print(f"plot written to {picture}")
    return EXIT_OK
