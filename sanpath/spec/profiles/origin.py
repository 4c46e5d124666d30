"""Where a profile's number comes from: ``sourced``, ``assumed`` or ``fitted``.

* ``sourced``: read from a document; the note names it (vendor, document, table or page,
  date). Where the figure was taken from the document as remembered, not from a copy read
  while writing the profile, the note says so ("as recalled"): check it before relying on it.
* ``assumed``: no source gives it; the note says why this value.
* ``fitted``: chosen so that the model reproduces one experiment; the note names it.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

Kind = Literal["sourced", "assumed", "fitted"]


class Origin(NamedTuple):
    """The origin of one profile number."""

    kind: Kind
    note: str

    def as_dict(self) -> dict[str, str]:
        """``{"kind": ..., "note": ...}`` for JSON."""
        return {"kind": self.kind, "note": self.note}


def sourced(note: str) -> Origin:
    """A number read from the document ``note`` names."""
    return Origin("sourced", note)


def assumed(note: str) -> Origin:
    """A number no source gives; ``note`` says why this value."""
    return Origin("assumed", note)


def fitted(note: str) -> Origin:
    """A number chosen to reproduce the experiment ``note`` names."""
    return Origin("fitted", note)


def field_paths(fields: dict[str, object], prefix: str = "") -> list[str]:
    """Dotted paths of a profile's leaf fields (``cache.write_aside``)."""
    out: list[str] = []
    for key, value in fields.items():
        if isinstance(value, dict):
            out.extend(field_paths(value, f"{prefix}{key}."))
        else:
            out.append(f"{prefix}{key}")
    return out
