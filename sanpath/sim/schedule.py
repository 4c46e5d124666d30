"""Schedules: settings that change during a run (queue depths, the load, a failed controller).

A scenario's ``schedule`` lists changes at simulated times (s); which keys may change, and
their values, are checked when the scenario is validated
(:data:`sanpath.spec.knobs.KNOBS`). :class:`Schedule` applies them to the running
queues and load generators and keeps the history of every scheduled key's value
(``RunResult.settings``), starting with its value at time 0.
"""

from __future__ import annotations

import fnmatch
import functools
from typing import Any

import simpy

from sanpath.sim.load import Load
from sanpath.sim.topology import Topology
from sanpath.spec import Scenario, knob_key, lun_queue_limit, match_knob


class Schedule:
    """The scheduled changes of one run, applied at their times."""

    def __init__(
        self, env: simpy.Environment, scenario: Scenario, topology: Topology, load: Load
    ) -> None:
        self.env = env
        self.scenario = scenario
        self.topology = topology
        self.load = load
        self.settings: list[tuple[float, str, Any]] = []
        """(time in s, dotted key, value) for every scheduled key, from its value at 0."""

    def start(self) -> None:
        """Record the scheduled keys' values at time 0 and arm every change."""
        data = self.scenario.to_data()
        keys = {k for change in self.scenario.schedule for k in change.set}
        for key in sorted(keys):
            self.settings.append((0.0, key, _lookup(data, key)))
        for change in self.scenario.schedule:
            ev = self.env.timeout(change.at)
            ev.callbacks.append(functools.partial(self._apply_event, change.set))

    def _apply_event(self, changes: dict[str, Any], _event: simpy.Event) -> None:
        self.apply(changes)

    def apply(self, changes: dict[str, Any]) -> None:
        """Apply ``changes`` (dotted key -> value) now."""
        now = self.env.now
        for key, value in changes.items():
            self.settings.append((now, key, value))
            found = match_knob(key)
            kind = found[0].name if found is not None else ""
            if kind == "array_lun_queue_depth":
                self._set_lun_queue_depth(value)
                continue
            if kind == "failed_controller":
                self.topology.fail_controller(self.scenario, value)
                continue
            if found is not None and found[0].sizes == "load":
                load = self.load
                at = found[1]["workload"]
                for wi in range(len(load.rates)) if at == "*" else [int(at)]:
                    if kind == "rate":
                        load.set_rate(wi, float(value))
                    else:
                        load.set_outstanding(wi, int(value))
                continue
            for name, queues in self.topology.knobs.items():
                if fnmatch.fnmatchcase(name, key):
                    queues.set(value)

    def _set_lun_queue_depth(self, value: Any) -> None:
        """The array-wide LUN queue depth: every LUN group without its own depth."""
        array = self.scenario.array
        pool_specs = {p.name: p for p in array.pools}
        for gi, group in enumerate(array.luns):
            if group.queue_depth is None:
                spec = array.model_copy(update={"lun_queue_depth": value})
                limit = lun_queue_limit(spec, group, pool_specs[group.pool])
                knob = self.topology.knobs.get(knob_key("lun_queue_depth", lun=gi))
                if knob is not None:
                    knob.set(limit)


def _lookup(data: Any, key: str) -> Any:
    """The value at a dotted key (the first match of a ``*``)."""
    node = data
    for part in key.split("."):
        if part == "*":
            part = "0"
        node = node[int(part)] if isinstance(node, list) else node.get(part)
        if node is None:
            return None
    return node
