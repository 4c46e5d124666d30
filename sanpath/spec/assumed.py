"""The profile numbers a scenario uses that no document gives: its assumed and fitted ones.

A scenario names profiles (``drive: intel-p4510``, ``hbas: [{profile: qlogic-qle2562}]``,
``array: {profile: emc-vnx}``) and may change some of their fields. :func:`assumptions` lists
every field the scenario takes from a profile unchanged whose origin
(:mod:`sanpath.spec.profiles.origin`) is ``assumed`` or ``fitted``, so a run's result can say
which of its inputs rest on an assumption or on a fit to another experiment.

HBAs and arrays keep the profile they name. A drive does not (the drive models have no
``profile`` field), so a pool's drive is matched to the profile of the same model whose
fields it shares most, counted as a share of that profile's fields; at least half must be
equal. A field is the profile's when the scenario's value equals the profile's, so a field
written beside the profile with a different value is the user's and is not listed.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from pydantic import BaseModel

from sanpath.spec.hardware import ArraySpec, PoolSpec
from sanpath.spec.host import HbaSpec
from sanpath.spec.profiles import (
    ARRAY_PROFILES,
    DRIVE_PROFILES,
    HBA_PROFILES,
    field_paths,
    origins,
)
from sanpath.spec.scenario import Scenario


class Assumption(NamedTuple):
    """One assumed or fitted profile number a scenario uses."""

    where: str
    """The scenario path of the section (``hosts.0.hbas.0``, ``array``, ``array.pools.1.drive``)."""
    profile: str
    field: str
    """The profile's dotted field (``command_time``, ``cache.write_aside``)."""
    kind: str
    """``assumed`` or ``fitted``."""
    note: str
    """Why this value (assumed), or the experiment it was fitted to (fitted)."""

    def as_dict(self) -> dict[str, str]:
        """The fields by name, for JSON."""
        return dict(self._asdict())


def _get(spec: Any, path: str) -> Any:
    for part in path.split("."):
        spec = getattr(spec, part, None)
    return spec


def _shared(spec: BaseModel, base: BaseModel, name: str) -> list[str]:
    """The fields of profile ``name`` whose value in ``spec`` equals the profile's (``base``)."""
    fields = {**DRIVE_PROFILES, **HBA_PROFILES, **ARRAY_PROFILES}[name]
    paths = [p for p in field_paths(fields) if p not in ("model", "profile")]
    return [p for p in paths if _get(spec, p) == _get(base, p)]


def _listed(where: str, name: str, shared: list[str]) -> list[Assumption]:
    found = origins(name)
    return [
        Assumption(where, name, path, found[path].kind, found[path].note)
        for path in shared
        if path in found and found[path].kind != "sourced"
    ]


_DRIVES: dict[str, BaseModel] = {}


def _drive_profile(drive: BaseModel) -> tuple[str, list[str]] | None:
    """The drive profile ``drive`` was most likely built from, and the fields it shares."""
    if not _DRIVES:
        _DRIVES.update({n: PoolSpec(name="p", drive=n).drive for n in DRIVE_PROFILES})
    best: tuple[float, int, str, list[str]] | None = None
    for name, base in _DRIVES.items():
        if type(base) is not type(drive):
            continue
        shared = _shared(drive, base, name)
        total = len([p for p in field_paths(DRIVE_PROFILES[name]) if p != "model"])
        score = (len(shared) / total, len(shared), name, shared)
        if score[0] >= 0.5 and (best is None or score[:2] > best[:2]):
            best = score
    return None if best is None else (best[2], best[3])


def assumptions(scenario: Scenario) -> list[Assumption]:
    """Every assumed or fitted profile number ``scenario`` uses (see the module docstring)."""
    out: list[Assumption] = []
    for i, host in enumerate(scenario.hosts):
        for j, hba in enumerate(host.hbas):
            if hba.profile is not None:
                base = HbaSpec(profile=hba.profile)
                out += _listed(f"hosts.{i}.hbas.{j}", hba.profile, _shared(hba, base, hba.profile))
    array = scenario.array
    if array.profile is not None:
        base_array = ArraySpec.model_validate(
            {"pools": array.pools, "luns": array.luns, "profile": array.profile}
        )
        out += _listed("array", array.profile, _shared(array, base_array, array.profile))
    for k, pool in enumerate(array.pools):
        match = _drive_profile(pool.drive)
        if match is not None:
            out += _listed(f"array.pools.{k}.drive", *match)
    return out
