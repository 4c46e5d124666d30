"""Sweep results (sanpath.results): saved tables and the sidecar that records their identity."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from sanpath import files
from sanpath.results import SweepResult
from sanpath.results.sweep import SIDECAR_SUFFIX

OIO = "workloads.0.outstanding"


def sanpath_table() -> pd.DataFrame:
    return pd.DataFrame(
        {
            OIO: [1, 2, 4],
            "replicate": [0, 0, 0],
            "iops": [100.0, 180.0, 250.0],
            "latency_ms_mean": [10.0, 11.0, 16.0],
        }
    )


def test_csv_without_sidecar_still_loads(tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    SweepResult(sanpath_table(), [OIO], identity="abc").save(out)
    Path(f"{out}{SIDECAR_SUFFIX}").unlink()
    loaded = SweepResult.load(out)
    assert loaded.keys == [OIO] and loaded.identity == ""
    assert files.recorded_identity(out, SIDECAR_SUFFIX) is None
