"""Where a workload's random I/Os land: the address distribution over its span.

``access`` is one of

* ``{dist: uniform}`` (the default): every block of the span equally likely;
* ``{dist: zipf, theta: 1.2}``: the block of popularity rank ``i`` (1 = hottest) is chosen
  with probability proportional to ``1 / i^theta``, as fio's ``random_distribution=zipf:theta``;
* ``{dist: pareto, h: 0.2}``: fio's ``random_distribution=pareto:h``, the rank drawn as
  ``(blocks - 1) x u^(ln h / ln(1 - h))`` for ``u`` uniform, so that a fraction ``1 - h`` of
  the accesses goes to the hottest fraction ``h`` of the blocks (0.2: the 80/20 rule);
* ``{dist: zoned, zones: [[60, 10], [30, 20], [10, 70]]}``: fio's
  ``random_distribution=zoned:60/10:30/20:10/70``, each zone ``[percent of accesses, percent of
  the span]`` in address order, uniform inside a zone.

The hot blocks of ``zipf`` and ``pareto`` are scattered over the span (fio hashes the rank to
an offset); zones stay where they are written.
"""

from __future__ import annotations

import math
from typing import Annotated, Literal

from pydantic import Field, model_validator

from sanpath.spec.fields import Spec

Percent = Annotated[float, Field(ge=0.0, le=100.0)]
PositivePercent = Annotated[float, Field(gt=0.0, le=100.0)]

AccessDist = Literal["uniform", "zipf", "pareto", "zoned"]

MAX_ZONES = 256
"""Most zones of a ``zoned`` distribution (fio's own limit)."""


class AccessSpec(Spec):
    """The distribution of random offsets over a workload's span (see the module docstring)."""

    dist: AccessDist = "uniform"
    theta: Annotated[float, Field(gt=0.0, le=100.0)] | None = None
    """Zipf exponent (``dist: zipf``): larger = more skewed."""
    h: Annotated[float, Field(gt=0.0, lt=1.0)] | None = None
    """Pareto hot fraction (``dist: pareto``): that fraction of the blocks takes ``1 - h`` of
    the accesses."""
    zones: tuple[tuple[Percent, PositivePercent], ...] | None = None
    """``dist: zoned``: ``[percent of accesses, percent of the span]`` per zone, in address
    order; each column adds up to 100."""

    @model_validator(mode="after")
    def _check_parameters(self) -> AccessSpec:
        needs = {"uniform": None, "zipf": "theta", "pareto": "h", "zoned": "zones"}
        wanted = needs[self.dist]
        given = [name for name in ("theta", "h", "zones") if getattr(self, name) is not None]
        if wanted is not None and wanted not in given:
            raise ValueError(f"dist {self.dist} needs {wanted}")
        extra = [name for name in given if name != wanted]
        if extra:
            takes = f"takes {wanted}" if wanted else "takes no parameters"
            raise ValueError(f"dist {self.dist} {takes}, not {', '.join(extra)}")
        if self.zones is not None:
            if not 1 <= len(self.zones) <= MAX_ZONES:
                raise ValueError(f"zoned needs 1 to {MAX_ZONES} zones")
            for column, what in ((0, "access"), (1, "span")):
                total = sum(zone[column] for zone in self.zones)
                if not math.isclose(total, 100.0, abs_tol=1e-6):
                    raise ValueError(f"zone {what} percentages add up to {total:g}: expected 100")
        return self

    @property
    def uniform(self) -> bool:
        """True for the default, every block equally likely."""
        return self.dist == "uniform"
