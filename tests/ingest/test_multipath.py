"""Each LUN once: dm-multipath devices beside their SCSI paths (sanpath.ingest.multipath)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import sanpath
from sanpath.ingest import import_scenario
from sanpath.ingest.iostat import read
from sanpath.ingest.multipath import multipath_once

MEASURED = Path(__file__).resolve().parents[2] / "scenarios" / "measured"


def rates(path: Path) -> dict[str, float]:
    return {w.name: float(w.rate or 0.0) for w in sanpath.load_scenario(path).workloads}


def test_the_paths_of_multipath_devices_are_counted_once(tmp_path: Path) -> None:
    # the same host as iostat_x.txt, its two volumes as dm-0 and dm-1 over two paths each:
    # imported, the load must be the single-path host's, not twice it
    single = import_scenario([MEASURED / "iostat_x.txt"], out=tmp_path / "single.yaml")
    multi = import_scenario([MEASURED / "iostat_x_multipath.txt"], out=tmp_path / "multi.yaml")
    assert rates(tmp_path / "multi.yaml") == {
        "dm-0": rates(tmp_path / "single.yaml")["sdb"],
        "dm-1": rates(tmp_path / "single.yaml")["sdc"],
    }
    assert single.measured.devices == ["sdb", "sdc"]
    assert any("counted once, as its multipath device" in w for w in multi.measured.warnings)


def test_a_map_keeps_the_devices_it_names(tmp_path: Path) -> None:
    out = tmp_path / "paths.yaml"
    import_scenario([MEASURED / "iostat_x_multipath.txt"], out=out, map=["sdb=data", "sdd=data"])
    assert {w.luns[0] for w in sanpath.load_scenario(out).workloads} == {"data"}


def test_totals_that_differ_keep_both_and_warn() -> None:
    measured = read(MEASURED / "iostat_x_multipath.txt")
    # without one path of each volume the disks carry half the multipath devices' I/O: they
    # may be some of its paths, or other disks; nothing is left out, the warning says why
    partial = dataclasses.replace(
        measured, samples=tuple(s for s in measured.samples if s.device not in ("sdd", "sde"))
    )
    kept = multipath_once(partial)
    assert kept.devices == partial.devices
    assert "may be paths of the multipath devices" in kept.warnings[-1]
    # a capture without multipath devices is left as it is
    plain = read(MEASURED / "iostat_x.txt")
    assert multipath_once(plain) is plain
