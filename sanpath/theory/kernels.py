"""The recursions behind every closed-network solution: MVA throughputs and log-space
normalising constants.

:func:`sanpath.theory.mva.mva` and the analytic twin (:mod:`sanpath.theory.twin`) build their
solutions from these kernels. A network of fixed-rate stations (single servers and pure
delays) is solved by the plain MVA recursion, whose throughputs give its normalising constant
``G(n) = G(n - 1) / X(n)``; load-dependent stations (multi-server, SPTF drives, mirrored pairs)
enter as factors ``F(j) = D^j / prod_{i<=j} alpha(i)`` convolved with it. Everything is in
log space (``log G``, ``log F``), where every term is positive: no overflow, no cancellation.

Two pairs of kernels compute the same quantity with the floating-point operations in a
different order (summation order, ``math.log`` against ``np.log``), so their results differ
in the last bits. Either caller switched to the other kernel would change its numbers, so
both are kept:

* ``fixed_rate_mva`` (numpy, with think time; used by ``mva``) and ``fixed_mva`` (plain
  floats, with member counts, faster for the twin's few stations; used by the twin);
* ``log_convolve`` (one term at a time; used by ``mva``) and ``log_conv`` (blocked
  Toeplitz rows padded with ``-inf``, vectorised for the twin's populations of thousands;
  used by the twin, also through ``log_power``).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt

__all__ = [
    "FloatArray",
    "IntArray",
    "birth_death",
    "fixed_mva",
    "fixed_rate_mva",
    "log_conv",
    "log_convolve",
    "log_multiserver_factor",
    "log_power",
    "rising_root",
    "schweitzer",
]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# --------------------------------------------------------------------------------------------
# Fixed-rate part: the plain MVA recursion
# --------------------------------------------------------------------------------------------


def fixed_rate_mva(
    d: FloatArray, is_delay: npt.NDArray[np.bool_], delay: float, z: float, n_max: int
) -> FloatArray:
    """Throughputs ``X(1..N)`` of a network of single-server and delay stations only."""
    x = np.empty(n_max, dtype=np.float64)
    r = d.copy()
    q = np.zeros(d.size, dtype=np.float64)
    queueing = ~is_delay
    for n in range(1, n_max + 1):
        r[queueing] = d[queueing] * (1.0 + q[queueing])
        x[n - 1] = n / (z + float(r.sum()) + delay)
        q = x[n - 1] * r
    return x


def fixed_mva(
    demand: Sequence[float], queueing: Sequence[bool], count: Sequence[float], delay: float,
    n_max: int,
) -> list[float]:  # fmt: skip
    """Throughput ``X(1..n_max)`` of the fixed-rate part (exact MVA, plain floats for speed).

    ``demand[k]`` is the demand at one of ``count[k]`` identical members; queueing members
    have one server, the others are pure delays. By symmetry one member stands for all.
    """
    q = [0.0] * len(demand)
    fixed_delay = delay + sum(
        d * m for d, m, qu in zip(demand, count, queueing, strict=True) if not qu
    )
    active = [
        (i, d, m) for i, (d, m, qu) in enumerate(zip(demand, count, queueing, strict=True)) if qu
    ]
    out = []
    for n in range(1, n_max + 1):
        cycle = fixed_delay
        rs = []
        for i, d, m in active:
            r = d * (1.0 + q[i])
            rs.append(r)
            cycle += m * r
        x = n / cycle
        for (i, _, _), r in zip(active, rs, strict=True):
            q[i] = x * r
        out.append(x)
    return out


# --------------------------------------------------------------------------------------------
# Load-dependent part: log-space convolutions of normalising constants
# --------------------------------------------------------------------------------------------


def log_convolve(a: FloatArray, b: FloatArray) -> FloatArray:
    """``log(exp(a) * exp(b))`` for the convolution ``*`` truncated to ``len(a)`` terms."""
    out = np.empty(a.size, dtype=np.float64)
    for n in range(a.size):
        terms = a[: n + 1] + b[n::-1]
        top = float(terms.max())
        out[n] = top if top == -np.inf else top + math.log(float(np.exp(terms - top).sum()))
    return out


def log_multiserver_factor(demand: float, c: int, length: int) -> FloatArray:
    """``log F(j) = log(D^j / prod_{i<=j} min(i, c))`` for ``j = 0..length-1``."""
    j = np.arange(length, dtype=np.float64)
    steps = math.log(demand) - np.log(np.minimum(j[1:], c))
    return np.concatenate(([0.0], np.cumsum(steps)))


def log_conv(a: FloatArray, b: FloatArray) -> FloatArray:
    """``log(exp(a) * exp(b))`` for the convolution ``*`` truncated to ``len(a)`` terms."""
    n = a.size
    padded = np.concatenate((np.full(n - 1, -np.inf), b[:n]))
    toeplitz = np.lib.stride_tricks.sliding_window_view(padded, n)[:, ::-1]  # [r, i] = b[r-i]
    out = np.empty(n)
    block = max(1, 400_000 // n)
    with np.errstate(invalid="ignore"):
        for start in range(0, n, block):
            terms = a[None, :] + toeplitz[start : start + block]
            top = terms.max(axis=1)
            safe = np.where(np.isfinite(top), top, 0.0)
            total = np.exp(terms - safe[:, None]).sum(axis=1)
            out[start : start + block] = np.where(np.isfinite(top), safe + np.log(total), -np.inf)
    return out


def log_power(f: FloatArray, m: int) -> FloatArray:
    """``f`` convolved with itself ``m`` times (``m = 0``: the unit)."""
    result = np.full(f.size, -np.inf)
    result[0] = 0.0
    base = f
    while m > 0:
        if m & 1:
            result = log_conv(result, base)
        m >>= 1
        if m:
            base = log_conv(base, base)
    return result


# --------------------------------------------------------------------------------------------
# Large populations: Bard-Schweitzer approximate MVA
# --------------------------------------------------------------------------------------------


def birth_death(rate: float, demand: FloatArray) -> tuple[float, FloatArray]:
    """A load-dependent member fed alone at ``rate`` customers per second.

    ``demand[j - 1]`` is its demand per customer (s) with ``j`` customers present, constant
    from ``J = len(demand)`` on; ``rate x demand[J - 1] < 1``. Returns the mean number present
    and the probabilities of ``j = 0 .. J - 1`` present and, last, of ``J`` or more.
    """
    steps = rate * demand
    if rate <= 0.0:
        p = np.zeros(demand.size + 1)
        p[0] = 1.0
        return 0.0, p
    log_w = np.concatenate(([0.0], np.cumsum(np.log(steps))))  # j = 0 .. J
    w = np.exp(log_w - float(log_w.max()))
    tail_ratio = float(steps[-1])
    head = w[:-1]
    j = np.arange(demand.size, dtype=np.float64)
    top = float(w[-1])
    tail = top / (1.0 - tail_ratio)
    total = float(head.sum()) + tail
    jd = demand.size
    mean = float(j @ head) + top * (jd / (1.0 - tail_ratio) + tail_ratio / (1.0 - tail_ratio) ** 2)
    p = np.concatenate((head, [tail])) / total
    return mean / total, p


def rising_root(f: Callable[[float], float], low: float, high: float, rtol: float = 1e-13) -> float:
    """The root of an increasing ``f`` between ``low`` (``f < 0``) and ``high`` (``f > 0``).

    Regula falsi with the Illinois modification (the end that stays has its value halved),
    which converges superlinearly, and a bisection step whenever the bracket does not shrink
    by half in two steps; stops when the bracket is within ``rtol`` of its ends.
    """
    f_low, f_high = f(low), f(high)
    side = 0
    width, steps = high - low, 0
    while high - low > rtol * max(abs(low), abs(high)):
        steps += 1
        x = 0.5 * (low + high)
        if (steps <= 2 or high - low <= 0.5 * width) and f_high != f_low:
            secant = high - f_high * (high - low) / (f_high - f_low)
            x = secant if low < secant < high else x
        if steps > 2:
            width, steps = high - low, 0
        fx = f(x)
        if fx == 0.0:
            return x
        if fx < 0.0:
            low, f_low = x, fx
            if side == -1:
                f_high *= 0.5
            side = -1
        else:
            high, f_high = x, fx
            if side == 1:
                f_low *= 0.5
            side = 1
    return high if abs(f_high) < abs(f_low) else low


def schweitzer(
    n: int,
    delay: float,
    fixed: Sequence[tuple[float, float, bool]],
    load_dependent: Sequence[tuple[float, FloatArray]],
) -> tuple[float, list[float], list[float]]:
    """Throughput and residence times of a closed single-class network at population ``n``
    by Bard-Schweitzer approximate MVA ([Sch79]_, [Bar79]_).

    ``fixed`` holds ``(demand, count, queueing)`` per kind of fixed-rate member (``count``
    identical members; queueing: one server, else a pure delay), ``load_dependent``
    ``(count, demands)`` with the member's demand per customer with ``j`` present
    (:func:`birth_death`); ``delay`` (s) is added to every cycle. Returns
    ``(X, [R_k fixed], [R_k load dependent])``, residence times per member in seconds.

    An arriving customer sees the network with ``n - 1`` customers; Bard and Schweitzer
    take that to be the network with ``n``, every queue scaled by ``(n - 1) / n``. For a
    single server ``R = D (1 + (n - 1) / n Q)`` with ``Q = X R``, that is
    ``R = D / (1 - X' D)`` at the scaled throughput ``X' = X (n - 1) / n``. A load-dependent
    member is taken the same way: the customer finds the queue of the member fed alone at
    ``X'`` (its birth-death chain), so ``R = E[N(X')] / X'``, which is the single-server rule
    when the rate does not depend on the load. The throughput solves
    ``n = X (delay + sum_k count_k R_k(X'))`` (one unknown, increasing: :func:`rising_root`).
    Exact at ``n = 1``; the error in throughput is a few percent at worst and shrinks as
    ``n`` grows past the bottleneck's saturation ([LZGS84]_ section 6.4.2).
    """
    scale = (n - 1) / n

    def residences(x: float) -> tuple[float, list[float], list[float]]:
        arrival = x * scale
        total = delay
        r_fixed = []
        for d, m, queueing in fixed:
            r = d / (1.0 - arrival * d) if queueing else d
            r_fixed.append(r)
            total += m * r
        r_ld = []
        for m, demand in load_dependent:
            if arrival > 0.0:
                mean, _ = birth_death(arrival, demand)
                r = mean / arrival
            else:
                r = float(demand[0])
            r_ld.append(r)
            total += m * r
        return total, r_fixed, r_ld

    limits = [1.0 / d for d, _, queueing in fixed if queueing and d > 0.0]
    limits += [1.0 / float(demand[-1]) for _, demand in load_dependent]
    x = n / residences(0.0)[0]  # no queueing: the most the cycle allows
    if n > 1 and limits:
        # X' = X (n - 1) / n stays below every member's capacity; the cycle only grows with
        # X, so the root lies below both bounds
        high = min(x, min(limits) / scale * (1.0 - 1e-12))

        def excess(x: float) -> float:
            return x * residences(x)[0] - n

        if excess(high) > 0.0:
            x = rising_root(excess, 0.0, high)
        else:
            x = high
    _, r_fixed, r_ld = residences(x)
    return x, r_fixed, r_ld
