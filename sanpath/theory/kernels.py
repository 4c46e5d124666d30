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

* ``_fixed_rate_mva`` (numpy, with think time; used by ``mva``) and ``_fixed_mva`` (plain
  floats, with member counts, faster for the twin's few stations; used by the twin);
* ``_log_convolve`` (one term at a time; used by ``mva``) and ``_log_conv`` (blocked
  Toeplitz rows padded with ``-inf``, vectorised for the twin's populations of thousands;
  used by the twin, also through ``_log_power``).
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

__all__ = ["FloatArray", "IntArray"]

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]


# --------------------------------------------------------------------------------------------
# Fixed-rate part: the plain MVA recursion
# --------------------------------------------------------------------------------------------


def _fixed_rate_mva(
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


def _fixed_mva(
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


def _log_convolve(a: FloatArray, b: FloatArray) -> FloatArray:
    """``log(exp(a) * exp(b))`` for the convolution ``*`` truncated to ``len(a)`` terms."""
    out = np.empty(a.size, dtype=np.float64)
    for n in range(a.size):
        terms = a[: n + 1] + b[n::-1]
        top = float(terms.max())
        out[n] = top if top == -np.inf else top + math.log(float(np.exp(terms - top).sum()))
    return out


def _log_multiserver_factor(demand: float, c: int, length: int) -> FloatArray:
    """``log F(j) = log(D^j / prod_{i<=j} min(i, c))`` for ``j = 0..length-1``."""
    j = np.arange(length, dtype=np.float64)
    steps = math.log(demand) - np.log(np.minimum(j[1:], c))
    return np.concatenate(([0.0], np.cumsum(steps)))


def _log_conv(a: FloatArray, b: FloatArray) -> FloatArray:
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


def _log_power(f: FloatArray, m: int) -> FloatArray:
    """``f`` convolved with itself ``m`` times (``m = 0``: the unit)."""
    result = np.full(f.size, -np.inf)
    result[0] = 0.0
    base = f
    while m > 0:
        if m & 1:
            result = _log_conv(result, base)
        m >>= 1
        if m:
            base = _log_conv(base, base)
    return result
