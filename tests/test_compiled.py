"""The compiled core and its pure-Python source: which one runs, and that they agree."""

from __future__ import annotations

import configparser
import importlib
import importlib.machinery
import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path
from typing import Any

import pytest

import sanpath
from sanpath import compiled

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = sorted((ROOT / "scenarios").glob("**/*.yaml"))
IOS = 1500

RUN_ALL = f"""
import json, sys
IOS = {IOS}
import sanpath
from sanpath import compiled
runs = []
for path in sys.argv[1:]:
    overrides = {{"run.ios": IOS, "run.warmup_ios": IOS // 5, "run.duration": None}}
    runs.append(sanpath.run(path, overrides=overrides).to_dict())
print(json.dumps({{"core": compiled.core(), "runs": runs}}))
"""


def _run_all(env: dict[str, str]) -> dict[str, Any]:
    out = subprocess.run(
        [sys.executable, "-c", RUN_ALL, *map(str, SCENARIOS)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    result: dict[str, Any] = json.loads(out.stdout)
    return result


@pytest.mark.slow
@pytest.mark.skipif(compiled.core() != "compiled", reason="the core is not compiled here")
def test_compiled_and_pure_python_cores_give_identical_results() -> None:
    """Every shipped scenario, to the last bit: the source is the reference of the build."""
    base = {k: v for k, v in os.environ.items() if k != compiled.PURE_PYTHON_ENV}
    fast = _run_all(base)
    pure = _run_all({**base, compiled.PURE_PYTHON_ENV: "1"})
    assert fast["core"] == "compiled"
    assert pure["core"] == "python"
    assert len(fast["runs"]) == len(SCENARIOS) >= 8
    for path, a, b in zip(SCENARIOS, fast["runs"], pure["runs"], strict=True):
        assert a["totals"]["ios_completed"] >= IOS, path.name
        assert a == b, path.name


def test_the_running_core_is_the_one_selected() -> None:
    mode, _ = compiled.select_core()
    assert compiled.core() == mode
    assert compiled.describe().startswith("compiled core" if mode == "compiled" else "pure-Python")
    # every core module comes from the same kind of file as the engine
    for name in compiled.CORE_MODULES:
        module = importlib.import_module(name)
        is_extension = str(module.__file__).endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))
        assert is_extension == (mode == "compiled"), name


# -- the choice, on a package directory made up for the test -------------------------------


def _package(tmp_path: Path, built: tuple[str, ...] | None = None) -> Path:
    """Core sources dated t=1000 s; extensions of ``built`` (default: all) dated t=2000 s."""
    package = tmp_path / "sanpath"
    suffix = importlib.machinery.EXTENSION_SUFFIXES[0]
    modules = (*compiled.CORE_MODULES, compiled.SHARED_LIBRARY)
    for module in compiled.CORE_MODULES:
        source = compiled.source_path(module, package)
        source.parent.mkdir(parents=True, exist_ok=True)
        source.write_text("")
        os.utime(source, (1000, 1000))
    for module in modules if built is None else built:
        base = compiled.source_path(module, package).with_suffix("")
        extension = base.with_name(base.name + suffix)
        extension.write_bytes(b"")
        os.utime(extension, (2000, 2000))
    return package


def test_no_compiled_modules_means_python(tmp_path: Path) -> None:
    mode, why = compiled.select_core(_package(tmp_path, built=()), environ={})
    assert (mode, why) == ("python", "not compiled (make compiles it)")


def test_a_complete_current_build_is_used(tmp_path: Path) -> None:
    assert compiled.select_core(_package(tmp_path), environ={}) == (
        "compiled",
        "compiled with mypyc",
    )


@pytest.mark.parametrize("value, mode", [("1", "python"), ("0", "compiled"), ("", "compiled")])
def test_environment_variable_forces_python(tmp_path: Path, value: str, mode: str) -> None:
    got, _ = compiled.select_core(_package(tmp_path), {compiled.PURE_PYTHON_ENV: value})
    assert got == mode


def test_an_edited_source_makes_the_build_stale(tmp_path: Path) -> None:
    package = _package(tmp_path)
    os.utime(compiled.source_path("sanpath.sim.components.raid", package), (3000, 3000))
    mode, why = compiled.select_core(package, environ={})
    assert mode == "python"
    assert why == "stale: raid.py changed after it was compiled"


def test_a_newer_source_the_record_knows_is_not_an_edit(tmp_path: Path) -> None:
    """An unpacked wheel: the sources may be written after their compiled modules."""
    package = _package(tmp_path)
    compiled.write_record(package, "compiled", "compiled with mypyc", package)
    raid = compiled.source_path("sanpath.sim.components.raid", package)
    os.utime(raid, (3000, 3000))
    assert compiled.select_core(package, environ={})[0] == "compiled"
    raid.write_text("# edited\n")  # a real edit: the digest differs
    os.utime(raid, (3000, 3000))
    assert compiled.select_core(package, environ={}) == (
        "python",
        "stale: raid.py changed after it was compiled",
    )


def test_a_pure_python_build_says_why(tmp_path: Path) -> None:
    package = _package(tmp_path, built=())
    compiled.write_record(package, "python", "not compiled: no working C compiler (cc)")
    assert compiled.select_core(package, environ={}) == (
        "python",
        "not compiled: no working C compiler (cc)",
    )
    assert json.loads((package / compiled.RECORD).read_text()) == {
        "core": "python",
        "why": "not compiled: no working C compiler (cc)",
    }


def test_the_build_pins_the_mypy_of_the_dev_tools() -> None:
    """pip's isolated build compiles with the mypy that make lint type-checks with."""
    build = tomllib.loads((ROOT / "pyproject.toml").read_text())["build-system"]["requires"]
    config = configparser.ConfigParser()
    config.read(ROOT / "setup.cfg")
    dev = config["options.extras_require"]["dev"].split()
    assert [r for r in build if r.startswith("mypy")] == [r for r in dev if r.startswith("mypy")]


def test_an_incomplete_build_is_stale(tmp_path: Path) -> None:
    package = _package(tmp_path, built=compiled.CORE_MODULES)  # no shared library
    mode, why = compiled.select_core(package, environ={})
    assert mode == "python"
    assert why == f"stale: no compiled module for {compiled.SHARED_LIBRARY}"


def test_source_finder_imports_the_python_file(tmp_path: Path) -> None:
    package = _package(tmp_path)
    finder = compiled._SourceFinder(package)
    spec = finder.find_spec("sanpath.sim.engine", None)
    assert spec is not None and spec.origin == str(package / "sim" / "engine.py")
    assert finder.find_spec("sanpath.spec.scenario", None) is None  # not a core module


@pytest.mark.slow
def test_stale_build_warns_and_runs_python(tmp_path: Path) -> None:
    """A real process: an edited core source after a build never runs the old code."""
    if compiled.core() != "compiled":
        pytest.skip("the core is not compiled here")
    package = tmp_path / "sanpath"
    # a copy of the package with its compiled modules, then one source edited
    shutil.copytree(compiled.PACKAGE_DIR, package, ignore=shutil.ignore_patterns("__pycache__"))
    for module in (*compiled.CORE_MODULES, compiled.SHARED_LIBRARY):
        extension = compiled.extension_path(module, package)
        assert extension is not None
        os.utime(extension, (2000, 2000))
    for module in compiled.CORE_MODULES:
        os.utime(compiled.source_path(module, package), (1000, 1000))
    station = compiled.source_path("sanpath.sim.station", package)
    station.write_text(station.read_text() + "# edited\n")
    os.utime(station, (3000, 3000))
    env = {k: v for k, v in os.environ.items() if k != compiled.PURE_PYTHON_ENV}
    env["PYTHONPATH"] = str(tmp_path)
    out = subprocess.run(
        [sys.executable, "-c", "import sanpath.compiled as c; print(c.core(), c.__file__)"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=tmp_path,
    )
    assert out.stdout.split() == ["python", str(package / "compiled.py")]
    assert "compiled core is out of date (station.py changed after it was compiled)" in (out.stderr)


def test_sanpath_imports_select_the_core_first() -> None:
    """sanpath/__init__ must choose before anything imports a core module."""
    source = Path(sanpath.__file__).read_text()
    first_import = source.index("\nfrom sanpath.")
    assert source[first_import:].startswith("\nfrom sanpath.compiled import use_selected_core")
    assert source.index("use_selected_core()") < source.index("from sanpath.advice import")


def test_build_without_a_compiler_leaves_the_pure_python_core(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """No C compiler: old compiled modules are removed (never left stale) and make goes on."""
    package = _package(tmp_path)
    assert compiled.select_core(package, environ={})[0] == "compiled"
    monkeypatch.setenv("CC", str(tmp_path / "no-such-cc"))
    (package / "sim" / "kernel.py").write_text("# edited: the compiled core is stale\n")
    assert compiled.build(tmp_path) == 0
    notice = capsys.readouterr().err.strip()
    assert notice == compiled.pure_notice(
        "no working C compiler (no-such-cc cannot compile a file that includes Python.h)"
    )
    assert compiled.select_core(package, environ={}) == (
        "python",
        "not compiled: no working C compiler (no-such-cc cannot compile a file that includes "
        "Python.h)",
    )
    assert not any(compiled.extension_path(m, package) for m in compiled.CORE_MODULES)
