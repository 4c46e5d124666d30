"""The report page rendered in headless Chromium: every picture loads, every table is
there, the page logs no error and fetches nothing.

Needs Debian's ``chromium`` and the ``playwright`` package (a test extra). Without them the
test is skipped, unless ``SANPATH_BROWSER_TESTS=required`` (set by ``.ci/run``), when it
fails. The screenshots are kept in ``build/test-artifacts/``: ``report.png`` the whole page,
``report-first-screen.png`` what a reader sees first (the verdict and what to change).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from sanpath.report import build_report, write_report
from tests.conftest import ROOT, SCENARIOS

ARTIFACT = ROOT / "build" / "test-artifacts" / "report.png"
FIRST_SCREEN = ARTIFACT.with_name("report-first-screen.png")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def _chromium() -> str:
    path = os.environ.get("SANPATH_CHROMIUM") or shutil.which("chromium")
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        path = None
    if path is None:
        reason = "headless Chromium and playwright are needed (apt-get install chromium)"
        if os.environ.get("SANPATH_BROWSER_TESTS") == "required":
            pytest.fail(reason)
        pytest.skip(reason)
    return path


def test_report_renders_in_chromium(tmp_path: Path) -> None:
    chromium = _chromium()
    from playwright.sync_api import sync_playwright

    report = build_report(SCENARIOS / "fan_in.yaml", overrides={"run.ios": 2_000}, check=True)
    page_file = write_report(report, tmp_path / "report.html")
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
            images = page.evaluate(
                "[...document.images].map(i => [i.alt, i.complete, i.naturalWidth])"
            )
            headings = page.evaluate("[...document.querySelectorAll('h2')].map(h => h.textContent)")
            tables = page.evaluate("document.querySelectorAll('table').length")
            host_rows = page.evaluate(
                "[...document.querySelectorAll('td')]"
                ".filter(td => td.textContent.startsWith('esx[')).length"
            )
            ARTIFACT.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(FIRST_SCREEN))
            page.screenshot(path=str(ARTIFACT), full_page=True)
            verdict_top = page.evaluate(
                "document.querySelector('p.verdict').getBoundingClientRect().top"
            )
        finally:
            browser.close()
    assert errors == []
    assert requests == [page_file.resolve().as_uri()]  # nothing fetched from anywhere else
    assert [alt for alt, _, _ in images] == [
        "diagram of the I/O path",
        "bar chart of the latency breakdown",
        "per-host bar chart",
    ]
    assert all(complete and width > 600 for _, complete, width in images), images
    assert headings[:4] == ["Verdict", "What to change first", "The scenario", "Headline results"]
    assert verdict_top < 300  # the verdict is on the first screen
    assert {"Bottleneck", "Hosts", "Check"} <= set(headings)
    assert tables >= 5
    assert host_rows == 16  # one row per fan-in host
    assert ARTIFACT.stat().st_size > 10_000 and FIRST_SCREEN.stat().st_size > 10_000
