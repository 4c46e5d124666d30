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
* :mod:`~sanpath.cli_commands.report`: ``report`` (one HTML page to hand over).

Each command imports what it needs when it runs, so that ``sanpath --help`` stays quick.
"""

EXIT_OK = 0
EXIT_CHECK_FAILED = 1
EXIT_BAD_INPUT = 2
