"""The simulation core, compiled with mypyc, or its pure-Python source.

The modules on a simulated command's path (:data:`CORE_MODULES`: stations, the engine, the
components, the routes made on first use, workloads, random streams and the streaming
statistics) are ordinary typed
Python. ``make`` also compiles them with mypyc (https://mypyc.readthedocs.io), in place:
each gets an extension module beside its source, and the generated code of all of them
lives in one shared library, ``sanpath/core__mypyc.*.so``. Python imports an extension
module in preference to the source, so the compiled core then runs, 2.5 to 3 times faster
(``make bench`` prints both cores' figures). Both cores give the same numbers to the last
bit (``tests/test_compiled.py``).

The pure-Python source runs instead:

* where nothing was compiled (a plain ``pip install``, or no C compiler);
* when ``SANPATH_PURE_PYTHON=1`` is set, e.g. for a profiler such as pyinstrument, which sees
  only Python code;
* with a warning, when a core source file is newer than its compiled module (it was edited
  after ``make`` compiled it), so that an edit never silently runs old code.

:func:`select_core` makes that choice when :mod:`sanpath` is imported; :func:`core` tells
which core the running process uses.

Run as a script (``python sanpath/compiled.py``, as ``make`` does) this module compiles the
core in place; ``--sources`` lists the source files. It uses only the standard library until
it compiles, so the Makefile can ask for the list before any virtual environment exists.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import importlib.util
import os
import shutil
import sys
import sysconfig
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType

CORE_MODULES = (
    "sanpath.layout.wiring",
    "sanpath.layout.raid",
    "sanpath.layout.geometry",
    "sanpath.sim.station",
    "sanpath.stats.histogram",
    "sanpath.stats.intervals",
    "sanpath.stats.batches",
    "sanpath.stats.timeseries",
    "sanpath.stats.groups",
    "sanpath.sim.streams",
    "sanpath.sim.devices",
    "sanpath.sim.replay",
    "sanpath.sim.routes",
    "sanpath.sim.load",
    "sanpath.sim.components.array",
    "sanpath.sim.components.cache",
    "sanpath.sim.components.drive",
    "sanpath.sim.components.hba",
    "sanpath.sim.components.host",
    "sanpath.sim.components.raid",
    "sanpath.sim.control",
    "sanpath.sim.measure",
    "sanpath.sim.engine",
)
"""The modules mypyc compiles, those a simulated command runs through."""

GROUP = "sanpath.core"
"""mypyc's name for the core modules compiled together."""

SHARED_LIBRARY = f"{GROUP}__mypyc"
"""The extension module that holds the compiled code of every core module."""

PURE_PYTHON_ENV = "SANPATH_PURE_PYTHON"
"""Set to 1 to run the pure-Python core even where the compiled one is built."""

PACKAGE_DIR = Path(__file__).resolve().parent


def source_path(module: str, package_dir: Path = PACKAGE_DIR) -> Path:
    """The ``.py`` file of core ``module`` (``sanpath.x.y`` -> ``<package_dir>/x/y.py``)."""
    return package_dir.joinpath(*module.split(".")[1:]).with_suffix(".py")


def extension_path(module: str, package_dir: Path = PACKAGE_DIR) -> Path | None:
    """The compiled extension module built beside ``module``'s source, or None."""
    base = source_path(module, package_dir).with_suffix("")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = base.with_name(base.name + suffix)
        if path.is_file():
            return path
    return None


def select_core(
    package_dir: Path = PACKAGE_DIR, environ: Mapping[str, str] = os.environ
) -> tuple[str, str]:
    """Which core to import: ``("compiled" | "python", why)``, without side effects.

    ``python`` with a reason starting ``stale`` means compiled modules exist but are older
    than a source (or incomplete); the caller warns about it.
    """
    modules = (*CORE_MODULES, SHARED_LIBRARY)
    built = {m: extension_path(m, package_dir) for m in modules}
    if not any(built.values()):
        return "python", "not compiled (make compiles it)"
    if environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return "python", f"{PURE_PYTHON_ENV} is set"
    missing = sorted(m for m, path in built.items() if path is None)
    if missing:
        return "python", f"stale: no compiled module for {', '.join(missing)}"
    for module in CORE_MODULES:
        source, extension = source_path(module, package_dir), built[module]
        assert extension is not None
        if source.stat().st_mtime > extension.stat().st_mtime:
            return "python", f"stale: {source.name} changed after it was compiled"
    return "compiled", "compiled with mypyc"


class _SourceFinder(importlib.abc.MetaPathFinder):
    """Imports the core modules from their ``.py`` files, passing over the extensions."""

    def __init__(self, package_dir: Path) -> None:
        self.sources = {m: source_path(m, package_dir) for m in CORE_MODULES}

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> importlib.machinery.ModuleSpec | None:
        source = self.sources.get(fullname)
        if source is None:
            return None
        return importlib.util.spec_from_file_location(fullname, source)


_choice: tuple[str, str] = ("python", "not selected yet")


def use_selected_core() -> None:
    """Make the core chosen by :func:`select_core` the one imported (called once, early).

    Must run before any core module is imported: :mod:`sanpath` calls it first thing.
    """
    global _choice
    _choice = select_core()
    mode, why = _choice
    if mode == "python" and any(extension_path(m) for m in CORE_MODULES):
        if not any(isinstance(f, _SourceFinder) for f in sys.meta_path):
            sys.meta_path.insert(0, _SourceFinder(PACKAGE_DIR))
        if why.startswith("stale"):
            warnings.warn(
                f"sanpath: the compiled core is out of date ({why[len('stale: ') :]}); "
                "running the pure-Python core (same numbers, slower). "
                "Run make core to compile it again.",
                RuntimeWarning,
                stacklevel=3,
            )


def core() -> str:
    """``compiled`` or ``python``: the core this process runs (as imported)."""
    import sanpath.sim.engine

    return "compiled" if _is_extension(sanpath.sim.engine) else "python"


def describe() -> str:
    """One line for ``--version`` and benchmarks, e.g. ``compiled core (mypyc)``."""
    if core() == "compiled":
        return "compiled core (mypyc)"
    return f"pure-Python core ({_choice[1]})"


def _is_extension(module: ModuleType) -> bool:
    name = getattr(module, "__file__", None) or ""
    return name.endswith(tuple(importlib.machinery.EXTENSION_SUFFIXES))


# -- building (python sanpath/compiled.py) ----------------------------------------------------


def _missing_tools() -> str | None:
    """What the build lacks (a C compiler, Python's headers), or None."""
    compiler = os.environ.get("CC") or str(sysconfig.get_config_var("CC") or "cc")
    if shutil.which(compiler.split()[0]) is None:
        return f"no C compiler ({compiler.split()[0]})"
    if not (Path(sysconfig.get_paths()["include"]) / "Python.h").is_file():
        return "no Python headers (Python.h)"
    return None


def build(root: Path) -> int:
    """Compile the core in place under ``root`` (the repository); return an exit code.

    Without a C compiler or Python's headers it removes any old compiled modules and
    returns 0: sanpath then runs its pure-Python core. A compile error is an error (exit 1).
    """
    package_dir = root / "sanpath"
    missing = _missing_tools()
    if missing is not None:
        clean(package_dir)
        print(f"sanpath: {missing}; the pure-Python core will run", file=sys.stderr)
        return 0
    from mypyc.build import mypycify
    from setuptools import setup

    paths = [str(source_path(m, package_dir).relative_to(root)) for m in CORE_MODULES]
    os.chdir(root)  # mypyc reads the [mypy] settings of setup.cfg
    setup(
        name="sanpath-core",
        ext_modules=mypycify(paths, opt_level="3", group_name=GROUP),
        script_args=["--quiet", "build_ext", "--inplace"],
    )
    # build_ext copies an unchanged module with its old time stamp: the build has just
    # checked every module against its source, so all of them are current now.
    for module in (*CORE_MODULES, SHARED_LIBRARY):
        extension = extension_path(module, package_dir)
        if extension is not None:
            os.utime(extension)
    mode, why = select_core(package_dir, environ={})
    if mode != "compiled":
        print(f"sanpath: compiled core not usable after the build: {why}", file=sys.stderr)
        return 1
    return 0


def clean(package_dir: Path = PACKAGE_DIR) -> None:
    """Remove every compiled core module (the pure-Python core runs afterwards)."""
    for module in (*CORE_MODULES, SHARED_LIBRARY):
        path = extension_path(module, package_dir)
        while path is not None:
            path.unlink()
            path = extension_path(module, package_dir)


def _main(argv: list[str]) -> int:
    root = PACKAGE_DIR.parent
    if argv == ["--sources"]:
        print(" ".join(str(source_path(m).relative_to(root)) for m in CORE_MODULES))
        return 0
    if argv == ["--clean"]:
        clean()
        return 0
    if argv:
        print("usage: python sanpath/compiled.py [--sources | --clean]", file=sys.stderr)
        return 2
    return build(root)


if __name__ == "__main__":
    # Run as a file, this directory is sys.path[0]; its modules must not shadow others.
    del sys.path[0]
    sys.exit(_main(sys.argv[1:]))
