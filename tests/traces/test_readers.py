"""Trace readers against the hand-written samples: every record, in the tool's own units.

Each expectation is computed here from the file's text with plain string handling and the
unit the tool documents (not through the reader), so a reader that took a wrong column or
unit fails.
"""

from __future__ import annotations

import gzip
import shutil
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanpath.traces import SECTOR, TraceReader, Window, summarize
from tests.conftest import SCENARIOS

MEASURED = SCENARIOS / "measured"
NAMED = Window(
    columns=(
        ("time", "time_ms"),
        ("device", "lun"),
        ("op", "rw"),
        ("size", "bytes"),
        ("latency", "latency_ms"),
    ),
    time_unit=1e-3,
)


def read_all(path: Path, fmt: str, window: Window | None = None, batch: int = 8192) -> dict:
    reader = TraceReader(path, fmt, window, batch)
    parts = list(reader.batches())
    joined = {
        key: np.concatenate([getattr(b, key) for b in parts])
        for key in ("time", "device", "offset", "size", "write")
    }
    joined["names"] = [reader.devices[i] for i in joined["device"].tolist()]
    joined["reader"] = reader
    return joined


def rows(name: str) -> list[list[str]]:
    text = (MEASURED / name).read_text().splitlines()
    return [line.split(",") for line in text if line.strip()]


def test_msr_ticks_bytes_and_response_times() -> None:
    got = read_all(MEASURED / "msr_hm_0.csv", "msr")
    raw = rows("msr_hm_0.csv")
    t0 = int(raw[0][0])
    assert got["time"].tolist() == pytest.approx([(int(r[0]) - t0) * 100e-9 for r in raw])
    assert got["offset"].tolist() == [int(r[4]) for r in raw]
    assert got["size"].tolist() == [int(r[5]) for r in raw]
    assert got["write"].tolist() == [r[3] == "Write" for r in raw]
    assert set(got["names"]) == {"hm_0"}
    reads = [int(r[6]) * 100e-9 for r in raw if r[3] == "Read"]
    assert got["reader"].tally.mean_response(False) == pytest.approx(sum(reads) / len(reads))


def test_spc_blocks_of_512_bytes_and_seconds() -> None:
    got = read_all(MEASURED / "spc_financial.spc", "spc")
    raw = rows("spc_financial.spc")
    assert got["offset"].tolist() == [int(r[1]) * 512 for r in raw]
    assert got["size"].tolist() == [int(r[2]) for r in raw]
    assert got["write"].tolist() == [r[3].lower() == "w" for r in raw]
    assert got["names"] == [r[0] for r in raw]
    assert got["time"].tolist() == pytest.approx([float(r[4]) - float(raw[0][4]) for r in raw])
    bigger = read_all(MEASURED / "spc_financial.spc", "spc", Window(offset_unit=4096))
    assert bigger["offset"].tolist() == [int(r[1]) * 4096 for r in raw]


def test_alibaba_microseconds() -> None:
    got = read_all(MEASURED / "alibaba.csv", "alibaba")
    raw = rows("alibaba.csv")
    t0 = int(raw[0][4])
    assert got["time"].tolist() == pytest.approx([(int(r[4]) - t0) * 1e-6 for r in raw])
    assert got["offset"].tolist() == [int(r[2]) for r in raw]
    assert got["size"].tolist() == [int(r[3]) for r in raw]
    assert got["write"].tolist() == [r[1] == "W" for r in raw]
    assert got["names"] == [r[0] for r in raw]


def test_tencent_sectors_and_seconds_spread_over_their_second() -> None:
    got = read_all(MEASURED / "tencent_cbs.csv", "tencent")
    raw = rows("tencent_cbs.csv")
    assert got["offset"].tolist() == [int(r[1]) * SECTOR for r in raw]
    assert got["size"].tolist() == [int(r[2]) * SECTOR for r in raw]
    assert got["write"].tolist() == [r[3] == "1" for r in raw]
    assert got["names"] == [r[4] for r in raw]
    t0 = int(raw[0][0])
    seconds = [int(r[0]) - t0 for r in raw]
    times = got["time"].tolist()
    for second in set(seconds):
        mine = [t for t, s in zip(times, seconds, strict=True) if s == second]
        # evenly over the second, in file order, starting on the second
        assert mine == pytest.approx([second + i / len(mine) for i in range(len(mine))])


def test_fio_iolog_v3_microseconds_and_skipped_actions() -> None:
    got = read_all(MEASURED / "fio_iolog_v3.log", "fio-iolog")
    lines = (MEASURED / "fio_iolog_v3.log").read_text().splitlines()[1:]
    ios = [line.split() for line in lines if line.split()[2] in ("read", "write")]
    t0 = int(ios[0][0])
    assert got["time"].tolist() == pytest.approx([(int(f[0]) - t0) * 1e-6 for f in ios])
    assert got["names"] == [f[1] for f in ios]
    assert got["offset"].tolist() == [int(f[3]) for f in ios]
    assert got["size"].tolist() == [int(f[4]) for f in ios]
    assert got["write"].tolist() == [f[2] == "write" for f in ios]
    assert got["reader"].tally.skipped == {"trims": 1}


def test_fio_iolog_v2_has_no_times_but_its_waits_are_milliseconds(tmp_path: Path) -> None:
    got = read_all(MEASURED / "fio_iolog_v2.log", "fio-iolog")
    assert len(got["time"]) == 20 and not got["time"].any()
    log = tmp_path / "waits.log"
    log.write_text(
        "fio version 2 iolog\n/f add\n/f open\n/f read 0 4096\n/f wait 250 0\n"
        "/f write 4096 8192\n/f wait 1250 0\n/f read 12288 4096\n/f close\n"
    )
    got = read_all(log, "fio-iolog")
    # fio compares a wait's value with mtime_since_genesis(): milliseconds from the start
    assert got["time"].tolist() == pytest.approx([0.0, 0.25, 1.25])
    assert got["write"].tolist() == [False, True, False]


def test_blkparse_issues_sectors_and_completions() -> None:
    got = read_all(MEASURED / "blkparse_sdb.txt", "blkparse")
    issues, done = [], {}
    for line in (MEASURED / "blkparse_sdb.txt").read_text().splitlines():
        f = line.split()
        if len(f) > 9 and f[5] in ("D", "C") and f[8] == "+":
            t = float(f[3])
            if f[5] == "D":
                issues.append((t, int(f[7]), int(f[9]), "W" in f[6]))
            else:
                done[int(f[7])] = t
    t0 = issues[0][0]
    assert got["time"].tolist() == pytest.approx([t - t0 for t, *_ in issues])
    assert got["offset"].tolist() == [s * 512 for _, s, _, _ in issues]
    assert got["size"].tolist() == [n * 512 for _, _, n, _ in issues]
    assert got["write"].tolist() == [w for *_, w in issues]
    assert set(got["names"]) == {"8,16"}
    reads = [done[s] - t for t, s, _, w in issues if not w]
    tally = got["reader"].tally
    assert tally.mean_response(False) == pytest.approx(sum(reads) / len(reads))
    assert tally.skipped == {"commands without sectors (pass-through, flushes)": 1}


def test_named_csv_columns_and_units() -> None:
    got = read_all(MEASURED / "trace_named.csv", "csv", NAMED)
    raw = rows("trace_named.csv")[1:]
    assert got["time"].tolist() == pytest.approx(
        [(float(r[0]) - float(raw[0][0])) / 1e3 for r in raw]
    )
    assert got["names"] == [r[1] for r in raw]
    assert got["write"].tolist() == [r[2] == "W" for r in raw]
    assert got["size"].tolist() == [int(r[4]) for r in raw]
    lat = [float(r[5]) / 1e3 for r in raw if r[2] == "W"]
    assert got["reader"].tally.mean_response(True) == pytest.approx(sum(lat) / len(lat))


def test_gzip_window_and_device_filter(tmp_path: Path) -> None:
    packed = tmp_path / "hm_0.csv.gz"
    with (MEASURED / "msr_hm_0.csv").open("rb") as src, gzip.open(packed, "wb") as dst:
        shutil.copyfileobj(src, dst)
    plain = read_all(MEASURED / "msr_hm_0.csv", "msr")
    assert read_all(packed, "msr")["offset"].tolist() == plain["offset"].tolist()
    times = plain["time"]
    start, end = float(times[5]), float(times[20])
    window = read_all(packed, "msr", Window(start=start, end=end))
    assert window["time"].tolist() == pytest.approx((times[5:20] - start).tolist())
    assert window["reader"].tally.skipped == {
        "before the start of the window": 5,
        "after the end of the window": len(times) - 20,
    }
    only = read_all(MEASURED / "alibaba.csv", "alibaba", Window(devices=frozenset({"420"})))
    assert set(only["names"]) == {"420"}
    assert len(only["time"]) == sum(1 for r in rows("alibaba.csv") if r[0] == "420")


@given(st.integers(1, 40))
def test_batches_of_any_size_give_the_same_records(batch: int) -> None:
    whole = read_all(MEASURED / "alibaba.csv", "alibaba", batch=1 << 20)
    pieces = read_all(MEASURED / "alibaba.csv", "alibaba", batch=batch)
    for key in ("time", "offset", "size", "write"):
        assert pieces[key].tolist() == whole[key].tolist()
    assert pieces["names"] == whole["names"]


def test_summary_against_the_records() -> None:
    got = read_all(MEASURED / "fio_iolog_v3.log", "fio-iolog")
    s = summarize(MEASURED / "fio_iolog_v3.log", "fio-iolog")
    sizes, writes, times = got["size"], got["write"], got["time"]
    assert s.records == len(sizes) and s.reads == int((~writes).sum())
    assert s.bytes_read == int(sizes[~writes].sum())
    assert s.iops == pytest.approx((len(times) - 1) / (times.max() - times.min()))
    assert sum(s.read_sizes.values()) + sum(s.write_sizes.values()) == s.records
    # /dev/sdc is written as one sequential stream of 64 KiB: all but its first continue
    sdc = [i for i, n in enumerate(got["names"]) if n == "/dev/sdc"]
    assert s.sequential >= len(sdc) - 1
    assert sum(s.counts) == s.records
    # footprint: distinct 4 KiB blocks touched
    blocks = set()
    for offset, size in zip(got["offset"].tolist(), sizes.tolist(), strict=True):
        blocks.update(range(offset // 4096, (offset + size - 1) // 4096 + 1))
    assert s.footprint == len(blocks) * 4096


def test_timeline_coarsens_and_keeps_every_record(tmp_path: Path) -> None:
    trace = tmp_path / "long.csv"
    lines = [f"{i * 7.3:.3f},{i * 4096},4096,r" for i in range(400)]
    trace.write_text("time,offset,size,op\n" + "\n".join(lines) + "\n")
    s = summarize(trace, "csv")
    assert s.bucket > 1 and len(s.counts) <= 256 and sum(s.counts) == 400
    assert s.sequential == 399
