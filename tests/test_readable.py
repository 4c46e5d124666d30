"""Numbers and names for people (:mod:`sanpath.readable`)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanpath.readable import column_label, number, percent, short_name, table


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (2.51e05, "251,000"),
        (1.281e04, "12,810"),
        (2.914e-16, "0"),
        (61155.7, "61,200"),
        (27201.1, "27,200"),
        (2048, "2,048"),
        (24.368, "24.4"),
        (0.853, "0.853"),
        (101.43, "101"),
        (5.0, "5"),
        (1.5, "1.50"),
        (0.000123, "0.000123"),
        (-14.5, "-14.5"),
        (float("nan"), "-"),
        (None, "-"),
        (float("inf"), "inf"),
        ("text", "text"),
        (True, "yes"),
    ],
)
def test_numbers_read_as_people_write_them(value: object, text: str) -> None:
    assert number(value) == text


@given(st.floats(min_value=-1e12, max_value=1e12, allow_nan=False))
def test_never_scientific_and_close_to_the_value(x: float) -> None:
    text = number(x)
    assert "e" not in text
    back = float(text.replace(",", ""))
    # whole numbers exact, else three significant digits; magnitudes under 1e-9 are 0
    tolerance = 0.0 if x.is_integer() else 5e-3 * abs(x) + 1e-9
    assert math.isclose(back, x, abs_tol=tolerance), (x, text)


def test_percent() -> None:
    assert percent(0.86) == "86%"
    assert percent(-0.145, signed=True, digits=1) == "-14.5%"
    assert percent(0.606, signed=True, digits=1) == "+60.6%"
    assert percent(math.nan) == "-"


def test_labels_for_keys_and_columns() -> None:
    assert short_name("hosts.0.hbas.0.queue_depth") == "HBA queue depth"
    assert column_label("hosts.0.hbas.0.queue_depth") == "HBA queue depth"
    assert column_label("latency_ms_p99") == "p99 latency (ms)"
    assert column_label("latency_ms_p99_9") == "p99.9 latency (ms)"
    assert column_label("twin_latency_ms_mean") == "twin mean latency (ms)"
    assert column_label("read_latency_ms_mean") == "mean read latency (ms)"
    assert column_label("exchange_ms_max") == "max exchange time (ms)"
    assert column_label("breakdown_ms_lun_queue") == "LUN queue (ms)"
    assert column_label("mb_per_s") == "MB/s"
    assert column_label("qfull_per_s") == "QUEUE FULL per s"
    assert column_label("something_else") == "something else"


def test_a_table_puts_its_keys_first_and_labels_everything() -> None:
    frame = pd.DataFrame(
        {
            "iops": [1639.3, 61155.7],
            "hosts.0.count": [1, 16],
            "latency_ms_p99": [24.368, 2.914e-16],
            "bottleneck": ["drives", "port"],
        }
    )
    shown = table(frame)
    assert list(shown.frame.columns) == ["hosts", "IOPS", "p99 latency (ms)", "bottleneck"]
    assert shown.keys == 1 and shown.numeric == (True, True, True, False)
    assert shown.frame.iloc[1].tolist() == ["16", "61,200", "0", "port"]
    html = shown._repr_html_()
    assert html.startswith('<div class="sanpath-table"><table>')
    assert '<th class="key num" style="text-align: right">hosts</th>' in html
    assert "<td>port</td>" in html
    lines = str(shown).splitlines()
    assert lines[0].split() == ["hosts", "IOPS", "p99", "latency", "(ms)", "bottleneck"]
    assert lines[2].endswith("port") and " 61,200 " in lines[2]


def test_a_named_index_is_the_key_and_shares_read_as_percentages() -> None:
    frame = pd.DataFrame({"utilization": [0.8512], "iops": [10.0]}, index=pd.Index(["a"]))
    frame.index.name = "name"
    shown = table(frame, labels={"name": "station"}, percent_columns=["utilization"])
    assert list(shown.frame.columns) == ["station", "busy", "IOPS"]
    assert shown.frame.iloc[0].tolist() == ["a", "85%", "10"]
    with pytest.raises(KeyError, match="no column"):
        table(frame, keys=["missing"])


def test_measured_figures_and_units_for_people() -> None:
    from sanpath.readable import duration, figure, plus_minus, rate, size

    # three significant digits at every magnitude, never e-notation (5358.5 IOPS, 1.449e+04)
    assert [figure(x) for x in (5358.48, 14493.2, 75.235, 0.00464945, 999.6)] == [
        "5,360",
        "14,500",
        "75.2",
        "0.00465",
        "1,000",
    ]
    assert plus_minus(27201.1, (26544.5, 27857.6)) == "±2.4%"
    assert plus_minus(100.0, None) == ""
    # units with a space and the micro sign: not "2us" or "850MB/s"
    assert [duration(2e-6), duration(0.0046), rate(850e6), size(512 << 10)] == [
        "2 µs",
        "4.6 ms",
        "850 MB/s",
        "512 KiB",
    ]
