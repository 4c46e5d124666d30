"""An animation of the path written out: a self-contained HTML player, a GIF or an MP4.

The HTML player holds every frame as an embedded PNG and a few lines of script: play and
pause, a time slider, a speed choice and the frame's simulated time. It fetches nothing, so
it plays in any browser without a network, in a notebook's output (:func:`player_html`) and
on the documentation site. A GIF (Pillow, which matplotlib brings) and an MP4 (``ffmpeg``
on the ``PATH``) are for slides; a GIF's frames share one palette of :data:`COLOURS` colours,
so it stays small enough for a web page.
"""

from __future__ import annotations

import base64
import html
import io
import itertools
from collections.abc import Callable
from pathlib import Path

from matplotlib import animation
from PIL import Image

from sanpath.plotting.animate import EACH_HOST, PathAnimation, frame_indices
from sanpath.readable import duration
from sanpath.results import Recording

__all__ = ["ANIMATION_FORMATS", "AnimationFormatError", "Player", "player_html", "write_animation"]

ANIMATION_FORMATS = (".html", ".gif", ".mp4")
"""The file suffixes an animation is written as."""

COLOURS = 64
"""Colours of a frame of the HTML player (the picture has few: boxes, bars, lines, text)."""

SPEEDS = (0.25, 0.5, 1.0, 2.0, 4.0)
"""Playback speeds the player offers (times the recording's frame rate)."""

_ids = itertools.count()

_SCRIPT = """
(function () {
  var root = document.getElementById("%(id)s");
  var frames = JSON.parse(root.querySelector("script.frames").textContent);
  var times = JSON.parse(root.querySelector("script.times").textContent);
  var img = root.querySelector("img"), slider = root.querySelector("input.slider");
  var button = root.querySelector("button.play"), speed = root.querySelector("select.speed");
  var label = root.querySelector("span.time"), fps = %(fps)d, timer = null;
  function show(i) {
    img.src = "data:image/png;base64," + frames[i];
    slider.value = i;
    label.textContent = times[i] + " (frame " + (i + 1) + "/" + frames.length + ")";
  }
  function step() {
    var i = (Number(slider.value) + 1) %% frames.length;
    show(i);
    if (i === frames.length - 1) { pause(); }
  }
  function play() {
    if (Number(slider.value) === frames.length - 1) { show(0); }
    timer = setInterval(step, 1000 / (fps * Number(speed.value)));
    button.textContent = "pause";
    root.dataset.playing = "1";
  }
  function pause() {
    clearInterval(timer); timer = null;
    button.textContent = "play";
    root.dataset.playing = "0";
  }
  button.addEventListener("click", function () { if (timer) { pause(); } else { play(); } });
  slider.addEventListener("input", function () { pause(); show(Number(slider.value)); });
  speed.addEventListener("change", function () { if (timer) { pause(); play(); } });
  show(0);
})();
"""


class AnimationFormatError(ValueError):
    """An animation file of a kind that cannot be written (its suffix, or MP4 without ffmpeg)."""


def _rgb(anim: PathAnimation, i: int, dpi: int) -> Image.Image:
    """Frame ``i`` as an RGB image."""
    buf = io.BytesIO()
    anim.draw(i).savefig(buf, format="png", dpi=dpi)
    return Image.open(buf).convert("RGB")


def _write_gif(
    anim: PathAnimation,
    chosen: list[int],
    out: Path,
    dpi: int,
    fps: int,
    progress: Callable[[int, int], None] | None,
) -> None:
    """The frames ``chosen`` as a looping GIF at ``fps``, every frame in one palette of
    :data:`COLOURS` colours (taken from a few frames spread over the animation) without
    dithering: a flat picture, so each frame stores little more than what changed."""
    sample = [_rgb(anim, i, dpi) for i in sorted({chosen[round(k)] for k in _spread(chosen)})]
    montage = Image.new("RGB", (sample[0].width, sample[0].height * len(sample)))
    for k, image in enumerate(sample):
        montage.paste(image, (0, k * image.height))
    palette = montage.quantize(COLOURS)
    images = []
    for n, i in enumerate(chosen):
        images.append(_rgb(anim, i, dpi).quantize(palette=palette, dither=Image.Dither.NONE))
        if progress is not None:
            progress(n + 1, len(chosen))
    images[0].save(
        out,
        format="gif",
        save_all=True,
        append_images=images[1:],
        duration=round(1000 / fps),
        loop=0,
        optimize=True,
    )


def _spread(chosen: list[int], samples: int = 4) -> list[float]:
    """Positions in ``chosen`` of ``samples`` frames spread evenly over it."""
    last = len(chosen) - 1
    return [last * k / (samples - 1) for k in range(samples)]


def _png(anim: PathAnimation, i: int, dpi: int) -> bytes:
    """Frame ``i`` as a PNG of at most :data:`COLOURS` colours (a fifth of the bytes)."""
    buf = io.BytesIO()
    anim.draw(i).savefig(buf, format="png", dpi=dpi)
    image = Image.open(buf).convert("RGB").quantize(COLOURS)
    out = io.BytesIO()
    image.save(out, format="png", optimize=True)
    return out.getvalue()


def player_html(
    recording: Recording,
    frames: int | None = None,
    dpi: int = 72,
    each_host: int = EACH_HOST,
    progress: Callable[[int, int], None] | None = None,
) -> str:
    """The player of ``recording`` as an HTML fragment (a ``div`` and its script): ``frames``
    of its frames (all for None) at ``dpi``; ``progress(done, total)`` after each frame."""
    anim = PathAnimation(recording, each_host=each_host, dpi=dpi)
    chosen = frame_indices(recording.frames, frames)
    images = []
    for n, i in enumerate(chosen):
        images.append(base64.b64encode(_png(anim, i, dpi)).decode("ascii"))
        if progress is not None:
            progress(n + 1, len(chosen))
    times = [f"t = {duration(float(recording.t[i]))}" for i in chosen]
    player = f"sanpath-player-{next(_ids)}"
    options = "".join(
        f'<option value="{s:g}"{" selected" if s == 1.0 else ""}>{s:g}x</option>' for s in SPEEDS
    )
    quoted = '["' + '","'.join(images) + '"]'
    return (
        f'<div id="{player}" class="sanpath-player" data-playing="0">'
        f'<img alt="animation of the I/O path" style="max-width:100%">'
        '<div class="controls" style="display:flex;gap:0.8em;align-items:center">'
        '<button class="play" type="button">play</button>'
        f'<input class="slider" type="range" min="0" max="{len(chosen) - 1}" value="0" '
        'style="flex:1" aria-label="time">'
        f'<label>speed <select class="speed">{options}</select></label>'
        '<span class="time"></span></div>'
        f'<script type="application/json" class="frames">{quoted}</script>'
        f'<script type="application/json" class="times">{_json_strings(times)}</script>'
        f"<script>{_SCRIPT % {'id': player, 'fps': recording.fps}}</script></div>"
    )


class Player:
    """``recording``'s animation in a notebook: its output shows the player (drawn when first
    shown: ``frames`` of the frames, all for None); :meth:`save` writes a file."""

    def __init__(self, recording: Recording, frames: int | None = None, dpi: int = 72) -> None:
        self.recording = recording
        self.frames = frames
        self.dpi = dpi
        self._html: str | None = None

    def _repr_html_(self) -> str:
        if self._html is None:
            self._html = player_html(self.recording, self.frames, self.dpi)
        return self._html

    def save(self, path: str | Path) -> Path:
        """Write the animation to ``path``: .html, .gif or .mp4
        (:func:`sanpath.plotting.write_animation`)."""
        return write_animation(self.recording, path, self.frames, self.dpi)


def _json_strings(values: list[str]) -> str:
    return "[" + ",".join('"' + v.replace('"', "'") + '"' for v in values) + "]"


def write_animation(
    recording: Recording,
    path: str | Path,
    frames: int | None = None,
    dpi: int = 72,
    each_host: int = EACH_HOST,
    progress: Callable[[int, int], None] | None = None,
) -> Path:
    """Write ``recording``'s animation to ``path``: an HTML page, a GIF or an MP4 by its
    suffix (:data:`sanpath.plotting.ANIMATION_FORMATS`), with ``frames`` of its frames (all
    for None).

    Raises
    ------
    AnimationFormatError
        For another suffix, or an MP4 without ``ffmpeg``.
    """
    out = Path(path)
    suffix = out.suffix.lower()
    if suffix not in ANIMATION_FORMATS:
        raise AnimationFormatError(
            f"{out}: an animation is written as {', '.join(ANIMATION_FORMATS)}, "
            f"not {suffix or 'no suffix'}"
        )
    if suffix == ".mp4" and not animation.writers.is_available("ffmpeg"):
        raise AnimationFormatError(
            f"{out}: an MP4 needs ffmpeg on the PATH (apt-get install ffmpeg); "
            "write a .gif or an .html instead"
        )
    if suffix == ".html":
        body = player_html(recording, frames, dpi, each_host, progress)
        scenario = html.escape(str(recording.scenario.get("name", "")))
        out.write_text(
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
            f"<title>sanpath: the I/O path of {scenario}, animated</title></head>"
            f'<body style="font-family:sans-serif">{body}</body></html>\n',
            encoding="utf-8",
        )
        return out
    anim = PathAnimation(recording, each_host=each_host, dpi=dpi)
    chosen = frame_indices(recording.frames, frames)
    if suffix == ".gif":
        _write_gif(anim, chosen, out, dpi, recording.fps, progress)
        return out
    writer = animation.FFMpegWriter(fps=recording.fps)
    with writer.saving(anim.fig, str(out), dpi):
        for n, i in enumerate(chosen):
            anim.draw(i)
            writer.grab_frame()
            if progress is not None:
                progress(n + 1, len(chosen))
    return out
