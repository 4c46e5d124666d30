"""A run lists the assumed and fitted profile numbers it used."""

from __future__ import annotations

from typing import Any

import sanpath
from sanpath.spec import assumptions, load_scenario


def _scenario(hba: dict[str, Any], drive: Any, array: dict[str, Any] | None = None) -> Any:
    data = {
        "name": "uses",
        "run": {"ios": 400, "warmup_ios": 100},
        "hosts": [{"name": "h", "hbas": [hba]}],
        "array": {
            **(array or {}),
            "pools": [{"name": "p", "raid": "raid0", "drives": 2, "drive": drive}],
            "luns": [{"name": "l", "pool": "p"}],
        },
        "workloads": [{"name": "w", "block_size": "8KiB", "outstanding": 4}],
    }
    return load_scenario(data)


def _found(scenario: Any) -> set[tuple[str, str, str, str]]:
    return {(a.where, a.profile, a.field, a.kind) for a in assumptions(scenario)}


def test_an_hba_profile_numbers_assumed_ones_until_the_scenario_writes_them() -> None:
    named = _found(_scenario({"profile": "qlogic-qle2562"}, "5ms"))
    assert ("hosts.0.hbas.0", "qlogic-qle2562", "command_time", "assumed") in named
    assert not any(f == "queue_depth" for _, _, f, _ in named)  # sourced: not listed
    written = _found(_scenario({"profile": "qlogic-qle2562", "command_time": "7us"}, "5ms"))
    assert not any(f == "command_time" for _, _, f, _ in written)


def test_a_drive_is_matched_to_its_profile_and_fitted_numbers_are_listed() -> None:
    era = _found(_scenario({}, "hdd-15k"))
    assert ("array.pools.0.drive", "hdd-15k", "reorder_window", "fitted") in era
    whole = _found(_scenario({}, {"profile": "hdd-15k", "reorder_window": None}))
    assert not any(f == "reorder_window" for _, _, f, _ in whole)  # written: not listed
    changed = _found(_scenario({}, {"profile": "hdd-15k", "queue_depth": 8}))
    assert {p for _, p, _, _ in changed} == {"hdd-15k"}
    assert not any(f == "queue_depth" for _, _, f, _ in changed)
    own = {
        "model": "hdd",
        "rpm": 7200,
        "track_to_track": "1.2ms",
        "average_seek": "9ms",
        "full_stroke": "18ms",
        "media_rate_outer": "150MB/s",
        "media_rate_inner": "70MB/s",
        "overhead": "0.2ms",
        "queue_depth": 16,
        "scheduler": "fifo",
    }
    assert _found(_scenario({}, own)) == set()
    assert _found(_scenario({}, "5ms")) == set()


def test_an_array_profile_lists_its_assumed_ceiling() -> None:
    found = _found(_scenario({}, "5ms", {"profile": "ibm-flashsystem-9200"}))
    assert ("array", "ibm-flashsystem-9200", "controller.cores", "assumed") in found
    assert not any(f == "port_queue_depth" for w, _, f, _ in found if w == "array")


def test_the_result_carries_them_in_json_and_says_so_in_a_line() -> None:
    result = sanpath.run(_scenario({"profile": "qlogic-qle2562"}, "hdd-15k"))
    listed = result.to_dict()["assumptions"]
    assert {"where", "profile", "field", "kind", "note"} <= set(listed[0])
    assert len(listed) == len(result.assumptions) > 0
    line = next(x for x in result.summary().splitlines() if "profile numbers" in x)
    assert f"uses {len(listed)} assumed or fitted profile numbers" in line  # the window
    assert "qlogic-qle2562" in line and "hdd-15k" in line
    plain = sanpath.run(_scenario({}, "5ms"))
    assert "assumptions" not in plain.to_dict()
    assert "profile numbers" not in plain.summary()
