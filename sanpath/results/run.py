"""Run results: immutable figures of one simulated run, as a dict, a table or text.

Units: latencies in milliseconds in every user-facing key (``latency_ms``, ``breakdown_ms``,
``mean_wait_ms``); throughput ``mb_per_s`` in 10^6 bytes per second, as vendors and FC
nominal speeds quote it.
"""

from __future__ import annotations

import dataclasses
import json
import math
import textwrap
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import numpy as np

from sanpath.readable import figure, percent, plus_minus, table
from sanpath.results.bottleneck import Bottleneck, rank_bottlenecks
from sanpath.results.congestion import Notified, Victim, congestion_lines
from sanpath.results.groups import (
    DeviceFigures,
    GroupFigures,
    fairness,
    host_table,
    served,
    short_of_demand,
)
from sanpath.results.latency import finite, tail_note
from sanpath.results.recording import Recording
from sanpath.results.starvation import STARVE_SHARE, Starving
from sanpath.results.station import StationStats
from sanpath.stats import LatencyHistogram

if TYPE_CHECKING:
    import pandas as pd

    from sanpath.results.diff import RunDiff


@dataclass(frozen=True)
class RunResult:
    """The figures of one run (see ``docs/results.md``).

    Attributes
    ----------
    iops
        Completed application I/Os per simulated second.
    mb_per_s
        Application throughput in 10^6 bytes per second.
    latency_ms
        Application I/O latency: mean, p50, p90, p99, p99_9, max (milliseconds).
    ci95
        95% intervals from batch means: ``iops`` and ``latency_ms_mean``.
    breakdown_ms
        Mean time per I/O in each layer of the path; the values add up to the mean latency.
    stations
        Per-station statistics over the measurement window.
    """

    name: str
    seed: int
    replicate: int
    ios: int
    sim_seconds: float
    iops: float
    mb_per_s: float
    read_iops: float
    write_iops: float
    latency_ms: dict[str, float]
    read_latency_ms: float
    """Mean latency of the measured reads (ms; NaN without reads)."""
    write_latency_ms: float
    """Mean latency of the measured writes (ms; NaN without writes)."""
    command_latency_ms: dict[str, float]
    ci95: dict[str, tuple[float, float]]
    counters: dict[str, int]
    breakdown_ms: dict[str, float]
    stations: tuple[StationStats, ...]
    wall_seconds: float
    totals: dict[str, int]
    lun_mb_per_s: dict[str, float] = field(default_factory=dict)
    """Application throughput per LUN (10^6 B/s)."""
    warnings: tuple[str, ...] = ()
    """What makes the figures less trustworthy (e.g. I/Os stuck past the measured tail)."""
    timeseries: dict[str, list[float]] | None = None
    """Per-interval figures when ``run.record_interval`` is set (see ``TimeSeries``)."""
    settings: tuple[dict[str, Any], ...] = ()
    """Scheduled settings over time: ``{"t_s", "key", "value"}``, initial values at 0."""
    histogram: LatencyHistogram = field(default_factory=LatencyHistogram, repr=False, compare=False)
    extra: dict[str, Any] = field(default_factory=dict)
    steady: bool = True
    """False when the run did not reach steady state (see ``warnings`` for why and what to
    do): a warm-up that found none, an unstable open loop, a cache still filling, a trend."""
    run_info: dict[str, Any] = field(default_factory=dict)
    """How the run was measured: ``warmup`` (auto/fixed), ``warmup_ios``, ``warmup_seconds``,
    ``warmup_settled``, ``stopped_by`` (ios, duration, precision, max_ios, max_time,
    unstable, trace), ``precision`` (relative half-width reached per stopping metric),
    ``target_half_width`` and ``unstable``."""
    groups: dict[str, dict[str, GroupFigures]] = field(default_factory=dict, compare=False)
    """Figures per ``hosts`` (every host instance that issued I/Os; ``group[i]`` for
    ``count > 1``), ``host_groups``, ``workloads`` and ``luns``, by name."""
    devices: tuple[DeviceFigures, ...] = field(default=(), compare=False)
    """Each host's view of each LUN it used, with what iostat and esxtop would show."""
    demand: dict[str, dict[str, float]] = field(default_factory=dict, compare=False)
    """What each host asked for: ``rate`` (I/Os per second its open loops offer) and
    ``outstanding`` (I/Os its closed loops keep in flight), by host (see
    :func:`sanpath.layout.host_demand`); empty when not known."""
    starving: tuple[Starving, ...] = field(default=(), compare=False)
    """Hosts served far below their queue share of a LUN while the array kept refusing them
    (see :func:`sanpath.results.starving`), most starved first."""
    victims: tuple[Victim, ...] = field(default=(), compare=False)
    """Hosts that waited for ISL credits another host's frames held (slow drain), longest
    wait first (see :mod:`sanpath.results.congestion`)."""
    notified: tuple[Notified, ...] = field(default=(), compare=False)
    """Hosts the switches notified of congestion at their ports (``fabric.fpin``), or
    whose read limit held in the window, in host order (see
    :mod:`sanpath.results.congestion`)."""
    assumptions: tuple[dict[str, str], ...] = field(default=(), compare=False)
    """The profile numbers the run used that no document gives: each ``{"where", "profile",
    "field", "kind", "note"}`` with ``kind`` ``assumed`` or ``fitted`` (see
    ``sanpath.spec.assumptions``)."""

    recording: Recording | None = field(default=None, compare=False, repr=False)
    """What the run recorded for its animation (``run.animate``; :meth:`animate`)."""

    def with_extra(self, **values: Any) -> RunResult:
        """A copy with more entries in ``extra``."""
        return dataclasses.replace(self, extra={**self.extra, **values})

    def animate(self, frames: int | None = None, dpi: int = 72) -> Any:
        """The animation of the run's window (``run.animate``): in a notebook its output is
        the player; ``.save(path)`` writes an HTML page, a GIF or an MP4
        (:class:`sanpath.plotting.Player`). ``frames``: how many of the recorded frames (all
        for None).

        Raises
        ------
        ValueError
            When the run recorded no window (the scenario had no ``run.animate``).
        """
        if self.recording is None:
            raise ValueError(
                "the run recorded no animation window: set run.animate in the scenario, "
                "e.g. with_overrides({'run.animate': {'start': 0.0}}), and run it again"
            )
        from sanpath.plotting import Player

        return Player(self.recording, frames, dpi)

    def _assumptions_line(self) -> str:
        """One line: how many profile numbers are assumed or fitted, counted by profile."""
        counts: dict[str, int] = {}
        for a in self.assumptions:
            counts[a["profile"]] = counts.get(a["profile"], 0) + 1
        kinds = " or ".join(sorted({a["kind"] for a in self.assumptions}))
        named = ", ".join(f"{p} {n}" for p, n in counts.items())
        return (
            f"  uses {len(self.assumptions)} {kinds} profile numbers ({named}): listed by "
            "--json, explained by sanpath profiles NAME"
        )

    def diff(self, other: RunResult, labels: tuple[str, str] = ("A", "B")) -> RunDiff:
        """This run (A) against ``other`` (B), figure by figure, with whether each change
        is outside both runs' 95% intervals: a :class:`sanpath.results.diff.RunDiff`."""
        from sanpath.results.diff import diff_results

        return diff_results(self.to_dict(), other.to_dict(), labels)

    def _frame(self, kind: str) -> pd.DataFrame:
        import pandas as pd

        rows = [g.flat() for g in self.groups.get(kind, {}).values()]
        return pd.DataFrame(rows).set_index("name") if rows else pd.DataFrame()

    @property
    def by_host(self) -> pd.DataFrame:
        """One row per host instance, with iops, mb_per_s, read/write iops, latency_ms_*, qfull."""
        return self._frame("hosts")

    @property
    def by_host_group(self) -> pd.DataFrame:
        """One row per host group (its hosts together), as :attr:`by_host`."""
        return self._frame("host_groups")

    @property
    def by_workload(self) -> pd.DataFrame:
        """One row per workload, as :attr:`by_host`."""
        return self._frame("workloads")

    @property
    def by_lun(self) -> pd.DataFrame:
        """One row per LUN, as :attr:`by_host`."""
        return self._frame("luns")

    @property
    def by_device(self) -> pd.DataFrame:
        """One row per host and LUN, with iostat's and esxtop's fields for that device."""
        import pandas as pd

        return pd.DataFrame([d.flat() for d in self.devices])

    @property
    def served(self) -> dict[str, float]:
        """Each host's IOPS over the IOPS it asked for, by host (1 is all it asked), as
        :func:`sanpath.results.served` computes it."""
        hosts = self.groups.get("hosts", {})
        return served({name: g.iops for name, g in hosts.items()}, self.demand)

    @property
    def fairness(self) -> dict[str, float]:
        """Jain's index and the max/min ratio of what each host got over what it asked for
        (:attr:`served`; see :func:`sanpath.results.fairness`): open-loop hosts that each get
        the rate they offer score 1, whatever their rates."""
        return fairness(list(self.served.values()))

    @property
    def short_of_demand(self) -> list[str]:
        """The hosts that got less than they asked for by more than counting noise explains
        among the hosts compared, least served first (see
        :func:`sanpath.results.short_of_demand`: a Poisson test at a family-wise 1%)."""
        hosts = self.groups.get("hosts", {})
        return short_of_demand({name: g.ios for name, g in hosts.items()}, self.served)

    @property
    def bottlenecks(self) -> tuple[Bottleneck, ...]:
        """The kinds of component ranked by their busiest station's utilization, busiest
        first (see :func:`~sanpath.results.bottleneck.rank_bottlenecks`); the first is the
        run's bottleneck and its ``meaning`` says what that means."""
        return rank_bottlenecks(self.stations)

    def station(self, name: str) -> StationStats:
        """The statistics of the station called ``name``."""
        for st in self.stations:
            if st.name == name:
                return st
        raise KeyError(f"no station {name!r}; stations: {[s.name for s in self.stations]}")

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (what ``sanpath run --json`` prints)."""
        out: dict[str, Any] = {
            "name": self.name,
            "seed": self.seed,
            "replicate": self.replicate,
            "ios": self.ios,
            "sim_seconds": self.sim_seconds,
            "iops": self.iops,
            "mb_per_s": self.mb_per_s,
            "read_iops": self.read_iops,
            "write_iops": self.write_iops,
            "latency_ms": dict(self.latency_ms),
            "read_latency_ms_mean": finite(self.read_latency_ms),
            "write_latency_ms_mean": finite(self.write_latency_ms),
            "command_latency_ms": dict(self.command_latency_ms),
            "ci95": {k: list(v) for k, v in self.ci95.items()},
            "counters": dict(self.counters),
            "stations": [st.to_dict() for st in self.stations],
            "breakdown_ms": dict(self.breakdown_ms),
            "totals": dict(self.totals),
            "latency_cdf": self.latency_cdf(),
            "warnings": list(self.warnings),
            "steady": self.steady,
            "run": dict(self.run_info),
            "lun_mb_per_s": dict(self.lun_mb_per_s),
        }
        out["bottlenecks"] = [b.to_dict() for b in self.bottlenecks]
        for kind, members in self.groups.items():
            out[kind] = {name: g.to_dict() for name, g in members.items()}
        if self.groups:
            out["fairness"] = self.fairness
            out["served"] = self.served
            out["starving"] = [x.to_dict() for x in self.starving]
        if self.victims:  # only where a switch's ISL was blocked
            out["victims"] = [x.to_dict() for x in self.victims]
        if self.notified:  # only where a switch sent congestion notifications
            out["fpin"] = [x.to_dict() for x in self.notified]
        if self.devices:
            out["devices"] = [d.to_dict() for d in self.devices]
        if self.timeseries is not None:
            out["timeseries"] = self.timeseries
        if self.settings:
            out["settings"] = list(self.settings)
        if self.assumptions:
            out["assumptions"] = [dict(a) for a in self.assumptions]
        out.update(self.extra)
        safe: dict[str, Any] = _json_safe(out)
        return safe

    def latency_cdf(self, points: int = 200) -> dict[str, list[float]]:
        """Latency (ms) at evenly spaced cumulative fractions, for CDF plots from JSON."""
        if self.histogram.count == 0:
            return {"fraction": [], "latency_ms": []}
        fractions = [i / points for i in range(1, points)] + [0.999, 0.9999]
        fractions = sorted(set(fractions))
        values = self.histogram.quantiles(fractions)
        return {"fraction": fractions, "latency_ms": [v * 1e3 for v in values]}

    def to_json(self, indent: int | None = 2) -> str:
        """The result as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    def to_fio_json(
        self, job_options: dict[str, dict[str, str]] | None = None, **kwargs: Any
    ) -> dict[str, Any]:
        """The result in fio's ``--output-format=json`` shape, one job per workload (see
        :func:`sanpath.results.fio_json.to_fio_json` for the arguments and the mapping)."""
        from sanpath.results.fio_json import to_fio_json

        return to_fio_json(self, job_options, **kwargs)

    def to_frame(self) -> pd.DataFrame:
        """One row of headline figures (the shape a sweep table uses)."""
        import pandas as pd

        return pd.DataFrame([self.flat()])

    def flat(self) -> dict[str, Any]:
        """Headline figures as one flat dict of scalars."""
        row: dict[str, Any] = {
            "iops": self.iops,
            "mb_per_s": self.mb_per_s,
            "read_iops": self.read_iops,
            "write_iops": self.write_iops,
        }
        for key, value in self.latency_ms.items():
            row[f"latency_ms_{key}"] = value
        row["read_latency_ms_mean"] = self.read_latency_ms
        row["write_latency_ms_mean"] = self.write_latency_ms
        row["iops_ci_lo"], row["iops_ci_hi"] = self.ci95["iops"]
        row["latency_ms_mean_ci_lo"], row["latency_ms_mean_ci_hi"] = self.ci95["latency_ms_mean"]
        row.update(self.counters)
        for key, value in self.breakdown_ms.items():
            row[f"breakdown_ms_{key}"] = value
        row["sim_seconds"] = self.sim_seconds
        row["ios"] = self.ios
        row["steady"] = self.steady
        row["warnings"] = len(self.warnings)
        if self.groups:
            fair = self.fairness
            row["fairness_jain"] = fair["jain"]
            row["fairness_max_min"] = fair["max_min"]
        return row

    def stations_frame(self) -> pd.DataFrame:
        """One row per station."""
        import pandas as pd

        return pd.DataFrame([st.to_dict() for st in self.stations])

    def summary(self, detail: bool = False) -> str:
        """What ``sanpath run`` prints: the headline with its intervals and whether the run
        reached steady state, the latency, the layers that take the most time, the
        bottleneck and the hosts (least served first), figures to three significant
        digits. With ``detail``, also every latency percentile and layer, every kind of
        component, the counters and every station that carried traffic."""
        lines = [
            f"scenario {self.name}  seed {self.seed}  replicate {self.replicate}",
            f"  {self.ios:,} I/Os in {figure(self.sim_seconds)} simulated s{self._how()}",
            f"  IOPS      {figure(self.iops):>10}   {plus_minus(self.iops, self.ci95['iops'])}",
            f"  MB/s      {figure(self.mb_per_s):>10}   (10^6 bytes/s)",
        ]
        if self.warnings:
            lines[1:1] = [
                "  " + ("NOT STEADY STATE: " if not self.steady else "WARNING: ") + w
                for w in self.warnings
            ]
        elif self.steady:
            lines.insert(2, "  steady state reached after the warm-up")
        if self.assumptions:
            lines.append(self._assumptions_line())
        lines += ["", "latency (ms)"]
        mean_ci = plus_minus(self.latency_ms["mean"], self.ci95["latency_ms_mean"])
        for key, value in self.latency_ms.items():
            if not detail and key not in ("mean", "p50", "p99", "p99_9"):
                continue
            name = key.replace("_", ".")
            note = tail_note(self.ios, key)
            if note is not None:
                lines.append(f"  {name:<8}{'-':>10}   not shown: {note}")
                continue
            extra = f"   {mean_ci}" if key == "mean" else ""
            lines.append(f"  {name:<8}{figure(value):>10}{extra}")
        total = sum(self.breakdown_ms.values()) or 1.0
        layers = sorted(self.breakdown_ms.items(), key=lambda kv: -kv[1])
        if detail:
            lines += ["", "where the time goes (mean ms per I/O)"]
            layers = list(self.breakdown_ms.items())
        else:
            lines += ["", "where the time goes (mean ms per I/O, the three largest layers)"]
            layers = [kv for kv in layers[:3] if kv[1] > 0]
        for key, value in layers:
            lines.append(f"  {key:<12}{figure(value):>10}  {percent(value / total, digits=1):>6}")
        lines += self._bottleneck_lines(detail)
        lines += self._hosts_lines()
        if not detail:
            lines += [
                "",
                "(--detail adds every percentile and layer, every kind of component, the "
                "counters and the stations)",
            ]
            return "\n".join(lines)
        lines += ["", "counters"]
        lines += [f"  {key:<16}{value:>12,}" for key, value in self.counters.items()]
        lines += ["", "stations (those that carried traffic)"]
        frame = self.stations_frame()
        frame = frame[(frame["throughput"] > 0) | (frame["utilization"] > 0)]
        frame = frame[
            [
                "name",
                "kind",
                "servers",
                "utilization",
                "mean_queue",
                "mean_wait_ms",
                "mean_service_ms",
                "throughput",
            ]
        ]
        shown = table(
            frame,
            keys=["name"],
            labels={"name": "station", "utilization": "busy"},
            percent_columns=["utilization"],
        )
        lines.append(str(shown))
        return "\n".join(lines)

    def _bottleneck_lines(self, ranking: bool = True) -> list[str]:
        """The summary's bottleneck: the first kind with what it means, then (``ranking``)
        every kind."""
        ranked = self.bottlenecks
        if not ranked:
            return []
        first = ranked[0]
        lines = [
            "",
            f"bottleneck: {first.kind} ({first.station}, utilization {first.utilization:.0%})",
        ]
        lines += textwrap.wrap(first.meaning, 94, initial_indent="  ", subsequent_indent="  ")
        if not ranking:
            return lines
        lines.append("  by kind (busiest station, its utilization, mean over the kind)")
        for b in ranked:
            lines.append(
                f"    {b.kind:<12}{b.station:<28}{b.utilization:7.1%}   mean "
                f"{b.mean_utilization:6.1%} of {b.stations}"
            )
        return lines

    def _hosts_lines(self, most: int = 16) -> list[str]:
        """The per-host table of the summary (the least served first when there are more
        than ``most`` hosts); nothing for a single host."""
        hosts = self.groups.get("hosts", {})
        if len(hosts) < 2:
            return []
        jain = self.fairness["jain"]
        lines = host_table(hosts, self.served, jain, self.short_of_demand, most)
        if self.starving:
            lines.append(
                f"  starving (served below {STARVE_SHARE:.0%} of their queue share, refused):"
            )
            lines += [f"    {x.text()}" for x in self.starving]
        return lines + congestion_lines(self.victims, self.notified)

    def _how(self) -> str:
        """How the window was chosen, for the summary's second line."""
        info = self.run_info
        if not info:
            return ""
        kind = "an automatic" if info["warmup"] == "auto" else "a fixed"
        out = f" after {kind} warm-up of {info['warmup_ios']:,} I/Os"
        out += f" ({figure(info['warmup_seconds'])} s)"
        stopped = info.get("stopped_by", "")
        if stopped == "precision":
            out += f"; stopped at ±{100 * max(info['precision'].values()):.1f}% precision"
        elif stopped:
            out += f"; stopped by {stopped}"
        return out


def _json_safe(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_safe(v) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, np.floating):
        return _json_safe(float(value))
    if isinstance(value, np.integer):
        return int(value)
    return value
