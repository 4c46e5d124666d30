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


Words4 = tuple[int, int, int, int]
"""A 128-bit number as four 32-bit words, lowest first (each a small integer: the compiled
core works them as machine integers, where a 128-bit one goes through Python's long
integers)."""
Words8 = tuple[int, int, int, int, int, int, int, int]


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
        h = [run.hash]
        for _ in range(4):
            h.append((h[-1] * _MULT_A) & _MASK32)
        self._add_xor: Words4 = (h[0], h[1], h[2], h[3])
        """Per pool word: the value the added word is xored with before its multiplier."""
        self._add_mult: Words4 = (h[1], h[2], h[3], h[4])
        left = [_mul32(_MIX_MULT_L, word) for word in run.pool]
        self._left: Words4 = (left[0], left[1], left[2], left[3])
        """Per pool word: the run pool's side of its mix (modulo 2**32)."""
        c = [_INIT_B]
        for _ in range(8):
            c.append((c[-1] * _MULT_B) & _MASK32)
        self._word_xor: Words8 = (c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7])
        """Per generated 32-bit word of ``generate_state``: its xor and its multiplier."""
        self._word_mult: Words8 = (c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8])

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
        return pcg64_seed(list(self.words(crc)))

    def words(self, crc: int) -> Words8:
        """The first eight 32-bit words of ``generate_state`` of the source's pool (the
        source whose name's CRC-32 is ``crc``)."""
        ax0, ax1, ax2, ax3 = self._add_xor
        am0, am1, am2, am3 = self._add_mult
        l0, l1, l2, l3 = self._left
        p0 = _pool_word(crc, ax0, am0, l0)
        p1 = _pool_word(crc, ax1, am1, l1)
        p2 = _pool_word(crc, ax2, am2, l2)
        p3 = _pool_word(crc, ax3, am3, l3)
        x0, x1, x2, x3, x4, x5, x6, x7 = self._word_xor
        m0, m1, m2, m3, m4, m5, m6, m7 = self._word_mult
        return (
            _state_word(p0, x0, m0),
            _state_word(p1, x1, m1),
            _state_word(p2, x2, m2),
            _state_word(p3, x3, m3),
            _state_word(p0, x4, m4),
            _state_word(p1, x5, m5),
            _state_word(p2, x6, m6),
            _state_word(p3, x7, m7),
        )

    def start(self, crc: int) -> Words8:
        """:meth:`seed` in 32-bit words: the first state's four, then the increment's four
        (:data:`Words4`)."""
        w0, w1, w2, w3, w4, w5, w6, w7 = self.words(crc)
        # as pcg64_seed: the initial state is the 64-bit words (w1 w0, w3 w2), high first,
        # and the increment twice the stream (w5 w4, w7 w6) plus one
        i0 = ((w6 << 1) & _MASK32) | 1
        i1 = ((w7 << 1) & _MASK32) | (w6 >> 31)
        i2 = ((w4 << 1) & _MASK32) | (w7 >> 31)
        i3 = ((w5 << 1) & _MASK32) | (w4 >> 31)
        t0 = i0 + w2
        t1 = i1 + w3 + (t0 >> 32)
        t2 = i2 + w0 + (t1 >> 32)
        t3 = i3 + w1 + (t2 >> 32)
        s0, s1, s2, s3 = pcg_step(
            t0 & _MASK32, t1 & _MASK32, t2 & _MASK32, t3 & _MASK32, i0, i1, i2, i3
        )
        return s0, s1, s2, s3, i0, i1, i2, i3


def _pool_word(crc: int, xor: int, mult: int, left: int) -> int:
    """One word of a source's pool: the run pool's word (its side ``left`` of the mix)
    with the name's word ``crc`` hashed in (``xor`` and ``mult``: the hash constants)."""
    value = _mul32(crc ^ xor, mult)
    value ^= value >> 16
    mixed = (left - _mul32(_MIX_MULT_R, value)) & _MASK32
    return mixed ^ (mixed >> 16)


def _state_word(pool: int, xor: int, mult: int) -> int:
    """One 32-bit word of ``generate_state`` from a pool word and its constants."""
    value = _mul32(pool ^ xor, mult)
    return value ^ (value >> 16)


# PCG_MULT in 16-bit limbs, lowest first
_M0: Final = 63045
_M1: Final = 40908
_M2: Final = 57188
_M3: Final = 17285
_M4: Final = 23972
_M5: Final = 8134
_M6: Final = 60677
_M7: Final = 9056


def pcg_step(s0: int, s1: int, s2: int, s3: int, i0: int, i1: int, i2: int, i3: int) -> Words4:
    """PCG64's step, ``state * PCG_MULT + inc`` modulo 2**128, in 32-bit words (state
    ``s0..s3``, increment ``i0..i3``, lowest first; :data:`Words4`).

    The state's 16-bit limbs times the multiplier's (products below 2**32: the compiled
    core multiplies two numbers as machine integers only when both are below 2**30) are
    summed per 16-bit column, and each column's carry is passed up."""
    a0, a1, a2, a3 = s0 & 0xFFFF, s0 >> 16, s1 & 0xFFFF, s1 >> 16
    a4, a5, a6, a7 = s2 & 0xFFFF, s2 >> 16, s3 & 0xFFFF, s3 >> 16
    c0 = a0 * _M0 + i0
    c1 = a0 * _M1 + a1 * _M0 + (c0 >> 16)
    c2 = a0 * _M2 + a1 * _M1 + a2 * _M0 + i1 + (c1 >> 16)
    c3 = a0 * _M3 + a1 * _M2 + a2 * _M1 + a3 * _M0 + (c2 >> 16)
    c4 = a0 * _M4 + a1 * _M3 + a2 * _M2 + a3 * _M1 + a4 * _M0 + i2 + (c3 >> 16)
    c5 = a0 * _M5 + a1 * _M4 + a2 * _M3 + a3 * _M2 + a4 * _M1 + a5 * _M0 + (c4 >> 16)
    c6 = (
        a0 * _M6 + a1 * _M5 + a2 * _M4 + a3 * _M3 + a4 * _M2 + a5 * _M1 + a6 * _M0 + i3 + (c5 >> 16)
    )
    c7 = (
        a0 * _M7
        + a1 * _M6
        + a2 * _M5
        + a3 * _M4
        + a4 * _M3
        + a5 * _M2
        + a6 * _M1
        + a7 * _M0
        + (c6 >> 16)
    )
    return (
        (c0 & 0xFFFF) | ((c1 & 0xFFFF) << 16),
        (c2 & 0xFFFF) | ((c3 & 0xFFFF) << 16),
        (c4 & 0xFFFF) | ((c5 & 0xFFFF) << 16),
        (c6 & 0xFFFF) | ((c7 & 0xFFFF) << 16),
    )


def pcg_double(s0: int, s1: int, s2: int, s3: int) -> float:
    """The U(0, 1) draw of PCG64 state ``s0..s3`` (32-bit words, lowest first), as numpy's
    ``next_double`` gives it: the XSL-RR output (the state's two 64-bit halves xored,
    rotated right by its top six bits), its top 53 bits times 2**-53."""
    lo = s0 ^ s2
    hi = s1 ^ s3
    rot = s3 >> 26
    if rot >= 32:  # a rotation by 32 swaps the halves
        lo, hi = hi, lo
        rot -= 32
    if rot:
        back = 32 - rot
        mask = (1 << rot) - 1
        lo, hi = (lo >> rot) | ((hi & mask) << back), (hi >> rot) | ((lo & mask) << back)
    return ((hi << 21) | (lo >> 11)) * TO_DOUBLE


def _mul32(a: int, b: int) -> int:
    """``a * b`` modulo 2**32 for 32-bit ``a`` and ``b``, from products of their 16-bit
    halves (the compiled core multiplies those as machine integers, where the whole
    product would go through Python's long integers)."""
    a_low, a_high = a & 0xFFFF, a >> 16
    b_low, b_high = b & 0xFFFF, b >> 16
    return (a_low * b_low + (((a_high * b_low + a_low * b_high) & 0xFFFF) << 16)) & _MASK32
