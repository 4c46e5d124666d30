"""Sweep-point knobs and the populations they set.

Queue depths and loads (:class:`Knobs`) change how many commands are inside the path, not
any demand, so a sweep over them reuses one network (:func:`apply_knobs` tells which points
qualify). :func:`populations` turns the knobs into the commands of each closed class inside
the path: the host's and the HBA's queue depths bound what enters, the array's limits (LUN and
port queues) are treated as bounds too, the rest waits in the host; the commands beyond an
array limit that hosts without a throttle keep retrying are counted for the refusals' cost
(:mod:`sanpath.theory.qfull`).
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from sanpath.layout import nvme_queues
from sanpath.spec import TRANSPORTS, Scenario, match_knob
from sanpath.theory.qfull import retry_cycle
from sanpath.theory.twin.model.network import Network as _Network
from sanpath.theory.twin.prediction import note_once as _note

# --------------------------------------------------------------------------------------------
# Knobs: what a sweep varies without changing any demand
# --------------------------------------------------------------------------------------------


@dataclass
class Knobs:
    """Queue depths and loads: they set the population, not the demands."""

    outstanding: list[int]
    rate: list[float | None]
    host_qd: list[int | None]
    hba_qd: list[list[int | None]]
    port_qd: int | None
    lun_setting: int | str | None
    lun_group_setting: list[int | str | None]

    @classmethod
    def of(cls, s: Scenario) -> Knobs:
        return cls(
            outstanding=[w.outstanding_per_lun for w in s.workloads],
            rate=[w.rate for w in s.workloads],
            host_qd=[h.lun_queue_depth for h in s.hosts],
            hba_qd=[[hba.queue_depth for hba in h.hbas] for h in s.hosts],
            port_qd=s.array.port_queue_depth,
            lun_setting=s.array.lun_queue_depth,
            lun_group_setting=[g.queue_depth for g in s.array.luns],
        )

    def copy(self) -> Knobs:
        return Knobs(
            list(self.outstanding),
            list(self.rate),
            list(self.host_qd),
            [list(x) for x in self.hba_qd],
            self.port_qd,
            self.lun_setting,
            list(self.lun_group_setting),
        )

    def lun_limit(self, s: Scenario, gi: int) -> int | None:
        group = s.array.luns[gi]
        setting = self.lun_group_setting[gi]
        if setting is None:
            setting = self.lun_setting
        if setting == "clariion":
            pool = next(p for p in s.array.pools if p.name == group.pool)
            return 32 + 14 * pool.data_drives * pool.groups
        assert setting is None or isinstance(setting, int)
        return setting


def _indices(part: str, n: int) -> list[int] | None:
    if part == "*":
        return list(range(n))
    if part.isdigit() and int(part) < n:
        return [int(part)]
    return None


def _depth(value: Any, nullable: bool) -> bool:
    if value is None:
        return nullable
    return isinstance(value, int) and not isinstance(value, bool) and value >= 1


def apply_knobs(s: Scenario, base: Knobs, point: Mapping[str, Any]) -> Knobs | None:
    """The knobs of ``point`` (dotted overrides), or None when a key changes more than that
    (a key of :data:`sanpath.spec.knobs.KNOBS` that sets a population, with a valid value)."""
    k = base.copy()
    for key, value in point.items():
        found = match_knob(key)
        if found is None:
            return None
        name, at = found[0].name, found[1]
        if name in ("outstanding", "rate"):
            idx = _indices(at["workload"], len(s.workloads))
            if idx is None:
                return None
            for i in idx:
                closed = s.workloads[i].closed
                if name == "outstanding":
                    if not closed or not _depth(value, False):
                        return None
                    k.outstanding[i] = int(value)
                else:
                    ok = isinstance(value, int | float) and not isinstance(value, bool)
                    if closed or not ok or not value > 0:
                        return None
                    k.rate[i] = float(value)
        elif name == "host_queue_depth":
            idx = _indices(at["host"], len(s.hosts))
            if idx is None or not _depth(value, True):
                return None
            for i in idx:
                k.host_qd[i] = value
        elif name == "hba_queue_depth":
            idx = _indices(at["host"], len(s.hosts))
            if idx is None or not _depth(value, True):
                return None
            for i in idx:
                cards = _indices(at["hba"], len(s.hosts[i].hbas))
                if cards is None:
                    return None
                for j in cards:
                    k.hba_qd[i][j] = value
        elif name == "port_queue_depth":
            if not _depth(value, True):
                return None
            k.port_qd = value
        elif name == "array_lun_queue_depth":
            if not (_depth(value, True) or value == "clariion"):
                return None
            k.lun_setting = value
        elif name == "lun_queue_depth":
            idx = _indices(at["lun"], len(s.array.luns))
            if idx is None or not (_depth(value, True) or value == "clariion"):
                return None
            for i in idx:
                k.lun_group_setting[i] = value
        else:
            return None
    return k


# --------------------------------------------------------------------------------------------
# Populations: the queue-depth limits as bounds on the commands inside the path
# --------------------------------------------------------------------------------------------


def populations(
    net: _Network,
    knobs: Knobs,
    notes: list[str],
    retrying: list[tuple[float, float]] | None = None,
) -> list[float]:
    """Commands of each closed class inside the path (the rest waits in the host).

    The commands an array limit refuses are bounded away, as a throttling host would; those
    of hosts without a throttle keep being retried: their number and cycle (s) are added to
    ``retrying`` (see :func:`sanpath.theory.qfull.refusal_load`).
    """
    s = net.scenario
    cls = net.classes
    nvme = [TRANSPORTS[host.transport].nvme for host in s.hosts]
    # per flow and route: commands the host would like to have in flight
    flows: list[list[float]] = []
    wanted_total = 0.0
    for flow in net.flows:
        n = sum(per * knobs.outstanding[cls[ci].workload] for ci, per in flow.classes.items())
        qd = None if nvme[flow.host_group] else knobs.host_qd[flow.host_group]
        x = [min(n * f, math.inf if qd is None else float(qd)) for _, _, f in flow.routes]
        flows.append(x)
        wanted_total += n * net.host_counts[flow.host_group]
    # HBA command slots: per port and LUN, or per port and target port; NVMe: the queue
    # pairs of each association of a host port with an array port, shared by its namespaces
    pools: dict[tuple[int, int, str, int], list[tuple[int, int]]] = {}
    for fi, flow in enumerate(net.flows):
        for r, (port, a, _) in enumerate(flow.routes):
            si = flow.hba_spec[r]
            target: str = s.hosts[flow.host_group].hbas[si].queue_target
            mode = "nvme" if nvme[flow.host_group] else target
            key = (flow.host_group, port, mode, a if mode != "lun" else flow.lun)
            pools.setdefault(key, []).append((fi, r))
    for (hi, port, mode, _), members in pools.items():
        si = net.hba_ports[hi][port][1]
        if mode == "nvme":
            io_queues, queue_size = nvme_queues(s, hi)
            cap: int | None = io_queues * (queue_size - 1)
        else:
            cap = knobs.hba_qd[hi][si]
        if cap is None:
            continue
        total = sum(flows[fi][r] for fi, r in members)
        if total > cap:
            for fi, r in members:
                flows[fi][r] *= cap / total
    inside_host = sum(
        sum(x) * net.host_counts[flow.host_group] for flow, x in zip(net.flows, flows, strict=True)
    )

    def refused(members: list[int], share: float, on_port: int | None = None) -> None:
        """Record the commands of ``members`` (flows) beyond a limit that keep retrying."""
        if retrying is None:
            return
        for fi in members:
            flow = net.flows[fi]
            if s.hosts[flow.host_group].qfull.throttle != "none":
                continue
            for r, ((_, a, _), xr) in enumerate(zip(flow.routes, flows[fi], strict=True)):
                if on_port is not None and a != on_port:
                    continue
                n = xr * net.host_counts[flow.host_group] * share
                if n > 0:
                    retrying.append((n, retry_cycle(s, flow.host_group, flow.hba_spec[r])))

    # The array's limits answer QUEUE FULL: bound the population by them.
    by_lun: dict[int, list[int]] = {}
    for fi, flow in enumerate(net.flows):
        if not nvme[flow.host_group]:  # NVMe namespaces have no queue that refuses
            by_lun.setdefault(flow.lun, []).append(fi)
    for members_ in by_lun.values():
        gi = net.flows[members_[0]].lun_group
        cap_lun = knobs.lun_limit(s, gi)
        if cap_lun is None:
            continue
        total = sum(sum(flows[fi]) * net.host_counts[net.flows[fi].host_group] for fi in members_)
        if total > cap_lun + 1e-9:
            _note(
                notes,
                f"QUEUE FULL: hosts can keep {total:.0f} commands against a LUN queue of "
                f"{cap_lun} (LUN group {s.array.luns[gi].name}); the twin bounds the population "
                "at the limit, the steady state of throttling hosts (their step-downs and "
                "step-ups are not modelled)",
            )
            refused(members_, 1.0 - cap_lun / total)
            for fi in members_:
                flows[fi] = [x * cap_lun / total for x in flows[fi]]
    port_cap = knobs.port_qd
    if port_cap is not None:
        per_port: dict[int, float] = {}
        for flow, x in zip(net.flows, flows, strict=True):
            if nvme[flow.host_group]:
                continue
            for (_, a, _), xr in zip(flow.routes, x, strict=True):
                per_port[a] = per_port.get(a, 0.0) + xr * net.host_counts[flow.host_group]
        for a, total in per_port.items():
            if total > port_cap + 1e-9:
                _note(
                    notes,
                    f"QUEUE FULL: hosts can keep {total:.0f} commands against a port queue of "
                    f"{port_cap} (array port {a}); the twin bounds the population at the port "
                    "queue, the steady state of throttling hosts (their step-downs and step-ups "
                    "are not modelled)",
                )
                scsi = [fi for fi, flow in enumerate(net.flows) if not nvme[flow.host_group]]
                refused(scsi, 1.0 - port_cap / total, on_port=a)
                for fi in scsi:
                    flow = net.flows[fi]
                    flows[fi] = [
                        xr * port_cap / total if ra == a else xr
                        for (_, ra, _), xr in zip(flow.routes, flows[fi], strict=True)
                    ]
    pops = [0.0] * len(cls)
    for flow, x in zip(net.flows, flows, strict=True):
        inside = sum(x) * net.host_counts[flow.host_group]
        total = sum(flow.classes.values())
        for ci, per in flow.classes.items():
            weight = per * knobs.outstanding[cls[ci].workload]
            norm = sum(p * knobs.outstanding[cls[c].workload] for c, p in flow.classes.items())
            pops[ci] += inside * weight / norm if norm > 0 else inside * per / total
    if inside_host < wanted_total - 1e-9:
        _note(
            notes,
            f"queue-depth limits bound the population: {sum(pops):.0f} of {wanted_total:.0f} "
            "outstanding commands are inside the path, the rest wait in the host "
            "(latency = N / X)",
        )
    return pops
