"""Per-command demands of one class at every station of the I/O path.

Host side per route (the HBA processor, the card's or the port's by ``processor``; the PCIe
slot, host and array links, pipelined so that only the slowest link counts in the latency),
array side (controller, its bandwidth, cache hits and write-back absorption), the host's I/O
stack as a pure delay, the fabric's one-way trips, and the RAID work on the pool's drives
(:mod:`.drives`). Times in seconds, sizes in bytes.
"""

from __future__ import annotations

from typing import Any

from sanpath.layout import (
    IslHop,
    host_framing,
    host_link_rates,
    isl_credits,
    isl_hops,
    isl_label,
    isl_light,
    nvme_io_time,
    port_controller,
    read_hit,
    split_sizes,
    station_name,
    target_time,
    transport_cpu_time,
    transport_delay,
)
from sanpath.spec import DistSpec, HostSpec, PoolSpec, Scenario, WorkloadSpec
from sanpath.theory.twin.model.drives import DriveModel as _DriveModel
from sanpath.theory.twin.model.drives import Work as _Work
from sanpath.theory.twin.model.drives import add_work as _add
from sanpath.theory.twin.model.drives import drive_work as _drive_work
from sanpath.theory.twin.model.drives import new_work as _work
from sanpath.theory.twin.model.drives import scale_into as _scale_into
from sanpath.theory.twin.model.network import Class as _Class
from sanpath.theory.twin.prediction import note_once as _note


def dist(d: DistSpec) -> tuple[float, float]:
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


def fill_class(
    s: Scenario,
    c: _Class,
    w: WorkloadSpec,
    limit: int | None,
    routes: list[tuple[int, int]],
    lun_fractions: list[list[float]],
    member: Any,
    ports: list[tuple[int, int]],
    owners: list[tuple[tuple[str, int], int]],
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
    """Per-command demands of class ``c`` at every station; ``owners`` gives, for each LUN
    of the class, the controller member that serves it and the LUN's owner (the array's one
    controller serves every LUN, the owner deciding only which paths are forwarded)."""
    hs = s.hosts[c.host_group]
    hname = hs.name
    count = hs.count
    cache = s.array.cache
    framing = host_framing(s, c.host_group)
    # each HBA spec's link rates outwards and inwards, less where its credits bind
    link_rates = [host_link_rates(s, c.host_group, si) for si in range(len(hs.hbas))]
    # the ISLs each array port's route crosses toward the array: (station, rate) per hop,
    # both ways, and their light one way
    isl_ways = {a: _isl_way(s, c.host_group, a) for _, a in routes}
    n_luns = len(lun_fractions)
    route_share = [sum(fr[r] for fr in lun_fractions) / n_luns for r in range(len(routes))]
    # the owner of each LUN, weighted by the LUN's share of the class's commands
    owner_share: dict[tuple[str, int], float] = {}
    for owner_key, _ in owners:
        owner_share[owner_key] = owner_share.get(owner_key, 0.0) + 1.0 / n_luns
    if len(owner_share) == 1:  # one controller serves them all: exactly all of it
        owner_share = dict.fromkeys(owner_share, 1.0)
    transport = hs.transport
    ctrl = _transport_times(s, transport, ctrl)
    cpu_extra = transport_cpu_time(s, c.host_group)
    stack_delay = transport_delay(s, c.host_group)
    cross = s.array.cross_controller
    forward = cross.time if cross is not None else 0.0
    drive_key = (station_name("drives", pool=pool.name), 0)
    r_share = w.random_share
    sequential = r_share < 1.0  # some I/Os continue where the previous one ended
    seq_mode = "seq" if seq_private else "random"
    # drive positioning: the sequential share in the stream's mode, the rest random
    modes = [(m, x) for m, x in ((seq_mode, 1.0 - r_share), ("random", r_share)) if x > 0.0]
    mode = seq_mode if r_share == 0.0 else "random"  # destage of absorbed writes
    if 0.0 < r_share < 1.0:
        _note(
            notes,
            "random_fraction: drive work is the mix of sequential and random operations; "
            "reads continuing a random jump count as sequential",
        )
    if sequential and not seq_private and model.kind == "hdd":
        _note(
            notes,
            f"sequential streams share the drives of pool {pool.name}: their operations are "
            "treated as random (seek + half a revolution, SPTF)",
        )
    capacity = cache.write_back or 0
    read_ahead = cache.read_ahead > 0 and sequential
    merge = max(pool.data_drives * pool.stripe_element, cache.destage_size)
    k_total = c.cmds_per_io
    processor_of = hba_processors(hs)
    hit = read_hit(s, c.workload, c.lun_group)
    if w.think_time is not None:
        # every command of an I/O is a customer that thinks once per cycle
        c.think = w.think_time.mean_s
        c.delay += c.think
    for size, weight, directions in _size_directions(w):
        children = split_sizes(size, limit)
        share = weight * len(children) / k_total  # fraction of the class's commands
        for write, p_rw in directions:
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
                t_mean, t_var = dist(hba.command_time)
                cpu = member(station_name("hba_cpu", host=hname), processor_of[port], 1, count)
                _add(_get(c, cpu), f, t_mean, vf=t_var)
                legs = []
                # a path that reaches a LUN through the controller that does not own it is
                # forwarded to the owner (the cross-controller link itself is not modelled)
                if forward > 0.0:
                    for li, fr in enumerate(lun_fractions):
                        if port_controller(a) != owners[li][1]:
                            _delay(c, "controller", v * fr[r] / n_luns * forward)
                for part in children:
                    pf = f / len(children)
                    wire = framing.wire_bytes(part)
                    t_pcie = part / hba.pcie.bytes_per_s if hba.pcie is not None else 0.0
                    host_rate = link_rates[si][0 if write else 1]
                    t_host = wire / host_rate if host_rate is not None else 0.0
                    t_port = wire / port_speed if port_speed is not None else 0.0
                    direction = ("down", "out", "in") if write else ("up", "in", "out")
                    if t_pcie > 0:
                        key = member(
                            station_name(f"pcie_{direction[0]}", host=hname), card, 1, count
                        )
                        _add(_get(c, key), pf, t_pcie)
                    if t_host > 0:
                        key = member(
                            station_name(f"host_link_{direction[1]}", host=hname), port, 1, count
                        )
                        _add(_get(c, key), pf, t_host)
                    if t_port > 0:
                        key = member(station_name(f"port_link_{direction[2]}", port=a), a, 1, 1)
                        _add(_get(c, key), pf, t_port)
                    t_isls = []
                    for out_name, back_name, isl_rate, links in isl_ways[a][0]:
                        t_isl = wire / isl_rate
                        for j in range(links):  # the load spread evenly over the links
                            key = member(out_name if write else back_name, j, 1, 1)
                            _add(_get(c, key), pf / links, t_isl)
                        t_isls.append(t_isl)
                    t_all = t_pcie + t_host + t_port + sum(t_isls)
                    legs.append((pf, t_all - max(t_pcie, t_host, t_port, *t_isls)))
                # Pipelined transfer: the links overlap, the service of the slower ones only
                # counts once (a negative delay removes the overlap).
                c.overlap += sum(pf * overlap for pf, overlap in legs)
                if isl_ways[a][1] > 0.0:  # light over the ISLs, as over the fabric
                    _delay(c, "fabric", f * isl_ways[a][1] * (4 if write else 2))
            # array side
            mean, var = ctrl[1] if write else ctrl[0]
            for owner_key, owner_part in owner_share.items():
                _add(_get(c, owner_key), v * owner_part, mean, vf=var)
            bandwidth = s.array.controller.bandwidth
            if bandwidth is not None:
                key = member(station_name("controller_bandwidth"), 0, 1, 1)
                setup = s.array.controller.transfer_setup
                _add(_get(c, key), v, mean_cmd / bandwidth + setup)
            _delay(c, "host", v * hs.io_time.mean_s)  # the host's I/O stack: a pure delay
            if hs.cpus is not None:  # its processor time: a queue with ``cpus`` servers
                cpu_mean, cpu_var = dist(hs.cpu_time)
                _add(
                    _get(c, member(station_name("host_cpu", host=hname), 0, hs.cpus, count)),
                    v,
                    cpu_mean + cpu_extra,  # with the transport's own time per command
                    vf=cpu_var,
                )
            else:
                _delay(c, "host", v * cpu_extra)
            _delay(c, "host", v * stack_delay)  # the transport's stack: a pure delay
            _delay(c, "fabric", v * one_way * (4 if write else 2))
            if not write:
                v_random = v
                if read_ahead:
                    # the sequential share is served by read-ahead, the random jumps are not
                    v_seq = v * (1.0 - r_share)
                    v_random = v - v_seq
                    _delay(c, "cache", v_seq * cache.hit_time)
                    c.prefetch[pool_id] = c.prefetch.get(pool_id, 0.0) + v_seq * mean_cmd
                if v_random > 0.0:
                    _delay(c, "cache", v_random * hit * cache.hit_time)
                    ops = [("random", 1.0)] if read_ahead else modes
                    for m, x in ops:
                        fg, _ = _drive_work(pool, model, base, size, limit, False, "read", m, 0)
                        _scale_into(_get(c, drive_key), fg, v_random * (1.0 - hit) * x)
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
                    landing = cache.hit_time if cache.write_time is None else cache.write_time
                    _delay(c, "cache", v * landing)
                    group_write_hit = s.array.luns[c.lun_group].write_hit
                    write_hit = cache.write_hit if group_write_hit is None else group_write_hit
                    v_miss = v * (1.0 - write_hit)  # write hits take no room, no destage
                    c.absorbed_bytes += v_miss * mean_cmd
                    extent = mean_cmd
                    if r_share == 0.0 and seq_private and mean_cmd < merge:
                        extent = (merge // int(mean_cmd)) * mean_cmd
                    if destage:
                        _, bg = _drive_work(
                            pool, model, base, size, limit, True, "absorbed", mode, int(extent)
                        )
                        _scale_into(_get_bg(c, drive_key), bg, v_miss)
                else:
                    for m, x in modes:
                        fg, _ = _drive_work(pool, model, base, size, limit, True, "write", m, 0)
                        _scale_into(_get(c, drive_key), fg, v * x)


def _transport_times(
    s: Scenario, transport: str, ctrl: tuple[tuple[float, float], tuple[float, float]]
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The controller's (mean, variance) per read and write command for ``transport``: NVMe's
    own time when given, plus the transport's processor time on the array."""
    own = nvme_io_time(s, transport)
    if own is not None:
        ctrl = ((own, 0.0), (own, 0.0))
    extra = target_time(s, transport)
    return (ctrl[0][0] + extra, ctrl[0][1]), (ctrl[1][0] + extra, ctrl[1][1])


def _size_directions(
    w: WorkloadSpec,
) -> list[tuple[int, float, tuple[tuple[bool, float], ...]]]:
    """(size, weight in its mix, ((is_write, share of the I/Os), ...)) for every size.

    One mix for both directions unless ``read_block_size`` or ``write_block_size`` is set.
    """
    rf = w.read_fraction
    if not w.per_direction:
        both = ((False, rf), (True, 1.0 - rf))
        return [(size, weight, both) for size, weight in w.block_size]
    out: list[tuple[int, float, tuple[tuple[bool, float], ...]]] = [
        (size, weight, ((False, rf),)) for size, weight in w.read_sizes
    ]
    out += [(size, weight, ((True, 1.0 - rf),)) for size, weight in w.write_sizes]
    return out


def _delay(c: _Class, layer: str, seconds: float) -> None:
    """Add a pure delay of ``seconds`` per command, charged to ``layer`` (of
    :data:`sanpath.results.LAYERS`)."""
    c.delay += seconds
    c.delays[layer] = c.delays.get(layer, 0.0) + seconds


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


def _isl_way(s: Scenario, group: int, port: int) -> tuple[list[tuple[str, str, float, int]], float]:
    """The ISLs host group ``group`` crosses to array port ``port``: for each, its station
    toward the array and back, its rate (less where its own credits bind; a slow drain
    behind it is not modelled) and its parallel links; and their light one way, seconds."""
    hops = isl_hops(s, group, port)
    way = []
    for hop in hops:
        isl = s.fabric.isls[hop.isl]
        out = station_name("isl", isl=isl_label(s, hop))
        back = station_name("isl", isl=isl_label(s, IslHop(hop.isl, 1 - hop.direction)))
        way.append((out, back, isl_credits(s, hop.isl).rate(isl.speed), isl.count))
    return way, isl_light(s, hops)
