"""Element types. Each is a ``numpy.dtype`` (ml_dtypes supplies bfloat16 and fp8).

``hifloat8`` has no NumPy type: it is stored as its 8-bit code (a ``uint8`` dtype tagged with
metadata so the emulator can tell it from ``uint8``); :func:`hifloat8_to_float32` decodes it
for display.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np

int8 = np.dtype(np.int8)
uint8 = np.dtype(np.uint8)
int16 = np.dtype(np.int16)
uint16 = np.dtype(np.uint16)
int32 = np.dtype(np.int32)
uint32 = np.dtype(np.uint32)
int64 = np.dtype(np.int64)
uint64 = np.dtype(np.uint64)
half = np.dtype(np.float16)
bfloat16 = np.dtype(ml_dtypes.bfloat16)
float32 = np.dtype(np.float32)
float8_e4m3 = np.dtype(ml_dtypes.float8_e4m3fn)   # Ascend FP8 E4M3 is the OCP "fn" variant
float8_e5m2 = np.dtype(ml_dtypes.float8_e5m2)
hifloat8 = np.dtype(np.uint8, metadata={"pto": "hifloat8"})
# The 4-bit types: each C++ object is one byte (sizeof 1, what the Tile's static checks count).
# int4 (int4b_t) holds one value in its low nibble; the two float4 types hold two, the even
# element in the low nibble: how many a tile's byte holds is each target's (docs/tcvt.md).
int4 = np.dtype(np.uint8, metadata={"pto": "int4"})
float4_e2m1x2 = np.dtype(np.uint8, metadata={"pto": "float4_e2m1x2"})
float4_e1m2x2 = np.dtype(np.uint8, metadata={"pto": "float4_e1m2x2"})
FOUR_BIT = ("int4", "float4_e2m1x2", "float4_e1m2x2")
PACKED = ("float4_e2m1x2", "float4_e1m2x2")          # two elements a byte, the even one low

ALL = {
    "int8": int8, "uint8": uint8, "int16": int16, "uint16": uint16, "int32": int32,
    "uint32": uint32, "int64": int64, "uint64": uint64, "half": half, "bfloat16": bfloat16,
    "float32": float32, "float8_e4m3": float8_e4m3, "float8_e5m2": float8_e5m2,
    "hifloat8": hifloat8, "int4": int4, "float4_e2m1x2": float4_e2m1x2, "float4_e1m2x2": float4_e1m2x2,
}
_BY_NUMPY = {v: k for k, v in ALL.items() if v.metadata is None}
_ALIASES = {"float": "float32", "float16": "half", "fp16": "half", "bf16": "bfloat16",
            "float8_e4m3fn": "float8_e4m3", "hif8": "hifloat8", "int4b_t": "int4",
            "float4_e2m1x2_t": "float4_e2m1x2", "float4_e1m2x2_t": "float4_e1m2x2"}


def name_of(dt) -> str:
    """Canonical ptogpu name of a dtype-like (``hifloat8`` is told apart from ``uint8``)."""
    if isinstance(dt, str):
        key = _ALIASES.get(dt, dt)
        if key in ALL:
            return key
    d = np.dtype(dt)
    if d.metadata and "pto" in d.metadata:
        return d.metadata["pto"]
    try:
        return _BY_NUMPY[d]
    except KeyError:
        raise TypeError(f"{dt!r} is not a ptogpu element type (one of {', '.join(ALL)})") from None


def as_dtype(dt) -> np.dtype:
    """The ptogpu dtype object for a dtype-like or a name."""
    return ALL[name_of(dt)]


def is_integral(dt) -> bool:
    return name_of(dt) in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64")


def storage(dt) -> np.dtype:
    """The NumPy dtype the bytes are viewed as (hifloat8 and the 4-bit types → plain uint8)."""
    d = as_dtype(dt)
    return uint8 if d.metadata else d


def packed(dt) -> bool:
    """Two elements a byte (the float4 types): element k is nibble k % 2 of byte k // 2."""
    return name_of(dt) in PACKED


def hifloat8_to_float32(codes) -> np.ndarray:
    """Decode HiFloat8 codes to float32 (for display; the emulator moves codes, never values).

    Format (Huawei, "Ascend HiFloat8 Format for Deep Learning", arXiv:2409.16626): sign bit,
    a prefix-coded *dot* field giving the exponent width D, a sign-magnitude exponent of D bits
    with an implicit leading 1 in its magnitude, and the rest mantissa with an implicit 1:

    ======  ===  ========  ==============
    dot     D    mantissa  |exponent|
    ======  ===  ========  ==============
    11      4    1 bit     8..15
    10      3    2 bits    4..7
    01      2    3 bits    2..3
    001     1    3 bits    1
    0001    0    3 bits    0
    0000    -    3 bits    denormal 2^(m-23)
    ======  ===  ========  ==============

    0x00 is zero, 0x80 is NaN, 0x6F / 0xEF (D=4, exponent +15, mantissa 1) are ±Inf.
    """
    c = np.asarray(codes).astype(np.uint8).astype(np.int64)
    out = np.empty(c.shape, np.float32)
    flat_c, flat_o = c.reshape(-1), out.reshape(-1)
    table = _hif8_table()
    flat_o[:] = table[flat_c]
    return out


_HIF8 = None


def _hif8_table() -> np.ndarray:
    global _HIF8
    if _HIF8 is None:
        t = np.empty(256, np.float32)
        for code in range(256):
            t[code] = _hif8_decode_one(code)
        _HIF8 = t
    return _HIF8


def _hif8_decode_one(code: int) -> float:
    sign = -1.0 if code & 0x80 else 1.0
    body = code & 0x7F
    if code == 0x80:
        return float("nan")
    if body == 0:
        return 0.0 * sign
    bits = f"{body:07b}"
    if bits.startswith("11"):
        d, rest = 4, bits[2:]
    elif bits.startswith("10"):
        d, rest = 3, bits[2:]
    elif bits.startswith("01"):
        d, rest = 2, bits[2:]
    elif bits.startswith("001"):
        d, rest = 1, bits[3:]
    elif bits.startswith("0001"):
        d, rest = 0, bits[4:]
    else:  # 0000: denormal
        m = int(bits[4:], 2)
        return sign * 2.0 ** (m - 23)
    if d == 0:
        exp, mant_bits = 0, rest
    else:
        e_field = rest[:d]
        mant_bits = rest[d:]
        mag = (1 << (d - 1)) + (int(e_field[1:], 2) if d > 1 else 0)
        exp = -mag if e_field[0] == "1" else mag
    m = int(mant_bits, 2) if mant_bits else 0
    frac = 1.0 + m / (1 << len(mant_bits))
    if d == 4 and exp == 15 and m == 1:
        return sign * float("inf")
    return sign * frac * 2.0 ** exp
