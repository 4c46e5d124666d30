"""Numbers in a page's prose against the run the page executes.

A page that runs something (a notebook, or any page the documentation build executes) may
state a number in its text only when it is one of:

* **produced by the run**: it appears in the page's outputs (tables, printed text), or the
  text pastes it from the run with MyST-NB's ``{glue:text}`` role (never typed, so never
  checked here);
* **an input**: it appears in the page's code or in a scenario file the code opens
  (``../scenarios/NAME.yaml``), as a setting the reader can see;
* **a fact the page declares**: listed under ``sanpath`` / ``facts`` in the notebook's
  metadata with why it is there (a published figure, say), or a year.

Anything else is a number typed by hand about an output, the kind that drifts from the run.
Numbers are compared by value as written: ``61,044`` matches an output ``61044`` but not
``61155.7``; ``24.4`` does not match ``24.368``.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from decimal import Decimal, InvalidOperation
from pathlib import Path
from typing import Any

PROSE_NUMBER = re.compile(r"(?<![\w.,/])(?<!\w[-+])(\d{1,3}(?:,\d{3})+|\d+)(\.\d+)?(?![\w]|\.\d)")
"""A number in running text: ``61,044``, ``24.4``, ``3``; not ``p99``, ``x4`` or ``v2``."""

ANY_NUMBER = re.compile(r"\d+(?:\.\d+)?")
"""Any run of digits in code, settings and outputs (``3ms`` gives 3, ``8KiB`` 8)."""

SCENARIO_FILE = re.compile(r"""["']((?:\.\./)?scenarios/[\w/.-]+\.ya?ml)["']""")

_STRIP = (
    re.compile(r"```.*?```", re.S),  # fenced code
    re.compile(r"\{[\w:-]+\}`[^`]*`"),  # roles: {glue:text}`key:,.0f`, {doc}`...`
    re.compile(r"`[^`]*`"),  # inline code
    re.compile(r"\]\([^)]*\)"),  # link targets
    re.compile(r"\$[^$]*\$"),  # math
    re.compile(r"^\s*(?:#+\s*)?(?:\d+\.|[*-])\s", re.M),  # list markers, numbered headings
)


def prose(markdown: str) -> str:
    """The running text of a Markdown cell: code, roles, links and list markers removed."""
    for pattern in _STRIP:
        markdown = pattern.sub(" ", markdown)
    return markdown


def value(text: str) -> Decimal | None:
    try:
        return Decimal(text.replace(",", ""))
    except InvalidOperation:
        return None


def prose_numbers(markdown: str) -> list[str]:
    """The numbers stated in a Markdown cell's text, as written."""
    return [m.group(0) for m in PROSE_NUMBER.finditer(prose(markdown))]


def numbers_in(texts: Iterable[str]) -> set[Decimal]:
    """Every number found in ``texts`` (thousands separators removed first)."""
    found: set[Decimal] = set()
    for text in texts:
        for match in ANY_NUMBER.finditer(re.sub(r"(?<=\d),(?=\d{3})", "", text)):
            number = value(match.group(0))
            if number is not None:
                found.add(number)
    return found


def _output_texts(cell: Mapping[str, Any]) -> list[str]:
    texts = []
    for output in cell.get("outputs", []):
        if "text" in output:
            texts.append("".join(output["text"]))
        for mime, data in output.get("data", {}).items():
            if mime.startswith(("text/plain", "text/html", "text/markdown")):
                text = "".join(data) if isinstance(data, list) else str(data)
                texts.append(html.unescape(re.sub(r"<[^>]+>", " ", text)))
    return texts


def _source(cell: Mapping[str, Any]) -> str:
    source = cell.get("source", "")
    return "".join(source) if isinstance(source, list) else str(source)


@dataclass(frozen=True)
class Unbacked:
    """A number a page states that its run neither produces nor takes as an input."""

    cell: int
    number: str
    context: str

    def __str__(self) -> str:
        return f"cell {self.cell}: {self.number!r} in {self.context!r}"


def unbacked_numbers(notebook: Mapping[str, Any], root: Path) -> list[Unbacked]:
    """The numbers of ``notebook``'s Markdown cells that its run does not back (see the
    module); ``root`` is where the ``scenarios/`` folder its code opens lives."""
    cells = notebook.get("cells", [])
    code = [_source(c) for c in cells if c.get("cell_type") == "code"]
    inputs = list(code)
    for text in code:
        for name in SCENARIO_FILE.findall(text):
            path = root / name.removeprefix("../")
            if path.is_file():
                inputs.append(path.read_text(encoding="utf-8"))
    outputs = [t for c in cells if c.get("cell_type") == "code" for t in _output_texts(c)]
    facts = notebook.get("metadata", {}).get("sanpath", {}).get("facts", {})
    backed = numbers_in(inputs) | numbers_in(outputs) | numbers_in(str(k) for k in facts)
    found = []
    for i, cell in enumerate(cells):
        if cell.get("cell_type") != "markdown":
            continue
        text = prose(_source(cell))
        for match in PROSE_NUMBER.finditer(text):
            number = value(match.group(0))
            if number is None or number in backed or _year(number):
                continue
            start, end = max(0, match.start() - 40), match.end() + 40
            found.append(Unbacked(i, match.group(0), " ".join(text[start:end].split())))
    return found


def _year(number: Decimal) -> bool:
    return number == number.to_integral_value() and 1990 <= number <= 2039
