"""Per-command demands of one class at every station of the I/O path.

Host side per route (the HBA processor, the card's or the port's by ``processor``; the PCIe
slot, host and array links, pipelined so that only the slowest link counts in the latency),
array side (controller, its bandwidth, cache hits and write-back absorption), the host's I/O
stack as a pure delay, the fabric's one-way trips, and the RAID work on the pool's drives
(:mod:`.drives`). Times in seconds, sizes in bytes.
"""

from __future__ import annotations

from typing import Any

from sanpath.layout.wiring import split_sizes, wire_bytes
from sanpath.spec.scenario import DistSpec, HostSpec, PoolSpec, Scenario, WorkloadSpec
from sanpath.theory.twin.drives import _add, _drive_work, _DriveModel, _scale_into, _Work, _work
from sanpath.theory.twin.network import _Class
from sanpath.theory.twin.prediction import _note


def _dist(d: DistSpec) -> tuple[float, float]:
    """(mean (s), variance (s^2)) of a service-time distribution."""
    return d.mean_s, d.scv * d.mean_s * d.mean_s


def hba_processors(hs: HostSpec) -> list[int]:
    """For every HBA port of one host (counted over every card), the index of its processor.

    A card with ``processor: card`` has one processor for all its ports, one with
    ``processor: port`` one per port; processors are numbered over the host's cards in order,
    so a host whose cards all share one processor per card numbers them as its cards.
    """
    index: list[int] = []
    n = 0
    for hba in hs.hbas:
        for _ in range(hba.count):
            if hba.processor == "card":
                index.extend([n] * hba.ports)
                n += 1
            else:
                index.extend(range(n, n + hba.ports))
                n += hba.ports
    return index


def _fill_class(
    s: Scenario,
    c: _Class,
    w: WorkloadSpec,
    limit: int | None,
    routes: list[tuple[int, int]],
    lun_fractions: list[list[float]],
    member: Any,
    ports: list[tuple[int, int]],
    controller: tuple[str, int],
    ctrl: tuple[tuple[float, float], tuple[float, float]],
    port_speed: float | None,
    one_way: float,
    pool: PoolSpec,
    pool_id: int,
    model: _DriveModel,
    base: int,
    seq_private: bool,
    destage: bool,
    notes: list[str],
) -> None:
    """Per-command demands of class ``c`` at every station."""
    hs = s.hosts[c.host_group]
    hname = hs.name
    count = hs.count
    fabric = s.fabric
    cache = s.array.cache
    payload, overhead = fabric.frame_payload, fabric.frame_overhead
    n_luns = len(lun_fractions)
    route_share = [sum(fr[r] for fr in lun_fractions) / n_luns for r in range(len(routes))]
    drive_key = (f"array.{pool.name}.drives", 0)
    mode = "seq" if w.pattern == "sequential" and seq_private else "random"
    if w.pattern == "sequential" and not seq_private and model.kind == "hdd":
        _note(
            notes,
            f"sequential streams share the drives of pool {pool.name}: their operations are "
            "treated as random (seek + half a revolution, SPTF)",
        )
    capacity = cache.write_back or 0
    read_ahead = cache.read_ahead > 0 and w.pattern == "sequential"
    merge = max(pool.data_drives * pool.stripe_element, cache.destage_size)
    k_total = c.cmds_per_io
    processor_of = hba_processors(hs)
    for size, weight in w.block_size:
        children = split_sizes(size, limit)
        share = weight * len(children) / k_total  # fraction of the class's commands
        for write, p_rw in ((False, w.read_fraction), (True, 1.0 - w.read_fraction)):
            v = share * p_rw
            if v <= 0.0:
                continue
            mean_cmd = sum(children) / len(children)
            # host side, per route
            for r, (port, a) in enumerate(routes):
                f = v * route_share[r]
                if f <= 0.0:
                    continue
                card, si = ports[port]
                hba = hs.hbas[si]
                t_mean, t_var = _dist(hba.command_time)
                cpu = member(f"{hname}.hba.cpu", processor_of[port], 1, count)
                _add(_get(c, cpu), f, t_mean, vf=t_var)
                legs = []
                for part in children:
                    pf = f / len(children)
                    wire = wire_bytes(part, payload, overhead)
                    t_pcie = part / hba.pcie.bytes_per_s if hba.pcie is not None else 0.0
                    t_host = wire / hba.speed if hba.speed is not None else 0.0
                    t_port = wire / port_speed if port_speed is not None else 0.0
                    direction = ("down", "out", "in") if write else ("up", "in", "out")
                    if t_pcie > 0:
                        key = member(f"{hname}.pcie.{direction[0]}", card, 1, count)
                        _add(_get(c, key), pf, t_pcie)
                    if t_host > 0:
                        key = member(f"{hname}.link.{direction[1]}", port, 1, count)
                        _add(_get(c, key), pf, t_host)
                    if t_port > 0:
                        key = member(f"array.port{a}.link.{direction[2]}", a, 1, 1)
                        _add(_get(c, key), pf, t_port)
                    legs.append((pf, t_pcie + t_host + t_port - max(t_pcie, t_host, t_port)))
                # Pipelined transfer: the links overlap, the service of the slower ones only
                # counts once (a negative delay removes the overlap).
                c.overlap += sum(pf * overlap for pf, overlap in legs)
            # array side
            mean, var = ctrl[1] if write else ctrl[0]
            _add(_get(c, controller), v, mean, vf=var)
            bandwidth = s.array.controller.bandwidth
            if bandwidth is not None:
                key = member("array.controller.bandwidth", 0, 1, 1)
                setup = s.array.controller.transfer_setup
                _add(_get(c, key), v, mean_cmd / bandwidth + setup)
            c.delay += v * hs.io_time.mean_s  # the host's I/O stack: a pure delay
            if hs.cpus is not None:  # its processor time: a queue with ``cpus`` servers
                cpu_mean, cpu_var = _dist(hs.cpu_time)
                _add(_get(c, member(f"{hname}.cpu", 0, hs.cpus, count)), v, cpu_mean, vf=cpu_var)
            c.delay += v * one_way * (4 if write else 2)
            if not write:
                if read_ahead:
                    c.delay += v * cache.hit_time
                    c.prefetch[pool_id] = c.prefetch.get(pool_id, 0.0) + v * mean_cmd
                else:
                    group_hit = s.array.luns[c.lun_group].read_hit
                    hit = cache.read_hit if group_hit is None else group_hit
                    c.delay += v * hit * cache.hit_time
                    fg, _ = _drive_work(pool, model, base, size, limit, False, "read", mode, 0)
                    _scale_into(_get(c, drive_key), fg, v * (1.0 - hit))
                    if 0.0 < hit < 1.0:
                        _note(
                            notes,
                            "cache read hits are a pure delay (hit_time) with probability "
                            "read_hit; misses go to the drives",
                        )
            else:
                absorbed = capacity > 0 and all(
                    (cache.write_aside is None or part <= cache.write_aside) and part <= capacity
                    for part in children
                )
                if absorbed:
                    c.delay += v * (
                        cache.hit_time if cache.write_time is None else cache.write_time
                    )
                    group_write_hit = s.array.luns[c.lun_group].write_hit
                    write_hit = cache.write_hit if group_write_hit is None else group_write_hit
                    v_miss = v * (1.0 - write_hit)  # write hits take no room, no destage
                    c.absorbed_bytes += v_miss * mean_cmd
                    extent = mean_cmd
                    if w.pattern == "sequential" and seq_private and mean_cmd < merge:
                        extent = (merge // int(mean_cmd)) * mean_cmd
                    if destage:
                        _, bg = _drive_work(
                            pool, model, base, size, limit, True, "absorbed", mode, int(extent)
                        )
                        _scale_into(_get_bg(c, drive_key), bg, v_miss)
                else:
                    fg, _ = _drive_work(pool, model, base, size, limit, True, "write", mode, 0)
                    _scale_into(_get(c, drive_key), fg, v)


def _get(c: _Class, key: tuple[str, int]) -> _Work:
    acc = c.work.get(key)
    if acc is None:
        acc = c.work[key] = _work()
    return acc


def _get_bg(c: _Class, key: tuple[str, int]) -> _Work:
    acc = c.background.get(key)
    if acc is None:
        acc = c.background[key] = _work()
    return acc
