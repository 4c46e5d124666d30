"""The host side: splitting, multipath path selection, per-LUN queues and QUEUE FULL throttling.

A host instance owns, for every LUN it uses, a list of :class:`Route` objects, one per path
(an HBA port zoned to an array port that presents the LUN). Each route carries its own host
queue (HP-UX max_q_depth is per LUN *path*), so with two paths a LUN can have twice the
queue depth in flight.

Multipath policies (``select``):

* ``failover`` - one active path per LUN; LUNs are spread over the paths statically
  (LUN i uses path i mod n), as balanced legacy device files do.
* ``round-robin`` - rotate over the paths every ``rr_ios`` I/Os (dm-multipath
  round-robin, VMware PSP_RR, MSDSM Round Robin).
* ``least-queue-depth`` / ``least-cmd-load`` - the path with the fewest commands queued or
  in flight for this LUN (MSDSM Least Queue Depth, HP-UX least_cmd_load).
* ``service-time`` - the path whose HBA port has the fewest bytes in flight per unit of
  link speed (dm-multipath service-time).

NVMe hosts choose among a namespace's optimized paths (ANA) by their ``iopolicy``
(:class:`~sanpath.spec.NvmeSpec`): ``numa`` (one path), ``round-robin`` (every I/O to the
next), ``queue-depth`` (the controller association with the fewest commands outstanding),
and VMware HPP's ``lb-rr``, ``lb-iops`` and ``lb-bytes`` (switch after a number of I/Os or
bytes: to the next path, or to the one with the fewest outstanding commands or bytes).

Policies that stay on a path for a turn of many I/Os (``round-robin`` with ``rr_ios`` > 1,
the HPP ones) start each (host, LUN) on its own path, host by host and LUN by LUN, as hosts
that have run for hours are spread; a measured window of a fraction of a second then shows
each path's long-run share, not every LUN's first turn on the first path.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import NamedTuple

from sanpath.layout import failover_path
from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.hba import Hba, HbaPort
from sanpath.sim.hops import Gate, Hop
from sanpath.sim.station import FcfsServer, Link, SlotPool
from sanpath.sim.wire import Wire
from sanpath.spec import QfullSpec


class Throttle:
    """A host's reaction to QUEUE FULL: lowers and restores the depth of its LUN queues.

    ``pools`` are the host queues it governs (one LUN's paths for VMware and Storport, every
    LUN behind one target port for Linux, which throttles all LUNs of the target).
    """

    def __init__(self, spec: QfullSpec, pools: Sequence[SlotPool]) -> None:
        self.policy = spec.throttle
        self.pools = list(pools)
        self.sample_size = spec.effective_sample_size
        self.threshold = spec.threshold
        self.ramp_up_period = spec.ramp_up_period
        self.min_depth = spec.min_depth
        self.recovery_time = spec.recovery_time
        self.window = spec.window
        self.original: int | None = pools[0].capacity if pools else None
        self.depth: int | None = self.original
        self.qfulls = 0
        self.good = 0
        self.t_last_qfull = 0.0
        self.t_last_change = 0.0
        self.counted_window = -1.0
        """The window (``now // window``) of the last QUEUE FULL counted (linux)."""

    def _set(self, depth: int, now: float) -> None:
        depth = max(self.min_depth, depth)
        if depth != self.depth:
            self.depth = depth
            self.t_last_change = now
            for pool in self.pools:
                pool.set_capacity(depth)

    def on_qfull(self, now: float) -> None:
        """A QUEUE FULL came back for one of the governed queues."""
        if self.depth is None:
            # Unlimited queues: start throttling from what is in flight now.
            in_flight = max(pool.held for pool in self.pools)
            self.original = None
            self.depth = max(in_flight, self.min_depth)
            for pool in self.pools:
                pool.set_capacity(self.depth)
        self.good = 0
        if self.policy == "linux":
            window = self.window
            if window > 0:
                slot = now // window
                if slot == self.counted_window:
                    return  # scsi_track_queue_full counts one QUEUE FULL per window
                self.counted_window = slot
            self.qfulls += 1
            self.t_last_qfull = now
            if self.qfulls > self.sample_size:
                self.qfulls = 0
                self._set(self.depth - 1, now)
            return
        self.qfulls += 1
        self.t_last_qfull = now
        if self.policy == "vmware":
            if self.qfulls >= self.sample_size:
                self.qfulls = 0
                self._set(self.depth // 2, now)
        elif self.policy == "storport":
            self.qfulls = 0
            self._set(self.min_depth, now)

    def on_good(self, now: float) -> None:
        """A command completed with good status."""
        depth = self.depth
        if depth is None:
            return
        ceiling = self.original
        if ceiling is not None and depth >= ceiling:
            return
        if self.policy == "linux":
            if (
                now - self.t_last_qfull >= self.ramp_up_period
                and now - self.t_last_change >= self.ramp_up_period
            ):
                self._raise(depth + 1, now)
        elif self.policy == "vmware":
            self.good += 1
            if self.good >= self.threshold:
                self.good = 0
                self._raise(depth + 1, now)
        elif self.policy == "storport":
            since = now - self.t_last_qfull
            target = ceiling if ceiling is not None else depth + 1
            if self.recovery_time <= 0 or since >= self.recovery_time:
                self._raise(target, now)
            else:
                step = self.min_depth + int((target - self.min_depth) * since / self.recovery_time)
                if step > depth:
                    self._raise(step, now)

    def _raise(self, depth: int, now: float) -> None:
        if self.original is not None:
            depth = min(depth, self.original)
        self._set(depth, now)


class Leg(NamedTuple):
    """One link of a data transfer."""

    link: Link
    framed: bool
    """True for an FC link, which carries the data in frames plus the status frame."""
    latency: float
    """Seconds from the previous link starting to send until the first frame reaches this one."""
    layer: int
    """The latency-breakdown layer the time on this link counts to (an index into LAYERS)."""


LATENCY_SAMPLES = 16
"""Completions the ``lb-latency`` policy's moving mean spans (VMware HPP samples 16 I/Os per
path when it evaluates latency)."""


class Association:
    """An NVMe host's association with one array port (an NVMe controller): its I/O queue
    pairs (one pool of ``queue_size - 1`` slots per queue) and the commands and bytes
    outstanding on it, which the ``queue-depth``, ``lb-iops`` and ``lb-bytes`` policies read."""

    __slots__ = ("active", "bytes", "latency", "pools")

    def __init__(self, pools: tuple[SlotPool, ...]) -> None:
        self.pools = pools
        self.active = 0
        """Commands issued to the association and not completed."""
        self.bytes = 0
        """Their bytes."""
        self.latency = 0.0
        """Moving mean of its commands' latency (s), over about :data:`LATENCY_SAMPLES`
        completions (``lb-latency``)."""

    def completed(self, size: int, latency: float) -> None:
        """A command of ``size`` bytes completed after ``latency`` seconds."""
        self.active -= 1
        self.bytes -= size
        self.latency += (latency - self.latency) / LATENCY_SAMPLES


class Route:
    """One path for one LUN from one host instance: the hops of its front, in the order a
    command crosses them (:mod:`sanpath.sim.hops`), and the links its data crosses.

    A plain class rather than a dataclass: the compiled core builds it natively (a thousand
    hosts make a route on almost every I/O of an open loop).
    """

    __slots__ = (
        "array_port",
        "association",
        "back_end",
        "hba_port",
        "hops",
        "host_queue",
        "lun",
        "one_way",
        "read_legs",
        "releases",
        "retry_at",
        "throttle",
        "wire",
        "write_legs",
    )

    def __init__(
        self,
        hops: tuple[Hop, ...],
        retry_at: int,
        host_queue: SlotPool,
        hba_port: HbaPort,
        array_port: ArrayPort,
        lun: Lun,
        wire: Wire,
        throttle: Throttle | None = None,
        write_legs: tuple[Leg, ...] = (),
        read_legs: tuple[Leg, ...] = (),
        association: Association | None = None,
        one_way: float = 0.0,
    ) -> None:
        self.hops = hops
        """The front: host queue, host work, HBA, fabric, the array's gates, controller."""
        self.retry_at = retry_at
        """The hop a command starts again from after QUEUE FULL (its HBA slot)."""
        self.releases: tuple[Gate, ...] = ()
        """The gates whose slots a command gives back when it completes, in that order (the
        front's gates backwards, but those the back end gives back)."""
        self.back_end: tuple[Gate, ...] = ()
        """The gates the back end gives back when it is done (the array's per-LUN queue)."""
        self.set_hops(hops)
        self.host_queue = host_queue
        self.hba_port = hba_port
        self.array_port = array_port
        self.lun = lun
        self.throttle = throttle
        self.write_legs = write_legs
        """The links a write's data crosses, in order (set by the topology)."""
        self.read_legs = read_legs
        """The links a read's data crosses, in order (set by the topology)."""
        self.wire = wire
        """How the host's transport frames the data on the links (:mod:`sanpath.sim.wire`)."""
        self.association = association
        """NVMe: the controller association the route's queue pairs belong to."""
        self.one_way = one_way
        """Seconds a frame takes from host port to array port: the fabric's latency and
        light over the ISLs the route crosses."""

    def set_hops(self, hops: tuple[Hop, ...]) -> None:
        """The route's front is ``hops`` (made, or changed by a controller's failure); the
        gates given back at completion and by the back end follow."""
        self.hops = hops
        self.releases = tuple(
            gate for gate in reversed(hops) if isinstance(gate, Gate) and not gate.back_end
        )
        self.back_end = tuple(gate for gate in hops if isinstance(gate, Gate) and gate.back_end)


@dataclass(eq=False)
class HostInstance:
    """One running host (a member of a host group with ``count`` identical hosts)."""

    name: str
    group: str
    split_limit: int | None
    policy: str
    rr_ios: int
    retry_delay: float
    io_time: Callable[[], float]
    cpu_time: Callable[[], float]
    """Draws the processor time (s) of one command (used when ``cpu`` is set)."""
    cpu: FcfsServer | None = None
    """The host's processors (``cpus``), or None when they are not modelled."""
    index: int = 0
    """The host's place in the topology's list of hosts (per-host results)."""
    routes: dict[int, list[Route | None]] = field(default_factory=dict)
    """Per LUN used so far, the route of each path; None for a path not taken yet."""
    paths: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """Per LUN the host uses, the host port of each path (shared by the host group)."""
    ports: list[HbaPort] = field(default_factory=list)
    """The host's HBA ports, numbered over every card as zoning numbers them."""
    cards: list[Hba] = field(default_factory=list)
    associations: dict[int, Association] = field(default_factory=dict)
    """NVMe: per (host port, array port) key, the association's queue pairs (made on first
    use, shared by every namespace behind it)."""
    work: tuple[Hop, ...] | None = None
    """The host's own running hops (its processors, its I/O stack), made with its first route."""
    maker: Callable[[HostInstance, int, int], Route] | None = None
    """Makes the route of path ``k`` to a LUN when it is first taken (the topology's)."""
    queue_draw: Callable[[], int] | None = None
    """NVMe: draws the I/O queue of the processor that issues an I/O (None: SCSI)."""
    usable: dict[int, tuple[int, ...]] = field(default_factory=dict)
    """NVMe, and SCSI on an array of two controllers: per LUN, the paths the policy chooses
    among (the live optimized ones, or every live path when none is), shared by the host
    group; empty: every path."""
    rr_bytes: int = 0
    """HPP ``lb-rr`` and ``lb-bytes``: bytes before the next choice of path."""
    _rr: dict[int, int] = field(default_factory=dict)
    _lb: dict[int, list[int]] = field(default_factory=dict)
    """HPP policies, per LUN: the path in use, the I/Os and the bytes sent down it."""

    def route(self, lun_index: int, k: int) -> Route:
        """The route of path ``k`` to LUN ``lun_index`` (made now if not taken yet)."""
        routes = self.routes.get(lun_index)
        if routes is None:
            routes = self.routes[lun_index] = [None] * len(self.paths[lun_index])
        route = routes[k]
        if route is None:
            assert self.maker is not None
            route = routes[k] = self.maker(self, lun_index, k)
        return route

    def select(self, lun_index: int, size: int) -> Route:
        """Choose the path for one command to LUN ``lun_index`` by the multipath policy.

        A path not taken yet has an empty queue and no route object until it is chosen.
        """
        routes = self.routes.get(lun_index)
        if routes is None:
            routes = self.routes[lun_index] = [None] * len(self.paths[lun_index])
        if self.queue_draw is not None:
            return self._select_nvme(lun_index, size, routes)
        if self.usable:
            return self._select_alua(lun_index, size, routes)
        n = len(routes)
        k = 0
        if n > 1:
            policy = self.policy
            if policy == "round-robin":
                count = self._rr.get(lun_index, -1)
                if count < 0:
                    count = self._phase(lun_index, n)
                self._rr[lun_index] = count + 1
                k = (count // self.rr_ios) % n
            elif policy in ("least-queue-depth", "least-cmd-load"):
                first = routes[0]
                best_n = 0 if first is None else first.host_queue.outstanding
                for i in range(1, n):
                    other = routes[i]
                    if other is None:
                        if best_n > 0:
                            k, best_n = i, 0
                    elif other.host_queue.outstanding < best_n:
                        k, best_n = i, other.host_queue.outstanding
            elif policy == "service-time":
                ports = self.ports
                via = self.paths[lun_index]
                best_t = ports[via[0]].service_time(size)
                for i in range(1, n):
                    t = ports[via[i]].service_time(size)
                    if t < best_t:
                        k, best_t = i, t
            else:
                k = failover_path(lun_index, n)  # failover: a fixed path per LUN
        route = routes[k]
        if route is None:
            assert self.maker is not None
            route = routes[k] = self.maker(self, lun_index, k)
        return route

    def _select_alua(self, lun_index: int, size: int, routes: list[Route | None]) -> Route:
        """A SCSI host's path on an array of two controllers: its policy among the LUN's
        usable paths (ALUA: the optimized ones while one is live)."""
        usable = self.usable[lun_index]
        n = len(usable)
        k = usable[0]
        if n > 1:
            policy = self.policy
            if policy == "round-robin":
                count = self._rr.get(lun_index, -1)
                if count < 0:
                    count = self._phase(lun_index, n)
                self._rr[lun_index] = count + 1
                k = usable[(count // self.rr_ios) % n]
            elif policy in ("least-queue-depth", "least-cmd-load"):
                best_n = -1
                for i in usable:
                    outstanding = self.route(lun_index, i).host_queue.outstanding
                    if best_n < 0 or outstanding < best_n:
                        k, best_n = i, outstanding
            elif policy == "service-time":
                ports = self.ports
                via = self.paths[lun_index]
                best_t = -1.0
                for i in usable:
                    t = ports[via[i]].service_time(size)
                    if best_t < 0.0 or t < best_t:
                        k, best_t = i, t
        route = routes[k]
        if route is None:
            assert self.maker is not None
            route = routes[k] = self.maker(self, lun_index, k)
        return route

    def _select_nvme(self, lun_index: int, size: int, routes: list[Route | None]) -> Route:
        """An NVMe host's path for one command to namespace ``lun_index`` by its ``iopolicy``
        (the module docstring), among the namespace's usable paths; the command counts as
        outstanding on the path's association from now until it completes."""
        usable = self.usable[lun_index]
        n = len(usable)
        k = usable[0]
        policy = self.policy
        if n > 1 and policy != "numa":
            if policy == "round-robin":
                count = self._rr.get(lun_index, 0)
                self._rr[lun_index] = count + 1
                k = usable[count % n]
            elif policy == "queue-depth":
                k = self._least(lun_index, usable, False)
            elif policy == "lb-latency":
                k = self._fastest(lun_index, usable)
            else:  # lb-rr, lb-iops, lb-bytes: switch after rr_ios I/Os or rr_bytes bytes
                state = self._lb.get(lun_index)
                if state is None:
                    state = self._lb[lun_index] = [(lun_index + self.index) % n, 0, 0]
                ios_left = policy != "lb-bytes" and state[1] >= self.rr_ios
                bytes_left = policy != "lb-iops" and state[2] >= self.rr_bytes
                if ios_left or bytes_left:
                    if policy == "lb-rr":
                        state[0] = (state[0] + 1) % n
                    else:
                        state[0] = usable.index(
                            self._least(lun_index, usable, policy == "lb-bytes")
                        )
                    state[1] = state[2] = 0
                state[1] += 1
                state[2] += size
                k = usable[state[0] % n]
        route = routes[k]
        if route is None:
            assert self.maker is not None
            route = routes[k] = self.maker(self, lun_index, k)
        association = route.association
        assert association is not None
        association.active += 1
        association.bytes += size
        return route

    def _phase(self, lun_index: int, n: int) -> int:
        """Where a LUN's round-robin count starts on this host, for ``n`` paths: with turns of
        ``rr_ios`` > 1 I/Os, each (host, LUN) starts on its own path, as on hosts that have
        run for a while. Started together, every LUN would sit on its first path for its
        first ``rr_ios`` I/Os, and a run shorter than that would load one path alone. Turns of
        one I/O start at zero (the phase cannot change any path's share)."""
        return ((lun_index + self.index) % n) * self.rr_ios if self.rr_ios > 1 else 0

    def _fastest(self, lun_index: int, usable: tuple[int, ...]) -> int:
        """The usable path whose association's moving mean latency, times the commands
        outstanding on it plus this one, is least; a path without a completion yet first."""
        best = usable[0]
        best_t = -1.0
        for k in usable:
            association = self.route(lun_index, k).association
            assert association is not None
            expected = association.latency * (association.active + 1)
            if best_t < 0.0 or expected < best_t:
                best, best_t = k, expected
        return best

    def _least(self, lun_index: int, usable: tuple[int, ...], by_bytes: bool) -> int:
        """The usable path whose association has the fewest commands (``by_bytes``: bytes)
        outstanding; the first of equals."""
        best = usable[0]
        best_n = -1
        for k in usable:
            association = self.route(lun_index, k).association
            assert association is not None
            outstanding = association.bytes if by_bytes else association.active
            if best_n < 0 or outstanding < best_n:
                best, best_n = k, outstanding
        return best
