"""Parse and format sizes, rates and durations.

Internally sanpath works in SI base units only: sizes are ``int`` bytes, rates are
``float`` bytes per second and durations are ``float`` seconds.  This module turns the
strings people write in scenario files into those numbers and back.

Two conventions meet here, on purpose:

* **Sizes are 1024-based.**  Block and transfer sizes are pasted from fio, sqlio and
  DiskSpd command lines, where ``8k``, ``8K``, ``8KB`` and ``8KiB`` all mean 8192
  bytes.  Reading ``8KB`` as 8000 would give I/O sizes no storage tool ever issues.
* **Rates are SI decimal.**  Vendors quote link and device throughput as ``MB/s`` =
  10**6 bytes/s and ``Gb/s`` = 10**9 bits/s, so ``200MB/s`` is 200e6 bytes/s.  Binary
  rates are still available when asked for explicitly (``200MiB/s``).

A lower-case ``b`` means bits: it is accepted in rates (``8Gb/s``) and rejected in sizes,
where it is almost always a typo.  Named Fibre Channel speeds (``16GFC``), Ethernet speeds
(``25GbE``) and PCIe links (``PCIe3x8``) are also accepted as rates; they mean the
per-direction payload rate after line encoding (for Ethernet: the MAC data rate, before the
per-frame preamble, headers and gap, which the transport's framing adds).
"""

import math
import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Final

__all__ = [
    "ETHERNET_SPEEDS",
    "FC_SPEEDS",
    "MAX_BYTES",
    "EthernetSpeed",
    "FcSpeed",
    "UnitError",
    "format_bytes",
    "format_duration",
    "format_rate",
    "parse_bytes",
    "parse_duration",
    "parse_rate",
    "pcie_rate",
]


class UnitError(ValueError):
    """A value could not be read as (or written from) a size, rate or duration."""


@dataclass(frozen=True)
class FcSpeed:
    """One Fibre Channel speed grade.

    Attributes
    ----------
    name : str
        Marketing name, e.g. ``"16GFC"``.
    line_rate_baud : float
        Symbol rate of one lane, in baud (symbols per second).
    encoding : str
        Line encoding and FEC, e.g. ``"64b/66b"``.
    payload_bytes_per_s : float
        Rate left for frames after encoding and FEC, in bytes per second, per direction.
    """

    name: str
    line_rate_baud: float
    encoding: str
    payload_bytes_per_s: float


# Sources: FCIA speed roadmap and Wikipedia "Fibre Channel" (table of variants) for the
# 1GFC-32GFC line rates and encodings; FCIA "64GFC FAQ" for 64GFC (28.9 GBd PAM4,
# 2 bits/symbol = 57.8 Gb/s, RS(544,514) "KP4" FEC); 128GFC is 4 parallel 32GFC lanes.
# Columns: name, baud per lane, bits per symbol, lanes, encoding, payload fraction.
_RS528 = Fraction(256, 257) * Fraction(514, 528)
_RS544 = Fraction(256, 257) * Fraction(514, 544)
_FC_TABLE: Final = (
    ("1GFC", 1.0625e9, 1, 1, "8b/10b", Fraction(8, 10)),
    ("2GFC", 2.125e9, 1, 1, "8b/10b", Fraction(8, 10)),
    ("4GFC", 4.25e9, 1, 1, "8b/10b", Fraction(8, 10)),
    ("8GFC", 8.5e9, 1, 1, "8b/10b", Fraction(8, 10)),
    ("10GFC", 10.51875e9, 1, 1, "64b/66b", Fraction(64, 66)),
    ("16GFC", 14.025e9, 1, 1, "64b/66b", Fraction(64, 66)),
    ("32GFC", 28.05e9, 1, 1, "256b/257b + RS(528,514) FEC", _RS528),
    ("64GFC", 28.9e9, 2, 1, "PAM4, 256b/257b + RS(544,514) FEC", _RS544),
    ("128GFC", 28.05e9, 1, 4, "4 lanes, 256b/257b + RS(528,514) FEC", _RS528),
)
FC_SPEEDS: Final[dict[str, FcSpeed]] = {
    name: FcSpeed(name, baud, enc, float(Fraction(baud) * bits * lanes * frac / 8))
    for name, baud, bits, lanes, enc, frac in _FC_TABLE
}


@dataclass(frozen=True)
class EthernetSpeed:
    """One Ethernet speed grade.

    Attributes
    ----------
    name : str
        Marketing name, e.g. ``"25GbE"``.
    lanes : str
        Lanes and signalling of the common optical/copper interface, e.g. ``"1 x 25.78125 GBd"``.
    encoding : str
        Line encoding and FEC, e.g. ``"64b/66b"``.
    payload_bytes_per_s : float
        The MAC data rate in bytes per second, per direction (frames, with their headers,
        preamble and inter-frame gap, are carried at this rate).
    """

    name: str
    lanes: str
    encoding: str
    payload_bytes_per_s: float


# Source: IEEE 802.3 (clauses 49/82 for 64b/66b at 10/40/100G; 802.3by for 25G; 802.3cd for
# 50G and 200G PAM4 with RS(544,514) FEC; 802.3bs for 200G/400G). Each grade's MAC rate is its
# nominal rate: the encoding and FEC ride on a faster line rate, so the MAC sees the name.
_ETHERNET_TABLE: Final = (
    ("1GbE", "1 x 1.25 GBd", "8b/10b", 1e9),
    ("10GbE", "1 x 10.3125 GBd", "64b/66b", 10e9),
    ("25GbE", "1 x 25.78125 GBd", "64b/66b (RS-FEC optional)", 25e9),
    ("40GbE", "4 x 10.3125 GBd", "64b/66b", 40e9),
    ("50GbE", "1 x 26.5625 GBd PAM4", "256b/257b + RS(544,514) FEC", 50e9),
    ("100GbE", "4 x 25.78125 GBd or 2 x 26.5625 GBd PAM4", "64b/66b + RS(528,514) FEC", 100e9),
    ("200GbE", "4 x 26.5625 GBd PAM4", "256b/257b + RS(544,514) FEC", 200e9),
    ("400GbE", "8 x 26.5625 GBd PAM4", "256b/257b + RS(544,514) FEC", 400e9),
)
ETHERNET_SPEEDS: Final[dict[str, EthernetSpeed]] = {
    name: EthernetSpeed(name, lanes, enc, bits / 8) for name, lanes, enc, bits in _ETHERNET_TABLE
}

# PCIe per-lane transfer rate (T/s) and encoding efficiency, by generation.
# Sources: PCI-SIG base specifications 1.0-6.0; Wikipedia "PCI Express" (comparison
# table).  Gen6 uses PAM4 with 256-byte FLITs carrying 242 bytes of TLP payload+CRC.
_PCIE_LANE: Final[dict[int, tuple[float, int, int]]] = {
    1: (2.5e9, 8, 10),  # 8b/10b
    2: (5e9, 8, 10),  # 8b/10b
    3: (8e9, 128, 130),  # 128b/130b
    4: (16e9, 128, 130),
    5: (32e9, 128, 130),
    6: (64e9, 242, 256),  # FLIT mode
}
_PCIE_LANES: Final = (1, 2, 4, 8, 16)

_NUMBER = r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d{1,3})?"
_QUANTITY_RE: Final = re.compile(rf"(?P<num>{_NUMBER})\s*(?P<unit>\S*)")
_FC_RE: Final = re.compile(r"(\d+)\s*GFC", re.IGNORECASE)
_ETHERNET_RE: Final = re.compile(r"(\d+)\s*GbE", re.IGNORECASE)
_PCIE_RE: Final = re.compile(r"pcie\s*(?:gen\s*)?(\d+)\s*x\s*(\d+)", re.IGNORECASE)
_RATE_UNIT_RE: Final = re.compile(
    r"(?:(?P<prefix>[kKmMgGtTpP])(?P<i>i?))?(?P<kind>B|bit|b)(?:/s|ps)"
)
_PREFIXES: Final = "KMGTP"

_SIZE_UNITS: Final[dict[str, int]] = {"": 1, "B": 1} | {
    p + suffix: 1024 ** (i + 1) for i, p in enumerate(_PREFIXES) for suffix in ("", "B", "IB")
}
_DURATION_UNITS: Final[dict[str, Fraction]] = {
    **dict.fromkeys(("", "s"), Fraction(1)),
    "ms": Fraction(1, 10**3),
    **dict.fromkeys(("us", "µs", "μs"), Fraction(1, 10**6)),
    "ns": Fraction(1, 10**9),
    "min": Fraction(60),
    "h": Fraction(3600),
}

_NOT_FINITE: Final = frozenset({"inf", "infinity", "nan"})
"""How YAML and Python spell infinities and NaN (after signs and YAML's leading dot)."""
MAX_BYTES: Final = 1 << 80
"""Largest size :func:`parse_bytes` reads (1 YiB): anything larger is a typo, and sizes
stay exact integers a scenario's own bounds can compare."""

_SIZE_HINT: Final = "write e.g. '8KiB', '8k' or '512KB' (sizes are 1024-based)"
_RATE_HINT: Final = (
    "write e.g. '200MB/s' (10^6 bytes/s), '200MiB/s', '8Gb/s' (bits), "
    "'16GFC', '25GbE', 'PCIe3x8' or a bare number of bytes/s"
)
_DURATION_HINT: Final = "write e.g. '5ms', '20us', '100ns', '1.5s', '2min', '1h' or bare seconds"


def _split(value: object, what: str, hint: str) -> tuple[Fraction, str]:
    """Split ``value`` into an exact non-negative number and its unit text."""
    if (isinstance(value, float) and not math.isfinite(value)) or (
        isinstance(value, str) and value.strip().lower().lstrip("+-.") in _NOT_FINITE
    ):
        raise UnitError(f"cannot read {value!r} as a {what}: it is not a finite number; {hint}")
    if isinstance(value, str) and (match := _QUANTITY_RE.fullmatch(value.strip())):
        number, unit = match["num"], match["unit"]
    elif isinstance(value, int | float) and not isinstance(value, bool):
        number, unit = value, ""
    else:
        raise UnitError(f"cannot read {value!r} as a {what}: {hint}")
    try:
        amount = Fraction(number)
    except (ValueError, OverflowError) as exc:  # nan, inf, absurdly long digit strings
        raise UnitError(f"cannot read {value!r} as a {what}: {hint}") from exc
    if amount < 0:
        raise UnitError(f"cannot read {value!r} as a {what}: it is negative; expected a value >= 0")
    return amount, unit


def _to_float(amount: Fraction, value: object, what: str) -> float:
    """Round ``amount`` to the nearest float, or raise if it overflows."""
    try:
        return float(amount)
    except OverflowError as exc:
        raise UnitError(f"cannot read {value!r} as a {what}: it is too large") from exc


def parse_bytes(value: int | float | str) -> int:
    """Read a size, 1024-based as in fio/sqlio/DiskSpd.

    Parameters
    ----------
    value : int, float or str
        A whole number of bytes, or a string such as ``"8k"``, ``"8KB"``, ``"8 KiB"``,
        ``"1.5MiB"`` or ``"512B"``.  ``K``, ``M``, ``G``, ``T``, ``P`` are powers of 1024
        whatever their case or ``i``.

    Returns
    -------
    int
        Size in bytes (may be 0).

    Raises
    ------
    UnitError
        For bits (``"4Kb"``), negatives, bools, infinities and NaN, unknown units, fractional
        bytes or sizes above :data:`MAX_BYTES`.
    """
    amount, unit = _split(value, "size", _SIZE_HINT)
    if unit.endswith("b") or unit.lower().endswith("bit"):
        raise UnitError(f"cannot read {value!r} as a size: 'b' means bits; {_SIZE_HINT}")
    scale = _SIZE_UNITS.get(unit.upper())
    if scale is None:
        raise UnitError(f"cannot read {value!r} as a size: unknown unit {unit!r}; {_SIZE_HINT}")
    size = amount * scale
    if size > MAX_BYTES:
        raise UnitError(f"cannot read {value!r} as a size: it is too large (more than 1 YiB)")
    if size.denominator != 1:
        raise UnitError(
            f"cannot read {value!r} as a size: it is {float(size):g} bytes, "
            "expected a whole number of bytes"
        )
    return int(size)


def pcie_rate(gen: int, lanes: int) -> float:
    """Per-direction PCIe payload rate after line encoding.

    Parameters
    ----------
    gen : int
        PCIe generation, 1 to 6.
    lanes : int
        Link width: 1, 2, 4, 8 or 16.

    Returns
    -------
    float
        Rate in bytes per second (before TLP/DLLP protocol overhead).
    """
    if isinstance(gen, bool) or gen not in _PCIE_LANE:
        raise UnitError(f"unknown PCIe generation {gen!r}: expected 1 to 6")
    if isinstance(lanes, bool) or lanes not in _PCIE_LANES:
        raise UnitError(f"unsupported PCIe width x{lanes!r}: expected one of {_PCIE_LANES}")
    transfers, num, den = _PCIE_LANE[gen]
    return transfers * num / den / 8 * lanes


def parse_rate(value: int | float | str) -> float:
    """Read a data rate, SI decimal as vendors quote it.

    Parameters
    ----------
    value : int, float or str
        Bytes per second, or a string: ``"200MB/s"`` (200e6), ``"200kB/s"``,
        ``"200MiB/s"`` (200 * 2**20), ``"8Gb/s"``/``"8Gbit/s"``/``"8Gbps"`` (bits),
        ``"200MBps"``, a Fibre Channel speed (``"16GFC"``, see `FC_SPEEDS`), an Ethernet
        speed (``"25GbE"``, see `ETHERNET_SPEEDS`) or a PCIe link (``"PCIe3x8"``, see
        `pcie_rate`).

    Returns
    -------
    float
        Rate in bytes per second.
    """
    if isinstance(value, str):
        text = value.strip()
        if fc := _FC_RE.fullmatch(text):
            name = f"{int(fc[1])}GFC"
            if name not in FC_SPEEDS:
                known = ", ".join(FC_SPEEDS)
                raise UnitError(f"unknown Fibre Channel speed {value!r}: expected one of {known}")
            return FC_SPEEDS[name].payload_bytes_per_s
        if eth := _ETHERNET_RE.fullmatch(text):
            name = f"{int(eth[1])}GbE"
            if name not in ETHERNET_SPEEDS:
                known = ", ".join(ETHERNET_SPEEDS)
                raise UnitError(f"unknown Ethernet speed {value!r}: expected one of {known}")
            return ETHERNET_SPEEDS[name].payload_bytes_per_s
        if pcie := _PCIE_RE.fullmatch(text):
            return pcie_rate(int(pcie[1]), int(pcie[2]))
    amount, unit = _split(value, "rate", _RATE_HINT)
    if unit:
        match = _RATE_UNIT_RE.fullmatch(unit)
        if match is None:
            raise UnitError(f"cannot read {value!r} as a rate: unknown unit {unit!r}; {_RATE_HINT}")
        if match["prefix"]:
            base = 1024 if match["i"] else 1000
            amount *= base ** (_PREFIXES.index(match["prefix"].upper()) + 1)
        if match["kind"] != "B":
            amount /= 8
    return _to_float(amount, value, "rate")


def parse_duration(value: int | float | str) -> float:
    """Read a duration.

    Parameters
    ----------
    value : int, float or str
        Seconds, or a string such as ``"5ms"``, ``"20us"``, ``"20µs"``, ``"100ns"``,
        ``"1.5s"``, ``"2min"`` or ``"1h"``.

    Returns
    -------
    float
        Duration in seconds.
    """
    amount, unit = _split(value, "duration", _DURATION_HINT)
    scale = _DURATION_UNITS.get(unit.lower())
    if scale is None:
        raise UnitError(
            f"cannot read {value!r} as a duration: unknown unit {unit!r}; {_DURATION_HINT}"
        )
    return _to_float(amount * scale, value, "duration")


def format_bytes(n: int) -> str:
    """Write a size in the largest binary unit that keeps it exact.

    Parameters
    ----------
    n : int
        Size in bytes, >= 0.

    Returns
    -------
    str
        E.g. ``"8KiB"``, ``"1.5KiB"``, ``"1000B"``; at most 3 decimals, so that
        ``parse_bytes(format_bytes(n)) == n``.
    """
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise UnitError(f"cannot format {n!r} as a size: expected an int >= 0 (bytes)")
    for power in range(len(_PREFIXES), 0, -1):
        scale = 1024**power
        if n >= scale and (n * 1000) % scale == 0:
            whole, thousandths = divmod(n * 1000 // scale, 1000)
            number = f"{whole}.{thousandths:03d}".rstrip("0").rstrip(".")
            return f"{number}{_PREFIXES[power - 1]}iB"
    return f"{n}B"


def _format_scaled(x: float, units: tuple[tuple[str, float], ...], base: str) -> str:
    """Write ``x`` with 4 significant digits in the largest unit giving a value >= 1."""
    if x == 0:
        return f"0{base}"
    if not math.isfinite(x):
        return f"{x}{base}"
    magnitude = abs(x)
    fits = (unit for unit in reversed(units) if float(f"{magnitude / unit[1]:.4g}") >= 1)
    suffix, scale = next(fits, units[0])
    return f"{'-' if x < 0 else ''}{magnitude / scale:.4g}{suffix}"


_RATE_FORMAT: Final = tuple((f"{p}B/s", 1000.0**i) for i, p in enumerate(["", *"kMGTP"]))
_DURATION_FORMAT: Final = (
    ("ns", 1e-9),
    ("us", 1e-6),
    ("ms", 1e-3),
    ("s", 1.0),
    ("min", 60.0),
    ("h", 3600.0),
)


def format_rate(x: float) -> str:
    """Write a rate in bytes per second for display, e.g. ``"200MB/s"``, ``"1.7GB/s"``.

    SI prefixes, up to 4 significant digits; `parse_rate` reads it back within 0.05%.
    """
    return _format_scaled(x, _RATE_FORMAT, "B/s")


def format_duration(s: float) -> str:
    """Write a duration in seconds for display, e.g. ``"5ms"``, ``"20us"``, ``"1.5s"``.

    Up to 4 significant digits; `parse_duration` reads it back within 0.05%.
    """
    return _format_scaled(s, _DURATION_FORMAT, "s")
