"""Closed queueing networks: exact Mean Value Analysis (MVA) and asymptotic bounds.

A benchmark such as fio or vdbench with a fixed ``iodepth`` does not produce a Poisson
stream: it keeps exactly ``N`` I/Os outstanding, and issues a new one as soon as one
completes. That is a *closed* queueing network with population ``N`` that circulates
through the stations of the I/O path (HBA, fabric, controller, back end). Mean Value
Analysis (MVA) gives the exact mean throughput (IOPS) and response time for every
outstanding-I/O count ``n = 1..N`` from the per-station *service demands*
``D_k = visits_k * mean service time_k``. The largest demand (per server) is the
bottleneck and caps IOPS at ``1 / max_k(D_k / c_k)``; Little's law ``N = X * R`` then
says that any further outstanding I/Os only add latency. An optional *think time*
models a host that pauses between I/Os, a pure *delay* models latency that never queues
(cable propagation, a fixed firmware path). :func:`mva_bounded` adds an admission limit
such as an HBA ``queue_depth`` that is smaller than the number of outstanding I/Os: the
excess I/Os wait in the host before they enter the path.

Times are in seconds and rates are per second throughout. Assumptions: steady state and the
product-form (BCMP) conditions - exponential service at FIFO stations with load-independent
or multi-server rates, arbitrary service at delay stations. The recursions themselves live in
``sanpath.theory.kernels``, shared with the analytic twin; the textbook open queues are in
:mod:`sanpath.theory.queues` (which re-exports this module's public names).

References
----------
[LZGS84]_ (listed with :mod:`sanpath.theory.queues`) and:

.. [Buz73] J. P. Buzen, "Computational algorithms for closed queueing networks with exponential
   servers", *Communications of the ACM* 16(9):527-531, 1973.
.. [RL80] M. Reiser and S. S. Lavenberg, "Mean-value analysis of closed multichain queuing
   networks", *Journal of the ACM* 27(2):313-322, 1980.
.. [BGMT06] G. Bolch, S. Greiner, H. de Meer and K. S. Trivedi, *Queueing Networks and Markov
   Chains*, 2nd ed., Wiley, 2006.
.. [MAD04] D. A. Menasce, V. A. F. Almeida and L. W. Dowdy, *Performance by Design*,
   Prentice-Hall, 2004.
"""

from __future__ import annotations

import operator
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sanpath.theory.checks import check_population, check_rate
from sanpath.theory.kernels import (
    FloatArray,
    IntArray,
    fixed_rate_mva,
    log_convolve,
    log_multiserver_factor,
)

__all__ = ["MvaResult", "asymptotic_bounds", "mva", "mva_bounded"]


@dataclass(frozen=True, eq=False)
class MvaResult:
    """Exact mean-value solution of a closed network for every population ``1..N``.

    Row ``i`` of every array corresponds to population ``n = population[i] = i + 1``; column
    ``k`` to station ``k`` of the ``demands`` passed in. The arrays are read-only. (``eq`` is
    disabled because element-wise array comparison has no single truth value.)

    Attributes
    ----------
    population : numpy.ndarray of int64, shape (N,)
        Populations ``1, 2, ..., N`` (number of circulating jobs, e.g. outstanding I/Os).
    throughput : numpy.ndarray of float64, shape (N,)
        System throughput ``X(n)`` (cycles, e.g. I/Os, per second).
    response : numpy.ndarray of float64, shape (N,)
        Mean cycle response time ``R(n)`` excluding the think time (s): the sum of the
        station residence times, the pure ``delay`` and, for :func:`mva_bounded`, the time
        spent waiting for admission. ``X(n) = n / (Z + R(n))``.
    queue_lengths : numpy.ndarray of float64, shape (N, K)
        Mean number of jobs at each station (waiting plus in service). Jobs in the pure
        delay (``X delay``), in think time (``X Z``) and waiting for admission are not
        included.
    residence : numpy.ndarray of float64, shape (N, K)
        Mean residence time per cycle at each station, ``R_k(n) = Q_k(n) / X(n)`` (s), i.e.
        summed over all visits a job makes to the station in one cycle.
    utilization : numpy.ndarray of float64, shape (N, K)
        Utilisation per server, ``X(n) D_k / c_k`` (utilisation law). For infinite-server
        (delay) stations, which have no finite server count, the column holds the mean number
        of busy servers ``X(n) D_k`` instead.
    """

    population: IntArray
    throughput: FloatArray
    response: FloatArray
    queue_lengths: FloatArray
    residence: FloatArray
    utilization: FloatArray

    def __post_init__(self) -> None:
        for array in (
            self.population,
            self.throughput,
            self.response,
            self.queue_lengths,
            self.residence,
            self.utilization,
        ):
            array.setflags(write=False)


def network_arrays(
    demands: Sequence[float], servers: Sequence[int | None] | None
) -> tuple[FloatArray, IntArray]:
    """Validate ``demands``/``servers``; return demands and server counts (0 = infinite)."""
    d = np.asarray(demands, dtype=np.float64).reshape(-1)
    if d.size == 0:
        raise ValueError("demands must contain at least one station")
    if not np.all(np.isfinite(d)) or np.any(d < 0.0):
        raise ValueError("demands must be finite and non-negative (seconds per cycle)")
    if servers is None:
        c = np.ones(d.size, dtype=np.int64)
    else:
        if len(servers) != d.size:
            raise ValueError(f"servers has {len(servers)} entries but demands has {d.size}")
        c = np.array([0 if s is None else operator.index(s) for s in servers], dtype=np.int64)
        if np.any(c < 0):
            raise ValueError("servers must be >= 0 (0 or None = infinite-server station)")
    return d, c


def station_utilization(x: FloatArray, d: FloatArray, c: IntArray) -> FloatArray:
    """Per-server utilisation ``X D_k / c_k`` (``X D_k`` for infinite-server stations)."""
    per_server = np.where(c > 0, d / np.maximum(c, 1), d)
    return np.outer(x, per_server)


def mva(
    demands: Sequence[float],
    population: int,
    servers: Sequence[int | None] | None = None,
    delay: float = 0.0,
    think_time: float = 0.0,
) -> MvaResult:
    """Exact Mean Value Analysis of a closed single-class product-form network.

    For ``n = 1..N`` the recursion computes residence times from the state seen by an
    arriving job (the arrival theorem: the network with ``n - 1`` jobs), then the
    throughput ``X(n) = n / (Z + delay + sum_k R_k(n))`` and queue lengths
    ``Q_k(n) = X(n) R_k(n)`` ([RL80]_; [LZGS84]_ chapter 6). Per station:

    * ``c_k == 1`` (load-independent queueing station):
      ``R_k(n) = D_k (1 + Q_k(n-1))``.
    * ``c_k == 0`` or ``None`` (infinite server, pure delay): ``R_k(n) = D_k``. A station
      with ``c_k >= N`` never queues either and is handled the same way (exactly).
    * ``1 < c_k < N`` (``c_k = c`` identical servers, rate multipliers
      ``alpha(j) = min(j, c)``): exact load-dependent MVA with the marginal queue-length
      probabilities ``p_k(j | n)`` ([RL80]_; [BGMT06]_ section 8.2, multiple-server
      stations; [MAD04]_)::

          R_k(n) = D_k / c [1 + Q_k(n-1) + sum_{j=0}^{c-2} (c-1-j) p_k(j | n-1)]

      which is ``sum_j j / alpha(j) D_k p_k(j-1 | n-1)`` rewritten so that only the ``c - 1``
      probabilities below saturation are needed.

    Numerical stability: the textbook way to obtain ``p_k(j | n)`` is the forward recurrence
    ``p_k(j|n) = D_k X(n) / alpha(j) p_k(j-1|n-1)`` closed by
    ``p_k(0|n) = 1 - sum_{j>=1} p_k(j|n)``. That subtraction is catastrophically unstable
    once the station saturates: rounding errors in ``p_k(0|n)`` grow geometrically with
    ``n`` (with ``c = 16`` at four times the saturation population the throughput comes
    out more than 10 % wrong), and clipping negative values does not cure it. Here the
    probabilities are instead evaluated from the normalising constants of the network
    without station ``k`` (the complement network), ``G^(-k)``, as
    ``p_k(j | n) = F_k(j) G^(-k)(n - j) / G(n)`` with
    ``F_k(j) = D_k^j / prod_{i<=j} alpha(i)`` ([Buz73]_; [BGMT06]_ section 8.1). The
    normalising constants are computed in log space: that of the single-server and delay
    part from its own (stable) MVA throughputs, ``G(n) = G(n-1) / X(n)``, then convolved
    with the factors ``F_k`` of the multi-server stations. All terms are positive, so no
    cancellation occurs; the probabilities are clipped to ``[0, 1]`` and rescaled if
    rounding makes their sum exceed 1. The extra cost is ``3 L - 2`` log-space convolutions
    of ``O(N^2)`` each for ``L`` multi-server stations (about 0.4 s for ``N = 10**4``,
    ``L = 1``); networks without multi-server stations run the plain ``O(N K)`` recursion.

    Parameters
    ----------
    demands : sequence of float
        Service demand ``D_k = V_k S_k`` of each station (s per cycle): visits per cycle times
        the mean service time per visit (of one server). ``>= 0``.
    population : int
        Maximum population ``N >= 1`` (e.g. outstanding I/Os); results for ``1..N``.
    servers : sequence of int or None, optional
        Number of identical servers ``c_k`` of each station; ``0`` or ``None`` means an
        infinite-server (delay) station. Default: one server everywhere.
    delay : float, optional
        Pure delay added to every cycle (s), e.g. propagation latency; it is included in
        ``response`` but has no column of its own. Default 0.
    think_time : float, optional
        Think time ``Z`` between cycles (s), excluded from ``response``. Default 0.

    Returns
    -------
    MvaResult
        Throughput, response time and per-station metrics for populations ``1..N``.

    Raises
    ------
    ValueError
        For invalid arguments, or if the cycle takes no time at all (all demands, ``delay``
        and ``think_time`` zero) so that the throughput would be infinite.
    """
    n_max = check_population(population)
    d, c = network_arrays(demands, servers)
    delay = check_rate("delay", delay, positive=False)
    z = check_rate("think_time", think_time, positive=False)
    if float(d.sum()) + delay + z == 0.0:
        raise ValueError("all demands, delay and think_time are zero: infinite throughput")

    k_count = d.size
    is_multi = (c > 1) & (c < n_max) & (d > 0.0)
    is_delay = ~is_multi & ((c == 0) | (c >= n_max) | (d == 0.0))
    is_queue = ~is_multi & ~is_delay
    multi = [int(k) for k in np.flatnonzero(is_multi)]

    # Log normalising constants G(0..N-1) of the full network and of each complement network
    # G^(-k) (k multi-server), used for the marginal probabilities p_k(j | n-1).
    log_f: list[FloatArray] = []
    log_g_rest: list[FloatArray] = []
    log_g = np.empty(0, dtype=np.float64)
    if multi:
        fixed = ~is_multi
        if float(d[fixed].sum()) + delay + z > 0.0:
            x_fixed = fixed_rate_mva(d[fixed], is_delay[fixed], delay, z, n_max - 1)
            log_g_fixed = np.concatenate(([0.0], -np.cumsum(np.log(x_fixed))))
        else:  # nothing but the multi-server stations: G = 1 at n = 0, 0 otherwise
            log_g_fixed = np.full(n_max, -np.inf)
            log_g_fixed[0] = 0.0
        log_f = [log_multiserver_factor(float(d[k]), int(c[k]), n_max) for k in multi]
        # prefix[i] = fixed part (*) F_0 (*) ... (*) F_{i-1}; suffix[i] = F_i (*) ... (*) F_{L-1}
        prefix = [log_g_fixed]
        for f in log_f:
            prefix.append(log_convolve(prefix[-1], f))
        log_g = prefix[-1]
        suffix: FloatArray | None = None
        log_g_rest = [np.empty(0)] * len(multi)
        for i in range(len(multi) - 1, -1, -1):
            log_g_rest[i] = prefix[i] if suffix is None else log_convolve(prefix[i], suffix)
            if i > 0:
                suffix = log_f[i] if suffix is None else log_convolve(log_f[i], suffix)
    weights = [np.arange(int(c[k]) - 1, 0, -1, dtype=np.float64) for k in multi]  # c-1-j

    throughput = np.empty(n_max, dtype=np.float64)
    response = np.empty(n_max, dtype=np.float64)
    queue = np.empty((n_max, k_count), dtype=np.float64)
    residence = np.empty((n_max, k_count), dtype=np.float64)

    q_prev = np.zeros(k_count, dtype=np.float64)
    r = np.empty(k_count, dtype=np.float64)
    r[is_delay] = d[is_delay]
    for n in range(1, n_max + 1):
        r[is_queue] = d[is_queue] * (1.0 + q_prev[is_queue])
        for i, k in enumerate(multi):
            # p_k(j | n-1) for j = 0 .. min(c-1, n-1) - 1 (those with a non-zero weight c-1-j)
            m = min(int(c[k]) - 1, n)
            j = np.arange(m)
            log_p = log_f[i][:m] + log_g_rest[i][n - 1 - j] - log_g[n - 1]
            p = np.minimum(np.exp(log_p), 1.0)
            total = float(p.sum())
            if total > 1.0:
                p /= total
            r[k] = d[k] / c[k] * (1.0 + q_prev[k] + float(weights[i][:m] @ p))
        cycle = float(r.sum()) + delay
        x = n / (z + cycle)
        q_prev = x * r
        throughput[n - 1] = x
        response[n - 1] = cycle
        queue[n - 1] = q_prev
        residence[n - 1] = r

    return MvaResult(
        population=np.arange(1, n_max + 1, dtype=np.int64),
        throughput=throughput,
        response=response,
        queue_lengths=queue,
        residence=residence,
        utilization=station_utilization(throughput, d, c),
    )


def mva_bounded(
    demands: Sequence[float],
    population: int,
    servers: Sequence[int | None] | None = None,
    delay: float = 0.0,
    limit: int | None = None,
    think_time: float = 0.0,
) -> MvaResult:
    """MVA with an admission limit on the number of jobs inside the network.

    Models e.g. an HBA ``queue_depth`` ``Q`` smaller than the number ``N`` of I/Os the
    application keeps outstanding: at most ``limit`` jobs are inside the network, the rest
    wait outside (in the host's queue) in FIFO order until a job completes.

    Assumption: the limit encloses *every* station and the pure ``delay`` (an I/O holds its
    slot from issue to completion); only the think time is outside it.

    * ``think_time == 0``: exactly ``min(n, limit)`` jobs are always inside, so
      ``X(n) = X_mva(min(n, limit))`` and the per-station metrics are those of the network
      with ``min(n, limit)`` jobs.
    * ``think_time > 0`` and ``n > limit``: the number of jobs inside now fluctuates, and
      the network with the limit is no longer product form. It is replaced by its
      flow-equivalent server (the Norton-theorem / hierarchical-modelling treatment of a
      memory constraint, [LZGS84]_ chapters 8-9; [MAD04]_): a single station whose
      completion rate is ``X_mva(min(j, limit))`` when ``j`` jobs are inside or waiting for
      admission. Together with the think-time terminals this is a finite-source birth-death
      chain, solved exactly (in log space); per-station queue lengths are the
      chain-weighted queue lengths of the network. This step is an approximation (typically
      within about 1 % of the exact Markov chain for exponential service); for
      ``n <= limit`` the limit never binds and the rows are exact :func:`mva` results.

    In both cases ``response`` includes the time spent waiting for admission:
    ``R(n) = n / X(n) - think_time``; ``residence`` and ``queue_lengths`` cover only the time
    and jobs inside the network.

    Parameters
    ----------
    demands, population, servers, delay, think_time
        As for :func:`mva`.
    limit : int or None, optional
        Maximum number of jobs inside the network (``>= 1``). ``None`` or ``limit >= N``
        means no limit, and the result is that of :func:`mva`.

    Returns
    -------
    MvaResult
        Results for populations ``1..N``.
    """
    n_max = check_population(population)
    z = check_rate("think_time", think_time, positive=False)
    if limit is None or operator.index(limit) >= n_max:
        return mva(demands, n_max, servers, delay, z)
    cap = check_population(limit, "limit")
    d, c = network_arrays(demands, servers)
    delay = check_rate("delay", delay, positive=False)
    if float(d.sum()) + delay == 0.0:
        # The network takes no time at all: the limit never binds.
        return mva(demands, n_max, servers, delay, z)

    inner = mva(demands, cap, servers, delay, 0.0)  # closed network without think time
    if z == 0.0:
        x_in = inner.throughput
        rows = np.minimum(np.arange(n_max), cap - 1)
        throughput = x_in[rows].copy()
        queue = inner.queue_lengths[rows].copy()
    else:
        head = mva(demands, cap, servers, delay, z)
        throughput = np.empty(n_max, dtype=np.float64)
        queue = np.empty((n_max, d.size), dtype=np.float64)
        throughput[:cap] = head.throughput
        queue[:cap] = head.queue_lengths
        x_in = inner.throughput
        log_x_in = np.log(x_in)
        for n in range(cap + 1, n_max + 1):
            j = np.arange(1, n + 1)
            rate = np.minimum(j, cap) - 1  # index into the inner solution for j jobs
            # Birth-death chain on j = jobs in the subsystem: birth (n - j + 1) / Z, death
            # X_in(min(j, cap)). log of the unnormalised probability of state j.
            steps = np.log((n - j + 1) / z) - log_x_in[rate]
            log_w = np.concatenate(([0.0], np.cumsum(steps)))
            w = np.exp(log_w - log_w.max())
            prob = w / w.sum()
            throughput[n - 1] = float(prob[1:] @ x_in[rate])
            queue[n - 1] = prob[1:] @ inner.queue_lengths[rate]

    pop = np.arange(1, n_max + 1, dtype=np.int64)
    response = pop / throughput - z
    residence = queue / throughput[:, None]
    return MvaResult(
        population=pop,
        throughput=throughput,
        response=response,
        queue_lengths=queue,
        residence=residence,
        utilization=station_utilization(throughput, d, c),
    )


def asymptotic_bounds(
    demands: Sequence[float],
    population: int,
    delay: float = 0.0,
    think_time: float = 0.0,
    servers: Sequence[int | None] | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Asymptotic (ABA) bounds on throughput and response time of a closed network.

    With total demand ``D = sum_k D_k + delay`` and bottleneck demand
    ``D_max = max_k D_k / c_k`` (over stations with finitely many servers)
    ([LZGS84]_ chapter 5)::

        X(n) <= min(n / (D + Z), 1 / D_max)
        R(n) >= max(D, n D_max - Z)

    The two branches meet at the knee ``N* = (D + Z) / D_max``: below it the path is
    latency-bound, above it the bottleneck saturates and extra outstanding I/Os only queue.

    Parameters
    ----------
    demands : sequence of float
        Service demand of each station (s per cycle).
    population : int
        Maximum population ``N >= 1``; bounds for ``n = 1..N``.
    delay : float, optional
        Pure delay per cycle (s), counted in the response time. Default 0.
    think_time : float, optional
        Think time ``Z`` (s), not counted in the response time. Default 0.
    servers : sequence of int or None, optional
        Servers per station as for :func:`mva` (default 1; ``0``/``None`` = infinite server,
        which never saturates).

    Returns
    -------
    tuple of numpy.ndarray
        ``(throughput_upper, response_lower)``, each of shape ``(N,)``, in jobs/s and s.
    """
    n_max = check_population(population)
    d, c = network_arrays(demands, servers)
    delay = check_rate("delay", delay, positive=False)
    z = check_rate("think_time", think_time, positive=False)
    total = float(d.sum()) + delay
    if total + z == 0.0:
        raise ValueError("all demands, delay and think_time are zero: infinite throughput")
    finite = c > 0
    d_max = float((d[finite] / c[finite]).max()) if np.any(finite) else 0.0
    n = np.arange(1, n_max + 1, dtype=np.float64)
    x_upper = n / (total + z)
    if d_max > 0.0:
        x_upper = np.minimum(x_upper, 1.0 / d_max)
    r_lower = np.maximum(total, n * d_max - z)
    return x_upper, r_lower
