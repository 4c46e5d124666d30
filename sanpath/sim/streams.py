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
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from functools import partial

import numpy as np

from sanpath.layout import AccessModel
from sanpath.spec import DistSpec

_BLOCK = 2048
"""Draws a stream takes from its generator at once, at most."""
_FIRST_BLOCK = 16
"""Draws of a stream's first refill; each refill doubles it, up to :data:`_BLOCK`.

A numpy generator gives the same numbers whatever the block sizes it is asked for (every draw
consumes its bit stream in order), so the values a stream yields do not depend on them; a
source that draws only a few numbers (one host of a thousand on one LUN) holds a few numbers
rather than a block of 2,048 (64 KiB as a list)."""

RngSource = np.random.Generator | Callable[[], np.random.Generator]
"""A generator, or a function that makes it when the first number is drawn."""


def _next_block(n: int) -> int:
    return n * 2 if n < _BLOCK else _BLOCK


class Streams:
    """Factory of named generators for one run (``seed``, ``replicate``)."""

    def __init__(self, seed: int, replicate: int = 0) -> None:
        self.seed = seed
        self.replicate = replicate

    def generator(self, name: str) -> np.random.Generator:
        """A fresh generator for the source called ``name``."""
        key = (self.replicate, zlib.crc32(name.encode("utf-8")))
        return np.random.Generator(
            np.random.PCG64(np.random.SeedSequence(self.seed, spawn_key=key))
        )

    def lazy(self, name: str) -> Callable[[], np.random.Generator]:
        """A function making the generator of ``name`` when called (seeding costs tens of
        microseconds: a source that never draws never pays it)."""
        return partial(self.generator, name)

    def uniform(self, name: str) -> UniformStream:
        """A buffered stream of U(0, 1) draws for the source called ``name`` (its generator
        is made at the first draw)."""
        return UniformStream(self.lazy(name))

    def sampler(self, spec: DistSpec, name: str) -> Callable[[], float]:
        """A function returning one service time (seconds) per call, drawn from ``spec``
        (its generator is made at the first draw; a constant draws nothing)."""
        return make_sampler(spec, self.lazy(name))


def _rng(source: RngSource | None) -> np.random.Generator:
    """The generator of ``source`` (made now if it is a function)."""
    assert source is not None
    return source if isinstance(source, np.random.Generator) else source()


class UniformStream:
    """U(0, 1) draws taken from a numpy generator in blocks (cheap per call).

    ``rng`` is the generator, or a function that makes it at the first draw; blocks grow
    from :data:`_FIRST_BLOCK` to :data:`_BLOCK` draws.
    """

    __slots__ = ("_buf", "_i", "_n", "_rng", "_source")

    def __init__(self, rng: RngSource) -> None:
        self._source: RngSource | None = rng
        self._rng: np.random.Generator | None = None
        self._buf: list[float] = []
        self._i = 0
        self._n = _FIRST_BLOCK

    def __call__(self) -> float:
        """Return the next draw."""
        i = self._i
        if i >= len(self._buf):
            self._refill()
            i = 0
        self._i = i + 1
        return self._buf[i]

    def _refill(self) -> None:
        rng = self._rng
        if rng is None:
            rng = self._rng = _rng(self._source)
            self._source = None  # the seeding function is not needed again
        n = self._n
        self._buf = rng.random(n).tolist()
        self._n = _next_block(n)


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
        rng = self._rng
        if rng is None:
            rng = self._rng = _rng(self._source)
            self._source = None  # the seeding function is not needed again
        n = self._n
        self._buf = self._model.blocks_of(rng.random(n)).tolist()
        self._n = _next_block(n)


class _BlockSampler:
    """Draws from a vectorised numpy sampler in growing blocks (``draw(rng, n)``)."""

    __slots__ = ("_buf", "_draw", "_i", "_n", "_rng", "_source")

    def __init__(
        self, source: RngSource, draw: Callable[[np.random.Generator, int], np.ndarray]
    ) -> None:
        self._source: RngSource | None = source
        self._rng: np.random.Generator | None = None
        self._draw = draw
        self._buf: list[float] = []
        self._i = 0
        self._n = _FIRST_BLOCK

    def __call__(self) -> float:
        i = self._i
        if i >= len(self._buf):
            self._refill()
            i = 0
        self._i = i + 1
        return self._buf[i]

    def _refill(self) -> None:
        rng = self._rng
        if rng is None:
            rng = self._rng = _rng(self._source)
            self._source = None  # the seeding function is not needed again
        n = self._n
        self._buf = self._draw(rng, n).tolist()
        self._n = _next_block(n)


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
            return _BlockSampler(rng, lambda g, n: g.exponential(mean, n))
        case "erlang":
            assert spec.k is not None
            k = spec.k
            return _BlockSampler(rng, lambda g, n: g.gamma(k, mean / k, n))
        case "gamma":
            assert spec.cv is not None
            shape = 1.0 / spec.cv**2
            return _BlockSampler(rng, lambda g, n: g.gamma(shape, mean / shape, n))
        case "lognormal":
            assert spec.cv is not None
            if spec.cv == 0 or mean == 0:
                return lambda: mean
            sigma2 = math.log1p(spec.cv**2)
            mu = math.log(mean) - sigma2 / 2.0
            sigma = math.sqrt(sigma2)
            return _BlockSampler(rng, lambda g, n: g.lognormal(mu, sigma, n))
        case "uniform":
            assert spec.low is not None and spec.high is not None
            low, high = spec.low, spec.high
            return _BlockSampler(rng, lambda g, n: g.uniform(low, high, n))
    raise AssertionError(f"unknown distribution {spec.dist}")  # pragma: no cover
