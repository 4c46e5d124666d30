"""``sanpath run``, ``sweep`` and ``compare``: simulate a scenario and print the results."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import sys
import warnings
from collections.abc import Sequence
from typing import Any

from sanpath.cli_commands.exits import EXIT_OK
from sanpath.readable import figure, percent


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
    from sanpath.theory import explain

    output = output_format(args)
    overrides = parse_overrides(args.overrides)
    scenario = load_scenario(args.file, overrides)
    if args.animate is not None:
        from sanpath.cli_commands.animation import animated
        from sanpath.files import check_output
        from sanpath.plotting import ANIMATION_FORMATS

        check_output(args.animate, ANIMATION_FORMATS, "animation", force=args.force)
        scenario = animated(scenario)
    if not args.force:
        budget.check(scenario, source=args.file)
    result = run(scenario, seed=args.seed, replicate=args.replicate, force=True, progress=None)
    if args.animate is not None:
        from sanpath.cli_commands.animation import write_run_animation

        with contextlib.redirect_stdout(sys.stderr):  # the run's output stays as it was
            write_run_animation(result, args.animate)
    result = explain(scenario, result)  # run() recorded the seed and the --set overrides
    twin = None
    if args.analytic:
        from sanpath.theory.twin import predict

        twin = predict(scenario)
    if output == "fio-json":
        from sanpath.experiments.fio_output import run_fio_json, run_warnings

        print(json.dumps(run_fio_json(scenario, result), indent=2))
        for text in run_warnings(result):  # fio's JSON has no place for them
            print(f"sanpath: warning: {text}", file=sys.stderr)
    elif output == "json":
        if twin is None:
            print(result.to_json())
        else:
            print(json.dumps({**result.to_dict(), "analytic": twin.to_dict()}, indent=2))
    else:
        print(result.summary(detail=args.detail))
        if twin is not None:
            print()
            print(twin.summary())
            for key, sim, model in (
                ("IOPS", result.iops, twin.iops),
                ("MB/s", result.mb_per_s, twin.mb_per_s),
                ("latency ms", result.latency_ms["mean"], twin.latency_ms_mean),
            ):
                error = model / sim - 1.0 if sim else float("nan")
                print(
                    f"  {key:<11} simulated {figure(sim):>12}   twin {figure(model):>12}   "
                    f"({percent(error, signed=True, digits=1)})"
                )
    return EXIT_OK


def output_format(args: argparse.Namespace) -> str:
    """``text``, ``json`` or ``fio-json``: ``--output-format``, or ``--json`` for json.

    Contradictions are refused before anything runs: ``--json`` with another format, and
    ``--analytic`` with fio-json (fio's JSON has no place for the twin).
    """
    chosen = getattr(args, "output_format", None)
    if getattr(args, "json", False):
        if chosen not in (None, "json"):
            raise ValueError(f"--json and --output-format {chosen} disagree: give one of them")
        chosen = "json"
    output = chosen or "text"
    if output == "fio-json" and getattr(args, "analytic", False):
        raise ValueError("--analytic has no place in fio-json output: use text or json")
    return str(output)


def parse_vary(items: Sequence[str]) -> dict[Any, list[Any]]:
    """``key=v1,v2`` -> {key: [v1, v2]}; ``k1,k2=a1:b1,a2:b2`` -> {(k1, k2): [(a1, b1), ...]}.

    A value of one key may be a range, ``4..64`` (doubling), ``4..64:+4`` (steps) or
    ``1..81:*3`` (a factor): see :func:`sanpath.spec.keys.parse_range`.
    """
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    from sanpath.spec import is_range, parse_range

    yaml = YAML(typ="safe")

    def scalar(text: str, item: str) -> Any:
        text = text.strip()
        try:
            return yaml.load(text) if text else None
        except YAMLError as exc:
            problem = getattr(exc, "problem", None) or "not a YAML value"
            raise ValueError(f"--vary {item}: cannot read {text!r}: {problem}") from None

    def values_of(text: str, item: str) -> list[Any]:
        if not is_range(text):
            return [scalar(text, item)]
        try:
            return list(parse_range(text))
        except ValueError as exc:
            raise ValueError(f"--vary {item}: {exc}") from None

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
            grid[keys[0]] = [x for v in values for x in values_of(v, item)]
        else:
            points = []
            for v in values:
                if is_range(v):
                    raise ValueError(
                        f"--vary {item}: a range varies one key; keys varied together take "
                        "their values point by point (A1:B1,A2:B2)"
                    )
                parts = v.split(":")
                if len(parts) != len(keys):
                    raise ValueError(
                        f"--vary {left}: each value needs {len(keys)} parts separated by ':', "
                        f"got {v!r}"
                    )
                points.append(tuple(scalar(x, item) for x in parts))
            grid[tuple(keys)] = points
    return grid


def cmd_sweep(args: argparse.Namespace) -> int:
    from sanpath.experiments import DEFAULT_CACHE, sweep
    from sanpath.experiments.cache import CacheWarning
    from sanpath.spec import ScenarioError, load_scenario

    scenario = load_scenario(args.file, parse_overrides(args.overrides))
    grid = parse_vary(args.vary) or None
    if grid is None and scenario.sweep is None:
        raise ValueError(f"{args.file}: no --vary given and the scenario has no sweep section")
    fio = output_format(args) == "fio-json"
    if fio and args.out:
        raise ValueError("--out writes a sweep table; fio-json goes to standard output (> FILE)")
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
        if fio:
            from sanpath.experiments.fio_output import WARNINGS_KEY, sweep_fio_json

            document = sweep_fio_json(
                scenario, grid, args.replicates, executor=executor, jobs=args.jobs, force=args.force
            )
            print(json.dumps(document, indent=2))
            for job in document["jobs"]:
                for text in job.get(WARNINGS_KEY, []):
                    print(f"sanpath: warning: {job['jobname']}: {text}", file=sys.stderr)
            return EXIT_OK
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", CacheWarning)
            try:
                result = sweep(
                    scenario,
                    grid,
                    replicates=args.replicates,
                    executor=executor,
                    jobs=args.jobs,
                    progress=not args.quiet,
                    cache=None if args.no_cache else (args.cache or DEFAULT_CACHE),
                    out=args.out,
                    force=args.force,
                )
            finally:
                _show_warnings(caught, CacheWarning)
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
        shown = result.table[[c for c in columns if c in result.table.columns]]
        settings = {k: _setting for k in result.keys if k in shown.columns}
        print(shown.to_string(index=False, float_format=figure, formatters=settings))
        _warn_unsteady(result.table, result.keys)
    if args.out:
        print(f"table written to {args.out}")
    if not result.complete:
        print("sweep interrupted: the table holds the points finished so far", file=sys.stderr)
        return 130
    return EXIT_OK


def _setting(value: object) -> str:
    """A swept setting as the table shows it: a number with separators, anything else as
    written (``1MiB``, ``round-robin``, null)."""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return f"{value:,g}"
    return str(value)


def _show_warnings(caught: Sequence[warnings.WarningMessage], ours: type[Warning]) -> None:
    """Print the warnings of category ``ours`` as ``sanpath: warning: ...`` lines on standard
    error, and show the others as Python does."""
    for warning in caught:
        if issubclass(warning.category, ours):
            print(f"sanpath: warning: {warning.message}", file=sys.stderr)
        else:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )


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
    from sanpath.files import check_output, write_text
    from sanpath.spec import load_scenario

    overrides = parse_overrides(args.overrides)
    if args.seed is not None:
        overrides["seed"] = args.seed
    picture = None
    if args.plot:
        from sanpath.plotting import picture_path

        picture = picture_path(args.plot, force=args.force)
    if args.out:
        check_output(args.out, (".json",), "comparison record", force=args.force)
    try:
        scenario = load_scenario(args.file, overrides)
        rows = reference.compare(scenario, ios=args.ios, force=args.force)
    except ValueError as exc:
        raise _in_file(exc, args.file) from None
    if args.json:
        print(json.dumps([r.to_dict() for r in rows], indent=2))
    else:
        print(reference.table(rows))
    if args.out:
        from sanpath.experiments.validation import comparison_record

        record = comparison_record(args.file, scenario, rows, ios=args.ios)
        write_text(args.out, json.dumps(record, indent=1, ensure_ascii=False) + "\n")
        if not args.json:
            print(f"record written to {args.out}")
    if picture is not None:
        from sanpath.plotting import save

        save(reference.plot(rows, scenario=scenario), picture, force=args.force)
        if not args.json:
            print(f"plot written to {picture}")
    return EXIT_OK
