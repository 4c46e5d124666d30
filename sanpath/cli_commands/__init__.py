"""The subcommands of ``sanpath`` (:mod:`sanpath.cli`), one module per job.

:mod:`sanpath.cli` builds the parser and dispatches; the commands it runs live here, each a
function of the parsed arguments that prints its output and returns the exit code:

* :mod:`~sanpath.cli_commands.simulate`: ``run``, ``sweep``, ``compare`` (simulate and report);
* :mod:`~sanpath.cli_commands.scenarios`: ``validate``, ``schema``, ``profiles`` (the scenario
  format, no simulation);
* :mod:`~sanpath.cli_commands.analysis`: ``check``, ``calibrate``, ``plot`` (review a
  proposal, fit to measurements, draw results);
* :mod:`~sanpath.cli_commands.ingest`: ``import`` (measured counters or fio jobs in, a
  scenario out);
* :mod:`~sanpath.cli_commands.compare_runs`: ``diff`` (two results side by side);
* :mod:`~sanpath.cli_commands.headroom`: ``headroom`` (how much more load fits);
* :mod:`~sanpath.cli_commands.predict`: ``predict`` (the analytic twin alone);
* :mod:`~sanpath.cli_commands.report`: ``report`` (one HTML page to hand over);
* :mod:`~sanpath.cli_commands.animate`: ``animate`` (a window of a run as an animation of its
  path);
* :mod:`~sanpath.cli_commands.argtypes`: what a number, fraction or duration on the command
  line must be, and the options several commands share (``--set``, ``--force``);
* :mod:`~sanpath.cli_commands.terminal`: what every command prints, with control characters
  escaped (a name cannot drive the terminal).

Each command imports what it needs when it runs, so that ``sanpath --help`` stays quick.
"""

from sanpath.cli_commands.analysis import cmd_calibrate, cmd_check, cmd_plot
from sanpath.cli_commands.animate import add_animate_parser, cmd_animate
from sanpath.cli_commands.argtypes import (
    add_force,
    add_set,
    fraction,
    positive_duration,
    positive_float,
    positive_int,
)
from sanpath.cli_commands.compare_runs import cmd_diff
from sanpath.cli_commands.exits import EXIT_BAD_INPUT, EXIT_CHECK_FAILED, EXIT_OK
from sanpath.cli_commands.headroom import cmd_headroom
from sanpath.cli_commands.ingest import cmd_import
from sanpath.cli_commands.predict import add_predict_parser, cmd_predict
from sanpath.cli_commands.report import cmd_report
from sanpath.cli_commands.scenarios import cmd_profiles, cmd_schema, cmd_validate
from sanpath.cli_commands.simulate import cmd_compare, cmd_run, cmd_sweep
from sanpath.cli_commands.terminal import escaped_output

__all__ = [
    "EXIT_BAD_INPUT",
    "EXIT_CHECK_FAILED",
    "EXIT_OK",
    "add_animate_parser",
    "add_force",
    "add_predict_parser",
    "add_set",
    "cmd_animate",
    "cmd_calibrate",
    "cmd_check",
    "cmd_compare",
    "cmd_diff",
    "cmd_headroom",
    "cmd_import",
    "cmd_plot",
    "cmd_predict",
    "cmd_profiles",
    "cmd_report",
    "cmd_run",
    "cmd_schema",
    "cmd_sweep",
    "cmd_validate",
    "escaped_output",
    "fraction",
    "positive_duration",
    "positive_float",
    "positive_int",
]
