"""Textbook queueing results used to validate the simulator and to give instant predictions.

Everything here is a closed-form or recursive formula from classical queueing theory. The
discrete-event simulator in :mod:`sanpath` must reproduce these numbers when it is configured
with the same (idealised) assumptions, and the same formulas give instant "what if" answers
without running a simulation. Times are in seconds and rates are per second throughout.

What the models stand for in a SAN
----------------------------------
**M/M/1** (:func:`mm1`)
    A single device that serves one I/O at a time in FIFO order: a spinning drive without
    command queueing, a single-threaded target port, one replication link. Arrivals are a
    Poisson stream of I/Os (many independent hosts), service times are exponential. The
    utilisation ``rho = lambda / mu`` is the device's busy fraction; latency explodes as
    ``1 / (1 - rho)`` when it approaches 100 %.

**M/M/c** (:func:`mmc`, :func:`erlang_c`)
    ``c`` identical servers sharing one queue: the CPU cores of an array controller, the
    back-end SAS lanes of a shelf, the flash dies of an SSD. ``erlang_c`` is the probability
    that an I/O finds every server busy and has to queue.

**M/G/1 and M/D/1** (:func:`mg1`, :func:`md1`)
    One server whose service time is not exponential. The Pollaczek-Khinchine formula shows
    that only the mean and the coefficient of variation (cv) of the service time matter for the
    mean wait: a flash device with near-constant service time (cv ~ 0, M/D/1) waits half as
    long as an exponential one (cv = 1, M/M/1) at the same utilisation, and a drive with
    seek-dominated, highly variable service (cv > 1) waits longer.

**Closed networks** (:mod:`sanpath.theory.mva`)
    A benchmark with a fixed ``iodepth`` keeps ``N`` I/Os outstanding: a closed network,
    solved by Mean Value Analysis. :func:`~sanpath.theory.mva.mva`,
    :func:`~sanpath.theory.mva.mva_bounded`, :func:`~sanpath.theory.mva.asymptotic_bounds` and
    :class:`~sanpath.theory.mva.MvaResult` are documented there and re-exported here.

Assumptions common to all models: steady state, FIFO (or any work-conserving, non-anticipating)
discipline.

References
----------
.. [Kle75] L. Kleinrock, *Queueing Systems, Volume 1: Theory*, Wiley, 1975.
.. [HB13] M. Harchol-Balter, *Performance Modeling and Design of Computer Systems*,
   Cambridge University Press, 2013.
.. [LZGS84] E. D. Lazowska, J. Zahorjan, G. S. Graham and K. C. Sevcik, *Quantitative System
   Performance*, Prentice-Hall, 1984.
"""

from __future__ import annotations

from dataclasses import dataclass

from sanpath.theory.checks import check_rate, check_servers
from sanpath.theory.mva import MvaResult, asymptotic_bounds, mva, mva_bounded

__all__ = [
    "MvaResult",
    "OpenQueueResult",
    "asymptotic_bounds",
    "erlang_c",
    "littles_law",
    "md1",
    "mg1",
    "mm1",
    "mmc",
    "mva",
    "mva_bounded",
]


@dataclass(frozen=True)
class OpenQueueResult:
    """Steady-state mean metrics of an open single-station queue.

    Attributes
    ----------
    utilization : float
        Utilisation ``rho`` of each server (busy fraction, dimensionless, in ``[0, 1)``).
    wait : float
        Mean time an arrival spends waiting in the queue before service, ``Wq`` (s).
    response : float
        Mean response time ``W = Wq + E[S]`` (queueing plus service) (s).
    queue_length : float
        Mean number of jobs waiting in the queue (not in service), ``Lq = lambda * Wq``.
    in_system : float
        Mean number of jobs in the station (waiting plus in service), ``L = lambda * W``.
    p_wait : float
        Probability that an arriving job has to wait (finds every server busy).
    """

    utilization: float
    wait: float
    response: float
    queue_length: float
    in_system: float
    p_wait: float


def mm1(arrival_rate: float, service_rate: float) -> OpenQueueResult:
    """Mean metrics of the M/M/1 queue.

    Parameters
    ----------
    arrival_rate : float
        Poisson arrival rate ``lambda`` (jobs/s), ``>= 0``.
    service_rate : float
        Exponential service rate ``mu`` (jobs/s), ``> 0``; the mean service time is ``1/mu`` s.

    Returns
    -------
    OpenQueueResult
        ``rho = lambda/mu``, ``W = 1/(mu - lambda)``, ``Wq = rho/(mu - lambda)``,
        ``L = rho/(1 - rho)``, ``Lq = rho^2/(1 - rho)`` and ``P(wait) = rho``
        ([Kle75]_ section 3.2; [HB13]_ chapter 13).

    Raises
    ------
    ValueError
        If a rate is negative or not finite, or the queue is unstable (``rho >= 1``).
    """
    lam = check_rate("arrival_rate", arrival_rate, positive=False)
    mu = check_rate("service_rate", service_rate, positive=True)
    rho = lam / mu
    if rho >= 1.0:
        raise ValueError(f"unstable M/M/1 queue: rho = {rho:.6g} >= 1")
    response = 1.0 / (mu - lam)
    wait = rho / (mu - lam)
    return OpenQueueResult(
        utilization=rho,
        wait=wait,
        response=response,
        queue_length=lam * wait,
        in_system=lam * response,
        p_wait=rho,
    )


def erlang_c(c: int, offered_load: float) -> float:
    """Erlang C formula: probability that an arrival to an M/M/c queue has to wait.

    Computed from the Erlang B (loss) probability with the numerically stable recursion
    ``B(0) = 1``, ``B(k) = a B(k-1) / (k + a B(k-1))`` and the identity
    ``C(c, a) = c B(c, a) / (c - a (1 - B(c, a)))`` ([Kle75]_ sections 3.5-3.6; [HB13]_
    chapter 14). Every intermediate value lies in ``[0, 1]``, so there are no factorials and
    no overflow; it is accurate for ``c`` up to ``10**4`` and beyond (cost ``O(c)``).

    Parameters
    ----------
    c : int
        Number of servers, ``>= 1``.
    offered_load : float
        Offered load ``a = lambda / mu`` in Erlangs (mean number of busy servers), ``>= 0``.

    Returns
    -------
    float
        Probability of waiting, in ``[0, 1]``. By convention ``1.0`` when ``a >= c`` (the
        queue is unstable and eventually every arrival waits) and ``0.0`` when ``a == 0``.

    Raises
    ------
    ValueError
        If ``c < 1`` or ``offered_load`` is negative or not finite.
    """
    c = check_servers(c)
    a = check_rate("offered_load", offered_load, positive=False)
    if a == 0.0:
        return 0.0
    if a >= c:
        return 1.0
    b = 1.0
    for k in range(1, c + 1):
        ab = a * b
        b = ab / (k + ab)
    return min(1.0, c * b / (c - a * (1.0 - b)))


def mmc(arrival_rate: float, service_rate: float, servers: int) -> OpenQueueResult:
    """Mean metrics of the M/M/c queue (``c`` identical servers, one FIFO queue).

    Parameters
    ----------
    arrival_rate : float
        Poisson arrival rate ``lambda`` (jobs/s), ``>= 0``.
    service_rate : float
        Exponential service rate ``mu`` of *one* server (jobs/s), ``> 0``.
    servers : int
        Number of servers ``c >= 1``.

    Returns
    -------
    OpenQueueResult
        ``rho = lambda/(c mu)``, ``P(wait) = C(c, lambda/mu)`` (:func:`erlang_c`),
        ``Wq = C / (c mu - lambda)``, ``W = Wq + 1/mu``, ``Lq = lambda Wq``, ``L = lambda W``
        ([Kle75]_ section 3.5; [HB13]_ chapter 14).

    Raises
    ------
    ValueError
        If an argument is out of range or the queue is unstable (``rho >= 1``).
    """
    lam = check_rate("arrival_rate", arrival_rate, positive=False)
    mu = check_rate("service_rate", service_rate, positive=True)
    c = check_servers(servers)
    rho = lam / (c * mu)
    if rho >= 1.0:
        raise ValueError(f"unstable M/M/{c} queue: rho = {rho:.6g} >= 1")
    p_wait = erlang_c(c, lam / mu)
    wait = p_wait / (c * mu - lam)
    response = wait + 1.0 / mu
    return OpenQueueResult(
        utilization=rho,
        wait=wait,
        response=response,
        queue_length=lam * wait,
        in_system=lam * response,
        p_wait=p_wait,
    )


def mg1(arrival_rate: float, mean_service: float, cv_service: float) -> OpenQueueResult:
    """Mean metrics of the M/G/1 queue (Pollaczek-Khinchine mean-value formula).

    Parameters
    ----------
    arrival_rate : float
        Poisson arrival rate ``lambda`` (jobs/s), ``>= 0``.
    mean_service : float
        Mean service time ``E[S]`` (s), ``> 0``.
    cv_service : float
        Coefficient of variation of the service time, ``std(S) / E[S]`` (dimensionless,
        ``>= 0``): 0 for deterministic, 1 for exponential service.

    Returns
    -------
    OpenQueueResult
        ``rho = lambda E[S]``, ``E[S^2] = E[S]^2 (1 + cv^2)``,
        ``Wq = lambda E[S^2] / (2 (1 - rho))``, ``W = Wq + E[S]``, ``Lq = lambda Wq``,
        ``L = lambda W`` and ``P(wait) = rho`` (Poisson arrivals see time averages)
        ([Kle75]_ chapter 5; [HB13]_ chapter 23).

    Raises
    ------
    ValueError
        If an argument is out of range or the queue is unstable (``rho >= 1``).
    """
    lam = check_rate("arrival_rate", arrival_rate, positive=False)
    s = check_rate("mean_service", mean_service, positive=True)
    cv = check_rate("cv_service", cv_service, positive=False)
    rho = lam * s
    if rho >= 1.0:
        raise ValueError(f"unstable M/G/1 queue: rho = {rho:.6g} >= 1")
    second_moment = s * s * (1.0 + cv * cv)
    wait = lam * second_moment / (2.0 * (1.0 - rho))
    response = wait + s
    return OpenQueueResult(
        utilization=rho,
        wait=wait,
        response=response,
        queue_length=lam * wait,
        in_system=lam * response,
        p_wait=rho,
    )


def md1(arrival_rate: float, service_time: float) -> OpenQueueResult:
    """Mean metrics of the M/D/1 queue (constant service time).

    Equivalent to ``mg1(arrival_rate, service_time, 0.0)``; in particular
    ``Wq = rho / (2 mu (1 - rho))`` with ``mu = 1 / service_time`` ([Kle75]_ chapter 5).

    Parameters
    ----------
    arrival_rate : float
        Poisson arrival rate ``lambda`` (jobs/s), ``>= 0``.
    service_time : float
        Constant service time (s), ``> 0``.

    Returns
    -------
    OpenQueueResult
        See :func:`mg1`.
    """
    return mg1(arrival_rate, service_time, 0.0)


def littles_law(throughput: float, response: float) -> float:
    """Little's law ``L = X R``: mean number of jobs in a system ([LZGS84]_ chapter 3).

    Parameters
    ----------
    throughput : float
        Throughput ``X`` (jobs/s).
    response : float
        Mean time a job spends in the system ``R`` (s).

    Returns
    -------
    float
        Mean number of jobs in the system (dimensionless).
    """
    return float(throughput) * float(response)
