"""Arrays in and out: anything array-like (NumPy, CuPy, torch and other DLPack producers)
becomes a NumPy array, and a cast into an element type either keeps every value or is refused.

Casting rules (docs/interop.md): the element type itself is taken bytes-exact; integers and
integral floats go into integer types only when every value fits; floats (and integers) go
into floating types with the target's round-to-nearest-even, but a finite value that would
become infinite or NaN is refused; NaN and infinities stay what they are; complex values and
booleans into floats are refused. hifloat8 tiles take their 8-bit codes (integers 0..255) or
arrays already of ``pto.hifloat8``.
"""
from __future__ import annotations

import numpy as np

from . import dtypes


def as_numpy(x) -> np.ndarray:
    """A host NumPy view or copy of ``x``: NumPy arrays and scalars as they are, CuPy arrays
    copied from the device, DLPack producers (torch, JAX, ...) through ``np.from_dlpack``
    (a device tensor is moved to the host first where it offers ``.cpu()``)."""
    if isinstance(x, np.ndarray):
        return x
    mod = type(x).__module__.split(".")[0]
    if mod == "cupy" and hasattr(x, "get"):
        return x.get()
    if hasattr(x, "__dlpack__") and not isinstance(x, (list, tuple)):
        try:
            return np.from_dlpack(x)
        except (BufferError, RuntimeError, TypeError, ValueError):
            if hasattr(x, "cpu"):
                try:
                    return np.from_dlpack(x.cpu())
                except (BufferError, RuntimeError, TypeError, ValueError):
                    pass
            if hasattr(x, "__array__"):
                return np.asarray(x)
            raise
    return np.asarray(x)


_ML_FLOATS = (dtypes.bfloat16, dtypes.float8_e4m3, dtypes.float8_e5m2)


def _floatish(d: np.dtype) -> bool:
    return d.kind == "f" or d in _ML_FLOATS


def _is_hif8(d: np.dtype) -> bool:
    return bool(d.metadata and d.metadata.get("pto") == "hifloat8")


def _bad(what: str, a: np.ndarray, bad: np.ndarray, name: str, why: str) -> ValueError:
    v = a[bad].reshape(-1)[0]
    return ValueError(f"{what}: {v} ({a.dtype}) {why} {name}; "
                      f"{int(np.count_nonzero(bad))} value(s) would change; convert explicitly "
                      f"(e.g. .astype(...)) if that is what you want")


def cast_exact(a: np.ndarray, dt, what: str) -> np.ndarray:
    """``a`` as the storage of element type ``dt`` under the rules above (ValueError else)."""
    name = dtypes.name_of(dt)
    st = dtypes.storage(dt)
    if name == "hifloat8":
        if _is_hif8(a.dtype):
            return a.view(st) if a.dtype != st else a
        dt, name = st, "hifloat8 codes (0..255)"
    elif a.dtype == st:
        return a
    if a.dtype.kind == "c":
        raise ValueError(f"{what}: complex values cannot become {name}")
    if a.dtype.kind == "O":
        a = np.asarray(a.tolist())
        if a.dtype.kind == "O":
            raise ValueError(f"{what}: cannot read {a.dtype} values as numbers")
    st = np.dtype(st)
    if st.kind in "iu":
        if _floatish(a.dtype):
            f = a.astype(np.float64)
            bad = ~np.isfinite(f) | (f != np.trunc(f))
            if bad.any():
                raise _bad(what, a, bad, name, "is not an integer, so it cannot become")
            info = np.iinfo(st)
            bad = (f < info.min) | (f > info.max)
            if bad.any():
                raise _bad(what, a, bad, name, "does not fit")
            return f.astype(st)
        if a.dtype.kind in "iub":
            info = np.iinfo(st)
            ai = a.astype(np.int64) if a.dtype.kind != "u" else a.astype(np.uint64)
            lo = (ai < info.min) if a.dtype.kind != "u" else np.zeros(a.shape, bool)
            hi = ai > np.uint64(info.max) if a.dtype.kind == "u" else ai > info.max
            bad = lo | hi
            if bad.any():
                raise _bad(what, a, bad, name, "does not fit")
            return a.astype(st)
        raise ValueError(f"{what}: cannot convert {a.dtype} values to {name}")
    # floating element types: rounding is the conversion; overflow to inf/NaN is refused
    if a.dtype.kind == "b":
        raise ValueError(f"{what}: booleans are not {name} values; convert explicitly")
    with np.errstate(all="ignore"):
        out = a.astype(st)
        src = a.astype(np.float64)
        back = out.astype(np.float64)
    bad = np.isfinite(src) & ~np.isfinite(back)
    if bad.any():
        raise _bad(what, a, bad, name, "overflows")
    return out


def dlpack(a: np.ndarray, what: str):
    """``a.__dlpack__()``, with a message that names the element type NumPy cannot export."""
    try:
        return a.__dlpack__()
    except (BufferError, TypeError) as e:
        raise BufferError(f"{what}: {dtypes.name_of(a.dtype)} elements have no DLPack export "
                          f"through NumPy ({e}); take np.asarray(...) and view the bytes") from None


__all__ = ["as_numpy", "cast_exact", "dlpack"]
