"""Counter-based index generators: a tile is a pure function of (seed, instance number).

The hash is written once here (vectorised NumPy, wrapping integer arithmetic) and once in
``cuda_src/counter_rng.cuh`` (C++/CUDA, usable inside kernels so indices need no memory
traffic); ``tests/test_fuzz_rng.py`` checks the two agree bit for bit:

    key(seed, n)  = mix64(mix64(seed) + n * G1)            SplitMix64 finaliser, once per tile
    h(seed, n, e) = hash32(lo32(key) + (e+1)*G32)           Wellons' lowbias32, per element,
                  | hash32(hi32(key) + (e+1)*G32) << 32     twice (two 32-bit halves)

Why not Philox4x32-10: it costs ~20 multiplies per element; this costs 4 (32-bit, which vector
units do 16 at a time), which is what lets the fused native campaign reach millions of tiles
per second. The per-tile key is a full 64-bit SplitMix64 value, so tiles are independent;
within a tile the two 32-bit hashes give 64 bits per element. Each generator turns ``h`` into
an index value (int64, then cast to the index dtype by wrapping): see :data:`KINDS`.
"""
from __future__ import annotations

import ctypes
from typing import Callable, Sequence

import numpy as np

G1 = np.uint64(0x9E3779B97F4A7C15)
G32 = np.uint32(0x9E3779B9)
M1 = np.uint64(0xBF58476D1CE4E5B9)
M2 = np.uint64(0x94D049BB133111EB)
U32 = np.uint64(0xFFFFFFFF)

# Generator kinds; the same numbers are GEN_* in counter_rng.cuh.
KINDS = {
    "uniform": 0,    # [0, cap)
    "oob": 1,        # [cap, 2*cap)
    "negative": 2,   # [-cap, -1]
    "extreme": 3,    # INT32_MIN, -1, 2^31-1, 2^32-1 (by bits 16-17 of hi)
    "boundary": 4,   # cap-1, cap, cap+1 (by the low 16 bits of hi)
    "dup": 5,        # one of 4 values in [0, cap) fixed per tile (heavy duplicates)
    "mixed": 6,      # per element, by the top byte of hi: 50% uniform, ~10% each other kind
    "edge": 9,       # uniform, but element (lo32(key) >> 4) & 15 is cap-2 .. cap+17: exactly one
                     # index of a tile of 16 or more at the capacity edge (or the end of GM)
}
# Value kinds: drawn here only (no kernel generates them, so a campaign of one runs the batch
# path). "edges": per element, half the time one of every type's edge patterns
# (execution/edges.edge_words: a word cast to a type of its width is one of its edges), else any
# 64 bits.
VALUE_KINDS = ("edges",)
EXTREMES = np.array([-(1 << 31), -1, (1 << 31) - 1, (1 << 32) - 1], np.int64)
# Cumulative thresholds on the top byte of h for "mixed" (uniform, oob, negative, extreme,
# boundary, dup).
MIXED_CUTS = (128, 154, 180, 205, 230, 256)


def mix64(z: np.ndarray) -> np.ndarray:
    """The SplitMix64 finaliser (uint64 in, uint64 out)."""
    z = np.asarray(z, np.uint64)
    with np.errstate(over="ignore"):
        z = (z ^ (z >> np.uint64(30))) * M1
        z = (z ^ (z >> np.uint64(27))) * M2
    return z ^ (z >> np.uint64(31))


def mix64_inplace(z: np.ndarray) -> np.ndarray:
    """:func:`mix64` overwriting ``z`` (a uint64 array): one temporary instead of five, for
    the digest's whole-matrix passes."""
    t = np.empty_like(z)
    with np.errstate(over="ignore"):
        for s, m in ((30, M1), (27, M2)):
            np.right_shift(z, np.uint64(s), out=t)
            z ^= t
            z *= m
        np.right_shift(z, np.uint64(31), out=t)
        z ^= t
    return z


def instance_keys(seed: int, inst: np.ndarray) -> np.ndarray:
    s = mix64(np.uint64(int(seed) & 0xFFFFFFFFFFFFFFFF))
    with np.errstate(over="ignore"):
        return mix64(s + np.asarray(inst, np.uint64) * G1)


def hash32(x: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Wellons' lowbias32 (uint32 in, uint32 out); ``out``: write there (may be ``x``)."""
    x = np.asarray(x, np.uint32)
    t = x >> np.uint32(16)
    y = np.bitwise_xor(x, t, out=out)               # in place from here: one temporary
    np.multiply(y, np.uint32(0x7FEB352D), out=y)
    np.right_shift(y, np.uint32(15), out=t)
    np.bitwise_xor(y, t, out=y)
    np.multiply(y, np.uint32(0x846CA68B), out=y)
    np.right_shift(y, np.uint32(16), out=t)
    np.bitwise_xor(y, t, out=y)
    return y


def half32(keys: np.ndarray, n_elem: int, high: bool) -> np.ndarray:
    """One uint32 half (``high``: hi, else lo) of the words of the tiles with these keys."""
    keys = np.asarray(keys, np.uint64)
    with np.errstate(over="ignore"):
        c = (np.arange(1, n_elem + 1, dtype=np.uint32) * G32)[None, :]
        k = (keys >> np.uint64(32)) if high else keys
        x = k.astype(np.uint32)[:, None] + c
        return hash32(x, out=x)


def words32(keys: np.ndarray, n_elem: int) -> tuple[np.ndarray, np.ndarray]:
    """(lo, hi): the two uint32 halves of the words of the tiles with these keys."""
    return half32(keys, n_elem, False), half32(keys, n_elem, True)


HALVES = {0: "lo", 1: "lo", 2: "lo", 3: "hi", 4: "hi", 5: "hi"}
"""The word half a generator kind reads (the others read both): the other is not computed."""


def halves(kind: int, keys: np.ndarray, n_elem: int) -> tuple[np.ndarray | None, np.ndarray | None]:
    """(lo, hi) of what ``kind`` reads; None for a half it does not."""
    need = HALVES.get(kind, "both")
    lo = half32(keys, n_elem, False) if need != "hi" else None
    hi = half32(keys, n_elem, True) if need != "lo" else None
    return lo, hi


def words(keys: np.ndarray, n_elem: int) -> np.ndarray:
    """(len(keys), n_elem) uint64 words h of the tiles with these keys."""
    lo, hi = words32(keys, n_elem)
    return lo.astype(np.uint64) | (hi.astype(np.uint64) << np.uint64(32))


def hashes(seed: int, inst: np.ndarray, n_elem: int) -> np.ndarray:
    """(len(inst), n_elem) uint64 words."""
    return words(instance_keys(seed, inst), n_elem)


def _mulhi(x32: np.ndarray, cap: int) -> np.ndarray:
    """floor(x32 * cap / 2^32): a value in [0, cap) from 32 random bits (Lemire)."""
    return ((x32 & U32) * np.uint64(cap & 0xFFFFFFFF)) >> np.uint64(32)


def values(kind: int, h: np.ndarray, keys: np.ndarray, cap: int) -> np.ndarray:
    """Index values (int64) of generator ``kind`` from words ``h`` (rows = instances)."""
    h = np.asarray(h, np.uint64)
    return values32(kind, (h & U32).astype(np.uint32), (h >> np.uint64(32)).astype(np.uint32), keys, cap)


def values32(kind: int, lo: np.ndarray, hi: np.ndarray, keys: np.ndarray, cap: int) -> np.ndarray:
    """Index values (int64) of generator ``kind`` from the word halves ``lo``, ``hi`` (uint32)."""
    cap = int(cap) & 0xFFFFFFFF
    shape = (lo if lo is not None else hi).shape
    if kind in (3, 5):
        j = (hi >> np.uint32(16)) & np.uint32(3)

    def u():
        t = lo.astype(np.uint64)
        np.multiply(t, np.uint64(cap), out=t)
        np.right_shift(t, np.uint64(32), out=t)
        return t.view(np.int64)

    def bnd():
        return cap - 1 + (((hi & np.uint32(0xFFFF)) * np.uint32(3)) >> np.uint32(16)).astype(np.int64)

    def dup():
        kk = np.asarray(keys, np.uint64)
        if kk.shape == shape:
            return _dup(kk, j, cap)
        dv = _dup(kk.reshape(-1, 1), np.arange(4)[None, :], cap)           # (instances, 4)
        return np.take_along_axis(dv, j.reshape(dv.shape[0], -1).astype(np.intp), 1).reshape(shape)

    if kind == 6:
        # The kind of every element from comparisons on the top byte of hi (uint8 lanes);
        # uniform (half of them), oob and negative by arithmetic on the uniform value (no
        # masked ufuncs: they cost 4x a plain pass); the
        # rarer kinds (extreme, boundary, dup: ~10% each) on their own elements only.
        top = (hi >> np.uint32(24)).astype(np.uint8)
        k = (top >= np.uint8(MIXED_CUTS[0])).view(np.uint8)
        for cut in MIXED_CUTS[1:-1]:
            k += (top >= np.uint8(cut)).view(np.uint8)
        out = u()
        out += (k == 1) * np.int64(cap)
        out ^= -(k == 2).view(np.int8)              # -1 - u == ~u: xor with 0 or -1
        e = np.flatnonzero(k >= 3)
        if e.size:
            ke, he = k.reshape(-1).take(e), hi.reshape(-1).take(e)
            je = ((he >> np.uint32(16)) & np.uint32(3)).astype(np.intp)
            v = EXTREMES.take(je)
            bnd_v = (((he & np.uint32(0xFFFF)) * np.uint32(3)) >> np.uint32(16)).astype(np.int64)
            bnd_v += cap - 1
            np.copyto(v, bnd_v, where=ke == 4)
            d = np.flatnonzero(ke == 5)
            if d.size:
                kk = np.asarray(keys, np.uint64)
                if kk.shape == shape:
                    v[d] = _dup(kk.reshape(-1)[e[d]], je[d], cap)
                else:
                    dv = _dup(kk.reshape(-1, 1), np.arange(4)[None, :], cap).reshape(-1)   # (instances*4)
                    per = int(np.prod(shape[1:])) if len(shape) > 1 else 1
                    v[d] = dv[(e[d] // per) * 4 + je[d]]
            out.reshape(-1)[e] = v
        return out
    if kind == 9:
        kk = np.asarray(keys, np.uint64)
        pos = ((kk & U32) >> np.uint64(4)) & np.uint64(15)
        e = np.arange(shape[-1], dtype=np.uint64) if len(shape) else np.zeros(1, np.uint64)
        at = e == (pos if kk.shape == shape else pos.reshape(-1, *([1] * (len(shape) - 1))))
        edge = cap - 2 + (((hi & np.uint32(0xFFFF)) * np.uint32(20)) >> np.uint32(16)).astype(np.int64)
        return np.where(at, edge, u())
    if kind == 0:
        return u()
    if kind == 1:
        return cap + u()
    if kind == 2:
        return -1 - u()
    if kind == 3:
        return EXTREMES[j]
    if kind == 4:
        return bnd()
    if kind == 5:
        return dup()
    raise ValueError(f"unknown generator kind {kind}")


EXTREMES_LO32 = EXTREMES.astype(np.uint32)


def _mulhi32(lo: np.ndarray, cap: int) -> np.ndarray:
    """floor(lo * cap / 2^32) (uint32 in, uint32 out) without 64-bit lanes where exact:
    a shift for a power-of-two cap, 16-bit halves for cap <= 2^16."""
    if cap == 0:
        return np.zeros(lo.shape, np.uint32)
    if not cap & (cap - 1):
        m = cap.bit_length() - 1
        return lo >> np.uint32(32 - m) if m else np.zeros(lo.shape, np.uint32)
    if cap <= 1 << 16:             # lo*cap = a*cap*2^16 + b*cap, every partial sum < 2^32
        a = lo >> np.uint32(16)
        a *= np.uint32(cap)
        b = lo & np.uint32(0xFFFF)
        b *= np.uint32(cap)
        b >>= np.uint32(16)
        a += b
        a >>= np.uint32(16)
        return a
    t = lo.astype(np.uint64)
    t *= np.uint64(cap)
    t >>= np.uint64(32)
    return t.astype(np.uint32)


def values_lo32(kind: int, lo: np.ndarray, hi: np.ndarray, keys: np.ndarray, cap: int) -> np.ndarray:
    """The low 32 bits (uint32) of :func:`values32`, computed in 32-bit lanes: what a 32-bit
    index dtype holds after the wrapping cast, at half the memory traffic of int64 values
    (uniform, oob and negative: floor(lo*cap/2^32), plus cap, or its complement).

    ``mixed`` costs one NumPy pass per operation, so it is written for few passes: uniform,
    oob and negative (70% of the elements) by arithmetic on the whole array (no masked ufuncs,
    no ``where``: both cost ~10 plain passes), the rare kinds (extreme, boundary, dup) on their
    own elements only, each selected by multiplying with a 0/1 lane instead of a branch."""
    cap = int(cap) & 0xFFFFFFFF
    if kind in (0, 1, 2):
        u = _mulhi32(lo, cap)
        if kind == 1:
            with np.errstate(over="ignore"):
                u += np.uint32(cap)
        elif kind == 2:
            np.invert(u, out=u)
        return u
    if kind != 6:
        return values32(kind, lo, hi, keys, cap).astype(np.uint32)
    n = lo.shape[-1] if lo.ndim else 1
    U32, U8 = np.uint32, np.uint8
    with np.errstate(over="ignore"):
        t = hi >> U32(24)                                  # the kind selector (top byte)
        t8 = t.astype(U8)
        out = _mulhi32(lo, cap)                            # uniform: floor(lo * cap / 2^32)
        oob, neg, rare = (t8 >= U8(c) for c in MIXED_CUTS[:3])
        np.bitwise_xor(oob, neg, out=oob)                  # [128, 154): oob = cap + u
        np.bitwise_xor(neg, rare, out=neg)                 # [154, 180): negative = -1 - u = ~u
        np.multiply(oob, U32(cap), out=t)
        out += t
        np.multiply(neg, U32(0xFFFFFFFF), out=t)
        out ^= t
        e = np.flatnonzero(rare)                           # [180, 256): extreme, boundary, dup
        if e.size:
            he = hi.reshape(-1).take(e)
            te = he >> U32(24)
            j = he >> U32(16)
            j &= U32(3)
            v = (j & U32(1)) << U32(31)                    # extreme by j: 0x80000000,
            v += U32(0x7FFFFFFF)                           # 0xFFFFFFFF, 0x7FFFFFFF, 0xFFFFFFFF
            v += j == 0
            b = he & U32(0xFFFF)                           # boundary: cap-1 + (low16*3 >> 16)
            b *= U32(3)
            b >>= U32(16)
            b += U32((cap - 1) & 0xFFFFFFFF)
            b -= v
            b *= te >= U32(MIXED_CUTS[3])                  # v = boundary where te >= 205
            v += b
            kk = np.asarray(keys, np.uint64)
            if kk.shape == lo.shape:                       # a key per word
                d = _dup(kk.reshape(-1)[e], j, cap).astype(U32)
            else:                                          # the tile's 4 values, by (tile, j)
                dv = _dup(kk.reshape(-1, 1), np.arange(4)[None, :], cap).astype(U32).reshape(-1)
                w = e >> (n.bit_length() - 1) if n and not n & (n - 1) else e // max(n, 1)
                w <<= 2
                w += j
                d = dv.take(w)
            d -= v
            d *= te >= U32(MIXED_CUTS[4])                  # v = dup where te >= 230
            v += d
            out.reshape(-1)[e] = v                         # (3x faster than ndarray.put)
    return out


def _dup(keys: np.ndarray, j: np.ndarray, cap: int) -> np.ndarray:
    """The dup kind's value number ``j`` (0..3) of the tiles with these keys."""
    with np.errstate(over="ignore"):
        d = mix64(np.asarray(keys, np.uint64) + np.asarray(j).astype(np.uint64) + np.uint64(1))
    return _mulhi(d & U32, cap).astype(np.int64)


def keys_of(keys: np.ndarray, shape) -> np.ndarray:
    """The tile key of every word: ``keys`` (one per instance) broadcast to ``shape``, or
    already per word."""
    keys = np.asarray(keys, np.uint64)
    if keys.shape == tuple(shape):
        return keys
    return np.broadcast_to(keys.reshape(-1, *([1] * (len(shape) - 1))), shape)


def generate(kind: str | int, seed: int, inst: np.ndarray, n_elem: int, cap: int) -> np.ndarray:
    """Index values (int64, shape (len(inst), n_elem)) of instances ``inst``."""
    k = KINDS[kind] if isinstance(kind, str) else int(kind)
    inst = np.asarray(inst, np.uint64).reshape(-1)
    keys = instance_keys(seed, inst)
    return values32(k, *halves(k, keys, n_elem), keys, cap)


def edge_values(seed: int, inst: np.ndarray, n_elem: int) -> np.ndarray:
    """The ``edges`` kind's words (int64, shape (len(inst), n_elem)): bit 0 of a second hash
    stream picks an edge word (by its high half) or the first stream's 64 bits."""
    from .edges import edge_words
    pool = edge_words()
    h = hashes(seed, inst, n_elem)
    g = hashes(seed ^ 0xED6E5, inst, n_elem)
    pick = pool[((g >> np.uint64(32)) % np.uint64(pool.size)).astype(np.int64)]
    return np.where((g & np.uint64(1)).astype(bool), pick, h).view(np.int64)


SHAPE_SALT = np.uint64(0x5348415045)


def shapes(seed: int, inst: np.ndarray, rows: int, cols: int, row_mode: bool) -> tuple[np.ndarray, np.ndarray]:
    """Valid shapes (vr, vc) of instances ``inst`` of a shape-fuzzing campaign over rows x cols
    tiles: uniform in [1, rows] x [1, cols], with 1/8 of the tiles [R, 1] and 1/8 [1, C]
    (counter_rng.cuh rng_shape, bit for bit). Row mode keeps vc = cols."""
    keys = instance_keys(seed, np.asarray(inst, np.int64).reshape(-1))
    h = mix64(keys ^ SHAPE_SALT)
    sel = h >> np.uint64(61)
    with np.errstate(over="ignore"):
        r = np.uint64(1) + (((h & np.uint64(0xFFFFFFFF)) * np.uint64(rows)) >> np.uint64(32))
        c = np.uint64(1) + ((((h >> np.uint64(32)) & np.uint64(0x1FFFFFFF)) * np.uint64(cols)) >> np.uint64(29))
    c = np.where(sel == 0, np.uint64(1), c)
    r = np.where(sel == 1, np.uint64(1), r)
    vr = r.astype(np.int64) if rows else np.zeros(keys.size, np.int64)
    vc = np.full(keys.size, cols, np.int64) if row_mode else (c.astype(np.int64) if cols else np.zeros(keys.size, np.int64))
    return vr, vc


MAX_INSTANCE = (1 << 63) - 1


def check_instances(start: int, n: int) -> None:
    """Instance numbers are int64 everywhere (arrays, kernels, JSON): a run's numbers
    ``start .. start+n-1`` must lie in 0 .. 2^63-1, so no layer wraps or truncates one."""
    if int(n) < 0:
        raise ValueError(f"n = {n}: the number of instances cannot be negative")
    if int(start) < 0 or int(start) + max(int(n), 1) - 1 > MAX_INSTANCE:
        raise ValueError(f"instances {start} .. {int(start) + int(n) - 1} leave 0 .. 2^63-1 "
                         "(instance numbers are int64)")


class Generator:
    """An index source: a named kind, or a user callable ``f(inst: ndarray, n_elem, cap) ->
    int array (len(inst), n_elem)`` (it must be a pure function of the instance numbers to
    keep tiles reproducible), or a fixed array of tiles (instance n uses row n % len)."""

    def __init__(self, source: str | Callable | np.ndarray | Sequence = "mixed", seed: int = 0):
        self.seed = int(seed)
        if isinstance(source, str):
            if source not in KINDS and source not in VALUE_KINDS:
                raise ValueError(f"unknown generator {source!r}; choose one of {', '.join([*KINDS, *VALUE_KINDS])}")
            self.kind, self.fn, self.tiles = source, None, None
        elif callable(source):
            self.kind, self.fn, self.tiles = "callable", source, None
        else:
            self.kind, self.fn, self.tiles = "array", None, np.asarray(source)

    @property
    def counter_kind(self) -> int | None:
        """The GEN_* number when kernels can generate these indices themselves."""
        return KINDS.get(self.kind) if self.fn is None and self.tiles is None else None

    def __call__(self, inst: np.ndarray, n_elem: int, cap: int) -> np.ndarray:
        inst = np.asarray(inst, np.int64).reshape(-1)
        if self.fn is not None:
            out = np.asarray(self.fn(inst, n_elem, cap))
            return out.reshape(inst.size, n_elem).astype(np.int64, copy=False)
        if self.tiles is not None:
            t = self.tiles.reshape(self.tiles.shape[0], -1) if self.tiles.ndim > 1 else self.tiles[None, :]
            if t.shape[1] != n_elem:
                raise ValueError(f"array tiles hold {t.shape[1]} indices, the instruction needs {n_elem}")
            return t[inst % t.shape[0]].astype(np.int64)
        if self.kind == "edges":
            return edge_values(self.seed, inst, n_elem)
        return generate(self.kind, self.seed, inst, n_elem, cap)

    def lo32(self, inst: np.ndarray, n_elem: int, cap: int) -> np.ndarray | None:
        """The low 32 bits of ``self(inst, n_elem, cap)`` as uint32, computed in 32-bit lanes
        (counter kinds only; None otherwise)."""
        k = self.counter_kind
        if k is None:
            return None
        inst = np.asarray(inst, np.uint64).reshape(-1)
        keys = instance_keys(self.seed, inst)
        return values_lo32(k, *halves(k, keys, n_elem), keys, cap)

    def native(self, inst: np.ndarray, n_elem: int, cap: int) -> np.ndarray | None:
        """``self(inst, n_elem, cap)`` computed by the native library (counter_rng.cuh, the
        generator the executing engine runs, tested bit for bit against this module), for
        batches on the native backend; None for other generators."""
        k = self.counter_kind
        if k is None:
            return None
        from ..backend import native_backend
        f = native_backend.load("fuzz").pto_gen_values
        f.restype = None
        inst = np.ascontiguousarray(inst, np.int64).reshape(-1)
        out = np.empty((inst.size, int(n_elem)), np.int64)
        f(ctypes.c_uint64(self.seed & 0xFFFFFFFFFFFFFFFF), ctypes.c_int(k), ctypes.c_uint64(int(cap) & 0xFFFFFFFF),
          ctypes.c_void_p(inst.ctypes.data), ctypes.c_longlong(inst.size), ctypes.c_longlong(int(n_elem)),
          ctypes.c_void_p(out.ctypes.data))
        return out

    def __repr__(self) -> str:
        return f"Generator({self.kind!r}, seed={self.seed})"
