"""Samples kept as columns: the same samples back, the same aggregates, a fraction of the memory."""

from __future__ import annotations

import math
import tracemalloc

import hypothesis.strategies as st
import numpy as np
import pytest
from hypothesis import given, settings

from sanpath.ingest.interval import aggregate
from sanpath.ingest.model import Sample
from sanpath.ingest.table import SampleTable, table_of

_value = st.floats(min_value=0.0, max_value=1e9, allow_nan=False)
_maybe = st.none() | _value


@st.composite
def _samples(draw: st.DrawFn) -> list[Sample]:
    devices = draw(
        st.lists(st.sampled_from(["sda", "sdb", "E:", "naa.1"]), min_size=1, max_size=12)
    )
    return [
        Sample(
            device=d,
            start=float(i),
            seconds=draw(st.floats(min_value=0.5, max_value=60.0)),
            read_iops=draw(_value),
            write_iops=draw(_value),
            read_bytes_per_s=draw(_value),
            write_bytes_per_s=draw(_value),
            read_latency_s=draw(_maybe),
            write_latency_s=draw(_maybe),
            queue_length=draw(_maybe),
            host=draw(st.sampled_from([None, "esx1", "db01"])),
            utilization=draw(_maybe),
        )
        for i, d in enumerate(devices)
    ]


@settings(max_examples=60, deadline=None)
@given(_samples())
def test_a_table_gives_back_the_samples_it_was_given(samples: list[Sample]) -> None:
    table = table_of(samples)
    assert len(table) == len(samples)
    assert list(table) == samples
    assert table == tuple(samples)
    assert table[-1] == samples[-1] and table[1:3] == tuple(samples[1:3])
    assert table.device_names == list(dict.fromkeys(s.device for s in samples))
    kept = table.where(lambda d: d != "sda")
    assert list(kept) == [s for s in samples if s.device != "sda"]
    queue = table.column("queue_length")
    for s, q in zip(samples, queue, strict=True):
        assert (s.queue_length is None and math.isnan(q)) or s.queue_length == q
    assert np.isnan(table.column("active")).all()  # reported by no sample


@settings(max_examples=60, deadline=None)
@given(_samples())
def test_aggregates_weight_rates_by_time_and_latency_by_ios(samples: list[Sample]) -> None:
    got = aggregate(samples)
    seconds = sum(s.seconds for s in samples)
    assert got.seconds == pytest.approx(seconds)
    assert got.read_iops == pytest.approx(sum(s.read_iops * s.seconds for s in samples) / seconds)
    pairs = [
        (s.read_latency_s, s.read_iops * s.seconds) for s in samples if s.read_latency_s is not None
    ]
    if not pairs:
        assert got.read_latency_s is None
    elif sum(w for _, w in pairs) > 0:
        expected = sum(v * w for v, w in pairs) / sum(w for _, w in pairs)
        assert got.read_latency_s == pytest.approx(expected)
    assert got.device == samples[0].device and got.host == samples[0].host
    assert got.active is None


def test_an_index_out_of_range_and_an_unknown_counter_are_errors() -> None:
    table = SampleTable()
    with pytest.raises(IndexError):
        table[0]
    with pytest.raises(KeyError):
        table.column("iops")


def test_a_perfmon_like_sample_costs_a_third_of_its_object() -> None:
    """Nine counters of 8 bytes and two name codes: about 90 bytes, against about 300 for a
    Sample object with its float objects (so a million rows of two disks fit in 300 MB)."""

    def sample(i: int) -> Sample:
        return Sample(
            device=f"{i % 2} E:",
            start=15.0 * i,
            seconds=15.0,
            read_iops=1000.0 + i,
            write_iops=200.0 + i,
            read_bytes_per_s=8192.0 * i,
            write_bytes_per_s=4096.0 * i,
            read_latency_s=0.002 + i * 1e-9,
            write_latency_s=0.001 + i * 1e-9,
            queue_length=3.0 + i * 1e-6,
            host="SQLPROD01",
        )

    n = 20_000
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        objects = [sample(i) for i in range(n)]
        as_objects = tracemalloc.get_traced_memory()[0] - base
        del objects
        base = tracemalloc.get_traced_memory()[0]
        table = SampleTable()
        for i in range(n):
            table.append(sample(i))
        as_columns = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    assert len(table) == n
    assert as_columns / n < 110, as_columns / n
    assert as_columns < as_objects / 2.5, (as_columns / n, as_objects / n)
