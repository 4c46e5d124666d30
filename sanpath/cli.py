"""The ``sanpath`` command line: a thin face over the Python API; it builds the parser and
dispatches to ``sanpath.cli_commands`` (one module per job).

Exit codes: 0 success, 1 a check failed (``check --fail-on``, ``calibrate --fail-above``), 2
bad input: a scenario that does not validate, a missing file, a malformed ``--set``, a run
estimated beyond the limits without ``--force``, an ``--out`` that cannot or may not be
written (an existing one is refused without ``--force``, but a sweep table the same sweep
wrote). The message names the file, line, column and field, before any simulation starts.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any

from sanpath import cli_commands as commands
from sanpath import compiled
from sanpath._version import __version__
from sanpath.cli_commands import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK

__all__ = ["EXIT_BAD_INPUT", "EXIT_CHECK_FAILED", "EXIT_OK", "main"]


class _Parser(argparse.ArgumentParser):
    """argparse that exits with code 2 and a one-line message on usage errors."""

    def error(self, message: str) -> Any:
        self.print_usage(sys.stderr)
        print(f"{self.prog}: error: {message}", file=sys.stderr)
        raise SystemExit(EXIT_BAD_INPUT)


SCENARIO_FILE = "a scenario file (YAML)"
"""Help of a command's scenario argument."""


class _Version(argparse.Action):
    """``--version``: the version and the core that runs, on one line (argparse's own
    version action wraps it to the terminal's width)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: Any,
        option_string: str | None = None,
    ) -> None:
        print(f"sanpath {__version__}, {compiled.describe()}")
        parser.exit()


def _parser() -> argparse.ArgumentParser:
    from sanpath.formats import FORMATS

    parser = _Parser(
        prog="sanpath",
        description="Simulate the SAN I/O path as a network of queues.",
    )
    parser.add_argument(
        "--version",
        action=_Version,
        nargs=0,
        default=argparse.SUPPRESS,
        help="print the version and which core runs (compiled or pure Python), then exit",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    sub.required = True

    p = sub.add_parser("validate", help="check scenario files (and traces), report every problem")
    p.add_argument("files", nargs="+", metavar="FILE", help="scenario files (YAML)")
    commands.add_set(p, "change a field of every file before validating it")

    p = sub.add_parser("run", help="simulate one scenario and print its results")
    p.add_argument("file", metavar="FILE", help=SCENARIO_FILE)
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    p.add_argument("--replicate", type=int, default=0, help="replication index (default 0)")
    commands.add_set(p, "change a field before running, e.g. hosts.0.hbas.0.queue_depth=16")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--output-format",
        choices=["text", "json", "fio-json"],
        default=None,
        help="text tables (default), one JSON object (as --json), or fio's "
        "--output-format=json shape with one job per workload",
    )
    p.add_argument(
        "--analytic",
        action="store_true",
        help="also print the analytic twin's mean-value prediction (IOPS, MB/s, latency)",
    )
    p.add_argument(
        "--detail",
        action="store_true",
        help="also print every percentile and layer, every kind of component, the counters "
        "and every station that carried traffic (text output)",
    )
    p.add_argument(
        "--animate",
        default=None,
        metavar="FILE",
        help="also write an animation of the run (.html, .gif or .mp4; the window of "
        "run.animate, or its defaults)",
    )
    commands.add_force(p)

    commands.add_predict_parser(sub)

    p = sub.add_parser("sweep", help="run a scenario at every point of a grid of knob values")
    p.add_argument("file", metavar="FILE", help=SCENARIO_FILE)
    p.add_argument(
        "--vary",
        action="append",
        default=[],
        metavar="KEY=V1,V2,...",
        help="vary a dotted key over values (repeatable; every combination is run); "
        "KEY=4..64 doubles from 4 to 64, KEY=4..64:+4 steps by 4, KEY=1..81:*3 multiplies "
        "by 3; KEY1,KEY2=A1:B1,A2:B2 varies two keys together",
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
    p.add_argument("--cache", metavar="DIR", help="keep finished points in DIR (default: "
                   "$SANPATH_CACHE, else .sanpath-cache)")  # fmt: skip
    commands.add_set(p, "change a field of the base scenario first")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--output-format",
        choices=["text", "fio-json"],
        default=None,
        help="the table (default), or fio's --output-format=json shape with one job per "
        "point, named after its varied keys (every point is run; no --out)",
    )
    commands.add_force(p, ", and overwrite an --out table another sweep wrote")

    p = sub.add_parser(
        "compare",
        help="run a scenario's reference points and set them beside the published figures",
    )
    p.add_argument("file", metavar="FILE", help="a scenario file (YAML) with a reference section")
    p.add_argument("--json", action="store_true", help="print a JSON list of points")
    p.add_argument("--plot", default=None, metavar="PNG", help="draw published against model")
    p.add_argument(
        "--out",
        default=None,
        metavar="FILE.json",
        help="keep the comparison as a record: each figure with the model's value, 95%% "
        "interval and band, and the scenario's name, set-up and load (what make validation "
        "keeps; sanpath plot FILE --kind compare draws it)",
    )
    p.add_argument("--ios", type=int, default=None, help="measured I/Os per run (quicker)")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    commands.add_set(p, "change a field of the scenario before every point's own changes")
    commands.add_force(p, ", and replace an existing --plot or --out")

    p = sub.add_parser("calibrate", help="fit parameters of a scenario to measured points")
    p.add_argument("file", metavar="SCENARIO", help=SCENARIO_FILE)
    p.add_argument(
        "--measured",
        metavar="FILE",
        help="fio JSON output or a CSV of dotted keys and metrics (default: the scenario's "
        "own reference points with role measured or fitted, as sanpath import writes them)",
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
        type=commands.fraction,
        default=None,
        metavar="FRACTION",
        help="exit 1 when the fit's rms relative error is above this, e.g. 0.1",
    )
    commands.add_force(p, ", and replace an existing --out")

    p = sub.add_parser(
        "headroom", help="how much more load fits before a latency target (SLO) breaks"
    )
    p.add_argument("file", metavar="FILE", help=SCENARIO_FILE)
    p.add_argument(
        "--slo",
        action="append",
        required=True,
        metavar="TARGET",
        help="a latency target every answer must meet, e.g. p99<20ms or mean<=5ms (repeatable; "
        "metrics mean, p50, p90, p99, p99_9, max; units ms, us, s)",
    )
    p.add_argument(
        "--grow",
        choices=["rate", "hosts", "outstanding"],
        default="rate",
        help="what grows: open-loop arrival rates (default), host counts, or closed-loop "
        "outstanding I/Os (host counts and outstanding I/Os are rounded)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    commands.add_set(p, "change a field before searching, e.g. array.controller.cores=4")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    p.add_argument(
        "--simulations",
        type=int,
        default=6,
        metavar="N",
        help="most simulated runs to confirm and refine the twin's answer (default 6; 0: the "
        "twin only)",
    )
    p.add_argument(
        "--precision",
        type=commands.fraction,
        default=0.03,
        metavar="FRACTION",
        help="relative half-width of each run's 95%% interval (default 0.03)",
    )
    p.add_argument(
        "--budget", type=commands.positive_float, default=600.0, help="wall s for all runs"
    )
    p.add_argument("--plot", default=None, metavar="PNG", help="draw the headroom plot here too")
    commands.add_force(p, ", and replace an existing --plot or --out")

    p = sub.add_parser(
        "report", help="one self-contained HTML page of a scenario and its answers, to hand over"
    )
    p.add_argument("file", metavar="FILE", help=SCENARIO_FILE)
    p.add_argument("--out", required=True, metavar="REPORT.html", help="the page to write")
    p.add_argument(
        "--sweep", default=None, metavar="SWEEP.csv", help="a sweep table to show (sweep --out)"
    )
    p.add_argument("--check", action="store_true", help="include sanpath check's findings")
    p.add_argument(
        "--slo",
        action="append",
        default=[],
        metavar="TARGET",
        help="include the headroom against this latency target, e.g. p99<20ms (repeatable)",
    )
    p.add_argument(
        "--grow",
        choices=["rate", "hosts", "outstanding"],
        default="rate",
        help="what grows for the headroom (as sanpath headroom --grow)",
    )
    commands.add_set(p, "change a field before running, e.g. hosts.0.count=32")
    p.add_argument("--seed", type=int, default=None, help="override the scenario's seed")
    commands.add_force(p, ", and replace an existing --out")

    commands.add_animate_parser(sub)

    p = sub.add_parser(
        "check",
        help="review a proposal: what is wrong, why, what it costs and what to change",
    )
    p.add_argument("file", metavar="PROPOSAL", help="the proposal, a scenario file (YAML)")
    commands.add_set(p, "change a field of the proposal before checking it")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--fail-on",
        choices=["error", "warning"],
        default=None,
        help="exit 1 when there are findings at this level or worse",
    )
    p.add_argument(
        "--latency-target",
        type=commands.positive_duration,
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
        type=commands.positive_int,
        default=None,
        metavar="N",
        help="measured I/Os per simulated run (default 20000, at most the scenario's own)",
    )
    commands.add_force(p)

    p = sub.add_parser(
        "diff", help="compare two run results (run --json) figure by figure, with intervals"
    )
    p.add_argument("a", metavar="A.json", help="the first run (sanpath run --json)")
    p.add_argument("b", metavar="B.json", help="the run to compare with it")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument(
        "--all", action="store_true", help="list every figure, also those equal in both runs"
    )

    p = sub.add_parser(
        "plot",
        help="draw a sweep table, a run JSON, a comparison or a scenario's I/O path as a PNG",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="a sweep table (.csv/.json from sweep --out) or a run JSON (run --json); "
        "several run JSONs for --kind cdf; a scenario (.yaml) for --kind topology; "
        "compare --json output or a validation record for --kind compare",
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
            "headroom",
            "per-host",
            "topology",
            "compare",
        ],
        help="the picture: a sweep's curves, a run's layers, dashboards and CDF, a "
        "scenario's I/O path (topology), or published figures against the model (compare)",
    )
    p.add_argument("--out", required=True, metavar="FILE.png", help="the picture to write")
    p.add_argument("--x", default=None, metavar="KEY", help="dotted key on the x axis")
    p.add_argument("--hue", default=None, metavar="KEY", help="dotted key telling lines apart")
    p.add_argument(
        "--port-queue-depth",
        type=commands.positive_int,
        default=None,
        metavar="N",
        help="fan-in: the array port queue (draws the limit line)",
    )
    p.add_argument(
        "--commands-per-host",
        type=commands.positive_int,
        default=None,
        metavar="N",
        help="fan-in: commands each host can have outstanding (LUNs x queue depth)",
    )
    p.add_argument("--force", action="store_true", help="replace an existing --out")

    p = sub.add_parser(
        "import",
        help="turn measured counters (perfmon, iostat, esxtop), fio or a block trace into a "
        "scenario",
    )
    p.add_argument(
        "files",
        nargs="+",
        metavar="FILE",
        help="measured files: perfmon CSV, iostat or sadf output, esxtop batch CSV, fio job "
        "files or JSON results, or a block trace",
    )
    p.add_argument(
        "--format",
        choices=["auto", *FORMATS],
        default="auto",
        help="the files' format (default: told from the extension and first line)",
    )
    p.add_argument(
        "--into",
        default=None,
        metavar="BASE.yaml",
        help="keep this scenario's topology and comments (default: a placeholder topology)",
    )
    p.add_argument(
        "--interval",
        default=None,
        metavar="SPAN",
        help="peak-iops (default for counters), peak-mb, mean (default for a trace: all of "
        "it), or START..END in seconds from the first sample or record",
    )
    p.add_argument(
        "--map",
        action="append",
        default=[],
        metavar="DEVICE=LUN",
        help="put a device on a LUN group (repeatable; default: devices in order)",
    )
    p.add_argument(
        "--load",
        choices=["open", "closed"],
        default="open",
        help="open: rate = measured IOPS (default); closed: outstanding = queue length",
    )
    p.add_argument(
        "--speed",
        type=commands.positive_float,
        default=1.0,
        metavar="X",
        help="a trace: replay X times as fast (trace.speed; default 1)",
    )
    p.add_argument(
        "--outstanding",
        type=commands.positive_int,
        default=None,
        metavar="N",
        help="a trace: replay closed loop, N I/Os in flight per LUN in trace order",
    )
    p.add_argument(
        "--columns",
        action="append",
        default=[],
        metavar="ROLE=COLUMN",
        help="a csv trace: the column of time, offset, size, op, device or latency (repeatable)",
    )
    p.add_argument(
        "--time-unit",
        choices=["s", "ms", "us", "ns", "100ns"],
        default=None,
        help="a csv trace: the unit of its time and latency columns (default s)",
    )
    p.add_argument("--out", required=True, metavar="NEW.yaml", help="the scenario to write")
    p.add_argument("--force", action="store_true", help="overwrite an existing --out")

    sub.add_parser("schema", help="print the JSON Schema of scenario files")
    p = sub.add_parser("profiles", help="list the named profiles, their values and origins")
    p.add_argument("name", nargs="?", help="one profile: each value with its origin")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with ``argv`` (default: ``sys.argv[1:]``); return the exit code."""
    parser = _parser()
    args = parser.parse_args(argv)
    handlers = {
        "validate": commands.cmd_validate,
        "run": commands.cmd_run,
        "predict": commands.cmd_predict,
        "sweep": commands.cmd_sweep,
        "compare": commands.cmd_compare,
        "calibrate": commands.cmd_calibrate,
        "headroom": commands.cmd_headroom,
        "report": commands.cmd_report,
        "animate": commands.cmd_animate,
        "schema": commands.cmd_schema,
        "profiles": commands.cmd_profiles,
        "check": commands.cmd_check,
        "plot": commands.cmd_plot,
        "import": commands.cmd_import,
        "diff": commands.cmd_diff,
    }
    try:
        with commands.escaped_output():
            return handlers[args.command](args)
    except ValueError as exc:
        from sanpath.spec import ScenarioError  # loaded already when one was raised

        print(
            str(exc) if isinstance(exc, ScenarioError) else f"sanpath: error: {exc}",
            file=sys.stderr,
        )
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        print("sanpath: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (e.g. `sanpath run ... | head`): stop quietly.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silence the flush at exit
        return EXIT_OK
