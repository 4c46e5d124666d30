"""Transports against published comparisons: the table "comparison, set-up, published, model,
verdict" in docs/validation/transports.md.

Each comparison rebuilds the published set-up as a scenario (a path that costs nothing but
what the comparison is about), runs it and sets the model's figure beside the published one
with its band. A figure the model's defaults were taken from is marked ``fitted`` (it checks
the arithmetic, not the model); the others are predictions, and a prediction outside its band
is listed as a miss with its cause. ``write_table`` writes the table (``make validation``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sanpath.files import write_text
from sanpath.sim import run
from sanpath.theory import textbook


@dataclass(frozen=True)
class Comparison:
    """One published comparison and how the model reproduces it."""

    name: str
    setup: str
    source: str
    published: str
    """The published figure, as the source gives it."""
    low: float
    high: float
    """The band the model's figure must fall in (same unit as the model's figure)."""
    unit: str
    role: str
    """``fitted`` (the model's default came from this figure) or ``predicted``."""
    model: Callable[[int], float]
    """The model's figure for a run of that many I/Os."""
    cause: str = ""
    """Why the model misses, when it does."""


def _host(transport: str, cpus: int | None = 1, **host: Any) -> dict[str, Any]:
    """A scenario of one host on ``transport`` whose only cost is the transport's, against
    an array that answers from cache at no cost."""
    data = textbook.free_path("transport", ios=20_000, warmup_ios=2_000)
    nic = "100GbE" if transport in ("nvme-tcp", "nvme-roce", "iscsi") else "32GFC"
    spec: dict[str, Any] = {
        "name": "host",
        "transport": transport,
        "cpus": cpus,
        "hbas": [{"ports": 1, "speed": nic, "command_time": 0}],
        **host,
    }
    if transport == "fcp":
        spec.update(lun_queue_depth=None, multipath="failover")
        spec["hbas"][0]["queue_depth"] = None
    data["hosts"] = [spec]
    data["array"].update(port_speed=nic, nvme={"tcp_time": 0, "iscsi_time": 0, "rdma_time": 0})
    data["array"]["controller"] = {"cores": 64, "io_time": 0}
    data["array"]["cache"] = {"read_hit": 1.0}
    data["workloads"] = [
        {"name": "reads", "outstanding": 32, "block_size": "4KiB", "read_fraction": 1.0}
    ]
    return data


def _run(data: dict[str, Any], ios: int, **overrides: Any) -> Any:
    return run(data, overrides={"run.ios": ios, "run.warmup_ios": max(ios // 10, 200), **overrides})


def _tcp_one_core(ios: int) -> float:
    return float(_run(_host("nvme-tcp"), ios).iops)


def _tcp_depth_one(ios: int) -> float:
    """Mean latency (us) of one outstanding 4 KiB read over NVMe/TCP, with the target's own
    processing (5.6 us, as assumed) and one switch between: what the stack delay was fitted
    to."""
    data = _host("nvme-tcp")
    data["array"]["nvme"] = {}
    data["fabric"] = {"hop_latency": "1us", "hops": 1}
    return float(_run(data, ios, **{"workloads.0.outstanding": 1}).latency_ms["mean"] * 1e3)


def _iscsi_one_core(ios: int) -> float:
    return float(_run(_host("iscsi"), ios).iops)


def _iscsi_over_fc_cpu(ios: int) -> float:
    """Host processor busy time per command, iSCSI over FC, at one load (an open loop of
    20,000 I/O per second on 8 processors), the host's own stack 20 us per command."""
    busy = {}
    for transport in ("iscsi", "fcp"):
        data = _host(transport, cpus=8, cpu_time="20us")
        data["workloads"] = [{"name": "oltp", "rate": 20_000, "block_size": "8KiB"}]
        result = _run(data, ios)
        busy[transport] = result.station("host.cpu").utilization
    return float(busy["iscsi"] / busy["fcp"])


def _tcp_over_roce_latency(ios: int) -> float:
    """Mean latency of a lightly loaded all-flash array (a 150 us controller floor) over
    NVMe/TCP less over NVMe/RoCE, us; each transport's processor time on both ends."""
    means = {}
    for transport in ("nvme-tcp", "nvme-roce"):
        data = _host(transport, cpus=16)
        data["array"]["nvme"] = {}
        data["array"]["controller"] = {"cores": 64, "io_time": "150us"}
        data["fabric"] = {"hop_latency": "1us", "hops": 2}
        result = _run(data, ios, **{"workloads.0.outstanding": 1})
        means[transport] = result.latency_ms["mean"] * 1e3
    return float(means["nvme-tcp"] - means["nvme-roce"])


COMPARISONS: tuple[Comparison, ...] = (
    Comparison(
        "NVMe/TCP, one host core at depth 32",
        "Linux host, one pinned core, fio io_uring with polling, 4 KiB random reads, depth "
        "32, nvmet target on a RAM device",
        "Linux commit 40510a639ec0 (S. Grimberg, 2020-03), baseline table",
        "179,000 IOPS",
        179_000 * 0.9,
        179_000 * 1.1,
        "IOPS",
        "fitted",
        _tcp_one_core,
    ),
    Comparison(
        "NVMe/TCP at depth 1",
        "the same set-up, one outstanding read",
        "Linux commit 40510a639ec0 (S. Grimberg, 2020-03), baseline table",
        "30.11 us mean",
        30.11 * 0.9,
        30.11 * 1.1,
        "us",
        "fitted",
        _tcp_depth_one,
    ),
    Comparison(
        "iSCSI, one host core",
        "a software iSCSI initiator, small random I/O (no set-up given)",
        "Hwang et al., 'TCP = RDMA: CPU-efficient remote storage access with i10', USENIX "
        "NSDI 2020, introduction",
        "70,000 IOPS per core",
        70_000 * 0.9,
        70_000 * 1.1,
        "IOPS",
        "fitted",
        _iscsi_one_core,
    ),
    Comparison(
        "iSCSI over FC, host processor per I/O",
        "ESX 3.5, 1 GbE software iSCSI against 2 Gb FC, 4-8 KiB I/O, same load; the host's "
        "own stack assumed at 20 us per command",
        "NetApp TR-3697 (2008) as summarised by S. Lowe (2008-08-14): iSCSI 'as much as 80%' "
        "higher CPU, never under 40% higher",
        "1.4 to 1.8 x",
        1.4,
        1.8,
        "x",
        "predicted",
        _iscsi_over_fc_cpu,
        "the ratio rests on the host's own per-command time, which the source does not give",
    ),
    Comparison(
        "NVMe/TCP over NVMe/RoCE, added latency",
        "an all-flash array lightly loaded, RoCE on lossless Ethernet; the model: a 150 us "
        "controller floor, one outstanding 4 KiB read",
        "Pure Storage, 'What is NVMe?': NVMe/RoCE 160-180 us, NVMe/TCP 200-250 us",
        "20 to 90 us more",
        20.0,
        90.0,
        "us",
        "predicted",
        _tcp_over_roce_latency,
        "TCP's processor time on both ends and its stack's waits (the 16.5 us fitted to the "
        "depth-1 figure) make the difference; a cause would be interrupt moderation on a "
        "loaded array, which the model does not time",
    ),
)
"""Every comparison, in the table's order."""

NOT_FOUND = (
    "FCP against FC-NVMe on one HBA at depth 1 and at its IOPS ceiling: no published figure "
    "with its set-up was found (vendors give ratios without set-ups)."
)
"""What the table lacks, and why."""


def rows(ios: int = 20_000) -> list[tuple[Comparison, float, bool]]:
    """Every comparison with the model's figure and whether it falls in its band."""
    out = []
    for comparison in COMPARISONS:
        value = comparison.model(ios)
        out.append((comparison, value, comparison.low <= value <= comparison.high))
    return out


def table(found: list[tuple[Comparison, float, bool]]) -> str:
    """The Markdown table of ``found`` (from :func:`rows`), misses listed with their cause."""
    lines = [
        "| comparison | set-up | source | published | model | role | verdict |",
        "|---|---|---|---|---|---|---|",
    ]
    misses = []
    for c, value, ok in found:
        shown = f"{value:,.3g} {c.unit}" if value < 1000 else f"{value:,.0f} {c.unit}"
        verdict = "in band" if ok else "**miss**"
        lines.append(
            f"| {c.name} | {c.setup} | {c.source} | {c.published} | {shown} | {c.role} | "
            f"{verdict} |"
        )
        if not ok:
            misses.append(f"* **{c.name}**: {c.cause}.")
    lines.append("")
    if misses:
        lines += ["Misses and their causes:", "", *misses, ""]
    lines += [f"Not compared: {NOT_FOUND}", ""]
    return "\n".join(lines)


def write_table(path: str | Path, ios: int = 20_000) -> str:
    """Run every comparison and write the Markdown table to ``path``; return the text."""
    text = table(rows(ios))
    write_text(path, text)
    return text
