"""Samples stored column by column, for measurement files of millions of intervals.

A :class:`~sanpath.ingest.model.Sample` object costs about 300 bytes (an object, and a float
object per counter). A perfmon export of a million rows over two disks is two million
samples: 600 MB as objects. :class:`SampleTable` keeps each counter the file reports in one
array of 8-byte floats (NaN where a sample lacks it; a counter no sample reports costs
nothing) and each device and host name once, so the same file costs about 180 MB. It is
still a sequence of :class:`~sanpath.ingest.model.Sample` (an item is made when it is read).
:func:`table_of` gives any sequence of samples this form, and :meth:`SampleTable.column` a
counter as a numpy array, for the span choice and aggregation of
:mod:`sanpath.ingest.interval`.

Readers never put NaN in a counter (they refuse it with the file, line and column), so NaN
can stand for "not reported".
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import fields
from typing import overload

import numpy as np

from sanpath.ingest.model import Sample

COUNTERS: tuple[str, ...] = tuple(
    f.name for f in fields(Sample) if f.name not in ("device", "host")
)
"""The numeric fields of a sample, in the order of its constructor."""


class SampleTable(Sequence[Sample]):
    """Samples kept as one float array per counter and one index per device and host name.

    Append with :meth:`append`; read back as :class:`~sanpath.ingest.model.Sample` objects
    (indexing, iteration) or as numpy columns (:meth:`column`, :meth:`device_codes`).
    """

    __slots__ = ("_columns", "_device_codes", "_devices", "_host_codes", "_hosts", "_names")

    def __init__(self) -> None:
        self._columns: dict[str, array[float]] = {}
        """The counters some sample reported; the others are NaN throughout."""
        self._device_codes: array[int] = array("i")
        self._host_codes: array[int] = array("i")
        self._devices: list[str] = []
        self._hosts: list[str | None] = []
        self._names: dict[tuple[int, str | None], int] = {}

    def _code(self, names: list[str | None] | list[str], kind: int, name: str | None) -> int:
        key = (kind, name)
        code = self._names.get(key)
        if code is None:
            code = self._names[key] = len(names)
            names.append(name)  # type: ignore[arg-type]
        return code

    def append(self, sample: Sample) -> None:
        """Store ``sample`` (nothing of the object is kept)."""
        columns = self._columns
        n = len(self)
        for name in COUNTERS:
            value = getattr(sample, name)
            column = columns.get(name)
            if column is None:
                if value is None:
                    continue  # a counter no sample has reported yet costs nothing
                column = columns[name] = array("d", [math.nan]) * n
            column.append(math.nan if value is None else value)
        self._device_codes.append(self._code(self._devices, 0, sample.device))
        self._host_codes.append(self._code(self._hosts, 1, sample.host))

    def extend(self, samples: Iterable[Sample]) -> None:
        """Store every sample of ``samples``."""
        for sample in samples:
            self.append(sample)

    def __len__(self) -> int:
        return len(self._device_codes)

    @overload
    def __getitem__(self, index: int) -> Sample: ...

    @overload
    def __getitem__(self, index: slice) -> tuple[Sample, ...]: ...

    def __getitem__(self, index: int | slice) -> Sample | tuple[Sample, ...]:
        if isinstance(index, slice):
            return tuple(self._sample(i) for i in range(len(self))[index])
        n = len(self)
        if not -n <= index < n:
            raise IndexError("sample index out of range")
        return self._sample(index % n if n else index)

    def __iter__(self) -> Iterator[Sample]:
        for i in range(len(self)):
            yield self._sample(i)

    def __eq__(self, other: object) -> bool:
        """Equal to a sequence (table, tuple or list) of the same samples in order."""
        if not isinstance(other, Sequence) or isinstance(other, str):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]  # mutable: appended to while a file is read

    def _sample(self, i: int) -> Sample:
        values: dict[str, float | None] = {}
        for name, column in self._columns.items():
            value = column[i]
            if not math.isnan(value):
                values[name] = value
        return Sample(
            device=self._devices[self._device_codes[i]],
            host=self._hosts[self._host_codes[i]],
            **values,  # type: ignore[arg-type]
        )

    def column(self, name: str) -> np.ndarray:
        """The counter ``name`` of every sample (NaN where it was not reported)."""
        if name not in COUNTERS:
            raise KeyError(f"a sample has no counter {name!r}")
        column = self._columns.get(name)
        if column is None:
            return np.full(len(self), np.nan)
        return np.frombuffer(column, dtype=np.float64)

    def device_codes(self) -> np.ndarray:
        """Each sample's device as an index into :attr:`device_names`."""
        return np.frombuffer(self._device_codes, dtype=np.intc)

    @property
    def device_names(self) -> list[str]:
        """The devices, in order of first appearance."""
        return list(self._devices)

    def where(self, keep: Callable[[str], bool]) -> SampleTable:
        """The samples of the devices ``keep`` accepts, in their order."""
        kept = {code for code, name in enumerate(self._devices) if keep(name)}
        out = SampleTable()
        for i, code in enumerate(self._device_codes):
            if code in kept:
                out.append(self._sample(i))
        return out


def table_of(samples: Sequence[Sample]) -> SampleTable:
    """``samples`` as a :class:`SampleTable` (itself when it already is one)."""
    if isinstance(samples, SampleTable):
        return samples
    table = SampleTable()
    table.extend(samples)
    return table


__all__ = ["COUNTERS", "SampleTable", "table_of"]
