"""Build-time helpers for the sanpath documentation.

* ``builder-inited``: copy ``notebooks/*.ipynb`` into ``docs/notebooks/`` (a build
  artefact, ignored by git) so the Tutorials page can list them with a glob, and warn when
  ``docs/scenario.schema.json`` no longer matches ``sanpath schema``.
* ``sanpath-schema-fields``: one table per section of the scenario schema (field, type,
  default, notes), generated from ``sanpath.spec.scenario.json_schema()`` at build time.
* ``sanpath-cli-help``: the ``--help`` text of the ``sanpath`` command or one of its
  subcommands, taken from the installed command line at build time.
* ``sanpath-profiles KIND``: the named profiles of one kind (``drive``, ``hba`` or
  ``array``) as a table of every number with its value and origin (sourced, assumed or
  fitted, and the source or reason), rendered from ``sanpath profiles --json`` at build
  time; ``:names:`` and ``:fields:`` keep only the listed profiles and fields.
* ``optional-glob-toctree``: a ``toctree`` whose glob may match nothing (the Tutorials page
  while ``notebooks/`` is empty) without a warning; it then says so in a sentence.
* ``missing-reference``: docstrings name members the short way (``SweepResult.save``,
  ``Scenario.with_overrides``); such a reference is looked up as if written with a leading
  dot, i.e. by its unique ending among the documented objects.
"""

from __future__ import annotations

import contextlib
import filecmp
import io
import json
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from docutils import nodes
from docutils.statemachine import StringList
from sphinx import addnodes
from sphinx.application import Sphinx
from sphinx.directives.other import TocTree
from sphinx.environment import BuildEnvironment
from sphinx.util import docname_join, logging
from sphinx.util.docutils import SphinxDirective
from sphinx.util.matching import patfilter

logger = logging.getLogger(__name__)

HELP_WIDTH = 88
"""Columns of the rendered ``--help`` text."""


def _sync_notebooks(docs: Path) -> None:
    """Mirror ``../notebooks/*.ipynb`` into ``docs/notebooks/`` (copy new, drop stale)."""
    source = docs.parent / "notebooks"
    target = docs / "notebooks"
    wanted = sorted(source.glob("*.ipynb")) if source.is_dir() else []
    if not wanted and not target.exists():
        return
    target.mkdir(exist_ok=True)
    names = {p.name for p in wanted}
    for stale in target.glob("*.ipynb"):
        if stale.name not in names:
            stale.unlink()
    for notebook in wanted:
        copy = target / notebook.name
        if not copy.exists() or not filecmp.cmp(notebook, copy, shallow=False):
            shutil.copy2(notebook, copy)
    # The notebooks open ``../scenarios/...``: give the copies the same neighbour.
    scenarios = docs / "scenarios"
    if scenarios.exists():
        shutil.rmtree(scenarios)
    shutil.copytree(docs.parent / "scenarios", scenarios)


def _check_schema(docs: Path) -> None:
    """Warn (an error in the strict build) when the shipped schema is out of date."""
    from sanpath.spec import json_schema

    shipped = docs / "scenario.schema.json"
    try:
        current = json.loads(shipped.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        logger.warning("cannot read %s: %s", shipped, exc)
        return
    if current != json_schema():
        logger.warning(
            "docs/scenario.schema.json differs from `sanpath schema`; regenerate it with "
            "`.venv/bin/sanpath schema > docs/scenario.schema.json`"
        )


def _on_builder_inited(app: Sphinx) -> None:
    docs = Path(app.srcdir)
    _sync_notebooks(docs)
    _check_schema(docs)


def cli_help(command: str | None = None, width: int = HELP_WIDTH) -> str:
    """The ``--help`` text of ``sanpath`` (or ``sanpath COMMAND``) as the terminal shows it."""
    argv = [command, "--help"] if command else ["--help"]
    return cli_output(argv, width)


def cli_output(argv: list[str], width: int = HELP_WIDTH) -> str:
    """What ``sanpath ARGV...`` prints, at a terminal ``width`` columns wide."""
    from sanpath.cli import main

    out = io.StringIO()
    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
            main(argv)
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved
    return out.getvalue().rstrip()


class CliHelp(SphinxDirective):
    """``sanpath-cli-help [COMMAND]``: a literal block with the command's ``--help``."""

    optional_arguments = 1
    has_content = False

    def run(self) -> list[nodes.Node]:
        import sanpath.cli

        self.env.note_dependency(str(sanpath.cli.__file__))  # re-read when the CLI changes
        command = self.arguments[0] if self.arguments else None
        text = cli_help(command)
        if not text:
            raise self.error(f"sanpath {command or ''} --help printed nothing")
        block = nodes.literal_block(text, text)
        block["language"] = "text"
        self.set_source_info(block)
        return [block]


class OptionalGlobToctree(TocTree):
    """A ``toctree`` with ``:glob:`` that may match no document.

    Sphinx warns about an empty glob with no type that ``suppress_warnings`` could name, so
    the strict build would fail while ``notebooks/`` is empty. With no match, the patterns
    are dropped (the empty toctree still registers as a glob, so the page is read again when
    documents appear) and a sentence says there is nothing to list yet.
    """

    def run(self) -> list[nodes.Node]:
        patterns = [line.strip() for line in self.content if line.strip()]
        docname = self.env.docname
        if any(patfilter(self.env.found_docs, docname_join(docname, p)) for p in patterns):
            return super().run()
        self.content = StringList()
        empty = nodes.paragraph(text="There is nothing to list here yet.")
        return [*super().run(), empty]


def _resolve_short_name(
    app: Sphinx, env: BuildEnvironment, node: addnodes.pending_xref, contnode: nodes.TextElement
) -> nodes.reference | None:
    """Resolve ``Class.member`` written without its module, when exactly one object fits."""
    target = node.get("reftarget", "")
    if node.get("refdomain") != "py" or node.get("refspecific") or "." not in target:
        return None
    fuzzy = node.deepcopy()
    fuzzy["refspecific"] = True
    domain = env.get_domain("py")
    return domain.resolve_xref(
        env, node["refdoc"], app.builder, node["reftype"], target, fuzzy, contnode
    )


# -- the scenario schema as tables ------------------------------------------------------------

SCHEMA_ORDER = (
    "Scenario",
    "RunSpec",
    "HostSpec",
    "QfullSpec",
    "HbaSpec",
    "PcieSpec",
    "FabricSpec",
    "ArraySpec",
    "ControllerSpec",
    "CacheSpec",
    "PoolSpec",
    "HddSpec",
    "SsdSpec",
    "TextbookDriveSpec",
    "DistSpec",
    "LunSpec",
    "ZoneSpec",
    "WorkloadSpec",
    "ChangeSpec",
    "SweepSpec",
    "ReferenceSpec",
    "ReferencePointSpec",
)
"""Sections in path order; any section not listed follows, alphabetically."""

_UNIT_KINDS = (
    ("a size:", "size"),
    ("a rate:", "rate"),
    ("a duration:", "duration"),
    ("a constant service time:", "duration"),
    ("a drive profile name", "profile name or duration"),
    ("a profile with some fields changed", "{profile: NAME, ...}"),
    ("a textbook drive's service-time distribution", "DistSpec"),
)


def _schema_id(name: str) -> str:
    return nodes.make_id(f"schema-{name}")


def _inline(text: str) -> list[nodes.Node]:
    """Plain text with ``literal`` spans, as the specs' docstrings write them."""
    out: list[nodes.Node] = []
    for i, part in enumerate(re.split(r"``(.+?)``", text)):
        if part:
            out.append(nodes.literal(part, part) if i % 2 else nodes.Text(part))
    return out


def _flow(value: Any) -> str:
    """A value as YAML flow text (what a scenario file would say); nulls in mappings dropped."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value if value else '""'
    if isinstance(value, dict):
        items = ", ".join(f"{k}: {_flow(v)}" for k, v in value.items() if v is not None)
        return "{" + items + "}"
    if isinstance(value, list | tuple):
        return "[" + ", ".join(_flow(v) for v in value) + "]"
    return json.dumps(value)


def _code(value: Any) -> nodes.literal:
    text = _flow(value)
    return nodes.literal(text, text)


def _bound(schema: dict[str, Any]) -> str:
    parts = []
    for key, sign in (
        ("minimum", ">="),
        ("exclusiveMinimum", ">"),
        ("maximum", "<="),
        ("exclusiveMaximum", "<"),
    ):
        if key in schema:
            parts.append(f"{sign} {schema[key]:g}")
    return " " + ", ".join(parts) if parts else ""


def _type(schema: dict[str, Any]) -> list[nodes.Node]:
    """A JSON-schema type as words, with links to the sections it refers to."""
    description = str(schema.get("description", ""))
    for prefix, kind in _UNIT_KINDS:
        if description.startswith(prefix):
            return [nodes.Text(kind)]
    if "$ref" in schema:
        name = schema["$ref"].rsplit("/", 1)[-1]
        ref = nodes.reference("", name, internal=True, refid=_schema_id(name))
        return [ref]
    if "anyOf" in schema or "oneOf" in schema:
        out: list[nodes.Node] = []
        seen: list[str] = []
        for option in schema.get("anyOf", schema.get("oneOf", [])):
            rendered = _type(option)
            key = "".join(n.astext() for n in rendered)
            if key in seen:
                continue
            seen.append(key)
            if out:
                out.append(nodes.Text(" or "))
            out.extend(rendered)
        return out
    if "const" in schema:
        return [_code(schema["const"])]
    if "enum" in schema:
        out = []
        for i, value in enumerate(schema["enum"]):
            if i:
                out.append(nodes.Text(", "))
            out.append(_code(value))
        return out
    kind = schema.get("type")
    if kind == "array":
        if "prefixItems" in schema:
            out = [nodes.Text("[")]
            for i, item in enumerate(schema["prefixItems"]):
                if i:
                    out.append(nodes.Text(", "))
                out.extend(_type(item))
            out.append(nodes.Text("]"))
            return out
        out = [nodes.Text("list of ")]
        out.extend(_type(schema.get("items", {})) or [nodes.Text("values")])
        if schema.get("minItems"):
            out.append(nodes.Text(f", at least {schema['minItems']}"))
        return out
    if kind == "object":
        values = schema.get("additionalProperties")
        if isinstance(values, dict) and values:
            return [nodes.Text("mapping of keys to "), *_type(values)]
        return [nodes.Text("mapping")]
    if kind in ("integer", "number", "string", "boolean", "null"):
        return [nodes.Text(f"{kind}{_bound(schema)}")]
    return [nodes.Text("any")]


def _default(name: str, schema: dict[str, Any], required: bool) -> list[nodes.Node]:
    if required:
        return [nodes.strong("required", "required")]
    if "default" not in schema:
        return []
    value = schema["default"]
    if isinstance(value, dict | list) and len(_flow(value)) > 32:
        if isinstance(value, list):
            return [nodes.Text(f"{len(value)} entry with its defaults")]
        return [nodes.Text("the section's defaults")]
    return [_code(value)]


def _notes(schema: dict[str, Any]) -> list[nodes.Node]:
    description = str(schema.get("description", ""))
    if any(description.startswith(prefix) for prefix, _ in _UNIT_KINDS):
        return []
    return _inline(" ".join(description.split()))


def _row(cells: list[list[nodes.Node]]) -> nodes.row:
    row = nodes.row()
    for content in cells:
        entry = nodes.entry()
        entry += nodes.paragraph("", "", *content)
        row += entry
    return row


def _fields_table(schema: dict[str, Any]) -> nodes.table:
    required = set(schema.get("required", ()))
    rows = [
        [
            [nodes.literal(field, field)],
            _type(prop),
            _default(field, prop, field in required),
            _notes(prop),
        ]
        for field, prop in schema.get("properties", {}).items()
    ]
    headers = ["field", "type", "default", "notes"]
    widths = [18, 38, 18, 30]
    if not any(row[3] for row in rows):
        headers, widths, rows = headers[:3], widths[:3], [row[:3] for row in rows]
    table = nodes.table(classes=["sanpath-schema"])
    group = nodes.tgroup(cols=len(headers))
    table += group
    for width in widths:
        group += nodes.colspec(colwidth=width)
    head = nodes.thead()
    head += _row([[nodes.Text(h)] for h in headers])
    group += head
    body = nodes.tbody()
    for row in rows:
        body += _row(row)
    group += body
    return table


def _description(text: str) -> list[nodes.Node]:
    """Paragraphs and ``*`` bullet lists of a spec's docstring."""
    out: list[nodes.Node] = []
    for block in re.split(r"\n\s*\n", text.strip()):
        lines = block.splitlines()
        if lines and all(line.startswith(("* ", "  ")) for line in lines):
            items = "\n".join(lines).split("* ")[1:]
            bullets = nodes.bullet_list()
            for item in items:
                bullets += nodes.list_item(
                    "", nodes.paragraph("", "", *_inline(" ".join(item.split())))
                )
            out.append(bullets)
        else:
            out.append(nodes.paragraph("", "", *_inline(" ".join(block.split()))))
    return out


class SchemaFields(SphinxDirective):
    """``sanpath-schema-fields``: a section per spec with its description and field table."""

    has_content = False

    def run(self) -> list[nodes.Node]:
        import sanpath.spec.scenario
        from sanpath.spec import json_schema

        self.env.note_dependency(str(sanpath.spec.scenario.__file__))  # re-read when specs change
        schema = json_schema()
        specs: dict[str, dict[str, Any]] = {"Scenario": schema, **schema.get("$defs", {})}
        order = [n for n in SCHEMA_ORDER if n in specs]
        order += sorted(n for n in specs if n not in order)
        out: list[nodes.Node] = []
        for name in order:
            spec = specs[name]
            section = nodes.section(ids=[_schema_id(name)], names=[_schema_id(name)])
            section += nodes.title(name, name)
            section.extend(_description(str(spec.get("description", ""))))
            section += _fields_table(spec)
            self.state.document.note_implicit_target(section, section)
            out.append(section)
        return out


# -- the profiles and the origin of each number -------------------------------------------------

PROFILE_COLUMNS = ("profile", "field", "value", "origin", "source")
"""Columns of a ``sanpath-profiles`` table."""


def _leaves(fields: dict[str, Any], prefix: str = "") -> list[tuple[str, Any]]:
    out: list[tuple[str, Any]] = []
    for key, value in fields.items():
        if isinstance(value, dict):
            out.extend(_leaves(value, f"{prefix}{key}."))
        else:
            out.append((f"{prefix}{key}", value))
    return out


def profile_rows(
    kind: str, names: list[str] | None = None, fields: list[str] | None = None
) -> list[tuple[str, str, str, str, str]]:
    """``(profile, field, value, origin, source)`` of every number of the ``kind`` profiles,
    as ``sanpath profiles --json`` gives them (a drive's ``model`` is a kind, not a number:
    it goes beside the profile's name)."""
    catalogue = json.loads(cli_output(["profiles", "--json"]))
    if kind not in catalogue:
        raise ValueError(f"no {kind!r} profiles; kinds: drive, hba, array")
    profiles: dict[str, dict[str, Any]] = catalogue[kind]
    unknown = sorted(set(names or ()) - set(profiles))
    if unknown:
        raise ValueError(f"unknown {kind} profiles: {', '.join(unknown)}")
    rows: list[tuple[str, str, str, str, str]] = []
    for name, values in profiles.items():
        if names and name not in names:
            continue
        origins = catalogue["provenance"].get(name, {})
        model = values.get("model")
        label = f"{name} ({model})" if isinstance(model, str) else name
        for path, value in _leaves(values):
            if path == "model" or (fields and path not in fields):
                continue
            origin = origins.get(path, {})
            text = _flow(value) if not isinstance(value, str) else value
            rows.append((label, path, text, origin.get("kind", ""), origin.get("note", "")))
    return rows


class ProfileTable(SphinxDirective):
    """``sanpath-profiles KIND``: the profiles of one kind, a row per number with its origin."""

    required_arguments = 1
    has_content = False
    option_spec: ClassVar[dict[str, Callable[[str], Any]]] = {
        "names": str.split,
        "fields": str.split,
    }

    def run(self) -> list[nodes.Node]:
        import sanpath.spec.profiles

        folder = Path(str(sanpath.spec.profiles.__file__)).parent
        for module in sorted(folder.glob("*.py")):  # re-read when a profile changes
            self.env.note_dependency(str(module))
        try:
            rows = profile_rows(
                self.arguments[0], self.options.get("names"), self.options.get("fields")
            )
        except ValueError as exc:
            raise self.error(f"sanpath-profiles: {exc}") from None
        table = nodes.table(classes=["sanpath-profiles"])
        group = nodes.tgroup(cols=len(PROFILE_COLUMNS))
        table += group
        for width in (16, 16, 14, 8, 46):
            group += nodes.colspec(colwidth=width)
        head = nodes.thead()
        head += _row([[nodes.Text(h)] for h in PROFILE_COLUMNS])
        group += head
        body = nodes.tbody()
        previous = ""
        for profile, path, value, kind, note in rows:
            shown: list[nodes.Node] = (
                [nodes.literal(profile, profile)] if profile != previous else []
            )
            previous = profile
            body += _row(
                [
                    shown,
                    [nodes.literal(path, path)],
                    [nodes.Text(value)],
                    [nodes.Text(kind)],
                    [nodes.Text(note)],
                ]
            )
        group += body
        self.set_source_info(table)
        return [table]


def setup(app: Sphinx) -> dict[str, Any]:
    app.connect("builder-inited", _on_builder_inited)
    app.connect("missing-reference", _resolve_short_name)
    app.add_directive("sanpath-cli-help", CliHelp)
    app.add_directive("sanpath-schema-fields", SchemaFields)
    app.add_directive("sanpath-profiles", ProfileTable)
    app.add_directive("optional-glob-toctree", OptionalGlobToctree)
    return {"parallel_read_safe": True, "parallel_write_safe": True, "version": "1"}
