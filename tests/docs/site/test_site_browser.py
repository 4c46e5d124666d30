"""The documentation site in headless Chromium at 1280 px: nothing clipped, every picture there
and a link to its full size, no error, nothing fetched from elsewhere.

For every page below, every table and every output box of the article is measured in the
DOM: it fits its column (``scrollWidth <= clientWidth``), or it is a box that scrolls inside
itself by design (a table's own scroll box) and keeps its first, key column in view while it
scrolls (``position: sticky``). Full-page screenshots go to ``build/test-artifacts/docs/``
with ``widths.json``, the measurements. Needs Debian's ``chromium`` and ``playwright`` (see
``tests/report/test_report_browser.py``, whose launcher this uses).
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import ROOT
from tests.report.test_report_browser import CHROMIUM_ARGS, _chromium

ARTIFACTS = ROOT / "build" / "test-artifacts" / "docs"
WIDTH = 1280

SCREENSHOTS = {
    "index": "index.html",
    "queue-depth": "notebooks/02_queue_depth.html",
    "fan-in": "notebooks/03_fan_in.html",
    "validation": "validation.html",
    "scenario": "scenario.html",
    "gallery": "gallery.html",
}
"""The pages the issue names, kept as screenshots."""

MORE = {
    "tour": "notebooks/01_tour.html",
    "transfer-size": "notebooks/04_transfer_size.html",
    "what-if": "notebooks/05_what_if.html",
    "check-notebook": "notebooks/06_check.html",
    "twin": "twin.html",
    "schema": "schema.html",
    "results": "results.html",
    "sweep": "howto/sweep.html",
    "headroom": "howto/headroom.html",
    "model": "model.html",
    "bottleneck": "howto/bottleneck.html",
}
"""Pages measured as well (not kept as screenshots)."""

MEASURE = """() => {
  const article = document.querySelector('article.bd-article');
  const boxes = [...article.querySelectorAll(
    'table, pre, div.cell_output, div.output, div.pst-scrollable-table-container, ' +
    'div.sanpath-table, div.highlight, figure, img')];
  const described = boxes.map(el => {
    const scrolls = ['auto', 'scroll'].includes(getComputedStyle(el).overflowX);
    const first = el.querySelector('tr > :first-child');
    const sticky = first !== null && getComputedStyle(first).position === 'sticky';
    const keyVisible = first !== null &&
      first.getBoundingClientRect().right <= el.getBoundingClientRect().right;
    return {tag: el.tagName.toLowerCase(), cls: el.className,
            text: (el.innerText || '').slice(0, 50), scrollWidth: el.scrollWidth,
            clientWidth: el.clientWidth, scrolls, sticky, keyVisible};
  });
  const images = [...article.querySelectorAll('img')].map(i => ({
    src: (i.getAttribute('src') || '').slice(0, 200), complete: i.complete,
    width: i.naturalWidth, player: i.closest('.sanpath-player') !== null,
    link: i.closest('a') ? i.closest('a').getAttribute('href') : null}));
  const players = [...article.querySelectorAll('.sanpath-player')].map(p => ({
    frames: Number(p.querySelector('input.slider').max) + 1,
    time: p.querySelector('span.time').textContent}));
  const plots = [...article.querySelectorAll('figure.sanpath-plot')].map(f => ({
    caption: f.querySelector('figcaption') ? f.querySelector('figcaption').innerText : '',
    command: f.previousElementSibling ? f.previousElementSibling.innerText : ''}));
  return {article: article.clientWidth, boxes: described, images, players, plots};
}"""


def _clipped(box: dict[str, Any]) -> bool:
    return bool(box["scrollWidth"] > box["clientWidth"] + 1)


def _by_design(box: dict[str, Any]) -> bool:
    """A box that scrolls inside itself with its key column sticky and in view."""
    return bool(box["scrolls"] and box["sticky"] and box["keyVisible"])


def _visit(browser: Any, url: str, shot: Path | None) -> dict[str, Any]:
    """Load ``url`` at 1280 px, measure it, and keep a full-page screenshot at ``shot``."""
    page = browser.new_page(viewport={"width": WIDTH, "height": 900})
    errors: list[str] = []
    foreign: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on("request", lambda r: None if r.url.startswith("file:") else foreign.append(r.url))
    page.goto(url)
    page.wait_for_load_state("load")
    result: dict[str, Any] = page.evaluate(MEASURE)
    result.update(errors=errors, foreign=foreign)
    if shot is not None:
        page.screenshot(path=str(shot), full_page=True)
        result["screenshot"] = str(shot.relative_to(ROOT))
    page.close()
    return result


@pytest.fixture(scope="module")
def measured(build: Path) -> dict[str, dict[str, Any]]:
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    site = build / "html"
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    out: dict[str, dict[str, Any]] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS)
        try:
            for name, rel in {**SCREENSHOTS, **MORE}.items():
                shot = ARTIFACTS / f"{name}.png" if name in SCREENSHOTS else None
                out[name] = _visit(browser, (site / rel).resolve().as_uri(), shot)
        finally:
            browser.close()
    summary = {
        name: {
            "article_px": r["article"],
            "boxes": len(r["boxes"]),
            "widest_px": max((b["scrollWidth"] for b in r["boxes"]), default=0),
            "scroll_by_design": sum(1 for b in r["boxes"] if _clipped(b) and _by_design(b)),
            "clipped": sum(1 for b in r["boxes"] if _clipped(b) and not _by_design(b)),
            "screenshot": r.get("screenshot"),
        }
        for name, r in out.items()
    }
    (ARTIFACTS / "widths.json").write_text(json.dumps(summary, indent=2) + "\n")
    return out


@pytest.mark.parametrize("name", [*SCREENSHOTS, *MORE])
def test_no_table_or_output_is_clipped(measured: dict[str, dict[str, Any]], name: str) -> None:
    page = measured[name]
    assert page["article"] >= 900, "the article column is too narrow at 1280 px"
    clipped = [b for b in page["boxes"] if _clipped(b) and not _by_design(b)]
    assert clipped == [], f"{name}: clipped {clipped}"


@pytest.mark.parametrize("name", [*SCREENSHOTS, *MORE])
def test_every_picture_loads_and_opens_full_size(
    measured: dict[str, dict[str, Any]], name: str
) -> None:
    page = measured[name]
    assert page["errors"] == [] and page["foreign"] == []
    for image in page["images"]:
        assert image["complete"] and image["width"] > 0, image
        if not image["player"]:  # an animation player's frame sits under its own controls
            assert image["link"], f"{name}: {image['src']} is not a link to its full size"


def test_screenshots_were_kept(measured: dict[str, dict[str, Any]]) -> None:
    for name in SCREENSHOTS:
        shot = ARTIFACTS / f"{name}.png"
        assert shot.stat().st_size > 20_000, shot
    assert set(json.loads((ARTIFACTS / "widths.json").read_text())) == {*SCREENSHOTS, *MORE}


def test_the_what_if_page_shows_the_panel_as_a_picture(
    measured: dict[str, dict[str, Any]],
) -> None:
    images = measured["what-if"]["images"]
    assert images and all(i["width"] >= 800 for i in images[:1]), images


def test_the_path_diagram_is_on_the_index_and_the_model_page(
    measured: dict[str, dict[str, Any]],
) -> None:
    for name in ("index", "model"):
        assert any("_path-" in str(i["src"]) for i in measured[name]["images"]), name


def test_the_animations_are_on_the_gallery_the_model_page_and_the_fan_in_page(
    measured: dict[str, dict[str, Any]],
) -> None:
    """GIFs drawn by the build on the gallery and the model page, a player on the fan-in
    notebook's page showing its first frame."""
    gifs = {
        name: [i["src"] for i in measured[name]["images"] if str(i["src"]).endswith(".gif")]
        for name in ("gallery", "model")
    }
    assert len(gifs["gallery"]) >= 1 and len(gifs["model"]) >= 3, gifs
    (player,) = measured["fan-in"]["players"]
    assert player["frames"] >= 2 and player["time"].startswith("t = ")
    frame = next(i for i in measured["fan-in"]["images"] if i["player"])
    assert frame["src"].startswith("data:image/png;base64,") and frame["width"] >= 800


@pytest.mark.parametrize("name", ["gallery", "sweep", "headroom"])
def test_every_drawn_picture_has_its_command_above_and_its_lesson_below(
    measured: dict[str, dict[str, Any]], name: str
) -> None:
    plots = measured[name]["plots"]
    assert plots, f"{name}: no picture drawn by the build"
    for plot in plots:
        assert re.search(r"sanpath (plot|animate)", plot["command"]), plot
        assert len(plot["caption"].split()) >= 8, f"{name}: a picture without its lesson: {plot}"
