"""Calibration and comparison with published figures."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest
from ruamel.yaml import YAML

import sanpath
from sanpath.cli import main
from sanpath.experiments.calibrate import (
    CalibrationError,
    MeasuredPoint,
    calibrate,
    read_fio_json,
    read_measurements,
    reference_points,
)
from sanpath.experiments.reference import Comparison, compare, error_summary, is_bound
from sanpath.spec import ScenarioError
from sanpath.theory import textbook

EXP = "exponential"


def path_with(controller_ms: float, drive_ms: float) -> dict[str, Any]:
    return textbook.closed_path(
        1,
        0,
        {"dist": EXP, "mean": f"{controller_ms}ms"},
        {"dist": EXP, "mean": f"{drive_ms}ms"},
        ios=2_000,
        warmup_ios=200,
    )


def measure(data: dict[str, Any], populations: tuple[int, ...]) -> list[MeasuredPoint]:
    points = []
    for n in populations:
        r = sanpath.run(data, overrides={"workloads.0.outstanding": n})
        points.append(
            MeasuredPoint(
                f"N={n}",
                {"workloads.0.outstanding": n},
                {"iops": r.iops, "latency_ms_mean": r.latency_ms["mean"]},
            )
        )
    return points


@pytest.mark.slow
def test_recovers_known_parameters() -> None:
    truth = path_with(0.5, 1.0)
    measured = measure(truth, (1, 4, 16))
    result = calibrate(
        path_with(0.2, 3.0), measured, ["array.controller.io_time", "array.pools.0.drive.service"]
    )
    assert result.parameters["array.controller.io_time.mean"] == pytest.approx(0.5e-3, rel=0.02)
    assert result.parameters["array.pools.0.drive.service.mean"] == pytest.approx(1e-3, rel=0.02)
    assert result.rms_error < 0.01
    assert result.scenario.array.controller.io_time.mean == pytest.approx(0.5e-3, rel=0.02)


def test_a_fit_that_trades_delay_for_capacity_says_so() -> None:
    # the measured system has 1 ms more fixed delay (a longer fabric) than the model; fitted
    # to its one operating point, the controller's time soaks it up and becomes the
    # bottleneck: a perfect fit that cuts the ceiling from 1,000 to about 400 IOPS
    truth = path_with(0.5, 1.0)
    truth["fabric"] = {"hop_latency": "1ms", "hops": 1}
    measured = measure(truth, (1,))
    result = calibrate(path_with(0.5, 1.0), measured, ["array.controller.io_time"])
    assert result.rms_error < 0.01
    before, after = result.ceilings["before"], result.ceilings["after"]
    assert before.iops == pytest.approx(1000.0, rel=1e-6)  # 1 ms drives
    assert before.station == "array.pool.drives" and after.station == "array.controller"
    assert after.iops < 0.5 * before.iops
    assert any(
        "traded delay for capacity" in c and "one operating point" in c for c in result.cautions
    )
    assert "ceiling (the twin's): 1,000 IOPS (array.pool.drives) ->" in result.text()
    assert result.to_dict()["ceilings"]["after"]["station"] == "array.controller"


def test_a_capacity_fitted_at_low_load_is_named_before_the_fit() -> None:
    # the controller is the bottleneck from the start: fitting its time from one point
    measured = measure(path_with(2.0, 0.2), (1,))
    result = calibrate(path_with(1.5, 0.2), measured, ["array.controller.io_time"])
    assert any(c.startswith("array.controller.io_time.mean sets how much") for c in result.cautions)


def test_points_up_to_saturation_identify_a_capacity_without_caution() -> None:
    measured = measure(path_with(0.5, 1.0), (1, 4, 16))  # 16 outstanding saturate the drive
    result = calibrate(path_with(0.4, 1.0), measured, ["array.controller.io_time"])
    assert result.cautions == []
    assert result.ceilings["after"].iops == pytest.approx(result.ceilings["before"].iops, rel=0.05)


def test_the_twin_s_fit_as_the_start_saves_simulations(monkeypatch: pytest.MonkeyPatch) -> None:
    import sanpath.experiments.calibrate as calibration

    measured = measure(path_with(0.5, 1.0), (1, 4, 16))
    keys = ["array.controller.io_time", "array.pools.0.drive.service"]
    started = calibrate(path_with(0.2, 3.0), measured, keys)
    monkeypatch.setattr(calibration, "twin_start", lambda *args: None)
    cold = calibrate(path_with(0.2, 3.0), measured, keys)
    for result in (started, cold):
        assert result.parameters["array.pools.0.drive.service.mean"] == pytest.approx(
            1e-3, rel=0.02
        )
    assert started.evaluations < 0.9 * cold.evaluations  # 51 against 66 simulations


def test_refuses_a_parameter_that_moves_nothing() -> None:
    measured = measure(path_with(0.5, 1.0), (1, 8))
    start = path_with(0.5, 1.0)
    start["array"]["cache"] = {"read_hit": 0.0, "hit_time": "5us"}
    with pytest.raises(CalibrationError, match=r"array\.cache\.hit_time.*barely limits"):
        calibrate(start, measured, ["array.controller.io_time", "array.cache.hit_time"])


def test_refuses_parameters_that_move_the_figures_the_same_way() -> None:
    # With one outstanding I/O, latency is just the sum of the two times: only the sum
    # can be known.
    measured = measure(path_with(0.5, 1.0), (1,))
    with pytest.raises(CalibrationError, match=r"same way|cannot be identified"):
        calibrate(
            path_with(0.4, 1.2),
            measured,
            ["array.controller.io_time", "array.pools.0.drive.service"],
        )


def test_refuses_more_parameters_than_figures() -> None:
    measured = [MeasuredPoint("one", {}, {"iops": 100.0})]
    with pytest.raises(CalibrationError, match="cannot be identified from 1"):
        calibrate(
            path_with(0.5, 1.0),
            measured,
            ["array.controller.io_time", "array.pools.0.drive.service"],
        )


def test_bad_fit_keys() -> None:
    measured = [MeasuredPoint("one", {}, {"iops": 100.0})]
    with pytest.raises(CalibrationError, match="no such field"):
        calibrate(path_with(0.5, 1.0), measured, ["array.controller.nope"])
    with pytest.raises(CalibrationError, match="not a number"):
        calibrate(path_with(0.5, 1.0), measured, ["hosts.0.multipath"])


FIO = {
    "fio version": "fio-3.36",
    "global options": {"bs": "8k", "rw": "randrw", "rwmixread": "70"},
    "jobs": [
        {
            "jobname": "qd4",
            "job options": {"iodepth": "4", "numjobs": "2"},
            "read": {
                "iops": 700.0,
                "bw_bytes": 5_734_400,
                "runtime": 60_000,
                "clat_ns": {
                    "mean": 4_000_000.0,
                    "percentile": {"50.000000": 3_500_000, "99.000000": 20_000_000},
                },
            },
            "write": {
                "iops": 300.0,
                "bw_bytes": 2_457_600,
                "runtime": 60_000,
                "clat_ns": {"mean": 2_000_000.0},
            },
        }
    ],
}


def test_fio_json_reader() -> None:
    (point,) = read_fio_json(FIO)
    assert point.label == "qd4"
    assert point.settings == {
        "workloads.0.outstanding": 4,
        "workloads.0.block_size": 8192,
        "workloads.0.threads": 2,
        "workloads.0.pattern": "random",
        "workloads.0.read_fraction": pytest.approx(0.7),
    }
    assert point.metrics["iops"] == 1000.0
    assert point.metrics["mb_per_s"] == pytest.approx(8.192)
    assert point.metrics["latency_ms_mean"] == pytest.approx(3.4)  # IOPS-weighted
    assert point.metrics["latency_ms_p99"] == pytest.approx(20.0)
    with pytest.raises(ScenarioError, match="jobs"):
        read_fio_json({"nothing": 1})


@pytest.mark.slow
def test_csv_reader_and_cli_writes_calibrated_copy(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    truth = path_with(0.5, 1.0)
    measured = measure(truth, (1, 4, 16))
    csv_path = tmp_path / "measured.csv"
    lines = ["label,workloads.0.outstanding,iops,latency_ms_mean"]
    lines += [
        f"{p.label},{p.settings['workloads.0.outstanding']},{p.metrics['iops']},"
        f"{p.metrics['latency_ms_mean']}"
        for p in measured
    ]
    csv_path.write_text("\n".join(lines) + "\n")
    points = read_measurements(csv_path)
    assert [p.settings for p in points] == [p.settings for p in measured]
    start = tmp_path / "start.yaml"
    data = path_with(0.2, 3.0)
    YAML().dump(data, start)
    text = "# my notes\n" + start.read_text()
    start.write_text(text)
    out = tmp_path / "calibrated.yaml"
    code = main(
        [
            "calibrate",
            str(start),
            "--measured",
            str(csv_path),
            "--fit",
            "array.controller.io_time,array.pools.0.drive.service",
            "--out",
            str(out),
            "--json",
        ]
    )
    assert code == 0
    report = json.loads(capsys.readouterr().out)
    assert report["rms_error"] < 0.01
    assert start.read_text() == text  # the user's file is untouched
    calibrated = out.read_text()
    assert "# my notes" in calibrated
    fitted = sanpath.load_scenario(out)
    assert fitted.array.controller.io_time.mean == pytest.approx(0.5e-3, rel=0.02)
    bad = tmp_path / "bad.csv"
    bad.write_text("workloads.0.outstanding,iops\n1,abc\n")
    assert (
        main(["calibrate", str(start), "--measured", str(bad), "--fit", "array.controller.io_time"])
        == 2
    )
    assert f"{bad}:2:3: iops: 'abc' is not a number" in capsys.readouterr().err


def scenario_with_reference() -> dict[str, Any]:
    data = path_with(0.5, 1.0)
    data["run"] = {"ios": 2_000, "warmup_ios": 200}
    data["reference"] = {
        "source": "synthetic",
        "points": [
            {
                "label": "N=1",
                "set": {"workloads.0.outstanding": 1},
                "value": 667.0,
                "role": "fitted",
                "tolerance": 0.05,
            },
            {
                "label": "N=16",
                "set": {"workloads.0.outstanding": 16},
                "value": 1000.0,
                "tolerance": 0.05,
            },
            {
                "label": "gain",
                "set": {"workloads.0.outstanding": 16},
                "value": 1.5,
                "relative_to": "N=1",
                "tolerance": [1.3, 1.7],
            },
            {
                "label": "latency",
                "set": {"workloads.0.outstanding": 16},
                "value": 16.0,
                "metric": "latency_ms_mean",
                "tolerance": 0.05,
            },
        ],
    }
    return data


def test_compare_reports_signed_errors_and_ratios() -> None:
    rows = {r.label: r for r in compare(scenario_with_reference())}
    assert rows["N=1"].within and rows["N=16"].within and rows["latency"].within
    assert rows["gain"].model == pytest.approx(rows["N=16"].model / rows["N=1"].model)
    assert rows["gain"].within
    for r in rows.values():
        assert r.error == pytest.approx((r.model - r.published) / r.published)


def test_compare_cli_json_and_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "ref.yaml"
    YAML().dump(scenario_with_reference(), path)
    png = tmp_path / "cmp.png"
    assert main(["compare", str(path), "--json", "--plot", str(png)]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert {"label", "published", "model", "error"} <= set(payload[0])
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    no_ref = tmp_path / "plain.yaml"
    YAML().dump(path_with(0.5, 1.0), no_ref)
    assert main(["compare", str(no_ref)]) == 2


def test_compare_cli_seed_and_set(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """--seed and --set change the scenario under every point, as in sanpath run."""
    path = tmp_path / "ref.yaml"
    YAML().dump(scenario_with_reference(), path)

    def models(*extra: str) -> dict[str, float]:
        assert main(["compare", str(path), "--json", *extra]) == 0
        return {r["label"]: r["model"] for r in json.loads(capsys.readouterr().out)}

    base = models()
    assert models() == base  # deterministic
    reseeded = models("--seed", "7")
    assert reseeded["N=16"] != base["N=16"]
    assert reseeded["N=16"] == pytest.approx(base["N=16"], rel=0.1)
    expected = compare(sanpath.load_scenario(scenario_with_reference()).with_overrides({"seed": 7}))
    assert reseeded == {r.label: r.model for r in expected}
    # a field changed under every point: here the drive is twice as slow
    slower = models("--set", "array.pools.0.drive.service.mean=2ms")
    assert slower["N=1"] < 0.7 * base["N=1"]
    assert main(["compare", str(path), "--set", "array.nothing=1"]) == 2


def test_reference_points_feed_calibration() -> None:
    scenario = sanpath.load_scenario(scenario_with_reference())
    points = reference_points(scenario)
    assert [p.label for p in points] == ["N=1"]
    assert points[0].metrics == {"iops": 667.0}


def test_exchange_times_in_the_time_series_exclude_host_waits() -> None:
    data = path_with(0.5, 1.0)
    data["hosts"][0]["hbas"][0]["queue_depth"] = 2
    data["workloads"][0]["outstanding"] = 16
    data["run"] = {"duration": "4s", "warmup_ios": 0, "record_interval": "1s"}
    result = sanpath.run(data)
    ts = result.timeseries
    assert ts is not None and len(ts["exchange_ms_mean"]) == 4
    # 16 I/Os outstanding but only 2 admitted by the HBA: the exchange (array side) takes
    # about 2 / IOPS, the application I/O 16 / IOPS.
    exchange = sum(ts["exchange_ms_mean"]) / 4
    assert exchange < 0.25 * result.latency_ms["mean"]
    assert exchange == pytest.approx(2 / result.iops * 1e3, rel=0.15)


def test_comparison_plot_shows_ratios_bands_and_verdicts() -> None:
    from sanpath.experiments.reference import Comparison, plot

    rows = [
        Comparison("base", "mb_per_s", math.nan, 400.0, math.nan, "base", None),
        Comparison("inside", "mb_per_s", 1.25, 1.23, -0.016, "fitted", True, (1.18, 1.32)),
        Comparison("outside", "latency_ms_mean", 4.5, 9.0, 1.0, "predicted", False, (3, 6.5)),
        Comparison("open", "exchange_ms_max", 200, 105, -0.475, "fitted", True, (100, 1e5)),
    ]
    ax = plot(rows)
    labels = [t.get_text() for t in ax.get_yticklabels()]
    assert labels == ["inside (mb_per_s)", "outside (latency_ms_mean)", "open (exchange_ms_max)"]
    markers = [line for line in ax.get_lines() if line.get_marker() == "o"]
    assert [float(m.get_xdata()[0]) for m in markers] == pytest.approx([1.23 / 1.25, 2.0, 0.525])
    assert [m.get_color() for m in markers] == ["#2ca02c", "#d62728", "#2ca02c"]
    bands = [line for line in ax.get_lines() if line.get_linewidth() == 6]
    assert list(bands[0].get_xdata()) == pytest.approx([1.18 / 1.25, 1.32 / 1.25])
    assert bands[2].get_xdata()[1] == pytest.approx(ax.get_xlim()[1])  # open band cut at the edge
    assert ax.get_xscale() == "log"


def _row(published: float, model: float, band: tuple[float, float] | None) -> Comparison:
    error = (model - published) / published
    within = None if band is None else band[0] <= model <= band[1]
    return Comparison("p", "iops", published, model, error, "predicted", within, band)


def test_error_summary_leaves_bounds_out() -> None:
    measured = _row(100.0, 110.0, (90.0, 110.0))
    under = _row(20.0, 5.0, (0.0, 25.0))  # "under 25 ms"
    at_least = _row(10.0, 1000.0, (10.0, 1e5))  # "10x or more"
    no_band = _row(50.0, 40.0, None)
    assert not is_bound(measured) and not is_bound(no_band)
    assert is_bound(under) and is_bound(at_least)
    text = error_summary([measured, under, at_least, no_band])
    assert text == "mean |error| 15.0%, max 20.0% (2 bound(s) left out)"
    assert error_summary([under]).startswith("no measured figure")


def test_read_and_write_latencies_are_figures_to_fit(tmp_path: Path) -> None:
    path = tmp_path / "m.csv"
    path.write_text(
        "label,workloads.0.outstanding,read_latency_ms_mean,write_latency_ms_mean\nqd4,4,2.5,0.4\n"
    )
    (point,) = read_measurements(path)
    assert point.metrics == {"read_latency_ms_mean": 2.5, "write_latency_ms_mean": 0.4}
    assert point.settings == {"workloads.0.outstanding": 4}
