"""The simulation core, compiled with mypyc, or its pure-Python source.

The modules on a simulated command's path (:data:`CORE_MODULES`: the event kernel, stations,
the engine, the components, the routes made on first use, workloads, random streams and the
streaming statistics) are ordinary typed Python. Every install compiles them with mypyc
(https://mypyc.readthedocs.io) where a C compiler works, the way mypy and black ship:
``pip install .``, a wheel from ``pip wheel .`` or ``python -m build``, and ``make`` (in
place, ``make core``). Each module gets an extension module beside its source, and the
generated code of all of them lives in one shared library, ``sanpath/core__mypyc.*.so``.
Python imports an extension module in preference to the source, so the compiled core then
runs, several times faster (``make bench`` prints both cores' figures). Both cores give the
same numbers to the last bit (``tests/test_compiled.py``).

Where no C compiler works the build installs the same modules as pure Python and says so
in one line (``pip install -v`` shows it); ``sanpath --version`` names the core that runs
and, for the pure-Python one, why. ``SANPATH_COMPILE=0`` builds the pure-Python core on
purpose. Each build leaves a record beside the modules (``RECORD``): which core it
built, why, and a digest of every core source it compiled.

The pure-Python source runs instead of the compiled core:

* where nothing was compiled (no C compiler, ``SANPATH_COMPILE=0``, a source checkout
  before ``make``);
* when ``SANPATH_PURE_PYTHON=1`` is set, e.g. for a profiler such as pyinstrument, which sees
  only Python code;
* with a warning, when a core source differs from the one compiled (it was edited after
  the build), so that an edit never silently runs old code.

:func:`select_core` makes that choice when :mod:`sanpath` is imported; :func:`core` tells
which core the running process uses.

Run as a script (``python sanpath/compiled.py``, as ``make core`` does) this module compiles
the core in place, unless the compiled core is current; ``--sources`` lists the source
files and ``--clean`` removes what was compiled. It uses only the standard library until it
compiles, so the Makefile can ask for the list before any virtual environment exists, and
``setup.py`` loads it by path for the build (``mypyc_extensions``,
``compiler_problem``, ``write_record``).
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import subprocess
import sys
import sysconfig
import tempfile
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from types import ModuleType
from typing import Any

CORE_MODULES = (
    "sanpath.layout.wiring",
    "sanpath.layout.raid",
    "sanpath.layout.geometry",
    "sanpath.sim.agenda",
    "sanpath.sim.kernel",
    "sanpath.sim.forkjoin",
    "sanpath.sim.station",
    "sanpath.sim.credit",
    "sanpath.sim.readlimit",
    "sanpath.sim.hops",
    "sanpath.stats.histogram",
    "sanpath.stats.intervals",
    "sanpath.stats.batches",
    "sanpath.stats.timeseries",
    "sanpath.stats.groups",
    "sanpath.sim.seeds",
    "sanpath.sim.streams",
    "sanpath.sim.devices",
    "sanpath.sim.replay",
    "sanpath.sim.knobs",
    "sanpath.sim.binding",
    "sanpath.sim.paths",
    "sanpath.sim.routes",
    "sanpath.sim.sources",
    "sanpath.sim.load",
    "sanpath.sim.components.array",
    "sanpath.sim.components.destage",
    "sanpath.sim.components.cache",
    "sanpath.sim.components.drive",
    "sanpath.sim.components.flash",
    "sanpath.sim.components.hba",
    "sanpath.sim.components.host",
    "sanpath.sim.components.raid",
    "sanpath.sim.control",
    "sanpath.sim.measure",
    "sanpath.sim.wire",
    "sanpath.sim.transfer",
    "sanpath.sim.engine",
)
"""The modules mypyc compiles, those a simulated command runs through."""

GROUP = "sanpath.core"
"""mypyc's name for the core modules compiled together."""

SHARED_LIBRARY = f"{GROUP}__mypyc"
"""The extension module that holds the compiled code of every core module."""

PURE_PYTHON_ENV = "SANPATH_PURE_PYTHON"
"""Set to 1 to run the pure-Python core even where the compiled one is built."""

COMPILE_ENV = "SANPATH_COMPILE"
"""Set to 0 when building (``pip install``, ``pip wheel``) to build the pure-Python core."""

RECORD = "core-build.json"
"""The record a build leaves in the package directory: ``{"core": "compiled" | "python",
"why": ..., "sources": {path: sha256}}`` (the digests of the compiled sources)."""

MYPYC_CONFIG = "[mypy]\nignore_missing_imports = True\nfollow_imports = silent\n"
"""mypy's settings when mypyc compiles the core (written to ``build/mypyc.ini``).

The type check proper is ``make lint`` (strict, setup.cfg); the compile needs only the types
of the core, so that of the installed packages just numpy (whose array types the core's
annotations use) and simpy must be there, as in pip's isolated build (pyproject.toml)."""

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


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def source_digests(package_dir: Path = PACKAGE_DIR) -> dict[str, str]:
    """The SHA-256 of every core source, by its path in the package (``sim/engine.py``)."""
    return {
        source_path(m, package_dir).relative_to(package_dir).as_posix(): _digest(
            source_path(m, package_dir)
        )
        for m in CORE_MODULES
    }


def read_record(package_dir: Path = PACKAGE_DIR) -> dict[str, Any] | None:
    """The record of the last build in ``package_dir`` (see :data:`RECORD`), or None."""
    try:
        record = json.loads((package_dir / RECORD).read_text())
    except (OSError, ValueError):
        return None
    return record if isinstance(record, dict) else None


def write_record(target: Path, core: str, why: str, package_dir: Path = PACKAGE_DIR) -> None:
    """Record in directory ``target`` that a build made the ``core`` core (``compiled`` or
    ``python``) and ``why``; a compiled core's record holds the digests of the sources in
    ``package_dir`` that it was compiled from."""
    record: dict[str, Any] = {"core": core, "why": why}
    if core == "compiled":
        record["sources"] = source_digests(package_dir)
    target.mkdir(parents=True, exist_ok=True)
    (target / RECORD).write_text(json.dumps(record, indent=1, sort_keys=True) + "\n")


def select_core(
    package_dir: Path = PACKAGE_DIR, environ: Mapping[str, str] = os.environ
) -> tuple[str, str]:
    """Which core to import: ``("compiled" | "python", why)``, without side effects.

    ``python`` with a reason starting ``stale`` means compiled modules exist but do not
    match the sources (a source edited since, or a module missing); the caller warns.
    A source newer than its compiled module is compared with the build's record, so that
    the time stamps of an unpacked wheel do not count as an edit.
    """
    modules = (*CORE_MODULES, SHARED_LIBRARY)
    built = {m: extension_path(m, package_dir) for m in modules}
    record = read_record(package_dir) or {}
    if not any(built.values()):
        if record.get("core") == "python":
            return "python", str(record.get("why", "not compiled"))
        return "python", "not compiled (make compiles it)"
    if environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
        return "python", f"{PURE_PYTHON_ENV} is set"
    missing = sorted(m for m, path in built.items() if path is None)
    if missing:
        return "python", f"stale: no compiled module for {', '.join(missing)}"
    digests = record.get("sources") if record.get("core") == "compiled" else None
    for module in CORE_MODULES:
        source, extension = source_path(module, package_dir), built[module]
        assert extension is not None
        if source.stat().st_mtime > extension.stat().st_mtime:
            key = source.relative_to(package_dir).as_posix()
            if not isinstance(digests, dict) or digests.get(key) != _digest(source):
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


# -- building: setup.py (pip install, pip wheel, python -m build) and make core ------------


def compiler_problem() -> str | None:
    """Why no C compiler here can build the core (None when one can).

    Compiles a small C file that includes Python.h with the compiler an extension build
    would use (``CC`` and Python's own settings), so a missing compiler, a broken one and
    missing Python headers are all found before mypyc starts.
    """
    importlib.import_module("setuptools")  # provides distutils where Python no longer does
    ccompiler: Any = importlib.import_module("distutils.ccompiler")
    build_config: Any = importlib.import_module("distutils.sysconfig")
    with tempfile.TemporaryDirectory() as tmp:
        probe = Path(tmp) / "probe.c"
        probe.write_text("#include <Python.h>\nint sanpath_probe(void) { return 0; }\n")
        compiler: Any = ccompiler.new_compiler()
        name = str(compiler.compiler_type)
        try:
            build_config.customize_compiler(compiler)
            name = os.path.basename(str(getattr(compiler, "compiler_so", [name])[0]))
            compiler.compile(
                [str(probe)], output_dir=tmp, include_dirs=[sysconfig.get_paths()["include"]]
            )
        except Exception:  # whatever went wrong, this compiler cannot build the core
            return f"no working C compiler ({name} cannot compile a file that includes Python.h)"
    return None


def pure_notice(why: str) -> str:
    """The one line a build prints when it installs the pure-Python core."""
    return (
        f"sanpath: {why}; installing the pure-Python core (the same results, several times "
        "slower; sanpath --version tells which core runs)"
    )


def mypyc_extensions(root: Path) -> list[Any]:
    """mypyc's extension modules for the core under ``root`` (the project directory, which
    must be the current one); the generated C goes to ``root/build``."""
    from mypyc.build import mypycify

    build_dir = root / "build"
    build_dir.mkdir(exist_ok=True)
    config = build_dir / "mypyc.ini"
    config.write_text(MYPYC_CONFIG)
    paths = [str(source_path(m, root / "sanpath").relative_to(root)) for m in CORE_MODULES]
    extensions: list[Any] = mypycify(
        ["--config-file", str(config), *paths], opt_level="3", group_name=GROUP
    )
    return extensions


def build(root: Path) -> int:
    """Compile the core in place under ``root`` (``make core``); return an exit code.

    Nothing to do when the compiled core is current. Without a working C compiler it
    removes any old compiled modules, records why and returns 0: sanpath then runs its
    pure-Python core. A compile error is an error (exit 1).
    """
    package_dir = root / "sanpath"
    if select_core(package_dir, environ={})[0] == "compiled":
        return 0
    problem = compiler_problem()
    if problem is not None:
        clean(package_dir)
        write_record(package_dir, "python", f"not compiled: {problem}", package_dir)
        print(pure_notice(problem), file=sys.stderr)
        return 0
    command = [sys.executable, "setup.py", "--quiet", "build_ext", "--inplace", "--strict"]
    env = {k: v for k, v in os.environ.items() if k != COMPILE_ENV}
    if subprocess.run(command, cwd=root, env=env, check=False).returncode != 0:
        return 1
    mode, why = select_core(package_dir, environ={})
    if mode != "compiled":
        print(f"sanpath: compiled core not usable after the build: {why}", file=sys.stderr)
        return 1
    return 0


def clean(package_dir: Path = PACKAGE_DIR) -> None:
    """Remove every compiled core module and the build's record (the pure-Python core runs
    afterwards)."""
    for module in (*CORE_MODULES, SHARED_LIBRARY):
        path = extension_path(module, package_dir)
        while path is not None:
            path.unlink()
            path = extension_path(module, package_dir)
    (package_dir / RECORD).unlink(missing_ok=True)


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
