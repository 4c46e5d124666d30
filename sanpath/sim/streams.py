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

import numpy as np

from sanpath.layout import AccessModel
from sanpath.spec import DistSpec

_BLOCK = 2048


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

    def uniform(self, name: str) -> UniformStream:
        """A buffered stream of U(0, 1) draws for the source called ``name``."""
        return UniformStream(self.generator(name))

    def sampler(self, spec: DistSpec, name: str) -> Callable[[], float]:
        """A function returning one service time (seconds) per call, drawn from ``spec``."""
        return make_sampler(spec, self.generator(name))


class UniformStream:
    """U(0, 1) draws taken from a numpy generator in blocks (cheap per call)."""

    __slots__ = ("_buf", "_i", "_rng")

    def __init__(self, rng: np.random.Generator) -> None:
        self._rng = rng
        self._buf: list[float] = []
        self._i = 0

    def __call__(self) -> float:
        """Return the next draw."""
        i = self._i
        if i >= len(self._buf):
            self._buf = self._rng.random(_BLOCK).tolist()
            i = 0
        self._i = i + 1
        return self._buf[i]


class BlockStream:
    """Block indices of an access distribution, drawn in vectorised blocks.

    Each refill maps ``_BLOCK`` uniform draws of the generator through the distribution's
    inverse (:meth:`sanpath.layout.AccessModel.blocks_of`), so a call costs a list index.
    """

    __slots__ = ("_buf", "_i", "_model", "_rng")

    def __init__(self, model: AccessModel, rng: np.random.Generator) -> None:
        self._model = model
        self._rng = rng
        self._buf: list[int] = []
        self._i = 0

    def __call__(self) -> int:
        """Return the next block index (0 .. blocks - 1)."""
        i = self._i
        if i >= len(self._buf):
            self._buf = self._model.blocks_of(self._rng.random(_BLOCK)).tolist()
            i = 0
        self._i = i + 1
        return self._buf[i]


class _BlockSampler:
    """Draws from a vectorised numpy sampler in blocks."""

    __slots__ = ("_buf", "_draw", "_i")

    def __init__(self, draw: Callable[[int], np.ndarray]) -> None:
        self._draw = draw
        self._buf: list[float] = []
        self._i = 0

    def __call__(self) -> float:
        i = self._i
        if i >= len(self._buf):
            self._buf = self._draw(_BLOCK).tolist()
            i = 0
        self._i = i + 1
        return self._buf[i]


def make_sampler(spec: DistSpec, rng: np.random.Generator) -> Callable[[], float]:
    """Build a sampler (a no-argument callable returning seconds) for ``spec``.

    Lognormal and gamma are parameterised by mean and coefficient of variation:
    lognormal sigma^2 = ln(1 + cv^2), mu = ln(mean) - sigma^2 / 2; gamma shape = 1 / cv^2.
    """
    mean = spec.mean_s
    match spec.dist:
        case "constant":
            return lambda: mean
        case "exponential":
            return _BlockSampler(lambda n: rng.exponential(mean, n))
        case "erlang":
            assert spec.k is not None
            k = spec.k
            return _BlockSampler(lambda n: rng.gamma(k, mean / k, n))
        case "gamma":
            assert spec.cv is not None
            shape = 1.0 / spec.cv**2
            return _BlockSampler(lambda n: rng.gamma(shape, mean / shape, n))
        case "lognormal":
            assert spec.cv is not None
            if spec.cv == 0 or mean == 0:
                return lambda: mean
            sigma2 = math.log1p(spec.cv**2)
            mu = math.log(mean) - sigma2 / 2.0
            sigma = math.sqrt(sigma2)
            return _BlockSampler(lambda n: rng.lognormal(mu, sigma, n))
        case "uniform":
            assert spec.low is not None and spec.high is not None
            low, high = spec.low, spec.high
            return _BlockSampler(lambda n: rng.uniform(low, high, n))
    raise AssertionError(f"unknown distribution {spec.dist}")  # pragma: no cover
