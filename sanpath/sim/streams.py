"""Random-number streams: one independent, named numpy stream per source of randomness.

Every stochastic source in a run (a workload thread choosing offsets, a controller drawing
service times, a cache deciding hits) draws from its own ``numpy.random.Generator``. The
generator is seeded from ``SeedSequence(seed, spawn_key=(replicate, crc32(name)))``, so:

* the same scenario, seed and replicate give the same numbers, serially or in parallel;
* adding a host or a LUN does not shift the numbers another source sees;
* the same replicate index at every point of a sweep uses the same streams (common random
  numbers), so curves compare like with like.

``zlib.crc32`` names the source stably; Python's ``hash(str)`` is salted per process and
must never be used for this.

The buffered streams of a run (:meth:`Streams.uniform`, :meth:`Streams.sampler`,
:meth:`Streams.lazy`) do not each own a numpy generator: a thousand hosts on 64 LUNs have
tens of thousands of sources, most of which draw a block or two. Each is a
:class:`Substream`, the state of its own PCG64 stream (computed from the seed pool at its
first draw, as ``PCG64(SeedSequence(...))`` seeds it), and the run's one :class:`Hub`
generator draws its blocks: the hub is loaded with a substream's state before it draws for
it, and the state of the substream it held before is saved. A PCG64's numbers depend on
its state alone, so every source draws exactly the numbers of a generator of its own.

Most of those sources draw a handful of numbers (a thousand hosts on 64 LUNs send one or
two I/Os to most host-LUN pairs), where loading the hub and asking numpy for a block costs
far more than the numbers: a uniform stream (:func:`uniform_stream`) takes its first
:data:`_EAGER` draws from its substream's PCG64 one at a time in integer arithmetic
(:meth:`Substream.double`: numpy's own step, output function and conversion to a double),
and only then draws through the hub, from the state it reached.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable, Iterator
from itertools import chain
from typing import Final, cast

import numpy as np

from sanpath.layout import AccessModel
from sanpath.sim.seeds import (
    PcgState,
    SeedPool,
    SourceSeeds,
    pcg_double,
    pcg_step,
    words,
)
from sanpath.spec import DistSpec

_BLOCK = 64
"""Draws a stream takes from its generator at once, at most: a stream holds at most this
many numbers (about 2.5 KiB as Python floats), so a run with tens of thousands of streams (a
thousand hosts, each with several) holds its numbers in tens of MB, whatever its length: at
256 a thousand-host run's streams grew to about 100 MB as they reached full blocks, a
quarter of its memory. A refill every 64 draws costs little against the draws themselves
(a numpy call of about a microsecond, some 15 ns a draw)."""
_FIRST_BLOCK = 16
"""Draws of a stream's first refill; each refill doubles it, up to :data:`_BLOCK`.

A numpy generator gives the same numbers whatever the block sizes it is asked for (every draw
consumes its bit stream in order), so the values a stream yields do not depend on them; a
source that draws only a few numbers (one host of a thousand on one LUN) holds a few numbers
rather than a full block."""

_EAGER = 16
"""Draws a uniform stream on a :class:`Substream` takes one at a time by integer
arithmetic before it draws through the hub in blocks of :data:`_FIRST_BLOCK` and up."""
_UNSEEDED: Final = -1
"""A :class:`Substream`'s state before its first draw."""
_IN_WORDS: Final = -2
"""A :class:`Substream`'s state while :meth:`Substream.double` holds it in words."""

RngSource = np.random.Generator | Callable[[], np.random.Generator]
"""A generator, or a function that makes it when the first number is drawn (a
:class:`Substream` is called again at every refill: see :func:`_rng`)."""


def _next_block(n: int) -> int:
    return n * 2 if n < _BLOCK else _BLOCK


class Hub:
    """The numpy generator that draws for every :class:`Substream` of a run, holding the
    state of one of them at a time (its ``owner``)."""

    __slots__ = ("bits", "owner", "rng")

    def __init__(self) -> None:
        self.bits = np.random.PCG64(0)
        self.rng = np.random.Generator(self.bits)
        self.owner: Substream | None = None


class Substream:
    """The PCG64 stream of one named source, drawn through the run's :class:`Hub`.

    Calling it returns the hub's generator loaded with this stream's state: draw from it at
    once, before any other substream is called.
    """

    __slots__ = (
        "_crc",
        "_has_uint32",
        "_hub",
        "_i0",
        "_i1",
        "_i2",
        "_i3",
        "_inc",
        "_s0",
        "_s1",
        "_s2",
        "_s3",
        "_seeds",
        "_state",
        "_uinteger",
    )

    def __init__(self, hub: Hub, seeds: SourceSeeds, crc: int) -> None:
        self._hub = hub
        self._seeds = seeds
        self._crc = crc
        self._state = _UNSEEDED
        """The PCG64 state while another stream holds the hub (:data:`_UNSEEDED`: not
        seeded yet; :data:`_IN_WORDS`: in ``_s0.._s3``); kept as numbers rather than
        numpy's dict, as are the increment and the buffered 32-bit draw (tens of thousands
        of streams)."""
        self._inc = 0
        self._has_uint32 = 0
        self._uinteger = 0
        self._s0 = self._s1 = self._s2 = self._s3 = 0
        """The state in 32-bit words, lowest first, while :meth:`double` draws (it works
        in words: :func:`~sanpath.sim.seeds.pcg_step`)."""
        self._i0 = self._i1 = self._i2 = self._i3 = 0
        """The increment in 32-bit words, as the state."""

    def __call__(self) -> np.random.Generator:
        hub = self._hub
        owner = hub.owner
        if owner is not self:
            bits = hub.bits
            if owner is not None:
                owner._keep(bits.state)
            state = self._state
            if state == _UNSEEDED:
                bits.state = self._seeds.state(self._crc)
            else:
                if state == _IN_WORDS:  # the hub goes on from where double() left it
                    state = _join(self._s0, self._s1, self._s2, self._s3)
                    self._inc = _join(self._i0, self._i1, self._i2, self._i3)
                bits.state = {
                    "bit_generator": "PCG64",
                    "state": {"state": state, "inc": self._inc},
                    "has_uint32": self._has_uint32,
                    "uinteger": self._uinteger,
                }
            hub.owner = self
        return hub.rng

    def double(self) -> float:
        """The stream's next U(0, 1) draw, worked out without the hub: exactly the number
        ``Generator.random()`` would give (PCG64's step, its XSL-RR output, the top 53 bits
        times 2**-53). Only while the hub has never held this stream."""
        if self._state == _UNSEEDED:
            s0, s1, s2, s3, i0, i1, i2, i3 = self._seeds.start(self._crc)
            self._i0, self._i1, self._i2, self._i3 = i0, i1, i2, i3
            self._state = _IN_WORDS
        else:
            s0, s1, s2, s3 = self._s0, self._s1, self._s2, self._s3
            i0, i1, i2, i3 = self._i0, self._i1, self._i2, self._i3
        s0, s1, s2, s3 = pcg_step(s0, s1, s2, s3, i0, i1, i2, i3)
        self._s0, self._s1, self._s2, self._s3 = s0, s1, s2, s3
        return pcg_double(s0, s1, s2, s3)

    def _keep(self, state: PcgState) -> None:
        """Keep the hub's state (a numpy state dict) while another stream draws."""
        pcg = state["state"]
        self._state = pcg["state"]
        self._inc = pcg["inc"]
        self._has_uint32 = state["has_uint32"]
        self._uinteger = state["uinteger"]


def _join(w0: int, w1: int, w2: int, w3: int) -> int:
    """The 128-bit number of four 32-bit words, lowest first."""
    return (w3 << 96) | (w2 << 64) | (w1 << 32) | w0


class Streams:
    """Factory of named generators for one run (``seed``, ``replicate``)."""

    def __init__(self, seed: int, replicate: int = 0) -> None:
        self.seed = seed
        self.replicate = replicate
        entropy = words(seed)
        entropy += [0] * (4 - len(entropy))  # padded to the pool: there is a spawn key
        run = SeedPool.of_run(entropy)
        for word in words(replicate):
            run.add(word)
        self._run = run
        self._seeds = SourceSeeds(run)
        self._hub = Hub()

    def generator(self, name: str) -> np.random.Generator:
        """A fresh generator for the source called ``name``: the generator of
        ``PCG64(SeedSequence(seed, spawn_key=(replicate, crc32(name))))``."""
        pool = self._run.copy()
        pool.add(zlib.crc32(name.encode("utf-8")))
        # numpy takes any ISeedSequence; its stubs name only SeedSequence
        return np.random.Generator(np.random.PCG64(cast(np.random.SeedSequence, pool)))

    def lazy(self, name: str) -> Substream:
        """The stream of ``name`` for a buffered stream to draw its blocks from (the numbers
        of :meth:`generator`; seeded at the first draw: a source that never draws never
        pays for it)."""
        return Substream(self._hub, self._seeds, zlib.crc32(name.encode("utf-8")))

    def uniform(self, name: str) -> Callable[[], float]:
        """A buffered stream of U(0, 1) draws for the source called ``name`` (its generator
        is made at the first draw; :func:`uniform_stream`)."""
        return uniform_stream(self.lazy(name))

    def sampler(self, spec: DistSpec, name: str) -> Callable[[], float]:
        """A function returning one service time (seconds) per call, drawn from ``spec``
        (its generator is made at the first draw; a constant draws nothing)."""
        return make_sampler(spec, self.lazy(name))


def _rng(source: RngSource | None) -> np.random.Generator:
    """The generator of ``source`` (made now if it is a function)."""
    assert source is not None
    return source if isinstance(source, np.random.Generator) else source()


def _draw_from(
    source: RngSource | None, rng: np.random.Generator | None
) -> tuple[np.random.Generator, RngSource | None, np.random.Generator | None]:
    """The generator to draw a block from, and what to keep for the next block (source,
    generator): a :class:`Substream` is kept and called at every block; a function is
    called once and its generator kept."""
    if rng is not None:
        return rng, None, rng
    if isinstance(source, Substream):
        return source(), source, None
    made = _rng(source)
    return made, None, made


def uniform_stream(rng: RngSource) -> Callable[[], float]:
    """A function returning U(0, 1) draws, taken from a numpy generator in blocks.

    ``rng`` is the generator, or a function that makes it at the first draw; blocks grow
    from :data:`_FIRST_BLOCK` to :data:`_BLOCK` draws. On a :class:`Substream`, the first
    :data:`_EAGER` draws are worked out one at a time without the hub
    (:meth:`Substream.double`; the module docstring). As a sampler (:func:`_sampler`), the
    function is the ``__next__`` of an iterator over the blocks: a draw is a call into C.
    """
    return chain.from_iterable(_uniform_blocks(rng)).__next__


def _uniform_blocks(source: RngSource) -> Iterator[list[float]]:
    """The blocks of :func:`uniform_stream`: the eager draws one by one, then numpy's."""
    if isinstance(source, Substream):
        for _ in range(_EAGER):
            yield [source.double()]
    yield from _blocks(source, _random)


def _random(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` U(0, 1) draws of ``rng``."""
    return rng.random(n)


class BlockStream:
    """Block indices of an access distribution, drawn in vectorised blocks.

    Each refill maps ``_BLOCK`` uniform draws of the generator through the distribution's
    inverse (:meth:`sanpath.layout.AccessModel.blocks_of`), so a call costs a list index.
    """

    __slots__ = ("_buf", "_i", "_model", "_n", "_rng", "_source")

    def __init__(self, model: AccessModel, rng: RngSource) -> None:
        self._model = model
        self._source: RngSource | None = rng
        self._rng: np.random.Generator | None = None
        self._buf: list[int] = []
        self._i = 0
        self._n = _FIRST_BLOCK

    def __call__(self) -> int:
        """Return the next block index (0 .. blocks - 1)."""
        i = self._i
        if i >= len(self._buf):
            self._refill()
            i = 0
        self._i = i + 1
        return self._buf[i]

    def _refill(self) -> None:
        rng, self._source, self._rng = _draw_from(self._source, self._rng)
        n = self._n
        self._buf = self._model.blocks_of(rng.random(n)).tolist()
        self._n = _next_block(n)


def _sampler(
    source: RngSource, draw: Callable[[np.random.Generator, int], np.ndarray]
) -> Callable[[], float]:
    """Draws from a vectorised numpy sampler (``draw(rng, n)``) in growing blocks.

    The function returned is the ``__next__`` of an iterator over the blocks' numbers: a
    draw is a call into C, without a Python frame (a service time is drawn at every
    station), and the blocks are drawn when the numbers before them are used up, as a
    buffer refilled then would."""
    return chain.from_iterable(_blocks(source, draw)).__next__


def _blocks(
    source: RngSource | None, draw: Callable[[np.random.Generator, int], np.ndarray]
) -> Iterator[list[float]]:
    """The blocks of :func:`_sampler`: :data:`_FIRST_BLOCK` numbers, then twice as many
    each time, up to :data:`_BLOCK`."""
    rng: np.random.Generator | None = None
    n = _FIRST_BLOCK
    while True:
        made, source, rng = _draw_from(source, rng)
        yield draw(made, n).tolist()
        n = _next_block(n)


def make_sampler(spec: DistSpec, rng: RngSource) -> Callable[[], float]:
    """Build a sampler (a no-argument callable returning seconds) for ``spec``.

    ``rng`` is the generator, or a function that makes it at the first draw.

    Lognormal and gamma are parameterised by mean and coefficient of variation:
    lognormal sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2; gamma shape = 1 / cv^2.
    """
    mean = spec.mean_s
    match spec.dist:
        case "constant":
            return lambda: mean
        case "exponential":
            return _sampler(rng, lambda g, n: g.exponential(mean, n))
        case "erlang":
            assert spec.k is not None
            k = spec.k
            return _sampler(rng, lambda g, n: g.gamma(k, mean / k, n))
        case "gamma":
            assert spec.cv is not None
            shape = 1.0 / spec.cv**2
            return _sampler(rng, lambda g, n: g.gamma(shape, mean / shape, n))
        case "lognormal":
            assert spec.cv is not None
            if spec.cv == 0 or mean == 0:
                return lambda: mean
            sigma2 = math.log1p(spec.cv**2)
            mu = math.log(mean) - sigma2 / 2.0
            sigma = math.sqrt(sigma2)
            return _sampler(rng, lambda g, n: g.lognormal(mu, sigma, n))
        case "uniform":
            assert spec.low is not None and spec.high is not None
            low, high = spec.low, spec.high
            return _sampler(rng, lambda g, n: g.uniform(low, high, n))
    raise AssertionError(f"unknown distribution {spec.dist}")  # pragma: no cover
