"""The gallery page shows every plot kind, each drawn at build time by the command it shows."""

from __future__ import annotations

import re

from sanpath.plotting import KINDS
from tests.conftest import ROOT


def test_every_plot_kind_is_in_the_gallery() -> None:
    text = (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8")
    directives = re.findall(r":::\{sanpath-plot\} (sanpath plot [^\n]+)", text)
    kinds = {re.search(r"--kind (\S+)", d).group(1) for d in directives}  # type: ignore[union-attr]
    assert kinds == set(KINDS)
    for name in KINDS:
        assert f"`{name}`" in text, f"the gallery does not name {name} in its text"


def test_the_path_picture_is_drawn_on_the_index_and_the_model_page() -> None:
    for page in ("index.md", "model.md"):
        text = (ROOT / "docs" / page).read_text(encoding="utf-8")
        topology = r":::\{sanpath-plot\} sanpath plot scenarios/\S+\.yaml --kind topology"
        assert re.search(topology, text), page


def test_the_animations_are_drawn_by_the_build() -> None:
    """The gallery and the model page show animations `sanpath animate` writes at build time
    (GIFs, no committed binaries); the fan-in notebook plays one inline."""
    animate = (
        r":::\{sanpath-plot\} sanpath animate scenarios/animations/(\S+)\.yaml .*--out \S+\.gif"
    )
    gallery = re.findall(animate, (ROOT / "docs" / "gallery.md").read_text(encoding="utf-8"))
    model = re.findall(animate, (ROOT / "docs" / "model.md").read_text(encoding="utf-8"))
    assert gallery == ["qfull_storm"]
    assert sorted(model) == ["hba_queue", "qfull_storm", "split"]
    fan_in = (ROOT / "notebooks" / "03_fan_in.ipynb").read_text(encoding="utf-8")
    assert "animations/qfull_storm.yaml" in fan_in and ".animate(frames=" in fan_in
