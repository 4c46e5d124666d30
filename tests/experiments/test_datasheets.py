"""Each profile of today's hardware reproduces its own datasheet within 10%."""

from __future__ import annotations

import pytest

from sanpath.experiments.datasheets import (
    array_rows,
    drive_rows,
    flash_drives,
    hba_rows,
    table,
)
from sanpath.spec.profiles.modern import FLASH_ARRAYS, MODERN_HBAS


def test_at_least_six_flash_drives_six_hbas_four_arrays() -> None:
    assert len(flash_drives()) >= 6
    assert len(MODERN_HBAS) >= 6
    assert len(FLASH_ARRAYS) >= 4


@pytest.mark.parametrize("name", flash_drives())
def test_flash_drive_meets_its_datasheet(name: str) -> None:
    rows = drive_rows(name, ios=6000)
    assert len(rows) == 6  # IOPS, depth-1 latency, sequential MB/s; reads and writes
    bad = [r for r in rows if abs(r.error) > 0.10]
    assert not bad, table(bad)


@pytest.mark.parametrize("name", list(MODERN_HBAS))
def test_hba_meets_its_published_port_figures(name: str) -> None:
    bad = [r for r in hba_rows(name, ios=6000) if abs(r.error) > 0.10]
    assert not bad, table(bad)


@pytest.mark.parametrize("name", list(FLASH_ARRAYS))
def test_array_meets_its_controller_ceiling(name: str) -> None:
    bad = [r for r in array_rows(name, ios=20_000) if abs(r.error) > 0.10]
    assert not bad, table(bad)


def test_qlc_and_tlc_differ_where_their_datasheets_do() -> None:
    """The QLC drive reads like a TLC drive of its generation and writes far slower."""
    qlc = {r.figure: r.model for r in drive_rows("solidigm-d5-p5336", ios=4000)}
    tlc = {r.figure: r.model for r in drive_rows("solidigm-d7-p5510", ios=4000)}
    writes = "random 4 KiB writes/s at depth 256"
    reads = "random 4 KiB reads/s at depth 256"
    assert qlc[writes] < 0.25 * tlc[writes]
    assert abs(qlc[reads] / tlc[reads] - 1) < 0.15
    assert qlc["write latency at depth 1"] > 1.5 * tlc["write latency at depth 1"]
    assert qlc["read latency at depth 1"] > tlc["read latency at depth 1"]
