"""Notebooks run as a reader runs them: sanpath and its ``notebook`` extra, no docs tools.

Put this folder on ``PYTHONPATH`` (``make notebooks`` does) and every Python process,
notebook kernels included, finds no MyST-NB, Sphinx or docutils, as after
``pip install sanpath[notebook]``.
"""

from __future__ import annotations

import sys
from importlib.abc import MetaPathFinder

BLOCKED = ("myst_nb", "myst_parser", "sphinx", "docutils", "jupyter_cache")


class WithoutDocsTools(MetaPathFinder):
    """Finds the docs tools' modules missing."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name.split(".")[0] in BLOCKED:
            raise ModuleNotFoundError(f"No module named {name!r} (docs tools are blocked)")
        return None


sys.meta_path.insert(0, WithoutDocsTools())
