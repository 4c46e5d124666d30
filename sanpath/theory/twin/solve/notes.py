"""Utilisation per station group, the bottleneck's name, and the notes on the model."""

from __future__ import annotations

import numpy as np

from sanpath.theory.kernels import FloatArray
from sanpath.theory.twin.model import Network
from sanpath.theory.twin.prediction import note_once
from sanpath.theory.twin.solve.aggregate import Arrays


def group_utilization(
    net: Network, arr: Arrays, u_member: FloatArray
) -> tuple[dict[str, float], str]:
    """Mean utilisation per station group, and the group of the busiest member."""
    busy: dict[str, float] = {}
    best, best_u = "", -1.0
    for k, key in enumerate(arr.keys):
        mb = net.members[key]
        u = float(u_member[k])
        if mb.servers == 0 or u <= 0.0:
            continue
        if mb.busy_scale > 0:  # read-ahead: a share of the prefetch capacity
            busy[mb.group] = busy.get(mb.group, 0.0) + u * mb.busy_scale
            u = u * mb.busy_scale / net.group_servers.get(mb.group, 1.0)
        else:
            pair = 2 if mb.mirror else 1
            busy[mb.group] = busy.get(mb.group, 0.0) + u * mb.servers * mb.count * pair
        if u > best_u + 1e-12:
            best, best_u = mb.group, u
    util = {g: b / net.group_servers.get(g, 1.0) for g, b in busy.items()}
    return util, best


def exponential_note(net: Network, arr: Arrays, u: FloatArray, notes: list[str]) -> None:
    groups = []
    for k, key in enumerate(arr.keys):
        mb = net.members[key]
        if mb.servers == 0 or arr.visits[k] <= 0 or mb.busy_scale > 0:
            continue
        mean = (arr.fixed[k] + arr.pos[k]) / arr.visits[k]
        scv = arr.second[k] / (mean * mean) - 1.0 if mean > 0 else 1.0
        if abs(scv - 1.0) > 0.05 and u[k] > 0.05 and mb.group not in groups:
            groups.append(mb.group)
    if groups:
        note_once(
            notes,
            "MVA treats every station as exponential (product form); the service times of "
            f"{', '.join(groups)} are not (constant links and processors, low-variance drives)",
        )


def model_notes(net: Network, arr: Arrays, notes: list[str], closed: bool) -> None:
    elevator = [k for k in arr.reorder if arr.sptf_window[k] <= 0]
    if elevator:
        note_once(
            notes,
            "HDD command queueing (elevator) as a load-dependent station: with j commands "
            "queued the arm seeks to the nearest of them ahead, so the seek shrinks and the "
            "rotational wait stays half a revolution (layout.geometry.queue_gain)",
        )
    if len(elevator) < len(arr.reorder):
        note_once(
            notes,
            "HDD command queueing (SPTF) as a load-dependent station: with j commands queued a "
            "drive positions g(j) = min(j, tcq)^0.27 times faster (solved exactly in the "
            "product-form network, which assumes exponential service)"
            if closed
            else "HDD command queueing (SPTF) as a load-dependent birth-death station: with j "
            "commands queued a drive positions g(j) = min(j, tcq)^0.27 times faster",
        )
    if arr.parallel > 1.0 + 1e-9:
        note_once(
            notes,
            f"fork-join: a command's parallel drive operations ({arr.parallel:.2f} per phase) "
            "are modelled as that many customers sharing the command's work (the wait for the "
            "slowest is ignored)"
            if closed
            else "fork-join: the response of a command's parallel drive operations is taken as "
            "H_k / k times their summed residence (the mean largest of k exponentials)",
        )
    if _overlaps(net):
        note_once(
            notes,
            "pipelined transfers: a command's data crosses PCIe, the host link and the array "
            "link at once, so only the slowest link's service time counts in its latency (a "
            "negative delay removes the overlap)",
        )
    if bool(np.any(arr.bg_fixed + arr.bg_pos > 0)):
        note_once(
            notes,
            "write-back destage treated as background load on the drives (mixed network: "
            "closed demands inflated by 1 / (1 - U_destage), destage commands queued at an "
            "SPTF drive counted in its queue); a cache the drives cannot keep up with is "
            "capped at what they destage (forced flushes)",
        )
    if any(c.prefetch for c in net.classes):
        note_once(
            notes,
            "read-ahead: the prefetch streams (streams x read_ahead / chunk reads in flight) are "
            "solved on the drives alone; sequential readers queue for that bandwidth as for one "
            "server and otherwise see a cache hit",
        )


def _overlaps(net: Network) -> bool:
    return any(c.overlap > 0 for c in net.classes)
