"""Output files that never lose work: checked before the work starts, written atomically.

Every ``--out`` of the command line (and the ``out`` of :func:`sanpath.sweep`) goes
through :func:`check_output` before any simulation runs, so a directory, a missing parent
directory, a location that cannot be written, a disk without room, an extension sanpath
cannot write, or a file that already exists (without ``force``, the ``--force`` of the
command line) is an error at once, not a traceback after an hour of work. Files are then
written with :func:`atomic_path` (or :func:`write_text`): into a temporary file in the same
directory, flushed to the disk (``fsync``), then moved over the target in one step, so a
reader never sees half a file and an interrupted write or a full disk leaves the old file as
it was. A file that records who wrote it (a ``sweep_id`` in JSON, or a sidecar JSON file
beside a CSV) is overwritten only by the same writer, unless forced
(:func:`check_overwrite`).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path

__all__ = [
    "MAX_INPUT_BYTES",
    "MIN_FREE",
    "InputError",
    "OutputError",
    "atomic_path",
    "check_input",
    "check_output",
    "check_overwrite",
    "locked",
    "read_input",
    "recorded_identity",
    "write_text",
]


MIN_FREE = 1 << 20
"""Bytes that must be free beside an output before the work starts, unless the caller
estimates its own file (1 MiB: a table, a picture or a page)."""

_DISK_ERRORS = (errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EROFS)
"""Write errors that are the disk's, not the data's: reported as :class:`OutputError`."""


MAX_INPUT_BYTES = 1 << 30
"""The largest result file (a run JSON, a sweep table) read whole, in bytes (1 GiB)."""


class OutputError(ValueError):
    """An output path that cannot be written (the command line exits with code 2)."""


class InputError(ValueError):
    """A file that cannot be read: missing, a directory, not a regular file, or too large
    (the command line exits with code 2)."""


def check_input(path: str | Path, what: str = "file", limit: int = MAX_INPUT_BYTES) -> Path:
    """Refuse a file to be read whole unless it is a regular file of at most ``limit`` bytes.

    A pipe would block forever and a device such as ``/dev/zero`` never ends: both are
    refused by name, as is a file larger than ``limit``.

    Raises
    ------
    InputError
        Naming the path and what is wrong with it.
    """
    target = Path(path)
    try:
        info = target.stat()
    except FileNotFoundError:
        raise InputError(f"{target}: no such file") from None
    except OSError as exc:
        raise InputError(f"{target}: cannot be read ({exc.strerror or exc})") from None
    if stat.S_ISDIR(info.st_mode):
        raise InputError(f"{target}: is a directory, not a {what}")
    if not stat.S_ISREG(info.st_mode):
        raise InputError(f"{target}: is not a regular file (a pipe or a device); give a {what}")
    if info.st_size > limit:
        raise InputError(
            f"{target}: is {_size(info.st_size)}; a {what} is read whole, up to {_size(limit)}"
        )
    return target


def read_input(path: str | Path, what: str = "file", limit: int = MAX_INPUT_BYTES) -> str:
    """The UTF-8 text (a byte order mark dropped) of a file checked by :func:`check_input`.

    Raises
    ------
    InputError
        As :func:`check_input`, and for text that is not UTF-8.
    """
    target = check_input(path, what, limit)
    try:
        return target.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise InputError(f"{target}: not UTF-8 text (byte {exc.start}); not a {what}") from None
    except OSError as exc:
        raise InputError(f"{target}: cannot be read ({exc.strerror or exc})") from None


def _size(count: float) -> str:
    """``count`` bytes in words (``1.5 MB``)."""
    for unit in ("bytes", "kB", "MB", "GB"):
        if count < 1000:
            return f"{count:.0f} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1000
    return f"{count:.1f} TB"


def check_output(
    path: str | Path,
    suffixes: Sequence[str] = (),
    what: str = "output",
    *,
    force: bool = False,
    space: int = MIN_FREE,
) -> Path:
    """Refuse an output path that cannot or may not be written, before any work is done.

    Parameters
    ----------
    path
        The file to be written.
    suffixes
        Accepted extensions, lower case with the dot (``(".csv", ".json")``); empty accepts
        any.
    what
        What the file is, for messages (``"sweep table"``).
    force
        Allow replacing an existing file (``--force``); without it an existing file is
        refused.
    space
        Bytes that must be free in the file's directory (default :data:`MIN_FREE`).

    Returns
    -------
    Path
        ``path`` as a :class:`~pathlib.Path`.

    Raises
    ------
    OutputError
        Naming the path: it is a directory, its directory does not exist or cannot be
        written or has less than ``space`` bytes free, the file exists (without ``force``)
        or is read-only, or its extension is not one of ``suffixes``.
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
    if target.exists() and not force:
        raise OutputError(
            f"{target}: already exists; choose another --out, or pass --force (command line) "
            "or force=True (Python) to replace it"
        )
    try:
        with tempfile.NamedTemporaryFile(dir=parent, prefix=f".{target.name}."):
            pass
    except OSError as exc:
        raise OutputError(f"{target}: cannot write in {parent}: {exc.strerror or exc}") from None
    free = shutil.disk_usage(parent).free
    if free < space:
        raise OutputError(
            f"{target}: only {_size(free)} free in {parent}, and the {what} needs about "
            f"{_size(space)}; free some space or write elsewhere"
        )
    return target


def _mode_for(target: Path) -> int:
    """Permissions for a new file: the old file's, or what the umask gives a new file."""
    try:
        return target.stat().st_mode & 0o777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _sync_directory(directory: Path) -> None:
    """Flush a directory's entries (a rename) to the disk, where the system allows it."""
    with contextlib.suppress(OSError):
        handle = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(handle)
        finally:
            os.close(handle)


def _sync_file(path: Path) -> None:
    """Flush a written file's bytes to the disk before it is renamed into place."""
    handle = os.open(path, os.O_RDONLY)
    try:
        os.fsync(handle)
    finally:
        os.close(handle)


def _move(tmp: Path, target: Path, replace: bool) -> None:
    """Put ``tmp`` at ``target`` in one step; without ``replace``, never over an existing
    file (a hard link fails if the name is taken, so two writers cannot both win)."""
    if replace:
        os.replace(tmp, target)
        return
    try:
        os.link(tmp, target)
    except FileExistsError:
        raise OutputError(
            f"{target}: appeared while sanpath worked (another run wrote it?); choose another "
            "--out, or pass --force (command line) or force=True (Python) to replace it"
        ) from None
    except OSError:  # a file system without hard links: check, then rename
        if target.exists():
            raise OutputError(f"{target}: appeared while sanpath worked; pass --force") from None
        os.replace(tmp, target)
        return
    tmp.unlink()


@contextlib.contextmanager
def atomic_path(path: str | Path, *, replace: bool = True) -> Iterator[Path]:
    """A temporary path beside ``path``; on success it replaces ``path`` in one step.

    The temporary file keeps ``path``'s extension (matplotlib picks the format from it).
    Its bytes are flushed to the disk (``fsync``) before the rename, so a crash leaves the
    old file or the new one, never an empty one. If the block raises, the temporary file
    is removed and ``path`` is left as it was; a full disk (or a quota, or a read-only file
    system) is an :class:`OutputError` naming ``path``. Without ``replace``, an existing
    ``path`` (one that appeared since it was checked) is an :class:`OutputError` too.

    >>> with atomic_path("table.csv") as tmp:           # doctest: +SKIP
    ...     frame.to_csv(tmp, index=False)
    """
    target = Path(path)
    try:
        handle, name = tempfile.mkstemp(
            dir=target.parent, prefix=f".{target.name}.", suffix=f".tmp{target.suffix}"
        )
    except OSError as exc:
        raise OutputError(f"{target}: cannot write in {target.parent}: {exc.strerror}") from None
    os.close(handle)
    tmp = Path(name)
    try:
        yield tmp
        os.chmod(tmp, _mode_for(target))
        _sync_file(tmp)
        _move(tmp, target, replace)
        _sync_directory(target.parent)
    except OSError as exc:
        with contextlib.suppress(OSError):
            tmp.unlink()
        if exc.errno in _DISK_ERRORS:
            raise OutputError(
                f"{target}: not written: {exc.strerror} (the previous file, if any, is as it "
                "was); free some space or write elsewhere"
            ) from None
        raise
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def write_text(path: str | Path, text: str, *, replace: bool = True) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_path`); return the
    path."""
    target = Path(path)
    with atomic_path(target, replace=replace) as tmp:
        tmp.write_text(text, encoding="utf-8")
    return target


@contextlib.contextmanager
def locked(directory: str | Path) -> Iterator[None]:
    """Hold an exclusive lock on ``directory`` (``flock``) for the block: writers that check a
    file and then replace it do both while no other one can (where the system has ``flock``;
    elsewhere the block runs unlocked)."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX
        yield
        return
    handle = os.open(directory, os.O_RDONLY)
    try:
        fcntl.flock(handle, fcntl.LOCK_EX)
        yield
    finally:
        os.close(handle)  # closing releases the lock


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
