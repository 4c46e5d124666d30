"""Run results: immutable figures of one simulated run, as a dict, a table or text.

Units: latencies in milliseconds in every user-facing key (``latency_ms``, ``breakdown_ms``,
``mean_wait_ms``); throughput ``mb_per_s`` in 10^6 bytes per second, as vendors and FC
nominal speeds quote it.
"""

from __future__ import annotations

import dataclasses
import json
import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from sanpath.results.station import StationStats
from sanpath.stats import LatencyHistogram

PERCENTILES = {"p50": 0.5, "p90": 0.9, "p99": 0.99, "p99_9": 0.999}


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
    unstable), ``precision`` (relative half-width reached per stopping metric),
    ``target_half_width`` and ``unstable``."""

    def with_extra(self, **values: Any) -> RunResult:
        """A copy with more entries in ``extra``."""
        return dataclasses.replace(self, extra={**self.extra, **values})

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
            "read_latency_ms_mean": _finite(self.read_latency_ms),
            "write_latency_ms_mean": _finite(self.write_latency_ms),
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
        if self.timeseries is not None:
            out["timeseries"] = self.timeseries
        if self.settings:
            out["settings"] = list(self.settings)
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

    def to_frame(self) -> pd.DataFrame:
        """One row of headline figures (the shape a sweep table uses)."""
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
        return row

    def stations_frame(self) -> pd.DataFrame:
        """One row per station."""
        return pd.DataFrame([st.to_dict() for st in self.stations])

    def summary(self) -> str:
        """Readable tables: headline, latency, breakdown, counters and stations."""
        lines = [
            f"scenario {self.name}  seed {self.seed}  replicate {self.replicate}",
            f"  {self.ios} I/Os in {self.sim_seconds:.3f} simulated s{self._how()}",
            f"  IOPS      {self.iops:12.1f}   95% CI [{self.ci95['iops'][0]:.1f}, "
            f"{self.ci95['iops'][1]:.1f}]",
            f"  MB/s      {self.mb_per_s:12.2f}   (10^6 bytes/s)",
            "",
            "latency (ms)",
        ]
        if self.warnings:
            lines[1:1] = [
                "  " + ("NOT STEADY STATE: " if not self.steady else "WARNING: ") + w
                for w in self.warnings
            ]
        lo, hi = self.ci95["latency_ms_mean"]
        for key, value in self.latency_ms.items():
            extra = f"   95% CI [{lo:.4f}, {hi:.4f}]" if key == "mean" else ""
            lines.append(f"  {key:<8}{value:12.4f}{extra}")
        lines += ["", "where the time goes (mean ms per I/O)"]
        total = sum(self.breakdown_ms.values()) or 1.0
        for key, value in self.breakdown_ms.items():
            lines.append(f"  {key:<12}{value:10.4f}  {100 * value / total:5.1f}%")
        lines += ["", "counters"]
        lines += [f"  {key:<16}{value}" for key, value in self.counters.items()]
        lines += ["", "stations"]
        frame = self.stations_frame()[
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
        lines.append(frame.to_string(index=False, float_format=lambda x: f"{x:.4g}"))
        return "\n".join(lines)

    def _how(self) -> str:
        """How the window was chosen, for the summary's second line."""
        info = self.run_info
        if not info:
            return ""
        kind = "an automatic" if info["warmup"] == "auto" else "a fixed"
        out = f" after {kind} warm-up of {info['warmup_ios']:,} I/Os"
        out += f" ({info['warmup_seconds']:.3g} s)"
        stopped = info.get("stopped_by", "")
        if stopped == "precision":
            out += f"; stopped at +/-{100 * max(info['precision'].values()):.1f}% precision"
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


def latency_dict(hist: LatencyHistogram) -> dict[str, float]:
    if hist.count == 0:
        return {"mean": math.nan, **dict.fromkeys(PERCENTILES, math.nan), "max": math.nan}
    out = {"mean": hist.mean * 1e3}
    for key, q in PERCENTILES.items():
        out[key] = hist.quantile(q) * 1e3
    out["max"] = hist.max * 1e3
    return out


def _finite(value: float) -> float | None:
    """``value``, or None where JSON has no number for it (NaN, infinity)."""
    return value if math.isfinite(value) else None
