"""The analytic twin (``sanpath.theory.twin``): exact on textbook cases, close to the simulator.

* Textbook open queues and closed loops: the twin's mapping must reduce to the formulas of
  ``sanpath.theory.queues`` exactly (to 1e-9).
* Textbook-reducible scenarios: within 5% of the simulator.
* Every shipped scenario: the error against the simulator is computed and printed (run
  ``pytest -s tests/theory/test_twin.py`` to see the table); only sanity is asserted there, since
  QUEUE FULL, splitting, caches and SPTF are beyond product form.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

import sanpath
from sanpath.cli import main
from sanpath.experiments.twin_accuracy import (
    REPORT_OVERRIDES,
    Accuracy,
    accuracy_markdown,
    outstanding_ios,
)
from sanpath.spec import load_scenario
from sanpath.theory import queues as analytic
from sanpath.theory import textbook
from sanpath.theory.twin import TwinPrediction, predict, predict_many

ROOT = Path(__file__).resolve().parents[2]
SCENARIOS = sorted((ROOT / "scenarios").glob("*.yaml"))
EXACT = 1e-9


def exp(mean_ms: float) -> dict[str, object]:
    return {"dist": "exponential", "mean": f"{mean_ms}ms"}


# -- exact against textbook formulas ---------------------------------------------------------


@pytest.mark.parametrize("rho", [0.3, 0.5, 0.8, 0.95])
def test_open_mm1_is_exact(rho: float) -> None:
    rate = rho / 1e-3
    p = predict(textbook.open_queue(rate, exp(1.0)))
    exact = analytic.mm1(rate, 1e3)
    assert p.latency_ms_mean == pytest.approx(exact.response * 1e3, rel=EXACT)
    assert p.iops == pytest.approx(rate, rel=EXACT)
    assert p.utilization["array.pool.drives"] == pytest.approx(rho, rel=EXACT)
    assert p.bottleneck == "array.pool.drives"
    assert p.population is None
    assert p.notes == ()  # nothing approximated


@pytest.mark.parametrize("cores", [1, 2, 4, 16])
def test_open_mmc_controller_is_erlang_c(cores: int) -> None:
    rate = 0.75 * cores / 1e-3
    p = predict(textbook.open_queue(rate, exp(1.0), servers=cores, station="controller"))
    exact = analytic.mmc(rate, 1e3, cores)
    assert p.latency_ms_mean == pytest.approx(exact.response * 1e3, rel=EXACT)
    assert p.utilization["array.controller"] == pytest.approx(0.75, rel=EXACT)


def test_open_mmc_textbook_drive_servers() -> None:
    p = predict(textbook.open_queue(3000.0, exp(1.0), servers=4))
    assert p.latency_ms_mean == pytest.approx(analytic.mmc(3000.0, 1e3, 4).response * 1e3, EXACT)


def test_open_md1_and_mg1_are_pollaczek_khinchine() -> None:
    p = predict(textbook.open_queue(800.0, "1ms"))
    assert p.latency_ms_mean == pytest.approx(analytic.md1(800.0, 1e-3).response * 1e3, EXACT)
    erlang = {"dist": "erlang", "k": 4, "mean": "1ms"}
    p = predict(textbook.open_queue(750.0, erlang))
    assert p.latency_ms_mean == pytest.approx(
        analytic.mg1(750.0, 1e-3, 0.5).response * 1e3, rel=EXACT
    )
    assert any("Pollaczek-Khinchine" in note for note in p.notes)


def test_open_unstable_is_infinite_and_capped() -> None:
    p = predict(textbook.open_queue(1500.0, exp(1.0)))
    assert math.isinf(p.latency_ms_mean)
    assert p.iops == pytest.approx(1000.0, rel=EXACT)
    assert any("unstable" in note for note in p.notes)
    assert p.to_dict()["latency_ms_mean"] is None


DEMANDS_MS = (0.2, 0.5, 1.0)


@pytest.mark.parametrize("outstanding", [1, 2, 8, 32, 128])
def test_closed_path_is_exact_mva(outstanding: int) -> None:
    data = textbook.closed_path(outstanding, *(exp(d) for d in DEMANDS_MS))
    p = predict(data)
    mva = analytic.mva([d / 1e3 for d in DEMANDS_MS], outstanding)
    assert p.iops == pytest.approx(float(mva.throughput[-1]), rel=EXACT)
    assert p.latency_ms_mean == pytest.approx(float(mva.response[-1]) * 1e3, rel=EXACT)
    assert p.population == outstanding
    assert p.bottleneck == "array.pool.drives"
    assert p.utilization["array.pool.drives"] == pytest.approx(
        float(mva.utilization[-1, 2]), rel=EXACT
    )


@pytest.mark.parametrize(("cores", "outstanding"), [(2, 8), (4, 64), (16, 200)])
def test_closed_multicore_controller_is_load_dependent_mva(cores: int, outstanding: int) -> None:
    """Multi-server stations are load dependent; exact even far beyond saturation."""
    demands = (0.2e-3, 1.6e-3 * cores / 2, 0.5e-3)
    data = textbook.closed_path(outstanding, exp(0.2), exp(demands[1] * 1e3), exp(0.5), cores=cores)
    p = predict(data)
    mva = analytic.mva(list(demands), outstanding, servers=[1, cores, 1])
    assert p.iops == pytest.approx(float(mva.throughput[-1]), rel=EXACT)
    assert p.utilization["array.controller"] == pytest.approx(
        float(mva.utilization[-1, 1]), rel=EXACT
    )


def test_host_cpus_are_a_multi_server_station_and_io_time_a_delay() -> None:
    data = textbook.closed_path(12, 0, exp(0.4), exp(0.5))
    data["hosts"][0].update(cpus=2, cpu_time=exp(1.2), io_time=exp(0.3))
    p = predict(data)
    mva = analytic.mva([1.2e-3, 0.4e-3, 0.5e-3], 12, servers=[2, 1, 1], delay=0.3e-3)
    assert p.iops == pytest.approx(float(mva.throughput[-1]), rel=EXACT)
    assert p.bottleneck == "host.cpu"
    assert p.utilization["host.cpu"] == pytest.approx(float(mva.utilization[-1, 0]), rel=EXACT)


@pytest.mark.parametrize("queue_depth", [1, 4, 8])
def test_hba_queue_depth_is_mva_at_population_q(queue_depth: int) -> None:
    data = textbook.closed_path(32, *(exp(d) for d in DEMANDS_MS), hba_queue_depth=queue_depth)
    p = predict(data)
    mva = analytic.mva([d / 1e3 for d in DEMANDS_MS], queue_depth)
    x = float(mva.throughput[-1])
    assert p.iops == pytest.approx(x, rel=EXACT)
    assert p.latency_ms_mean == pytest.approx(32 / x * 1e3, rel=EXACT)  # the rest waits
    assert p.population == queue_depth
    bounded = analytic.mva_bounded([d / 1e3 for d in DEMANDS_MS], 32, limit=queue_depth)
    assert p.iops == pytest.approx(float(bounded.throughput[-1]), rel=EXACT)
    assert any("bound the population" in note for note in p.notes)


# -- the SPTF drive as a load-dependent station --------------------------------------------


def test_sptf_raises_iops_with_drive_queue_and_is_named() -> None:
    s = load_scenario(ROOT / "scenarios" / "qd_sweep_2007.yaml")
    points = [{"workloads.0.outstanding": n, "hosts.0.hbas.0.queue_depth": 128} for n in (1, 256)]
    low, high = predict_many(s, points)
    single = 1.0 / low.iops  # one drive busy at a time: IOPS at queue depth 1 ~ 180
    assert 150 < low.iops < 200, single
    pool = s.array.pools[0]
    drives = pool.drives * pool.groups
    # every drive busy, each faster than at queue depth 1 thanks to reordering
    assert high.iops > 1.5 * drives * low.iops
    assert any("SPTF" in note for note in high.notes)


def mixed_path(outstanding: int, rate: float, ios: int = 20_000) -> dict[str, Any]:
    """The closed path of DEMANDS_MS with an open loop of ``rate`` I/Os per second beside."""
    data = textbook.closed_path(outstanding, *(exp(d) for d in DEMANDS_MS), ios=ios)
    data["workloads"].append({"name": "poisson", "rate": rate, "block_size": 4096})
    return data


@pytest.mark.parametrize(
    ("outstanding", "rate", "tolerance"), [(1, 300.0, EXACT), (4, 300.0, 0.05)]
)
def test_open_beside_closed_is_the_mixed_product_form_network(
    outstanding: int, rate: float, tolerance: float
) -> None:
    # the open loop keeps U_o = rate x D of each server; the closed loop is MVA on demands
    # D / (1 - U_o) (exact), an open I/O's response at each server D (1 + Q_closed) / (1 - U_o)
    # (exact where the closed queues are; the twin's Q_closed, by Bard-Schweitzer's rule, is
    # exact for one customer and a few percent high for more: +3.0% at four)
    p = predict(mixed_path(outstanding, rate))
    demands = [d / 1e3 for d in DEMANDS_MS]
    u_open = [rate * d for d in demands]
    mva = analytic.mva([d / (1 - u) for d, u in zip(demands, u_open, strict=True)], outstanding)
    x_closed = float(mva.throughput[-1])
    queues_closed = mva.queue_lengths[-1]
    r_open = sum(
        d * (1 + float(q)) / (1 - u) for d, q, u in zip(demands, queues_closed, u_open, strict=True)
    )
    latency = (outstanding + rate * r_open) / (x_closed + rate)  # Little: N_c = X_c R_c
    assert p.iops == pytest.approx(x_closed + rate, rel=EXACT)
    assert p.utilization["array.pool.drives"] == pytest.approx(
        (x_closed + rate) * demands[2], rel=EXACT
    )
    assert p.latency_ms_mean == pytest.approx(latency * 1e3, rel=tolerance)
    assert not any("ignored" in note for note in p.notes)


# -- against the simulator --------------------------------------------------------------------


def within(p: TwinPrediction, result: Any, tolerance: float = 0.05) -> None:
    assert p.iops == pytest.approx(result.iops, rel=tolerance)
    assert p.latency_ms_mean == pytest.approx(result.latency_ms["mean"], rel=tolerance)


@pytest.mark.parametrize("outstanding", [1, 8, 32])
def test_closed_textbook_within_5_percent_of_simulator(outstanding: int) -> None:
    data = textbook.closed_path(outstanding, *(exp(d) for d in DEMANDS_MS), ios=20_000)
    within(predict(data), sanpath.run(data))


def test_hba_limited_textbook_within_5_percent_of_simulator() -> None:
    data = textbook.closed_path(32, *(exp(d) for d in DEMANDS_MS), hba_queue_depth=4, ios=20_000)
    within(predict(data), sanpath.run(data))


def test_open_textbook_within_5_percent_of_simulator() -> None:
    for data in (
        textbook.open_queue(500.0, exp(1.0), ios=30_000),
        textbook.open_queue(2000.0, exp(1.0), servers=4, station="controller", ios=30_000),
    ):
        within(predict(data), sanpath.run(data))


def test_mixed_textbook_within_5_percent_of_simulator() -> None:
    for outstanding, rate in ((1, 300.0), (4, 800.0)):
        within(predict(mixed_path(outstanding, rate)), sanpath.run(mixed_path(outstanding, rate)))


@pytest.mark.slow
def test_report_error_against_simulator_on_shipped_scenarios() -> None:
    """Twin against simulator on every shipped scenario (``pytest -s`` prints the table that
    ``make validation`` writes for ``docs/twin.md``)."""
    assert SCENARIOS
    rows = []
    for path in SCENARIOS:
        s = load_scenario(path, REPORT_OVERRIDES)
        result = sanpath.run(s)
        p = predict(s)
        assert math.isfinite(p.iops) and p.iops > 0
        assert math.isfinite(p.mb_per_s) and p.mb_per_s > 0
        assert math.isfinite(p.latency_ms_mean) and p.latency_ms_mean > 0
        stations = {st.name for st in result.stations}
        assert p.bottleneck in stations, (p.bottleneck, sorted(stations))
        assert set(p.utilization) <= stations
        assert all(0.0 <= u <= 1.0 + 1e-9 for u in p.utilization.values())
        json.dumps(p.to_dict())
        rows.append(
            Accuracy(
                s.name,
                result.iops,
                p.iops,
                result.latency_ms["mean"],
                p.latency_ms_mean,
                p.bottleneck,
                outstanding_ios(s),
            )
        )
    print("\n" + accuracy_markdown(rows))


# -- sweeps, overrides and notes ------------------------------------------------------------


def test_predict_many_matches_predict_and_falls_back_for_other_keys() -> None:
    s = load_scenario(ROOT / "scenarios" / "quickstart.yaml")
    points: list[dict[str, Any]] = [
        {"workloads.0.outstanding": 4, "hosts.*.hbas.*.queue_depth": 2},
        {"hosts.0.lun_queue_depth": 1},
        {"array.lun_queue_depth": 16, "array.port_queue_depth": 8},
        {"workloads.0.block_size": "64KiB"},  # changes demands: validated and mapped again
    ]
    many = predict_many(s, points)
    for point, p in zip(points, many, strict=True):
        single = predict(s.with_overrides(point))
        assert p.iops == pytest.approx(single.iops, rel=1e-12)
        assert p.latency_ms_mean == pytest.approx(single.latency_ms_mean, rel=1e-12)
    assert many[0].population == 8 * 2 * 2  # 8 LUNs x 2 HBA ports x 2 slots per port and LUN
    assert any("QUEUE FULL" in note for note in many[2].notes)


def test_queue_full_is_named() -> None:
    p = predict(ROOT / "scenarios" / "fan_in.yaml")
    assert any(note.startswith("QUEUE FULL: hosts can keep") for note in p.notes)
    assert p.population == 1600  # bounded by the port queue
    # the hosts throttle (VMware): no storm of refusals at the controller
    assert not any(note.startswith("QUEUE FULL storm") for note in p.notes)


def test_splitting_and_read_ahead_are_named() -> None:
    p = predict(ROOT / "scenarios" / "transfer_split.yaml")
    assert any(note.startswith("splitting") for note in p.notes)
    assert any(note.startswith("read-ahead") for note in p.notes)


def test_destage_modes() -> None:
    data = textbook.closed_path(16, exp(0.05), exp(0.05), exp(1.0))
    data["array"]["cache"] = {"write_back": "1GiB"}
    data["workloads"][0]["read_fraction"] = 0.0
    none = predict(data, destage="none")
    steady = predict(data, destage="steady")
    # the simulator preconditions the cache (or waits for it): auto is the steady state
    assert predict(data).iops == pytest.approx(steady.iops)
    # an empty cache and a fixed warm-up: 50,000 I/Os of 4 KiB never reach the low
    # watermark of 1 GiB
    data["run"].update(precondition=False, warmup="fixed")
    auto = predict(data)
    assert steady.iops < none.iops
    assert auto.iops == pytest.approx(none.iops)
    assert any("background load" in note for note in steady.notes)
    assert any("low watermark" in note for note in auto.notes)


def test_sweep_destages_choose_among_the_queue_the_solution_finds() -> None:
    """A destage in sweep order waits the least of the rotational waits of the destages
    queued at its drive: as many as the mixed network's destage class holds there (the
    cache keeps up between its watermarks), at most the full-throttle depth."""
    path = ROOT / "scenarios" / "quickstart.yaml"
    plateau = {"workloads.0.read_fraction": 0.5, "array.cache.write_back": "128MiB"}
    base = predict(load_scenario(path, plateau))
    # a deeper full throttle changes nothing: the queue found is below both
    deep = predict(load_scenario(path, {**plateau, "array.cache.destage_concurrency": 1200}))
    assert deep.iops == pytest.approx(base.iops, rel=1e-6)
    # half a destage a drive at full throttle: one queued, half a revolution each
    shallow = predict(load_scenario(path, {**plateau, "array.cache.destage_concurrency": 15}))
    assert shallow.iops < 0.97 * base.iops


def test_sweep_adds_twin_columns() -> None:
    from sanpath.experiments.sweep import sweep

    data = textbook.closed_path(4, *(exp(d) for d in DEMANDS_MS), ios=2_000, warmup_ios=200)
    result = sweep(data, {"workloads.0.outstanding": [1, 4]}, cache=None, analytic=True)
    assert list(result.table["twin_iops"]) == pytest.approx(
        [float(analytic.mva([d / 1e3 for d in DEMANDS_MS], n).throughput[-1]) for n in (1, 4)]
    )


def test_cli_run_analytic(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(ROOT / "scenarios" / "quickstart.yaml")
    assert (
        main(["run", path, "--analytic", "--set", "run.ios=500", "--set", "run.warmup_ios=50"]) == 0
    )
    out = capsys.readouterr().out
    assert "analytic twin" in out and "bottleneck" in out
    assert main(["run", path, "--analytic", "--json", "--set", "run.ios=500"]) == 0
    payload = json.loads(capsys.readouterr().out)
    assert payload["analytic"]["bottleneck"] == "array.r5.drives"
    assert payload["analytic"]["iops"] > 0
