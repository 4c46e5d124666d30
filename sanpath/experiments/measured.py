"""Measured points for calibration: figures measured at a few settings, read from fio's
JSON output (``--output-format=json``) or from a CSV whose columns are dotted scenario keys
(the settings) and metrics (``iops``, ``mb_per_s``, ``latency_ms_mean``, ...).

:mod:`sanpath.experiments.calibrate` fits a scenario to them (and re-exports these names).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

__all__ = ["METRICS", "MeasuredPoint", "read_fio_json", "read_measurements"]

METRICS = (
    "iops",
    "mb_per_s",
    "latency_ms_mean",
    "latency_ms_p50",
    "latency_ms_p99",
    "read_latency_ms_mean",
    "write_latency_ms_mean",
)
"""Measured figures calibration can fit."""


@dataclass(frozen=True)
class MeasuredPoint:
    """Figures measured at one setting (dotted overrides of the scenario)."""

    label: str
    settings: dict[str, Any]
    metrics: dict[str, float]


def read_measurements(path: str | Path) -> list[MeasuredPoint]:
    """Read fio JSON output or a CSV of settings and metrics, with the import's readers.

    The file is checked and decoded as ``sanpath import`` does (:mod:`sanpath.ingest.text`:
    a regular file, UTF-8 or UTF-16 by its byte order mark); a fio result is read by
    :func:`sanpath.ingest.fio_json.parse` and a table by
    :func:`sanpath.ingest.points.read_points`.

    Raises
    ------
    ScenarioError
        Naming the file, line, column and key or column of what does not read.
    """
    from sanpath.ingest import read_points, read_text

    source = str(path)
    text = read_text(path)
    if Path(path).suffix.lower() == ".json" or text.lstrip().startswith(("{", "[")):
        return read_fio_json(text, source)
    return [
        MeasuredPoint(row.label, row.settings, row.figures)
        for row in read_points(text, source, METRICS)
    ]


def read_fio_json(data: Mapping[str, Any] | str, source: str = "<fio>") -> list[MeasuredPoint]:
    """One measured point per fio job: IOPS, bandwidth and latency (fio JSON as text or
    decoded), read by :func:`sanpath.ingest.fio_json.parse`.

    The latency is fio's ``lat_ns`` (submission to completion) where fio measured it, else
    ``clat_ns``; the mean is weighted by each direction's IOPS, the median and 99th percentile
    are those of the direction with more I/Os. Job options the job (or its global section)
    spelled out map to the first workload: ``iodepth`` -> ``outstanding``, ``bs`` ->
    ``block_size`` (bytes, or a mix for ``bssplit``), ``numjobs`` -> ``threads``,
    ``rw``/``rwmixread`` -> ``pattern`` and ``read_fraction``.
    """
    from sanpath.ingest import parse_fio_json

    text = data if isinstance(data, str) else json.dumps(data, indent=1)
    measured = parse_fio_json(text, source)
    found: list[MeasuredPoint] = []
    for job, sample in zip(measured.jobs, measured.samples, strict=True):
        settings: dict[str, Any] = {}
        if "iodepth" in job.given:
            settings["workloads.0.outstanding"] = job.iodepth
        if job.given & {"bs", "bsrange", "bssplit"}:
            sizes = job.block_sizes
            settings["workloads.0.block_size"] = (
                sizes[0][0] if len(sizes) == 1 else [[size, weight] for size, weight in sizes]
            )
        if "numjobs" in job.given:
            settings["workloads.0.threads"] = job.numjobs
        if "rw" in job.given:
            settings["workloads.0.pattern"] = "random" if job.random_fraction > 0 else "sequential"
            settings["workloads.0.read_fraction"] = job.read_fraction
        metrics: dict[str, float] = {
            "iops": sample.iops,
            "mb_per_s": sample.bytes_per_s / 1e6,
        }
        weighted = [
            (iops, latency)
            for iops, latency in (
                (sample.read_iops, sample.read_latency_s),
                (sample.write_iops, sample.write_latency_s),
            )
            if iops > 0 and latency is not None
        ]
        if weighted:
            total = sum(w for w, _ in weighted)
            metrics["latency_ms_mean"] = sum(w * lat for w, lat in weighted) / total * 1e3
        for name, value in (
            ("latency_ms_p50", sample.latency_p50_s),
            ("latency_ms_p99", sample.latency_p99_s),
        ):
            if value is not None:
                metrics[name] = value * 1e3
        found.append(MeasuredPoint(job.name, settings, metrics))
    return found


# -- fitting -------------------------------------------------------------------------------
