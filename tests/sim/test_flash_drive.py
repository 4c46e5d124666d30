"""The datasheet flash drive (model: flash): striping, the interface crossed once, writes."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.spec import FlashSpec, PoolSpec
from sanpath.theory.textbook import free_path

P5510: dict[str, Any] = {
    "model": "flash",
    "interface": {"kind": "nvme", "gen": 4, "lanes": 4},
    "read_iops": 930_000,
    "write_iops": 190_000,
    "read_latency": "82us",
    "write_latency": "15us",
    "read_rate": "6500MB/s",
    "write_rate": "4200MB/s",
}


def _run(
    drive: Any,
    depth: int,
    block: Any,
    read: float = 1.0,
    seq: bool = False,
    max_transfer: Any = None,
    ios: int = 4000,
) -> Any:
    data = free_path(ios=ios, warmup_ios=ios // 10)
    data["array"]["pools"][0]["drive"] = drive
    data["hosts"][0]["hbas"][0]["max_transfer"] = max_transfer
    data["workloads"][0].update(
        outstanding=depth,
        block_size=block,
        read_fraction=read,
        pattern="sequential" if seq else "random",
    )
    return sanpath.run(data)


def test_units_are_derived_not_written() -> None:
    spec = FlashSpec.model_validate(P5510)
    m = spec.model_parameters
    assert spec.units == m.units == 72  # 930K x (82 us - 4 us - 0.5 us)
    assert m.read_fixed + m.units / 930_000 + 4096 / m.interface_rate == pytest.approx(82e-6)
    with pytest.raises(ValueError, match="derived"):
        FlashSpec.model_validate({**P5510, "units": 8})
    # a dump reads back (the derived values match)
    assert FlashSpec.model_validate(spec.model_dump()) == spec


def test_interface_must_carry_the_datasheet_figures() -> None:
    with pytest.raises(ValueError, match="interface"):
        FlashSpec.model_validate({**P5510, "interface": {"kind": "nvme", "gen": 3, "lanes": 2}})


def test_splitting_a_large_read_no_longer_multiplies_its_speed() -> None:
    whole = _run(P5510, 1, "512KiB", seq=True)
    split = _run(P5510, 1, "512KiB", seq=True, max_transfer="64KiB")
    assert split.iops == pytest.approx(whole.iops, rel=0.2)
    old_whole = _run("ssd", 1, "512KiB", seq=True)
    old_split = _run("ssd", 1, "512KiB", seq=True, max_transfer="64KiB")
    assert old_split.iops > 3 * old_whole.iops  # the simple model's known flaw, kept


def test_one_sequential_stream_reaches_the_datasheet_rate() -> None:
    r = _run(P5510, 32, "128KiB", seq=True)
    assert r.iops * 131072 == pytest.approx(6.5e9, rel=0.02)


def test_read_latency_rises_when_writes_share_the_drive() -> None:
    data = free_path(ios=8000, warmup_ios=800)
    data["array"]["pools"][0]["drive"] = P5510
    data["workloads"][0].update(name="reads", outstanding=8, block_size="4KiB")
    alone = sanpath.run(data).by_workload.loc["reads", "read_latency_ms_mean"]
    data["workloads"].append(
        {"name": "writes", "outstanding": 64, "block_size": "4KiB", "read_fraction": 0.0}
    )
    shared = sanpath.run(data).by_workload.loc["reads", "read_latency_ms_mean"]
    assert alone == pytest.approx(0.082, rel=0.05)
    assert shared > 2 * alone


def test_steady_state_write_figure_sets_the_sustained_rate() -> None:
    spec = {**P5510, "steady_write_iops": 100_000}
    r = _run(spec, 256, "4KiB", read=0.0, ios=8000)
    assert r.iops == pytest.approx(100_000, rel=0.02)
    qd1 = _run(spec, 1, "4KiB", read=0.0)
    assert qd1.latency_ms["mean"] == pytest.approx(0.015, rel=0.01)


def test_sata_is_half_duplex_and_a_profile_names_a_flash_drive() -> None:
    drive = PoolSpec(name="p", drive="kingston-dc600m").drive
    assert isinstance(drive, FlashSpec)
    assert not drive.model_parameters.duplex
