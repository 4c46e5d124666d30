"""Scenario files: what a user writes, validated once into frozen, typed specs.

A scenario describes one SAN set-up and the load put on it: the hosts, the fabric, the array,
the zoning and the workloads, in YAML 1.2 (ruamel.yaml keeps every key's line and column, so
errors point at them) or as a dict built in a notebook.

Validation happens in :mod:`sanpath.spec` and only there. Sizes, rates and times are parsed
from unit strings (``8KiB``, ``4GFC``, ``5ms``) into SI base units: bytes (int), bytes per
second (float) and seconds (float). The model code downstream trusts these specs and never
re-checks them.

This module holds the whole scenario: :class:`Scenario`, loading and validating it, the
checks across its sections, and the figures derived from them (LUN sizes, the array ports
each host sees). The sections are in :mod:`~sanpath.spec.hardware`,
:mod:`~sanpath.spec.drives`, :mod:`~sanpath.spec.workload`, :mod:`~sanpath.spec.run` and
:mod:`~sanpath.spec.experiment`; :mod:`sanpath.spec` is the public face. The specs and
helpers other packages import from here are re-exported (``__all__``).

Classes carry a ``Spec`` suffix: a spec is "what you wrote"; the running components built from
it live in :mod:`sanpath.sim.components`.
"""

from __future__ import annotations

import copy
import math
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import Field, PrivateAttr, ValidationError

from sanpath.spec.drives import FlashSpec, HddSpec, SsdSpec, TextbookDriveSpec
from sanpath.spec.errors import (
    Problem,
    ScenarioError,
    clean_loc,
    describe_error,
    format_loc,
    locate,
    read_yaml,
)
from sanpath.spec.experiment import ReferenceSpec, SweepSpec
from sanpath.spec.fabric import FabricSpec, fabric_problems
from sanpath.spec.fields import MAX_CAPACITY, DistSpec, Spec, show_bytes
from sanpath.spec.hardware import (
    ArraySpec,
    PoolSpec,
    ZoneSpec,
    lun_queue_limit,
    pool_capacity,
)
from sanpath.spec.host import HbaSpec, HostSpec
from sanpath.spec.keys import replace_run_length, set_dotted
from sanpath.spec.knobs import NOT_SCHEDULABLE, SCHEDULABLE
from sanpath.spec.run import RunSpec
from sanpath.spec.trace import trace_problems
from sanpath.spec.workload import ChangeSpec, WorkloadSpec

__all__ = [
    "DistSpec",
    "FlashSpec",
    "HbaSpec",
    "HddSpec",
    "HostSpec",
    "PoolSpec",
    "Scenario",
    "ScenarioError",
    "SsdSpec",
    "TextbookDriveSpec",
    "WorkloadSpec",
    "expand_names",
    "json_schema",
    "load_scenario",
    "lun_groups_used",
    "lun_queue_limit",
    "lun_sizes",
    "pool_capacity",
    "validate_scenario",
    "visible_ports",
]


class Scenario(Spec):
    """A whole SAN set-up and its load; see ``docs/scenario.md`` for every field."""

    name: str
    description: str = ""
    seed: Annotated[int, Field(ge=0)] = 1
    run: RunSpec = RunSpec()
    hosts: tuple[HostSpec, ...] = Field(min_length=1)
    fabric: FabricSpec = FabricSpec()
    array: ArraySpec
    zoning: Literal["all-to-all", "one-to-one"] | tuple[ZoneSpec, ...] = "all-to-all"
    workloads: tuple[WorkloadSpec, ...] = Field(min_length=1)
    schedule: tuple[ChangeSpec, ...] = ()
    sweep: SweepSpec | None = None
    reference: ReferenceSpec | None = None

    _overrides: dict[str, Any] = PrivateAttr(default_factory=dict)

    @property
    def overrides(self) -> dict[str, Any]:
        """The dotted overrides this scenario was made with, as they were given (a copy).

        :func:`load_scenario` records the ``overrides`` it applies to a file or dict, and
        :meth:`with_overrides` adds its own to those of the scenario it starts from; a
        scenario validated without overrides has none. Results record them (``overrides`` in
        a run's JSON, a column of a sweep table), so a result says how it was made. They are
        provenance, not content: two scenarios with equal fields are equal (and hash alike)
        whatever overrides made them.
        """
        return dict(self._overrides)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Scenario):
            return NotImplemented
        return type(self) is type(other) and self.__dict__ == other.__dict__

    def _recording(self, overrides: Mapping[str, Any]) -> Scenario:
        """This scenario, recording ``overrides`` (on top of those it has) as its own."""
        self._overrides = {**self._overrides, **overrides}
        return self

    def to_data(self) -> dict[str, Any]:
        """Plain nested dicts and lists (SI units) that validate back into this scenario."""
        plain: dict[str, Any] = _plain(self.model_dump())
        return plain

    def with_overrides(self, overrides: Mapping[str, Any]) -> Scenario:
        """Return a new scenario with dotted keys replaced, validated again.

        Keys follow the spec tree, with list indices and ``*`` for every element:
        ``hosts.0.hbas.0.queue_depth``, ``hosts.*.hbas.*.queue_depth``, ``run.ios``.
        Values may be unit strings (``16KiB``).
        """
        data = self.to_data()
        replace_run_length(data, overrides)
        for key, value in overrides.items():
            try:
                set_dotted(data, key, value)
            except KeyError as exc:
                raise ScenarioError(
                    [Problem("<overrides>", None, None, key, str(exc.args[0]))]
                ) from None
        changed = validate_scenario(data, source="<overrides>")
        return changed._recording({**self._overrides, **overrides})


def _plain(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    return value


def validate_scenario(data: Any, source: str = "<dict>") -> Scenario:
    """Validate a mapping (from YAML or built in Python) into a :class:`Scenario`.

    Raises
    ------
    ScenarioError
        Listing every problem with its ``file:line:col field.path``.
    """
    if not isinstance(data, Mapping):
        raise ScenarioError([Problem(source, None, None, "", "a scenario must be a mapping")])
    folder = Path(source).parent if Path(source).is_file() else None  # a trace's relative path
    try:
        scenario = Scenario.model_validate(data, context={"base": folder})
    except ValidationError as exc:
        problems = []
        seen: set[tuple[str, str]] = set()
        errors = exc.errors()
        locs = [tuple(clean_loc(err["loc"])) for err in errors]
        for err in errors:
            loc = clean_loc(err["loc"])
            if err["type"] == "too_short" and any(
                len(other) > len(loc) and other[: len(loc)] == tuple(loc) for other in locs
            ):
                continue  # a list emptied by its own invalid items: the items say why
            path = format_loc(loc)
            message = describe_error(err)
            if (path, message) in seen:
                continue
            seen.add((path, message))
            line, column = locate(data, loc)
            problems.append(Problem(source, line, column, path, message))
        raise ScenarioError(problems) from None
    found = _check_references(scenario)
    if not found:
        found = _check_schedule(scenario)
    problems = [
        Problem(source, *locate(data, loc), format_loc(loc), message) for loc, message in found
    ]
    if problems:
        raise ScenarioError(problems)
    return scenario


def _check_schedule(s: Scenario) -> list[tuple[list[str | int], str]]:
    """Every scheduled key can change during a run, and the scenario is valid with its value."""
    found: list[tuple[list[str | int], str]] = []
    if not s.schedule:
        return found
    base = s.to_data()
    del base["schedule"]
    for i, change in enumerate(s.schedule):
        for key, value in change.set.items():
            loc: list[str | int] = ["schedule", i, "set", key]
            if not any(re.fullmatch(pattern, key) for pattern in SCHEDULABLE):
                found.append((loc, NOT_SCHEDULABLE))
                continue
            data = copy.deepcopy(base)
            try:
                set_dotted(data, key, value)
                validate_scenario(data, source="<schedule>")
            except KeyError as exc:
                found.append((loc, str(exc.args[0])))
            except ScenarioError as exc:
                found.extend(
                    (loc, p.message if p.path == key else f"with it, {p.path}: {p.message}")
                    for p in exc.problems
                )
    return found


def _check_references(s: Scenario) -> list[tuple[list[str | int], str]]:
    """Cross-section checks: names that must exist, indices in range, unique names."""
    found: list[tuple[list[str | int], str]] = []

    def unique(names: list[str], section: str) -> None:
        seen: set[str] = set()
        for i, name in enumerate(names):
            if name in seen:
                found.append(([*section.split("."), i, "name"], f"duplicate name {name!r}"))
            seen.add(name)

    unique([h.name for h in s.hosts], "hosts")
    unique([p.name for p in s.array.pools], "array.pools")
    unique([lun.name for lun in s.array.luns], "array.luns")
    unique([w.name for w in s.workloads], "workloads")
    pools = {p.name for p in s.array.pools}
    host_names = {h.name: h for h in s.hosts}
    lun_names = {lun.name for lun in s.array.luns}
    for i, lun in enumerate(s.array.luns):
        if lun.pool not in pools:
            found.append(
                (
                    ["array", "luns", i, "pool"],
                    f"no pool named {lun.pool!r} (pools: {', '.join(sorted(pools))})",
                )
            )
        if lun.ports != "all":
            for j, port in enumerate(lun.ports):
                if port >= s.array.ports:
                    found.append(
                        (
                            ["array", "luns", i, "ports", j],
                            f"array port {port} does not exist (array.ports is {s.array.ports}; "
                            "ports are numbered from 0)",
                        )
                    )
    if not isinstance(s.zoning, str):
        for i, zone in enumerate(s.zoning):
            if zone.host not in host_names:
                found.append((["zoning", i, "host"], f"no host named {zone.host!r}"))
            elif zone.port is not None and zone.port >= host_names[zone.host].ports_per_host:
                found.append(
                    (
                        ["zoning", i, "port"],
                        f"host {zone.host!r} has {host_names[zone.host].ports_per_host} HBA "
                        "port(s), numbered from 0",
                    )
                )
            for j, port in enumerate(zone.array_ports):
                if port >= s.array.ports:
                    found.append(
                        (
                            ["zoning", i, "array_ports", j],
                            f"array port {port} does not exist (array.ports is {s.array.ports})",
                        )
                    )
    for i, w in enumerate(s.workloads):
        if w.hosts != "all":
            for j, name in enumerate(w.hosts):
                if name not in host_names:
                    found.append(
                        (
                            ["workloads", i, "hosts", j],
                            f"no host named {name!r} (hosts: {', '.join(sorted(host_names))})",
                        )
                    )
        named: list[tuple[list[str | int], str]] = (
            []
            if w.luns == "all"
            else [(["workloads", i, "luns", j], n) for j, n in enumerate(w.luns)]
        )
        if w.copy_to is not None:
            named += [
                (["workloads", i, "copy_to", "luns", j], n) for j, n in enumerate(w.copy_to.luns)
            ]
        found.extend(_check_shape(i, w) + trace_problems(i, s))
        for path, name in named:
            if name not in lun_names:
                found.append(
                    (path, f"no LUN group named {name!r} (LUNs: {', '.join(sorted(lun_names))})")
                )
    found.extend(fabric_problems(s.fabric, s.hosts, s.array))
    if not found:
        found.extend(_check_capacity(s))
        found.extend(_check_paths(s))
    return found


def _check_shape(i: int, w: WorkloadSpec) -> list[tuple[list[str | int], str]]:
    """Think time needs a plain closed loop; a skewed ``access`` needs random I/Os."""
    found: list[tuple[list[str | int], str]] = []
    if w.think_time is not None and not w.closed:
        found.append(
            (
                ["workloads", i, "think_time"],
                "think_time needs a closed loop (outstanding): an open loop's arrivals "
                "do not wait for completions",
            )
        )
    elif w.think_time is not None and w.copy_to is not None:
        found.append((["workloads", i, "think_time"], "think_time cannot be used with copy_to"))
    if not w.access.uniform and w.random_share == 0.0:
        found.append(
            (
                ["workloads", i, "access"],
                "access shapes random offsets, and this workload has none "
                "(pattern sequential): set random_fraction above 0 or drop access",
            )
        )
    return found


def lun_sizes(s: Scenario) -> list[int]:
    """Size in bytes of one LUN of each LUN group (default: an equal share of its pool)."""
    pools = {p.name: p for p in s.array.pools}
    per_pool = {
        p.name: sum(g.count for g in s.array.luns if g.pool == p.name) for p in s.array.pools
    }
    sizes = []
    for group in s.array.luns:
        pool = pools[group.pool]
        if group.size is not None:
            sizes.append(group.size)
            continue
        row = pool.data_drives * pool.stripe_element
        share = pool_capacity(pool) // per_pool[group.pool]
        sizes.append(max(share - share % row, row))
    return sizes


def _check_capacity(s: Scenario) -> list[tuple[list[str | int], str]]:
    found: list[tuple[list[str | int], str]] = []
    for i, pool in enumerate(s.array.pools):
        if pool_capacity(pool) > MAX_CAPACITY:
            found.append(
                (
                    ["array", "pools", i, "groups"],
                    f"pool {pool.name!r} would hold {show_bytes(pool_capacity(pool))}: expected "
                    f"at most {show_bytes(MAX_CAPACITY)} (fewer groups, drives or smaller drives)",
                )
            )
    if found:
        return found
    used: dict[str, int] = {}
    pools = {p.name: p for p in s.array.pools}
    for i, (group, size) in enumerate(zip(s.array.luns, lun_sizes(s), strict=True)):
        used[group.pool] = used.get(group.pool, 0) + size * group.count
        capacity = pool_capacity(pools[group.pool])
        if used[group.pool] > capacity:
            found.append(
                (
                    ["array", "luns", i, "size"],
                    f"the LUNs of pool {group.pool!r} need {used[group.pool] / 1e9:.1f} GB but it "
                    f"holds {capacity / 1e9:.1f} GB",
                )
            )
    return found


def visible_ports(s: Scenario, host: HostSpec) -> list[list[int]]:
    """Array ports each HBA port of ``host`` sees through the zoning."""
    n_array = s.array.ports
    n_ports = host.ports_per_host
    if s.zoning == "all-to-all":
        return [list(range(n_array)) for _ in range(n_ports)]
    if s.zoning == "one-to-one":
        return [[p % n_array] for p in range(n_ports)]
    visible: list[list[int]] = [[] for _ in range(n_ports)]
    for zone in s.zoning:
        if zone.host != host.name:
            continue
        for p in range(n_ports) if zone.port is None else [zone.port]:
            for a in zone.array_ports:
                if a not in visible[p]:
                    visible[p].append(a)
    return visible


def lun_groups_used(s: Scenario, host: str) -> list[str]:
    """LUN groups any workload of host group ``host`` touches, in scenario order."""
    wanted: set[str] = set()
    for w in s.workloads:
        if w.hosts == "all" or host in w.hosts:
            wanted.update(g.name for g in s.array.luns) if w.luns == "all" else wanted.update(
                w.luns
            )
            if w.copy_to is not None:
                wanted.update(w.copy_to.luns)
    return [g.name for g in s.array.luns if g.name in wanted]


def _check_paths(s: Scenario) -> list[tuple[list[str | int], str]]:
    found: list[tuple[list[str | int], str]] = []
    groups = {g.name: (i, g) for i, g in enumerate(s.array.luns)}
    for host in s.hosts:
        seen = {a for ports in visible_ports(s, host) for a in ports}
        for name in lun_groups_used(s, host.name):
            i, group = groups[name]
            presented = set(range(s.array.ports)) if group.ports == "all" else set(group.ports)
            reach, failed = sorted(seen & presented), s.array.failed_controller
            takeover = failed is not None and s.array.failover == "takeover"
            if reach and takeover and all(a % 2 == failed for a in reach):  # even: controller 0
                where = f"only through array ports {reach}, all of controller {failed}"
                text = f"LUN group {name!r} with controller {failed} failed: reached {where}"
                found.append((["array", "failed_controller"], f"{host.name!r}: no path to {text}"))
            if not seen & presented:
                found.append(
                    (
                        ["zoning"]
                        if not isinstance(s.zoning, str) or not seen
                        else ["array", "luns", i, "ports"],
                        f"host {host.name!r} has no path to LUN group {name!r}: its HBA ports "
                        f"see array ports {sorted(seen)}, the LUNs are on {sorted(presented)}",
                    )
                )
    return found


def load_scenario(
    source: str | Path | Mapping[str, Any] | Scenario,
    overrides: Mapping[str, Any] | None = None,
) -> Scenario:
    """Load and validate a scenario from a YAML file, a dict or an existing Scenario.

    Parameters
    ----------
    source
        Path of a YAML file, a mapping with the same structure, or a Scenario.
    overrides
        Dotted keys to replace before validation, e.g. ``{"hosts.0.hbas.0.queue_depth": 16}``;
        the scenario records them (``Scenario.overrides``).

    Raises
    ------
    ScenarioError
        With every problem located as ``file:line:col field.path: message``.
    """
    if isinstance(source, Scenario):
        return source.with_overrides(overrides) if overrides else source
    if isinstance(source, Mapping):
        data: Any = copy.deepcopy(dict(source))
        name = "<dict>"
    else:
        data = read_yaml(source)
        name = str(source)
    if data is None:
        raise ScenarioError([Problem(name, None, None, "", "the file is empty")])
    replace_run_length(data, overrides or {})
    for key, value in (overrides or {}).items():
        try:
            set_dotted(data, key, value)
        except KeyError as exc:
            raise ScenarioError([Problem(name, None, None, key, str(exc.args[0]))]) from None
    return validate_scenario(data, source=name)._recording(overrides or {})


def json_schema() -> dict[str, Any]:
    """The JSON Schema of a scenario file (for editors and documentation)."""
    schema = Scenario.model_json_schema(mode="validation")
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    schema["title"] = "sanpath scenario"
    return schema


def expand_names(name: str, count: int) -> list[str]:
    """Instance names for ``count`` identical items: ``db`` or ``db[0]``, ``db[1]``, ..."""
    if count == 1:
        return [name]
    width = int(math.log10(count - 1)) + 1 if count > 1 else 1
    return [f"{name}[{i:0{width}d}]" for i in range(count)]
