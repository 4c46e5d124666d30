"""Buffer-to-buffer credits on a long link: the rate they leave it, where they start to bind."""

from __future__ import annotations

from typing import Any

import pytest

import sanpath
from sanpath.layout import CreditLimit, host_link_credits
from sanpath.sim.credit import CreditLink
from sanpath.sim.station import Link
from sanpath.spec import LIGHT_PER_KM, ScenarioError
from sanpath.theory import textbook
from sanpath.theory.twin import predict
from sanpath.units import parse_rate

PAYLOAD = 2048
FRAME = PAYLOAD + 60  # a full frame on the wire


def long_link(
    km: float,
    credits: int = 8,
    speed: str = "2GFC",
    write: bool = False,
    drain: float = 0.0,
    ios: int = 1_500,
) -> dict[str, Any]:
    """A path where nothing but the host's FC link limits: 1 MiB transfers, 8 in flight."""
    data = textbook.free_path(ios=ios, warmup_ios=ios // 10)
    data["hosts"][0]["hbas"][0]["speed"] = speed
    data["hosts"][0]["drain_time"] = drain
    data["fabric"].update(distance_km=km, credits=credits)
    data["workloads"][0].update(
        outstanding=8, block_size="1MiB", read_fraction=0.0 if write else 1.0
    )
    return data


def credit_bound_rate(km: float, credits: int, rate: float, drain: float = 0.0) -> float:
    """credits x payload / round trip, data bytes/s: the round trip of a credit is its frame
    on the wire, light both ways and the receiver's drain time."""
    round_trip = FRAME / rate + 2 * km * LIGHT_PER_KM + drain
    return credits * PAYLOAD / round_trip


@pytest.mark.parametrize(
    ("km", "credits", "speed", "write"),
    [
        (20, 8, "2GFC", False),
        (50, 8, "2GFC", True),
        (30, 16, "4GFC", False),
        (100, 40, "8GFC", True),
    ],
)
def test_credit_bound_link_carries_credits_times_payload_per_round_trip(
    km: float, credits: int, speed: str, write: bool
) -> None:
    rate = parse_rate(speed)
    result = sanpath.run(long_link(km, credits, speed, write))
    expected = credit_bound_rate(km, credits, rate)
    assert expected < 0.9 * rate * PAYLOAD / FRAME  # the case is credit-bound
    assert result.mb_per_s * 1e6 == pytest.approx(expected, rel=0.02)
    # the twin's link of reduced rate agrees
    assert predict(sanpath.load_scenario(long_link(km, credits, speed, write))).mb_per_s * 1e6 == (
        pytest.approx(expected, rel=0.02)
    )


def test_credit_starved_time_is_the_round_trip_not_covered_by_the_credits() -> None:
    """The host link's credit-starved share (Brocade's tim_txcrd_z) is the part of each
    credit cycle the port waits with frames to send: ``1 - credits x frame time / cycle``."""
    rate = parse_rate("2GFC")
    km, credits = 50, 8
    result = sanpath.run(long_link(km, credits))
    cycle = FRAME / rate + 2 * km * LIGHT_PER_KM
    starved = result.station("host.link.in").credit_starved
    assert starved == pytest.approx(1 - credits * FRAME / rate / cycle, rel=0.03)
    assert result.station("host.link.out").credit_starved == 0.0  # reads: nothing goes out
    short = sanpath.run(long_link(0, credits)).station("host.link.in")
    assert short.credit_starved is None
    assert "credit_starved" not in short.to_dict()


@pytest.mark.parametrize("write", [False, True])
def test_short_link_runs_at_line_rate(write: bool) -> None:
    rate = parse_rate("2GFC")
    result = sanpath.run(long_link(5, 8, "2GFC", write))
    assert result.mb_per_s * 1e6 == pytest.approx(rate * PAYLOAD / FRAME, rel=0.01)


@pytest.mark.parametrize("speed", ["2GFC", "4GFC", "8GFC"])
def test_break_even_distance_is_one_frame_per_km_per_2_gbps(speed: str) -> None:
    """Credits start to bind where ``credits - 1`` full frames fill the round trip: a link of
    ``credits`` credits at 2 Gb/s keeps full speed to about ``credits - 1`` km (the one
    frame more is the frame on the wire), at 4 Gb/s half as far, at 8 Gb/s a quarter."""
    rate = parse_rate(speed)
    gbps = rate * 8 / 0.8 / 1e9  # 8b/10b: the baud rate in Gb/s, 2.125 for 2GFC
    credits = 16
    limit = CreditLimit(credits, FRAME, 60, 0.0)
    frame_time = FRAME / rate
    break_even = (credits - 1) * frame_time / (2 * LIGHT_PER_KM)
    assert break_even == pytest.approx((credits - 1) * 2.125 / gbps, rel=0.01)
    below, above = 0.95 * break_even, 1.2 * break_even
    for km, bound in ((below, False), (above, True)):
        back = CreditLimit(credits, FRAME, 60, 2 * km * LIGHT_PER_KM)
        assert back.binds(rate) is bound
        result = sanpath.run(long_link(km, credits, speed, ios=800))
        if bound:
            assert result.mb_per_s * 1e6 == pytest.approx(
                credit_bound_rate(km, credits, rate), rel=0.02
            )
            assert result.mb_per_s * 1e6 < 0.9 * rate * PAYLOAD / FRAME
        else:
            assert result.mb_per_s * 1e6 == pytest.approx(rate * PAYLOAD / FRAME, rel=0.01)
    # the credits a 10 km link needs: 1 per km at 2 Gb/s (Brocade: 10/20/40 at 2/4/8 Gb/s),
    # plus the frame on the wire and the rounding up
    needed = CreditLimit(1, FRAME, 60, 2 * 10 * LIGHT_PER_KM).needed(rate)
    assert needed - 2 <= round(10 * gbps / 2.125) <= needed
    assert not limit.binds(rate)  # no length: a credit is back once its frame is sent


def test_slow_drain_holds_the_credits_of_the_link_toward_the_host() -> None:
    rate = parse_rate("2GFC")
    drain = 100e-6
    reads = sanpath.run(long_link(0, 8, "2GFC", drain=drain))
    assert reads.mb_per_s * 1e6 == pytest.approx(credit_bound_rate(0, 8, rate, drain), rel=0.02)
    writes = sanpath.run(long_link(0, 8, "2GFC", write=True, drain=drain))
    assert writes.mb_per_s * 1e6 == pytest.approx(rate * PAYLOAD / FRAME, rel=0.01)


def test_without_length_the_credits_change_nothing() -> None:
    data = textbook.free_path(ios=2_000, warmup_ios=200)
    data["hosts"][0]["hbas"][0]["speed"] = "4GFC"
    data["workloads"][0].update(outstanding=4, block_size="256KiB")
    base = sanpath.run(data).to_dict()
    data["fabric"]["credits"] = 1
    assert sanpath.run(data).to_dict() == base
    scenario = sanpath.load_scenario(data)
    limits = host_link_credits(scenario, 0, 0)
    assert limits is not None
    assert not limits[0].binds(parse_rate("4GFC"))


def test_credit_link_sends_a_burst_of_credits_then_waits_a_round_trip() -> None:
    from sanpath.sim.kernel import Kernel
    from sanpath.sim.station import Station

    env = Kernel()
    rate = 1e6  # 1 byte per us
    back = 1e-3
    link = CreditLink(env, rate, Station("link", "link", 1, "fabric"), 2, 100, 10, back)
    # 4 full frames of 90 data bytes each and a status frame: 4 x 100 + 10 wire bytes
    start, end = link.reserve(0.0, 0.0, 410)
    assert start == 0.0
    # frames 0 and 1 go at once; frames 2 and 3 wait for their credits (100 us + 1 ms after
    # frames 0 and 1 began), the status frame for frame 2's
    assert end == pytest.approx(2 * (100e-6 + back) + 10e-6)
    plain = Link(env, rate, Station("plain", "link", 1, "fabric"))
    assert plain.reserve(0.0, 0.0, 410) == (0.0, pytest.approx(410e-6))


def test_credits_are_fibre_channel_only() -> None:
    data = textbook.free_path()
    del data["hosts"][0]["multipath"]
    data["hosts"][0].update(transport="nvme-tcp", drain_time="1ms")
    data["hosts"][0]["hbas"][0]["speed"] = "25GbE"
    with pytest.raises(ScenarioError, match="drain_time"):
        sanpath.load_scenario(data)
    data["hosts"][0]["drain_time"] = 0
    data["hosts"][0]["hbas"][0]["credits"] = 16
    with pytest.raises(ScenarioError, match="credits"):
        sanpath.load_scenario(data)
    data = textbook.free_path()
    data["fabric"]["credits"] = 0
    with pytest.raises(ScenarioError, match=r"fabric\.credits"):
        sanpath.load_scenario(data)
