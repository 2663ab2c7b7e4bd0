"""The CPU simulator's own 8-bit float types (``include/pto/cpu/MXTypes.hpp``): how its
``float8_e4m3_t`` / ``float8_e5m2_t`` convert to and from other types, bit for bit. They are
not IEEE-style conversions: a double is truncated (no rounding), an exponent that does not
fit wraps, the all-ones exponent is an ordinary number on the way back (no NaN or inf), and
both zeros decode to +0.0. Conversions the simulator's types do not have are compile errors.

Where the code has no defined answer — a right shift by 64 bits or more, for values far below
the smallest subnormal — ptogpu takes the value as 0 (x86 would mask the shift count)."""
from __future__ import annotations

import numpy as np

from ..errors import PtoCheckError

MX = {"float8_e4m3": (4, 3, 7), "float8_e5m2": (5, 2, 15)}   # EXP_SZ, MAN_SZ, EXP_BIAS
FP8 = frozenset(MX)
SIM_TYPES = FP8 | {"hifloat8"}             # class types of the simulator (not built-in types)


def mx_encode(x: np.ndarray, name: str) -> np.ndarray:
    """``MXType(double value)``: the code of each value (uint8)."""
    E, M, B = MX[name]
    v = np.asarray(x, np.float64).reshape(-1)
    bits = v.view(np.uint64)
    sign = (bits >> np.uint64(63)).astype(np.int64)
    e = ((bits >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    m = (bits & np.uint64((1 << 52) - 1))
    out_m = (m >> np.uint64(52 - M)).astype(np.int64)
    out_e = e + B - 1023
    sub = out_e < 0
    shift = np.where(sub, 1 - out_e, 0)
    wide = (out_m | (1 << M))
    out_m = np.where(sub, np.where(shift < 64, wide >> np.minimum(shift, 63), 0), out_m)
    out_e = np.where(sub, 0, out_e)
    code = (sign << (M + E)) | ((out_e & ((1 << E) - 1)) << M) | (out_m & ((1 << M) - 1))
    code = np.where((v == 0) | (e == 0), 0, code)           # zero, and double subnormals
    return code.astype(np.uint8).reshape(np.shape(x))


def mx_decode(codes: np.ndarray, name: str) -> np.ndarray:
    """``MXType::operator double()``: the value of each code (float64)."""
    E, M, B = MX[name]
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
        if dst in FP8:
            x = mx_decode(vals.view(np.uint8), src) if src in FP8 else vals.astype(np.float64)
            return mx_encode(x, dst).view(dst_dtype)
        if src in FP8:
            return mx_decode(vals.view(np.uint8), src).astype(dst_dtype)
        return vals.astype(dst_dtype)
