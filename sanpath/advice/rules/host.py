"""Rules on the hosts: SP014 settings beyond a driver's range, SP015 host processors."""

from __future__ import annotations

import math
from typing import Any

from sanpath.advice.analysis import queue_depth_key
from sanpath.advice.fmt import host_label, num, pct
from sanpath.advice.registry import CheckOptions, Found, rule
from sanpath.layout import station_name
from sanpath.readable import duration
from sanpath.spec import Scenario
from sanpath.theory.twin import predict

DRIVER_QUEUE_LIMIT = 255
"""Largest per-LUN queue depth Storport (without extended SRBs) and HP-UX accept."""

SRC_DRIVER = (
    "Microsoft StorPortSetDeviceQueueDepth: at most 255 per LUN unless the miniport supports "
    "extended SRBs; HP-UX scsi_max_qdepth / max_q_depth: at most 255."
)
SRC_HOST_CPU = (
    'HP, "HP-UX 11i v3 Mass Storage I/O Performance Improvements": setting max_q_depth too '
    "high can result in increased CPU utilization; on an rx6600 the IOPS gained nothing from "
    "16 to 32 per LUN path."
)
HOST_CPU_BUSY = 0.9
"""Host processor utilization (twin estimate) at which SP015 reports the host as the limit."""
HOST_CPU_TARGET = 0.7
"""Utilization SP015's fix aims the host processors at."""


@rule(
    "SP014-driver-range",
    "warning",
    "setting beyond a driver's range",
    simulate=False,
    source=SRC_DRIVER,
)
def check_driver_range(s: Scenario, options: CheckOptions) -> list[Found]:
    """Per-LUN queue depths above 255, the most Storport and HP-UX accept. Warning."""
    findings = []
    for g, host in enumerate(s.hosts):
        fix: dict[str, Any] = {}
        items = []
        if host.lun_queue_depth is not None and host.lun_queue_depth > DRIVER_QUEUE_LIMIT:
            fix[queue_depth_key(s, g)] = DRIVER_QUEUE_LIMIT
            items.append(f"lun_queue_depth {host.lun_queue_depth}")
        for j, hba in enumerate(host.hbas):
            if (
                hba.queue_depth is not None
                and hba.queue_target == "lun"
                and hba.queue_depth > DRIVER_QUEUE_LIMIT
            ):
                fix[f"hosts.{g}.hbas.{j}.queue_depth"] = DRIVER_QUEUE_LIMIT
                items.append(f"HBA {j} queue_depth {hba.queue_depth} per LUN")
        if not items:
            continue
        findings.append(
            Found(
                title=f"{host.name}: per-LUN queue depth above {DRIVER_QUEUE_LIMIT}",
                message=(
                    f"Host {host_label(host)} sets {', '.join(items)}; Windows Storport (without "
                    f"extended SRBs) and HP-UX accept at most {DRIVER_QUEUE_LIMIT} per LUN."
                ),
                mechanism=(
                    "A driver clamps or rejects a value outside its range, so the host does not "
                    "run with the depth the proposal assumes and every calculation built on it "
                    "is off."
                ),
                numbers={"host": host.name, "limit": DRIVER_QUEUE_LIMIT, "settings": items},
                fix=fix,
                fix_text=f"Set the per-LUN depths to at most {DRIVER_QUEUE_LIMIT}.",
            )
        )
    return findings


@rule(
    "SP015-host-cpu", "warning", "host processors are the limit", metric="iops", source=SRC_HOST_CPU
)
def check_host_cpu(s: Scenario, options: CheckOptions) -> list[Found]:
    """A host whose processors (``cpus``, ``cpu_time``) are nearly always busy with I/O work.

    The analytic twin (:func:`sanpath.theory.twin.predict`) estimates the utilization of every
    station at the proposal's load; when a host's processors are at least 90% busy, the host
    and not the SAN sets the IOPS, and deeper queues only add waiting. Warning.
    """
    hosts = [(g, h) for g, h in enumerate(s.hosts) if h.cpus is not None and h.cpu_time.mean_s]
    if not hosts:
        return []
    prediction = predict(s)
    findings = []
    for g, host in hosts:
        assert host.cpus is not None
        busy = prediction.utilization.get(station_name("host_cpu", host=host.name), 0.0)
        if busy < HOST_CPU_BUSY:
            continue
        cpu_time = host.cpu_time.mean_s
        ceiling = host.cpus / cpu_time
        cpus = math.ceil(host.cpus * busy / HOST_CPU_TARGET)
        others = {
            k: u
            for k, u in prediction.utilization.items()
            if k != station_name("host_cpu", host=host.name)
        }
        runner_up = max(others, key=others.__getitem__, default=None)
        close = ""
        if runner_up is not None and others[runner_up] >= HOST_CPU_BUSY:
            close = (
                f" {runner_up} is {pct(others[runner_up])} busy too, so more processors "
                "alone will gain little."
            )
        findings.append(
            Found(
                title=f"{host.name}: processors {pct(busy)} busy with I/O work",
                message=(
                    f"Host {host_label(host)} spends {duration(cpu_time)} of processor time "
                    f"per command on {host.cpus} processor(s), at most {num(ceiling)} commands "
                    f"per second per host; at the proposal's load they are {pct(busy)} busy "
                    f"(analytic estimate), the bottleneck being {prediction.bottleneck}.{close}"
                ),
                mechanism=(
                    "Every command needs its share of a host processor before it leaves the "
                    "host. Once the processors are nearly always busy, the host sets the IOPS: "
                    "the SAN waits for it, and deeper queues only lengthen the line for the "
                    "processors (and cost more processor time per I/O on real systems)."
                ),
                numbers={
                    "host": host.name,
                    "cpus": host.cpus,
                    "cpu_time_s": cpu_time,
                    "commands_per_s_max": ceiling,
                    "utilization": busy,
                    "bottleneck": prediction.bottleneck,
                    "next_busiest": runner_up,
                },
                fix={f"hosts.{g}.cpus": cpus},
                fix_text=(
                    f"Give the I/O work {cpus} processors (about {pct(HOST_CPU_TARGET)} busy), "
                    "spread the load over more hosts, or use larger I/Os (fewer commands for "
                    "the same bytes)."
                ),
            )
        )
    return findings
