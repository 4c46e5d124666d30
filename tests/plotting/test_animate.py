"""The animated path: the frames drawn from a recording, the files written, the command."""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from sanpath.cli import main
from sanpath.plotting import AnimationFormatError, Player, write_animation
from sanpath.plotting.animate import HOST_LINK_PAIRS, PathAnimation, frame_indices
from sanpath.results import Recording
from sanpath.sim import run
from sanpath.spec import load_scenario
from tests.conftest import SCENARIOS

STORM = SCENARIOS / "animations" / "qfull_storm.yaml"
SMALL = {"run.ios": 1500, "run.animate": {"start": 0.0, "duration": "20ms", "frames": 6}}


@pytest.fixture(scope="module")
def recording() -> Recording:
    rec = run(load_scenario(STORM, SMALL)).recording
    assert rec is not None
    return rec


def test_frames_show_the_queues_and_the_hosts_one_by_one(recording: Recording) -> None:
    anim = PathAnimation(recording)
    hosts = [b for (kind, _), b in anim.layout.boxes.items() if kind == "host"]
    # 16 hosts: seven boxes of their own and one stack of the nine left, with their count
    assert len(hosts) == 8
    assert [len(b.members) for b in hosts] == [1] * 7 + [9]
    assert hosts[-1].label.startswith("9 more hosts esx")
    column = recording.place("port:0")
    i = int(recording.held[:, column].argmax())
    anim.draw(i)
    port = next(bar for bar in anim.bars if bar.places == [column])
    text = port.text.get_text()
    assert text.startswith(f"{recording.held[i, column]:,}/1,600 slots")  # (nearly) full
    assert (f"{recording.refused[i, column]:,} QUEUE FULL" in text) == bool(
        recording.refused[i, column]
    )
    assert port.fill.get_width() > 0.7 * 0.72
    if recording.held[i, column] == 1600:  # red when every slot is taken
        assert port.fill.get_facecolor()[:3] == pytest.approx((0.753, 0.224, 0.169), abs=0.01)
    anim.draw(0)
    assert port.text.get_text().startswith("0/1,600")
    assert "frame 1/6" in anim.title.get_text()


def test_each_host_link_glows_with_its_own_share(recording: Recording) -> None:
    anim = PathAnimation(recording)
    columns = HOST_LINK_PAIRS["port"]
    own = {tuple(link.hosts): link for link in anim.links if link.columns == columns}
    # one line per host box: seven hosts of their own and the stack of the nine others
    assert sorted(len(h) for h in own) == [1] * 7 + [9]
    shares = recording.host_busy[:, :, columns].max(axis=2)  # a host link's busier direction
    i = int(np.ptp(shares[:, :7], axis=1).argmax())  # the frame the hosts differ most
    assert np.ptp(shares[i, :7]) > 0.01
    anim.draw(i)
    widths = []
    for hosts, link in own.items():
        expected = float(recording.host_busy[i][np.ix_(list(hosts), columns)].mean(axis=0).max())
        assert anim.link_busy(link, i) == pytest.approx(expected)
        assert link.line.get_linewidth() == pytest.approx(1 + 5 * expected)
        widths.append(link.line.get_linewidth())
    assert len(set(np.round(widths, 6))) > 1  # not one glow for the whole group
    # the PCIe lines (host box to HBA port) read the PCIe columns of the same hosts
    pcie = [link for link in anim.links if link.columns == HOST_LINK_PAIRS["host"]]
    assert sorted(len(link.hosts) for link in pcie) == [1] * 7 + [9]


def test_a_gif_has_the_frames_asked_for(recording: Recording, tmp_path: Path) -> None:
    path = write_animation(recording, tmp_path / "storm.gif", frames=4)
    with Image.open(path) as image:
        assert image.n_frames == 4
    assert frame_indices(6, 4) == [0, 2, 3, 5]
    assert frame_indices(6, None) == list(range(6))


def test_the_html_player_is_self_contained(recording: Recording, tmp_path: Path) -> None:
    page = write_animation(recording, tmp_path / "storm.html").read_text(encoding="utf-8")
    assert page.startswith("<!DOCTYPE html>")
    assert page.count("iVBOR") == 6  # six embedded PNG frames
    assert not re.search(r"(src|href)=\"(https?:)?//", page)  # nothing to fetch
    assert 'type="range"' in page and 'class="speed"' in page and 'class="play"' in page
    html = Player(recording, frames=3)._repr_html_()
    assert html.count("iVBOR") == 3 and html.startswith("<div")


def test_unknown_suffix_and_mp4_without_ffmpeg_are_refused(
    recording: Recording, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    with pytest.raises(AnimationFormatError, match=r"\.html, \.gif, \.mp4, not \.png"):
        write_animation(recording, tmp_path / "storm.png")
    monkeypatch.setenv("PATH", str(tmp_path))  # no ffmpeg here
    with pytest.raises(AnimationFormatError, match="needs ffmpeg"):
        write_animation(recording, tmp_path / "storm.mp4")


def test_result_animate_needs_a_window() -> None:
    plain = run(load_scenario(STORM, {"run.ios": 300, "run.animate": None}))
    with pytest.raises(ValueError, match=r"set run\.animate"):
        plain.animate()


def test_the_command_writes_a_gif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "split.gif"
    argv = ["animate", str(SCENARIOS / "animations" / "split.yaml"), "--out", str(out)]
    code = main([*argv, "--set", "run.ios=300", "--duration", "30ms", "--frames", "3"])
    assert code == 0
    assert "animation of 3 frames, 0 ns to 30 ms" in capsys.readouterr().out
    with Image.open(out) as image:
        assert image.n_frames == 3
    assert main(argv) == 2  # exists: refused before running
    assert "already exists" in capsys.readouterr().err


def test_the_command_refuses_bad_input_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    storm = str(STORM)
    assert main(["animate", storm, "--out", str(tmp_path / "a.png")]) == 2
    assert "expected one of .html, .gif, .mp4" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:
        main(["animate", storm, "--out", str(tmp_path / "a.gif"), "--start", "-1s"])
    assert exc.value.code == 2
    late = ["--set", "run.ios=300", "--start", "10s"]
    assert main(["animate", storm, "--out", str(tmp_path / "b.gif"), *late]) == 2
    assert "lies past the end of the run" in capsys.readouterr().err
    bad = ["--set", "run.animate.frames=1"]
    assert main(["animate", storm, "--out", str(tmp_path / "c.gif"), *bad]) == 2
    err = capsys.readouterr().err
    assert "run.animate.frames" in err and "Traceback" not in err
