"""Imports that cross a module's privacy or a package's face, read from sanpath's source.

* a **private import** brings an underscored name (``_helper``, not ``__version__``) from
  another module: a helper one module shares with another is public, in that module's
  ``__all__``;
* a **face bypass** imports from ``sanpath.pkg.module`` (or the module ``module`` out of
  ``sanpath.pkg``) outside ``sanpath.pkg``: a plain module is imported only by the modules
  of its own package (and its sub-packages); everything else imports a package's face, its
  ``__init__.py`` (``sanpath.pkg``, or a sub-package's face such as ``sanpath.pkg.sub``).
  The top-level modules (``sanpath.units``, ``sanpath.cli``, ...) are faces of their own.

Imports under ``if TYPE_CHECKING:`` count too. Run ``python tests/import_audit.py`` for the
lists (``--count`` for the totals); ``tests/test_architecture.py`` holds them at their
allow-lists.
"""

from __future__ import annotations

import ast
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "sanpath"


@dataclass(frozen=True)
class Crossing:
    """One import: ``importer`` (a module) takes ``name`` from ``source`` at ``line``."""

    importer: str
    line: int
    source: str
    name: str

    def __str__(self) -> str:
        return f"{self.importer}:{self.line}: {self.source} -> {self.name}"


def _modules() -> dict[str, Path]:
    out = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(ROOT).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _packages(modules: dict[str, Path]) -> set[str]:
    return {name for name, path in modules.items() if path.name == "__init__.py"}


def _bound(path: Path) -> set[str]:
    """The names a package's ``__init__.py`` binds: what its face offers."""
    names: set[str] = set()
    for node in ast.parse(path.read_text(), str(path)).body:
        if isinstance(node, ast.Import | ast.ImportFrom):
            names |= {(a.asname or a.name).split(".")[0] for a in node.names}
        elif isinstance(node, ast.FunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign):
            names |= {t.id for t in node.targets if isinstance(t, ast.Name)}
    return names


def _imports(name: str, path: Path, is_package: bool) -> list[tuple[int, str, str | None]]:
    """(line, module, imported name or None) for each import of a sanpath module."""
    out: list[tuple[int, str, str | None]] = []
    here = name if is_package else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name, None) for a in node.names if a.name.startswith("sanpath")]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = here.split(".")
                base = base[: len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            if module.split(".")[0] == "sanpath":
                out += [(node.lineno, module, a.name) for a in node.names]
    return out


def _inside(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def audit() -> tuple[list[Crossing], list[Crossing]]:
    """(private imports, face bypasses) over every module of sanpath."""
    modules = _modules()
    packages = _packages(modules)
    faces = {package: _bound(modules[package]) for package in packages}
    private: list[Crossing] = []
    bypass: list[Crossing] = []
    for importer, path in modules.items():
        for line, source, name in _imports(importer, path, importer in packages):
            target = source
            if (
                name is not None
                and f"{source}.{name}" in modules
                and (source != importer and name not in faces.get(source, set()))
            ):
                target = f"{source}.{name}"  # `from pkg import module`
            elif (
                name is not None
                and name.startswith("_")
                and not name.startswith("__")
                and source != importer
            ):
                private.append(Crossing(importer, line, source, name))
            # a plain module is imported only from inside its own package
            package = target.rpartition(".")[0]
            if target not in packages and package != "sanpath" and not _inside(importer, package):
                bypass.append(Crossing(importer, line, source, name or target))
    return private, bypass


def main(argv: list[str]) -> int:
    private, bypass = audit()
    if "--count" not in argv:
        print("private names imported across modules:")
        print("\n".join(f"  {c}" for c in private))
        print("imports past a package's face:")
        print("\n".join(f"  {c}" for c in bypass))
    print(f"{len(private)} private imports, {len(bypass)} face bypasses")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
