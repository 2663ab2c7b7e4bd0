"""Element types (API.md): NumPy dtypes, hifloat8 stored as its 8-bit code and decoded by
pto.hifloat8_to_float32 (HiFloat8, arXiv:2409.16626)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto

SIZES = {"int8": 1, "uint8": 1, "int16": 2, "uint16": 2, "int32": 4, "uint32": 4, "int64": 8,
         "uint64": 8, "half": 2, "bfloat16": 2, "float32": 4, "float8_e4m3": 1,
         "float8_e5m2": 1, "hifloat8": 1}


@pytest.mark.parametrize("name,size", SIZES.items())
def test_every_element_type_is_a_numpy_dtype(name, size):
    dt = getattr(pto, name)
    assert isinstance(dt, np.dtype) and dt.itemsize == size
    assert np.zeros(3, dt).nbytes == 3 * size


def test_float_alias_and_ml_dtypes_types():
    assert pto.float == pto.float32 == np.dtype(np.float32)
    assert pto.half == np.dtype(np.float16)
    assert pto.bfloat16 == np.dtype(ml_dtypes.bfloat16)
    assert pto.float8_e4m3 == np.dtype(ml_dtypes.float8_e4m3fn)
    assert pto.float8_e5m2 == np.dtype(ml_dtypes.float8_e5m2)


def test_hifloat8_is_stored_as_uint8_code_but_is_its_own_type():
    """hifloat8 holds 8-bit codes; the emulator still tells it apart from uint8."""
    core = pto.Core("a5", "numpy")
    codes = np.arange(256, dtype=np.uint8)
    p = core.gm_put(codes, pto.hifloat8)
    assert p.dtype == pto.hifloat8 and pto.hifloat8.itemsize == 1
    T = pto.GlobalTensor[pto.hifloat8, pto.Shape[1, 1, 1, 8, 32], pto.Stride[256, 256, 256, 32, 1]]
    T(p)                                                      # a hif8 pointer backs a hif8 tensor
    U = pto.GlobalTensor[pto.uint8, pto.Shape[1, 1, 1, 8, 32], pto.Stride[256, 256, 256, 32, 1]]
    with pytest.raises(pto.PtoCheckError):
        U(p)                                                  # ... but not a uint8 one


# Hand-decoded codes: sign | dot (11: D=4, 10: D=3, 01: D=2, 001: D=1, 0001: D=0, 0000: denormal)
# | D-bit sign-magnitude exponent with implicit leading 1 | mantissa with implicit 1.
HIF8 = [
    (0x00, 0.0),
    (0x08, 1.0),                   # 0 0001 000: D=0, exp 0
    (0x0C, 1.5),                   # mantissa 100
    (0x0F, 1.875),
    (0x10, 2.0),                   # 0 001 0 000: D=1, exp +1
    (0x18, 0.5),                   # 0 001 1 000: exp -1
    (0x14, 3.0),                   # 2 * 1.5
    (0x20, 4.0),                   # 0 01 00 000: D=2, exp +2
    (0x28, 8.0),                   # 0 01 01 000: exp +3
    (0x30, 0.25),                  # 0 01 10 000: exp -2
    (0x40, 16.0),                  # 0 10 000 00: D=3, exp +4
    (0x5C, 2.0**-7),               # 0 10 111 00: exp -(4+3)
    (0x42, 24.0),                  # 16 * 1.5 (2 mantissa bits: 10)
    (0x60, 256.0),                 # 0 11 0000 0: D=4, exp +8
    (0x6E, 32768.0),               # exp +15, mantissa 0: the largest finite value
    (0x7F, 1.5 * 2.0**-15),        # 0 11 1111 1: exp -15, mantissa 1
    (0x01, 2.0**-22),              # denormal 2^(m-23)
    (0x07, 2.0**-16),
    (0x88, -1.0),
    (0xC0, -16.0),
    (0x6F, np.inf),
    (0xEF, -np.inf),
]


@pytest.mark.parametrize("code,value", HIF8)
def test_hifloat8_decode_hand_computed(code, value):
    got = pto.hifloat8_to_float32(np.array([code], np.uint8))
    assert got.dtype == np.float32
    assert got.tobytes() == np.array([value], np.float32).tobytes()


def test_hifloat8_nan_is_0x80():
    assert np.isnan(pto.hifloat8_to_float32(np.array([0x80], np.uint8))[0])


def test_hifloat8_is_sign_symmetric_and_keeps_shape():
    codes = np.arange(1, 128, dtype=np.uint8).reshape(127, 1)
    pos = pto.hifloat8_to_float32(codes)
    neg = pto.hifloat8_to_float32(codes | 0x80)
    assert pos.shape == (127, 1)
    np.testing.assert_array_equal(neg, -pos)
    assert (pos[np.isfinite(pos)] > 0).all()


def test_hifloat8_finite_values_are_distinct():
    """Every positive code decodes to a distinct value (the format has no duplicate codes)."""
    vals = pto.hifloat8_to_float32(np.arange(1, 128, dtype=np.uint8))
    finite = vals[np.isfinite(vals)]
    assert len(np.unique(finite)) == finite.size == 126
