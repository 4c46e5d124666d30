"""Two runs side by side: what changed between a run and its what-if, and whether it is real.

:func:`diff_results` works on the dicts a run writes (``sanpath run --json``,
:meth:`RunResult.to_dict <sanpath.results.RunResult.to_dict>`), so it compares results read
back from files as well as results in memory; :meth:`RunResult.diff
<sanpath.results.RunResult.diff>` calls it. It compares

* the headline figures: ``iops``, ``mb_per_s``, ``read_iops``, ``write_iops``, the latency
  ``mean, p50, p90, p99, p99_9, max``, the read and write mean latencies and the QUEUE FULL
  count;
* the latency breakdown by layer (``breakdown_ms``, in the order of ``LAYERS``);
* every station's utilization;
* every host, workload and LUN (the ``hosts``, ``workloads`` and ``luns`` entries of a result)
  when both runs have them: each number of their figures, nested ones (``latency_ms``) as
  ``latency_ms.p99``. A section that only one run has is named in :attr:`RunDiff.skipped`.

Whether a change is real is read from the runs' own 95% intervals: a change is
*significant* when the two intervals do not overlap, *within the intervals* when they do,
and has *no interval* where a run reports none (every figure except IOPS and mean latency,
unless a host, workload or LUN entry carries its own ``ci95``). Overlapping intervals do not
prove that nothing changed; they say that these runs cannot tell.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from sanpath.readable import number, percent
from sanpath.results.station import LAYERS

if TYPE_CHECKING:
    import pandas as pd

SIGNIFICANT = "significant"
"""The two 95% intervals do not overlap."""
OVERLAP = "within the intervals"
"""The two 95% intervals overlap: these runs cannot tell the change from noise."""
NO_INTERVAL = "no interval"
"""At least one run gives no interval for this figure."""
ONLY_IN_A = "only in A"
ONLY_IN_B = "only in B"

HEADLINE = (
    *("iops", "mb_per_s", "read_iops", "write_iops"),
    *(f"latency_ms.{key}" for key in ("mean", "p50", "p90", "p99", "p99_9", "max")),
    *("read_latency_ms_mean", "write_latency_ms_mean", "counters.qfull"),
)
"""Headline figures compared (dotted places in a result); a figure's interval is the entry
of ``ci95`` named like it (``latency_ms_mean``)."""

GROUP_SECTIONS = ("hosts", "host_groups", "workloads", "luns")
"""Per-host (and per host group), per-workload and per-LUN entries compared when both results
have them."""

GROUP_TEXT = ("iops", "mb_per_s", "latency_ms.mean", "latency_ms.p99", "qfull")
"""The figures of each host, workload and LUN the text shows (every figure with ``full``)."""

REQUIRED = ("iops", "mb_per_s", "latency_ms", "ci95", "breakdown_ms", "stations")
"""Keys every sanpath run result has (what :func:`check_result` asks for)."""

Interval = tuple[float, float]


class NotAResultError(ValueError):
    """A mapping that is not a sanpath run result."""


def check_result(data: Any) -> Mapping[str, Any]:
    """``data`` if it looks like a run result (``sanpath run --json``), else NotAResultError."""
    if not isinstance(data, Mapping):
        kind = "a list" if isinstance(data, list) else type(data).__name__
        raise NotAResultError(f"not a sanpath run result: the JSON holds {kind}, not an object")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        hint = " (it looks like a sweep table)" if "rows" in data and "keys" in data else ""
        if "findings" in data and not hint:
            hint = " (it looks like a sanpath check report)"
        raise NotAResultError(
            f"not a sanpath run result{hint}: it has no {', '.join(repr(k) for k in missing)}; "
            "sanpath diff compares what `sanpath run FILE --json` writes"
        )
    if not isinstance(data["latency_ms"], Mapping) or not isinstance(data["ci95"], Mapping):
        raise NotAResultError("not a sanpath run result: 'latency_ms' and 'ci95' must be objects")
    return data


def _number(value: Any) -> float | None:
    """A finite float, or None (JSON null, NaN, text, booleans)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _interval(value: Any) -> Interval | None:
    """A ``[lo, hi]`` pair of finite numbers, or None."""
    if not isinstance(value, Sequence) or isinstance(value, str) or len(value) != 2:
        return None
    lo, hi = _number(value[0]), _number(value[1])
    if lo is None or hi is None:
        return None
    return (lo, hi) if lo <= hi else (hi, lo)


def intervals_overlap(a: Interval | None, b: Interval | None) -> bool | None:
    """Whether two intervals share a point; None when either is missing."""
    if a is None or b is None:
        return None
    return a[0] <= b[1] and b[0] <= a[1]


def significance(a: Interval | None, b: Interval | None) -> str:
    """:data:`SIGNIFICANT`, :data:`OVERLAP` or :data:`NO_INTERVAL` for two 95% intervals."""
    if (overlap := intervals_overlap(a, b)) is None:
        return NO_INTERVAL
    return OVERLAP if overlap else SIGNIFICANT


@dataclass(frozen=True)
class Change:
    """One figure in both runs.

    ``section`` is ``headline``, ``breakdown_ms``, ``utilization``, ``hosts``, ``workloads``
    or ``luns``; ``item`` the layer, station, host, workload or LUN ("" for headline
    figures); ``metric`` the figure (dotted when nested: ``latency_ms.p99``).
    """

    section: str
    item: str
    metric: str
    a: float | None
    b: float | None
    a_ci: Interval | None = None
    b_ci: Interval | None = None

    @property
    def change(self) -> float | None:
        """``b - a`` (None when either is missing)."""
        return None if self.a is None or self.b is None else self.b - self.a

    @property
    def relative(self) -> float | None:
        """``(b - a) / |a|`` (None when either is missing or ``a`` is 0)."""
        if self.a is None or self.b is None or self.a == 0:
            return None
        return (self.b - self.a) / abs(self.a)

    @property
    def significance(self) -> str:
        """Whether the change is outside the runs' 95% intervals (see the module text)."""
        if self.a is None:
            return ONLY_IN_B
        if self.b is None:
            return ONLY_IN_A
        return significance(self.a_ci, self.b_ci)

    @property
    def changed(self) -> bool:
        """True unless both values are present and equal (to 1 part in 10^9, so that a sum
        that differs only in its last bits counts as equal)."""
        if self.a is None or self.b is None:
            return self.a is not self.b
        return not math.isclose(self.a, self.b, rel_tol=1e-9, abs_tol=1e-12)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict."""
        return {
            "section": self.section,
            "item": self.item,
            "metric": self.metric,
            "a": self.a,
            "b": self.b,
            "change": self.change,
            "relative_change": self.relative,
            "a_ci95": list(self.a_ci) if self.a_ci else None,
            "b_ci95": list(self.b_ci) if self.b_ci else None,
            "significance": self.significance,
        }


def _get(data: Mapping[str, Any], dotted: str) -> Any:
    node: Any = data
    for part in dotted.split("."):
        if not isinstance(node, Mapping) or part not in node:
            return None
        node = node[part]
    return node


def _run_info(data: Mapping[str, Any]) -> dict[str, Any]:
    """What a run was: its name, seed, replicate and the overrides it was run with."""
    overrides = data.get("overrides")
    return {
        "name": data.get("name"),
        "seed": data.get("seed"),
        "replicate": data.get("replicate"),
        "ios": data.get("ios"),
        "overrides": dict(overrides) if isinstance(overrides, Mapping) else None,
        "steady": data.get("steady"),
    }


def _flat_figures(entry: Mapping[str, Any]) -> dict[str, float | None]:
    """The numbers of a host, workload or LUN entry, nested ones as ``outer.inner``."""
    out: dict[str, float | None] = {}
    for key, value in entry.items():
        if key == "ci95":
            continue
        if isinstance(value, Mapping):
            for inner, v in value.items():
                if not isinstance(v, Mapping | list | str | bool):
                    out[f"{key}.{inner}"] = _number(v)
        elif value is None or not isinstance(value, Mapping | list | str | bool):
            out[key] = _number(value)
    return out


def _group_ci(entry: Mapping[str, Any], metric: str) -> Interval | None:
    """A group entry's own interval for ``metric`` (``ci95.iops``, ``ci95.latency_ms_mean``)."""
    ci = entry.get("ci95")
    if not isinstance(ci, Mapping):
        return None
    return _interval(ci.get(metric.replace(".", "_")))


def _union(first: Iterable[str], second: Iterable[str]) -> list[str]:
    """Names of both, in the first's order, then those only in the second."""
    names = list(dict.fromkeys(first))
    names += [n for n in dict.fromkeys(second) if n not in names]
    return names


def _headline(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    out = []
    for place in HEADLINE:
        va, vb = _number(_get(a, place)), _number(_get(b, place))
        if va is None and vb is None:
            continue  # null on both sides (no writes, say): nothing to compare
        a_ci = _interval(a["ci95"].get(place.replace(".", "_")))
        b_ci = _interval(b["ci95"].get(place.replace(".", "_")))
        out.append(Change("headline", "", place, va, vb, a_ci, b_ci))
    return out


def _breakdown(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    ba, bb = a.get("breakdown_ms") or {}, b.get("breakdown_ms") or {}
    layers = [x for x in LAYERS if x in ba or x in bb]
    layers += [x for x in _union(ba, bb) if x not in layers]
    changes = [
        Change("breakdown_ms", x, "ms", _number(ba.get(x)), _number(bb.get(x))) for x in layers
    ]
    return [c for c in changes if c.a is not None or c.b is not None]


def _stations(data: Mapping[str, Any]) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for st in data.get("stations") or []:
        if isinstance(st, Mapping) and "name" in st:
            out[str(st["name"])] = _number(st.get("utilization"))
    return out


def _utilization(a: Mapping[str, Any], b: Mapping[str, Any]) -> list[Change]:
    sa, sb = _stations(a), _stations(b)
    changes = [
        Change("utilization", n, "utilization", sa.get(n), sb.get(n)) for n in _union(sa, sb)
    ]
    # unlimited stations (no utilization) on both sides: nothing to compare
    return [c for c in changes if c.a is not None or c.b is not None]


def _groups(section: str, ga: Mapping[str, Any], gb: Mapping[str, Any]) -> list[Change]:
    out = []
    for name in _union(ga, gb):
        ea = ga.get(name) if isinstance(ga.get(name), Mapping) else None
        eb = gb.get(name) if isinstance(gb.get(name), Mapping) else None
        fa = _flat_figures(ea) if ea is not None else {}
        fb = _flat_figures(eb) if eb is not None else {}
        for metric in _union(fa, fb):
            va = fa.get(metric) if ea is not None else None
            vb = fb.get(metric) if eb is not None else None
            if va is None and vb is None:
                continue  # null on both sides (no writes, say): nothing to compare
            a_ci = _group_ci(ea, metric) if ea is not None else None
            b_ci = _group_ci(eb, metric) if eb is not None else None
            out.append(Change(section, str(name), metric, va, vb, a_ci, b_ci))
    return out


@dataclass(frozen=True)
class RunDiff:
    """Run B against run A, figure by figure (see the module text).

    Attributes
    ----------
    labels
        What to call the two runs (``sanpath diff``: the file names; by default A and B).
    runs
        ``name``, ``seed``, ``replicate``, ``ios``, ``overrides`` and ``steady`` of each run.
    changes
        Every figure compared, section by section (:attr:`sections`).
    skipped
        Sections only one run has (``"hosts: only in B"``), which are not compared.
    """

    labels: tuple[str, str]
    runs: tuple[dict[str, Any], dict[str, Any]]
    changes: tuple[Change, ...]
    skipped: tuple[str, ...] = ()
    sections: tuple[str, ...] = field(default=("headline", "breakdown_ms", "utilization"))
    """The sections compared, in order."""

    def section(self, name: str) -> list[Change]:
        """The changes of one section (``headline``, ``breakdown_ms``, ``hosts``, ...)."""
        return [c for c in self.changes if c.section == name]

    def get(self, metric: str, item: str = "", section: str | None = None) -> Change:
        """The change of ``metric`` (of ``item``; headline figures have item "")."""
        for c in self.changes:
            if c.metric == metric and c.item == item and section in (None, c.section):
                return c
        raise KeyError(f"no change of {metric!r} for {item!r} in this diff")

    def significant(self) -> list[Change]:
        """The changes outside both runs' 95% intervals."""
        return [c for c in self.changes if c.significance == SIGNIFICANT]

    def setup_changes(self) -> dict[str, dict[str, Any]]:
        """What differs in how the runs were made: ``name``, ``seed``, ``replicate`` and each
        override (``overrides.<dotted key>``), as ``{"a": ..., "b": ...}``; a side that did
        not set an override is left out."""
        a, b = self.runs
        out: dict[str, dict[str, Any]] = {}
        for key in ("name", "seed", "replicate"):
            if a.get(key) != b.get(key):
                out[key] = {"a": a.get(key), "b": b.get(key)}
        oa, ob = a.get("overrides") or {}, b.get("overrides") or {}
        for key in _union(oa, ob):
            if key not in oa or key not in ob or oa[key] != ob[key]:
                sides = {"a": oa, "b": ob}
                out[f"overrides.{key}"] = {s: v[key] for s, v in sides.items() if key in v}
        return out

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable dict (what ``sanpath diff --json`` prints)."""
        return {
            "a": {"label": self.labels[0], **self.runs[0]},
            "b": {"label": self.labels[1], **self.runs[1]},
            "setup": self.setup_changes(),
            "sections": list(self.sections),
            "skipped": list(self.skipped),
            "changes": [c.to_dict() for c in self.changes],
        }

    def to_frame(self) -> pd.DataFrame:
        """One row per figure: section, item, metric, a, b, change, relative_change, the
        intervals (``a_ci_lo`` ... ``b_ci_hi``) and significance."""
        import pandas as pd

        rows = []
        for c in self.changes:
            row = c.to_dict()
            for side in ("a", "b"):
                ci = row.pop(f"{side}_ci95")
                row[f"{side}_ci_lo"], row[f"{side}_ci_hi"] = ci if ci else (math.nan, math.nan)
            rows.append(row)
        columns = ["section", "item", "metric", "a", "b", "change", "relative_change"]
        columns += [f"{side}_ci_{end}" for side in "ab" for end in ("lo", "hi")]
        return pd.DataFrame(rows, columns=[*columns, "significance"])

    def summary(self, full: bool = False) -> str:
        """The text ``sanpath diff`` prints.

        Figures equal in both runs are left out (and counted), and each host, workload and
        LUN shows only ``GROUP_TEXT``, unless ``full``.
        """
        la, lb = self.labels
        lines = [f"A: {la}  {_describe(self.runs[0])}", f"B: {lb}  {_describe(self.runs[1])}"]
        setup = self.setup_changes()
        if setup:
            lines.append("set-up differences (A -> B):")
            for key, sides in setup.items():
                what = key.replace("overrides.", "--set ", 1)
                lines.append(f"  {what}: {_shown(sides, 'a')} -> {_shown(sides, 'b')}")
        for run, label in zip(self.runs, ("A", "B"), strict=True):
            if run.get("steady") is False:
                lines.append(f"WARNING: run {label} is not steady state (see its warnings)")
        titles = {
            "headline": "headline (B - A; significant: the 95% intervals do not overlap)",
            "breakdown_ms": "where the time goes (mean ms per I/O)",
            "utilization": "station utilization",
            "hosts": "per host",
            "host_groups": "per host group",
            "workloads": "per workload",
            "luns": "per LUN",
        }
        for section in self.sections:
            rows = self.section(section)
            if section in GROUP_SECTIONS and not full:
                rows = [c for c in rows if c.metric in GROUP_TEXT]
            shown = [c for c in rows if full or c.changed]
            lines += ["", titles.get(section, section)]
            if shown:
                lines.append(_table(shown, section))
            hidden = len(rows) - len(shown)
            if hidden:
                lines.append(f"  ({hidden} figure(s) equal in both runs not shown)")
            elif not rows:
                lines.append("  (nothing to compare)")
        if not full and any(s in GROUP_SECTIONS for s in self.sections):
            lines += [
                "",
                f"per host, workload and LUN: {', '.join(GROUP_TEXT)} shown; --all "
                "(full=True) or --json for every figure",
            ]
        lines += [f"not compared: {note}" for note in self.skipped]
        return "\n".join(lines)


def _shown(sides: Mapping[str, Any], side: str) -> str:
    return str(sides[side]) if side in sides else "(not set)"


def _describe(run: Mapping[str, Any]) -> str:
    parts = [f"{run.get('name')}", f"seed {run.get('seed')}", f"replicate {run.get('replicate')}"]
    overrides = run.get("overrides")
    if overrides is None:
        parts.append("overrides not recorded")
    elif overrides:
        parts.append(" ".join(f"--set {k}={v}" for k, v in overrides.items()))
    return ", ".join(parts)


def _fmt(value: float | None) -> str:
    if value is None:
        return "-"
    return number(value)


def _table(changes: Sequence[Change], section: str) -> str:
    def label(c: Change) -> str:
        if section == "headline":
            return c.metric
        if section in ("breakdown_ms", "utilization"):
            return c.item
        return f"{c.item} {c.metric}"

    rows = []
    for c in changes:
        rel = c.relative
        signed = "-" if c.change is None else ("+" if c.change > 0 else "") + number(c.change)
        rows.append(
            {
                "figure": label(c),
                "A": _fmt(c.a),
                "B": _fmt(c.b),
                "change": signed,
                "%": "-" if rel is None else percent(rel, signed=True, digits=int(abs(rel) < 1)),
                "significance": c.significance,
            }
        )
    import pandas as pd

    return pd.DataFrame(rows).to_string(index=False)


def diff_results(
    a: Mapping[str, Any], b: Mapping[str, Any], labels: tuple[str, str] = ("A", "B")
) -> RunDiff:
    """Compare two run results given as dicts (``RunResult.to_dict()`` or ``run --json``).

    Raises
    ------
    NotAResultError
        When either is not a run result (naming what it lacks).
    """
    a = check_result(a)
    b = check_result(b)
    changes = _headline(a, b) + _breakdown(a, b) + _utilization(a, b)
    sections = ["headline", "breakdown_ms", "utilization"]
    skipped = []
    for section in GROUP_SECTIONS:
        ga, gb = a.get(section), b.get(section)
        has_a, has_b = isinstance(ga, Mapping), isinstance(gb, Mapping)
        if has_a and has_b:
            assert isinstance(ga, Mapping) and isinstance(gb, Mapping)
            changes += _groups(section, ga, gb)
            sections.append(section)
        elif has_a or has_b:
            skipped.append(f"{section}: only in {'A' if has_a else 'B'}")
    return RunDiff(
        labels=labels,
        runs=(_run_info(a), _run_info(b)),
        changes=tuple(changes),
        skipped=tuple(skipped),
        sections=tuple(sections),
    )
