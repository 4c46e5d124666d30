"""Links under buffer-to-buffer credits: a long FC link, a slow host's, a switch's ISL.

* :class:`CreditLink` - one direction of an FC link that sends a frame only while it holds
  a credit (:mod:`sanpath.layout.credits`); a switch's ISL port among them gets its credits
  back only once the next link of the way has taken the frames (:attr:`Link.holds`), so a
  slow link behind it holds them and every transfer behind waits (head-of-line blocking);
* :class:`IslBundle` - the parallel links of one ISL direction under exchange-based routing.

Times are seconds, sizes bytes, rates bytes per second.
"""

from __future__ import annotations

import simpy

from sanpath.sim.station import Link, Station


class CreditLink(Link):
    """One direction of an FC link whose buffer-to-buffer credits bind
    (:mod:`sanpath.layout.credits`): frame by frame, a frame starts when the link is free
    and a credit is at hand; its credit is back ``back`` seconds after its last byte left.

    ``returns`` holds when each of the ``credits`` credits is back, oldest first from
    ``head`` (frames leave in order and every credit is away as long, so the oldest is the
    next one back). The time a frame ready to go waits for its credit counts to the
    station's credit-starved time (the ``tim_txcrd_z`` counter of Brocade switch ports).
    A transfer's wire bytes are cut as :meth:`~sanpath.spec.Framing.wire_bytes`
    counts them: full frames of ``frame`` bytes, the last data frame's rest, and a status
    frame of ``overhead`` bytes.

    A link that :attr:`~sanpath.sim.station.Link.holds` (an ISL) also keeps, per credit,
    the host whose frame holds it (:attr:`~sanpath.sim.station.Link.owner`) and whether the
    next link kept it away longer (:meth:`handed`): a frame that waits for such a credit of
    another host's counts the part of its wait that host's hold caused to the station's
    ``victims``.
    """

    __slots__ = ("back", "extended", "frame", "head", "overhead", "owners", "returns", "seqs")

    def __init__(
        self,
        env: simpy.Environment,
        rate: float,
        station: Station,
        credits: int,
        frame: int,
        overhead: int,
        back: float,
    ) -> None:
        super().__init__(env, rate, station)
        station.credited = True
        self.frame = frame
        self.overhead = overhead
        self.back = back
        self.returns: list[float] = [0.0] * credits
        self.head = 0
        self.seqs: list[int] = [-1] * credits
        """The number of the frame that holds each credit (frames are numbered from 0, so
        frame ``n`` holds credit ``n % credits``)."""
        self.owners: list[int] = [-1] * credits
        """The host whose frame holds each credit (-1: none)."""
        self.extended: list[float] = [0.0] * credits
        """Seconds the next link kept each credit away beyond its own round trip."""

    def reserve(self, now: float, t_arrive: float, nbytes: float) -> tuple[float, float]:
        """Reserve the link at ``now`` for ``nbytes`` on the wire arriving at ``t_arrive``,
        frame by frame under the credits; (first frame's start, last frame's end)."""
        station = self.station  # station.arrive(now), written out as in Link.reserve
        n = station.n
        station.area += n * (now - station.t_last)
        station.t_last = now
        station.n = n + 1
        station.present_sum += now
        rate = self.rate
        assert rate is not None
        free = self.free
        t = free if free > t_arrive else t_arrive
        frame = float(self.frame)
        overhead = float(self.overhead)
        back = self.back
        returns = self.returns
        credits = len(returns)
        head = self.head
        data = nbytes - overhead  # the data frames' bytes, the status frame's aside
        full = int(data // frame) if data > 0.0 else 0
        rest = data - full * frame
        if rest <= 0.0 and full > 0:  # the last data frame is a full one
            full -= 1
            rest = frame
        first = -1.0
        starved = 0.0
        victims = station.victims if self.holds else None
        owner = self.owner
        owners = self.owners
        extended = self.extended
        self.first = self.first + self.sent  # this transfer's first frame's number
        seq = self.first
        seqs = self.seqs
        sent = 0
        for i in range(full + 2):
            if i < full:
                size = frame
            elif i == full:
                size = rest
            else:
                size = overhead
            if size <= 0.0:
                continue
            credit = returns[head]
            if credit > t:
                starved += credit - t
                held = extended[head]
                if victims is not None and held > 0.0:
                    culprit = owners[head]
                    if culprit >= 0 and culprit != owner:  # the part of the wait it caused
                        key = (owner, culprit)
                        wait = credit - t
                        victims[key] = victims.get(key, 0.0) + (wait if wait < held else held)
                start = credit
            else:
                start = t
            owners[head] = owner
            extended[head] = 0.0
            seqs[head] = seq
            seq += 1
            if first < 0.0:
                first = start
            t = start + size / rate
            returns[head] = t + back
            sent += 1
            head += 1
            if head == credits:
                head = 0
        self.head = head
        self.sent = sent
        self.free = t
        self.starving = starved
        station.starved += starved
        if first < 0.0:
            first = t
        return first, t

    def sustained(self) -> float:
        """The rate the credits leave the link over a long transfer, bytes/s:
        ``min(rate, credits x frame / (frame time + back))``."""
        rate = self.rate
        assert rate is not None
        frame = float(self.frame)
        capped = len(self.returns) * frame / (frame / rate + self.back)
        return capped if capped < rate else rate

    def ready(self, t_arrive: float) -> float:
        """When a transfer arriving at ``t_arrive`` could start: the link free and a credit
        back."""
        free = self.free
        credit = self.returns[self.head]
        ready = free if free > t_arrive else t_arrive
        return credit if credit > ready else ready

    def handed(self, start: float, end: float, blocked: bool, first: int, sent: int) -> None:
        """The next link takes the last transfer's frames from ``start`` to ``end``, evenly
        spread: each frame's buffer here is free, and its credit comes back (half of
        ``back`` later, light over this link), no sooner than the next link takes it.
        Only the credits of its last ``credits`` frames are still away. When the next link
        was ``blocked`` (short of credits), the extra time the credits stay away is the
        congestion their host causes others (``extended``)."""
        if sent == 0:
            return
        returns = self.returns
        seqs = self.seqs
        credits = len(returns)
        light = 0.5 * self.back
        step = (end - start) / sent
        for k in range(max(0, sent - credits), sent):
            at = (first + k) % credits
            if seqs[at] != first + k:  # a later frame holds the credit already
                continue
            freed = start + k * step + light
            if freed > returns[at]:
                if blocked:
                    self.extended[at] += freed - returns[at]
                returns[at] = freed


class IslBundle(Link):
    """The parallel links of one ISL direction under exchange-based routing: each transfer
    (an exchange's data) takes the next of ``members`` in turn; every member counts to the
    bundle's station."""

    __slots__ = ("last", "members", "turn")

    def __init__(self, env: simpy.Environment, members: list[Link], station: Station) -> None:
        super().__init__(env, members[0].rate, station)
        self.members = members
        self.turn = 0
        self.last = members[0]
        self.holds = any(member.holds for member in members)

    def reserve(self, now: float, t_arrive: float, nbytes: float) -> tuple[float, float]:
        """Reserve the next member for ``nbytes`` arriving at ``t_arrive``; (start, end)."""
        turn = self.turn
        member = self.members[turn]
        turn += 1
        self.turn = 0 if turn == len(self.members) else turn
        self.last = member
        member.owner = self.owner
        return member.reserve(now, t_arrive, nbytes)

    def carrier(self) -> Link:
        """The member that carried the last transfer."""
        return self.last
