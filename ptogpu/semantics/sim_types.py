"""The CPU simulator's own 8-bit float types (``include/pto/cpu/MXTypes.hpp``): how its
``float8_e4m3_t`` / ``float8_e5m2_t`` convert to and from other types, bit for bit. They are
not IEEE-style conversions: a double is truncated (no rounding), an exponent that does not
fit wraps, the all-ones exponent is an ordinary number on the way back (no NaN or inf), and
both zeros decode to +0.0. Its ``hifloat8_t`` (``include/pto/cpu/Hifloat8.hpp``) converts by
a table: every code's value, and the nearest code for a double. Conversions the simulator's
types do not have are compile errors.

Where the code has no defined answer — a right shift by 64 bits or more, for values far below
the smallest subnormal — ptogpu takes x86-64's shift, the count mod 64: what the simulator's
headers give built with g++ 12 at -O0, checked on values down to float32's smallest denormal
(at -O2 GCC's code gives other bytes for some of them: undefined behaviour)."""
from __future__ import annotations

import numpy as np

from ..errors import PtoCheckError

MX = {"float8_e4m3": (4, 3, 7), "float8_e5m2": (5, 2, 15)}   # EXP_SZ, MAN_SZ, EXP_BIAS
MX4 = {"float4_e2m1x2": (2, 1, 1), "float4_e1m2x2": (1, 2, 1)}   # MXTypes.hpp:145-171 (both bias 1)
FP8 = frozenset(MX)
_MX_ALL = {**MX, **MX4}
SIM_TYPES = FP8 | {"hifloat8"}             # class types of the simulator (not built-in types)


def mx_encode(x: np.ndarray, name: str) -> np.ndarray:
    """``MXType(double value)``: the code of each value (uint8)."""
    E, M, B = _MX_ALL[name]
    v = np.asarray(x, np.float64).reshape(-1)
    bits = v.view(np.uint64)
    sign = (bits >> np.uint64(63)).astype(np.int64)
    e = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    m = (bits & np.uint64((1 << 52) - 1))
    out_m = (m >> np.uint64(52 - M)).astype(np.int64)
    out_e = e + B - 1023
    sub = out_e < 0
    shift = np.where(sub, (1 - out_e) & 63, 0)                  # (x86-64: the count mod 64)
    wide = (out_m | (1 << M))
    out_m = np.where(sub, wide >> shift, out_m)
    out_e = np.where(sub, 0, out_e)
    code = (sign << (M + E)) | ((out_e & ((1 << E) - 1)) << M) | (out_m & ((1 << M) - 1))
    code = np.where((v == 0) | (e == 0), 0, code)           # zero, and double subnormals
    return code.astype(np.uint8).reshape(np.shape(x))


def mx_decode(codes: np.ndarray, name: str) -> np.ndarray:
    """``MXType::operator double()``: the value of each code (float64)."""
    E, M, B = _MX_ALL[name]
    d = np.asarray(codes).astype(np.int64).reshape(-1)
    mant = d & ((1 << M) - 1)
    exp = (d >> M) & ((1 << E) - 1)
    sign = ((d >> (M + E)) & 1).astype(np.uint64)
    normal = ((exp + 1023 - B).astype(np.uint64) << np.uint64(52)) | \
        (mant.astype(np.uint64) << np.uint64(52 - M))
    # subnormal: i = the highest set mantissa bit
    i = np.where(mant > 0, np.floor(np.log2(np.maximum(mant, 1))).astype(np.int64), 0)
    sub = ((1023 - B + 1 + (i - M)).astype(np.uint64) << np.uint64(52)) | \
        ((mant & ((1 << i) - 1)).astype(np.uint64) << (52 - i).astype(np.uint64))
    bits = np.where(exp > 0, normal, sub) | (sign << np.uint64(63))
    bits = np.where((exp == 0) & (mant == 0), np.uint64(0), bits)   # +0 and "-0" are +0.0
    return bits.view(np.float64).reshape(np.shape(codes))


def _hif8_decode_one(byte: int) -> float:
    """``Hifloat8LUT::decodeHiF8Mathematically`` (cpu/Hifloat8.hpp), for one code."""
    sign = -1.0 if byte & 0x80 else 1.0
    p = byte & 0x7F
    if p >> 3 == 0:
        m = p & 7
        if m == 0:
            return float("nan") if byte & 0x80 else 0.0
        return sign * 2.0 ** (m - 23)
    if p >> 5 == 3:
        eb, rem = 4, p & 0x1F
    elif p >> 5 == 2:
        eb, rem = 3, p & 0x1F
    elif p >> 5 == 1:
        eb, rem = 2, p & 0x1F
    elif p >> 4 == 1:
        eb, rem = 1, p & 0x0F
    else:
        eb, rem = 0, p & 0x07
    mb = 5 - eb
    raw_e, raw_m = rem >> mb, rem & ((1 << mb) - 1)
    e = 0.0
    if eb > 0:
        sbit = raw_e & (1 << (eb - 1))
        mag = float((1 << (eb - 1)) | (raw_e - sbit))
        e = -mag if sbit else mag
    if eb == 4 and e == 15.0 and raw_m == 1:
        return sign * float("inf")
    return sign * 2.0 ** e * (1.0 + raw_m / (1 << mb))


HIF8_VALUES = np.array([_hif8_decode_one(b) for b in range(256)])
"""``toDoubleTable``: the value of every code."""
_finite_order = sorted((b for b in range(256) if not np.isnan(HIF8_VALUES[b])), key=lambda b: HIF8_VALUES[b])
HIF8_SORTED = np.array(_finite_order, np.uint8)
"""``sortedIndices`` without its NaN code (it sorts last and the search never returns it)."""


def hif8_encode(x: np.ndarray) -> np.ndarray:
    """``hifloat8_t(double)``: the nearest code by the sorted table (``lower_bound``; a tie
    goes to the smaller value); beyond the largest value, the largest; NaN goes to the first
    sorted code (its ``data = 0x80`` is overwritten: ``lower_bound`` returns the first)."""
    v = np.asarray(x, np.float64).reshape(-1)
    vals = HIF8_VALUES[HIF8_SORTED]
    k = np.searchsorted(vals, v, side="left")                # first value >= v (lower_bound)
    out = np.empty(v.size, np.uint8)
    top = k >= vals.size
    first = k == 0
    mid = ~top & ~first
    out[top] = HIF8_SORTED[-1]
    out[first] = HIF8_SORTED[0]
    km = k[mid]
    cur, prev = vals[km], vals[km - 1]
    with np.errstate(invalid="ignore"):     # inf - inf is NaN: "<" is false, the smaller wins
        near = np.abs(cur - v[mid]) < np.abs(prev - v[mid])
    out[mid] = np.where(near, HIF8_SORTED[km], HIF8_SORTED[km - 1])
    out[np.isnan(v)] = HIF8_SORTED[0]
    return out.reshape(np.shape(x))


def bf16_is_half(core) -> bool:
    """Quirk ``cpu_bfloat16_is_half`` (on): a simulator built below C++23 (its CMake's choice
    for GCC < 14) defines ``bfloat16_t`` as ``_Float16`` (common/type.hpp), so a bfloat16
    element's bits are an IEEE half's wherever a value is formed from them."""
    return bool(core.quirks.get("cpu_bfloat16_is_half", False))   # a CPU-simulator quirk only


def check_conversion(src: str, dst: str, what: str, target: str) -> None:
    """Assigning one simulator class type to another has no conversion (it would need two
    user-defined conversions): a compile error."""
    if src != dst and src in SIM_TYPES and dst in SIM_TYPES:
        raise PtoCheckError(f"no conversion from the simulator's {src} to {dst}",
                            rule=f"{what}: element conversion", target=target)


def sim_convert(vals: np.ndarray, src: str, dst_dtype: np.dtype, dst: str) -> np.ndarray:
    """C++ assignment ``dst_elem = src_elem`` with the simulator's types: through ``double``
    into and out of its fp8 classes; built-in types as NumPy converts them."""
    if src == dst:
        return vals
    with np.errstate(all="ignore"):
        if src in FP8:
            x = mx_decode(vals.view(np.uint8), src)
        elif src == "hifloat8":
            x = HIF8_VALUES[vals.view(np.uint8)]
        else:
            x = vals
        if dst in FP8:
            return mx_encode(x.astype(np.float64), dst).view(dst_dtype)
        if dst == "hifloat8":
            return hif8_encode(x.astype(np.float64)).view(dst_dtype)
        return x.astype(dst_dtype)
