"""Scenarios that reduce to textbook queues, for validation and teaching.

Every stage of the path can be made free: links with no speed limit (``speed: null``), zero
processing times, unlimited queue depths, no cache. What is left is a plain queueing
system whose answer is known:

* :func:`open_queue` - Poisson arrivals to one station: M/M/1, M/D/1, M/G/1, M/M/c.
* :func:`closed_path` - a closed loop of ``outstanding`` I/Os through the HBA processor,
  the controller and a drive, each with any service time: with exponential service it is a
  product-form network solved exactly by MVA (:func:`sanpath.theory.mva.mva`).

They return plain dicts, so a notebook can change any field before loading them with
:func:`sanpath.load_scenario`.
"""

from __future__ import annotations

from typing import Any


def free_path(name: str = "textbook", ios: int = 50_000, warmup_ios: int = 5_000) -> dict[str, Any]:
    """A one-host, one-LUN scenario where every stage costs nothing and limits nothing."""
    return {
        "name": name,
        "seed": 1,
        "run": {"ios": ios, "warmup_ios": warmup_ios},
        "hosts": [
            {
                "name": "host",
                "lun_queue_depth": None,
                "multipath": "failover",
                "hbas": [
                    {
                        "ports": 1,
                        "speed": None,
                        "queue_depth": None,
                        "max_transfer": None,
                        "command_time": 0,
                        "pcie": None,
                    }
                ],
            }
        ],
        "fabric": {"hop_latency": 0},
        "array": {
            "ports": 1,
            "port_speed": None,
            "port_queue_depth": None,
            "controller": {"cores": 1, "io_time": 0},
            "cache": {},
            "lun_queue_depth": None,
            "pools": [
                {
                    "name": "pool",
                    "raid": "raid0",
                    "drives": 1,
                    "drive": {"dist": "constant", "mean": 0},
                }
            ],
            "luns": [{"name": "lun", "pool": "pool"}],
        },
        "workloads": [{"name": "load", "outstanding": 1, "block_size": 4096}],
    }


def open_queue(
    rate: float,
    service: Any,
    servers: int = 1,
    station: str = "drive",
    ios: int = 50_000,
    warmup_ios: int = 5_000,
) -> dict[str, Any]:
    """Poisson arrivals at ``rate`` I/Os per second to one station.

    Parameters
    ----------
    rate
        Arrival rate, I/Os per second.
    service
        A service-time spec: a duration (constant) or ``{dist: exponential, mean: ...}``.
    servers
        Number of identical servers (controller cores, or textbook drive servers).
    station
        ``drive`` (a textbook drive) or ``controller`` (the array's cores).
    """
    data = free_path(f"open-{station}", ios, warmup_ios)
    data["workloads"] = [{"name": "poisson", "rate": rate, "block_size": 4096}]
    if station == "controller":
        data["array"]["controller"] = {"cores": servers, "io_time": service}
    elif station == "drive":
        data["array"]["pools"][0]["drive"] = {
            "model": "textbook",
            "service": service,
            "servers": servers,
        }
    else:
        raise ValueError(f"station must be 'drive' or 'controller', not {station!r}")
    return data


def closed_path(
    outstanding: int,
    hba_time: Any = 0,
    controller_time: Any = 0,
    drive_time: Any = 0,
    cores: int = 1,
    hba_queue_depth: int | None = None,
    ios: int = 50_000,
    warmup_ios: int = 5_000,
) -> dict[str, Any]:
    """A closed loop of ``outstanding`` I/Os through HBA processor, controller and drive.

    ``hba_queue_depth`` limits how many of them are inside the HBA and beyond (the rest
    wait in the host), which turns population N into min(N, queue depth).
    """
    data = free_path("closed", ios, warmup_ios)
    data["workloads"] = [{"name": "closed", "outstanding": outstanding, "block_size": 4096}]
    data["hosts"][0]["hbas"][0]["command_time"] = hba_time
    data["hosts"][0]["hbas"][0]["queue_depth"] = hba_queue_depth
    data["array"]["controller"] = {"cores": cores, "io_time": controller_time}
    data["array"]["pools"][0]["drive"] = {"model": "textbook", "service": drive_time}
    return data
