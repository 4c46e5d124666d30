"""Figures per host, host group, workload and LUN, and per device as host tools show them.

:class:`GroupFigures` holds one group's application I/Os over the measurement window (a
host, a host group, a workload or a LUN): rates, bytes, latency histograms per direction
and QUEUE FULL answers. :class:`DeviceFigures` holds the commands one host sent to one
LUN, summed per latency-breakdown layer, and derives from them what ``iostat -x`` on a
Linux host and ``esxtop`` on an ESXi host would print for that device (see
``docs/results.md`` for the layers each field covers). :func:`fairness` rates how evenly
the hosts were served, and :func:`short_of_demand` names the hosts that got less than they
asked for by more than counting noise explains.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from sanpath.readable import figure, number, percent
from sanpath.results.latency import finite, latency_dict
from sanpath.stats import LatencyHistogram

KIB = 1024
"""iostat's kB (sysstat counts 512-byte sectors and halves them)."""
ESXTOP_MB = 1 << 20
"""esxtop's MB (MBREAD/s, MBWRTN/s)."""


@dataclass(frozen=True, init=False)
class GroupFigures:
    """The measured application I/Os of one group over ``span_s`` simulated seconds.

    ``read`` and ``write`` hold the latencies (s) per direction; ``read_sumsq`` and
    ``write_sumsq`` the sums of their squares (s^2), for standard deviations.
    """

    name: str
    span_s: float
    reads: int
    writes: int
    bytes_read: int
    bytes_written: int
    qfull: int
    read: LatencyHistogram
    write: LatencyHistogram
    read_sumsq: float = 0.0
    write_sumsq: float = 0.0
    members: tuple[str, ...] = ()
    """The hosts of a host group (empty for other groups)."""

    def __init__(
        self,
        name: str,
        span_s: float,
        reads: int,
        writes: int,
        bytes_read: int,
        bytes_written: int,
        qfull: int,
        read: LatencyHistogram,
        write: LatencyHistogram,
        read_sumsq: float = 0.0,
        write_sumsq: float = 0.0,
        members: tuple[str, ...] = (),
    ) -> None:
        # a thousand hosts have a thousand of them: the fields are set in one step rather
        # than one frozen-dataclass assignment each (as DeviceFigures)
        vars(self).update(
            name=name,
            span_s=span_s,
            reads=reads,
            writes=writes,
            bytes_read=bytes_read,
            bytes_written=bytes_written,
            qfull=qfull,
            read=read,
            write=write,
            read_sumsq=read_sumsq,
            write_sumsq=write_sumsq,
            members=members,
        )

    def _rate(self, value: float) -> float:
        return value / self.span_s if self.span_s > 0 else 0.0

    @property
    def ios(self) -> int:
        """Measured I/Os, both directions."""
        return self.reads + self.writes

    @property
    def iops(self) -> float:
        """I/Os per simulated second."""
        return self._rate(self.ios)

    @property
    def read_iops(self) -> float:
        """Reads per simulated second."""
        return self._rate(self.reads)

    @property
    def write_iops(self) -> float:
        """Writes per simulated second."""
        return self._rate(self.writes)

    @property
    def mb_per_s(self) -> float:
        """Throughput in 10^6 bytes per second."""
        return self._rate(self.bytes_read + self.bytes_written) / 1e6

    @cached_property
    def latency(self) -> LatencyHistogram:
        """Latencies (s) of both directions."""
        return self.read.merge(self.write)

    @cached_property
    def latency_ms(self) -> dict[str, float]:
        """``mean``, ``p50``, ``p90``, ``p99``, ``p99_9`` and ``max`` of both directions (ms;
        NaN without I/Os)."""
        return latency_dict(self.latency)

    def stddev_s(self, write: bool) -> float:
        """Standard deviation of one direction's latency (s; NaN with fewer than 2 I/Os)."""
        hist, sumsq = (self.write, self.write_sumsq) if write else (self.read, self.read_sumsq)
        n = hist.count
        if n < 2:
            return math.nan
        mean = hist.mean
        return math.sqrt(max(sumsq / n - mean * mean, 0.0) * n / (n - 1))

    def to_dict(self) -> dict[str, Any]:
        """The JSON shape of ``hosts``, ``host_groups``, ``workloads`` and ``luns`` entries."""
        out: dict[str, Any] = {
            "iops": self.iops,
            "mb_per_s": self.mb_per_s,
            "read_iops": self.read_iops,
            "write_iops": self.write_iops,
            "latency_ms": {k: finite(v) for k, v in self.latency_ms.items()},
            "read_latency_ms_mean": finite(self.read.mean * 1e3),
            "write_latency_ms_mean": finite(self.write.mean * 1e3),
            "qfull": self.qfull,
            "ios": self.ios,
        }
        if self.members:
            out["hosts"] = list(self.members)
        return out

    def flat(self) -> dict[str, Any]:
        """One row of a per-group table."""
        row: dict[str, Any] = {
            "name": self.name,
            "iops": self.iops,
            "mb_per_s": self.mb_per_s,
            "read_iops": self.read_iops,
            "write_iops": self.write_iops,
        }
        for key, value in self.latency_ms.items():
            row[f"latency_ms_{key}"] = value
        row["read_latency_ms_mean"] = self.read.mean * 1e3
        row["write_latency_ms_mean"] = self.write.mean * 1e3
        row["qfull"] = self.qfull
        row["ios"] = self.ios
        return row


@dataclass(frozen=True, init=False)
class DeviceFigures:
    """The commands ``host`` sent to ``lun`` over ``span_s`` simulated seconds.

    Times are sums over the measured commands (s): ``read_time_s`` and ``write_time_s`` of
    their latencies, ``host_s`` of their time in the host's own stack (layer ``host``),
    ``host_queue_s`` of their wait for a slot of its per-LUN queue (layer ``host_queue``);
    ``busy_s`` is the time at least one command was outstanding; ``outstanding_s`` the
    time-integral of the commands outstanding (command-seconds: divided by ``span_s``, the
    mean number in flight, completed in the window or not); ``dqlen`` the host's queue
    depth for the LUN over all its paths at the end of the window (None when unlimited).
    """

    host: str
    lun: str
    span_s: float
    reads: int
    writes: int
    bytes_read: int
    bytes_written: int
    read_time_s: float
    write_time_s: float
    host_s: float
    host_queue_s: float
    busy_s: float
    qfull: int
    dqlen: float | None
    outstanding_s: float = 0.0

    def __init__(
        self,
        host: str,
        lun: str,
        span_s: float,
        reads: int,
        writes: int,
        bytes_read: int,
        bytes_written: int,
        read_time_s: float,
        write_time_s: float,
        host_s: float,
        host_queue_s: float,
        busy_s: float,
        qfull: int,
        dqlen: float | None,
        outstanding_s: float = 0.0,
    ) -> None:
        # A run of a thousand hosts has tens of thousands of devices: the fields are set in
        # one step rather than one frozen-dataclass assignment each (half the time).
        vars(self).update(
            host=host,
            lun=lun,
            span_s=span_s,
            reads=reads,
            writes=writes,
            bytes_read=bytes_read,
            bytes_written=bytes_written,
            read_time_s=read_time_s,
            write_time_s=write_time_s,
            host_s=host_s,
            host_queue_s=host_queue_s,
            busy_s=busy_s,
            qfull=qfull,
            dqlen=dqlen,
            outstanding_s=outstanding_s,
        )

    @property
    def name(self) -> str:
        """``host/lun``."""
        return f"{self.host}/{self.lun}"

    def _rate(self, value: float) -> float:
        return value / self.span_s if self.span_s > 0 else 0.0

    def _per_command_ms(self, seconds: float) -> float:
        n = self.reads + self.writes
        return seconds / n * 1e3 if n else math.nan

    def iostat(self) -> dict[str, float]:
        """What ``iostat -x`` prints for the device (sysstat 12.x column names).

        ``r_await``/``w_await`` are whole command latencies, host queue included; ``aqu-sz``
        the mean commands in the device (host queue included, by Little's law); ``%util``
        the share of time with at least one command outstanding; kB = 1024 bytes.
        """
        return {
            "r/s": self._rate(self.reads),
            "w/s": self._rate(self.writes),
            "rkB/s": self._rate(self.bytes_read) / KIB,
            "wkB/s": self._rate(self.bytes_written) / KIB,
            "r_await": self.read_time_s / self.reads * 1e3 if self.reads else math.nan,
            "w_await": self.write_time_s / self.writes * 1e3 if self.writes else math.nan,
            "rareq-sz": self.bytes_read / self.reads / KIB if self.reads else math.nan,
            "wareq-sz": self.bytes_written / self.writes / KIB if self.writes else math.nan,
            "aqu-sz": self._rate(self.read_time_s + self.write_time_s),
            "%util": 100.0 * self._rate(self.busy_s),
        }

    def esxtop(self) -> dict[str, float]:
        """What ``esxtop``'s disk device view prints (ms per command, MB = 2^20 bytes).

        KAVG is the host's own time (its stack and its per-LUN queue), QAVG the part spent
        queued, DAVG everything from the HBA to the drives and back, GAVG = DAVG + KAVG;
        ACTV the mean commands holding a queue slot, QUED the mean waiting for one, DQLEN
        the queue depth.
        """
        host_s = self.host_s
        queue_s = self.host_queue_s
        total_s = self.read_time_s + self.write_time_s
        return {
            "CMDS/s": self._rate(self.reads + self.writes),
            "READS/s": self._rate(self.reads),
            "WRITES/s": self._rate(self.writes),
            "MBREAD/s": self._rate(self.bytes_read) / ESXTOP_MB,
            "MBWRTN/s": self._rate(self.bytes_written) / ESXTOP_MB,
            "DAVG/cmd": self._per_command_ms(total_s - host_s - queue_s),
            "KAVG/cmd": self._per_command_ms(host_s + queue_s),
            "GAVG/cmd": self._per_command_ms(total_s),
            "QAVG/cmd": self._per_command_ms(queue_s),
            "ACTV": self._rate(total_s - queue_s),
            "QUED": self._rate(queue_s),
            "DQLEN": math.inf if self.dqlen is None else self.dqlen,
        }

    def to_dict(self) -> dict[str, Any]:
        """``host``, ``lun``, ``qfull`` and the ``iostat`` and ``esxtop`` views."""
        return {
            "host": self.host,
            "lun": self.lun,
            "qfull": self.qfull,
            "iostat": {k: finite(v) for k, v in self.iostat().items()},
            "esxtop": {k: finite(v) for k, v in self.esxtop().items()},
        }

    def flat(self) -> dict[str, Any]:
        """One row of the per-device table (``host``, ``lun``, then both tools' fields)."""
        return {"host": self.host, "lun": self.lun, **self.iostat(), **self.esxtop()}


def served(
    iops: Mapping[str, float], demand: Mapping[str, Mapping[str, float]]
) -> dict[str, float]:
    """Each host's IOPS over the IOPS it asked for (1: all it asked; 0.5: half).

    ``demand`` gives per host the ``rate`` its open loops offer (I/Os per second) and the
    ``outstanding`` I/Os its closed loops keep in flight (see
    :func:`sanpath.layout.host_demand`). An open loop asks for its rate. The closed loops
    share what they completed, ``sum(max(iops - rate, 0))`` over the hosts with closed
    loops, and each asks for its queue share of it (``outstanding / sum of outstanding``):
    a closed loop with the same depth as another asks for the same service. Hosts absent from
    ``demand`` (trace replays) are left out; without any demand every host asks for the
    hosts' mean, so the ratios are the plain IOPS relative to it.

    >>> served({"a": 100.0, "b": 3000.0}, {"a": {"rate": 100.0}, "b": {"rate": 3000.0}})
    {'a': 1.0, 'b': 1.0}
    """
    if not demand:
        mean = sum(iops.values()) / len(iops) if iops else 0.0
        return {h: (x / mean if mean > 0 else math.nan) for h, x in iops.items()}
    known = {h: demand[h] for h in iops if h in demand}
    depth = sum(float(d.get("outstanding", 0.0)) for d in known.values())
    closed_iops = sum(
        max(iops[h] - float(d.get("rate", 0.0)), 0.0)
        for h, d in known.items()
        if d.get("outstanding", 0.0) > 0
    )
    out: dict[str, float] = {}
    for h, d in known.items():
        asked = float(d.get("rate", 0.0))
        if depth > 0:
            asked += closed_iops * float(d.get("outstanding", 0.0)) / depth
        out[h] = iops[h] / asked if asked > 0 else math.nan
    return out


SHORT_LEVEL = 0.01
"""The family-wise chance of naming a host that got its demand. The Poisson test of
``short_of_demand`` runs at ``SHORT_LEVEL / n`` for ``n`` hosts (Bonferroni)."""


def short_of_demand(
    ios: Mapping[str, int], served: Mapping[str, float], level: float = SHORT_LEVEL
) -> list[str]:
    """The hosts that got less than they asked for by more than counting noise explains,
    least served first.

    A host that completed ``k`` I/Os in the window while serving ``s`` of its demand
    (:func:`served`) was expected to complete ``mu = k / s``. It is short of its demand when
    ``P(X <= k) < level / n`` for ``X`` Poisson with mean ``mu`` and ``n`` the hosts compared
    (those with a finite share); a host that completed nothing is short. Among 1,000 hosts
    that each expect 76 I/Os, the fewest completed is near 50 by chance alone (65% of the
    demand), which the test does not name: the family-wise chance of naming a host that got
    its demand is at most ``level`` (1%, Bonferroni over the hosts). Open-loop arrivals
    are Poisson counts; a closed loop's completions are more regular, so the test is
    conservative there.

    >>> short_of_demand({"a": 50, "b": 76}, {"a": 50 / 76, "b": 1.0})  # noise among 2 hosts
    ['a']
    >>> short_of_demand({"a": 66, "b": 76}, {"a": 66 / 76, "b": 1.0})
    []
    """
    from scipy.special import pdtr  # Poisson distribution function, P(X <= k)

    known = {h: s for h, s in served.items() if h in ios and math.isfinite(s) and s >= 0}
    if not known:
        return []
    threshold = level / len(known)
    short = [
        h
        for h, s in known.items()
        if s == 0 or (s < 1.0 and float(pdtr(ios[h], ios[h] / s)) < threshold)
    ]
    return sorted(short, key=lambda h: known[h])


def shortfall_text(short: Sequence[str], served: Mapping[str, float]) -> str:
    """The hosts :func:`short_of_demand` found, in words: the least served and its share, or
    that every host got its demand within counting noise."""
    if not short:
        return "every host got its demand within counting noise"
    least = short[0]
    share = served.get(least, math.nan)
    text = f"the least served, {least}, got {percent(share)} of its demand"
    text += ", short beyond counting noise"
    if len(short) > 1:
        text = f"{len(short)} hosts short of their demand beyond counting noise; {text}"
    return text


def host_table(
    hosts: Mapping[str, GroupFigures],
    share: Mapping[str, float],
    jain: float,
    short: Sequence[str],
    most: int,
) -> list[str]:
    """The per-host lines of a run's summary: a heading with Jain's index and who is short of
    its demand (:func:`shortfall_text`), then one row per host, least served first (the
    ``most // 2`` least served when there are more than ``most`` hosts)."""
    rows = sorted(hosts.values(), key=lambda g: share.get(g.name, g.iops))
    shown = rows if len(rows) <= most else rows[: most // 2]
    lines = [
        "",
        f"per host ({len(rows)} hosts, least served first; Jain's fairness "
        f"{number(jain)} of what each host got over what it asked for; "
        f"{shortfall_text(short, share)})",
        f"  {'host':<16}{'IOPS':>10}{'served':>8}{'MB/s':>9}{'mean ms':>9}{'p99 ms':>9}"
        f"{'QFULL':>8}",
    ]
    for g in shown:
        lat = g.latency_ms
        lines.append(
            f"  {g.name:<16}{figure(g.iops):>10}{percent(share.get(g.name, math.nan)):>8}"
            f"{figure(g.mb_per_s):>9}{figure(lat['mean']):>9}{figure(lat['p99']):>9}"
            f"{g.qfull:8,d}"
        )
    if len(shown) < len(rows):
        lines.append(f"  ... the {len(shown)} least served of {len(rows)} (by_host has all)")
    return lines


def fairness(iops: Sequence[float]) -> dict[str, float]:
    """How evenly ``iops`` are spread: Jain's index and their max/min ratio. Given each
    host's IOPS over what it asked for (:func:`served`), how fairly the hosts were served.

    Jain's index (Jain, Chiu and Hawe, DEC-TR-301, 1984) is ``(sum x)^2 / (n sum x^2)``:
    1 when every host gets the same (share of its demand), ``1/n`` when one host gets
    everything. The max/min ratio is infinite when a host completed nothing. NaN for no
    hosts.
    """
    n = len(iops)
    if n == 0:
        return {"jain": math.nan, "max_min": math.nan}
    total = sum(iops)
    squares = sum(x * x for x in iops)
    jain = total * total / (n * squares) if squares > 0 else math.nan
    low, high = min(iops), max(iops)
    ratio = high / low if low > 0 else (math.inf if high > 0 else math.nan)
    return {"jain": jain, "max_min": ratio}
