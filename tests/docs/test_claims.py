"""The number check of the documentation (:mod:`tests.docs.claims`) on small notebooks: it
finds the contradictions pages used to print and lets through what a run backs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.conftest import ROOT
from tests.docs.claims import prose_numbers, unbacked_numbers


def notebook(markdown: str, code: str = "", output: str = "", **metadata: Any) -> dict[str, Any]:
    """A notebook of one code cell (its output as printed text) and one Markdown cell."""
    return {
        "metadata": metadata,
        "cells": [
            {
                "cell_type": "code",
                "source": code,
                "outputs": [{"output_type": "stream", "name": "stdout", "text": output}],
            },
            {"cell_type": "markdown", "source": markdown},
        ],
    }


def unbacked(nb: dict[str, Any], root: Path = ROOT) -> list[str]:
    return [u.number for u in unbacked_numbers(nb, root)]


TWIN_TABLE = "| fan-in | 61155.7 | 52318.2 | -14.5% | 24.368 | 39.145 | +60.6% |"


def test_a_figure_the_run_does_not_produce_is_caught() -> None:
    """The twin page's old prose against its own table: 22 ms and 61,044 per s."""
    nb = notebook(
        "The simulated mean of 22 ms; 2,048 / 61,044 per s would be 33.5 ms.",
        code="rows = 2048",
        output=TWIN_TABLE,
    )
    assert unbacked(nb) == ["22", "61,044", "33.5"]


def test_rounding_by_hand_is_caught_and_the_printed_figure_is_not() -> None:
    nb = notebook("p99 24.4 ms, IOPS 61,155.7 and 61155.7", output=TWIN_TABLE)
    assert unbacked(nb) == ["24.4"]


def test_pasted_figures_inputs_years_and_declared_facts_pass() -> None:
    nb = notebook(
        "In 2007, with {glue:text}`iops:,.0f` IOPS at 16 hosts, `x = 99` and a port queue of "
        "1600 (EMC), p99 was {glue:text}`p99:.1f` ms.",
        code='s = sanpath.load_scenario("../scenarios/fan_in.yaml", {"hosts.0.count": 16})',
        sanpath={"facts": {"1600": "EMC's planning figure"}},
    )
    assert unbacked(nb) == []
    del nb["metadata"]["sanpath"]
    assert unbacked(nb) == []  # 1600 is also the scenario's port_queue_depth
    assert unbacked(nb, root=Path("/nonexistent")) == ["1600"]  # without the scenario file


def test_names_and_units_are_not_numbers() -> None:
    assert prose_numbers("p99 of x4 slots, v2, 8GFC, QD-32 and 1.5x, then 7.") == ["7"]
    assert prose_numbers("1. First step\n2. Second, with 3 hosts") == ["3"]
    assert prose_numbers("see [page](notes-2019.md) and `--set a=12`") == []


def test_signed_figures_are_numbers_too() -> None:
    assert prose_numbers("an error of -14.5% and +60.6%") == ["14.5", "60.6"]
