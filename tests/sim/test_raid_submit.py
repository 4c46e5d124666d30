"""A RAID pool submits exactly the drive commands of the layout's mapping, in its order."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sanpath import compiled
from sanpath.layout.raid import ranges
from sanpath.sim.components.drive import DriveOp
from sanpath.sim.components.raid import RaidPool
from sanpath.sim.kernel import Kernel
from sanpath.spec import PoolSpec


class _Recorder:
    """A drive that records the commands submitted to it (drive number, offset, length)."""

    def __init__(self, number: int, log: list[tuple[int, int, int]], event_driven: bool):
        self.number = number
        self.log = log
        self.event_driven = event_driven
        self.outstanding = 0

    def submit(self, op: DriveOp, now: float) -> None:
        self.log.append((self.number, op.offset, op.size))


@pytest.mark.skipif(
    compiled.core() == "compiled",
    reason="stand-in drives record the commands: the compiled core accepts only its drives",
)
@settings(max_examples=300, deadline=None)
@given(
    level=st.sampled_from(["raid0", "raid5", "raid6", "raid10"]),
    width=st.integers(2, 7),
    groups=st.integers(1, 6),
    element=st.sampled_from([4096, 65536]),
    slice_rows=st.sampled_from([None, 1, 3]),
    first_row=st.integers(0, 40),
    within=st.integers(0, 1 << 20),
    size=st.integers(1, 1 << 21),
)
def test_a_read_submits_the_commands_of_read_commands_in_order(
    level: str,
    width: int,
    groups: int,
    element: int,
    slice_rows: int | None,
    first_row: int,
    within: int,
    size: int,
) -> None:
    """Whichever way the pool submits a read (one element, rows each in a group of their own,
    or gathered by drive), the drives get the commands of ``read_commands``, in its order."""
    width = max(width, {"raid0": 1, "raid5": 3, "raid6": 4, "raid10": 4}[level])
    if level == "raid10":
        width += width % 2
    fields = {"raid": level, "drives": width, "groups": groups, "stripe_element": element}
    spec = PoolSpec(name="p", drive="hdd-15k", **fields)
    if slice_rows is not None:
        row_bytes = spec.data_drives * element
        spec = PoolSpec(name="p", drive="hdd-15k", slice=slice_rows * row_bytes, **fields)
    log: list[tuple[int, int, int]] = []
    drives = [
        [_Recorder(g * width + m, log, (g + m) % 2 == 0) for m in range(width)]
        for g in range(groups)
    ]
    pool = RaidPool(Kernel(), spec, drives)  # type: ignore[arg-type]
    offset = first_row * pool.row_bytes + within % pool.row_bytes
    pool.start_read(offset, size, 0.0)
    spans = pool.layout.read_commands(offset, size)
    assert log == [(d, start, length) for d, b in spans.items() for start, length in ranges(b)]


@pytest.mark.skipif(compiled.core() != "compiled", reason="the test above runs in this process")
def test_the_submission_test_also_runs_where_the_core_is_compiled() -> None:
    """The compiled core accepts only its own drives, so the recording test above runs in a
    process of its own on the pure-Python core: the same RAID code, uncompiled."""
    name = test_a_read_submits_the_commands_of_read_commands_in_order.__name__
    out = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"{__file__}::{name}"],
        env={**os.environ, "SANPATH_PURE_PYTHON": "1"},
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stdout + out.stderr
    assert "1 passed" in out.stdout, out.stdout
