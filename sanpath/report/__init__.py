"""A report to hand over: one self-contained HTML page of a scenario and its answers.

* :mod:`~sanpath.report.words` - the scenario in sentences;
* :mod:`~sanpath.report.build` - run what the page shows, write the page;
* :mod:`~sanpath.report.page` - the page: the scenario in words, the headline results with
  their intervals, the per-layer breakdown, the hosts, the bottleneck, the headroom and
  optionally ``sanpath check``'s findings. The picture of the path is
  :func:`sanpath.plotting.topology`.
"""

from sanpath.report.build import build_report, write_report
from sanpath.report.page import Report, render

__all__ = ["Report", "build_report", "render", "write_report"]
