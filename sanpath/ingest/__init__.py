"""The planner's own data in: measured counters, fio jobs and results, turned into scenarios.

One reader per format (:mod:`~sanpath.ingest.perfmon`, :mod:`~sanpath.ingest.iostat`,
:mod:`~sanpath.ingest.esxtop`, :mod:`~sanpath.ingest.fio`) gives a
:class:`~sanpath.ingest.model.Measured`; :mod:`~sanpath.ingest.workload` picks the interval
and builds workloads and measured reference points from it.
"""

from sanpath.formats import FORMATS
from sanpath.ingest.fio_json import parse as parse_fio_json
from sanpath.ingest.load import import_files, import_scenario, load, summary
from sanpath.ingest.model import JobSpec, Measured, Sample, bad_file
from sanpath.ingest.points import MeasuredRow, read_points
from sanpath.ingest.text import read_text
from sanpath.ingest.trace import TraceOptions, parse_columns

__all__ = [
    "FORMATS",
    "JobSpec",
    "Measured",
    "MeasuredRow",
    "Sample",
    "TraceOptions",
    "bad_file",
    "import_files",
    "import_scenario",
    "load",
    "parse_columns",
    "parse_fio_json",
    "read_points",
    "read_text",
    "summary",
]
