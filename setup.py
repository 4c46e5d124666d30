"""Build script: compiles the simulation core with mypyc where a C compiler works.

The package's metadata is in setup.cfg. ``pip install .``, ``pip wheel .``, ``python -m
build`` and editable installs compile the core modules (``CORE_MODULES`` in
sanpath/compiled.py) with mypyc, the way mypy and black ship. Without a working C compiler,
or with ``SANPATH_COMPILE=0``, they install the same modules as pure Python and say so in
one line (``pip install -v`` shows the build's output); ``sanpath --version`` names the
core that runs. ``make core`` compiles in place through ``build_ext --inplace --strict``,
where a compile error is an error instead of a reason to fall back.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path
from typing import Any, ClassVar

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py
from setuptools.errors import CCompilerError, CompileError, ExecError, LinkError, PlatformError

ROOT = Path(__file__).resolve().parent
os.chdir(ROOT)  # mypyc and setuptools take the core's paths relative to the project


def _load_compiled() -> Any:
    """sanpath/compiled.py, loaded by path: importing the package would need its
    dependencies, which a build does not have."""
    spec = importlib.util.spec_from_file_location("_sanpath_compiled", ROOT / "sanpath/compiled.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


compiled = _load_compiled()


def _say(line: str) -> None:
    sys.stderr.write(line + "\n")
    sys.stderr.flush()


def _why_pure() -> str | None:
    """Why this build makes the pure-Python core, or None when it compiles."""
    if os.environ.get(compiled.COMPILE_ENV, "") == "0":
        return f"{compiled.COMPILE_ENV}=0"
    return compiled.compiler_problem()


WHY_PURE = _why_pure()
if WHY_PURE is not None:
    _say(compiled.pure_notice(WHY_PURE))

# A placeholder stands for mypyc's extensions until something is built: mypyc's type
# check and code generation take a minute, and the steps that only write metadata or an
# sdist (which also look at build_ext) need neither.
PLACEHOLDER = Extension(compiled.SHARED_LIBRARY, sources=[])
METADATA_ONLY = {"egg_info", "dist_info", "sdist", "check"}


def _record_dir(command: Any) -> Path:
    """Where a build command's output package lives: the source tree when it builds in
    place (``make core``, editable installs), else its build directory."""
    in_place = getattr(command, "inplace", False) or getattr(command, "editable_mode", False)
    return ROOT / "sanpath" if in_place else Path(command.build_lib) / "sanpath"


class BuildPy(build_py):
    """Copies the package, and records a pure-Python build (no extension to build)."""

    def run(self) -> None:
        super().run()
        if WHY_PURE is not None:
            compiled.write_record(_record_dir(self), "python", f"not compiled: {WHY_PURE}")


class BuildExt(build_ext):
    """Compiles the core with mypyc; on a compile error installs the pure-Python core
    (``--strict``: fails instead)."""

    user_options: ClassVar[list[tuple[str, str | None, str]]] = [
        *build_ext.user_options,
        ("strict", None, "fail on a compile error instead of building the pure-Python core"),
    ]
    boolean_options: ClassVar[list[str]] = [*build_ext.boolean_options, "strict"]

    def initialize_options(self) -> None:
        super().initialize_options()
        self.strict = False

    def finalize_options(self) -> None:
        building = not set(self.distribution.commands) <= METADATA_ONLY
        if building and self.distribution.ext_modules == [PLACEHOLDER]:
            self.distribution.ext_modules = compiled.mypyc_extensions(ROOT)
        super().finalize_options()

    def run(self) -> None:
        try:
            super().run()
        except (CCompilerError, CompileError, ExecError, LinkError, PlatformError) as exc:
            if self.strict:
                raise
            why = f"compiling it failed ({str(exc).strip().splitlines()[0]})"
            _say(compiled.pure_notice(why))
            if self.inplace:
                compiled.clean(ROOT / "sanpath")
            else:
                for output in self.get_outputs():
                    Path(output).unlink(missing_ok=True)
            compiled.write_record(_record_dir(self), "python", f"not compiled: {why}")
            return
        compiled.write_record(_record_dir(self), "compiled", "compiled with mypyc")


setup(
    ext_modules=[] if WHY_PURE is not None else [PLACEHOLDER],
    cmdclass={"build_py": BuildPy, "build_ext": BuildExt},
)
