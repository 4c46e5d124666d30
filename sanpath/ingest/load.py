"""Read measurement files of any supported format, and import them as a scenario.

:func:`load` tells the format of each file (:func:`detect`) and hands it to its reader,
imported by module name only when needed (a reader that is missing or still being written
breaks only its own format). :func:`import_files` is ``sanpath import``: read, pick the
interval, build workloads and measured points, validate, write.

Format detection, by extension and the first lines: ``.fio``/``.ini`` is a fio job file;
``.json`` holding ``"fio version"`` is fio JSON output, holding ``sysstat`` iostat's JSON
(``iostat -o JSON``); a ``(PDH-CSV 4.0)`` header is esxtop batch output when it names
``Physical Disk(`` or ``Physical Disk Adapter(``, perfmon when it names ``PhysicalDisk(`` or
``LogicalDisk(``; a ``Device`` or ``Device:`` header is iostat ``-x`` text, and
``# hostname;interval;timestamp`` is ``sadf -d`` output (iostat's reader).
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sanpath.formats import FORMATS, TRACE_FORMATS
from sanpath.ingest.interval import Chosen, choose
from sanpath.ingest.model import ADAPTER_PREFIX, Measured, bad_file
from sanpath.ingest.multipath import multipath_once
from sanpath.ingest.scenario import (
    assign,
    base_facts,
    compose,
    dump,
    parse_map,
    placeholder,
    validate,
)
from sanpath.ingest.text import checked_file
from sanpath.ingest.trace import ImportedTrace, TraceOptions, describe, import_trace
from sanpath.ingest.workload import Placement, Workload, from_jobs, from_samples, measured_points

READERS: dict[str, tuple[tuple[str, str], ...]] = {
    "perfmon": (("sanpath.ingest.perfmon", "read"),),
    "iostat": (("sanpath.ingest.iostat", "read"),),
    "iostat-json": (("sanpath.ingest.iostat_json", "read"), ("sanpath.ingest.iostat", "read")),
    "sadf": (("sanpath.ingest.iostat_sadf", "read"), ("sanpath.ingest.iostat", "read")),
    "esxtop": (("sanpath.ingest.esxtop", "read"),),
    "fio-json": (
        ("sanpath.ingest.fio_json", "read"),
        ("sanpath.ingest.fio", "read_json"),
        ("sanpath.ingest.fio", "read"),
    ),
    "fio-job": (
        ("sanpath.ingest.fio_job", "read"),
        ("sanpath.ingest.fio", "read_job"),
        ("sanpath.ingest.fio", "read"),
    ),
}
"""Reader modules and functions tried in order for each detected format."""


HEAD_CHARS = 65536
"""Characters read to tell a file's format (its first line is read whole, up to
:data:`HEADER_CHARS`: perfmon and esxtop name every counter in it)."""

HEADER_CHARS = 64 << 20
"""The longest first line read to tell a file's format (64 Mi characters)."""


def _head(path: Path) -> tuple[str, str]:
    """The first :data:`HEAD_CHARS` characters of a checked file, and its whole first line
    (decoded by its byte order mark; undecodable bytes replaced)."""
    from sanpath.ingest.text import encoding_of

    checked_file(path, limit=None)
    try:
        with path.open("rb") as raw:
            encoding = encoding_of(raw.read(4))
        with path.open("r", encoding=encoding, errors="replace", newline=None) as handle:
            first = handle.readline(HEADER_CHARS)
            handle.seek(0)
            head = handle.read(HEAD_CHARS)
    except OSError as exc:
        raise bad_file(str(path), None, None, "", f"cannot read: {exc.strerror or exc}") from None
    return head, first


def detect(path: str | Path) -> str:
    """The format of ``path`` (a key of :data:`READERS`); a located error when unknown."""
    path = Path(path)
    if path.suffix.lower() in (".fio", ".ini"):
        return "fio-job"
    head, first = _head(path)
    lines = [line.strip() for line in head.splitlines()[:50]]
    first = first.strip() or next((line for line in lines if line), "")
    if '"fio version"' in head:
        return "fio-json"
    if (path.suffix.lower() == ".json" or first.startswith("{")) and "sysstat" in head:
        return "iostat-json"
    if "PDH-CSV 4.0" in first:
        if "Physical Disk(" in first or "Physical Disk Adapter(" in first:
            return "esxtop"
        if "PhysicalDisk(" in first or "LogicalDisk(" in first:
            return "perfmon"
    if any(line.lstrip("# ").startswith("hostname;interval;timestamp") for line in lines):
        return "sadf"
    if any(
        line.startswith(("Device:", "Device ", "Device\t")) or line == "Device" for line in lines
    ):
        return "iostat"
    from sanpath.ingest.trace import detect_trace

    trace = detect_trace(lines)
    if trace is not None:
        return trace
    raise bad_file(
        str(path),
        1,
        1,
        "--format",
        "cannot tell the format from the extension or the first line; give --format, one "
        "of " + ", ".join(FORMATS),
    )


def _reader(fmt: str, source: str) -> Callable[[Path], Measured]:
    tried = []
    for module_name, function in READERS[fmt]:
        try:
            module = importlib.import_module(module_name)
        except ImportError:
            tried.append(module_name)
            continue
        reader = getattr(module, function, None)
        if callable(reader):
            return reader  # type: ignore[no-any-return]
        tried.append(f"{module_name}.{function}")
    raise bad_file(
        source,
        None,
        None,
        "--format",
        f"no reader for {fmt} is installed (tried {', '.join(tried)})",
    )


Inputs = Sequence[str | Path | Measured] | str | Path | Measured


def load(paths: Inputs, format: str = "auto") -> Measured:
    """Read one or several files into one :class:`Measured`.

    A :class:`Measured` given among ``paths`` is taken as already read.

    ``format`` is ``auto`` (detect each file) or one of :data:`~sanpath.formats.FORMATS`.
    Several files are read side by side: their devices are concatenated (a device name seen
    in an earlier file is prefixed with its file's name), their intervals line up by time
    from each file's first sample.
    """
    if isinstance(paths, str | Path | Measured):
        paths = [paths]
    if format != "auto" and format not in FORMATS:
        raise bad_file(
            "--format",
            None,
            None,
            "--format",
            f"unknown format {format!r}: expected auto or one of " + ", ".join(FORMATS),
        )
    parts = []
    for path in paths:
        if isinstance(path, Measured):
            parts.append(path)
            continue
        checked_file(path, limit=None)  # a regular file (read whole or streamed by its reader)
        fmt = detect(path) if format == "auto" else format
        if format == "iostat":
            fmt = _iostat_kind(path)
        if fmt in TRACE_FORMATS:
            raise bad_file(
                str(path),
                None,
                None,
                "--format",
                f"a block trace ({fmt}): sanpath import writes a scenario that replays it "
                "(sanpath.ingest.import_files); sanpath.traces.summarize reads its figures",
            )
        parts.append(_reader(fmt, str(path))(Path(path)))
    if len(parts) == 1:
        return parts[0]
    return _concatenate(parts)


def _iostat_kind(path: str | Path) -> str:
    """``--format iostat``: text, JSON or sadf, as the file shows."""
    try:
        kind = detect(path)
    except ValueError:
        return "iostat"
    return kind if kind in ("iostat-json", "sadf") else "iostat"


def _concatenate(parts: Sequence[Measured]) -> Measured:
    samples, jobs, columns, warnings = [], [], {}, []
    seen: set[str] = set()
    for part in parts:
        stem = Path(part.source).stem
        rename = {d: (f"{stem}:{d}" if d in seen else d) for d in part.devices}
        seen.update(rename.values())
        samples += [dataclasses.replace(s, device=rename[s.device]) for s in part.samples]
        jobs += list(part.jobs)
        columns.update({k: f"{v} ({part.source})" for k, v in part.columns.items()})
        warnings += [f"{part.source}: {w}" for w in part.warnings]
    return Measured(
        source=", ".join(p.source for p in parts),
        format="+".join(dict.fromkeys(p.format for p in parts)),
        samples=tuple(samples),
        jobs=tuple(jobs),
        columns=columns,
        warnings=tuple(warnings),
    )


@dataclass(frozen=True)
class Imported:
    """What ``sanpath import`` wrote: the file, and a summary for the command line."""

    path: Path
    measured: Measured
    chosen: Chosen | None
    workloads: tuple[Workload, ...]
    notes: tuple[str, ...]
    text: str


def import_scenario(
    paths: Inputs,
    *,
    out: str | Path,
    format: str = "auto",
    into: str | Path | None = None,
    interval: str | None = None,
    map: Sequence[str] = (),
    load_kind: str = "open",
    force: bool = False,
    trace: TraceOptions | None = None,
) -> Imported | ImportedTrace:
    """Read ``paths`` and write the scenario ``out`` (see :func:`import_files`)."""
    from sanpath.files import OutputError, check_output, write_text

    if load_kind not in ("open", "closed"):
        raise ValueError(f"--load {load_kind!r}: expected open or closed")
    inputs = [paths] if isinstance(paths, str | Path | Measured) else list(paths)
    target = Path(out)
    for given in [*inputs, *([into] if into is not None else [])]:
        if isinstance(given, Measured):
            continue
        if target.is_file() and Path(given).exists() and target.samefile(given):
            raise OutputError(f"{target}: is one of the inputs; give another --out")
    target = check_output(target, (".yaml", ".yml"), "imported scenario", force=force)
    traced = _trace_input(inputs, format)
    if traced is not None:
        if load_kind == "closed" and (trace is None or trace.outstanding is None):
            raise bad_file(
                str(traced[0]),
                None,
                None,
                "--load",
                "a trace replays closed loop with --outstanding N (I/Os in flight per LUN)",
            )
        return import_trace(
            traced[0],
            traced[1],
            out=target,
            into=into,
            interval=interval,
            map=map,
            options=trace or TraceOptions(),
            force=force,
        )
    interval = interval or "peak-iops"
    mapping = parse_map(map)
    measured = _disks_only(load(inputs, format))
    if not mapping:
        measured = multipath_once(measured)
    chosen = choose(measured, interval) if measured.samples else None
    use_jobs = bool(measured.jobs)
    devices = (
        [j.name for j in measured.jobs] if use_jobs else list(chosen.samples if chosen else [])
    )
    if not devices:
        raise bad_file(measured.source, None, None, "", "the file holds no devices or jobs")
    if into is not None:
        data, groups, placement = base_facts(into)
        luns, notes = assign(devices, mapping, groups, str(into))
    else:
        luns, notes = assign(devices, mapping, None, None)
        sizes = {j.name: j.size for j in measured.jobs if j.size}
        data = placeholder(luns, sizes, target.stem)
        placement = Placement(hosts=1, lun_counts=dict.fromkeys(luns.values(), 1))
    if use_jobs:
        workloads = from_jobs(measured.jobs, luns, placement)
    else:
        assert chosen is not None
        try:
            workloads = from_samples(chosen.samples, luns, placement, load_kind)
        except ValueError as exc:
            raise bad_file(measured.source, None, None, "--load", str(exc)) from None
    if not workloads:
        raise bad_file(measured.source, None, None, "", "no device with I/O to import")
    if chosen is not None:
        mapped = [s for d, s in chosen.samples.items() if d in luns] or list(
            chosen.samples.values()
        )
        points = measured_points(mapped, "closed" if use_jobs else load_kind)
    else:
        points = []
    data["name"] = target.stem
    data = compose(measured, chosen, workloads, points, data, notes)
    text = dump(data)
    validate(text, target)
    write_text(target, text, replace=force)
    return Imported(target, measured, chosen, tuple(workloads), tuple(notes), text)


def import_files(
    paths: Inputs,
    *,
    format: str = "auto",
    into: str | Path | None = None,
    interval: str | None = None,
    map: Sequence[str] = (),
    load_kind: str = "open",
    out: str | Path,
    force: bool = False,
    trace: TraceOptions | None = None,
) -> Path:
    """Import measurement files as a scenario written to ``out``; returns its path.

    Parameters
    ----------
    paths
        Measurement files (perfmon, iostat, esxtop CSV/text, fio JSON or job files), or one
        block trace (:data:`~sanpath.formats.TRACE_FORMATS`), or files already read
        (:class:`~sanpath.ingest.model.Measured`).
    format
        ``auto`` or one of :data:`~sanpath.formats.FORMATS`.
    into
        A base scenario whose topology and comments are kept (else a placeholder topology).
    interval
        ``peak-iops`` (the default for counters), ``peak-mb``, ``mean`` (the default for a
        trace: all of it) or ``START..END`` (seconds from the first sample or record).
    map
        ``DEVICE=LUN`` entries (else devices map to LUN groups in order).
    load_kind
        ``open`` (rate = measured IOPS) or ``closed`` (outstanding from the queue length).
    out, force
        The scenario to write; an existing file is overwritten only with ``force``.
    trace
        A trace's replay: ``speed``, ``outstanding`` (closed loop), ``csv`` columns and time
        unit (:class:`~sanpath.ingest.trace.TraceOptions`).

    Raises
    ------
    ScenarioError
        Located: an unreadable or unknown file, an empty interval, a bad ``--map``, a
        scenario that does not validate (nothing is written).
    OutputError
        ``out`` cannot be written, or exists without ``force``.
    """
    return import_scenario(
        paths,
        out=out,
        format=format,
        into=into,
        interval=interval,
        map=map,
        load_kind=load_kind,
        force=force,
        trace=trace,
    ).path


def _trace_input(inputs: Sequence[str | Path | Measured], format: str) -> tuple[Path, str] | None:
    """(path, format) when the input is a block trace; a located error for a trace among
    other files."""
    kinds: list[str | None] = []
    for given in inputs:
        if isinstance(given, Measured) or not Path(given).is_file():
            kinds.append(None)
            continue
        fmt = format if format != "auto" else detect(given)
        kinds.append(fmt if fmt in TRACE_FORMATS else None)
    traces = [(Path(str(g)), k) for g, k in zip(inputs, kinds, strict=True) if k is not None]
    if not traces:
        return None
    if len(inputs) > 1:
        raise bad_file(
            str(traces[0][0]), None, None, "", "import one block trace at a time, on its own"
        )
    return traces[0]


def summary(imported: Imported | ImportedTrace) -> dict[str, Any]:
    """Devices, interval and workloads of an import, for the command line."""
    if isinstance(imported, ImportedTrace):
        return {
            "written": str(imported.path),
            "devices": list(imported.summary.per_device),
            "interval": imported.span,
            "workloads": [imported.workload.data["name"]],
            "warnings": list(imported.notes),
            "trace": describe(imported.summary),
        }
    return {
        "written": str(imported.path),
        "devices": [d for w in imported.workloads for d in w.devices],
        "interval": imported.chosen.description if imported.chosen else "fio job options",
        "workloads": [w.data["name"] for w in imported.workloads],
        "warnings": list(imported.measured.warnings) + list(imported.notes),
    }


def _disks_only(measured: Measured) -> Measured:
    """Leave out adapters: their load is the sum of their disks', so as workloads they would
    count it twice (they are named in a warning)."""
    adapters = [d for d in measured.devices if d.startswith(ADAPTER_PREFIX)]
    if not adapters:
        return measured
    return dataclasses.replace(
        measured,
        samples=tuple(s for s in measured.samples if not s.device.startswith(ADAPTER_PREFIX)),
        warnings=(
            *measured.warnings,
            "adapter counters left out of the workloads (their load is their disks'): "
            + ", ".join(adapters),
        ),
    )
