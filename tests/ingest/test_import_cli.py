"""``sanpath import``: the command line, ``--into``, ``--map``, errors and the written file.

A stand-in perfmon reader gives hand-built samples, so these tests do not depend on the
real readers; the end-to-end imports of ``scenarios/measured/`` skip until those exist.
"""

from __future__ import annotations

import shutil
import sys
import types
from pathlib import Path

import pytest

import sanpath
from sanpath.cli import main
from sanpath.ingest import JobSpec, Measured, bad_file
from sanpath.ingest.load import detect, import_scenario
from sanpath.ingest.trace import TraceOptions
from sanpath.spec import ScenarioError
from tests.conftest import SCENARIOS
from tests.ingest.test_workload import FILE

NAMED_COLUMNS = (
    ("time", "time_ms"),
    ("device", "lun"),
    ("op", "rw"),
    ("size", "bytes"),
    ("latency", "latency_ms"),
)

HEADER = '"(PDH-CSV 4.0) (UTC)(0)","\\\\db\\PhysicalDisk(1 E:)\\Disk Reads/sec"\n'


@pytest.fixture
def perf(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A perfmon-looking file, read by a stand-in reader (FILE's samples)."""

    def read(path: Path) -> Measured:
        text = Path(path).read_text()
        if "broken" in text:
            raise bad_file(str(path), 3, 7, "Disk Reads/sec", "'abc' is not a number")
        return Measured(str(path), "perfmon", FILE.samples, (), FILE.columns, FILE.warnings)

    fake = types.ModuleType("sanpath.ingest.perfmon")
    fake.read = read  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "sanpath.ingest.perfmon", fake)
    path = tmp_path / "perf.csv"
    path.write_text(HEADER + '"01/01/2024 00:00:00","1"\n')
    return path


def test_import_writes_a_scenario_and_says_what(
    perf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "new.yaml"
    assert main(["import", str(perf), "--out", str(out)]) == 0
    captured = capsys.readouterr()
    assert f"written to {out}" in captured.out
    assert "devices: sdb, sdc" in captured.out and "peak-iops" in captured.out
    assert "3 samples had a gap" in captured.err
    text = out.read_text()
    assert "# Imported by sanpath import from" in text and str(perf) in text
    assert "PhysicalDisk(1 E:)" in text and "PLACEHOLDER" in text
    scenario = sanpath.load_scenario(out)
    assert [lun.name for lun in scenario.array.luns] == ["sdb", "sdc"]
    # refuses to overwrite without --force
    assert main(["import", str(perf), "--out", str(out)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["import", str(perf), "--out", str(out), "--force", "--load", "closed"]) == 0
    assert all(w.outstanding for w in sanpath.load_scenario(out).workloads)


def base_copy(tmp_path: Path) -> Path:
    base = tmp_path / "base.yaml"
    text = (SCENARIOS / "quickstart.yaml").read_text()
    text = text.replace(
        "    - {name: data, count: 8, pool: r5}",
        "    - {name: data, count: 4, pool: r5}\n    - {name: logs, count: 2, pool: r5}",
    )
    base.write_text(text)
    return base


def test_into_keeps_the_base_topology_and_comments(perf: Path, tmp_path: Path) -> None:
    base = base_copy(tmp_path)
    out = tmp_path / "mine.yaml"
    assert main(["import", str(perf), "--into", str(base), "--out", str(out)]) == 0
    text = out.read_text()
    assert "# One database host, two 4GFC HBA ports" in text
    assert "# stops when the mean latency is known to +/-2%" in text
    old, new = sanpath.load_scenario(base), sanpath.load_scenario(out)
    assert new.hosts == old.hosts and new.array == old.array and new.fabric == old.fabric
    assert [w.luns for w in new.workloads] == [("data",), ("logs",)]
    assert new.name == "mine"


def test_map_puts_devices_on_lun_groups(perf: Path, tmp_path: Path) -> None:
    base = base_copy(tmp_path)
    out = tmp_path / "mapped.yaml"
    args = ["import", str(perf), "--into", str(base), "--out", str(out)]
    assert main([*args, "--map", "sdb=logs", "--map", "sdc=logs"]) == 0
    assert {lun for w in sanpath.load_scenario(out).workloads for lun in w.luns} == {"logs"}


def test_map_to_an_unknown_lun_group_is_located_and_writes_nothing(
    perf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base = base_copy(tmp_path)
    out = tmp_path / "never.yaml"
    args = ["import", str(perf), "--into", str(base), "--out", str(out)]
    assert main([*args, "--map", "sdb=nope"]) == 2
    err = capsys.readouterr().err
    assert f"{base}:" in err and "--map sdb=nope" in err and "data, logs" in err
    assert "Traceback" not in err
    assert main([*args, "--map", "sdz=data"]) == 2
    assert "--map: sdz=data: no device 'sdz'" in capsys.readouterr().err
    assert main([*args, "--map", "sdb"]) == 2
    assert not out.exists()


def test_more_devices_than_lun_groups_asks_for_a_map(
    perf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.yaml"
    base = SCENARIOS / "quickstart.yaml"
    assert main(["import", str(perf), "--into", str(base), "--out", str(out)]) == 2
    assert "give --map" in capsys.readouterr().err and not out.exists()


def test_bad_input_exits_2_with_a_location(
    perf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "x.yaml"
    perf.write_text(HEADER + "broken\n")
    assert main(["import", str(perf), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{perf}:3:7: Disk Reads/sec: 'abc' is not a number" in err
    unknown = tmp_path / "what.txt"
    unknown.write_text("hello\n")
    assert main(["import", str(unknown), "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{unknown}:1:1: --format:" in err and "perfmon" in err and "Traceback" not in err
    perf.write_text(HEADER)
    assert main(["import", str(perf), "--interval", "300..400", "--out", str(out)]) == 2
    assert "has no samples" in capsys.readouterr().err
    assert main(["import", str(tmp_path / "missing.csv"), "--out", str(out)]) == 2
    assert not out.exists()


def test_a_scenario_that_does_not_validate_is_not_written(tmp_path: Path) -> None:
    job = JobSpec(
        "j", read_fraction=1.0, random_fraction=1.0, block_sizes=((4096, 1.0),), numjobs=0
    )
    out = tmp_path / "bad.yaml"
    with pytest.raises(ScenarioError, match="not written"):
        import_scenario([Measured("job.fio", "fio-job", jobs=(job,))], out=out)
    assert not out.exists()


def test_fio_jobs_without_results_write_no_reference(tmp_path: Path) -> None:
    job = JobSpec("j", 0.5, 1.0, ((4096, 1.0),), iodepth=8, size=10 * 1024**3)
    out = tmp_path / "fio.yaml"
    import_scenario([Measured("job.fio", "fio-job", jobs=(job,))], out=out)
    scenario = sanpath.load_scenario(out)
    assert scenario.reference is None and scenario.workloads[0].outstanding == 8
    assert scenario.array.luns[0].size == 10 * 1024**3


def test_compare_runs_on_an_imported_scenario(
    perf: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "cmp.yaml"
    assert main(["import", str(perf), "--out", str(out)]) == 0
    capsys.readouterr()
    assert main(["compare", str(out), "--ios", "2000"]) == 0
    table = capsys.readouterr().out
    assert "measured IOPS" in table and "measured" in table


def measured_samples() -> list[Path]:
    folder = SCENARIOS / "measured"
    return sorted(p for p in folder.glob("*") if p.is_file() and p.suffix != ".md")


NEEDS = {
    "trace_named.csv": ("csv", TraceOptions(columns=NAMED_COLUMNS, time_unit="ms")),
    "fio_iolog_v2.log": ("auto", TraceOptions(outstanding=8)),
}
"""Samples that need more than their file: the named CSV its columns, fio's v2 log a depth."""


def test_every_format_has_a_sample() -> None:
    formats = {detect(path) for path in measured_samples() if path.name not in NEEDS}
    assert formats == {
        "perfmon",
        "iostat",
        "iostat-json",
        "sadf",
        "esxtop",
        "fio-json",
        "fio-job",
        "fio-iolog",
        "blkparse",
        "msr",
        "spc",
        "alibaba",
        "tencent",
    }
    assert NEEDS["trace_named.csv"][0] == "csv"


@pytest.mark.parametrize("path", measured_samples(), ids=lambda p: p.name)
def test_end_to_end_import_of_each_sample(path: Path, tmp_path: Path) -> None:
    shutil.copy(path, tmp_path / path.name)
    out = tmp_path / "imported.yaml"
    fmt, trace = NEEDS.get(path.name, ("auto", None))
    import_scenario([tmp_path / path.name], out=out, format=fmt, trace=trace)
    assert sanpath.load_scenario(out).workloads


def test_esxtop_adapters_are_read_but_not_made_workloads(tmp_path: Path) -> None:
    out = tmp_path / "esx.yaml"
    import_scenario([SCENARIOS / "measured" / "esxtop_batch.csv"], out=out)
    names = [w.name for w in sanpath.load_scenario(out).workloads]
    assert names and all(name.startswith("naa.") for name in names)
    assert "adapter counters left out" in out.read_text()


@pytest.mark.slow
def test_calibrate_fits_to_the_imported_measurements(tmp_path: Path) -> None:
    imported = tmp_path / "sql.yaml"
    import_scenario([SCENARIOS / "measured" / "perfmon_sql.csv"], out=imported)
    out = tmp_path / "calibrated.yaml"
    code = main(
        [
            "calibrate",
            str(imported),
            "--fit",
            "array.controller.io_time",
            "--ios",
            "2000",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    fitted = sanpath.load_scenario(out).array.controller.io_time
    placeholder = sanpath.load_scenario(imported).array.controller.io_time
    # the placeholder array answers in well under the measured 6 ms: the fit slows it down
    assert fitted.mean > 5 * placeholder.mean
