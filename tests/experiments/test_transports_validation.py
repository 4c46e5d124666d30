"""The transports' validation table (sanpath.experiments.transports): every comparison
runs, the fitted figures reproduce what they were fitted to, and the table says which
predictions miss."""

from __future__ import annotations

from sanpath.experiments.transports import COMPARISONS, rows, table


def test_every_comparison_runs_and_the_fitted_ones_are_in_band() -> None:
    found = rows(ios=4_000)
    assert len(found) == len(COMPARISONS) >= 5
    for comparison, value, ok in found:
        assert value > 0, comparison.name
        if comparison.role == "fitted":
            assert ok, (comparison.name, value)
        else:
            assert comparison.role == "predicted"
            assert ok or comparison.cause, comparison.name  # a miss names its cause


def test_the_table_lists_misses_with_their_cause() -> None:
    first = COMPARISONS[0]
    text = table([(first, first.high * 2, False)])
    assert "**miss**" in text and "Misses and their causes" in text
    assert text.count("\n|") == 2  # header rule and the one row
