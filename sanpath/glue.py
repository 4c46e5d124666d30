"""Figures a notebook hands to its documentation page, whether or not the docs tools exist.

The tutorials quote their own results in their prose (``{glue:text}`iops:,.0f```): MyST-NB's
``glue`` stores a value under a name when the documentation build runs the notebook. A
reader who installed sanpath with its ``notebook`` extra has no MyST-NB, so the notebooks
call :func:`glue` from here, which hands the value on when MyST-NB is there and otherwise
only shows it (``display=True``) or does nothing.
"""

from __future__ import annotations

import importlib
from typing import Any

__all__ = ["glue"]


def glue(name: str, value: Any, display: bool = True) -> None:
    """Store ``value`` under ``name`` for the page (MyST-NB's ``glue``); without MyST-NB,
    show ``value`` when ``display`` and otherwise do nothing."""
    try:
        myst_nb = importlib.import_module("myst_nb")
    except ImportError:
        if display:
            from IPython.display import display as show

            show(value)  # type: ignore[no-untyped-call]
        return
    myst_nb.glue(name, value, display=display)
