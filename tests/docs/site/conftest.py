"""The built documentation site, from ``SANPATH_DOCS_SITE`` (see ``tests/docs/conftest.py``)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import ROOT


@pytest.fixture(scope="session")
def build() -> Path:
    """The build folder: ``html/`` the site, ``jupyter_execute/`` the executed pages."""
    path = Path(os.environ["SANPATH_DOCS_SITE"])
    path = path if path.is_absolute() else ROOT / path
    assert (path / "html" / "index.html").is_file(), f"no built site in {path}: run make docs"
    return path
