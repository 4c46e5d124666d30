"""Dask settings for simulation sweeps: workers that spend their cores on the runs.

A sweep task is one simulation run: pure Python, busy on one core from start to end, a
fraction of a second to minutes long, and a result row of a few kilobytes. Dask's defaults
suit short data tasks watched on a dashboard: beside every task a worker samples the stacks
of its threads, checks its event loop, polls its memory and records host statistics, each
many times a second. Each of these wakes the worker's event-loop thread, which then takes its
turn with the simulation for Python's interpreter lock. :data:`SWEEP_SETTINGS` keeps the
checks but runs them less often and turns off the stack sampler.

``make bench`` (section 8, ``tests/benchmarks/scale_bench.py``) runs the same sweep on a
``LocalCluster`` with these settings and with Dask's defaults, side by side; its record,
``docs/benchmarks.json``, keeps both speed-ups. On a two-core machine, with Dask's defaults,
the workers' event-loop threads took about 0.7 CPU seconds beside 10 of simulation in a
40-run sweep, and with these settings about 0.2.

Use them in Python before the cluster starts (a ``LocalCluster`` passes its configuration on
to the worker processes it starts)::

    import dask
    from sanpath.experiments.dask_settings import SWEEP_SETTINGS

    with dask.config.set(SWEEP_SETTINGS), LocalCluster(...) as cluster:
        ...

and for ``dask worker`` started from a shell, as the environment variables of
:func:`environment` (``docs/howto/dask.md`` lists them). A run's numbers do not depend on
any of this: only how much of the machine the workers leave to the runs.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

SWEEP_SETTINGS: Final[Mapping[str, bool | str]] = {
    # Dask's statistical profiler, for the dashboard's profile page: every 10 ms by default
    "distributed.worker.profile.enabled": False,
    # the event loop's own health check: every 20 ms by default
    "distributed.admin.tick.interval": "1s",
    # the memory monitor behind the spill, pause and restart limits: every 100 ms by default
    "distributed.worker.memory.monitor-interval": "1s",
    # host CPU, memory and network figures for the dashboard: every 500 ms by default
    "distributed.admin.system-monitor.interval": "5s",
}
"""Dask configuration (dotted keys of ``dask.config``) for workers that run simulations."""


def environment() -> dict[str, str]:
    """:data:`SWEEP_SETTINGS` as ``DASK_*`` environment variables, for ``dask worker``.

    Dask reads ``DASK_A__B__C=value`` as the key ``a.b.c`` (hyphens written as
    underscores) and the value as a Python literal where it is one (``False``), else as text.
    """
    return {
        "DASK_" + "__".join(part.upper().replace("-", "_") for part in key.split(".")): str(value)
        for key, value in SWEEP_SETTINGS.items()
    }
