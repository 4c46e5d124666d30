"""The sweep cache: finished points kept on disk, keyed by everything that made them.

A point's key is a hash of its scenario (as data), its replicate, sanpath's own code
(:func:`code_fingerprint`) and the content (SHA-256) of every file the scenario reads
(:func:`scenario_files`: a replayed trace), so a changed model, scenario or trace never brings
back old rows.

The cache's folder is the ``cache`` argument of :func:`sanpath.sweep` (``--cache DIR``); the
default, :data:`DEFAULT_CACHE`, gives way to the environment variable ``SANPATH_CACHE``
(:data:`CACHE_ENV`). :func:`open_cache` creates the folder and writes a probe in it before the
first point runs, so a folder that cannot be written is an error naming it, not a traceback
after the first point. Every entry is checked when read (:func:`read_entry`): one that is not
the finished row of its own key (truncated, edited by hand, left empty by a crash) is moved to
the ``quarantine`` folder inside the cache with a :class:`CacheWarning` naming both paths, and
its point runs again.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import warnings
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sanpath._version import __version__
from sanpath.files import MIN_FREE, OutputError, check_output, write_text
from sanpath.spec import Scenario

__all__ = [
    "CACHE_ENV",
    "DEFAULT_CACHE",
    "QUARANTINE",
    "CacheWarning",
    "code_fingerprint",
    "file_digest",
    "open_cache",
    "read_entry",
    "scenario_files",
    "task_key",
    "write_entry",
]

DEFAULT_CACHE = Path(".sanpath-cache")
"""Where finished sweep points are kept unless ``SANPATH_CACHE`` or ``cache`` says otherwise
(``cache=None`` turns the cache off)."""

CACHE_ENV = "SANPATH_CACHE"
"""The environment variable naming the cache folder when ``cache`` is left at its default."""

QUARANTINE = "quarantine"
"""The folder inside the cache that damaged entries are moved to."""

_FORMAT = 1
"""The layout of an entry: ``{"sanpath_cache": 1, "key": ..., "row": {...}}``."""


class CacheWarning(UserWarning):
    """A damaged cache entry was moved aside (its point runs again)."""


@functools.lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """A hash of sanpath's own source (every module): points from other code are not reused."""
    digest = hashlib.sha256(__version__.encode())
    root = Path(__file__).resolve().parents[1]
    for path in sorted(root.rglob("*.py")):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()[:16]


_DIGESTS: dict[tuple[str, int, int, int], str] = {}


def file_digest(path: str | Path) -> str:
    """The SHA-256 of a file's bytes (hex), read in 1 MiB blocks.

    Remembered for the process by path, size, inode and modification time, so a sweep of many
    points over one large trace reads it once.
    """
    target = Path(path)
    info = target.stat()
    stamp = (str(target.resolve()), info.st_size, info.st_ino, info.st_mtime_ns)
    known = _DIGESTS.get(stamp)
    if known is not None:
        return known
    digest = hashlib.sha256()
    with target.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    _DIGESTS[stamp] = digest.hexdigest()
    return _DIGESTS[stamp]


def scenario_files(scenario: Scenario) -> list[str]:
    """Every file ``scenario`` reads when it runs (the traces its workloads replay), as
    absolute paths in workload order."""
    return [w.trace.file for w in scenario.workloads if w.trace is not None]


def task_key(data: Mapping[str, Any], replicate: int, files: Sequence[str] = ()) -> str:
    """The cache key of one run: its scenario ``data``, ``replicate``, sanpath's code and the
    content of ``files`` (those the scenario reads)."""
    text = json.dumps(
        {
            "scenario": data,
            "replicate": replicate,
            "code": code_fingerprint(),
            "files": {name: file_digest(name) for name in files},
        },
        sort_keys=True,
        default=str,
    )
    return hashlib.sha256(text.encode()).hexdigest()[:24]


def open_cache(cache: str | Path | None) -> Path | None:
    """The cache folder for ``cache`` (see the module docstring), created and checked.

    Returns None when ``cache`` is None (no cache).

    Raises
    ------
    sanpath.files.OutputError
        Naming the folder, when it cannot be created or written, or has less than
        :data:`sanpath.files.MIN_FREE` bytes free.
    """
    if cache is None:
        return None
    folder = Path(cache)
    if cache is DEFAULT_CACHE and os.environ.get(CACHE_ENV):
        folder = Path(os.environ[CACHE_ENV])
    advice = f"give --cache DIR (or set {CACHE_ENV}), or --no-cache"
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(
            f"{folder}: cannot keep the sweep cache here ({exc.strerror or exc}); {advice}"
        ) from None
    try:
        check_output(folder / "entry.json", (), "sweep cache", force=True, space=MIN_FREE)
    except OutputError as exc:
        raise OutputError(f"{exc}; {advice}") from None
    return folder


def _damage(entry: Any, key: str) -> str | None:
    """What is wrong with a decoded entry for ``key``, or None when it is whole."""
    if not isinstance(entry, dict):
        return f"expected a JSON object, found {type(entry).__name__}"
    if entry.get("sanpath_cache") != _FORMAT or entry.get("key") != key:
        return "not an entry of this key"
    row = entry.get("row")
    if not isinstance(row, dict):
        return "no row"
    if not isinstance(row.get("replicate"), int):
        return "the row has no replicate"
    iops = row.get("iops")
    if not isinstance(iops, int | float) or isinstance(iops, bool):
        return "the row has no iops"
    return None


def read_entry(folder: Path, key: str) -> dict[str, Any] | None:
    """The finished row kept under ``key``, or None; a damaged entry is quarantined.

    A damaged entry is moved to ``<folder>/quarantine/<key>.json`` (replacing an older one of
    that name) with a :class:`CacheWarning`, and None is returned so the point runs again.
    """
    path = folder / f"{key}.json"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        problem: str | None = f"cannot be read ({exc.strerror or exc})"
    else:
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError) as exc:
            problem = f"not JSON ({' '.join(str(exc).split())})" if raw.strip() else "empty"
        else:
            problem = _damage(entry, key)
            if problem is None:
                row: dict[str, Any] = entry["row"]
                return row
    aside = folder / QUARANTINE / path.name
    try:
        aside.parent.mkdir(exist_ok=True)
        os.replace(path, aside)
        moved = f"moved to {aside}"
    except OSError as exc:
        moved = f"could not be moved aside ({exc.strerror or exc}); delete it"
    warnings.warn(
        f"{path}: damaged sweep cache entry ({problem}); {moved}; its point runs again",
        CacheWarning,
        stacklevel=2,
    )
    return None


def write_entry(folder: Path, key: str, row: Mapping[str, Any]) -> bool:
    """Keep a finished ``row`` under ``key`` (written whole, flushed, then renamed).

    Returns False, with a :class:`CacheWarning`, when the entry cannot be written (a full
    disk): the sweep keeps its rows in memory and writes its table as usual.
    """
    entry = {"sanpath_cache": _FORMAT, "key": key, "row": row}
    try:
        write_text(folder / f"{key}.json", json.dumps(entry, default=str))
    except (OutputError, OSError) as exc:
        warnings.warn(
            f"{folder}: cannot keep finished points any more ({exc}); the sweep goes on "
            "without its cache (an interruption now loses the points not kept)",
            CacheWarning,
            stacklevel=2,
        )
        return False
    return True
