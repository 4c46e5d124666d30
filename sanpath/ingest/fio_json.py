"""fio results, ``--output-format=json`` or ``json+``: one sample and one job per job.

Key names and units are fio's (``stat.c``, ``show_thread_status_json`` and
``add_ddir_status_json``): the top level holds ``fio version``, ``global options`` and
``jobs``; each job ``jobname``, ``elapsed`` (s), ``job options`` (strings as written) and a
``read`` and a ``write`` object with ``io_bytes``, ``bw_bytes`` (bytes/s; ``bw`` is KiB/s,
the only figure in older fio), ``iops``, ``runtime`` (ms) and ``slat_ns``, ``clat_ns``,
``lat_ns`` (``mean`` and a ``percentile`` map, in ns; fio 2 wrote ``clat``/``lat`` in µs).
json+ adds ``bins`` to the latency objects: ignored.

Each job gives one :class:`Sample` (the device is the job name, the whole run one interval
of ``runtime`` seconds; latency is ``lat_ns``, submission to completion, where fio measured
it, else ``clat_ns``) and one :class:`JobSpec` from its options over the global ones.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sanpath.ingest.fio_options import ALIASES, Opt, job_spec
from sanpath.ingest.model import JobSpec, Measured, Sample, bad_file
from sanpath.ingest.text import read_text
from sanpath.spec import ScenarioError

_DECODER = json.JSONDecoder()


def _line_col(text: str, index: int) -> tuple[int, int]:
    return text.count("\n", 0, index) + 1, index - text.rfind("\n", 0, index)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i


def locate(text: str, path: Sequence[str | int], start: int = 0) -> tuple[int, int]:
    """Line and column (1-based) of the deepest key (or list item) of ``path`` in ``text``."""
    i = _skip(text, start)
    best = i
    for part in path:
        found = None
        if i < len(text) and text[i] == "{" and isinstance(part, str):
            i = _skip(text, i + 1)
            while i < len(text) and text[i] == '"':
                key, end = _DECODER.raw_decode(text, i)
                value = _skip(text, _skip(text, end) + 1)
                if key == part:
                    found = (i, value)
                    break
                i = _skip(text, _DECODER.raw_decode(text, value)[1])
                i = _skip(text, i + 1) if i < len(text) and text[i] == "," else i
        elif i < len(text) and text[i] == "[" and isinstance(part, int):
            i = _skip(text, i + 1)
            for _ in range(part):
                if text[i] == "]":
                    break
                i = _skip(text, _DECODER.raw_decode(text, i)[1])
                i = _skip(text, i + 1) if text[i] == "," else i
            else:
                found = (i, i) if text[i] != "]" else None
        if found is None:
            break
        best, i = found
    return _line_col(text, best)


class _Doc:
    """The JSON text and its data, raising errors located at key paths."""

    def __init__(self, text: str, source: str, start: int) -> None:
        self.text, self.source, self.start = text, source, start

    def fail(self, path: Sequence[str | int], message: str) -> ScenarioError:
        line, column = locate(self.text, path, self.start)
        where = ".".join(str(p) if isinstance(p, str) else f"[{p}]" for p in path)
        return bad_file(self.source, line, column, where.replace(".[", "["), message)

    def number(self, obj: Mapping[str, Any], path: Sequence[str | int], key: str) -> float:
        value = obj.get(key)
        if isinstance(value, bool) or not isinstance(value, int | float):
            what = "missing" if value is None else f"{value!r} is not a number"
            raise self.fail([*path, key], f"{what}: expected a number")
        if not math.isfinite(value) or value < 0:
            raise self.fail([*path, key], f"{value}: expected a finite number >= 0")
        return float(value)


def read(path: str | Path) -> Measured:
    """The jobs of a fio JSON (or json+) result."""
    return parse(read_text(path), str(path))


def parse(text: str, source: str = "<fio json>") -> Measured:
    """The jobs of fio JSON ``text``; lines fio printed before the JSON are skipped."""
    warnings: list[str] = []
    start = 0
    while start < len(text) and not text[start:].lstrip(" \t").startswith("{"):
        end = text.find("\n", start)
        start = len(text) if end < 0 else end + 1
    if start >= len(text):
        raise bad_file(source, 1, 1, "", "no JSON object: is this fio --output-format=json?")
    if start:
        skipped = text[:start].strip().splitlines()
        warnings.append(f"{source}: skipped {len(skipped)} line(s) before the JSON")
    try:
        data, _ = _DECODER.raw_decode(text, _skip(text, start))
    except json.JSONDecodeError as exc:
        raise bad_file(source, exc.lineno, exc.colno, "", f"not JSON: {exc.msg}") from None
    doc = _Doc(text, source, start)
    if not isinstance(data, dict):
        raise doc.fail([], "expected a JSON object with a 'jobs' list")
    jobs = data.get("jobs")
    if not isinstance(jobs, list) or not jobs:
        what = "missing" if jobs is None else "not a non-empty list"
        raise doc.fail(["jobs"], f"'jobs' is {what}: is this fio --output-format=json?")
    common = data.get("global options", {})
    if not isinstance(common, dict):
        raise doc.fail(["global options"], "expected an object of option: value")
    samples: list[Sample] = []
    specs: list[JobSpec] = []
    names: dict[str, int] = {}
    for index, job in enumerate(jobs):
        at: list[str | int] = ["jobs", index]
        if not isinstance(job, dict):
            raise doc.fail(at, "expected a job object")
        name = job.get("jobname")
        if not isinstance(name, str) or not name:
            raise doc.fail([*at, "jobname"], "missing or empty: expected the job's name")
        names[name] = names.get(name, 0) + 1
        device = name if names[name] == 1 else f"{name}.{names[name]}"
        samples.append(_sample(doc, job, at, device))
        spec, notes = _spec(doc, common, job, at, device)
        specs.append(spec)
        warnings.extend(notes)
    columns = {
        "read_iops": "jobs[].read.iops",
        "write_iops": "jobs[].write.iops",
        "read_bytes_per_s": "jobs[].read.bw_bytes (or bw KiB/s x 1024)",
        "write_bytes_per_s": "jobs[].write.bw_bytes (or bw KiB/s x 1024)",
        "read_latency_s": "jobs[].read.lat_ns.mean (else clat_ns.mean) / 1e9",
        "write_latency_s": "jobs[].write.lat_ns.mean (else clat_ns.mean) / 1e9",
        "seconds": "jobs[].read/write.runtime / 1000",
        "jobs": "global options + jobs[].job options",
    }
    return Measured(source, "fio-json", tuple(samples), tuple(specs), columns, tuple(warnings))


_PERCENTILES = ("50.000000", "99.000000")
"""The keys of fio's ``percentile`` map for the median and the 99th percentile."""


def _direction(
    doc: _Doc, job: Mapping[str, Any], at: list[str | int], key: str
) -> tuple[float, float, float | None, float, tuple[float | None, ...]]:
    """IOPS, bytes/s, mean latency (s), runtime (s) and the latency's median and 99th
    percentile (s, None where fio reports none) of ``job[key]``."""
    obj = job.get(key)
    if not isinstance(obj, dict):
        if "mixed" in job:
            raise doc.fail([*at, "mixed"], "unified_rw_reporting: reads and writes not apart")
        raise doc.fail([*at, key], "missing: expected the job's read and write objects")
    path = [*at, key]
    iops = doc.number(obj, path, "iops")
    if "bw_bytes" in obj:
        rate = doc.number(obj, path, "bw_bytes")
    else:
        rate = doc.number(obj, path, "bw") * 1024.0
    runtime = doc.number(obj, path, "runtime") / 1000.0
    latency = None
    percentiles: tuple[float | None, ...] = (None, None)
    for name, scale in (("lat_ns", 1e-9), ("clat_ns", 1e-9), ("lat", 1e-6), ("clat", 1e-6)):
        lat = obj.get(name)
        if isinstance(lat, dict) and (lat.get("N", 1) or 0) > 0 and "mean" in lat:
            latency = doc.number(lat, [*path, name], "mean") * scale
            table = lat.get("percentile")
            if isinstance(table, dict):
                at_p = [*path, name, "percentile"]
                percentiles = tuple(
                    doc.number(table, at_p, p) * scale if p in table else None for p in _PERCENTILES
                )
            break
    if iops <= 0:
        return iops, rate, None, runtime, (None, None)
    return iops, rate, latency, runtime, percentiles


def _sample(doc: _Doc, job: Mapping[str, Any], at: list[str | int], device: str) -> Sample:
    r_iops, r_rate, r_lat, r_time, r_pct = _direction(doc, job, at, "read")
    w_iops, w_rate, w_lat, w_time, w_pct = _direction(doc, job, at, "write")
    p50, p99 = r_pct if r_iops >= w_iops else w_pct
    seconds = max(r_time, w_time)
    if seconds <= 0:
        elapsed = job.get("elapsed")
        if not isinstance(elapsed, int | float) or elapsed <= 0:
            raise doc.fail([*at, "read", "runtime"], "the job did no reads or writes")
        seconds = float(elapsed)
    return Sample(
        device=device,
        start=0.0,
        seconds=seconds,
        read_iops=r_iops,
        write_iops=w_iops,
        read_bytes_per_s=r_rate,
        write_bytes_per_s=w_rate,
        read_latency_s=r_lat,
        write_latency_s=w_lat,
        latency_p50_s=p50,
        latency_p99_s=p99,
    )


def _spec(
    doc: _Doc,
    common: Mapping[str, Any],
    job: Mapping[str, Any],
    at: list[str | int],
    name: str,
) -> tuple[JobSpec, list[str]]:
    own = job.get("job options", {})
    if not isinstance(own, dict):
        raise doc.fail([*at, "job options"], "expected an object of option: value")
    scopes: list[tuple[list[str | int], Mapping[str, Any]]] = [
        (["global options"], common),
        ([*at, "job options"], own),
    ]
    options = [
        Opt(key, None if value is None else str(value), None, None)
        for _, scope in scopes
        for key, value in scope.items()
    ]
    try:
        return job_spec(name, options, doc.source)
    except ScenarioError as exc:
        problem = exc.problems[0]
        for path, scope in reversed(scopes):
            for key in scope:
                if ALIASES.get(key, key) == problem.path:
                    located = doc.fail([*path, key], problem.message).problems[0]
                    raise ScenarioError([located]) from None
        raise
