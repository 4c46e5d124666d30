"""The animation page played in headless Chromium: the frames advance, the time slider moves,
the speed can change, no error is logged and nothing is fetched.

Needs Debian's ``chromium`` and the ``playwright`` package, as the report's browser test
(``tests/report/test_report_browser.py``, whose check of them it shares). The screenshot is
kept in ``build/test-artifacts/animation.png``.
"""

from __future__ import annotations

from pathlib import Path

from sanpath.plotting import write_animation
from sanpath.sim import run
from sanpath.spec import load_scenario
from tests.conftest import ROOT, SCENARIOS
from tests.report.test_report_browser import CHROMIUM_ARGS, _chromium

ARTIFACT = ROOT / "build" / "test-artifacts" / "animation.png"


def test_animation_plays_in_chromium(tmp_path: Path) -> None:
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    spec = load_scenario(
        SCENARIOS / "animations" / "qfull_storm.yaml",
        {"run.ios": 1500, "run.animate": {"duration": "20ms", "frames": 8, "fps": 5}},
    )
    recording = run(spec).recording
    assert recording is not None
    page_file = write_animation(recording, tmp_path / "storm.html")
    errors: list[str] = []
    requests: list[str] = []
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1280, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.on("request", lambda r: requests.append(r.url))
            page.goto(page_file.resolve().as_uri())
            first = page.evaluate("document.querySelector('.sanpath-player img').src")
            width = page.evaluate("document.querySelector('.sanpath-player img').naturalWidth")
            assert page.input_value("input.slider") == "0"
            page.select_option("select.speed", "2")
            page.click("button.play")  # 10 frames a second: the 8 frames in under a second
            playing = page.evaluate("document.querySelector('.sanpath-player').dataset.playing")
            page.wait_for_function("document.querySelector('input.slider').value >= 3")
            later = page.evaluate("document.querySelector('.sanpath-player img').src")
            page.wait_for_function(
                "document.querySelector('.sanpath-player').dataset.playing === '0'"
            )  # it stops at the last frame
            last = page.input_value("input.slider")
            label = page.text_content("span.time")
            end = page.evaluate("document.querySelector('.sanpath-player img').src")
            page.fill("input.slider", "2")  # the slider moves the picture back
            page.dispatch_event("input.slider", "input")
            back = page.evaluate("document.querySelector('.sanpath-player img').src")
            ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(ARTIFACT))
        finally:
            browser.close()
    assert errors == []
    assert requests == [page_file.resolve().as_uri()]  # nothing fetched from anywhere else
    assert width > 600
    assert playing == "1"
    assert later != first
    assert last == "7"
    assert label is not None and "frame 8/8" in label and label.startswith("t = 20 ms")
    assert back != end and back.startswith("data:image/png;base64,")
    assert ARTIFACT.stat().st_size > 10_000
