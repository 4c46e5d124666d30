"""Run what a report shows and write its page."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from sanpath.files import check_output, write_text
from sanpath.report.page import Report, render
from sanpath.results import SweepResult
from sanpath.spec import Scenario, load_scenario

__all__ = ["build_report", "write_report"]


def build_report(
    scenario: Scenario | str | Path | Mapping[str, Any],
    *,
    overrides: Mapping[str, Any] | None = None,
    seed: int | None = None,
    slo: str | Sequence[str] | None = None,
    grow: str = "rate",
    simulations: int = 4,
    check: bool = False,
    check_ios: int | None = None,
    sweep: str | Path | None = None,
    force: bool = False,
    progress: bool | None = False,
) -> Report:
    """Run ``scenario`` (with ``overrides`` and ``seed``) and, when asked, its headroom
    against ``slo`` (growing ``grow``, confirmed by at most ``simulations`` runs) and
    ``sanpath check`` with its second opinions (each fix simulated with ``check_ios``
    measured I/Os, by default ``sanpath check``'s own, at most the scenario's ``run.ios``);
    read a sweep table written by ``sanpath sweep`` when ``sweep`` names one. Returns what
    :func:`render` draws."""
    from sanpath.sim import run

    over = dict(overrides or {})
    spec = load_scenario(scenario, over)
    result = run(spec, seed=seed, force=force, progress=progress)
    source = str(scenario) if isinstance(scenario, str | Path) else ""
    report = Report(spec, result, over, source=source)
    if slo:
        from sanpath.experiments import headroom

        report.headroom = headroom(
            spec, slo, grow=grow, seed=seed, simulations=simulations, force=force
        )
    if check:
        from sanpath.advice import DEFAULT_CHECK_IOS
        from sanpath.advice import check as run_check

        ios = DEFAULT_CHECK_IOS if check_ios is None else check_ios
        report.check = run_check(spec, simulate=True, ios=ios, force=force)
    if sweep is not None:
        report.sweep = SweepResult.load(sweep)
        report.sweep_name = Path(sweep).name
    return report


def write_report(report: Report, out: str | Path, *, force: bool = False) -> Path:
    """Write ``report`` as one self-contained HTML file at ``out`` (``.html``).

    An existing ``out`` is refused (:class:`sanpath.files.OutputError`) unless ``force``.
    """
    path = check_output(out, (".html", ".htm"), "report", force=force)
    return write_text(path, render(report), replace=force)
