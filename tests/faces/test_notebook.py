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


def test_the_animate_button_plays_the_point_just_simulated(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Animate runs the point simulated last again with a recording window and shows its
    player under the panel."""
    pytest.importorskip("ipywidgets")
    import IPython.display
    import matplotlib

    shown: list[object] = []
    monkeypatch.setattr(IPython.display, "display", shown.append)

    matplotlib.use("Agg")
    from sanpath.notebook import ANIMATE_FRAMES, WhatIf, what_if
    from sanpath.plotting import Player

    with pytest.raises(ValueError, match="simulate a point first"):
        WhatIf(SCENARIOS / "quickstart.yaml", ios=500).animate()
    box = what_if(SCENARIOS / "quickstart.yaml", ios=500)
    assert box.animate.disabled and box.player is None  # nothing simulated yet
    box.sliders["hosts"].value = 3
    box.sliders["queue_depth"].value = 2
    box.button.click()
    assert not box.animate.disabled
    box.sliders["hosts"].value = 1  # moved after simulating: the animation keeps the point
    box.animate.click()
    player = box.player
    assert isinstance(player, Player)
    rec = player.recording
    assert rec.frames == ANIMATE_FRAMES and rec.t[0] == 0.0
    assert rec.scenario["hosts"][0]["count"] == 3  # the point simulated, not the sliders
    assert rec.scenario["hosts"][0]["hbas"][0]["queue_depth"] == 2
    assert len(rec.hosts) == 3 and rec.completed.sum() > 0
    slots = [rec.place(f"host:{h}:hba") for h in rec.hosts]
    assert rec.held[:, slots].max() > 0 and (rec.capacity[-1, slots] > 0).all()
    assert shown[-1] is player  # shown under the panel (no kernel here: display() is called)
    page = player._repr_html_()
    assert page.startswith('<div id="sanpath-player-')
    assert page.count('"iVBOR') == ANIMATE_FRAMES  # one PNG a frame
    assert "animated:" in box.status.value


@pytest.mark.slow
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


def test_the_panel_carries_a_picture_of_itself_for_static_pages() -> None:
    """A page without a kernel (the docs) shows the panel's picture instead of empty space."""
    pytest.importorskip("ipywidgets")
    import base64

    import matplotlib

    matplotlib.use("Agg")
    from sanpath.notebook import SLIDERS, what_if

    box = what_if(SCENARIOS / "quickstart.yaml", ios=1_000)
    box.sliders["queue_depth"].value = 4
    bundle = box._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle  # live in Jupyter
    png = base64.b64decode(bundle["image/png"])
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    fig = box.what_if.panel_figure()
    left, right = fig.axes
    texts = [t.get_text() for t in left.texts]
    for label, *_ in SLIDERS.values():
        assert label in texts
    assert "4" in texts  # the queue depth as the slider shows it
    assert "Simulate" in texts and "Animate" in texts
    assert any(t.startswith("twin:") for t in texts)  # the status line
    assert right.get_xlabel() == "IOPS" and len(right.get_lines()) >= 2


def test_the_io_size_slider_moves_by_powers_of_two() -> None:
    """1 KiB to 4 MiB on a linear slider leaves 4 to 64 KiB in its first pixel or two."""
    pytest.importorskip("ipywidgets")
    from sanpath.notebook import IO_SIZES_KIB, slider_share, what_if

    assert IO_SIZES_KIB[0] == 1 and IO_SIZES_KIB[-1] == 4096 and len(IO_SIZES_KIB) == 13
    assert slider_share("io_size_kib", 64) == pytest.approx(0.5)  # 2^6 halfway to 2^12
    assert slider_share("io_size_kib", 4096) == 1.0
    assert slider_share("hosts", 32.5) == pytest.approx(0.5)  # the others stay linear
    box = what_if(SCENARIOS / "quickstart.yaml", ios=1_000)
    slider = box.sliders["io_size_kib"]
    values = [value for _label, value in slider.options]
    assert values[:3] == [1, 2, 4] and values[-1] == 4096
    assert "1,024" in [label for label, _value in slider.options]
    slider.value = 256
    assert box.what_if.values["io_size_kib"] == 256
