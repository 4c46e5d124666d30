"""Read-ahead: the prefetch streams of a pool, solved on its drives alone.

The bandwidth they reach is what sequential readers queue for (a member of its own), and the
share of the drives they keep busy is counted in the pool's utilisation.
"""

from __future__ import annotations

from sanpath.layout import station_name
from sanpath.theory.twin.model import Class, DriveModel, Member, Network, drive_work
from sanpath.theory.twin.solve.aggregate import arrays
from sanpath.theory.twin.solve.mva import solve_closed


def add_read_ahead(net: Network) -> None:
    """Solve the read-ahead :func:`~sanpath.theory.twin.model.build_network` listed, and add
    its members to ``net``."""
    for ra in net.read_ahead:
        bandwidth, busy = _prefetch_bandwidth(net, ra.pool, ra.model, ra.base, ra.streams, ra.mode)
        net.prefetch[ra.pool] = bandwidth
        name = station_name("drives", pool=net.pools[ra.pool].name)
        key = (name, 1)
        if key not in net.members:
            busy_scale = busy * net.group_servers[name]
            net.members[key] = Member(name, 1, 1, pool=ra.pool, busy_scale=busy_scale)


def _prefetch_bandwidth(
    net: Network, pi: int, model: DriveModel, base: int, streams: float, mode: str
) -> tuple[float, float]:
    """(bytes per second, drive utilisation) of a pool's read-ahead at full depth.

    Each stream keeps ``read_ahead / chunk`` chunk reads in flight; the pool's drives serve
    them (RAID read of a chunk, SPTF): a closed network of the drives alone.
    """
    s = net.scenario
    cache = s.array.cache
    pool = net.pools[pi]
    chunk = min(cache.read_ahead, max(pool.data_drives * pool.stripe_element, 256 * 1024))
    fg, _ = drive_work(pool, model, base, chunk, None, False, "read", mode, 0)
    key = (station_name("drives", pool=pool.name), 0)
    mb = net.members[key]
    single = Network(
        scenario=s,
        members={key: mb},
        classes=[
            Class(0, 0, 0, True, 1, 0.0, 1.0, float(chunk), work={key: fg}),
        ],
        flows=[],
        group_servers=net.group_servers,
        pools=net.pools,
        notes=[],
        host_counts=[],
        hba_ports=[],
    )
    arr = arrays(single, [1.0], {})
    depth = -(-cache.read_ahead // chunk)
    sol = solve_closed(arr, [max(streams * depth, 1.0)])[0]
    return sol.x_cmd * chunk, float(sol.util[0])
