"""A fixed warm-up that ends inside a transient keeps its warning (sanpath.sim.diagnosis)."""

from __future__ import annotations

from pathlib import Path

import pytest

import sanpath
from sanpath.theory import textbook

SCENARIOS = Path(__file__).resolve().parents[2] / "scenarios"


def afa(warmup_ios: int) -> sanpath.RunResult:
    return sanpath.run(
        SCENARIOS / "modern_afa.yaml",
        overrides={"run.warmup": "fixed", "run.warmup_ios": warmup_ios, "run.ios": 60_000},
    )


@pytest.mark.slow
def test_a_fixed_warm_up_inside_the_cache_drain_is_not_steady_and_a_longer_one_is() -> None:
    # modern_afa starts with its write-back cache at the high watermark (run.precondition)
    # and drains it toward the low one: 20,000 I/Os in, the measured window's dirty level
    # still falls (about 125 MiB in its first half, 111 MiB after) while latency and IOPS
    # look flat; 200,000 I/Os in, the drain is over
    short = afa(20_000)
    assert not short.steady
    (warning,) = [w for w in short.warnings if "ended inside a transient" in w]
    assert "dirty cache" in warning and "run.warmup: auto" in warning
    longer = afa(200_000)
    assert longer.steady
    assert not any("ended inside a transient" in w for w in longer.warnings)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_a_steady_fixed_warm_up_keeps_quiet(seed: int) -> None:
    # the textbook M/M/1 at 80% busy has no transient left after 5,000 I/Os: MSER may cut a
    # few batches by chance, but what it cuts does not differ materially from the rest
    data = textbook.open_queue(800.0, {"dist": "exponential", "mean": "1ms"}, ios=40_000)
    data["run"]["warmup"] = "fixed"
    data["seed"] = seed
    result = sanpath.run(data)
    assert not any("ended inside a transient" in w for w in result.warnings), result.warnings
