"""Where an HBA processes commands (``hosts.N.hbas.M.processor``): per port or per card.

A dual-port card under a small-I/O closed load, with every other stage fast (512-byte reads
served from cache, an array with many quick cores), is limited by its command processor:
``1 / command_time`` commands per second per processor. With one processor per port the
second port doubles that; with one per card it adds nothing. The analytic twin follows the
same rule.
"""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.spec import ScenarioError, load_scenario
from sanpath.theory import textbook
from sanpath.theory.twin import predict

COMMAND_TIME = 20e-6
"""Seconds per command on one HBA processor: 50,000 commands per second."""


def small_io_card(ports: int, processor: str, outstanding: int = 32) -> dict[str, Any]:
    """One host, one card of ``ports`` ports round-robin over two array ports, cache hits."""
    data = textbook.free_path("hba-processor", ios=20_000, warmup_ios=2_000)
    data["hosts"][0].update(multipath="round-robin")
    data["hosts"][0]["hbas"] = [
        {
            "ports": ports,
            "speed": "8GFC",
            "queue_depth": None,
            "command_time": f"{COMMAND_TIME * 1e6:g}us",
            "processor": processor,
        }
    ]
    data["fabric"] = {"hop_latency": "1us"}
    data["array"]["ports"] = 2
    data["array"]["port_speed"] = "8GFC"
    data["array"]["controller"] = {"cores": 16, "io_time": "5us"}
    data["array"]["cache"] = {"read_hit": 1.0, "hit_time": "1us"}
    data["workloads"] = [
        {"name": "small", "outstanding": outstanding, "block_size": 512, "read_fraction": 1.0}
    ]
    return data


def iops(ports: int, processor: str) -> float:
    return sanpath.run(small_io_card(ports, processor)).iops


def test_the_processor_is_the_bottleneck_on_one_port() -> None:
    one = iops(1, "port")
    assert one == pytest.approx(1.0 / COMMAND_TIME, rel=0.03)
    assert iops(1, "card") == one  # one port: the same processor either way


def test_per_port_processors_double_small_io_throughput() -> None:
    assert iops(2, "port") / iops(1, "port") == pytest.approx(2.0, rel=0.03)


def test_a_card_processor_does_not_rise_with_a_second_port() -> None:
    assert iops(2, "card") / iops(1, "card") == pytest.approx(1.0, rel=0.03)


@pytest.mark.parametrize("processor", ["port", "card"])
def test_the_twin_agrees_with_the_simulation(processor: str) -> None:
    data = small_io_card(2, processor)
    twin, sim = predict(data), sanpath.run(data)
    assert twin.iops == pytest.approx(sim.iops, rel=0.05)
    assert twin.latency_ms_mean == pytest.approx(sim.latency_ms["mean"], rel=0.05)
    assert twin.bottleneck == "host.hba.cpu"
    assert sim.station("host.hba.cpu").servers == (2.0 if processor == "port" else 1.0)


def test_default_is_the_modern_card_one_processor_per_port() -> None:
    """An HBA that names no profile is the 16GFC card of DEFAULT_HBA: its speed, command time
    and per-port processors (each port adds a million commands per second)."""
    from sanpath.spec import HbaSpec
    from sanpath.spec.host import DEFAULT_HBA
    from sanpath.spec.profiles import HBA_PROFILES

    data = small_io_card(2, "card")
    for key in ("processor", "speed", "command_time"):
        del data["hosts"][0]["hbas"][0][key]
    hba = load_scenario(data).hosts[0].hbas[0]
    named = HbaSpec.model_validate(HBA_PROFILES[DEFAULT_HBA])
    assert (hba.processor, hba.speed, hba.command_time) == (
        named.processor,
        named.speed,
        named.command_time,
    )
    assert hba.processor == "port" and hba.processors == 2
    assert hba.command_time.mean == pytest.approx(1e-6)
    assert hba.speed == pytest.approx(1.7e9)  # 16GFC per direction


def test_a_bad_value_is_located() -> None:
    data = small_io_card(2, "chip")
    with pytest.raises(ScenarioError) as err:
        load_scenario(data)
    assert "hosts.0.hbas.0.processor" in str(err.value)


def test_profiles_state_their_processor() -> None:
    from sanpath.spec.profiles import HBA_PROFILES

    for name, fields in HBA_PROFILES.items():
        assert fields["processor"] in ("port", "card"), name
        assert "command_time" in fields, name
