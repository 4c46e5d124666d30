"""Bad trace files: located errors (file, line, column), exit code 2, nothing written.

Each case breaks one sample in one place; the error must name that line and the column where
the bad field starts, from the readers, from ``sanpath import`` and from a scenario that
replays the file.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from sanpath.cli import main
from sanpath.traces import TraceError, TraceReader, Window, check
from tests.conftest import SCENARIOS

MEASURED = SCENARIOS / "measured"


def broken(tmp_path: Path, sample: str, line: int, new: str, name: str | None = None) -> Path:
    """``sample`` with its 1-based ``line`` replaced by ``new``."""
    lines = (MEASURED / sample).read_text().splitlines()
    lines[line - 1] = new
    path = tmp_path / (name or sample)
    path.write_text("\n".join(lines) + "\n")
    return path


def error_of(path: Path, fmt: str, window: Window | None = None) -> TraceError:
    with pytest.raises(TraceError) as info:
        for _ in TraceReader(path, fmt, window).batches():
            pass
    return info.value


CASES = [
    # (sample, format, line, new text, expected line, column, field, words in the message)
    (
        "msr_hm_0.csv",
        "msr",
        3,
        "128166372003825446,hm,0,Write,2921037824",
        3,
        41,
        "Size",
        "too few fields",
    ),
    (
        "msr_hm_0.csv",
        "msr",
        4,
        "128166372003900575,hm,0,Write,1299353600,64KiB,35667",
        4,
        42,
        "Size",
        "without a unit",
    ),
    (
        "msr_hm_0.csv",
        "msr",
        5,
        "128166372004026968,hm,0,Fetch,219049984,65536,5108",
        5,
        25,
        "Type",
        "expected Read or Write",
    ),
    ("spc_financial.spc", "spc", 2, "1,454882,3072,r,0.0o2", 2, 17, "Timestamp", "not a number"),
    ("spc_financial.spc", "spc", 3, "0,29353,3584", 3, 13, "Opcode", "too few fields"),
    (
        "alibaba.csv",
        "alibaba",
        2,
        "419,W,37169827840,4096B,1577808000005005",
        2,
        19,
        "length",
        "without a unit",
    ),
    (
        "alibaba.csv",
        "alibaba",
        4,
        "420,R,67978960896,131072,1577808000008811,9",
        4,
        43,
        "timestamp",
        "too many fields",
    ),
    (
        "tencent_cbs.csv",
        "tencent",
        2,
        "1538323200,155426504,8,2,4107",
        2,
        24,
        "IOType",
        "expected 0 or 1",
    ),
    (
        "tencent_cbs.csv",
        "tencent",
        3,
        "1538323200,-460897984,8,0,4107",
        3,
        12,
        "Offset",
        "negative",
    ),
    ("fio_iolog_v3.log", "fio-iolog", 7, "1500 /dev/sdb read 8192", 7, 24, "length", "truncated"),
    (
        "fio_iolog_v3.log",
        "fio-iolog",
        8,
        "1700 /dev/sdb write 1.5e6 8192",
        8,
        21,
        "offset",
        "not a whole number",
    ),
    (
        "fio_iolog_v3.log",
        "fio-iolog",
        9,
        "1800 /dev/sdb readv 0 8192",
        9,
        15,
        "action",
        "unknown action",
    ),
    ("fio_iolog_v3.log", "fio-iolog", 1, "fio version 1 iolog", 1, 1, "header", "no longer read"),
    (
        "blkparse_sdb.txt",
        "blkparse",
        4,
        "  8,16   0        4     0.001544963  4012  D   W 1265408 +",
        4,
        59,
        "sectors",
        "truncated",
    ),
    (
        "blkparse_sdb.txt",
        "blkparse",
        4,
        "  8,16   0        4     0,001544963  4012  D   W 1265408 + 16 [kworker/u8:2]",
        4,
        25,
        "time",
        "SECONDS.NANOSECONDS",
    ),
    (
        "blkparse_sdb.txt",
        "blkparse",
        4,
        "  8,16   0        4     0.001544963  4012  D   W 12654O8 + 16 [kworker/u8:2]",
        4,
        50,
        "sector",
        "not a whole number",
    ),
    (
        "blkparse_sdb.txt",
        "blkparse",
        4,
        "  8,16   0        4     0.001544963",
        4,
        36,
        "event",
        "truncated",
    ),
]


@pytest.mark.parametrize(
    ("sample", "fmt", "line", "new", "at", "column", "field", "words"),
    CASES,
    ids=[f"{c[1]}-{c[7]}-{c[2]}" for c in CASES],
)
def test_bad_lines_are_located(
    tmp_path: Path,
    sample: str,
    fmt: str,
    line: int,
    new: str,
    at: int,
    column: int,
    field: str,
    words: str,
) -> None:
    path = broken(tmp_path, sample, line, new)
    error = error_of(path, fmt)
    assert (error.source, error.line, error.column, error.where) == (str(path), at, column, field)
    assert words in error.message
    assert str(error).startswith(f"{path}:{at}:{column}: {field}: ")


def test_csv_header_and_op(tmp_path: Path) -> None:
    named = Window(columns=(("time", "time_ms"), ("op", "rw"), ("size", "bytes")))
    wrong = Window(columns=(*named.columns, ("offset", "off")))
    error = error_of(MEASURED / "trace_named.csv", "csv", wrong)  # no column called 'off'
    assert (error.line, error.column, error.where) == (1, 1, "header")
    assert "offset='off'" in error.message
    full = named
    path = broken(tmp_path, "trace_named.csv", 3, "4.900,lun1,X,4821311488,8192,0.594")
    error = error_of(path, "csv", full)
    assert (error.line, error.column, error.where) == (3, 12, "rw")


def test_empty_files_and_windows(tmp_path: Path) -> None:
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(TraceError, match="no I/O record"):
        check(empty, "msr")
    with pytest.raises(TraceError, match=r"header.*empty file"):
        check(empty, "fio-iolog")
    with pytest.raises(TraceError, match=r"no I/O record to replay \(30 before the start"):
        check(MEASURED / "msr_hm_0.csv", "msr", Window(start=100.0))
    binary = tmp_path / "trace.bin"
    binary.write_bytes(b"\x00\xff\xfe\x80" * 64)
    with pytest.raises(TraceError, match="not text"):
        check(binary, "alibaba")


def test_import_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = broken(tmp_path, "alibaba.csv", 6, "419,W,1,4 KiB,1577808000005005")
    out = tmp_path / "new.yaml"
    assert main(["import", str(path), "--format", "alibaba", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:6:9: length: '4 KiB' is not a whole number" in err
    assert "Traceback" not in err and not out.exists()
    # an empty span is named too
    good = MEASURED / "msr_hm_0.csv"
    assert main(["import", str(good), "--interval", "500..600", "--out", str(out)]) == 2
    assert "no I/O record to replay" in capsys.readouterr().err and not out.exists()


def test_a_scenario_replaying_a_bad_trace_is_located(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = broken(tmp_path, "spc_financial.spc", 4, "1,252223,8192,w,1s")
    scenario = tmp_path / "replay.yaml"
    scenario.write_text(
        "name: replay\n"
        "hosts: [{name: h, hbas: [{count: 1}]}]\n"
        "array:\n"
        "  ports: 1\n"
        "  pools: [{name: p, raid: raid1, drives: 2, drive: ssd}]\n"
        "  luns: [{name: d, pool: p}]\n"
        "workloads:\n"
        "  - name: t\n"
        "    rate: 100\n"
        f"    trace: {{file: {path.name}, format: spc}}\n"
    )
    assert main(["validate", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert f"{scenario}:10:" in err and "workloads.0.trace" in err
    assert f"{path}:4:17: Timestamp: '1s' is not a number" in err
    scenario.write_text(scenario.read_text().replace(path.name, "missing.spc"))
    assert main(["validate", str(scenario)]) == 2
    err = capsys.readouterr().err
    assert "workloads.0.trace.file" in err and "file not found" in err
