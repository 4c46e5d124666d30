"""Sphinx configuration: the sanpath documentation (MyST Markdown and notebooks).

Build from the repository root, warnings as errors:

    .venv/bin/python -m sphinx -b html --fail-on-warning --nitpicky docs docs/_build/html

The build is offline: no intersphinx, no remote fonts, icons or scripts.
"""

from __future__ import annotations

import hashlib
import os
import sys
from pathlib import Path

import sanpath

DOCS = Path(__file__).resolve().parent
sys.path.insert(0, str(DOCS / "_ext"))

# -- project -------------------------------------------------------------------------------

project = "sanpath"
author = "the sanpath authors"
copyright = "the sanpath authors"
version = sanpath.__version__
release = sanpath.__version__

# -- sources -------------------------------------------------------------------------------

extensions = [
    "myst_nb",
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "sanpath_docs",  # docs/_ext: CLI help, notebooks copy, schema freshness check
    "sanpath_plots",  # docs/_ext: pictures drawn by the command shown beside them
]
root_doc = "index"
exclude_patterns = [
    "_build",
    "_ext",
    "_generated",
    "scenarios",
    "validation/*.md",  # generated fragments, included by the pages that show them
    "**/.ipynb_checkpoints",
    "Thumbs.db",
    ".DS_Store",
]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3



def _sources_digest() -> str:
    """A digest of sanpath's sources and the shipped scenarios, which the notebooks run."""
    digest = hashlib.sha256()
    root = DOCS.parent
    for path in sorted([*root.glob("sanpath/**/*.py"), *root.glob("scenarios/**/*.yaml")]):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


# Notebooks are committed without outputs; the build runs them so the pages show their
# tables and plots (CI also runs them with nbmake). Executed notebooks are cached (MyST-NB's
# cache mode, jupyter-cache): a notebook runs again when it changes, and the cache lives under
# a digest of sanpath's sources and scenarios, so a change to either runs every notebook
# again. SANPATH_DOCS_EXECUTE=force (make docs DOCS_EXECUTE=force, as CI builds) executes
# every notebook whatever the cache holds.
nb_execution_mode = os.environ.get("SANPATH_DOCS_EXECUTE") or "cache"
nb_execution_cache_path = str(DOCS / "_build" / "jupyter_cache" / _sources_digest())
nb_execution_timeout = 300
nb_execution_raise_on_error = True
suppress_warnings = ["mystnb.unknown_mime_type"]
# No CDN scripts for ipywidgets: the site is static and must not reach the network. A
# widget needs a running kernel, so the static page shows the picture of its panel that
# sanpath's widgets carry beside the live view (image/png) instead.
nb_ipywidgets_js: dict[str, dict[str, str]] = {}
nb_mime_priority_overrides = [("html", "application/vnd.jupyter.widget-view+json", None)]

# -- API reference ---------------------------------------------------------------------------

# Constructors are left out: results and reports are built by sanpath, not by hand.
autodoc_default_options = {"member-order": "bysource", "exclude-members": "__init__, __new__"}
autodoc_typehints = "signature"
autodoc_class_signature = "separated"
autodoc_preserve_defaults = True
napoleon_google_docstring = False
napoleon_numpy_docstring = True
napoleon_use_ivar = True  # "Attributes" sections as fields, not duplicate attribute entries
napoleon_use_rtype = False

nitpicky = True
# The build is offline (no intersphinx), so types from outside sanpath cannot be linked.
# Each pattern below names only such types, as they appear in signatures and docstrings.
nitpick_ignore_regex = [
    # the standard library: Sequence, Mapping, Path, Executor
    (r"py:class", r"(collections\.abc|concurrent\.futures|pathlib)\..*|Path"),
    # third-party types: arrays, DataFrames, Matplotlib Axes and Figures
    (r"py:class", r"(numpy|pandas|matplotlib)\..*|pd\.DataFrame"),
    # words of numpydoc type phrases ("sequence of float, optional", "ndarray of float64,
    # shape (N, K)") that napoleon turns into cross-references
    (r"py:class", r"optional|sequence|shape|int64|float64|N|K|array_like|default .*"),
]

# -- HTML ----------------------------------------------------------------------------------

html_theme = "pydata_sphinx_theme"
html_title = f"sanpath {release}"
html_theme_options = {
    "icon_links": [],
    "header_links_before_dropdown": 6,
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "footer_start": ["copyright"],
    "footer_end": ["sphinx-version"],
}
html_sidebars = {"index": []}
html_show_sourcelink = True
# Tutorials and reference pages use the whole width for their tables and outputs: no "on
# this page" column there (docs/_static/sanpath.css keeps prose at a readable measure).
WIDE_PAGES = [
    *(f"notebooks/{p.stem}" for p in sorted((DOCS.parent / "notebooks").glob("*.ipynb"))),
    *(f"howto/{p.stem}" for p in sorted((DOCS / "howto").glob("*.md"))),
    "gallery",
    "validation",
    "twin",
    "scenario",
    "schema",
    "results",
    "cli",
    "check",
]
html_theme_options["secondary_sidebar_items"] = {page: [] for page in WIDE_PAGES}
# The mode switch reads this on every page: an empty mode logs an error in the browser.
html_context = {"default_mode": "auto"}
html_static_path = ["_static"]
html_css_files = ["sanpath.css"]
html_js_files = ["sanpath.js"]
