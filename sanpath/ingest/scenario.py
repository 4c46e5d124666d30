"""Write the imported scenario: a base's topology (or a placeholder) with measured workloads.

With a base (``--into BASE.yaml``) the base is read round-trip (ruamel.yaml), so its
topology and comments stay as written; ``workloads`` and ``reference`` are replaced, and a
``schedule`` or ``sweep`` that names the base's workloads is dropped (said in a comment).
Without one, a minimal placeholder topology is written: one host with one HBA, one array
with one SSD pool and one LUN group per device (sized from fio ``size``, else 100 GiB).

Devices map to LUN groups in order (first device, first LUN group), or as ``--map
DEVICE=LUN`` says (then only the mapped devices are imported). The scenario is validated
before anything is written.
"""

from __future__ import annotations

import io
import math
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sanpath.ingest.interval import Chosen
from sanpath.ingest.model import Measured
from sanpath.ingest.workload import Placement, Workload
from sanpath.spec import Problem, ScenarioError, load_scenario, locate_field, read_yaml

DEFAULT_LUN_SIZE = 100 * 1024**3
PLACEHOLDER = (
    "The topology below is a PLACEHOLDER written by sanpath import (one host, one HBA, one "
    "SSD pool, one LUN group per device): replace it with your hosts, HBAs, fabric and "
    "array, or import again with --into YOUR.yaml."
)


def parse_map(entries: Sequence[str]) -> dict[str, str]:
    """``["sdb=data", ...]`` as ``{device: LUN group}``; a malformed entry is a located error."""
    out: dict[str, str] = {}
    for entry in entries:
        device, sep, lun = entry.partition("=")
        if not sep or not device.strip() or not lun.strip():
            raise ScenarioError(
                [Problem("--map", None, None, entry, "expected DEVICE=LUN, e.g. sdb=data")]
            )
        out[device.strip()] = lun.strip()
    return out


def assign(
    devices: Sequence[str],
    mapping: Mapping[str, str],
    lun_groups: Sequence[str] | None,
    base: str | None,
) -> tuple[dict[str, str], list[str]]:
    """Device -> LUN group, and notes (devices left out).

    ``lun_groups`` are the base's LUN groups (None without a base: every name is new).
    """
    notes: list[str] = []
    if mapping:
        for entry_device, lun in mapping.items():
            entry = f"{entry_device}={lun}"
            if entry_device not in devices:
                raise ScenarioError(
                    [
                        Problem(
                            "--map",
                            None,
                            None,
                            entry,
                            f"no device {entry_device!r} in the input (devices: "
                            f"{', '.join(devices)})",
                        )
                    ]
                )
            if lun_groups is not None and lun not in lun_groups:
                line, column = locate_field(base, "array.luns") if base else (None, None)
                raise ScenarioError(
                    [
                        Problem(
                            base or "--map",
                            line,
                            column,
                            f"--map {entry}",
                            f"no LUN group {lun!r} in the base (LUN groups: "
                            f"{', '.join(lun_groups)})",
                        )
                    ]
                )
        left = [d for d in devices if d not in mapping]
        if left:
            notes.append("devices not in --map, left out: " + ", ".join(left))
        return {d: mapping[d] for d in devices if d in mapping}, notes
    if lun_groups is None:
        return {d: _lun_name(d, i) for i, d in enumerate(devices)}, notes
    if len(devices) > len(lun_groups):
        line, column = locate_field(base, "array.luns") if base else (None, None)
        raise ScenarioError(
            [
                Problem(
                    base or "--into",
                    line,
                    column,
                    "array.luns",
                    f"{len(devices)} devices ({', '.join(devices)}) but {len(lun_groups)} "
                    f"LUN group(s) ({', '.join(lun_groups)}); give --map DEVICE=LUN",
                )
            ]
        )
    return dict(zip(devices, lun_groups, strict=False)), notes


def _lun_name(device: str, index: int) -> str:
    name = re.sub(r"[^A-Za-z0-9_.-]+", "_", device).strip("_")
    return name or f"lun{index}"


def placeholder(luns: Mapping[str, str], sizes: Mapping[str, int], name: str) -> Any:
    """A minimal complete topology with one LUN group per distinct name in ``luns``."""
    from ruamel.yaml.comments import CommentedMap

    groups = list(dict.fromkeys(luns.values()))
    size = {
        g: max([sizes.get(d, DEFAULT_LUN_SIZE) for d, x in luns.items() if x == g]) for g in groups
    }
    # RAID 5 of 5 SSDs: 4 data drives of 960 GB each per group; enough groups for the LUNs.
    per_group = 4 * 960_000_000_000 * 0.95
    pool_groups = max(1, math.ceil(sum(size.values()) / per_group))
    data = CommentedMap()
    data["name"] = name
    data["seed"] = 1
    data["hosts"] = [
        {
            "name": "host",
            "count": 1,
            "lun_queue_depth": 64,
            "multipath": "round-robin",
            "hbas": [{"profile": "qlogic-qle2562", "count": 1}],
        }
    ]
    data["fabric"] = {"hop_latency": "1us"}
    data["array"] = {
        "ports": 4,
        "port_speed": "16GFC",
        "port_queue_depth": 2048,
        "controller": {"cores": 4, "io_time": "20us"},
        "lun_queue_depth": 64,
        "pools": [
            {
                "name": "pool",
                "raid": "raid5",
                "drives": 5,
                "groups": pool_groups,
                "stripe_element": "64KiB",
                "drive": "ssd",
            }
        ],
        "luns": [{"name": g, "count": 1, "pool": "pool", "size": size[g]} for g in groups],
    }
    data["zoning"] = "all-to-all"
    data.yaml_set_start_comment(wrap_comment(PLACEHOLDER))
    return data


def _flow(value: Any) -> Any:
    """Short lists and mappings in flow style (``[[8192, 0.7], [65536, 0.3]]``)."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    if isinstance(value, Mapping):
        out = CommentedMap((k, _flow(v)) for k, v in value.items())
        if not value:
            out.fa.set_flow_style()
        return out
    if isinstance(value, list | tuple):
        seq = CommentedSeq(_flow(v) for v in value)
        if all(not isinstance(v, Mapping) for v in value):
            seq.fa.set_flow_style()
        return seq
    return value


def compose(
    measured: Measured,
    chosen: Chosen | None,
    workloads: Sequence[Workload],
    points: Sequence[dict[str, Any]],
    data: Any,
    notes: Sequence[str],
) -> Any:
    """Put ``workloads`` and ``points`` into ``data`` (a round-trip mapping) with comments."""
    from ruamel.yaml.comments import CommentedSeq

    for key in ("schedule", "sweep"):
        if key in data and "workloads" in str(data[key]):
            del data[key]
            notes = [*notes, f"the base's {key} named its workloads and was dropped"]
    seq = CommentedSeq()
    for i, w in enumerate(workloads):
        seq.append(_flow(w.data))
        seq.yaml_set_comment_before_after_key(i, before=wrap_comment(w.comment, 2), indent=2)
    if "reference" in data and not points:
        del data["reference"]
    data["workloads"] = seq  # in place: the key keeps its position and the comments before it
    header = [
        f"Imported by sanpath import from {measured.source} ({measured.format}).",
        "Interval: " + (chosen.description if chosen is not None else "the fio job options"),
    ]
    if measured.columns:
        header.append("Columns used:")
        header += [f"  {what}: {column}" for what, column in measured.columns.items()]
    header += [f"Warning: {w}" for w in measured.warnings]
    header += [f"Note: {n}" for n in notes]
    data.yaml_set_comment_before_after_key(
        "workloads", before=wrap_comment("\n".join(header)), indent=0
    )
    if points:
        reference = _flow(
            {
                "source": f"measured on the system itself: {measured.source} "
                f"({measured.format}); "
                + (chosen.description if chosen is not None else "the whole run"),
                "points": [dict(p) for p in points],
            }
        )
        data["reference"] = reference
        data.yaml_set_comment_before_after_key(
            "reference",
            before=wrap_comment(
                "Measured figures (role: measured): sanpath compare reports them, sanpath "
                "calibrate may fit to them. Tolerance 0.1 on throughput in an open loop (the "
                "model carries the offered rate), 0.25 on latency (it depends on the topology "
                "and its calibration, and counters average over bursts)."
            ),
            indent=0,
        )
    return data


def wrap_comment(text: str, indent: int = 0) -> str:
    """Comment text wrapped to fit 100 columns (continuation lines indented)."""
    import textwrap

    width = 96 - indent
    lines = []
    for line in text.splitlines():
        lines += textwrap.wrap(line, width, subsequent_indent="  ", break_long_words=False) or [""]
    return "\n".join(lines)


def dump(data: Any) -> str:
    """The round-trip mapping as YAML 1.2 text."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt")
    yaml.width = 100
    yaml.indent(mapping=2, sequence=4, offset=2)
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()


def validate(text: str, out: str | Path, traces_from: Path | None = None) -> None:
    """Refuse a scenario that does not load; the problems are said to be in ``out``.

    ``traces_from``: the folder a workload's relative ``trace.file`` is read from (the
    written scenario's).
    """
    from ruamel.yaml import YAML

    plain = YAML(typ="safe", pure=True).load(text)
    for w in plain.get("workloads", []) if traces_from is not None else []:
        if isinstance(w, dict) and isinstance(w.get("trace"), dict):
            w["trace"]["file"] = str(traces_from / w["trace"]["file"])
    try:
        load_scenario(plain)
    except ScenarioError as exc:
        problems = [
            Problem(f"{out} (not written)", None, None, p.path, p.message) for p in exc.problems
        ]
        raise ScenarioError(problems) from None


def base_facts(into: str | Path) -> tuple[Any, list[str], Placement]:
    """The base read round-trip, its LUN groups and where workloads run."""
    scenario = load_scenario(into)
    data = read_yaml(into)
    groups = [lun.name for lun in scenario.array.luns]
    placement = Placement(
        hosts=sum(h.count for h in scenario.hosts),
        lun_counts={lun.name: lun.count for lun in scenario.array.luns},
    )
    return data, groups, placement
