"""Where an I/O's time goes in the twin: seconds per layer of :data:`sanpath.results.LAYERS`.

The pure delays are charged to their layers as the model adds them (the host's stack, the
fabric's trips, cache hits, forwarding between controllers; link service hidden by pipelining
comes off the fabric). A station's time counts to the layer of its role
(:func:`sanpath.layout.station_roles`). An open loop knows every station's response, so its
layers sum to the latency. A closed loop knows the time inside the path (the population over
the throughput, Little's law) but not every station's queue: the stations share that time in
proportion to their residence estimated from their utilisation (demand / (1 - U^c)), and what
the I/Os spend beyond the queue-depth limits is the host queue.
"""

from __future__ import annotations

from collections.abc import Sequence

from sanpath.layout import station_roles
from sanpath.results import LAYERS
from sanpath.theory.kernels import FloatArray
from sanpath.theory.twin.model import Network
from sanpath.theory.twin.solve.aggregate import Arrays

__all__ = ["closed_layers", "open_layers"]

_MOST_BUSY = 0.99
"""Utilisation at which the residence estimate of a closed loop's station stops growing."""


def _station_layers(net: Network, arr: Arrays) -> list[str]:
    roles = station_roles(net.scenario)
    return [roles[name].layer for name, _ in arr.keys]


def _in_order(seconds: dict[str, float]) -> dict[str, float]:
    """Milliseconds per layer, in path order, every layer present."""
    return {layer: max(seconds.get(layer, 0.0), 0.0) * 1e3 for layer in LAYERS}


def open_layers(net: Network, arr: Arrays, residence: Sequence[float]) -> dict[str, float]:
    """Milliseconds per I/O and layer of an open loop, from each member's ``residence`` per
    command (seconds, all its identical members and branches counted)."""
    out = dict(arr.delays)
    for layer, r in zip(_station_layers(net, arr), residence, strict=True):
        out[layer] = out.get(layer, 0.0) + r
    return _in_order(out)


def closed_layers(
    net: Network,
    arr: Arrays,
    x_cmd: float,
    util: FloatArray,
    queue: FloatArray,
    in_path: float,
    latency: float,
) -> dict[str, float]:
    """Milliseconds per I/O and layer of a closed loop.

    ``in_path`` is the time an I/O spends inside the path (seconds, the population inside the
    queue-depth limits over the throughput, think time excluded), ``latency`` its whole mean
    latency; ``x_cmd`` the commands per second, ``util`` and ``queue`` each member's
    utilisation and, where the solution knows it, mean number of customers.
    """
    out = dict(arr.delays)
    weights = []
    for k in range(len(arr.keys)):
        demand = float(arr.fixed[k] + arr.pos[k]) * float(arr.count[k]) * arr.parallel
        servers = int(arr.servers[k])
        if demand <= 0.0:
            weights.append(0.0)
        elif float(queue[k]) > 0.0 and x_cmd > 0.0:
            weights.append(float(queue[k]) * float(arr.count[k]) / x_cmd)
        elif servers == 0:
            weights.append(demand)
        else:
            busy = min(float(util[k]), _MOST_BUSY)
            weights.append(demand / (1.0 - busy**servers))
    stations = max(in_path - sum(arr.delays.values()), 0.0)
    total = sum(weights)
    for layer, w in zip(_station_layers(net, arr), weights, strict=True):
        if total > 0.0:
            out[layer] = out.get(layer, 0.0) + stations * w / total
    out["host_queue"] = out.get("host_queue", 0.0) + max(latency - in_path, 0.0)
    return _in_order(out)
