"""Components of the I/O path, one module per hop: host, HBA, array, cache, RAID, drive."""

from sanpath.sim.components.array import ArrayPort, Lun
from sanpath.sim.components.cache import Cache, ReadAhead
from sanpath.sim.components.drive import Drive, make_drive
from sanpath.sim.components.hba import Hba, HbaPort
from sanpath.sim.components.host import HostInstance, Leg, Route, Throttle
from sanpath.sim.components.raid import RaidPool

__all__ = [
    "ArrayPort",
    "Cache",
    "Drive",
    "Hba",
    "HbaPort",
    "HostInstance",
    "Leg",
    "Lun",
    "RaidPool",
    "ReadAhead",
    "Route",
    "Throttle",
    "make_drive",
]
