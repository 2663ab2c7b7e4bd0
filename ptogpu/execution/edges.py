"""The values instructions treat specially, per element type (one home: the kernel inputs'
``values(..., "edges")``, the ``edges`` generator of single-instruction campaigns)."""
from __future__ import annotations

import functools

import numpy as np

from .. import dtypes

_FLOATS = {"half": (10, 5), "bfloat16": (7, 8), "float32": (23, 8), "float64": (52, 11),
           "float8_e4m3": (3, 4), "float8_e5m2": (2, 5)}
NO_INFINITY = ("float8_e4m3",)
"""Float types whose all-ones exponent is a number (OCP E4M3: no infinity, NaN only where every
bit below the sign is set): their NaN and largest finite are not the IEEE patterns."""


def edge_pool(dtype) -> np.ndarray:
    """The bit patterns (the type's storage) an instruction treats specially, for ``edges``:
    floats: +-0, +-inf, quiet and signalling NaNs of both signs with payloads, the smallest and
    largest denormals, the smallest normal, +-1, the largest finite, +-0.5, 1.5 and 2.5 (ties of
    rounding to an integer), and for E4M3 (no infinity) its NaNs and its largest finite; integers:
    0, +-1, the extremes and their neighbours, powers of two and the width and its neighbours
    (shift counts)."""
    dt = dtypes.as_dtype(dtype)
    st = dtypes.storage(dt)
    bits = 8 * st.itemsize
    u = np.dtype(f"u{st.itemsize}")
    finfo = _FLOATS.get(dtypes.name_of(dt))            # (mantissa bits, exponent bits)
    if finfo is not None:
        m, e = finfo
        sign, expo = 1 << (bits - 1), ((1 << e) - 1) << m
        one = ((1 << (e - 1)) - 1) << m
        pats = [0, sign, expo, sign | expo, expo | (1 << (m - 1)), sign | expo | (1 << (m - 1)) | 5,
                expo | 1, sign | expo | 3, 1, (1 << m) - 1, sign | 1, 1 << m, one, sign | one,
                expo - 1, sign | (expo - 1), one - (1 << m), sign | (one - (1 << m)),
                one | (1 << (m - 1)), (one + (1 << m)) | (1 << (m - 2))]
        if dtypes.name_of(dt) in NO_INFINITY:      # E4M3FN: all-ones is its NaN, the one below its largest
            top = (1 << (bits - 1)) - 1
            pats += [top, sign | top, top - 1, sign | (top - 1)]
        return np.array([p & ((1 << bits) - 1) for p in pats], np.uint64).astype(u).view(st)
    signed = st.kind == "i"
    lo, hi = (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)
    vals = {0, 1, 2, hi, hi - 1, lo, lo + 1, bits - 1, bits, bits + 1, 2 * bits, 1 << (bits // 2),
            (1 << (bits - 2)), 7, 31, 32, 33, 63, 64}
    if signed:
        vals |= {-1, -2, -bits, -(1 << (bits // 2))}
    vals = sorted(v for v in vals if lo <= v <= hi)
    return np.array([v & ((1 << bits) - 1) for v in vals], np.uint64).astype(u).view(st)


WIDTH_TYPES = ("int8", "float8_e4m3", "float8_e5m2", "int16", "bfloat16", "half", "int32", "float32", "int64")


@functools.lru_cache(maxsize=1)
def edge_words() -> np.ndarray:
    """Every type's edge patterns as uint64 words (zero-extended), for a generator that does not
    know the element type: a word cast to a type of its own width is one of that type's edges.
    (Built once: every chunk of an ``edges`` campaign draws from it; read-only.)"""
    words = np.unique(np.concatenate([edge_pool(t).view(f"u{dtypes.storage(dtypes.as_dtype(t)).itemsize}")
                                      .astype(np.uint64) for t in WIDTH_TYPES]))
    words.flags.writeable = False
    return words
