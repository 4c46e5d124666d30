"""Local worker processes for sweeps: how many, and that they end with their parent.

:func:`local_pool` is the ``concurrent.futures`` process pool a sweep (``jobs=N``, ``--jobs
N``) runs its points in; each worker watches its parent (:func:`exit_with_parent`), so a
parent killed outright leaves no worker waiting on its pipe. :func:`max_jobs` bounds ``N``
by the machine's cores.
"""

from __future__ import annotations

import concurrent.futures as cf
import os
import threading
import time

__all__ = ["exit_with_parent", "local_pool", "max_jobs"]


def max_jobs() -> int:
    """The most local worker processes a sweep starts: 4 per core, at least 16."""
    return max(16, 4 * (os.cpu_count() or 1))


def local_pool(jobs: int | None) -> cf.ProcessPoolExecutor:
    """``jobs`` local worker processes that end themselves when this process is gone."""
    return cf.ProcessPoolExecutor(
        max_workers=jobs, initializer=exit_with_parent, initargs=(os.getpid(),)
    )


def exit_with_parent(parent: int, every: float = 1.0) -> None:
    """In a worker process: end it within ``every`` seconds of its ``parent`` (a process id)
    ending.

    A parent killed outright (SIGKILL, the out-of-memory killer) cannot shut its pool down,
    and its workers would wait on their pipe for minutes; a daemon thread of each worker looks
    at the parent's id every ``every`` seconds and ends the worker when it has changed.
    """

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(every)
        os._exit(1)

    threading.Thread(target=watch, name="sanpath-parent-watch", daemon=True).start()
