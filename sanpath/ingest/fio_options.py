"""fio job options turned into a :class:`~sanpath.ingest.model.JobSpec`.

Shared by the job-file reader (:mod:`~sanpath.ingest.fio_job`) and the JSON-result reader
(:mod:`~sanpath.ingest.fio_json`, whose ``job options`` are the same strings). Values are read
as fio's ``parse.c`` reads them, but strictly: an unknown suffix is an error, where fio would
quietly multiply by one.

* Sizes: a decimal or ``0x`` integer with an optional suffix ``k m g t p`` (also ``kb``...,
  ``kib``...). With ``kb_base=1024`` (fio's default) ``k``/``kb`` are powers of 1024 and
  ``kib`` powers of 1000 (fio's compatibility mode, HOWTO ``kb_base``); ``kb_base=1000``
  swaps them.
* Times: an integer with an optional ``us``/``usec``, ``ms``/``msec``, ``s``, ``m`` (minutes),
  ``h``, ``d``. Without a unit ``runtime``, ``ramp_time`` are seconds (``is_seconds``) and
  ``thinktime`` is microseconds (``FIO_OPT_INT`` with ``is_time`` only, options.c).
* Per-direction values ``r,w,t`` (``bs``, ``bsrange``, ``bssplit``, ``rate_iops``,
  ``percentage_random``): a value not ended by a comma applies to the following directions;
  an empty one keeps the default (HOWTO ``blocksize``).
* ``bssplit``: ``size/percent`` entries separated by ``:``; an entry without a percentage, or
  with ``0``, shares what the others leave equally, in whole percent (``bssplit_ddir``). If the
  total stays below 100 fio's pick falls through to the entry with the largest share, so the
  rest is added to it (and a warning says so); above 100 is an error.
* ``bsrange=min-max``: fio draws ``min + max*U`` rounded down to a multiple of ``min``
  (``get_next_buflen``), uniform over the multiples; modelled as the mean-preserving mix of
  ``min`` and ``max`` at one half each.
* ``rate_iops``: fio paces each direction on its own and switches direction when one is
  ahead (``rate_ddir``), so a capped mixed job runs at the sum of its direction caps and its
  read share is ``r / (r + w)``; a job with an uncapped direction has no total cap.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, NamedTuple

from sanpath.ingest.model import JobSpec, bad_file
from sanpath.spec import ScenarioError


class Opt(NamedTuple):
    """One option as written: its value and where the value starts (1-based)."""

    name: str
    value: str | None
    line: int | None
    column: int | None


_RW = {
    "read": (1.0, False),
    "randread": (1.0, True),
    "write": (0.0, False),
    "randwrite": (0.0, True),
    "rw": (None, False),
    "readwrite": (None, False),
    "randrw": (None, True),
    "trim": (0.0, False),
    "randtrim": (0.0, True),
    "trimwrite": (0.0, False),
    "randtrimwrite": (0.0, True),
}
ALIASES = {
    "readwrite": "rw",
    "blocksize": "bs",
    "blocksize_range": "bsrange",
    "timeout": "runtime",
    "fileoffset": "offset",
}
HANDLED = {
    "name", "rw", "bs", "bsrange", "bssplit", "iodepth", "numjobs", "rwmixread", "rwmixwrite",
    "percentage_random", "random_distribution", "rate_iops", "rate_process", "thinktime",
    "ramp_time", "runtime", "size", "offset", "filename", "kb_base", "direct", "buffered",
}  # fmt: skip
NEUTRAL = {
    "description", "ioengine", "time_based", "group_reporting", "norandommap", "randrepeat",
    "randseed", "thread", "unit_base", "invalidate", "refill_buffers", "scramble_buffers",
    "clat_percentiles", "lat_percentiles", "slat_percentiles", "percentile_list",
    "gtod_reduce", "disable_lat", "disable_clat", "disable_slat", "disable_bw_measurement",
    "cpus_allowed", "cpus_allowed_policy", "cpumask", "iodepth_batch", "iodepth_batch_submit",
    "iodepth_batch_complete", "iodepth_batch_complete_min", "iodepth_batch_complete_max",
    "iodepth_low", "allow_mounted_write", "exitall", "write_bw_log", "write_lat_log",
    "write_iops_log", "log_avg_msec", "per_job_logs", "new_group", "fadvise_hint",
    "end_fsync", "create_on_open", "allrandrepeat", "random_generator", "lockmem",
    "significant_figures", "sig_figs", "hipri", "fixedbufs", "registerfiles", "sqthread_poll",
}  # fmt: skip
"""Options that do not change the load's shape as sanpath models it: accepted quietly."""

_SIZE = re.compile(r"(0x[0-9a-f]+|\d+)\s*([a-z%]*)", re.IGNORECASE)
_POW = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4, "p": 5}
_TIME = re.compile(r"(\d+)\s*([a-z]*)", re.IGNORECASE)
_TIME_UNITS = {"us": 1e-6, "usec": 1e-6, "ms": 1e-3, "msec": 1e-3, "s": 1.0, "m": 60.0}
_TIME_UNITS |= {"h": 3600.0, "d": 86400.0}
_DISTRIBUTIONS = ("random", "zipf", "pareto", "normal", "gauss", "zoned", "zoned_abs")


@dataclass
class Reader:
    """Reads option values of one job, raising located errors about ``source``."""

    source: str
    kb_base: int = 1024

    def fail(self, opt: Opt, message: str, offset: int = 0) -> Exception:
        column = None if opt.column is None else opt.column + offset
        return bad_file(self.source, opt.line, column, opt.name, message)

    def size(self, opt: Opt, text: str, offset: int = 0) -> int:
        """A byte count as fio reads one (``4k``, ``1m``, ``0x1000``)."""
        m = _SIZE.fullmatch(text.strip())
        suffix = m.group(2).lower() if m else ""
        iec = suffix.endswith("ib")
        unit = suffix[:-2] if iec else suffix[:-1] if suffix.endswith("b") else suffix
        if m is None or unit not in _POW or (suffix in ("b", "ib")):
            raise self.fail(
                opt,
                f"{text!r} is not a size: expected an integer with an optional suffix "
                "k, m, g, t, p (kb, kib, ...), e.g. 4k or 1m",
                offset,
            )
        base = {1024: 1000, 1000: 1024}[self.kb_base] if iec else self.kb_base
        return int(m.group(1), 0) * int(base ** _POW[unit])

    def time(self, opt: Opt, text: str, default_s: float) -> float:
        """Seconds; ``default_s`` is the unit of a bare number."""
        m = _TIME.fullmatch(text.strip())
        unit = m.group(2).lower() if m else ""
        if m is None or (unit and unit not in _TIME_UNITS):
            raise self.fail(
                opt,
                f"{text!r} is not a time: expected an integer with an optional unit "
                "us, ms, s, m (minutes), h or d, e.g. 500ms or 10s",
            )
        return int(m.group(1)) * (_TIME_UNITS[unit] if unit else default_s)

    def integer(self, opt: Opt, text: str, low: int, high: int | None = None) -> int:
        try:
            value = self.size(opt, text)
        except ScenarioError:
            raise self.fail(opt, f"{text!r} is not an integer") from None
        if value < low or (high is not None and value > high):
            span = f"{low} to {high}" if high is not None else f"at least {low}"
            raise self.fail(opt, f"{value} is out of range: expected {span}")
        return value


def per_direction(text: str) -> list[tuple[str | None, int]]:
    """``r,w,t`` → three (value or None for the default, offset in ``text``)."""
    parts: list[tuple[str, int]] = []
    start = 0
    for piece in text.split(","):
        parts.append((piece, start))
        start += len(piece) + 1
    out: list[tuple[str | None, int]] = [(p.strip() or None, o) for p, o in parts[:3]]
    while len(out) < 3:
        out.append(out[-1])
    return out


Mix = tuple[tuple[int, float], ...]


def _bssplit(reader: Reader, opt: Opt, text: str, offset: int) -> tuple[Mix, str | None]:
    entries: list[tuple[int, int | None]] = []
    pos = offset
    for entry in text.split(":"):
        if not entry:
            break
        size_text, _, perc_text = entry.partition("/")
        size = reader.size(opt, size_text, pos)
        perc: int | None = None
        if perc_text.strip():
            if not perc_text.strip().isdigit():
                raise reader.fail(
                    opt, f"{perc_text!r} is not a percentage", pos + len(size_text) + 1
                )
            perc = min(int(perc_text), 100) or None
        entries.append((size, perc))
        pos += len(entry) + 1
    given = sum(p for _, p in entries if p is not None)
    missing = sum(1 for _, p in entries if p is None)
    if given > 100:
        raise reader.fail(opt, f"percentages add to {given}, more than 100", offset)
    share = (100 - given) // missing if missing else 0
    percs = [p if p is not None else share for _, p in entries]
    if len(entries) == 1 and missing == 1:
        percs = [100]
    note = None
    total = sum(percs)
    if total < 100:
        top = max(range(len(percs)), key=lambda i: percs[i])
        percs[top] += 100 - total
        note = f"{opt.name}={text}: percentages add to {total}; the rest goes to the largest"
    weights: dict[int, float] = {}
    for (size, _), perc in zip(entries, percs, strict=True):
        weights[size] = weights.get(size, 0.0) + perc / 100.0
    return tuple((s, w) for s, w in weights.items() if w > 0), note


def _sizes(reader: Reader, found: dict[str, Opt], notes: list[str]) -> list[Mix]:
    mixes: list[Mix] = [((4096, 1.0),)] * 3
    if "bs" in found:
        opt = found["bs"]
        for d, (text, off) in enumerate(per_direction(opt.value or "")):
            if text is not None:
                mixes[d] = ((reader.size(opt, text, off), 1.0),)
    if "bsrange" in found:
        opt = found["bsrange"]
        for d, (text, off) in enumerate(per_direction(opt.value or "")):
            if text is None:
                continue
            m = re.fullmatch(r"([^-:]*)[-:](.*)", text)
            if m is None:
                raise reader.fail(opt, f"{text!r} is not a range: expected min-max", off)
            low, high = m.groups()
            a = reader.size(opt, low, off)
            b = reader.size(opt, high, off + len(low) + 1)
            a, b = min(a, b), max(a, b)
            mixes[d] = ((a, 1.0),) if a == b else ((a, 0.5), (b, 0.5))
    if "bssplit" in found:
        opt = found["bssplit"]
        for d, (text, off) in enumerate(per_direction(opt.value or "")):
            if text is not None:
                mixes[d], note = _bssplit(reader, opt, text, off)
                if note and note not in notes:
                    notes.append(note)
    return mixes


def access_of(
    reader: Reader, opt: Opt, text: str, notes: list[str], unsupported: list[str]
) -> dict[str, Any] | None:
    """The workload's ``access`` for fio's ``random_distribution`` (None: uniform).

    ``zipf:theta`` and ``pareto:h`` keep fio's parameter; ``zoned:a/s:...`` becomes
    ``zones: [[a, s], ...]``. A second, centring parameter, per-direction zones (the reads'
    are used), ``normal``/``gauss`` and ``zoned_abs`` have no counterpart: named in the
    warning, the rest of the job is kept.
    """
    name, _, rest = text.partition(":")
    offset = len(name) + 1
    if name == "random":
        return None
    if name in ("zipf", "pareto"):
        params = rest.split(":")
        try:
            value = float(params[0])
        except ValueError:
            raise reader.fail(opt, f"{params[0]!r} is not a number", offset) from None
        if name == "zipf" and not value > 0.0:
            raise reader.fail(opt, f"zipf theta {value:g} must be above 0", offset)
        if name == "pareto" and not 0.0 < value < 1.0:
            raise reader.fail(opt, f"pareto h {value:g} must be between 0 and 1", offset)
        if len(params) > 1:
            unsupported.append(f"random_distribution={text} (the centre {params[1]})")
        return {"dist": name, ("theta" if name == "zipf" else "h"): value}
    if name == "zoned":
        directions = rest.split(",")
        if len(directions) > 1 and any(d != directions[0] for d in directions[1:] if d):
            notes.append(f"random_distribution={text}: the read zones are used for every I/O")
        zones = []
        pos = offset
        for entry in directions[0].split(":"):
            access, slash, span = entry.partition("/")
            try:
                zone = [float(access), float(span)]
            except ValueError:
                zone = []
            if not slash or not zone or zone[0] < 0 or zone[1] <= 0:
                raise reader.fail(
                    opt, f"{entry!r} is not a zone: expected access%/span%, e.g. 60/10", pos
                )
            zones.append(zone)
            pos += len(entry) + 1
        for column, what in ((0, "access"), (1, "span")):
            total = sum(z[column] for z in zones)
            if abs(total - 100.0) > 1e-6:
                raise reader.fail(opt, f"zone {what} percentages add to {total:g}: not 100")
        return {"dist": "zoned", "zones": zones}
    unsupported.append(f"random_distribution={text} (modelled as uniform)")
    return None


def _fraction(reader: Reader, opt: Opt, text: str) -> float:
    return reader.integer(opt, text, 0, 100) / 100.0


def job_spec(name: str, options: list[Opt], source: str) -> tuple[JobSpec, list[str]]:
    """The job ``options`` describe (in order; a later one wins), and warnings about it."""
    found: dict[str, Opt] = {}
    unsupported: list[str] = []
    rwmix = 0.5
    for raw in options:
        opt = raw._replace(name=ALIASES.get(raw.name, raw.name))
        if opt.name in ("rwmixread", "rwmixwrite") and opt.value is not None:
            value = _fraction(Reader(source), opt, opt.value)
            rwmix = value if opt.name == "rwmixread" else 1.0 - value
        if opt.name in HANDLED:
            found[opt.name] = opt
        elif opt.name not in NEUTRAL:
            unsupported.append(opt.name if opt.value is None else f"{opt.name}={opt.value}")
    reader = Reader(source)
    if "kb_base" in found:
        opt = found["kb_base"]
        if opt.value not in ("1000", "1024"):
            raise reader.fail(opt, f"{opt.value!r}: expected 1000 or 1024")
        reader.kb_base = int(opt.value)
    notes: list[str] = []
    for key, good in (("direct", "1"), ("buffered", "0")):
        if key in found and (found[key].value or "1") != good:
            unsupported.append(f"{key}={found[key].value}")

    rw_opt = found.get("rw")
    rw_text = (rw_opt.value or "").strip() if rw_opt else "read"
    rw, _, modifier = rw_text.partition(":")
    if rw not in _RW:
        assert rw_opt is not None
        raise reader.fail(rw_opt, f"{rw!r} is not an I/O pattern: expected one of {', '.join(_RW)}")
    fraction, random = _RW[rw]
    if "trim" in rw or modifier:
        unsupported.append(f"rw={rw_text}")
        if "trim" in rw:
            notes.append(f"rw={rw_text}: trims are not modelled; the job is read as writes")
    read_fraction = rwmix if fraction is None else fraction

    random_fraction = 0.0
    perc = [1.0, 1.0, 1.0]
    if random:
        if "percentage_random" in found:
            opt = found["percentage_random"]
            for d, (text, _) in enumerate(per_direction(opt.value or "")):
                if text is not None:
                    perc[d] = _fraction(reader, opt, text)
        random_fraction = read_fraction * perc[0] + (1.0 - read_fraction) * perc[1]

    mixes = _sizes(reader, found, notes)
    if read_fraction >= 1.0:
        block_sizes, write_sizes = mixes[0], None
    elif read_fraction <= 0.0:
        block_sizes, write_sizes = mixes[1], None
    else:
        block_sizes = mixes[0]
        write_sizes = None if mixes[1] == mixes[0] else mixes[1]

    rate_iops: float | None = None
    if "rate_iops" in found:
        opt = found["rate_iops"]
        caps = [
            None if t is None else float(reader.integer(opt, t, 0))
            for t, _ in per_direction(opt.value or "")[:2]
        ]
        active = [d for d, f in ((0, read_fraction), (1, 1.0 - read_fraction)) if f > 0]
        if all(caps[d] for d in active):
            rate_iops = sum(caps[d] or 0.0 for d in active)
            if len(active) == 2:
                share = (caps[0] or 0.0) / rate_iops
                if abs(share - read_fraction) > 1e-9:
                    notes.append(
                        f"rate_iops={opt.value}: fio paces reads and writes apart, so the "
                        f"read share is {share:.3g}, not rwmixread's {read_fraction:.3g}"
                    )
                    read_fraction = share
        else:
            unsupported.append(f"rate_iops={opt.value} (a direction left uncapped)")

    poisson = False
    if "rate_process" in found:
        opt = found["rate_process"]
        if opt.value not in ("linear", "poisson"):
            raise reader.fail(opt, f"{opt.value!r}: expected linear or poisson")
        poisson = opt.value == "poisson"

    def number(key: str, low: int, default: int) -> int:
        opt = found.get(key)
        return default if opt is None else reader.integer(opt, opt.value or "", low)

    def seconds(key: str, default_s: float) -> float:
        opt = found.get(key)
        return 0.0 if opt is None else reader.time(opt, opt.value or "", default_s)

    def size(key: str) -> int | None:
        opt = found.get(key)
        if opt is None:
            return None
        if (opt.value or "").strip().endswith("%"):
            unsupported.append(f"{key}={opt.value}")
            return None
        return reader.size(opt, opt.value or "")

    distribution = "random"
    access: dict[str, Any] | None = None
    if "random_distribution" in found:
        opt = found["random_distribution"]
        distribution = (opt.value or "").strip()
        if distribution.split(":")[0].split("=")[0] not in _DISTRIBUTIONS:
            known = ", ".join(_DISTRIBUTIONS)
            raise reader.fail(opt, f"{distribution!r}: expected one of {known}")
        access = access_of(reader, opt, distribution, notes, unsupported)
    filenames: tuple[str, ...] = ()
    if "filename" in found:
        listed = found["filename"].value or ""
        names = re.split(r"(?<!\\):", listed)
        filenames = tuple(f.replace("\\:", ":") for f in names if f.strip())
    runtime = seconds("runtime", 1.0)
    spec = JobSpec(
        name=(found["name"].value or name) if "name" in found else name,
        read_fraction=read_fraction,
        random_fraction=random_fraction,
        block_sizes=block_sizes,
        write_block_sizes=write_sizes,
        iodepth=number("iodepth", 1, 1),
        numjobs=number("numjobs", 1, 1),
        rate_iops=rate_iops,
        poisson=poisson,
        thinktime_s=seconds("thinktime", 1e-6),
        ramp_time_s=seconds("ramp_time", 1.0),
        runtime_s=runtime or None,
        size=size("size"),
        offset=size("offset") or 0,
        filenames=filenames,
        random_distribution=distribution,
        access=access,
        percentage_random=(perc[0], perc[1]) if random else (0.0, 0.0),
        unsupported=tuple(unsupported),
        given=frozenset(ALIASES.get(opt.name, opt.name) for opt in options),
    )
    warnings = [f"{source}: job {spec.name}: {note}" for note in notes]
    if unsupported:
        warnings.append(
            f"{source}: job {spec.name}: options sanpath cannot model, left out: "
            + ", ".join(unsupported)
        )
    return spec, warnings
