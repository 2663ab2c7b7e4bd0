"""TCVT's value conversion per target and its NumPy semantics (docs/tcvt.md): every element of the
region is converted from src's bits to dst's as the target's code does -- the round mode, the
saturation, the simulator's C++ casts and what x86 gives where they are undefined -- then
written; nothing else is."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...errors import F_DST, F_OTHER
from ...semantics.tile_moves import grid
from . import semantics_minifloats as M

FLOATS = ("half", "bfloat16", "float32")
CPU_TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "half", "bfloat16", "float32")
HALF_MAX = 65504.0


def is_float(T: str) -> bool:
    return T in FLOATS


def u(T: str) -> np.dtype:
    return np.dtype(f"u{dtypes.as_dtype(T).itemsize}")


def values(bits: np.ndarray, T: str) -> np.ndarray:
    """Bits as exact values: float64 for floats, int64 (uint64 kept) for integers."""
    v = bits.astype(u(T)).view(dtypes.as_dtype(T))
    if is_float(T):
        with np.errstate(invalid="ignore"):          # (NaN payloads cast as they are)
            return v.astype(np.float64)
    return v if T == "uint64" else v.astype(np.int64)


def limits(T: str) -> tuple[float, float]:
    if T == "half":
        return -HALF_MAX, HALF_MAX
    if is_float(T):
        f = np.finfo(dtypes.as_dtype(T)) if T != "bfloat16" else None
        m = float(f.max) if f is not None else 3.3895313892515355e38
        return -m, m
    i = np.iinfo(dtypes.as_dtype(T))
    return float(i.min), float(i.max)


def to_integral(x: np.ndarray, letter: str) -> np.ndarray:
    """float64 rounded to an integral value: R nearest-even, A nearest-away, F floor, C ceil, Z
    toward zero, O nearest with ties to odd (the simulator's CAST_ODD)."""
    with np.errstate(invalid="ignore"):
        fl = np.floor(x)
        frac = x - fl
        if letter == "R":
            return np.rint(x)
        if letter == "A":
            return np.where(frac > 0.5, fl + 1, np.where(frac < 0.5, fl, np.where(x > 0, fl + 1, fl)))
        if letter == "F":
            return fl
        if letter == "C":
            return np.ceil(x)
        if letter == "O":
            odd_fl = np.mod(fl, 2) == 1
            return np.where(frac > 0.5, fl + 1, np.where(frac < 0.5, fl, np.where(odd_fl, fl, fl + 1)))
        return np.trunc(x)


def _step(bits: np.ndarray, T: str, up: bool) -> np.ndarray:
    """The next representable value of T above (``up``) or below, on bits."""
    U = u(T)
    sign = U.type(1 << (8 * U.itemsize - 1))
    b = bits.astype(U)
    neg = (b & sign) != 0
    zero = (b & ~sign) == 0
    with np.errstate(over="ignore"):
        if up:
            r = np.where(neg, b - U.type(1), b + U.type(1))
            r = np.where(zero, U.type(1), r)
        else:
            r = np.where(neg, b + U.type(1), b - U.type(1))
            r = np.where(zero, sign | U.type(1), r)
    return r.astype(U)


def to_float(x: np.ndarray, T: str, letter: str) -> np.ndarray:
    """float64 values rounded to float type T by ``letter`` (R A F C Z O: O is round-to-odd,
    the inexact result's last bit set), as T's bits."""
    dt = dtypes.as_dtype(T)
    with np.errstate(all="ignore"):
        c = np.asarray(x, np.float64).astype(dt)
    cb = c.view(u(T))
    if letter == "R":
        return cb
    with np.errstate(invalid="ignore"):              # (NaN payloads cast as they are)
        cf = c.astype(np.float64)
        exact = (cf == x) | np.isnan(x) | np.isinf(x)
        down = np.where(cf <= x, cb, _step(cb, T, up=False))
        upb = np.where(cf >= x, cb, _step(cb, T, up=True))
        dv, uv = down.view(dt).astype(np.float64), upb.view(dt).astype(np.float64)
    with np.errstate(invalid="ignore"):
        if letter == "F":
            pick = down
        elif letter == "C":
            pick = upb
        elif letter == "Z":
            pick = np.where(x > 0, down, upb)
        elif letter == "A":
            dd, du = x - dv, uv - x
            pick = np.where(dd < du, down, np.where(dd > du, upb, np.where(x > 0, upb, down)))
        else:                                         # O: round to odd
            pick = np.where((down & 1) == 1, down, upb)
    return np.where(exact, cb, pick).astype(u(T))


def x86_int(v: np.ndarray, D: str) -> np.ndarray:
    """An integral float64 cast to integer type D where C++ leaves it undefined, as x86-64's
    cvtt* give it: signed 8..32-bit through a 32-bit convert (out of range or NaN: INT_MIN, then
    D's low bits), 64-bit and unsigned types through a 64-bit one (INT64_MIN)."""
    w = dtypes.as_dtype(D).itemsize * 8
    via32 = D.startswith("int") and w <= 32
    lo, hi = (-2.0 ** 31, 2.0 ** 31) if via32 else (-2.0 ** 63, 2.0 ** 63)
    with np.errstate(invalid="ignore"):
        ok = (v >= lo) & (v < hi)
        r = np.where(ok, np.where(ok, v, 0).astype(np.int64), -(1 << 31) if via32 else np.iinfo(np.int64).min)
    return r.astype(np.int64).astype(u(D)) if w < 64 else r.astype(np.int64).view(np.uint64).astype(u(D))


def wrap(v: np.ndarray, D: str) -> np.ndarray:
    with np.errstate(over="ignore"):
        return np.asarray(v).astype(np.int64 if np.asarray(v).dtype.kind != "u" else np.uint64).astype(u(D))


def torch_cast(x: np.ndarray, D: str, letter: str) -> np.ndarray:
    """A2/A3's NonSatTorch paths (a2a3/TCvt.hpp:229-565): rounded to int32 with saturation (NaN
    to 0, modelled), then the low bits kept (as PyTorch's GPU casts give)."""
    r = to_integral(x, letter)
    with np.errstate(invalid="ignore"):
        r = np.where(np.isnan(r), 0, np.clip(r, -2.0 ** 31, 2.0 ** 31 - 1)).astype(np.int64)
    return wrap(r, D)


def convert(core, S: str, D: str, bits: np.ndarray, letter: str, sat: bool, torch: bool = False) -> np.ndarray:
    """src bits of type S converted to D's bits by the target's rules (``torch``: A2/A3's tmp
    form without saturation on its NonSatTorch pairs)."""
    R = core.target.tcvt
    if S in M.F8 or D in M.F8:
        return M.convert(R.minifloats, S, D, bits if S in M.F8 else values(bits, S), sat, _cpu_cast)
    x = values(bits, S)
    if torch:
        return torch_cast(x, D, letter)
    if R.cpu_casts:
        return _cpu(S, D, x, letter, sat)
    if is_float(S) and is_float(D):
        if S == "float32" and D == "float32":
            return to_integral(x, letter).astype(np.float32).view(np.uint32)
        if sat and D != "float32":
            lo, hi = limits(D)
            x = np.where(np.isfinite(x), np.clip(x, lo, hi), x)
        return to_float(x, D, letter)
    if is_float(S):                                   # float -> integer
        r = to_integral(x, letter)
        if sat:                                       # (int64's top, 2^63 - 1, is 2^63 as a double)
            lo, hi = limits(D)
            if D == "uint64":
                return wrap(np.clip(np.nan_to_num(r), 0, hi).astype(np.uint64), D)
            c = np.where(np.isnan(r), 0, np.clip(r, lo, hi)).astype(np.float64)
            with np.errstate(invalid="ignore"):
                return wrap(np.where(c >= 2.0 ** 63, np.iinfo(np.int64).max, c.astype(np.int64)), D)
        with np.errstate(invalid="ignore"):          # OFF: the low bits of the int64 conversion
            ok = np.isfinite(r) & (r >= -2.0 ** 63) & (r < 2.0 ** 63)
            return wrap(np.where(ok, np.where(ok, r, 0), 0).astype(np.int64), D)
    if is_float(D):                                   # integer -> float
        return to_float(x.astype(np.float64), D, letter)
    if sat:                                           # integer -> integer
        lo, hi = limits(D)
        return wrap(np.clip(x, int(lo), int(hi)), D)
    return wrap(x, D)


def _cpu(S: str, D: str, x: np.ndarray, letter: str, sat: bool) -> np.ndarray:
    """cpu/TCvt.hpp:159-234: saturation clamps in double to both types' limits (NaN to the upper
    one) and casts back to S; the mode rounds float -> integer only; the rest are C++ casts."""
    if sat:
        lo = max(limits(S)[0], limits(D)[0])
        hi = min(limits(S)[1], limits(D)[1])
        x = np.where(np.isnan(x), hi, np.clip(x, lo, hi)) if is_float(S) else np.clip(x, int(lo), int(hi))
        x = values(to_float(x, S, "R"), S) if is_float(S) else x
    if is_float(S) and not is_float(D):
        r = to_integral(x, letter if letter != "N" else "Z")
        return x86_int(r, D)
    if is_float(D):
        return to_float(x.astype(np.float64), D, "R")
    return wrap(x, D)


def _cpu_cast(x: np.ndarray, D: str) -> np.ndarray:
    """A value (float64) to D by the simulator's plain C++ cast (no mode, no clamp)."""
    return to_float(x, D, "R") if is_float(D) else x86_int(np.trunc(x), D)


def run(core, dst, src, letter: str, sat: bool, torch: bool = False) -> None:
    """dst[r, c] = convert(src[r, c]) over the target's region (src's or dst's valid region)."""
    R = core.target.tcvt
    t = core.target.name
    region = src if R.region == "src" else dst
    r, c = grid(region.valid_row, region.valid_col)
    if R.region == "src":
        sa = src.addr + np.asarray(src.offsets(r, c), np.int64) * src.Element.itemsize
        da = dst.addr + np.asarray(dst.offsets(r, c), np.int64) * dst.Element.itemsize
    else:
        sa = src.addr + (r * src.Cols + c) * src.Element.itemsize
        da = dst.addr + (r * dst.Cols + c) * dst.Element.itemsize
    core.arena(src.space).check_many(sa, src.Element.itemsize, "TCVT src read", t, code=F_OTHER)
    core.arena(dst.space).check_many(da, dst.Element.itemsize, "TCVT dst write", t, code=F_DST)
    ks = core.step_instances()
    bits = core.banks[src.space].take_same(ks, sa, u(src.DType)).reshape(len(ks), -1)
    out = convert(core, src.DType, dst.DType, bits, letter, sat, torch)
    core.banks[dst.space].put(ks, da, np.ascontiguousarray(out.reshape(len(ks), -1)))
