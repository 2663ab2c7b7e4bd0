"""Per-instance inputs of a user's kernel: each a pure function of (seed, input name, instance
number), drawn with the counter generators of ``execution.rng`` (so any instance can be
regenerated alone, on any machine, in any chunk).

* :func:`indices`: index arrays for gathers and scatters, from the index generators
  (``uniform``, ``oob``, ``negative``, ``extreme``, ``boundary``, ``dup``, ``mixed``, ``edge``)
  aimed at a capacity ``cap`` -- a number, or a range ``(lo, hi)`` from which each instance
  draws its own;
* :func:`values`: data: every bit pattern of the element type (``bits``: NaN payloads and
  infinities included), small integers, exact in every type (``small``), or the type's edges
  (``edges``: each element, half the time, one of :func:`edge_pool`'s values -- signed zeros, NaNs
  with payloads, infinities, denormals, the type's extremes, values that tie, sums that
  overflow, shift counts around the width -- else any bit pattern)."""
from __future__ import annotations

import zlib
from dataclasses import dataclass

import numpy as np

from .. import dtypes
from .edges import edge_pool
from .rng import KINDS, Generator, hashes, instance_keys, mix64


def salt(name: str) -> int:
    """An input's stream of the campaign seed (its name, hashed): two inputs never share one."""
    return zlib.crc32(name.encode()) * 0x9E3779B97F4A7C15 & 0xFFFFFFFFFFFFFFFF


@dataclass(frozen=True)
class Indices:
    """Index arrays of ``shape`` in ``dtype``, from generator ``gen`` aimed at ``cap``."""
    shape: tuple[int, ...]
    cap: int | tuple[int, int]
    dtype: str = "int32"
    gen: str = "mixed"

    def __post_init__(self) -> None:
        if self.gen not in KINDS:
            raise ValueError(f"indices: gen {self.gen!r}: one of {', '.join(KINDS)}")
        dt = dtypes.storage(dtypes.as_dtype(self.dtype))
        if dt.kind not in "iu":
            raise ValueError(f"indices: dtype {self.dtype}: an integer type")
        if isinstance(self.cap, tuple):
            lo, hi = self.cap
            if not 0 <= lo <= hi < 1 << 32:
                raise ValueError(f"indices: cap range {self.cap}: 0 <= lo <= hi < 2^32")
        elif not 0 <= int(self.cap) < 1 << 32:
            raise ValueError(f"indices: cap {self.cap}: 0 .. 2^32-1")

    def caps(self, seed: int, inst: np.ndarray) -> np.ndarray:
        """Each instance's capacity (one number, or drawn from the range)."""
        if not isinstance(self.cap, tuple):
            return np.full(len(inst), int(self.cap), np.int64)
        lo, hi = self.cap
        h = mix64(instance_keys(seed, inst) ^ np.uint64(0x434150))
        with np.errstate(over="ignore"):
            return lo + ((h & np.uint64(0xFFFFFFFF)) * np.uint64(hi - lo + 1) >> np.uint64(32)).astype(np.int64)

    def draw(self, seed: int, inst: np.ndarray) -> np.ndarray:
        inst = np.asarray(inst, np.int64)
        n = int(np.prod(self.shape))
        caps = self.caps(seed, inst)
        out = np.empty((len(inst), n), np.int64)
        g = Generator(self.gen, seed)
        for c in np.unique(caps):                  # (one capacity: one generator call)
            sel = caps == c
            out[sel] = g(inst[sel], n, int(c))
        st = dtypes.storage(dtypes.as_dtype(self.dtype))
        return out.astype(np.dtype(f"u{st.itemsize}") if st.kind == "u" else st).view(st) \
            .reshape(len(inst), *self.shape)

    def describe(self) -> str:
        return f"indices({list(self.shape)}, cap={self.cap}, {self.dtype}, {self.gen})"


@dataclass(frozen=True)
class Values:
    """Data arrays of ``shape`` in ``dtype``: ``bits`` (every bit pattern), ``small`` (0 .. 15)
    or ``edges`` (half of them from :func:`edge_pool`)."""
    shape: tuple[int, ...]
    dtype: str = "float32"
    gen: str = "bits"

    def __post_init__(self) -> None:
        if self.gen not in ("bits", "small", "edges"):
            raise ValueError(f"values: gen {self.gen!r}: bits, small or edges")
        dtypes.as_dtype(self.dtype)

    def draw(self, seed: int, inst: np.ndarray) -> np.ndarray:
        inst = np.asarray(inst, np.int64)
        dt = dtypes.as_dtype(self.dtype)
        st = dtypes.storage(dt)
        n = int(np.prod(self.shape))
        if self.gen == "small":
            if dtypes.name_of(dt) == "hifloat8":
                return np.zeros((len(inst), *self.shape), np.uint8)     # (its codes: small values)
            v = (hashes(seed, inst, n) & np.uint64(15)).astype(np.int64)
            return v.astype(dt).view(st).reshape(len(inst), *self.shape)
        words = -(-n * st.itemsize // 8)
        b = hashes(seed, inst, words).view(np.uint8).reshape(len(inst), -1)[:, :n * st.itemsize]
        out = np.ascontiguousarray(b).view(st).reshape(len(inst), n)
        if self.gen == "edges":
            pool = edge_pool(dt)
            h = hashes(seed ^ 0xED6E5, inst, n)
            pick = pool[((h >> np.uint64(32)) % np.uint64(pool.size)).astype(np.int64)]
            out = np.where((h & np.uint64(1)).astype(bool), pick, out)
        return out.reshape(len(inst), *self.shape)

    def describe(self) -> str:
        return f"values({list(self.shape)}, {self.dtype}, {self.gen})"


@dataclass(frozen=True, eq=False)
class Picks:
    """Arrays of ``shape`` in ``dtype`` whose elements are, each with probability ``rate``, a
    member of ``pool`` (a hash table's keys: lookups that hit), else any bit pattern of the type
    (that mostly miss)."""
    shape: tuple[int, ...]
    pool: np.ndarray
    dtype: str = "int32"
    rate: float = 0.5

    def __post_init__(self) -> None:
        if not 0.0 <= float(self.rate) <= 1.0:
            raise ValueError(f"picks: rate {self.rate}: a probability, 0 .. 1")
        if np.asarray(self.pool).size == 0:
            raise ValueError("picks: an empty pool")
        dtypes.as_dtype(self.dtype)

    def draw(self, seed: int, inst: np.ndarray) -> np.ndarray:
        inst = np.asarray(inst, np.int64)
        dt = dtypes.as_dtype(self.dtype)
        st = dtypes.storage(dt)
        n = int(np.prod(self.shape))
        h = hashes(seed, inst, 2 * n).reshape(len(inst), 2, n)
        pool = np.asarray(self.pool).astype(dt).view(st).reshape(-1)
        take = (h[:, 0] >> np.uint64(11)).astype(np.float64) / float(1 << 53) < float(self.rate)
        pick = pool[((h[:, 0] & np.uint64(0xFFFFFFFF)) % np.uint64(pool.size)).astype(np.int64)]
        raw = h[:, 1].astype(np.dtype(f"u{st.itemsize}")).view(st)
        return np.where(take, pick, raw).reshape(len(inst), *self.shape)

    def describe(self) -> str:
        return f"picks({list(self.shape)}, pool of {np.asarray(self.pool).size}, {self.dtype}, rate={self.rate})"


def picks(shape, pool, dtype="int32", rate: float = 0.5) -> Picks:
    """Per-instance arrays drawn from ``pool`` with probability ``rate``, else any bit pattern."""
    return Picks(_shape(shape), np.asarray(pool), dtypes.name_of(dtypes.as_dtype(dtype)), float(rate))


def indices(shape, cap, dtype="int32", gen: str = "mixed") -> Indices:
    """Per-instance index arrays (see the module doc). ``shape``: an int or a tuple."""
    return Indices(_shape(shape), tuple(cap) if isinstance(cap, (tuple, list)) else int(cap),
                   dtypes.name_of(dtypes.as_dtype(dtype)), gen)


def values(shape, dtype="float32", gen: str = "bits") -> Values:
    """Per-instance data arrays (see the module doc)."""
    return Values(_shape(shape), dtypes.name_of(dtypes.as_dtype(dtype)), gen)


def _shape(shape) -> tuple[int, ...]:
    s = (int(shape),) if np.ndim(shape) == 0 else tuple(int(x) for x in shape)
    if not s or any(x < 1 for x in s) or int(np.prod(s)) > 1 << 24:
        raise ValueError(f"shape {shape}: positive dims, at most 2^24 elements")
    return s


def draw(inputs: dict, seed: int, inst: np.ndarray) -> dict[str, np.ndarray]:
    """Every input of the instances ``inst`` (one row each), each from its own stream."""
    return {name: g.draw((int(seed) ^ salt(name)) & 0xFFFFFFFFFFFFFFFF, inst) for name, g in inputs.items()}
