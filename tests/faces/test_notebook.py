"""The what-if widget works headless: sliders move the prediction, the button simulates."""

from __future__ import annotations

import pytest

from tests.conftest import SCENARIOS


def test_what_if_widget_headless() -> None:
    pytest.importorskip("ipywidgets")
    import matplotlib

    matplotlib.use("Agg")
    from sanpath.notebook import what_if

    box = what_if(SCENARIOS / "quickstart.yaml", ios=1_500)
    state = box.what_if
    before = box.status.value
    assert "twin:" in before
    box.sliders["outstanding"].value = 64
    assert box.status.value != before
    assert state.values["outstanding"] == 64
    first = state.predict()[2]
    box.sliders["queue_depth"].value = 2
    second = state.predict()[2]
    assert second.iops < first.iops  # two HBA slots per LUN cap the load
    assert not state.points
    box.button.click()
    assert len(state.points) == 1
    point = state.points[0]
    assert point.settings["queue_depth"] == 2
    assert point.iops > 0 and point.latency_ms > 0
    assert "simulated:" in box.status.value


def test_a_simulated_point_stops_on_precision_and_reports_steadiness() -> None:
    from sanpath.notebook import QUICK_PRECISION, WhatIf

    state = WhatIf(SCENARIOS / "quickstart.yaml")
    spec = state.scenario()
    assert spec.run.ios is None and spec.run.stop_on is not None
    assert spec.run.stop_on.half_width == QUICK_PRECISION
    state.values["read_fraction"] = 0.7  # writes into the write-back cache
    point = state.simulate()
    assert point.steady, point.warnings
    fixed = WhatIf(SCENARIOS / "quickstart.yaml", ios=1_000).scenario()
    assert fixed.run.ios == 1_000 and fixed.run.stop_on is None
