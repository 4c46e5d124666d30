"""Block traces read as streams of I/O records: fio iologs, blkparse, MSR, SPC, Alibaba,
Tencent CBS and plain CSV.

A base package (it imports nothing else of sanpath), so that the scenario specs can check a
trace file when a scenario loads, the simulator can replay it and ``sanpath import`` can
summarize it, each with the same readers:

* :mod:`~sanpath.traces.records`: :class:`Batch`, :class:`Window`, :class:`TraceError`;
* :mod:`~sanpath.traces.reader`: :class:`TraceReader` and :func:`check`;
* one module per family of formats: :mod:`~sanpath.traces.fio_iolog`,
  :mod:`~sanpath.traces.blkparse`, :mod:`~sanpath.traces.tables`;
* :mod:`~sanpath.traces.summary`: a trace's figures in one pass (:func:`summarize`).
"""

from sanpath.traces.fio_iolog import version_of
from sanpath.traces.reader import FORMATS, TraceReader, check
from sanpath.traces.records import SECTOR, Batch, Tally, TraceError, Window, open_text
from sanpath.traces.summary import Summary, summarize

__all__ = [
    "FORMATS",
    "SECTOR",
    "Batch",
    "Summary",
    "Tally",
    "TraceError",
    "TraceReader",
    "Window",
    "check",
    "open_text",
    "summarize",
    "version_of",
]
