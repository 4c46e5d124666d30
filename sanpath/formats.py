"""The names of the measurement and trace formats ``sanpath import`` reads.

Names only, so that the command line can list them without loading a reader
(:mod:`sanpath.ingest` reads the files; :data:`sanpath.traces.reader.FORMATS` names the same
trace formats for the trace readers, which import nothing else of sanpath).
"""

__all__ = ["COUNTER_FORMATS", "FORMATS", "TRACE_FORMATS"]

COUNTER_FORMATS = ("perfmon", "iostat", "esxtop", "fio-json", "fio-job")
"""Measured counters and fio jobs or results (:func:`sanpath.ingest.load` reads them)."""
TRACE_FORMATS = ("fio-iolog", "blkparse", "msr", "spc", "alibaba", "tencent", "csv")
"""Block traces (read by ``sanpath.traces``; imported as a scenario that replays them)."""
FORMATS = COUNTER_FORMATS + TRACE_FORMATS
"""Formats ``sanpath import`` reads (``--format``)."""
