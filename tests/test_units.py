"""Tests for sanpath.units: 1024-based sizes, SI rates, durations and their formatting."""

import math
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanpath.units import (
    FC_SPEEDS,
    FcSpeed,
    UnitError,
    format_bytes,
    format_duration,
    format_rate,
    parse_bytes,
    parse_duration,
    parse_rate,
    pcie_rate,
)

KiB, MiB, GiB, TiB = 2**10, 2**20, 2**30, 2**40


# --- sizes -----------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["8k", "8K", "8KB", "8kB", "8KiB", "8 KiB", " 8k ", "8KIB"])
def test_parse_bytes_kilo_spellings_are_all_8192(text: str) -> None:
    assert parse_bytes(text) == 8192


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1M", MiB),
        ("1MB", MiB),
        ("1MiB", MiB),
        ("1m", MiB),
        ("2G", 2 * GiB),
        ("2GB", 2 * GiB),
        ("2GiB", 2 * GiB),
        ("3T", 3 * TiB),
        ("3TB", 3 * TiB),
        ("3TiB", 3 * TiB),
        ("1.5MiB", 1572864),
        ("0.5k", 512),
        ("512B", 512),
        ("512", 512),
        ("0", 0),
        ("0B", 0),
        ("1e3", 1000),
    ],
)
def test_parse_bytes_examples(text: str, expected: int) -> None:
    assert parse_bytes(text) == expected


def test_parse_bytes_numbers() -> None:
    assert parse_bytes(4096) == 4096
    assert parse_bytes(0) == 0
    assert parse_bytes(4096.0) == 4096
    assert isinstance(parse_bytes(4096.0), int)
    assert parse_bytes(2**60) == 2**60


def test_parse_bytes_rejects_bits_with_helpful_message() -> None:
    with pytest.raises(UnitError) as info:
        parse_bytes("4Kb")
    message = str(info.value)
    assert "'4Kb'" in message
    assert "bits" in message
    assert "1024-based" in message
    for text in ["8b", "8kb", "8kib", "8Mb", "8Kbit"]:
        with pytest.raises(UnitError, match="bits"):
            parse_bytes(text)


@pytest.mark.parametrize("value", [-1, -1.0, "-1", "-8k", "-0.5KiB"])
def test_parse_bytes_rejects_negative(value: int | float | str) -> None:
    with pytest.raises(UnitError, match="negative"):
        parse_bytes(value)


@pytest.mark.parametrize("value", [0.5, "0.5", "1.3KiB", "1.5", "1e-1k"])
def test_parse_bytes_rejects_fractional_bytes(value: float | str) -> None:
    with pytest.raises(UnitError, match="whole number of bytes"):
        parse_bytes(value)


@pytest.mark.parametrize(
    "value",
    ["fast", "", "k", "8iB", "8Ki", "8 K B", "8X", "1E", "nan", "inf", "8k8", "1_000"],
)
def test_parse_bytes_rejects_garbage(value: str) -> None:
    with pytest.raises(UnitError, match="as a size"):
        parse_bytes(value)


@pytest.mark.parametrize("value", [True, False, None, [8], float("nan"), float("inf")])
def test_parse_bytes_rejects_non_numbers(value: object) -> None:
    with pytest.raises(UnitError):
        parse_bytes(value)  # type: ignore[arg-type]


def test_unit_error_is_value_error() -> None:
    assert issubclass(UnitError, ValueError)


@pytest.mark.parametrize(
    ("n", "text"),
    [
        (0, "0B"),
        (1, "1B"),
        (1000, "1000B"),
        (1023, "1023B"),
        (1024, "1KiB"),
        (1025, "1025B"),
        (1536, "1.5KiB"),
        (8192, "8KiB"),
        (MiB, "1MiB"),
        (1152 * MiB, "1.125GiB"),
        (3 * TiB, "3TiB"),
        (2**50, "1PiB"),
    ],
)
def test_format_bytes_examples(n: int, text: str) -> None:
    assert format_bytes(n) == text


@pytest.mark.parametrize("n", [-1, True, 1.5])
def test_format_bytes_rejects_bad_input(n: object) -> None:
    with pytest.raises(UnitError):
        format_bytes(n)  # type: ignore[arg-type]


@given(st.integers(0, 2**50))
def test_format_bytes_round_trips(n: int) -> None:
    assert parse_bytes(format_bytes(n)) == n


@given(
    st.integers(0, 10**6),
    st.sampled_from([("", 1), ("B", 1), ("k", KiB), ("KB", KiB), ("MiB", MiB), ("g", GiB)]),
)
def test_parse_bytes_scales_by_powers_of_1024(count: int, unit: tuple[str, int]) -> None:
    suffix, scale = unit
    assert parse_bytes(f"{count}{suffix}") == count * scale


# --- rates -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("200MB/s", 200e6),
        ("200 MB/s", 200e6),
        ("1GB/s", 1e9),
        ("200kB/s", 200e3),
        ("200KB/s", 200e3),
        ("200MiB/s", 200 * MiB),
        ("200MBps", 200e6),
        ("8Gb/s", 1e9),
        ("8Gbit/s", 1e9),
        ("8Gbps", 1e9),
        ("100B/s", 100.0),
        ("1e6", 1e6),
        ("123.5", 123.5),
        ("0", 0.0),
    ],
)
def test_parse_rate_examples(text: str, expected: float) -> None:
    assert parse_rate(text) == expected


def test_parse_rate_numbers() -> None:
    assert parse_rate(5) == 5.0
    assert parse_rate(2.5e8) == 2.5e8
    assert isinstance(parse_rate(5), float)


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("1GFC", 106.25e6),
        ("2GFC", 212.5e6),
        ("4GFC", 425e6),
        ("8GFC", 850e6),
        ("10GFC", 10.51875e9 * 64 / 66 / 8),
        ("16GFC", 1.7e9),
        ("32GFC", 28.05e9 * (256 / 257) * (514 / 528) / 8),
        ("64GFC", 57.8e9 * (256 / 257) * (514 / 544) / 8),
    ],
)
def test_fc_speed_table(name: str, expected: float) -> None:
    speed = FC_SPEEDS[name]
    assert isinstance(speed, FcSpeed)
    assert speed.name == name
    assert speed.payload_bytes_per_s == pytest.approx(expected, rel=1e-12)
    assert parse_rate(name) == speed.payload_bytes_per_s


def test_fc_exact_values_and_relations() -> None:
    assert parse_rate("4GFC") == 425e6
    assert parse_rate("8GFC") == 850e6
    assert FC_SPEEDS["4GFC"].line_rate_baud == 4.25e9
    assert FC_SPEEDS["16GFC"].encoding == "64b/66b"
    assert FC_SPEEDS["128GFC"].payload_bytes_per_s == 4 * FC_SPEEDS["32GFC"].payload_bytes_per_s


@pytest.mark.parametrize("text", ["4gfc", "4GFC", "4Gfc", " 4 GFC "])
def test_fc_names_are_case_insensitive(text: str) -> None:
    assert parse_rate(text) == 425e6


def test_pcie_rate() -> None:
    assert pcie_rate(1, 4) == 1e9
    assert pcie_rate(2, 4) == 2e9
    assert pcie_rate(3, 1) == pytest.approx(8e9 * 128 / 130 / 8)
    assert pcie_rate(4, 1) == 2 * pcie_rate(3, 1)
    assert pcie_rate(5, 1) == 2 * pcie_rate(4, 1)
    assert pcie_rate(6, 1) == pytest.approx(64e9 * 242 / 256 / 8)
    assert pcie_rate(3, 16) == 16 * pcie_rate(3, 1)


@pytest.mark.parametrize(("gen", "lanes"), [(0, 4), (7, 4), (3, 3), (3, 32), (3, 0), (True, 4)])
def test_pcie_rate_rejects_unknown_links(gen: int, lanes: int) -> None:
    with pytest.raises(UnitError, match="PCIe"):
        pcie_rate(gen, lanes)


@pytest.mark.parametrize(
    ("text", "expected"),
    [("PCIe1x4", 1e9), ("pcie2x4", 2e9), ("PCIe2x1", 500e6), ("pcie3x8", 8 * 8e9 * 128 / 130 / 8)],
)
def test_parse_rate_pcie_names(text: str, expected: float) -> None:
    assert parse_rate(text) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("fast", "as a rate"),
        ("200MB", "unknown unit"),
        ("200 MB / s", "as a rate"),
        ("200XB/s", "unknown unit"),
        ("3GFC", "Fibre Channel"),
        ("4.25GFC", "unknown unit"),
        ("PCIe7x4", "PCIe"),
        ("-200MB/s", "negative"),
        (-1, "negative"),
        (True, "as a rate"),
        (float("nan"), "as a rate"),
        ("1e999", "too large"),
    ],
)
def test_parse_rate_rejects(value: object, match: str) -> None:
    with pytest.raises(UnitError, match=match):
        parse_rate(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("x", "text"),
    [
        (200e6, "200MB/s"),
        (1.7e9, "1.7GB/s"),
        (425e6, "425MB/s"),
        (106.25e6, "106.2MB/s"),
        (999.96, "1kB/s"),
        (12.0, "12B/s"),
        (0.0, "0B/s"),
    ],
)
def test_format_rate_examples(x: float, text: str) -> None:
    assert format_rate(x) == text


@given(st.floats(1e-3, 1e18))
def test_format_rate_round_trips(x: float) -> None:
    assert math.isclose(parse_rate(format_rate(x)), x, rel_tol=5e-4)


# --- durations -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("5ms", 5e-3),
        ("20us", 20e-6),
        ("20µs", 20e-6),  # MICRO SIGN
        ("20μs", 20e-6),  # GREEK SMALL LETTER MU
        ("100ns", 100e-9),
        ("1.5s", 1.5),
        ("1.5 s", 1.5),
        ("2min", 120.0),
        ("1h", 3600.0),
        ("0.25", 0.25),
        ("0", 0.0),
    ],
)
def test_parse_duration_examples(text: str, expected: float) -> None:
    assert parse_duration(text) == expected


def test_parse_duration_numbers() -> None:
    assert parse_duration(2) == 2.0
    assert parse_duration(0.001) == 0.001
    assert isinstance(parse_duration(2), float)


@pytest.mark.parametrize(
    ("value", "match"),
    [
        ("-5ms", "negative"),
        (-1.0, "negative"),
        ("fast", "as a duration"),
        ("5m", "unknown unit"),
        ("5 days", "as a duration"),
        (True, "as a duration"),
        (None, "as a duration"),
        ("1e999s", "too large"),
    ],
)
def test_parse_duration_rejects(value: object, match: str) -> None:
    with pytest.raises(UnitError, match=match):
        parse_duration(value)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("s", "text"),
    [
        (5e-3, "5ms"),
        (20e-6, "20us"),
        (1.5, "1.5s"),
        (250e-9, "250ns"),
        (0.0, "0s"),
        (999.96e-3, "1s"),
        (1234.5678e-6, "1.235ms"),
        (59.0, "59s"),
        (90.0, "1.5min"),
        (1500.0, "25min"),
        (7200.0, "2h"),
    ],
)
def test_format_duration_examples(s: float, text: str) -> None:
    assert format_duration(s) == text


@given(st.floats(1e-12, 1e9))
def test_format_duration_round_trips(s: float) -> None:
    assert math.isclose(parse_duration(format_duration(s)), s, rel_tol=5e-4)


@given(st.floats(1e-9, 1e3))
def test_format_duration_number_is_between_1_and_1000(s: float) -> None:
    text = format_duration(s)
    number = float(text.rstrip("abcdefghijklmnopqrstuvwxyz"))
    assert 1 <= number < 1000


# --- guards: infinities and astronomical sizes ---------------------------------------


@pytest.mark.parametrize("text", [".inf", "-.inf", "inf", "+Infinity", "NaN", float("inf")])
def test_unit_parsers_refuse_infinities(text: Any) -> None:
    for parse in (parse_bytes, parse_rate, parse_duration):
        with pytest.raises(UnitError, match="not a finite number"):
            parse(text)


def test_parse_bytes_refuses_astronomical_sizes() -> None:
    assert parse_bytes("1PiB") == 1 << 50
    with pytest.raises(UnitError, match="too large"):
        parse_bytes("1e30")
