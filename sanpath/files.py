"""Output files that never lose work: checked before the work starts, written atomically.

Every ``--out`` of the command line (and the ``out`` of :func:`sanpath.sweep`) goes
through :func:`check_output` before any simulation runs, so a directory, a missing parent
directory, a location that cannot be written or an extension sanpath cannot write is an
error at once, not a traceback after an hour of work. Files are then written with
:func:`atomic_path` (or :func:`write_text`): into a temporary file in the same directory,
then moved over the target with ``os.replace``, so a reader never sees half a file and
an interrupted write leaves the old file as it was. A file that records who wrote it (a
``sweep_id`` in JSON, or a sidecar JSON file beside a CSV) is overwritten only by the same
writer, unless forced (:func:`check_overwrite`).
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = [
    "OutputError",
    "atomic_path",
    "check_output",
    "check_overwrite",
    "recorded_identity",
    "write_text",
]


class OutputError(ValueError):
    """An output path that cannot be written (the command line exits with code 2)."""


def check_output(path: str | Path, suffixes: Sequence[str] = (), what: str = "output") -> Path:
    """Refuse an output path that cannot be written, before any work is done.

    Parameters
    ----------
    path
        The file to be written.
    suffixes
        Accepted extensions, lower case with the dot (``(".csv", ".json")``); empty accepts
        any.
    what
        What the file is, for messages (``"sweep table"``).

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    OutputError
        Naming the path: it is a directory, its directory does not exist or cannot be
        written, the file exists and is read-only, or its extension is not one of
        ``suffixes``.
    """
    target = Path(path)
    if target.is_dir():
        raise OutputError(
            f"{target}: is a directory; give a file name for the {what}, e.g. "
            f"{target / ('out' + (suffixes[0] if suffixes else ''))}"
        )
    if suffixes and target.suffix.lower() not in suffixes:
        shown = repr(target.suffix) if target.suffix else "no extension"
        expected = " or ".join(suffixes) if len(suffixes) < 3 else "one of " + ", ".join(suffixes)
        raise OutputError(f"{target}: cannot write a {what} with {shown}: expected {expected}")
    parent = target.parent
    if not parent.exists():
        raise OutputError(f"{target}: directory {parent} does not exist (create it first)")
    if not parent.is_dir():
        raise OutputError(f"{target}: {parent} is not a directory")
    if target.exists() and not os.access(target, os.W_OK):
        raise OutputError(f"{target}: the file exists and is read-only")
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{target.name}."):
            pass
    except OSError as exc:
        raise OutputError(f"{target}: cannot write in {parent}: {exc.strerror or exc}") from None
    return target


def _mode_for(target: Path) -> int:
    """Permissions for a new file: the old file's, or what the umask gives a new file."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


@contextlib.contextmanager
def atomic_path(path: str | Path) -> Iterator[Path]:
    """A temporary path beside ``path``; on success it replaces ``path`` in one step.

    The temporary file keeps ``path``'s extension (matplotlib picks the format from it).
    If the block raises, the temporary file is removed and ``path`` is left as it was.

    >>> with atomic_path("table.csv") as tmp:           # doctest: +SKIP
    ...     frame.to_csv(tmp, index=False)
    """
    target = Path(path)
    handle, name = tempfile.mkstemp(
        dir=target.parent, prefix=f".{target.name}.", suffix=f".tmp{target.suffix}"
    )
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, _mode_for(target))
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically; return the path."""
    target = Path(path)
    with atomic_path(target) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return target


def recorded_identity(path: str | Path, sidecar: str = "") -> str | None:
    """The ``sweep_id`` a file records: a key of a JSON file, else of ``<path><sidecar>``."""
    target = Path(path)
    source = target if target.suffix.lower() == ".json" else Path(f"{target}{sidecar}")
    try:
        payload = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    value = payload.get("sweep_id") if isinstance(payload, dict) else None
    return value if isinstance(value, str) else None


def check_overwrite(
    path: str | Path, identity: str, *, force: bool, sidecar: str, writer: str
) -> None:
    """Refuse to overwrite an existing ``path`` that another run of ``writer`` wrote.

    The file may be replaced when it does not exist, when it records the same non-empty
    ``identity`` (see :func:`recorded_identity`) or with ``force``. A file recording no
    identity (not written by sanpath, or its sidecar lost) is refused too.

    Raises
    ------
    OutputError
        Naming the file, the choice of another ``--out`` and ``--force``.
    """
    target = Path(path)
    if force or not target.exists():
        return
    recorded = recorded_identity(target, sidecar)
    if identity and recorded == identity:
        return
    what = (
        f"a table written by a different {writer}"
        if recorded is not None
        else f"a file sanpath {writer} did not write (or whose identity is lost)"
    )
    raise OutputError(
        f"{target}: already holds {what}; choose another --out, or pass --force (command "
        "line) or force=True (Python) to overwrite it"
    )
