"""The table of a sweep: one row per point and replicate, and ways to look at it.

Pure data: a :class:`SweepResult` can be built by :func:`sanpath.sweep`, read back from a
file it wrote, or made by hand from any table with the same columns.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from sanpath.files import (
    atomic_path,
    check_input,
    check_output,
    check_overwrite,
    locked,
    read_input,
    write_text,
)
from sanpath.stats import mean_ci

if TYPE_CHECKING:
    import pandas as pd

METRICS = (
    "iops",
    "mb_per_s",
    "latency_ms_mean",
    "latency_ms_p50",
    "latency_ms_p90",
    "latency_ms_p99",
    "latency_ms_p99_9",
    "latency_ms_max",
    "qfull",
    "retries",
    "commands",
    "split_children",
)
"""Columns :meth:`SweepResult.summary` aggregates over replicates."""


TABLE_SUFFIXES = (".csv", ".json")
"""Extensions a sweep table can be written with."""

SIDECAR_SUFFIX = ".sweep.json"
"""Appended to a CSV table's name for the file holding its identity, keys and metadata."""


def check_table_path(path: str | Path, identity: str, force: bool = False) -> Path:
    """Refuse ``path`` for a sweep table before the sweep runs.

    See :func:`sanpath.files.check_overwrite`.

    Raises
    ------
    sanpath.files.OutputError
        Naming the file, and ``--force`` where that would help.
    """
    path = check_output(path, TABLE_SUFFIXES, "sweep table", force=True)  # identity decides
    check_overwrite(path, identity, force=force, sidecar=SIDECAR_SUFFIX, writer="sweep")
    return path


@dataclass
class SweepResult:
    """The table of a sweep, and ways to look at it.

    Attributes
    ----------
    table
        One row per point and replicate: the varied keys, ``replicate``, ``seed`` (the seed
        the point ran with), ``overrides`` (JSON text of the dotted overrides that made the
        point: the base scenario's, then the point's own keys, as written), then
        ``iops, mb_per_s, latency_ms_mean, latency_ms_p50, ..., qfull, ...``. Tables written
        before sanpath recorded overrides have no ``overrides`` column.
    keys
        The varied keys, in grid order.
    complete
        False when the sweep was interrupted before every point finished.
    """

    table: pd.DataFrame
    keys: list[str]
    scenario_name: str = ""
    complete: bool = True
    attrs: dict[str, Any] = field(default_factory=dict)
    """What the sweep writer adds: ``replicates``, ``points``, ``overrides`` (those of the base
    scenario, as written), ``workload`` (what was simulated in one line, the varied keys as
    the range of their values: the plots' subtitle) and the fan-in figures plots use."""
    identity: str = ""
    """The sweep's identity (:func:`sanpath.experiments.sweep.sweep_identity`); empty for a
    table built by hand."""

    def summary(self, confidence: float = 0.95) -> pd.DataFrame:
        """Mean and interval over replicates for each point (``<metric>_lo/_hi`` columns)."""
        import pandas as pd

        metrics = [m for m in METRICS if m in self.table.columns]
        if not self.keys:
            groups: Iterator[tuple[Any, pd.DataFrame]] = iter([((), self.table)])
        else:
            groups = iter(self.table.groupby(self.keys, sort=False, dropna=False))
        rows = []
        for key, frame in groups:
            values = key if isinstance(key, tuple) else (key,)
            row: dict[str, Any] = dict(zip(self.keys, values, strict=False))
            row["replicates"] = len(frame)
            for metric in metrics:
                column = frame[metric].to_numpy(dtype=float)
                row[metric] = float(np.mean(column))
                lo, hi = mean_ci(column, confidence) if len(column) > 1 else (math.nan, math.nan)
                row[f"{metric}_lo"], row[f"{metric}_hi"] = lo, hi
            rows.append(row)
        return pd.DataFrame(rows)

    def to_xarray(self) -> Any:
        """The summary as an ``xarray.Dataset`` with one dimension per varied key."""
        try:
            import xarray  # noqa: F401
        except ImportError as exc:  # pragma: no cover - optional extra
            raise ImportError("to_xarray needs xarray: pip install sanpath[xarray]") from exc
        frame = (
            self.table.set_index([*self.keys, "replicate"])
            if self.keys
            else self.table.set_index(["replicate"])
        )
        return frame.select_dtypes("number").to_xarray()

    @property
    def hosts(self) -> pd.DataFrame | None:
        """Each host's figures at each point, one row per point, replicate and host (the
        varied keys, ``replicate``, ``host``, ``iops``, ``latency_ms_mean``,
        ``latency_ms_p99``, ``qfull``), from the table's ``hosts`` column; None without it."""
        import pandas as pd

        if "hosts" not in self.table.columns:
            return None
        rows = []
        front = [*self.keys, "replicate"]
        for _, row in self.table.iterrows():
            text = row["hosts"]
            if not isinstance(text, str) or not text:
                continue
            for name, figures in json.loads(text).items():
                rows.append({**{k: row[k] for k in front if k in row}, "host": name, **figures})
        return pd.DataFrame(rows)

    @property
    def plot(self) -> Any:
        """Plot functions bound to this result (see :mod:`sanpath.plotting`)."""
        from sanpath.plotting import SweepPlots

        return SweepPlots(self)

    def _metadata(self) -> dict[str, Any]:
        return {
            "sweep_id": self.identity or None,
            "scenario": self.scenario_name,
            "keys": self.keys,
            "complete": self.complete,
            "attrs": self.attrs,
        }

    def to_csv(self, path: str | Path) -> None:
        """Write the table as CSV (atomically), and its identity and keys beside it.

        The sidecar ``<path>.sweep.json`` keeps the CSV itself plain for any reader. It is
        written first: a table is never left without the identity that lets the same sweep
        replace it (a failure between the two leaves the old table, or none, with it).
        """
        write_text(f"{path}{SIDECAR_SUFFIX}", json.dumps(self._metadata(), indent=1))
        with atomic_path(path) as tmp:
            self.table.to_csv(tmp, index=False)

    def to_json(self, path: str | Path) -> None:
        """Write the table and its metadata (with ``sweep_id``) as JSON, atomically."""
        payload = {
            **self._metadata(),
            "rows": json.loads(self.table.to_json(orient="records")),
        }
        write_text(path, json.dumps(payload, indent=1))

    def save(self, path: str | Path, force: bool = False) -> Path:
        """Write CSV or JSON according to the file's extension; return the path.

        An existing table is overwritten only when it records this sweep's identity, or with
        ``force=True``; the check and the writing hold a lock on the table's directory
        (:func:`sanpath.files.locked`), so of two different sweeps finishing at once on one
        path, the second is refused.

        Raises
        ------
        sanpath.files.OutputError
            For a path that cannot be written (see :func:`check_table_path`).
        """
        path = check_output(path, TABLE_SUFFIXES, "sweep table", force=True)
        with locked(path.parent):
            check_overwrite(
                path, self.identity, force=force, sidecar=SIDECAR_SUFFIX, writer="sweep"
            )
            if path.suffix.lower() == ".json":
                self.to_json(path)
            else:
                self.to_csv(path)
        return path

    @classmethod
    def load(cls, path: str | Path) -> SweepResult:
        """Read a table written by :meth:`save` (CSV: keys from the sidecar, else the
        columns before ``replicate``).

        Raises
        ------
        sanpath.files.InputError
            For a path that is missing, not a regular file, or larger than
            :data:`sanpath.files.MAX_INPUT_BYTES`.
        """
        import pandas as pd

        path = check_input(path, "sweep table")
        if path.suffix == ".json":
            payload = json.loads(read_input(path, "sweep table"))
            return cls(
                pd.DataFrame(payload["rows"]),
                list(payload["keys"]),
                payload.get("scenario", ""),
                bool(payload.get("complete", True)),
                dict(payload.get("attrs", {})),
                payload.get("sweep_id") or "",
            )
        table = pd.read_csv(path)
        keys = (
            list(table.columns[: list(table.columns).index("replicate")])
            if "replicate" in table.columns
            else []
        )
        try:
            meta = json.loads(Path(f"{path}{SIDECAR_SUFFIX}").read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return cls(table, keys)
        if not isinstance(meta, dict):
            return cls(table, keys)
        return cls(
            table,
            [k for k in meta.get("keys", keys) if k in table.columns],
            str(meta.get("scenario", "")),
            bool(meta.get("complete", True)),
            dict(meta.get("attrs", {})),
            meta.get("sweep_id") or "",
        )
