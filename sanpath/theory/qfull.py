"""QUEUE FULL storms: what the commands refused over and over cost the array's controller.

Commands that hosts keep beyond an array limit (a port's or a LUN's queue) and that no
throttle takes back are refused, retried, refused again: each pass costs the front end
``array.qfull_time`` of the controller (see :data:`sanpath.spec.hardware.QFULL_TIME`) and the
host a cycle of about ``retry_delay`` plus the round trip. ``E`` such commands form a closed
loop through a pure delay ``D`` (the host's cycle) and the controller, which they share with
the admitted commands. :func:`refusal_load` solves that loop approximately: the refusal rate
``lambda`` satisfies ``lambda = E / (D + R)``, where ``R = qfull_time / (1 - U)`` is a
refusal's residence at the controller (an M/M/1-like wait at the controller's total
utilisation ``U = busy + lambda qfull_time / cores``). Both the analytic twin (which then
inflates the admitted commands' controller demand by ``1 / (1 - U_refusals)``) and the checks
(``SP001``, ``SP002``) use it, so they state the same cost. Times in seconds.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from sanpath.spec import Scenario

UTILIZATION_CAP = 0.999
"""The controller's total utilisation the estimate never reaches (saturation)."""


@dataclass(frozen=True)
class RefusalLoad:
    """The refusals' share of the controller."""

    retrying: float
    """Commands beyond the limits that keep being refused and retried."""
    rate: float
    """Refusals per second."""
    utilization: float
    """Share of the controller's cores busy answering QUEUE FULL (0 to 1)."""
    residence: float
    """Mean time (s) a refusal spends at the controller, waiting and served."""


def refusal_load(
    retrying: Sequence[tuple[float, float]],
    qfull_time: float,
    cores: int,
    busy: float = 0.0,
) -> RefusalLoad:
    """Refusal rate and controller share of ``retrying`` commands.

    Parameters
    ----------
    retrying
        ``(commands, cycle)`` per group of hosts: commands beyond the array's limits that
        retry without a throttle, and their cycle outside the controller (s): the retry
        delay, the fabric round trip and the host's and HBA's time per try.
    qfull_time
        Controller time per refusal (s).
    cores
        Controller servers.
    busy
        Utilisation of the controller by admitted commands (0 to 1).
    """
    total = sum(n for n, _ in retrying)
    if total <= 0 or qfull_time <= 0 or busy >= UTILIZATION_CAP:
        return RefusalLoad(total, 0.0, 0.0, qfull_time)
    room = (UTILIZATION_CAP - busy) * cores / qfull_time  # refusal rate that saturates

    def residence(rate: float) -> float:
        u = min(busy + rate * qfull_time / cores, UTILIZATION_CAP)
        return qfull_time / (1.0 - u)

    def excess(rate: float) -> float:
        r = residence(rate)
        return rate - sum(n / (cycle + r) for n, cycle in retrying)

    lo, hi = 0.0, min(room, sum(n / max(cycle, 1e-12) for n, cycle in retrying))
    if excess(hi) <= 0.0:
        lo = hi
    for _ in range(100):
        if hi - lo <= 1e-9 * max(hi, 1.0):
            break
        mid = 0.5 * (lo + hi)
        if excess(mid) > 0.0:
            hi = mid
        else:
            lo = mid
    rate = 0.5 * (lo + hi)
    return RefusalLoad(total, rate, rate * qfull_time / cores, residence(rate))


def retry_cycle(scenario: Scenario, host_group: int, hba: int = 0) -> float:
    """One try's time outside the controller for a command of host group ``host_group`` sent
    through an HBA of spec index ``hba`` (s): the host's handling of the status (``io_time``,
    and ``cpu_time`` when its processors are modelled), ``retry_delay``, the HBA's
    ``command_time`` and the fabric both ways (mean values)."""
    host = scenario.hosts[host_group]
    cycle = host.qfull.retry_delay + host.io_time.mean_s + 2 * scenario.fabric.one_way_latency
    cycle += host.hbas[hba].command_time.mean_s
    if host.cpus is not None:
        cycle += host.cpu_time.mean_s
    return cycle
