"""The twin's model: a scenario as a queueing network, before anything is solved.

* :mod:`~sanpath.theory.twin.model.network` - members (stations and delays), classes
  (one per workload and host group) and flows: :class:`Network`;
* :mod:`~sanpath.theory.twin.model.drives` - drive service and RAID work vectors;
* ``demands`` - the per-command demands of a class at every member;
* ``build`` - the scenario mapped onto a :class:`Network` (:func:`build_network`);
* ``knobs`` - the knobs a sweep varies without rebuilding the network, and the
  populations a closed loop puts into the path.
"""

from sanpath.theory.twin.model.build import build_network
from sanpath.theory.twin.model.drives import (
    F1,
    P1,
    PH,
    ROT,
    SFF,
    SFP,
    SPP,
    SPTF_GAMMA,
    DriveModel,
    V,
    Work,
    drive_work,
)
from sanpath.theory.twin.model.knobs import Knobs, apply_knobs, populations
from sanpath.theory.twin.model.network import Class, Flow, Member, Network, ReadAhead

__all__ = [
    "F1",
    "P1",
    "PH",
    "ROT",
    "SFF",
    "SFP",
    "SPP",
    "SPTF_GAMMA",
    "Class",
    "DriveModel",
    "Flow",
    "Knobs",
    "Member",
    "Network",
    "ReadAhead",
    "V",
    "Work",
    "apply_knobs",
    "build_network",
    "drive_work",
    "populations",
]
