"""Open loops (``rate``): a Jackson-style decomposition of the network.

Every station is solved on its own with Poisson arrivals: Erlang C for multi-server
stations (Allen-Cunneen for non-exponential service), Pollaczek-Khinchine for single servers,
birth-death chains for load-dependent drives; the responses are summed.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from sanpath.theory import queues
from sanpath.theory.kernels import FloatArray
from sanpath.theory.twin.model import Knobs, Network
from sanpath.theory.twin.prediction import TwinPrediction, note_once
from sanpath.theory.twin.solve.aggregate import Arrays, arrays
from sanpath.theory.twin.solve.layers import open_layers
from sanpath.theory.twin.solve.notes import group_utilization, model_notes


def _open_ld(
    arrival: float, service: FloatArray, tcq: int, pair: bool
) -> tuple[float, float, bool]:
    """Birth-death load-dependent station: (mean number, busy fraction per drive, stable).

    ``service[j - 1]`` is the mean time between completions with ``j`` commands present
    (constant from ``tcq`` on): ``p(j) = p(0) prod_{i<=j} arrival x service(i)``.
    """
    tail_ratio = arrival * float(service[tcq - 1])
    if tail_ratio >= 1.0:
        return math.inf, 1.0, False
    log_w = np.concatenate(([0.0], np.cumsum(np.log(arrival * service[:tcq]))))  # j = 0..tcq
    top = float(log_w.max())
    w = np.exp(log_w - top)
    j = np.arange(tcq + 1, dtype=np.float64)
    head = float(w[:-1].sum())
    head_n = float((j[:-1] * w[:-1]).sum())
    wt = float(w[-1])  # p(tcq) unnormalised; tail j >= tcq is geometric
    r = tail_ratio
    tail = wt / (1.0 - r)
    tail_n = wt * (tcq / (1.0 - r) + r / (1.0 - r) ** 2)
    norm = head + tail
    if pair:
        busy = (float(w[1]) * 0.5 + (norm - float(w[0]) - float(w[1]))) / norm
    else:
        busy = 1.0 - float(w[0]) / norm
    return (head_n + tail_n) / norm, busy, True


@dataclass
class OpenLoad:
    """The open loops at one set of knobs, aggregated into one class of customers."""

    rates: list[float]
    """I/Os per second of each class of the network (0 for closed classes)."""
    lam_cmd: float
    """Commands per second of all the open loops."""
    arr: Arrays

    def utilization(self) -> FloatArray:
        """Per member of the network: the share of each of its servers the open loops keep
        busy (their demand and their writes' destage, at their offered rate)."""
        arr = self.arr
        servers = np.where(arr.servers > 0, arr.servers, 1) * np.where(arr.mirror, 2, 1)
        work = self.lam_cmd * (
            arr.parallel * (arr.fixed + arr.pos) + arr.bg_fixed_at() + arr.bg_pos
        )
        return np.asarray(np.where(arr.servers > 0, work / servers, 0.0), dtype=np.float64)


def open_load(net: Network, knobs: Knobs) -> OpenLoad:
    """The open loops' rates at ``knobs`` and their aggregated network."""
    cls = net.classes
    rates = [
        0.0
        if c.closed
        else c.rate
        * (knobs.rate[c.workload] or 0.0)
        / (net.scenario.workloads[c.workload].rate or 1.0)
        for c in cls
    ]  # I/Os per second
    cmd_rates = [r * c.cmds_per_io for r, c in zip(rates, cls, strict=True)]
    lam_cmd = sum(cmd_rates)
    mix = [r / lam_cmd if lam_cmd > 0 else 0.0 for r in cmd_rates]
    return OpenLoad(rates, lam_cmd, arrays(net, mix, net.prefetch))


def open_prediction(
    net: Network,
    knobs: Knobs,
    base_notes: Sequence[str],
    background: FloatArray | None = None,
    closed_queue: FloatArray | None = None,
) -> TwinPrediction:
    """Each station on its own with Poisson arrivals; responses summed.

    Beside closed loops (a mixed network), per member of ``net.members``: ``background`` is
    the utilisation the closed loops take (0 to 1) and ``closed_queue`` their mean number of
    customers there. At a single server the open loops' response is their own times
    ``1 + closed_queue`` (product form, [LZGS84]_ 7.4); at the other stations the closed
    loops' utilisation slows the server the open loops see by ``1 / (1 - U)``. The
    utilisation reported is the open loops' alone.
    """
    notes = list(base_notes)
    cls = net.classes
    load = open_load(net, knobs)
    rates, lam_cmd, arr = load.rates, load.lam_cmd, load.arr
    lam = lam_cmd * arr.parallel  # customers per second (branches of the commands)
    x_io = sum(rates)
    byte_rate = sum(r * c.bytes_per_io for r, c in zip(rates, cls, strict=True))
    n_k = len(arr.keys)
    exponential = True
    residence = np.zeros(n_k)
    util = np.zeros(n_k)
    stable = True
    worst = (-1.0, 0)
    bg_fixed = arr.bg_fixed_at()  # destages at their full-throttle depth
    for k in range(n_k):
        v = float(arr.visits[k])
        demand = float(arr.fixed[k] + arr.pos[k])
        if v <= 0 or demand <= 0:
            continue
        c = int(arr.servers[k])
        if c == 0:
            residence[k] = demand
            continue
        bg = lam_cmd * float(bg_fixed[k] + arr.bg_pos[k]) / c
        beside = 0.0 if background is None else float(background[k])
        # A single server's closed queue, where known, is what an open arrival finds there
        # (product form: the response is multiplied by 1 + Q_closed); elsewhere the closed
        # loops' utilisation slows the server
        queued = -1.0
        if closed_queue is not None and c == 1 and not arr.detailed(k):
            queued = float(closed_queue[k])
        slowed = beside if queued < 0.0 else 0.0
        slow = 1.0 / (1.0 - bg - slowed) if bg + slowed < 1.0 else math.inf
        mean = demand / v * slow
        arrival = lam * v
        rho = arrival * mean / c
        own = rho * (1.0 - slowed) + bg  # the open loops' utilisation, with their destage
        worst = max(worst, (own + beside, k))
        if own + beside >= 1.0 or not math.isfinite(slow):
            stable = False
            util[k] = min(own, 1.0)
            continue
        if arr.detailed(k):
            top = arr.saturation(k)
            service = arr.ld_demand(k, top) / v * slow
            number, busy, ok = _open_ld(arrival, service, top, bool(arr.mirror[k]))
            if not ok:
                stable = False
                util[k] = 1.0
                continue
            w = number / arrival
            util[k] = busy * (1.0 - beside) + bg
            exponential = False
        else:
            scv = max(float(arr.second[k]) / (demand / v) ** 2 - 1.0, 0.0)
            if c == 1:
                w = queues.mg1(arrival, mean, math.sqrt(scv)).response * (1.0 + max(queued, 0.0))
            else:
                base = queues.mmc(arrival, 1.0 / mean, c)
                w = base.response if abs(scv - 1.0) <= 1e-12 else (
                    base.wait * (1.0 + scv) / 2.0 + mean
                )  # fmt: skip
            if abs(scv - 1.0) > 1e-12:
                exponential = False
            util[k] = own
        residence[k] = v * w
    drive_members = [k for k, key in enumerate(arr.keys) if net.members[key].pool >= 0]
    fork = 1.0
    if arr.parallel > 1.0 + 1e-9:
        p = arr.parallel
        lo = math.floor(p)
        harmonic = sum(1.0 / i for i in range(1, lo + 1)) + (p - lo) / (lo + 1)
        fork = harmonic  # parallel branches: the largest of p residence times
    latency = arr.delay
    per_member = []
    for k in range(n_k):
        share = float(residence[k] * arr.count[k]) * (fork if k in drive_members else arr.parallel)
        per_member.append(share)
        latency += share
    u_groups, bottleneck = group_utilization(net, arr, util)
    model_notes(net, arr, notes, closed=False)
    if not stable:
        busiest, k = worst
        capacity = x_io / busiest
        note_once(
            notes,
            f"unstable: the offered {x_io:.6g} I/Os per second exceed what "
            f"{net.members[arr.keys[k]].group} can carry; IOPS capped at its capacity "
            "and the latency is infinite",
        )
        factor = min(capacity / x_io, 1.0)
        return TwinPrediction(
            iops=x_io * factor,
            mb_per_s=byte_rate * factor / 1e6,
            latency_ms_mean=math.inf,
            bottleneck=net.members[arr.keys[k]].group,
            utilization={g: min(v, 1.0) for g, v in u_groups.items()},
            population=None,
            notes=tuple(notes),
        )
    if not exponential:
        note_once(
            notes,
            "open loop: stations decomposed Jackson-style (Poisson arrivals at each), Erlang C "
            "for multi-server stations (Allen-Cunneen for non-exponential service) and "
            "Pollaczek-Khinchine for single servers, summed",
        )
    _open_limit_note(knobs, lam_cmd, latency, notes)
    return TwinPrediction(
        iops=x_io,
        mb_per_s=byte_rate / 1e6,
        latency_ms_mean=latency * 1e3,
        bottleneck=bottleneck,
        utilization=u_groups,
        population=None,
        notes=tuple(notes),
        breakdown_ms=open_layers(net, arr, per_member),
    )


def _open_limit_note(knobs: Knobs, lam: float, latency: float, notes: list[str]) -> None:
    limits = [q for q in knobs.host_qd if q is not None] + [
        q for hq in knobs.hba_qd for q in hq if q is not None
    ]
    if limits and lam * latency > min(limits):
        note_once(
            notes,
            "open loop: queue-depth limits are not modelled (the mean number in the path "
            f"{lam * latency:.1f} exceeds the smallest limit {min(limits)})",
        )
