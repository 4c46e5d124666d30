"""fio's two formats: a result (``--output-format=json``/``json+``) or a job file (INI).

:func:`read` tells them apart by content (a result is a JSON object, possibly after lines
fio printed before it); :mod:`~sanpath.ingest.fio_json` and :mod:`~sanpath.ingest.fio_job`
read each, both through :mod:`~sanpath.ingest.fio_options` for the job options.
"""

from __future__ import annotations

import re
from pathlib import Path

from sanpath.ingest import fio_job, fio_json
from sanpath.ingest.model import Measured
from sanpath.ingest.text import read_text


def is_json(text: str) -> bool:
    """Whether ``text`` looks like a fio JSON result rather than a job file."""
    for line in text.splitlines():
        stripped = line.strip()
        if stripped.startswith("{"):
            return True
        if stripped.startswith("[") or re.fullmatch(r"[A-Za-z_]\w*\s*(=.*)?", stripped):
            return False
    return False


def read(path: str | Path) -> Measured:
    """A fio JSON result or job file, whichever ``path`` holds."""
    source = str(path)
    text = read_text(path)
    if is_json(text):
        return fio_json.parse(text, source)
    return fio_job.parse(text, source)
