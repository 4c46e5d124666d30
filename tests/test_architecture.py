"""The house rules: the import contract holds, and it catches a forbidden import.

The contract itself lives in ``setup.cfg`` (``[importlinter]``) and runs in ``make lint``;
these tests run it on a copy of the source, once as it is and once with one forbidden import
added, so a contract that could never fail would show here.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from fnmatch import fnmatch
from pathlib import Path

import pytest

from tests import import_audit
from tests.import_audit import Crossing, audit

ROOT = Path(__file__).resolve().parents[1]
LINT_IMPORTS = Path(sys.executable).with_name("lint-imports")
MAX_MODULE_LINES = 500

pytestmark = pytest.mark.skipif(not LINT_IMPORTS.exists(), reason="import-linter not installed")


def _copy_source(tmp: Path) -> Path:
    shutil.copytree(
        ROOT / "sanpath", tmp / "sanpath", ignore=shutil.ignore_patterns("*.so", "__pycache__")
    )
    shutil.copy(ROOT / "setup.cfg", tmp / "setup.cfg")
    return tmp


def _lint(tmp: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(tmp)}
    return subprocess.run(
        [str(LINT_IMPORTS), "--no-cache", "--config", "setup.cfg"],
        cwd=tmp,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )


def test_contract_holds(tmp_path: Path) -> None:
    done = _lint(_copy_source(tmp_path))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract"),
    [
        ("sanpath/plotting/__init__.py", "import sanpath.sim.engine", "plots read results"),
        (
            "sanpath/units.py",
            "import sanpath.spec",
            "units, readable, stats, files, formats and glue import",
        ),
        ("sanpath/sim/topology.py", "import sanpath.theory", "the simulator knows nothing"),
        ("sanpath/layout/wiring.py", "import sanpath.sim.station", "layout reads spec only"),
    ],
)
def test_forbidden_import_breaks_the_contract(
    tmp_path: Path, module: str, line: str, contract: str
) -> None:
    tmp = _copy_source(tmp_path)
    path = tmp / module
    path.write_text(path.read_text() + f"\n{line}  # noqa\n")
    done = _lint(tmp)
    assert done.returncode != 0
    assert f"{contract}" in done.stdout
    broken = done.stdout.split("Broken contracts")[-1]
    assert contract in broken


def test_an_import_circle_breaks_the_contract(tmp_path: Path) -> None:
    tmp = _copy_source(tmp_path)
    path = tmp / "sanpath/stats/histogram.py"
    path.write_text(path.read_text() + "\nimport sanpath.stats.timeseries  # noqa\n")
    done = _lint(tmp)
    assert done.returncode != 0
    assert "No cycles are allowed in sanpath.stats" in done.stdout


def test_no_module_is_too_long_to_read() -> None:
    long = {
        str(path.relative_to(ROOT)): n
        for path in (ROOT / "sanpath").rglob("*.py")
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert not long, f"modules over {MAX_MODULE_LINES} lines: {long}"


# -- private names and package faces (tests/import_audit.py) --------------------------------

# (importer, source, reason): fnmatch patterns of module names; what is left, each for a reason
PRIVATE_ALLOWED: list[tuple[str, str, str]] = []
FACE_ALLOWED = [
    (
        "sanpath.cli_commands.*",
        "sanpath.experiments*",
        "a command imports its experiment when it runs, so the experiments face stays light "
        "and `import sanpath` and `sanpath --help` stay quick",
    ),
    ("sanpath.compiled", "sanpath.sim.engine", "tells which core runs from the engine module"),
    (
        "sanpath",
        "sanpath.*",
        "the names of the public API for type checkers, imported only when checking types (at "
        "run time each is imported on first use); mypy needs check, headroom and sweep from "
        "their modules, as each shares its name with a module of its package",
    ),
    (
        "sanpath.sim.*",
        "sanpath.sim.components.*",
        "the simulator builds and drives its components: sim/components has no face, its "
        "modules are the compiled core's, called directly",
    ),
    (
        "sanpath.sim.*",
        "sanpath.layout.*",
        "the simulator's compiled modules call the wiring model's (itself compiled) directly",
    ),
    (
        "sanpath.sim.*",
        "sanpath.results.station",
        "the stations' statistics are made by the compiled core",
    ),
    ("sanpath.sim.measure", "sanpath.stats.groups", "grouped latency histograms, compiled"),
    (
        "sanpath.experiments.datasheets",
        "*",
        "the datasheet table runs each profile on the textbook path: the profiles' datasheet "
        "figures and the runner itself",
    ),
    (
        "sanpath.experiments.transports",
        "sanpath.theory",
        "the transport comparisons, like the datasheet table, run on the textbook path",
    ),
    (
        "<compiled>",
        "<compiled>",
        "a module of the compiled core calls the compiled modules it uses directly, "
        "not through an interpreted package __init__",
    ),
]


def _compiled() -> set[str]:
    from sanpath.compiled import CORE_MODULES

    return set(CORE_MODULES)


def _left(crossings: list[Crossing], allowed: list[tuple[str, str, str]]) -> list[str]:
    compiled = _compiled()

    def matches(module: str, pattern: str) -> bool:
        return module in compiled if pattern == "<compiled>" else fnmatch(module, pattern)

    return [
        str(c)
        for c in crossings
        if not any(matches(c.importer, i) and matches(c.source, s) for i, s, _ in allowed)
    ]


def test_no_private_name_is_imported_across_modules() -> None:
    """A helper another module needs is public, in its module's ``__all__``."""
    private, _ = audit()
    assert not _left(private, PRIVATE_ALLOWED)


def test_code_outside_a_package_imports_its_face() -> None:
    """``from sanpath.pkg.module import X`` only inside ``sanpath.pkg``; outside, its face."""
    _, bypass = audit()
    assert not _left(bypass, FACE_ALLOWED)


def test_the_audit_finds_a_private_import_and_a_bypass(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The two checks above can fail: the audit sees what they forbid, in a module added to
    the tree for the test."""
    fake = tmp_path / "fake.py"
    fake.write_text(
        "from sanpath.sim.engine import _hidden\nfrom sanpath.sim.components.host import Route\n"
    )
    real = import_audit._modules
    monkeypatch.setattr(import_audit, "_modules", lambda: {**real(), "sanpath.advice.fake": fake})
    private, bypass = audit()
    assert [str(c) for c in private] == ["sanpath.advice.fake:1: sanpath.sim.engine -> _hidden"]
    assert _left(bypass, FACE_ALLOWED) == [
        "sanpath.advice.fake:1: sanpath.sim.engine -> _hidden",
        "sanpath.advice.fake:2: sanpath.sim.components.host -> Route",
    ]
