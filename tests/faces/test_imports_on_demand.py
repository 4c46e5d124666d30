"""Every face loads what a command needs, when it needs it.

``import sanpath``, ``sanpath --help`` and ``sanpath validate`` load no scipy, pandas,
matplotlib, advice rules, experiments or simulator; a run loads the simulator but neither
scipy.stats (the t quantile and the trend test are sanpath's own), pandas nor the advice
rules; ``import sanpath.notebook`` loads no plots. Each check runs in a fresh interpreter
and reads ``sys.modules`` after the command.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest

from tests.conftest import ROOT, SCENARIOS

HEAVY = ("scipy", "pandas", "matplotlib", "sanpath.advice", "sanpath.experiments")
"""Loaded by no command that does not use them."""


def _loaded(code: str) -> set[str]:
    """The modules loaded after running ``code`` in a fresh interpreter (its output hidden)."""
    body = textwrap.indent(textwrap.dedent(code).strip(), "    ")
    script = (
        "import contextlib, io, json, sys\n"
        "with contextlib.redirect_stdout(io.StringIO()), "
        "contextlib.redirect_stderr(io.StringIO()):\n"
        f"{body}\n"
        "print(json.dumps(sorted(sys.modules)))\n"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT), "SANPATH_PURE_PYTHON": "1"}
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=ROOT, env=env
    )
    assert done.returncode == 0, done.stderr
    return set(json.loads(done.stdout.splitlines()[-1]))


def _heavy(modules: set[str], names: tuple[str, ...] = HEAVY) -> list[str]:
    return sorted(m for m in modules if any(m == n or m.startswith(n + ".") for n in names))


def test_import_sanpath_loads_only_the_choice_of_core() -> None:
    loaded = _loaded("import sanpath")
    assert not _heavy(loaded, (*HEAVY, "numpy", "sanpath.sim", "sanpath.spec"))
    assert "sanpath.compiled" in loaded


def test_a_public_name_is_imported_on_first_use() -> None:
    loaded = _loaded("import sanpath\nsanpath.load_scenario")
    assert "sanpath.spec" in loaded
    assert not _heavy(loaded, (*HEAVY, "sanpath.sim"))


@pytest.mark.parametrize("argv", [["--help"], ["run", "--help"], ["import", "--help"]])
def test_help_loads_nothing_heavy(argv: list[str]) -> None:
    code = f"""
    from sanpath.cli import main
    try:
        main({argv!r})
    except SystemExit:
        pass
    """
    loaded = _loaded(code)
    assert not _heavy(loaded, (*HEAVY, "numpy", "sanpath.spec", "sanpath.sim", "sanpath.ingest"))


def test_validate_loads_the_specs_only() -> None:
    loaded = _loaded(
        f"from sanpath.cli import main\nmain(['validate', {str(SCENARIOS / 'quickstart.yaml')!r}])"
    )
    assert "sanpath.spec" in loaded
    assert not _heavy(loaded, (*HEAVY, "sanpath.sim", "sanpath.theory"))


def test_a_run_needs_no_scipy_stats_pandas_or_advice() -> None:
    path = str(SCENARIOS / "quickstart.yaml")
    loaded = _loaded(
        f"from sanpath.cli import main\nmain(['run', {path!r}, '--set', 'run.ios=2000', "
        "'--set', 'run.warmup_ios=200'])"
    )
    assert "sanpath.sim.engine" in loaded
    assert not _heavy(loaded, ("scipy.stats", "pandas", "matplotlib", *HEAVY[3:]))


def test_import_sanpath_notebook_loads_no_plots() -> None:
    loaded = _loaded("import sanpath.notebook")
    assert not _heavy(loaded, (*HEAVY, "sanpath.plotting", "sanpath.sim"))
