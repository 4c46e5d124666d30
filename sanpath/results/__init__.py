"""What a run or a sweep produced: pure data, no engine.

:class:`RunResult` holds the figures of one run, :class:`SweepResult` the table of a sweep,
:class:`StationStats` one station's figures; :data:`LAYERS` names the layers of the latency
breakdown. Nothing here imports the simulator or the scenario specs, so plots, reports and
notebooks can read results written by another process or another version.
"""

from sanpath.results.bottleneck import Bottleneck, rank_bottlenecks
from sanpath.results.congestion import Notified, Victim, victims
from sanpath.results.diff import NotAResultError, check_result, diff_results, intervals_overlap
from sanpath.results.fio_json import combine, fio_document, fio_job
from sanpath.results.groups import (
    DeviceFigures,
    GroupFigures,
    fairness,
    served,
    short_of_demand,
    shortfall_text,
)
from sanpath.results.headroom import GROWTH_KINDS, HeadroomResult, SimulatedPoint, status
from sanpath.results.latency import (
    MIN_TAIL_IOS,
    PERCENTILES,
    beyond,
    finite,
    latency_dict,
    tail_note,
)
from sanpath.results.recording import HOST_LINKS, Journey, Recording
from sanpath.results.run import RunResult
from sanpath.results.slo import Slo, SloError, parse_slo, verdict
from sanpath.results.starvation import Starving, starvation_warning, starving
from sanpath.results.station import (
    KIND_OF_LAYER,
    LAYER_COLORS,
    LAYER_LABELS,
    LAYER_TABLE,
    LAYERS,
    Layer,
    StationStats,
)
from sanpath.results.sweep import METRICS, SweepResult, check_table_path

__all__ = [
    "GROWTH_KINDS",
    "HOST_LINKS",
    "KIND_OF_LAYER",
    "LAYERS",
    "LAYER_COLORS",
    "LAYER_LABELS",
    "LAYER_TABLE",
    "METRICS",
    "MIN_TAIL_IOS",
    "PERCENTILES",
    "Bottleneck",
    "DeviceFigures",
    "GroupFigures",
    "HeadroomResult",
    "Journey",
    "Layer",
    "NotAResultError",
    "Notified",
    "Recording",
    "RunResult",
    "SimulatedPoint",
    "Slo",
    "SloError",
    "Starving",
    "StationStats",
    "SweepResult",
    "Victim",
    "beyond",
    "check_result",
    "check_table_path",
    "combine",
    "diff_results",
    "fairness",
    "finite",
    "fio_document",
    "fio_job",
    "intervals_overlap",
    "latency_dict",
    "parse_slo",
    "rank_bottlenecks",
    "served",
    "short_of_demand",
    "shortfall_text",
    "starvation_warning",
    "starving",
    "status",
    "tail_note",
    "verdict",
    "victims",
]
