"""The tests of ``site/`` read the built documentation: ``make docs`` runs them after the build,
with ``SANPATH_DOCS_SITE`` naming the build folder (``docs/_build``). Without it they are not
collected (the rest of the suite runs before the site exists)."""

from __future__ import annotations

import os

collect_ignore_glob = [] if os.environ.get("SANPATH_DOCS_SITE") else ["site/*"]
