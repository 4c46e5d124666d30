"""fio-shaped output: a run's figures in the JSON that ``fio --output-format=json`` writes.

Tools that read fio's JSON (fio-plot, a planner's own scripts, ``sanpath import`` and
``sanpath calibrate``) read this as they read fio's. Key names, JSON types (integer or
float) and units are fio's own, taken from its ``stat.c`` (``__show_run_stats``,
``show_thread_status_json``, ``add_ddir_status_json``, ``add_ddir_lat_json``,
``json_array_add_disk_util``) and ``io_u.c`` (the ``latency_*`` and ``iodepth_*``
buckets): times in ns (``*_ns``) or ms (``runtime``), ``bw`` and ``bw_*`` in KiB/s (1024
bytes), ``bw_bytes`` in bytes/s, ``io_kbytes`` in KiB, ``iops`` per second.

How the model maps onto fio (``docs/results.md`` has the same table):

* **A job is a workload** of the run (all its hosts, threads and LUNs together, as fio's
  ``group_reporting`` sums a job's ``numjobs`` threads); every job of a run is in group 0.
  A sweep writes one job per point, each its own group
  (:mod:`sanpath.experiments.fio_output`).
* ``lat_ns`` is the application I/O latency, from the I/O leaving the application to its
  completion (a split I/O counts once, with its last piece), the figure of ``latency_ms``.
  ``clat_ns`` is the same latency: the model has no submission step apart from the trip,
  so, as fio reports a synchronous engine (``psync``), ``slat_ns`` is not measured (all
  zero, ``N`` 0) and completion latency is the whole latency. The host's own time (its
  ``cpu_time`` and ``io_time``) is inside ``clat_ns``, as it is in ``breakdown_ms``.
* ``clat_ns.percentile`` uses fio's default list (1, 5, ... 99.99) with fio's keys
  (``"99.000000"``), read from the run's log-linear histogram as fio reads its own: the
  midpoint of the bucket holding the percentile (relative error below 0.8%).
  ``min``/``max``/``mean`` are exact; ``stddev`` is the sample standard deviation (n - 1).
* ``runtime`` (ms) is the measured window rounded up, as fio rounds a job's elapsed
  microseconds; ``iops`` and ``bw_bytes`` come from the exact window, not the rounded
  ``runtime``, so ``iops x runtime / 1000`` equals ``total_ios`` within that rounding.
* ``bw_*``/``iops_*`` summarise fio's per-interval samples; the model reports the window as
  one sample (``bw_samples`` 1, ``bw_dev`` 0; nothing for a direction without I/O).
  ``bw_agg`` is the job's share of its group's bandwidth, in percent, as fio computes it.
* ``iodepth_level``: 100% in the bucket of the job's ``iodepth`` option (a closed loop keeps
  ``outstanding`` I/Os in flight per thread and LUN); without one (an open loop), the bucket
  of the mean I/Os in flight (Little's law, IOPS x mean latency). ``iodepth_submit`` and
  ``iodepth_complete``: 100% in ``"4"`` (1 to 4 I/Os per call): the model submits and
  completes I/Os one at a time.
* ``latency_ns``/``latency_us``/``latency_ms``: the share of I/Os (percent, reads and writes)
  whose completion latency falls in each of fio's ranges, each histogram bucket placed by
  its representative value, with fio's floor of 0.01 for a non-empty range.
* Not modelled, written as fio writes an idle figure: ``usr_cpu``, ``sys_cpu`` (0.0),
  ``ctx``, ``majf``, ``minf``, ``short_ios``, ``drop_ios``, ``error`` (0), ``trim`` and
  ``sync`` (all zero), ``latency_target``/``latency_window`` (0, ``latency_percentile``
  100.0, as fio without ``latency_target``).
* ``disk_util``: one entry per host and LUN (``host/lun``), what that host's
  ``/proc/diskstats`` would hold over the window: commands (a split I/O is several),
  512-byte sectors, ``read_ticks``/``write_ticks`` the summed command latencies (ms),
  ``in_queue`` their sum, ``util`` the percent of the window with a command outstanding;
  no merges.
* ``global options`` holds ``direct=1`` (the model has no host page cache), ``runtime`` and
  ``ramp_time`` (the measured window and the warm-up, in us); ``job options`` are what the
  caller gives (``sanpath run`` and ``sweep`` write the workload in fio's words: ``rw``,
  ``rwmixread``, ``bs``/``bssplit``, ``iodepth``, ``numjobs``, ``rate_iops``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Protocol

import numpy as np

from sanpath._version import __version__
from sanpath.results.groups import DeviceFigures, GroupFigures
from sanpath.stats import LatencyHistogram


class FioSource(Protocol):
    """What fio's document is made from: a run's result (:class:`sanpath.results.RunResult`),
    as this module reads it."""

    @property
    def name(self) -> str: ...
    @property
    def sim_seconds(self) -> float: ...
    @property
    def run_info(self) -> dict[str, Any]: ...
    @property
    def groups(self) -> dict[str, dict[str, GroupFigures]]: ...
    @property
    def devices(self) -> tuple[DeviceFigures, ...]: ...


FIO_PERCENTILES = (
    1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 95.0,
    99.0, 99.5, 99.9, 99.95, 99.99,
)  # fmt: skip
"""fio's default ``percentile_list`` (``options.c``)."""

_RANGES = (2, 4, 10, 20, 50, 100, 250, 500, 750, 1000)
"""Upper bounds of fio's ``latency_ns`` and ``latency_us`` ranges (``io_u_mark_lat_*``)."""
_RANGES_MS = (*_RANGES, 2000)
_DEPTHS = ("1", "2", "4", "8", "16", "32", ">=64")
_BATCHES = ("0", "4", "8", "16", "32", "64", ">=64")
SECTOR = 512
"""Bytes per sector in ``/proc/diskstats`` (``read_sectors``, ``write_sectors``)."""


def fio_version() -> str:
    """What ``"fio version"`` says: this is sanpath's output, not fio's."""
    return f"sanpath-{__version__}"


def _lat(hist: LatencyHistogram | None, stddev_s: float, percentiles: bool) -> dict[str, Any]:
    """fio's latency object (ns): ``min, max, mean, stddev, N`` (and ``percentile``)."""
    n = 0 if hist is None else hist.count
    if hist is None or n == 0:
        return {"min": 0, "max": 0, "mean": 0.0, "stddev": 0.0, "N": 0}
    dev = stddev_s * 1e9 if n > 1 and math.isfinite(stddev_s) else 0.0
    out: dict[str, Any] = {
        "min": round(hist.min * 1e9),
        "max": round(hist.max * 1e9),
        "mean": float(hist.mean * 1e9),
        "stddev": float(dev),
        "N": int(n),
    }
    if percentiles:
        values = hist.quantiles([p / 100.0 for p in FIO_PERCENTILES])
        out["percentile"] = {
            f"{p:f}": round(v * 1e9) for p, v in zip(FIO_PERCENTILES, values, strict=True)
        }
    return out


def _direction(fig: GroupFigures | None, write: bool) -> dict[str, Any]:
    """fio's ``read``/``write``/``trim`` object for one direction of ``fig`` (None: idle)."""
    if fig is None:
        ios, nbytes, span, hist, dev = 0, 0, 0.0, None, math.nan
    else:
        hist = fig.write if write else fig.read
        ios = fig.writes if write else fig.reads
        nbytes = fig.bytes_written if write else fig.bytes_read
        span, dev = fig.span_s, fig.stddev_s(write)
    active = ios > 0 and span > 0
    iops = ios / span if active else 0.0
    bw_bytes = int(nbytes / span) if active else 0
    bw_kib = nbytes / span / 1024.0 if active else 0.0
    lat = _lat(hist, dev, percentiles=True)
    return {
        "io_bytes": int(nbytes),
        "io_kbytes": int(nbytes) >> 10,
        "bw_bytes": bw_bytes,
        "bw": bw_bytes // 1024,
        "iops": float(iops),
        "runtime": math.ceil(span * 1e3) if nbytes and span > 0 else 0,
        "total_ios": int(ios),
        "short_ios": 0,
        "drop_ios": 0,
        "slat_ns": _lat(None, math.nan, False),
        "clat_ns": lat,
        "lat_ns": {k: v for k, v in lat.items() if k != "percentile"},
        "bw_min": round(bw_kib),
        "bw_max": round(bw_kib),
        "bw_agg": 100.0 if active else 0.0,  # fio_document sets the group share
        "bw_mean": float(bw_kib),
        "bw_dev": 0.0,
        "bw_samples": 1 if active else 0,
        "iops_min": round(iops),
        "iops_max": round(iops),
        "iops_mean": float(iops),
        "iops_stddev": 0.0,
        "iops_samples": 1 if active else 0,
    }


def _share(counts: Sequence[int], total: int) -> list[float]:
    """Percent of ``total`` per entry, with fio's floor of 0.01 for a non-empty one."""
    out = []
    for c in counts:
        pct = 100.0 * c / total if total else 0.0
        out.append(0.01 if 0 < pct < 0.01 else float(pct))
    return out


def latency_buckets(hist: LatencyHistogram) -> dict[str, dict[str, float]]:
    """``latency_ns``, ``latency_us`` and ``latency_ms``: percent of I/Os in fio's ranges."""
    counts = hist.counts
    values_ns = hist.bucket_values()[counts > 0] * 1e9
    counts = counts[counts > 0]
    ns = np.zeros(len(_RANGES), dtype=np.int64)
    us = np.zeros(len(_RANGES), dtype=np.int64)
    ms = np.zeros(len(_RANGES_MS) + 1, dtype=np.int64)
    for value, count in zip(np.floor(values_ns).astype(np.int64), counts, strict=True):
        if value < 1000:
            ns[np.searchsorted(_RANGES, value, side="right")] += count
        elif value < 1_000_000:
            us[np.searchsorted(_RANGES, value // 1000, side="right")] += count
        else:
            ms[np.searchsorted(_RANGES_MS, value // 1_000_000, side="right")] += count
    total = hist.count
    ms_keys = [*map(str, _RANGES_MS), ">=2000"]
    return {
        "latency_ns": dict(zip(map(str, _RANGES), _share(ns.tolist(), total), strict=True)),
        "latency_us": dict(zip(map(str, _RANGES), _share(us.tolist(), total), strict=True)),
        "latency_ms": dict(zip(ms_keys, _share(ms.tolist(), total), strict=True)),
    }


def _depth_bucket(depth: float) -> str:
    """fio's ``iodepth_level`` key for ``depth`` I/Os in flight (``io_u_mark_depth``)."""
    level = max(1, math.floor(depth))
    for i, key in enumerate(_DEPTHS[:-1]):
        if level < 1 << (i + 1):
            return key
    return _DEPTHS[-1]


def _depth(fig: GroupFigures, options: Mapping[str, str]) -> float:
    """The job's I/O depth: its ``iodepth`` option, else its mean I/Os in flight."""
    text = str(options.get("iodepth", "")).strip()
    if text.isdigit() and int(text) > 0:
        return float(int(text))
    latency = fig.latency
    return fig.iops * latency.mean if latency.count else 1.0


def fio_job(
    name: str,
    fig: GroupFigures,
    options: Mapping[str, str] | None = None,
    *,
    groupid: int = 0,
) -> dict[str, Any]:
    """One entry of fio's ``jobs`` list: the I/Os of ``fig`` as fio reports a job.

    ``options`` become ``job options`` (strings, as fio writes them; left out when empty,
    as fio does). ``bw_agg`` is 100 until :func:`fio_document` sets the group's shares.
    """
    opts = {str(k): str(v) for k, v in (options or {}).items()}
    span = fig.span_s
    job: dict[str, Any] = {
        "jobname": name,
        "groupid": int(groupid),
        "error": 0,
        "eta": 0,
        "elapsed": math.ceil(span) if span > 0 else 0,
    }
    if opts:
        job["job options"] = opts
    job["read"] = _direction(fig, write=False)
    job["write"] = _direction(fig, write=True)
    job["trim"] = _direction(None, write=False)
    job["sync"] = {"total_ios": 0, "lat_ns": _lat(None, math.nan, False)}
    job["job_runtime"] = max(job["read"]["runtime"], job["write"]["runtime"])
    job.update({"usr_cpu": 0.0, "sys_cpu": 0.0, "ctx": 0, "majf": 0, "minf": 0})
    depth = _depth(fig, opts)
    level = _depth_bucket(depth)
    job["iodepth_level"] = {k: 100.0 if k == level else 0.0 for k in _DEPTHS}
    ios = fig.ios
    for key in ("iodepth_submit", "iodepth_complete"):
        job[key] = {k: 100.0 if k == "4" and ios else 0.0 for k in _BATCHES}
    job.update(latency_buckets(fig.latency))
    job["latency_depth"] = max(1, math.floor(depth))
    job["latency_target"] = 0
    job["latency_percentile"] = 100.0
    job["latency_window"] = 0
    if opts.get("description"):
        job["desc"] = opts["description"]
    return job


def disk_util(device: DeviceFigures) -> dict[str, Any]:
    """One entry of fio's ``disk_util``: what the host's diskstats say about the LUN."""
    busy = 100.0 * device.busy_s / device.span_s if device.span_s > 0 else 0.0
    return {
        "name": device.name,
        "read_ios": int(device.reads),
        "write_ios": int(device.writes),
        "read_sectors": int(device.bytes_read) // SECTOR,
        "write_sectors": int(device.bytes_written) // SECTOR,
        "read_merges": 0,
        "write_merges": 0,
        "read_ticks": round(device.read_time_s * 1e3),
        "write_ticks": round(device.write_time_s * 1e3),
        "in_queue": round((device.read_time_s + device.write_time_s) * 1e3),
        "util": float(min(busy, 100.0)),
    }


def combine(name: str, figures: Iterable[GroupFigures]) -> GroupFigures:
    """The I/Os of several groups over one window as one group (e.g. a run's workloads)."""
    figs = list(figures)
    if not figs:
        return GroupFigures(name, 0.0, 0, 0, 0, 0, 0, LatencyHistogram(), LatencyHistogram())
    read, write = figs[0].read, figs[0].write
    for f in figs[1:]:
        read, write = read.merge(f.read), write.merge(f.write)
    return GroupFigures(
        name=name,
        span_s=max(f.span_s for f in figs),
        reads=sum(f.reads for f in figs),
        writes=sum(f.writes for f in figs),
        bytes_read=sum(f.bytes_read for f in figs),
        bytes_written=sum(f.bytes_written for f in figs),
        qfull=sum(f.qfull for f in figs),
        read=read,
        write=write,
        read_sumsq=sum(f.read_sumsq for f in figs),
        write_sumsq=sum(f.write_sumsq for f in figs),
    )


def fio_document(
    jobs: Sequence[dict[str, Any]],
    *,
    global_options: Mapping[str, str] | None = None,
    disks: Sequence[dict[str, Any]] = (),
    timestamp: float | None = None,
) -> dict[str, Any]:
    """fio's top level around ``jobs``: version, time, ``global options``, ``disk_util``.

    Sets each job's ``bw_agg`` to its share (percent) of its group's bandwidth per
    direction, as fio's ``convert_agg_kbytes_percent`` does. ``timestamp`` is seconds since
    the epoch (default: now); ``time`` is it as ``ctime`` prints it (local time).
    """
    now = time.time() if timestamp is None else float(timestamp)
    doc: dict[str, Any] = {
        "fio version": fio_version(),
        "timestamp": int(now),
        "timestamp_ms": int(now * 1000),
        "time": time.ctime(now),
    }
    opts = {str(k): str(v) for k, v in (global_options or {}).items()}
    if opts:
        doc["global options"] = opts
    for key in ("read", "write"):
        agg: dict[int, int] = {}
        for job in jobs:
            agg[job["groupid"]] = agg.get(job["groupid"], 0) + job[key]["bw_bytes"]
        for job in jobs:
            d = job[key]
            total = agg[job["groupid"]]
            if d["bw_samples"] and total > 1024:
                d["bw_agg"] = float(min(100.0, d["bw_mean"] * 100.0 / (total / 1024.0)))
    doc["jobs"] = list(jobs)
    if disks:
        doc["disk_util"] = list(disks)
    return doc


def to_fio_json(
    result: FioSource,
    job_options: Mapping[str, Mapping[str, str]] | None = None,
    *,
    global_options: Mapping[str, str] | None = None,
    timestamp: float | None = None,
    disks: bool = True,
) -> dict[str, Any]:
    """``result`` as fio's ``--output-format=json`` document: one job per workload.

    Parameters
    ----------
    result
        A run's result; each entry of its ``groups["workloads"]`` becomes a job (a result
        without per-workload figures raises ValueError).
    job_options
        fio options per workload name (strings), written as each job's ``job options``;
        ``iodepth`` also places ``iodepth_level`` (see the module docstring).
    global_options
        Added to (and overriding) ``direct``, ``runtime`` and ``ramp_time``.
    timestamp
        Seconds since the epoch for ``timestamp``/``time`` (default: now).
    disks
        Write ``disk_util``, one entry per host and LUN.
    """
    workloads = result.groups.get("workloads", {})
    if not workloads:
        raise ValueError(f"{result.name}: the result has no per-workload figures to report")
    jobs = [fio_job(name, fig, (job_options or {}).get(name)) for name, fig in workloads.items()]
    common = {"direct": "1", "runtime": f"{round(result.sim_seconds * 1e6)}us"}
    warmup = result.run_info.get("warmup_seconds")
    if isinstance(warmup, int | float) and math.isfinite(warmup):
        common["ramp_time"] = f"{round(warmup * 1e6)}us"
    common.update({str(k): str(v) for k, v in (global_options or {}).items()})
    devices = [disk_util(d) for d in result.devices] if disks else []
    return fio_document(jobs, global_options=common, disks=devices, timestamp=timestamp)
