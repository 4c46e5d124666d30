"""Approximate Mean Value Analysis for large populations (Bard-Schweitzer).

Exact MVA (:func:`sanpath.theory.mva.mva`) visits every population from 1 to ``N``; with
multi-server stations its marginal probabilities cost ``O(N^2)``. A SAN with a thousand
hosts keeps tens of thousands of commands outstanding, and there the approximation of
Bard [Bar79]_ and Schweitzer [Sch79]_ solves the network at ``N`` alone, in milliseconds:
an arriving customer is taken to see the time-average queues of the network with ``N``
customers scaled by ``(N - 1) / N``. Its throughput error is typically a few percent at
moderate populations ([LZGS84]_ section 6.4.2 reports errors of a few percent against exact
solutions) and vanishes as ``N`` grows past the bottleneck's saturation, where exact MVA
is the most expensive. The analytic twin uses the same kernel above
``sanpath.theory.twin.solve.EXACT_POPULATION`` customers.

Multi-server stations are taken as their birth-death chain fed at the scaled throughput
(see :func:`amva`), which is exact for one customer and reduces to the Bard-Schweitzer
rule for a single server.

References
----------
.. [Bar79] Y. Bard, "Some extensions to multiclass queueing network analysis", *Proc. 3rd
   International Symposium on Modelling and Performance Evaluation of Computer Systems*,
   North-Holland, 1979, pp. 51-62.
.. [Sch79] P. J. Schweitzer, "Approximate analysis of multiclass closed networks of queues",
   *Proc. International Conference on Stochastic Control and Optimization*, Amsterdam, 1979.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sanpath.theory.checks import check_population, check_rate
from sanpath.theory.kernels import FloatArray, schweitzer
from sanpath.theory.mva import network_arrays, station_utilization

__all__ = ["AmvaResult", "amva"]


@dataclass(frozen=True, eq=False)
class AmvaResult:
    """Approximate mean-value solution of a closed network at one population.

    Column ``k`` of the arrays is station ``k`` of the ``demands`` passed in (times in
    seconds, rates per second); the arrays are read-only.

    Attributes
    ----------
    population : int
        The population ``N`` solved for.
    throughput : float
        System throughput ``X(N)`` (cycles per second).
    response : float
        Mean cycle response time excluding the think time (s); ``X = N / (Z + response)``.
    queue_lengths : numpy.ndarray of float64, shape (K,)
        Mean number of customers at each station, ``X R_k``.
    residence : numpy.ndarray of float64, shape (K,)
        Mean residence time per cycle at each station (s).
    utilization : numpy.ndarray of float64, shape (K,)
        Utilisation per server ``X D_k / c_k`` (``X D_k`` for delay stations).
    """

    population: int
    throughput: float
    response: float
    queue_lengths: FloatArray
    residence: FloatArray
    utilization: FloatArray

    def __post_init__(self) -> None:
        for array in (self.queue_lengths, self.residence, self.utilization):
            array.setflags(write=False)


def amva(
    demands: Sequence[float],
    population: int,
    servers: Sequence[int | None] | None = None,
    delay: float = 0.0,
    think_time: float = 0.0,
) -> AmvaResult:
    """Bard-Schweitzer approximate MVA of a closed single-class network at ``population``.

    With ``X' = X (N - 1) / N`` the throughput an arriving customer sees:

    * single server (``c_k == 1``): ``R_k = D_k (1 + (N - 1) / N Q_k) = D_k / (1 - X' D_k)``;
    * infinite server or ``c_k >= N`` (``c_k == 0`` or ``None``): ``R_k = D_k``;
    * ``1 < c_k < N`` identical servers: the mean number ``E[N_k]`` of the station alone fed at
      ``X'`` (a birth-death chain with rates ``min(j, c_k) / D_k``), and ``R_k = E[N_k] / X'``
      (Little's law at the arrival instant), which is the rule above when ``c_k = 1``.

    The throughput solves ``N = X (Z + delay + sum_k R_k)``, one increasing function of ``X``
    (Brent's method). The arguments are those of :func:`sanpath.theory.mva.mva`.

    Raises
    ------
    ValueError
        For invalid arguments, or if the cycle takes no time at all.
    """
    n = check_population(population)
    d, c = network_arrays(demands, servers)
    delay = check_rate("delay", delay, positive=False)
    z = check_rate("think_time", think_time, positive=False)
    if float(d.sum()) + delay + z == 0.0:
        raise ValueError("all demands, delay and think_time are zero: infinite throughput")
    fixed: list[tuple[float, float, bool]] = []
    multi: list[tuple[float, FloatArray]] = []
    kinds: list[tuple[str, int]] = []
    for k in range(d.size):
        ck = int(c[k])
        if d[k] > 0.0 and 1 < ck < n:
            kinds.append(("multi", len(multi)))
            multi.append((1.0, d[k] / np.minimum(np.arange(1, ck + 1, dtype=np.float64), ck)))
        else:
            kinds.append(("fixed", len(fixed)))
            fixed.append((float(d[k]), 1.0, ck == 1 and d[k] > 0.0))
    x, r_fixed, r_multi = schweitzer(n, delay + z, fixed, multi)
    residence = np.array(
        [r_fixed[i] if kind == "fixed" else r_multi[i] for kind, i in kinds], dtype=np.float64
    )
    return AmvaResult(
        population=n,
        throughput=x,
        response=n / x - z,
        queue_lengths=x * residence,
        residence=residence,
        utilization=station_utilization(np.array([x]), d, c)[0],
    )
