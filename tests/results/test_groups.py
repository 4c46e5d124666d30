"""Fairness, and what iostat and esxtop would show for a device, from known sums."""

from __future__ import annotations

import math

import pytest

from sanpath.results import LAYERS, DeviceFigures, GroupFigures, fairness
from sanpath.stats import LatencyHistogram


def test_jain_index_bounds() -> None:
    assert fairness([100.0] * 8)["jain"] == pytest.approx(1.0)
    assert fairness([100.0] * 8)["max_min"] == pytest.approx(1.0)
    # one host gets everything: 1/n
    assert fairness([400.0, 0.0, 0.0, 0.0])["jain"] == pytest.approx(0.25)
    assert math.isinf(fairness([400.0, 0.0, 0.0, 0.0])["max_min"])
    assert fairness([300.0, 100.0])["max_min"] == pytest.approx(3.0)
    # (300 + 100)^2 / (2 * (300^2 + 100^2)) = 0.8
    assert fairness([300.0, 100.0])["jain"] == pytest.approx(0.8)
    assert math.isnan(fairness([])["jain"])


def _device(**kw: object) -> DeviceFigures:
    layers = [0.0] * len(LAYERS)
    layers[LAYERS.index("host")] = 0.5  # s, summed over the commands
    layers[LAYERS.index("host_queue")] = 2.0
    layers[LAYERS.index("drive")] = 7.5
    base: dict[str, object] = {
        "host": "h",
        "lun": "l",
        "span_s": 10.0,
        "reads": 600,
        "writes": 400,
        "bytes_read": 600 * 8192,
        "bytes_written": 400 * 4096,
        "read_time_s": 6.0,
        "write_time_s": 4.0,
        "host_s": layers[LAYERS.index("host")],
        "host_queue_s": layers[LAYERS.index("host_queue")],
        "busy_s": 9.0,
        "qfull": 3,
        "dqlen": 32.0,
    }
    base.update(kw)
    return DeviceFigures(**base)  # type: ignore[arg-type]


def test_iostat_fields() -> None:
    io = _device().iostat()
    assert io["r/s"] == pytest.approx(60.0)
    assert io["w/s"] == pytest.approx(40.0)
    assert io["rkB/s"] == pytest.approx(60 * 8.0)  # kB = 1024 bytes
    assert io["wkB/s"] == pytest.approx(40 * 4.0)
    assert io["r_await"] == pytest.approx(10.0)  # ms
    assert io["w_await"] == pytest.approx(10.0)
    assert io["rareq-sz"] == pytest.approx(8.0)
    assert io["aqu-sz"] == pytest.approx(1.0)  # 10 s of latency in 10 s
    assert io["%util"] == pytest.approx(90.0)


def test_esxtop_fields() -> None:
    esx = _device().esxtop()
    assert esx["CMDS/s"] == pytest.approx(100.0)
    assert esx["MBREAD/s"] == pytest.approx(600 * 8192 / 10 / 2**20)
    assert esx["GAVG/cmd"] == pytest.approx(10.0)  # 10 s over 1000 commands
    assert esx["KAVG/cmd"] == pytest.approx(2.5)
    assert esx["QAVG/cmd"] == pytest.approx(2.0)
    assert esx["DAVG/cmd"] == pytest.approx(7.5)
    assert esx["GAVG/cmd"] == pytest.approx(esx["DAVG/cmd"] + esx["KAVG/cmd"])
    assert esx["QUED"] == pytest.approx(0.2)
    assert esx["ACTV"] == pytest.approx(0.8)
    assert esx["DQLEN"] == 32.0
    assert math.isinf(_device(dqlen=None).esxtop()["DQLEN"])
    assert _device(dqlen=None).to_dict()["esxtop"]["DQLEN"] is None


def test_group_figures_json_shape() -> None:
    read, write = LatencyHistogram(6), LatencyHistogram(6)
    read.record_many([0.001, 0.002, 0.003])
    write.record_many([0.004])
    g = GroupFigures("db[0]", 2.0, 3, 1, 3 * 8192, 4096, 5, read, write, 14e-6, 16e-6)
    d = g.to_dict()
    assert set(d) >= {
        "iops",
        "mb_per_s",
        "read_iops",
        "write_iops",
        "latency_ms",
        "read_latency_ms_mean",
        "write_latency_ms_mean",
        "qfull",
    }
    assert set(d["latency_ms"]) == {"mean", "p50", "p90", "p99", "p99_9", "max"}
    assert d["iops"] == pytest.approx(2.0)
    assert d["read_latency_ms_mean"] == pytest.approx(2.0)
    assert d["latency_ms"]["mean"] == pytest.approx(2.5)
    assert d["latency_ms"]["max"] == pytest.approx(4.0)
    assert g.stddev_s(False) == pytest.approx(0.001)
    assert math.isnan(g.stddev_s(True))
