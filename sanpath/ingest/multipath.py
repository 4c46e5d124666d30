"""Each LUN once: a Linux capture that lists dm-multipath devices beside their paths.

``iostat -x`` (and ``sar -d``) list every block device: a multipath device (``dm-N``, or its
``/dev/mapper`` name such as ``mpatha`` with ``iostat -N``) and each SCSI path under it
(``sdb``, ``sdd``, ...). The same I/O is then counted twice, once on the multipath device and
once spread over its paths. The capture does not say which path belongs to which device
(``multipath -ll`` does), but the totals tell: when the path devices' I/O adds up to the
multipath devices' (within :data:`SAME_LOAD`), they are its paths, and only the multipath
devices become workloads. Otherwise both are kept and a warning asks for ``--map``.
"""

from __future__ import annotations

import dataclasses
import re

from sanpath.ingest.model import Measured

__all__ = ["MULTIPATH", "PATH", "SAME_LOAD", "multipath_once"]

MULTIPATH = re.compile(r"dm-\d+|mpath\w*")
"""Names of dm-multipath devices (the kernel's ``dm-N``, or the ``/dev/mapper`` name of a
multipath map such as ``mpatha``, the ``user_friendly_names`` default)."""

PATH = re.compile(r"sd[a-z]+")
"""Names of SCSI disk devices, which under dm-multipath are the paths."""

SAME_LOAD = 0.1
"""The path devices' I/O count as the multipath devices' own when the totals agree within
this share (both count every I/O; requests merged on one side only make the small gap)."""


def multipath_once(measured: Measured) -> Measured:
    """``measured`` with the path devices left out when they carry the multipath devices'
    I/O (a warning names both), or with a warning when they might (both kinds present,
    totals that differ: some ``sd`` devices are local disks, or some paths are missing)."""
    multipath = [d for d in measured.devices if MULTIPATH.fullmatch(d)]
    paths = [d for d in measured.devices if PATH.fullmatch(d)]
    if not multipath or not paths:
        return measured
    ios = dict.fromkeys((*multipath, *paths), 0.0)
    for s in measured.samples:
        if s.device in ios:
            ios[s.device] += (s.read_iops + s.write_iops) * s.seconds
    on_maps = sum(ios[d] for d in multipath)
    on_paths = sum(ios[d] for d in paths)
    names = f"{', '.join(multipath)} over {', '.join(paths)}"
    if on_maps > 0 and abs(on_paths / on_maps - 1.0) <= SAME_LOAD:
        kept = tuple(s for s in measured.samples if s.device not in paths)
        return dataclasses.replace(
            measured,
            samples=kept,
            warnings=(
                *measured.warnings,
                f"multipath devices and their paths ({names}): the paths carry the same I/O "
                f"({on_paths:,.0f} I/Os against {on_maps:,.0f}), so each LUN is counted once, "
                "as its multipath device; the path devices are left out (give --map to choose "
                "devices yourself)",
            ),
        )
    return dataclasses.replace(
        measured,
        warnings=(
            *measured.warnings,
            f"multipath devices and SCSI disks both listed ({names}), with different totals "
            f"({on_paths:,.0f} I/Os against {on_maps:,.0f}): some disks may be paths of the "
            "multipath devices, whose I/O would then count twice; give --map DEVICE=LUN for "
            "the devices to import",
        ),
    )
