"""Printed tables and pictures the build made itself: the sweep how-to shows what its own
sweep printed, and the validation page a picture drawn from each stored record."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pandas as pd

from sanpath.readable import figure
from tests.conftest import ROOT

WORK = "_sanpath_plots"  # the build's work folder (docs/_ext/sanpath_plots.py)


def printed_blocks(page: Path) -> list[str]:
    """The text of every ``sanpath-output`` block of a built page."""
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r'<div class="[^"]*\bsanpath-output\b[^"]*">(.*?)</pre>', text, re.S)
    return [html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks]


def test_the_sweep_how_to_prints_the_table_its_build_made(build: Path) -> None:
    blocks = printed_blocks(build / "html" / "howto" / "sweep.html")
    assert len(blocks) == 1
    lines = [line for line in blocks[0].splitlines() if line.strip()]
    table = pd.read_csv(build / WORK / "my-san-qd.csv")
    header, rows = lines[0].split(), lines[1 : 1 + len(table)]
    assert {"iops", "latency_ms_p99", "steady"} <= set(header)
    column = header.index("iops")
    printed = [row.split()[column] for row in rows]
    assert printed == [figure(v) for v in table["iops"]]
    assert lines[-1] == "table written to my-san-qd.csv"


def test_the_validation_page_draws_a_picture_from_each_record(build: Path) -> None:
    page = (build / "html" / "validation.html").read_text(encoding="utf-8")
    records = sorted((ROOT / "docs" / "validation").glob("*.json"))
    pictures = re.findall(r'<img[^>]+src="[^"]*validation-(\w+)-[0-9a-f]{12}\.png"', page)
    assert records and pictures == [p.stem for p in records]
