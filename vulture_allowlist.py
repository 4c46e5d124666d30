"""Names vulture (`make lint`, [tool.vulture] in pyproject.toml) reports that are used.

Each is called or read by something vulture cannot see: a framework, a protocol, the
public API (tests, docs and notebooks use it), or a field read by name. Pydantic
validators and the check rules (``@rule``) are skipped by ``ignore_decorators`` instead.
"""
# ruff: noqa

_ = object()

# public API: used by users, tests, docs and notebooks, not inside the package
_.by_rule  # advice.report.CheckReport
_.not_worse  # advice.report.SecondOpinion
_.to_frame  # results.diff, results.run
_.by_host_group  # results.run.RunResult
_.record_many  # stats.histogram.LatencyHistogram
_.bucket_edges  # stats.histogram.LatencyHistogram
environment  # experiments.dask_settings: DASK_* variables for `dask worker`
what_if  # notebook.what_if
_.what_if  # notebook: the widget box keeps its state
closed_path  # theory.textbook
open_queue  # theory.textbook

# data fields: part of a record's shape (pydantic models, dataclasses, named tuples)
ramp_time_s  # ingest.model.JobSpec
runtime_s  # ingest.model.JobSpec
twin_latency_ms  # notebook.Point
drive_ops_per_io  # sim.cost.Estimate
in_system  # theory.queues.OpenQueueResult
line_rate_baud  # units.FcSpeed
encoding  # units.FcSpeed
model_config  # pydantic
profile  # spec.hardware: a profile's name, a pydantic field
little_residual  # results.station.StationStats (read in tests and by asdict)

# protocols and hooks: called by Python, argparse, Jupyter, numpy, ipywidgets, SimPy, setup.py
namespace  # argparse.Action.__call__
option_string  # argparse.Action.__call__
_.find_spec  # importlib meta path finder
__getattr__  # module attributes on first use (PEP 562): sanpath/__init__.py
__dir__  # dir() of a module (PEP 562): sanpath/__init__.py
mypyc_extensions  # setup.py
_._repr_html_  # Jupyter
_.continuous_update  # ipywidgets
_.disabled  # ipywidgets (the what-if panel's Animate button)
_.generate_state  # numpy SeedSequence protocol
_.is_alive  # SimPy Process API (sim.kernel)
_._active_proc  # SimPy Environment.active_process reads it (sim.kernel)
_.__cause__  # exception chaining (sim.kernel)

# counters read by name (sim.measure lists them; results read them with getattr)
_.ios_completed
_.bytes_completed
_.commands_completed
_.command_bytes_completed

write_table  # experiments.datasheets: make validation's datasheet table (the Makefile calls it)

# ingest.model.Sample: esxtop's latencies, set by the reader and read by name as table columns
_.device_latency_s
_.kernel_latency_s
_.queue_latency_s
_.guest_latency_s
