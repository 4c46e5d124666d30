"""Seeding the random streams of a run: numpy's ``SeedSequence`` and PCG64 in plain integers.

Every source of randomness in a run draws from the PCG64 generator that
``PCG64(SeedSequence(seed, spawn_key=(replicate, crc32(name))))`` makes
(:mod:`sanpath.sim.streams`). A thousand hosts on 64 LUNs have tens of thousands of sources,
so their first states are worked out here from the run's seed pool (:class:`SeedPool`, mixed
once per run) and each name's CRC-32 alone (:class:`SourceSeeds`), to the last bit as numpy
would, and a stream can step its PCG64 itself (:data:`PCG_MULT`: numpy's multiplier).
"""

from __future__ import annotations

from typing import Any, Final

import numpy as np
import numpy.typing as npt

_MASK32: Final = 0xFFFFFFFF
_INIT_A: Final = 0x43B0D7E5
_MULT_A: Final = 0x931E8875
_INIT_B: Final = 0x8B51F9DD
_MULT_B: Final = 0x58F38DED
_MIX_MULT_L: Final = 0xCA01F9DD
_MIX_MULT_R: Final = 0x4973F715


def words(n: int) -> list[int]:
    """``n`` as 32-bit words, lowest first (0 is one word), as SeedSequence reads an int."""
    if n < 0:
        raise ValueError(f"seeds and replicates are non-negative integers, not {n}")
    if n == 0:
        return [0]
    out = []
    while n > 0:
        out.append(n & _MASK32)
        n >>= 32
    return out


class SeedPool:
    """numpy's ``SeedSequence`` hash pool (Melissa O'Neill's seed_seq), in plain integers.

    ``SeedSequence(seed, spawn_key=(replicate, crc))`` mixes the seed's words (padded to the
    pool's four) and then each spawn-key word into the pool, in that order. The part that
    depends on the seed and the replicate is the same for every source of a run, so it is
    mixed once (:class:`~sanpath.sim.streams.Streams`), and a source adds only its name's
    word: the same state in a fraction of the time (a thousand hosts have thousands of
    sources).
    """

    __slots__ = ("hash", "pool")

    def __init__(self, pool: list[int], hash_const: int) -> None:
        self.pool = pool
        self.hash = hash_const

    @classmethod
    def of_run(cls, entropy: list[int]) -> SeedPool:
        """The pool after the run entropy ``entropy`` (at least four words)."""
        out = cls([0, 0, 0, 0], _INIT_A)
        pool = out.pool
        for i in range(4):
            pool[i] = out._hashmix(entropy[i])
        for src in range(4):
            for dst in range(4):
                if src != dst:
                    pool[dst] = _mix(pool[dst], out._hashmix(pool[src]))
        for word in entropy[4:]:
            out.add(word)
        return out

    def _hashmix(self, value: int) -> int:
        value ^= self.hash
        self.hash = (self.hash * _MULT_A) & _MASK32
        value = (value * self.hash) & _MASK32
        return value ^ (value >> 16)

    def add(self, word: int) -> None:
        """Mix one more entropy word into every pool word."""
        pool = self.pool
        for dst in range(4):
            pool[dst] = _mix(pool[dst], self._hashmix(word))

    def copy(self) -> SeedPool:
        return SeedPool(list(self.pool), self.hash)

    def words(self, count: int) -> list[int]:
        """The first ``count`` 32-bit words of ``generate_state``, as integers."""
        hash_const = _INIT_B
        pool = self.pool
        words = []
        for i in range(count):
            value = pool[i % 4] ^ hash_const
            hash_const = (hash_const * _MULT_B) & _MASK32
            value = (value * hash_const) & _MASK32
            words.append(value ^ (value >> 16))
        return words

    def generate_state(self, n_words: int, dtype: npt.DTypeLike = np.uint32) -> np.ndarray:
        """``SeedSequence.generate_state``: ``n_words`` words of ``dtype`` (uint32, uint64)."""
        wide = np.dtype(dtype) == np.dtype(np.uint64)
        words = self.words(2 * n_words if wide else n_words)
        if wide:  # little-endian word pairs, as numpy views them
            return np.array(
                [words[2 * i] | (words[2 * i + 1] << 32) for i in range(n_words)], dtype=np.uint64
            )
        return np.array(words, dtype=np.uint32)


def _mix(x: int, y: int) -> int:
    result = (_MIX_MULT_L * x - _MIX_MULT_R * y) & _MASK32
    return result ^ (result >> 16)


np.random.bit_generator.ISeedSequence.register(SeedPool)


PcgState = Any
"""A PCG64 ``state`` dict (numpy types it with a TypedDict that exists only for type
checkers)."""

PCG_MULT: Final = (2549297995355413924 << 64) + 4865540595714422341
"""PCG64's 128-bit multiplier (PCG_DEFAULT_MULTIPLIER_128)."""
MASK128: Final = (1 << 128) - 1
MASK64: Final = (1 << 64) - 1
TO_DOUBLE: Final = 1.0 / 9007199254740992.0
"""2**-53: numpy's ``next_double`` keeps a 64-bit draw's top 53 bits and scales them."""


def pcg64_seed(w: list[int]) -> tuple[int, int]:
    """The 128-bit state and increment ``numpy.random.PCG64(pool)`` starts with, from the
    first eight 32-bit words ``w`` of the pool's ``generate_state``.

    numpy seeds PCG64 from four 64-bit words of ``generate_state`` (each two 32-bit ones,
    low first): the first two are the initial state, the last two the stream
    (``pcg64_set_seed``, then PCG's ``srandom_r``: state 0, increment ``2 * stream + 1``, a
    step, the initial state added, another step)."""
    initial = (((w[1] << 32) | w[0]) << 64) | (w[3] << 32) | w[2]
    stream = (((w[5] << 32) | w[4]) << 64) | (w[7] << 32) | w[6]
    inc = ((stream << 1) | 1) & MASK128
    state = (((inc + initial) & MASK128) * PCG_MULT + inc) & MASK128
    return state, inc


class SourceSeeds:
    """The first PCG64 state of any source of one run, from its name's word alone.

    A source's pool is the run's (:class:`SeedPool`) with one word more mixed in, and the
    hash constants that mixing and ``generate_state`` multiply through are the same for
    every source of the run: they are worked out here once, with the run pool's part of
    each mix, so a source's state costs a dozen multiplications (a thousand hosts on 64
    LUNs seed tens of thousands of sources). The state is exactly what
    ``PCG64(SeedSequence(seed, spawn_key=(replicate, crc)))`` starts in.
    """

    __slots__ = ("_add_mult", "_add_xor", "_left", "_word_mult", "_word_xor")

    def __init__(self, run: SeedPool) -> None:
        hashes = [run.hash]
        for _ in range(4):
            hashes.append((hashes[-1] * _MULT_A) & _MASK32)
        self._add_xor = tuple(hashes[:4])
        """Per pool word: the value the added word is xored with before its multiplier."""
        self._add_mult = tuple(hashes[1:])
        self._left = tuple(_mul32(_MIX_MULT_L, word) for word in run.pool)
        """Per pool word: the run pool's side of its mix (modulo 2**32)."""
        consts = [_INIT_B]
        for _ in range(8):
            consts.append((consts[-1] * _MULT_B) & _MASK32)
        self._word_xor = tuple(consts[:8])
        """Per generated 32-bit word of ``generate_state``: its xor and its multiplier."""
        self._word_mult = tuple(consts[1:])

    def state(self, crc: int) -> PcgState:
        """The first state of the source whose name's CRC-32 is ``crc`` (numpy's dict)."""
        state, inc = self.seed(crc)
        return {
            "bit_generator": "PCG64",
            "state": {"state": state, "inc": inc},
            "has_uint32": 0,
            "uinteger": 0,
        }

    def seed(self, crc: int) -> tuple[int, int]:
        """The first 128-bit state and the increment of the source whose name's CRC-32 is
        ``crc``."""
        add_xor, add_mult, left = self._add_xor, self._add_mult, self._left
        pool = [0, 0, 0, 0]
        for i in range(4):
            value = _mul32(crc ^ add_xor[i], add_mult[i])
            value ^= value >> 16
            mixed = (left[i] - _mul32(_MIX_MULT_R, value)) & _MASK32
            pool[i] = mixed ^ (mixed >> 16)
        word_xor, word_mult = self._word_xor, self._word_mult
        w = [0] * 8
        for i in range(8):
            value = _mul32(pool[i & 3] ^ word_xor[i], word_mult[i])
            w[i] = value ^ (value >> 16)
        return pcg64_seed(w)


def _mul32(a: int, b: int) -> int:
    """``a * b`` modulo 2**32 for 32-bit ``a`` and ``b``, from products of their 16-bit
    halves (the compiled core multiplies those as machine integers, where the whole
    product would go through Python's long integers)."""
    a_low, a_high = a & 0xFFFF, a >> 16
    b_low, b_high = b & 0xFFFF, b >> 16
    return (a_low * b_low + (((a_high * b_low + a_low * b_high) & 0xFFFF) << 16)) & _MASK32
