"""Installing sanpath with pip: the compiled core where a C compiler works, else the
pure-Python core with a one-line notice; ``sanpath --version`` names the core that runs.

Each test builds a wheel of a copy of the project, as ``pip install .`` does (an isolated
build: the build requirements of pyproject.toml come from the package index), installs it
into a fresh virtual environment and runs it there. The environment borrows this one's
installed dependencies (a ``.pth`` file) instead of downloading them again. Building the
compiled core takes minutes (mypyc); the tests are marked ``build``.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import sysconfig
import venv
from pathlib import Path
from typing import Any

import pytest

import sanpath
from sanpath import compiled

pytestmark = pytest.mark.build

ROOT = Path(__file__).resolve().parents[1]
PROJECT_FILES = ("setup.py", "setup.cfg", "pyproject.toml", "README.md")
SCENARIO = ROOT / "scenarios" / "quickstart.yaml"
RUN = ["--set", "run.ios=2000", "--set", "run.warmup_ios=200"]
INSTALL = ("--no-deps", "--no-index", "-q")
INDEX_ERRORS = (
    "No matching distribution found",
    "Could not find a version that satisfies",
    "Failed to establish a new connection",
    "Temporary failure in name resolution",
)


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The files a build reads, copied without anything built in place here."""
    dest = tmp_path_factory.mktemp("project")
    for name in PROJECT_FILES:
        shutil.copy2(ROOT / name, dest / name)
    shutil.copytree(
        ROOT / "sanpath",
        dest / "sanpath",
        ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.pyd", compiled.RECORD),
    )
    return dest


def _environ(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in (compiled.PURE_PYTHON_ENV, "CC")}
    return {**env, **extra}


def _build_wheel(project: Path, out: Path, env: dict[str, str]) -> tuple[Path, str]:
    """``pip wheel`` the project into ``out``: (the wheel, pip's verbose output)."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", str(project), "--no-deps", "-w", str(out), "-v"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=3600,
    )
    output = proc.stdout + proc.stderr
    if proc.returncode != 0:
        if any(error in output for error in INDEX_ERRORS):
            pytest.skip("the build requirements cannot be fetched from the package index")
        raise AssertionError(f"pip wheel failed:\n{output[-4000:]}")
    (wheel,) = out.glob("sanpath-*.whl")
    return wheel, output


def _notices(output: str) -> set[str]:
    """The lines sanpath's build printed (each build step prints its notice again)."""
    return {line.strip() for line in output.splitlines() if line.strip().startswith("sanpath:")}


def _install(wheel: Path, where: Path) -> Path:
    """A fresh virtual environment with ``wheel`` installed; returns its bin directory."""
    venv.create(where, with_pip=False)
    python = where / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    # the dependencies: this environment's site-packages, after the new one's own
    Path(site, "dependencies.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", *INSTALL, str(wheel)],
        capture_output=True,
        text=True,
        check=True,
    )
    return python.parent


def _sanpath(bin_dir: Path, *args: str, cwd: Path) -> str:
    proc = subprocess.run(
        [str(bin_dir / "sanpath"), *args],
        capture_output=True,
        text=True,
        env=_environ(),
        cwd=cwd,
        check=True,
    )
    return proc.stdout


def _same_run_as_here(bin_dir: Path, cwd: Path) -> None:
    """The installed sanpath gives this checkout's numbers, to the last bit."""
    theirs: dict[str, Any] = json.loads(
        _sanpath(bin_dir, "run", str(SCENARIO), *RUN, "--json", cwd=cwd)
    )
    overrides = {"run.ios": 2000, "run.warmup_ios": 200}
    ours = json.loads(json.dumps(sanpath.run(SCENARIO, overrides=overrides).to_dict()))
    for result in (theirs, ours):
        result.pop("wall_seconds", None)
    assert theirs == ours


def test_without_a_c_compiler_pip_installs_the_pure_python_core(
    project: Path, tmp_path: Path
) -> None:
    if not Path("/bin/false").exists():
        pytest.skip("needs /bin/false to stand for a broken C compiler")
    wheel, output = _build_wheel(project, tmp_path / "wheel", _environ(CC="/bin/false"))
    why = "no working C compiler (false cannot compile a file that includes Python.h)"
    assert _notices(output) == {compiled.pure_notice(why)}
    assert wheel.name.endswith("-py3-none-any.whl")  # no extension module in it
    bin_dir = _install(wheel, tmp_path / "venv")
    version = _sanpath(bin_dir, "--version", cwd=tmp_path).strip()
    assert version == f"sanpath {sanpath.__version__}, pure-Python core (not compiled: {why})"
    _same_run_as_here(bin_dir, tmp_path)


def test_with_a_c_compiler_pip_installs_the_compiled_core(project: Path, tmp_path: Path) -> None:
    problem = compiled.compiler_problem()
    if problem is not None:
        pytest.skip(f"no compiled core to build here: {problem}")
    wheel, output = _build_wheel(project, tmp_path / "wheel", _environ())
    assert _notices(output) == set()  # nothing fell back
    assert re.search(r"-cp\d+-cp\d+\w*-\w+\.whl$", wheel.name), wheel.name
    bin_dir = _install(wheel, tmp_path / "venv")
    version = _sanpath(bin_dir, "--version", cwd=tmp_path).strip()
    assert version == f"sanpath {sanpath.__version__}, compiled core (mypyc)"
    _same_run_as_here(bin_dir, tmp_path)


def test_sanpath_compile_0_installs_the_pure_python_core(project: Path, tmp_path: Path) -> None:
    wheel, output = _build_wheel(
        project, tmp_path / "wheel", _environ(**{compiled.COMPILE_ENV: "0"})
    )
    why = f"{compiled.COMPILE_ENV}=0"
    assert _notices(output) == {compiled.pure_notice(why)}
    assert wheel.name.endswith("-py3-none-any.whl")
    bin_dir = _install(wheel, tmp_path / "venv")
    version = _sanpath(bin_dir, "--version", cwd=tmp_path).strip()
    assert version == f"sanpath {sanpath.__version__}, pure-Python core (not compiled: {why})"
