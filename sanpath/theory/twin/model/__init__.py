"""The twin's model: a scenario as a queueing network, before anything is solved.

* :mod:`~sanpath.theory.twin.model.network` - members (stations and delays), classes
  (one per workload and host group) and flows: :class:`Network`;
* :mod:`~sanpath.theory.twin.model.drives` - drive service and RAID work vectors;
* ``demands`` - the per-command demands of a class at every member;
* ``build`` - the scenario mapped onto a :class:`Network` (:func:`build_network`);
* ``knobs`` - the knobs a sweep varies without rebuilding the network, and the
  populations a closed loop puts into the path.
"""

# build, demands and knobs keep their private names while the hops rewrite changes them;
# the face publishes the ones the solvers and the entry points use
from sanpath.theory.twin.model.build import _build as build_network
from sanpath.theory.twin.model.drives import (
    F1,
    P1,
    PH,
    SFF,
    SFP,
    SPP,
    SPTF_GAMMA,
    DriveModel,
    V,
    Work,
    drive_work,
)
from sanpath.theory.twin.model.knobs import _apply_knobs as apply_knobs
from sanpath.theory.twin.model.knobs import _Knobs as Knobs
from sanpath.theory.twin.model.knobs import _populations as populations
from sanpath.theory.twin.model.network import Class, Flow, Member, Network, ReadAhead

__all__ = [
    "F1",
    "P1",
    "PH",
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
