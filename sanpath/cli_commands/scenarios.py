"""``sanpath validate``, ``schema`` and ``profiles``: the scenario format, no simulation."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sanpath.cli_commands.exits import EXIT_BAD_INPUT, EXIT_OK

WHOLE_TRACE = 1 << 62
"""Lines of a trace ``sanpath validate`` reads: all of them."""


def cmd_validate(args: argparse.Namespace) -> int:
    from sanpath.cli_commands.simulate import parse_overrides
    from sanpath.spec import ScenarioError, load_scenario
    from sanpath.traces import TraceError, check

    overrides = parse_overrides(args.overrides)  # the --set of `run`, applied to every file
    status = EXIT_OK
    for path in args.files:
        try:
            scenario = load_scenario(path, overrides)
            for workload in scenario.workloads:  # loading read a trace's head; this reads it all
                if workload.trace is not None:
                    trace = workload.trace
                    check(trace.file, trace.format, trace.window(), lines=WHOLE_TRACE)
        except (ScenarioError, TraceError) as exc:
            print(str(exc), file=sys.stderr)
            status = EXIT_BAD_INPUT
        else:
            print(f"{path}: ok ({scenario.name})")
    return status


def cmd_schema(_args: argparse.Namespace) -> int:
    from sanpath.spec import json_schema

    print(json.dumps(json_schema(), indent=2))
    return EXIT_OK


def cmd_profiles(args: argparse.Namespace) -> int:
    from sanpath.spec.profiles import (
        ABOUT,
        ARRAY_PROFILES,
        DRIVE_PROFILES,
        HBA_PROFILES,
        origins,
    )

    kinds = {
        "drive": ("array.pools.N.drive", DRIVE_PROFILES),
        "hba": ("hosts.N.hbas.M.profile", HBA_PROFILES),
        "array": ("array.profile", ARRAY_PROFILES),
    }
    names = [n for _, (_, profiles) in kinds.items() for n in profiles]
    if args.name is not None:
        if args.name not in names:
            print(
                f"sanpath profiles: unknown profile {args.name!r}; known: {', '.join(names)}",
                file=sys.stderr,
            )
            return EXIT_BAD_INPUT
        return _one_profile(args.name, kinds, args.json)
    if args.json:
        out: dict[str, Any] = {kind: profiles for kind, (_, profiles) in kinds.items()}
        out["provenance"] = {
            n: {path: o.as_dict() for path, o in origins(n).items()} for n in names
        }
        out["about"] = dict(ABOUT)
        print(json.dumps(out, indent=2))
        return EXIT_OK
    for kind, (where, profiles) in kinds.items():
        print(f"{kind} profiles ({where}; origins: sanpath profiles NAME)")
        for name, fields in profiles.items():
            values = ", ".join(f"{key}: {_profile_value(v)}" for key, v in fields.items())
            print(f"  {name:<16} {values}")
            print(f"  {'':<16} [{_origin_counts(origins(name))}]")
        print()
    return EXIT_OK


def _origin_counts(found: dict[str, Any]) -> str:
    counts = {"sourced": 0, "assumed": 0, "fitted": 0}
    for origin in found.values():
        counts[origin.kind] += 1
    return ", ".join(f"{n} {kind}" for kind, n in counts.items() if n)


def _one_profile(name: str, kinds: dict[str, Any], as_json: bool) -> int:
    from sanpath.spec.profiles import ABOUT, field_paths, origins

    kind, fields = next((k, p[name]) for k, (_, p) in kinds.items() if name in p)
    found = origins(name)
    values = {path: _leaf(fields, path) for path in field_paths(fields)}
    derived = _derived(fields) if kind == "drive" else {}
    if as_json:
        out = {
            "name": name,
            "kind": kind,
            "fields": fields,
            "provenance": {path: o.as_dict() for path, o in found.items()},
            "about": ABOUT.get(name),
            "derived": derived,
        }
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(f"{name} ({kind} profile)" + (f": {ABOUT[name]}" if name in ABOUT else ""))
    for path, value in values.items():
        origin = found.get(path)
        if origin is None:
            print(f"  {path}: {_profile_value(value)}")
            continue
        print(f"  {path}: {_profile_value(value)}  [{origin.kind}] {origin.note}")
    if derived:
        print("  derived from the datasheet figures (model: flash):")
        for key, value in derived.items():
            print(f"    {key}: {value}")
    return EXIT_OK


def _leaf(fields: dict[str, Any], path: str) -> Any:
    value: Any = fields
    for part in path.split("."):
        value = value[part]
    return value


def _derived(fields: dict[str, Any]) -> dict[str, Any]:
    """A flash drive's derived model, in readable units."""
    if fields.get("model") != "flash":
        return {}
    from sanpath.spec import FlashSpec, PoolSpec

    spec = PoolSpec(name="p", drive=dict(fields)).drive
    assert isinstance(spec, FlashSpec)
    m = spec.model_parameters
    return {
        "units": m.units,
        "interface MB/s": round(m.interface_rate / 1e6),
        "read fixed path us": round(m.read_fixed * 1e6, 2),
        "read part us (4 KiB)": round((m.read_op + 4096 * m.read_per_byte) * 1e6, 2),
        "read chunk KiB": m.read_chunk // 1024,
        "write fixed path us": round(m.write_fixed * 1e6, 2),
        "write part us (4 KiB)": round((m.write_op + 4096 * m.write_per_byte) * 1e6, 2),
        "write chunk KiB": m.write_chunk // 1024,
    }


def _profile_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_profile_value(v)}" for k, v in value.items()) + "}"
    return str(value)
