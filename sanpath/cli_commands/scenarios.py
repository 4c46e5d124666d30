"""``sanpath validate``, ``schema`` and ``profiles``: the scenario format, no simulation."""

# ruff: noqa: T201  (a command's output is what it prints)

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from sanpath.cli_commands.exits import EXIT_BAD_INPUT, EXIT_OK


def cmd_validate(args: argparse.Namespace) -> int:
    from sanpath.cli_commands.simulate import parse_overrides
    from sanpath.spec import ScenarioError, load_scenario

    overrides = parse_overrides(args.overrides)  # the --set of `run`, applied to every file
    status = EXIT_OK
    for path in args.files:
        try:
            scenario = load_scenario(path, overrides)
        except ScenarioError as exc:
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
    from sanpath.spec import ARRAY_PROFILES, DRIVE_PROFILES, HBA_PROFILES

    kinds = {
        "drive": ("array.pools.N.drive", DRIVE_PROFILES),
        "hba": ("hosts.N.hbas.M.profile", HBA_PROFILES),
        "array": ("array.profile", ARRAY_PROFILES),
    }
    if args.json:
        print(json.dumps({kind: profiles for kind, (_, profiles) in kinds.items()}, indent=2))
        return EXIT_OK
    for kind, (where, profiles) in kinds.items():
        print(f"{kind} profiles ({where}; sources in sanpath/spec/profiles.py)")
        for name, fields in profiles.items():
            values = ", ".join(f"{key}: {_profile_value(v)}" for key, v in fields.items())
            print(f"  {name:<16} {values}")
        print()
    return EXIT_OK


def _profile_value(value: Any) -> str:
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k}: {_profile_value(v)}" for k, v in value.items()) + "}"
    return str(value)
