"""The closed network at given populations: exact MVA convolved with the load-dependent
stations, Bard-Schweitzer approximate MVA above :data:`EXACT_POPULATION` customers.

The fixed-rate members (single servers, pure delays) are solved by exact MVA; the
load-dependent ones (multi-server stations, SPTF drives, mirrored pairs) enter through their
normalising-constant factors, convolved in log space (:mod:`sanpath.theory.kernels`). The
write-back destage is an open class beside the closed one (a fixed point per population).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sanpath.theory.kernels import (
    FloatArray,
    birth_death,
    fixed_mva,
    log_conv,
    log_power,
    schweitzer,
)
from sanpath.theory.twin.solve.aggregate import Arrays

_FIXED_POINT_MAX = 200
"""Iterations at most of the destage fixed point, per population."""
EXACT_POPULATION = 256
"""Customers up to which the closed network is solved exactly (every population from 1 up,
convolutions of length ``n``: ``O(n^2)`` each, milliseconds at this size, seconds at a few
thousand and far more inside the destage fixed point); above it, Bard-Schweitzer
approximate MVA (:mod:`sanpath.theory.amva`) at the populations asked for, milliseconds at
any size. On the shipped scenarios the two differ by less than 0.05%: above this size
they are near saturation, where the approximation is close to exact."""


# --------------------------------------------------------------------------------------------
# The aggregated network at populations 1..n: MVA + log-space convolution
# --------------------------------------------------------------------------------------------


@dataclass
class _Core:
    """Closed solution for populations ``1..n_max`` (customers)."""

    x: FloatArray  # X(n), n = 1..n_max
    util: dict[int, FloatArray]  # per population asked for: utilisation per member
    queue: dict[int, FloatArray]  # per population asked for: mean queue per member


def _closed_core(
    arr: Arrays,
    infl: FloatArray,
    n_max: int,
    rows: Sequence[int],
    extra: FloatArray | None = None,
) -> _Core:
    """Exact MVA of the fixed-rate stations, convolved with the load-dependent ones.

    Load-dependent stations are multi-server stations (rate ``min(j, c)``) and SPTF drives
    (rate ``min(j, tcq)^0.27`` on the positioning time): their normalising-constant factors
    are convolved in log space with that of the rest of the network, whose normalising
    constant comes from its own MVA (``G(n) = G(n - 1) / X(n)``), as in
    :func:`sanpath.theory.mva.mva`. Every term is positive, so the result is stable at any load.

    Above :data:`EXACT_POPULATION` customers, :func:`_approximate_core` instead.
    """
    if n_max > EXACT_POPULATION:
        return _approximate_core(arr, infl, n_max, rows, extra)
    n_k = len(arr.keys)
    d = (arr.fixed + arr.pos) * infl
    ld = [k for k in range(n_k) if d[k] > 0 and arr.load_dependent(k, n_max)]
    detailed = {k for k in ld if arr.detailed(k)}
    fixed = [k for k in range(n_k) if k not in ld and d[k] > 0]
    queueing = [bool(arr.servers[k] == 1) for k in fixed]
    x_fixed = fixed_mva(
        [float(d[k]) for k in fixed],
        queueing,
        [float(arr.count[k]) for k in fixed],
        max(arr.delay, 0.0) if not any(queueing) else arr.delay,
        n_max,
    ) if (fixed or arr.delay > 0) else []  # fmt: skip
    if x_fixed:
        log_g_fixed = np.concatenate(([0.0], -np.cumsum(np.log(x_fixed))))
    else:
        log_g_fixed = np.full(n_max + 1, -np.inf)
        log_g_fixed[0] = 0.0
    factors: dict[int, FloatArray] = {}  # one member
    powers: dict[int, FloatArray] = {}  # all members of the class
    minus_one: dict[int, FloatArray] = {}
    for k in ld:
        per = arr.ld_demand(k, n_max, float(infl[k]), 0.0 if extra is None else float(extra[k]))
        f = np.concatenate(([0.0], np.cumsum(np.log(per))))
        factors[k] = f
        m = int(arr.count[k])
        if k in detailed:
            minus_one[k] = log_power(f, m - 1)
            powers[k] = log_conv(f, minus_one[k])
        else:
            powers[k] = log_power(f, m)
    parts = [log_g_fixed] + [powers[k] for k in ld]
    prefix = [parts[0]]
    for part in parts[1:]:
        prefix.append(log_conv(prefix[-1], part))
    log_g = prefix[-1]
    x = np.exp(log_g[:-1] - log_g[1:])
    util: dict[int, FloatArray] = {}
    queue: dict[int, FloatArray] = {}
    servers = np.maximum(arr.servers, 1)
    complements: dict[int, FloatArray] = {}
    if detailed:
        suffix: FloatArray | None = None
        for i in range(len(ld), 0, -1):
            k = ld[i - 1]
            rest = prefix[i - 1] if suffix is None else log_conv(prefix[i - 1], suffix)
            if k in detailed:
                complements[k] = log_conv(rest, minus_one[k])
            if i > 1:
                suffix = powers[k] if suffix is None else log_conv(powers[k], suffix)
    for n in rows:
        xn = float(x[n - 1])
        u = np.where(arr.servers > 0, xn * d / (servers * np.where(arr.mirror, 2, 1)), 0.0)
        qn = np.zeros(n_k)
        for k in fixed:
            if arr.servers[k] == 0:
                qn[k] = xn * d[k]
        for k, comp in complements.items():
            j = np.arange(n + 1)
            log_p = factors[k][: n + 1] + comp[n - j] - log_g[n]
            p = np.exp(log_p)
            u[k] = arr.busy(k, p)
            qn[k] = float(j @ p)
        util[n] = u
        queue[n] = qn
    return _Core(x=x, util=util, queue=queue)


def _approximate_core(
    arr: Arrays,
    infl: FloatArray,
    n_max: int,
    rows: Sequence[int],
    extra: FloatArray | None = None,
) -> _Core:
    """Bard-Schweitzer approximate MVA (:func:`sanpath.theory.kernels.schweitzer`) at each
    population of ``rows``; ``x`` holds NaN at the other populations.

    The members are those of the exact solution: one member stands for its ``count``
    identical ones (the hosts of a group, the drives of a pool), a load-dependent member
    with its rate at every queue length up to where it serves at full speed.
    """
    n_k = len(arr.keys)
    d = (arr.fixed + arr.pos) * infl
    ld = [k for k in range(n_k) if d[k] > 0 and arr.load_dependent(k, n_max)]
    fixed = [k for k in range(n_k) if k not in ld and d[k] > 0]
    queueing = [bool(arr.servers[k] == 1) for k in fixed]
    delay = max(arr.delay, 0.0) if not any(queueing) else arr.delay
    demands = {
        k: arr.ld_demand(
            k,
            max(1, arr.saturation(k)),
            float(infl[k]),
            0.0 if extra is None else float(extra[k]),
        )
        for k in ld
    }
    x = np.full(n_max, np.nan)
    util: dict[int, FloatArray] = {}
    queue: dict[int, FloatArray] = {}
    servers = np.maximum(arr.servers, 1)
    for n in rows:
        xn, _, r_ld = schweitzer(
            n,
            delay,
            [(float(d[k]), float(arr.count[k]), q) for k, q in zip(fixed, queueing, strict=True)],
            [(float(arr.count[k]), demands[k]) for k in ld],
        )
        x[n - 1] = xn
        u = np.where(arr.servers > 0, xn * d / (servers * np.where(arr.mirror, 2, 1)), 0.0)
        qn = np.zeros(n_k)
        for k in fixed:
            if arr.servers[k] == 0:
                qn[k] = xn * d[k]
        for k, r in zip(ld, r_ld, strict=True):
            if arr.detailed(k):
                _, p = birth_death(xn * (n - 1) / n, demands[k])  # as an arrival sees it
                u[k] = arr.busy(k, p)
                qn[k] = xn * r
        util[n] = u
        queue[n] = qn
    return _Core(x=x, util=util, queue=queue)


@dataclass
class ClosedSolution:
    """The closed network at one population of commands."""

    x_cmd: float
    util: FloatArray  # per member, background included
    queue: FloatArray  # per member (SPTF drives; others where known)
    cache_full: bool = False  # write-back cache saturated: throughput capped by destage


def solve_closed(arr: Arrays, populations: Sequence[float]) -> list[ClosedSolution]:
    """Solve at each population of commands (fractional: interpolated)."""
    branches = [max(p * arr.parallel, 1.0) for p in populations]
    rows = sorted({max(1, math.floor(b)) for b in branches} | {math.ceil(b) for b in branches})
    n_max = max(rows)
    n_k = len(arr.keys)
    servers = np.maximum(arr.servers, 1)
    has_bg = bool(np.any(arr.bg_fixed + arr.bg_pos > 0))
    # An open class beside the closed one (the refusals of a QUEUE FULL storm) keeps a share
    # of some members busy: the closed demands there are inflated by 1 / (1 - U_open).
    open_u = np.zeros(n_k) if arr.open_util is None else arr.open_util
    infl = 1.0 / (1.0 - open_u)
    core = _closed_core(arr, infl, n_max, rows)
    bg_util = {n: open_u.copy() for n in rows}
    if np.any(open_u > 0):
        for n in rows:
            core.util[n] = core.util[n] * (1.0 - open_u)
    if has_bg:
        # Mixed network: the destage stream is an open class whose utilisation U inflates the
        # closed demands by 1 / (1 - U); U grows with the closed throughput (fixed point per
        # population, solved one population at a time).
        # The destage commands queued at an SPTF drive also give it more to choose from: the
        # open class's mean number at a member, U (1 + Q_closed) / (1 - U) (BCMP mixed
        # network), joins the closed queue in g(j) (at most the drive's tcq).
        # A destage in sweep order waits the least of the rotational waits of the destages
        # queued at its drive: that open-class number (Little's law on the destage stream:
        # the controller issues as many as the dirty level calls for, and at the plateau
        # the dirty level settles where they keep up), at most the full-throttle depth.
        for n in rows:
            infl_n = infl.copy()
            extra = np.zeros(n_k)
            depth = arr.bg_depth.copy()
            for _ in range(_FIXED_POINT_MAX):
                x_cmd = float(core.x[n - 1]) / arr.parallel
                alpha = np.ones(n_k)
                closed_q = np.zeros(n_k)
                for k in arr.reorder:
                    q = max(float(core.queue[n][k]) / (2 if arr.mirror[k] else 1), 1.0)
                    closed_q[k] = q
                    alpha[k] = float(arr.gain(k, np.asarray(q + float(extra[k]))))
                bg = arr.bg_fixed_at(depth) + arr.bg_pos / alpha
                u = np.minimum(x_cmd * bg / servers + open_u, 0.999)
                new = 0.5 * infl_n + 0.5 / (1.0 - u)
                queued = u * (1.0 + closed_q) / (1.0 - u)
                bg_q = np.minimum(queued, arr.tcq.astype(np.float64))
                new_extra = np.where(closed_q > 0, 0.5 * extra + 0.5 * bg_q, 0.0)
                new_depth = 0.5 * depth + 0.5 * np.minimum(queued, arr.bg_depth)
                done = (
                    float(np.max(np.abs(new / infl_n - 1.0))) < 1e-6
                    and float(np.max(np.abs(new_extra - extra))) < 1e-4
                    and float(np.max(np.abs(new_depth - depth))) < 1e-4
                )
                infl_n = new
                extra = new_extra
                depth = new_depth
                core_n = _closed_core(arr, infl_n, n, [n], extra)
                core.x[n - 1] = core_n.x[n - 1]
                # the closed demands were inflated by 1 / (1 - U): the closed commands keep a
                # member busy (1 - U) of what the inflated solution says, the destage U
                core.util[n] = core_n.util[n] * (1.0 - u)
                core.queue[n] = core_n.queue[n]
                bg_util[n] = u
                if done:
                    break
    cap = math.inf
    if has_bg:
        # The drives cannot destage faster than they work: with the destage counted as
        # demand, X_cmd (P d + bg) <= servers at full speed (else the cache fills and writes
        # wait for room: a forced flush), the destages at their full-throttle depth.
        full_throttle = arr.bg_fixed_at()
        for k in range(n_k):
            if arr.bg_fixed[k] + arr.bg_pos[k] <= 0:
                continue
            fast = float(arr.gain(k, np.asarray(float(arr.tcq[k])))) if arr.tcq[k] > 0 else 1.0
            per_cmd = (arr.fixed[k] + arr.pos[k] / fast) * arr.parallel + (
                full_throttle[k] + arr.bg_pos[k] / fast
            )
            width = float(arr.servers[k]) * (2.0 if arr.mirror[k] else 1.0)
            cap = min(cap, width / float(per_cmd))
    out = []
    for b in branches:
        lo, hi = max(1, math.floor(b)), math.ceil(b)
        t = b - lo if hi > lo else 0.0
        x = float((1 - t) * core.x[lo - 1] + t * core.x[hi - 1]) / arr.parallel
        util = (1 - t) * (core.util[lo] + bg_util[lo]) + t * (core.util[hi] + bg_util[hi])
        queue = (1 - t) * core.queue[lo] + t * core.queue[hi]
        saturated = x > cap
        if saturated:
            util = util * (cap / x)
            x = cap
        out.append(ClosedSolution(x, util, queue, saturated))
    return out
