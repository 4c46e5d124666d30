"""The analytic twin: an instant mean-value prediction of a scenario, in milliseconds.

The simulator follows every command; the twin maps the same path onto a queueing network and
solves it with textbook formulas (:mod:`sanpath.theory.queues`), so a whole sweep takes a few
milliseconds. Every curve can then show where the simple theory holds and where it breaks.

The mapping mirrors :mod:`sanpath.sim.engine` station by station (see ``docs/twin.md``):

* **stations** - per HBA card its processor, or one per port with ``processor: port``
  (``command_time`` per command), and its PCIe slot
  (one link per direction, bytes / rate), per host port and per array port the FC link in
  each direction (wire bytes = size + frames x frame overhead, frames = ceil(size / frame
  payload) + 1), the controller (``cores`` servers, ``io_time``) and, per pool, the drives
  (back-end operations per command by RAID level and I/O size, times the drive's service);
* **pure delays** - fabric latency (command and data legs: two one-way trips for a read,
  four for a write: command, XFER_RDY, data, status), the host's ``io_time``, cache hits
  (``hit_time``) and writes landing in cache (``write_time``);
* **routing** - commands spread over the routes of a LUN by the multipath policy (evenly, or
  LUN ``i`` on route ``i mod n`` for ``failover``);
* **closed loops** (``outstanding``) - exact Mean Value Analysis of the fixed-rate stations,
  convolved in log space with the load-dependent ones (multi-server stations, SPTF drives,
  mirrored pairs); the queue-depth limits bound the population inside the path and the
  rest waits in the host (latency = N / X, Little's law);
* **open loops** (``rate``) - a Jackson-style decomposition: Erlang C for multi-server
  stations, Pollaczek-Khinchine for single servers, birth-death chains for load-dependent
  drives, summed.

Where the path is not product form the twin approximates and says so in
:attr:`TwinPrediction.notes`: SPTF command queueing of hard disks (with ``j`` commands
queued a drive positions ``g(j) = min(j, tcq)^0.27`` times faster), mirrored pairs (reads to
the less busy copy), QUEUE FULL (the array's limits are treated as population bounds),
splitting (children as independent commands), fork-join of parallel drive operations,
pipelined link transfers, write-back destage (background load), read-ahead, several
workloads (aggregated into one class), non-exponential service in MVA.

Entry points: :func:`predict` for one scenario and :func:`predict_many` for a sweep (it maps
the scenario once and re-solves only what the varied keys change); :func:`caveats` says where
a prediction may be off by a factor, and :func:`phases` cuts a scheduled scenario into the
settings of each phase (:mod:`~sanpath.theory.twin.limits`).

The package is cut by job, each part importing only the parts listed after it:
``api`` (the entry points, destage modes), :mod:`~sanpath.theory.twin.solve` (closed and
open loops, the MVA recursions, read-ahead, notes), :mod:`~sanpath.theory.twin.model` (the
network's members, classes and flows, drive service and RAID work, the scenario mapped onto
them, the knobs a sweep varies) and ``prediction`` (:class:`TwinPrediction`). The shared MVA
recursions are in ``sanpath.theory.kernels``.
"""

from sanpath.theory.twin.api import predict, predict_many
from sanpath.theory.twin.limits import Phase, caveats, phases
from sanpath.theory.twin.prediction import TwinPrediction

__all__ = ["Phase", "TwinPrediction", "caveats", "phases", "predict", "predict_many"]
