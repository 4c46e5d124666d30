"""Random streams (sanpath.sim.streams): the numbers are numpy's, however they are drawn.

A source's generator is the one ``PCG64(SeedSequence(seed, spawn_key=(replicate,
crc32(name))))`` gives, made from a seed pool mixed once per run; it is made at the first
draw, and blocks grow from a few draws to 2,048 without changing a single number.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from sanpath.sim.seeds import PCG_MULT, pcg_double, pcg_step
from sanpath.sim.streams import Streams, make_sampler, uniform_stream
from sanpath.spec import DistSpec

SEEDS = st.one_of(st.integers(0, 2**32 + 10), st.integers(0, 2**140))
"""Seeds of one 32-bit word and of several."""
REPLICATES = st.one_of(st.integers(0, 8), st.integers(0, 2**70))


def numpy_generator(seed: int, replicate: int, name: str) -> np.random.Generator:
    key = (replicate, zlib.crc32(name.encode("utf-8")))
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))


@given(seed=SEEDS, replicate=REPLICATES, name=st.text(max_size=40))
def test_a_named_generator_is_numpys_seed_sequence_generator(
    seed: int, replicate: int, name: str
) -> None:
    ours = Streams(seed, replicate).generator(name)
    assert np.array_equal(ours.random(8), numpy_generator(seed, replicate, name).random(8))


def test_a_negative_seed_is_refused_as_numpy_refuses_it() -> None:
    with pytest.raises(ValueError, match="non-negative"):
        Streams(-1)


def test_growing_blocks_give_the_numbers_of_one_big_draw() -> None:
    made = []

    def make() -> np.random.Generator:
        made.append(1)
        return numpy_generator(7, 0, "w.lun.t0")

    u = uniform_stream(make)
    assert made == []  # nothing is seeded before the first draw
    draws = [u() for _ in range(5000)]  # refills of 16, 32, ..., 2048, 2048 draws
    assert made == [1]
    assert draws == numpy_generator(7, 0, "w.lun.t0").random(5000).tolist()


@pytest.mark.parametrize(
    ("dist", "draw"),
    [
        ({"dist": "exponential", "mean": "1ms"}, lambda g, n: g.exponential(1e-3, n)),
        ({"dist": "gamma", "mean": "1ms", "cv": 0.5}, lambda g, n: g.gamma(4.0, 0.25e-3, n)),
        ({"dist": "erlang", "mean": "1ms", "k": 3}, lambda g, n: g.gamma(3, 1e-3 / 3, n)),
        ({"dist": "uniform", "low": "1ms", "high": "2ms"}, lambda g, n: g.uniform(1e-3, 2e-3, n)),
    ],
)
def test_samplers_draw_numpys_numbers_in_growing_blocks(
    dist: dict[str, object], draw: Callable[[np.random.Generator, int], np.ndarray]
) -> None:
    spec = DistSpec.model_validate(dist)
    sample = Streams(3).sampler(spec, "array.controller")
    ours = [sample() for _ in range(3000)]
    assert ours == draw(numpy_generator(3, 0, "array.controller"), 3000).tolist()


def test_a_constant_sampler_seeds_nothing() -> None:
    spec = DistSpec.model_validate({"dist": "constant", "mean": "5us"})
    made = []
    sample = make_sampler(spec, lambda: made.append(1) or numpy_generator(0, 0, ""))
    assert [sample(), sample()] == [5e-6, 5e-6]
    assert made == []


@given(
    seed=st.integers(0, 2**70),
    replicate=st.integers(0, 2**40),
    order=st.lists(st.integers(0, 5), min_size=1, max_size=400),
)
def test_streams_sharing_the_run_s_generator_draw_their_own_generators_numbers(
    seed: int, replicate: int, order: list[int]
) -> None:
    """Six buffered streams of one run, drawn in any interleaving (each refill loads its
    own state into the run's one generator), give the numbers of six generators."""
    streams = Streams(seed, replicate)
    names = [f"workload.oltp.db{i}.lun{i % 3}" for i in range(6)]
    spec = DistSpec.model_validate({"dist": "exponential", "mean": "1ms"})
    sources: list[Callable[[], float]] = [streams.uniform(n) for n in names[:4]]
    sources += [streams.sampler(spec, n) for n in names[4:]]
    drawn: list[list[float]] = [[] for _ in names]
    for i in order:
        for _ in range(1 + 7 * i):  # unequal draws: the streams refill at different times
            drawn[i].append(sources[i]())
    for i, name in enumerate(names):
        expected = numpy_generator(seed, replicate, name)
        n = len(drawn[i])
        want = expected.random(n) if i < 4 else expected.exponential(1e-3, n)
        assert drawn[i] == want.tolist()


@given(seed=SEEDS, replicate=REPLICATES, name=st.text(max_size=40))
def test_a_source_s_first_state_is_numpys_seed_sequence_state(
    seed: int, replicate: int, name: str
) -> None:
    """The run's precomputed seeding gives a source the state numpy's PCG64 starts in."""
    ours = Streams(seed, replicate).lazy(name)()  # the run's generator, loaded with it
    key = (replicate, zlib.crc32(name.encode("utf-8")))
    expected = np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)).state
    assert ours.bit_generator.state == expected


@given(seed=SEEDS, replicate=REPLICATES, name=st.text(max_size=40), n=st.integers(1, 60))
def test_a_stream_s_first_draws_are_numpys_without_the_run_s_generator(
    seed: int, replicate: int, name: str, n: int
) -> None:
    """A uniform stream works its first numbers out by integer arithmetic, leaving the
    run's generator to the others, and goes on through it from the state it reached."""
    streams = Streams(seed, replicate)
    other = streams.sampler(DistSpec.model_validate({"dist": "exponential", "mean": "1ms"}), "x")
    u = streams.uniform(name)
    drawn = []
    for i in range(n):
        drawn.append(u())
        if i == 0:
            other()  # the run's generator now holds another stream's state
            hub_owner = streams._hub.owner
    assert drawn == numpy_generator(seed, replicate, name).random(n).tolist()
    if n <= 16:  # no block drawn yet: the run's generator still holds the other stream
        assert streams._hub.owner is hub_owner
    else:
        assert streams._hub.owner is not hub_owner


def _words(n: int) -> tuple[int, int, int, int]:
    return n & 0xFFFFFFFF, (n >> 32) & 0xFFFFFFFF, (n >> 64) & 0xFFFFFFFF, n >> 96


U128 = st.integers(0, 2**128 - 1)


@given(state=U128, stream=U128, rot=st.one_of(st.none(), st.integers(0, 63)))
def test_the_pcg64_step_in_words_is_the_128_bit_step(
    state: int, stream: int, rot: int | None
) -> None:
    """PCG64's step and output worked in 32-bit words give the 128-bit arithmetic's
    numbers, for every rotation of the output (``rot``: the state's top six bits)."""
    if rot is not None:
        state = (state & ((1 << 122) - 1)) | (rot << 122)
    inc = ((stream << 1) | 1) & (2**128 - 1)
    stepped = (state * PCG_MULT + inc) % 2**128
    assert pcg_step(*_words(state), *_words(inc)) == _words(stepped)
    word = ((state >> 64) ^ state) & (2**64 - 1)
    turn = state >> 122
    word = ((word >> turn) | (word << ((64 - turn) & 63))) & (2**64 - 1)
    assert pcg_double(*_words(state)) == (word >> 11) * 2.0**-53


@given(seed=SEEDS, replicate=REPLICATES, crc=st.integers(0, 2**32 - 1))
def test_a_source_s_first_state_in_words_is_its_seed(seed: int, replicate: int, crc: int) -> None:
    """The first state and increment in words are :meth:`SourceSeeds.seed`'s numbers."""
    seeds = Streams(seed, replicate)._seeds
    state, inc = seeds.seed(crc)
    assert seeds.start(crc) == (*_words(state), *_words(inc))


def test_many_streams_hold_a_bounded_block_each_however_long_they_draw() -> None:
    """A thousand hosts' streams: memory must not grow with the run (issue: enterprise.yaml
    peaked at 322, 467 and 607 MB after 1e5, 1e6 and 4e6 I/Os while blocks grew to 2,048)."""
    import tracemalloc

    streams = Streams(7)
    spec = DistSpec(dist="exponential", mean=1e-3)
    samplers = [streams.sampler(spec, f"host{i}.io") for i in range(1000)]
    tracemalloc.start()
    try:
        held = []
        for draws in (500, 5_000):
            for sample in samplers:
                for _ in range(draws):
                    sample()
            held.append(tracemalloc.get_traced_memory()[0])
    finally:
        tracemalloc.stop()
    assert held[1] < 1.2 * held[0] + 1e6  # ten times the draws, no more memory
    assert held[1] < 16e6  # about 10 KiB per stream
