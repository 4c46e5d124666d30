"""Pictures drawn by the command line at build time: ``sanpath-plot``.

A page says what to run, and the build runs it and shows the command beside its picture, so
a picture on the site is always what the shown command draws with this version (an
animation too: ``sanpath animate SCENARIO --out FILE.gif`` draws a GIF)::

    :::{sanpath-plot} sanpath plot fan.csv --kind fan-in --out fan.png
    :alt: what each host gets as hosts are added
    sanpath sweep scenarios/fan_in.yaml --vary hosts.0.count=1..32 --out fan.csv
    :::

The commands run in order in a work folder of the build (``scenarios/`` is the repository's),
through ``sanpath.cli.main`` in this process; a command that fails fails the build with its
message. The setup commands (the directive's content, one per line; ``sanpath ... > FILE``
keeps what a command prints) make the files the plot reads; the files they write are kept
for later directives of the same build (the work folder starts empty with every build), so
a sweep is run once per build. The picture is the file the plot command writes (``--out``),
copied under ``_generated/plots/`` of the source folder (ignored by git). ``:show-setup:``
(default yes) says whether the setup commands are printed too; ``:caption:`` is the lesson
the picture teaches, printed under it; ``:files:`` names files of the documentation source
(``howto/my-san.yaml``) copied into the work folder first, so a page's own scenario runs as
the page shows it.

``sanpath-output COMMAND`` shows what a command prints instead of a picture, run the same
way (setup lines, ``:files:``), so a printed table on a page is the one this version
prints::

    :::{sanpath-output} sanpath sweep my-san.yaml --vary workloads.0.outstanding=1,8 --out qd.csv
    :files: howto/my-san.yaml
    :show-command: no
    :::

A command runs once per build: what it printed is kept in the work folder, so a
``sanpath-output`` of a command that a ``sanpath-plot`` setup line ran already (or the
other way round) shows that run's output and writes nothing again.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import shlex
import shutil
from pathlib import Path
from typing import Any

from docutils import nodes
from docutils.parsers.rst import directives
from sphinx.application import Sphinx
from sphinx.util import logging
from sphinx.util.docutils import SphinxDirective

logger = logging.getLogger(__name__)

WORK = "_sanpath_plots"
"""The build's work folder (under the build output), where the commands run."""

GENERATED = Path("_generated") / "plots"
"""Where the pictures go, under the documentation source folder."""


def _run(argv: list[str], work: Path) -> str:
    """Run ``sanpath ARGV`` in ``work``; its output, or RuntimeError with its message."""
    from sanpath.cli import main

    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.chdir(work),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        code = main(argv)
    if code != 0:
        raise RuntimeError(f"`sanpath {shlex.join(argv)}` exited {code}: {err.getvalue()}")
    return out.getvalue()


def _printed(argv: list[str], work: Path) -> str:
    """What ``sanpath ARGV`` printed in ``work``: run once per build, then read back."""
    kept = work / ".printed" / f"{hashlib.sha256(shlex.join(argv).encode()).hexdigest()[:16]}.txt"
    if kept.exists():
        return kept.read_text()
    text = _run(argv, work)
    kept.parent.mkdir(exist_ok=True)
    kept.write_text(text)
    return text


_DOCS_FILE = "the documentation file"


class _Made:
    """Which command (or documentation file) made each file of the work folder in this build.

    A file is made once per build and then shared, so two pages that make a file of the same
    name by different commands would show one page's file under the other's command: that is
    an error, naming both. A documentation file (``:files:``) may stand for what a setup
    line's command writes (a stored record): the command is then not run."""

    def __init__(self, work: Path) -> None:
        self.path = work / ".made.json"
        self.origins: dict[str, str] = (
            json.loads(self.path.read_text()) if self.path.exists() else {}
        )

    def claim(self, name: str, origin: str) -> None:
        """Note that ``origin`` makes ``name``: ValueError when another origin made it."""
        known = self.origins.get(name)
        stored = known is not None and known.startswith(_DOCS_FILE)  # a command's stored output
        if known is not None and known != origin and not (stored and origin.startswith("sanpath")):
            raise ValueError(
                f"{name} is made in this build by `{known}` already; `{origin}` would show "
                "that file instead of its own: give it another name"
            )
        self.origins.setdefault(name, origin)
        self.path.write_text(json.dumps(self.origins))


def _argv(command: str) -> tuple[list[str], str | None]:
    """The arguments after ``sanpath``, and the file a trailing ``> FILE`` sends output to."""
    words = shlex.split(command)
    if not words or words[0] != "sanpath":
        raise ValueError(f"a sanpath-plot command starts with `sanpath`: {command!r}")
    if len(words) > 2 and words[-2] == ">":
        return words[1:-2], words[-1]
    return words[1:], None


def _output(argv: list[str]) -> str:
    if "--out" not in argv or argv.index("--out") + 1 >= len(argv):
        raise ValueError(f"the command needs --out FILE (.png, .gif): sanpath {shlex.join(argv)}")
    return argv[argv.index("--out") + 1]


class _InWorkFolder(SphinxDirective):
    """A directive that runs sanpath commands in the build's work folder (see the module)."""

    required_arguments = 1
    final_argument_whitespace = True
    has_content = True

    def prepare(self) -> tuple[Path, list[str], str]:
        """The work folder ready (scenarios linked, ``:files:`` copied, setup lines run);
        the setup lines and the command."""
        import sanpath.cli

        self.env.note_dependency(str(sanpath.cli.__file__))
        setup = [line.strip() for line in self.content if line.strip()]
        command = " ".join(self.arguments[0].split())
        app = self.env.app
        work = Path(app.outdir).parent / WORK
        work.mkdir(parents=True, exist_ok=True)
        scenarios = work / "scenarios"
        if not scenarios.exists():
            scenarios.symlink_to(Path(app.srcdir).parent / "scenarios", target_is_directory=True)
        made = _Made(work)
        for name in self.options.get("files", "").split():  # docs files the commands read
            source = Path(app.srcdir) / name
            self.env.note_dependency(str(source))
            made.claim(source.name, f"{_DOCS_FILE} {name}")
            shutil.copyfile(source, work / source.name)
        for line in setup:
            argv, into = _argv(line)
            written = into or (_output(argv) if "--out" in argv else None)
            if written is not None and (work / written).exists():
                made.claim(written, " ".join(line.split()))  # the same file from the same command
                continue
            printed = _printed(argv, work)
            if into is not None:
                (work / into).write_text(printed)
            if written is not None:
                made.claim(written, " ".join(line.split()))
        return work, setup, command

    def commands(self, setup: list[str], command: str) -> nodes.literal_block:
        """The commands shown above the result (the setup lines unless ``:show-setup: no``)."""
        shown = (setup if self.options.get("show-setup", "yes") != "no" else []) + [command]
        text = "\n".join(shown)
        block = nodes.literal_block(text, text, classes=["sanpath-gallery-command"])
        block["language"] = "sh"
        self.set_source_info(block)
        return block


class SanpathPlot(_InWorkFolder):
    """``sanpath-plot COMMAND``: run the setup and the plot command, show command and picture."""

    option_spec = {  # noqa: RUF012 - docutils reads it from the class
        "alt": directives.unchanged,
        "show-setup": lambda arg: directives.choice(arg, ("yes", "no")),
        "width": directives.unchanged,
        "caption": directives.unchanged,
        "files": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        try:
            work, setup, command = self.prepare()
            argv, _ = _argv(command)
            picture = work / _output(argv)
            picture.unlink(missing_ok=True)  # drawn again: sanpath refuses to overwrite a file
            _run(argv, work)
        except (RuntimeError, ValueError) as exc:
            raise self.error(str(exc)) from None
        app = self.env.app
        digest = hashlib.sha256("\n".join([*setup, command]).encode()).hexdigest()[:12]
        target = Path(app.srcdir) / GENERATED / f"{picture.stem}-{digest}{picture.suffix}"
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(picture, target)
        uri = "/" + (GENERATED / target.name).as_posix()
        image = nodes.image(uri=uri, alt=self.options.get("alt", command))
        if "width" in self.options:
            image["width"] = self.options["width"]
        figure = nodes.figure("", image, classes=["sanpath-plot"])
        if "caption" in self.options:  # what the picture teaches, under it
            text = " ".join(self.options["caption"].split())
            inline, messages = self.state.inline_text(text, self.lineno)
            figure += nodes.caption(text, "", *inline)
            figure += messages
        return [self.commands(setup, command), figure]


class SanpathOutput(_InWorkFolder):
    """``sanpath-output COMMAND``: run the setup and the command, show what it printed."""

    option_spec = {  # noqa: RUF012 - docutils reads it from the class
        "show-setup": lambda arg: directives.choice(arg, ("yes", "no")),
        "show-command": lambda arg: directives.choice(arg, ("yes", "no")),
        "files": directives.unchanged,
    }

    def run(self) -> list[nodes.Node]:
        try:
            work, setup, command = self.prepare()
            printed = _printed(_argv(command)[0], work)
        except (RuntimeError, ValueError) as exc:
            raise self.error(str(exc)) from None
        text = printed.rstrip("\n")
        output = nodes.literal_block(text, text, classes=["sanpath-output"])
        output["language"] = "text"
        self.set_source_info(output)
        if self.options.get("show-command", "yes") == "no":
            return [output]
        return [self.commands(setup, command), output]


def _fresh_work_folder(app: Sphinx) -> None:
    """Start every build with an empty work folder: files are shared within one build only."""
    work = Path(app.outdir).parent / WORK
    if work.exists():
        shutil.rmtree(work)


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _fresh_work_folder)
    app.add_directive("sanpath-plot", SanpathPlot)
    app.add_directive("sanpath-output", SanpathOutput)
    return {"parallel_read_safe": False, "parallel_write_safe": True, "version": "1"}
