"""The ``sanpath`` command line: a thin face over the Python API.

Exit codes: 0 success, 1 a check failed (``check --fail-on``, ``calibrate --fail-above``), 2
bad input (a scenario that does not validate, a file that does not exist, a malformed
``--set``, a run estimated beyond the memory or time limits without ``--force``, an ``--out``
that cannot or may not be written). Bad input never prints a traceback: the message names
the file, line, column and field, and is given before any simulation starts.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Sequence
from typing import Any

from sanpath import compiled
from sanpath._version import __version__

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and a one-line message on usage errors."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


def _add_set(parser: argparse.ArgumentParser, text: str) -> None:
    """The repeatable ``--set KEY=VALUE`` option (dotted scenario keys)."""
    parser.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        dest="overrides",
        help=f"{text} (repeatable)",
    )


def _add_force(parser: argparse.ArgumentParser, also: str = "") -> None:
    """``--force``: run beyond the estimated memory and time limits (sanpath.sim.budget)."""
    parser.add_argument(
        "--force",
        action="store_true",
        help="run even when the estimated memory or time is beyond sanpath's limits" + also,
    )


def _fraction(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a fraction such as 0.1, got {text!r}") from None
    if not 0.0 < value < float("inf"):
        raise argparse.ArgumentTypeError(f"must be a positive fraction, got {text!r}")
    return value


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="sanpath",
        description="Simulate the SAN I/O path as a network of queues.",
    )
    parser.add_argument(
        "--version", action="version", version=f"sanpath {__version__}, {compiled.describe()}"
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("validate", help="check scenario files and report every problem")
    p.add_argument("files", nargs="+", metavar="FILE")

    p = sub.add_parser("run", help="simulate one scenario and print its results")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    p.add_argument("--replicate", type=int, default=0, help="replication index (default 0)")
    _add_set(p, "change a field before running, e.g. hosts.0.hbas.0.queue_depth=16")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--analytic",
        action="store_true",
        help="also print the analytic twin's mean-value prediction (IOPS, MB/s, latency)",
    )
    _add_force(p)

    p = sub.add_parser("sweep", help="run a scenario at every point of a grid of knob values")
    p.add_argument("file", metavar="FILE")
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="vary a dotted key over values (repeatable; every combination is run); "
        "KEY1,KEY2=A1:B1,A2:B2 varies two keys together",
    )
    p.add_argument("--replicates", type=int, default=None, help="replications per point")
    group = p.add_mutually_exclusive_group()
    group.add_argument("--jobs", type=int, default=None, help="local worker processes")
    group.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="a Dask scheduler, e.g. tcp://host:8786",
    )
    p.add_argument("--out", default=None, metavar="FILE", help="write the table (.csv or .json)")
    p.add_argument("--no-cache", action="store_true", help="do not reuse or keep finished points")
    _add_set(p, "change a field of the base scenario first")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    _add_force(p, ", and overwrite an --out table another sweep wrote")

    p = sub.add_parser("compare", help="run a scenario's reference points against the published")
    p.add_argument("file", metavar="FILE")
    p.add_argument("--json", action="store_true", help="print a JSON list of points")
    p.add_argument("--plot", default=None, metavar="PNG", help="draw published against model")
    p.add_argument("--ios", type=int, default=None, help="measured I/Os per run (quicker)")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    _add_set(p, "change a field of the scenario before every point's own changes")
    _add_force(p)

    p = sub.add_parser("calibrate", help="fit parameters of a scenario to measured points")
    p.add_argument("file", metavar="SCENARIO")
    p.add_argument(
        "--measured",
        required=True,
        metavar="FILE",
        help="fio JSON output or a CSV of dotted keys and metrics",
    )
    p.add_argument(
        "--fit",
        required=True,
        metavar="KEY[,KEY...]",
        help="dotted keys to fit, e.g. array.controller.io_time",
    )
    p.add_argument(
        "--out",
        default=None,
        metavar="FILE",
        help="write the calibrated scenario here (default: FILE.calibrated.yaml)",
    )
    p.add_argument("--ios", type=int, default=None, help="measured I/Os per evaluation")
    p.add_argument("--json", action="store_true", help="print the fit as JSON")
    p.add_argument(
        "--fail-above",
        type=_fraction,
        default=None,
        metavar="FRACTION",
        help="exit 1 when the fit's rms relative error is above this, e.g. 0.1",
    )
    _add_force(p)

    p = sub.add_parser(
        "check",
        help="review a proposal: what is wrong, why, what it costs and what to change",
    )
    p.add_argument("file", metavar="PROPOSAL")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--fail-on",
        choices=["error", "warning"],
        default=None,
        help="exit 1 when there are findings at this level or worse",
    )
    p.add_argument(
        "--latency-target",
        type=_positive_duration,
        default=None,
        metavar="TIME",
        help="flag queue depths whose estimated array latency exceeds this, e.g. 10ms",
    )
    p.add_argument(
        "--no-simulate",
        action="store_true",
        help="skip the second opinion (simulating the proposal and each fix)",
    )
    p.add_argument(
        "--ios",
        type=_positive_int,
        default=None,
        metavar="N",
        help="measured I/Os per simulated run (default 20000, at most the scenario's own)",
    )
    _add_force(p)

    p = sub.add_parser("plot", help="draw a sweep table or run JSON as a PNG")
    p.add_argument(
        "files",
        nargs="+",
        metavar="RESULT",
        help="a sweep table (.csv/.json from sweep --out) or a run JSON (run --json); "
        "several run JSONs for --kind cdf",
    )
    p.add_argument(
        "--kind",
        required=True,
        choices=[
            "iops-vs-outstanding",
            "latency-vs-iops",
            "breakdown",
            "fan-in",
            "transfer-size",
            "dashboard",
            "exchange-dashboard",
            "cdf",
        ],
    )
    p.add_argument("--out", required=True, metavar="FILE.png", help="the picture to write")
    p.add_argument("--x", default=None, metavar="KEY", help="dotted key on the x axis")
    p.add_argument("--hue", default=None, metavar="KEY", help="dotted key telling lines apart")
    p.add_argument(
        "--port-queue-depth",
        type=_positive_int,
        default=None,
        metavar="N",
        help="fan-in: the array port queue (draws the limit line)",
    )
    p.add_argument(
        "--commands-per-host",
        type=_positive_int,
        default=None,
        metavar="N",
        help="fan-in: commands each host can have outstanding (LUNs x queue depth)",
    )

    sub.add_parser("schema", help="print the JSON Schema of scenario files")
    p = sub.add_parser(
        "profiles", help="list the named drive, HBA and array profiles and their values"
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def _positive_duration(text: str) -> float:
    from sanpath.units import UnitError, parse_duration

    try:
        value = parse_duration(text)
    except UnitError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    if value <= 0:
        raise argparse.ArgumentTypeError(f"must be positive, got {text!r}")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _overrides(items: Sequence[str]) -> dict[str, Any]:
    from sanpath.spec import parse_assignment

    out: dict[str, Any] = {}
    for item in items:
        key, value = parse_assignment(item)
        out[key] = value
    return out


def _cmd_validate(args: argparse.Namespace) -> int:
    from sanpath.spec import ScenarioError, load_scenario

    status = EXIT_OK
    for path in args.files:
        try:
            scenario = load_scenario(path)
        except ScenarioError as exc:
            print(str(exc), file=sys.stderr)
            status = EXIT_BAD_INPUT
        else:
            print(f"{path}: ok ({scenario.name})")
    return status


def _in_file(exc: Exception, file: str) -> Exception:
    """A ScenarioError about a loaded scenario, located in ``file`` (line and column)."""
    from sanpath.spec import ScenarioError

    return exc.in_file(file) if isinstance(exc, ScenarioError) else exc


def _cmd_run(args: argparse.Namespace) -> int:
    from sanpath.sim import budget
    from sanpath.sim.engine import run
    from sanpath.spec import load_scenario
    from sanpath.theory.explain import explain

    overrides = _overrides(args.overrides)
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


def _cmd_sweep(args: argparse.Namespace) -> int:
    from sanpath.experiments.sweep import DEFAULT_CACHE, sweep
    from sanpath.spec import ScenarioError, load_scenario

    scenario = load_scenario(args.file, _overrides(args.overrides))
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


def _cmd_compare(args: argparse.Namespace) -> int:
    from sanpath.experiments import reference
    from sanpath.spec import load_scenario

    overrides = _overrides(args.overrides)
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


def _cmd_calibrate(args: argparse.Namespace) -> int:
    from pathlib import Path

    from sanpath.experiments.calibrate import (
        RMS_WARNING,
        calibrate,
        read_measurements,
        write_calibrated,
    )
    from sanpath.files import OutputError, check_output

    out = Path(args.out) if args.out else Path(args.file).with_suffix(".calibrated.yaml")
    check_output(out, (".yaml", ".yml"), "calibrated scenario")
    for given, what in ((args.file, "the scenario being calibrated"), (args.measured, "")):
        if Path(given).exists() and out.exists() and out.samefile(given):
            raise OutputError(f"{out}: is {what or 'the measurements'}; give another --out")
    measured = read_measurements(args.measured)
    keys = [k.strip() for k in args.fit.split(",") if k.strip()]
    result = calibrate(args.file, measured, keys, ios=args.ios, force=args.force)
    write_calibrated(args.file, result, out)
    if args.json:
        print(json.dumps({**result.to_dict(), "written": str(out)}, indent=2))
    else:
        print(result.text())
        print(f"calibrated scenario written to {out}")
    limit = args.fail_above
    warning = result.warning(RMS_WARNING if limit is None else min(limit, RMS_WARNING))
    if warning is not None:
        print(f"sanpath: warning: {warning}", file=sys.stderr)
    if limit is not None and result.rms_error > limit:
        print(
            f"sanpath: the fit fails --fail-above {limit:g}: rms relative error "
            f"{100 * result.rms_error:.1f}%",
            file=sys.stderr,
        )
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _cmd_check(args: argparse.Namespace) -> int:
    from sanpath.advice.check import DEFAULT_CHECK_IOS, check
    from sanpath.spec import load_scenario

    scenario = load_scenario(args.file)
    report = check(
        scenario,
        latency_target=args.latency_target,
        simulate=not args.no_simulate,
        ios=args.ios if args.ios is not None else DEFAULT_CHECK_IOS,
        force=args.force,
    )
    print(report.to_json() if args.json else report.text(args.file))
    if args.fail_on is not None and report.at_least(args.fail_on):
        return EXIT_CHECK_FAILED
    return EXIT_OK


def _cmd_plot(args: argparse.Namespace) -> int:
    from sanpath.plotting import plot_files

    path = plot_files(
        args.files,
        args.kind,
        args.out,
        x=args.x,
        hue=args.hue,
        port_queue_depth=args.port_queue_depth,
        commands_per_host=args.commands_per_host,
    )
    print(f"plot written to {path}")
    return EXIT_OK


def _cmd_schema(_args: argparse.Namespace) -> int:
    from sanpath.spec import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


def _cmd_profiles(args: argparse.Namespace) -> int:
    from sanpath.spec.profiles import ARRAY_PROFILES, DRIVE_PROFILES, HBA_PROFILES

    kinds = {
        "drive": ("array.pools.N.drive", DRIVE_PROFILES),
        "hba": ("hosts.N.hbas.M.profile", HBA_PROFILES),
        "array": ("array.profile", ARRAY_PROFILES),
    }
    if args.json:
        print(json.dumps({kind: profiles for kind, (_, profiles) in kinds.items()}, indent=2))
        return EXIT_OK
    for kind, (where, profiles) in kinds.items():
        print(f"{kind} profiles ({where}; sources in sanpath/profiles.py)")
        for name, fields in profiles.items():
            values = ", ".join(f"{key}: {_profile_value(v)}" for key, v in fields.items())
            print(f"  {name:<16} {values}")
        print()
    return EXIT_OK


def _profile_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_profile_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    from sanpath.spec import ScenarioError

    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {
        "validate": _cmd_validate,
        "run": _cmd_run,
        "sweep": _cmd_sweep,
        "compare": _cmd_compare,
        "calibrate": _cmd_calibrate,
        "schema": _cmd_schema,
        "profiles": _cmd_profiles,
        "check": _cmd_check,
        "plot": _cmd_plot,
    }
    try:
        return handlers[args.command](args)
    except ScenarioError as exc:
        print(str(exc), file=sys.stderr)
        return EXIT_BAD_INPUT
    except ValueError as exc:
        print(f"sanpath: error: {exc}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("sanpath: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `sanpath run ... | head`): stop quietly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return EXIT_OK
