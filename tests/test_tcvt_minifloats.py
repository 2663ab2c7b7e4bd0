"""TCVT with the 8-bit float types (float8_e4m3, float8_e5m2, hifloat8), per target. Goldens:
A5's from the libraries the vendor's own A5 goldens use (tests/npu/a5/src/st/testcase/tcvt/
gen_data.py: ml_dtypes' float8_e4m3fn / float8_e5m2, en_dtypes' hifloat8); the simulator's from
its C++ (cpu/MXTypes.hpp, cpu/Hifloat8.hpp) compiled and run on these inputs (g++ 12, recorded
below) and from its rules worked by hand; A2/A3 has no such types."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto
from ptogpu.backend import native_backend
from ptogpu.errors import PtoCheckError

V = pto.TileType.Vec
BACKENDS = ["numpy"] + (["native"] if native_backend.available()[0] else [])
F8 = {"float8_e4m3": pto.float8_e4m3, "float8_e5m2": pto.float8_e5m2, "hifloat8": pto.hifloat8}


def tcvt(target, backend, S, D, src_bits, cols, mode=pto.RoundMode.CAST_RINT, sat=None, valid=None, fill=0xAB):
    """One TCVT of a 1 x cols tile (valid: dst's and src's valid columns) over a dst holding
    ``fill``; dst's raw bytes."""
    vc = valid or cols
    with pto.Core(target, backend) as core:
        s = pto.Tile[V, S, 1, cols, pto.BLayout.RowMajor, 1, vc]()
        d = pto.Tile[V, D, 1, cols, pto.BLayout.RowMajor, 1, vc]()
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, 0x4000)
        core.write("ub", 0x4000, bytes([fill]) * (cols * np.dtype(pto.dtypes.storage(D)).itemsize))
        core.write("ub", 0x0, np.ascontiguousarray(src_bits).tobytes())
        pto.TCVT(d, s, mode, *(() if sat is None else (sat,)))
        return d.raw().view(np.uint8).reshape(-1).copy()


def f32_edges() -> np.ndarray:
    """float32 bit patterns: every exponent with a few mantissas, both signs, NaN payloads,
    infinities, denormals, and the 8-bit types' rounding midpoints."""
    e = np.arange(256, dtype=np.uint32) << 23
    m = np.array([0, 1, 0x3FFFF, 0x40000, 0x40001, 0x7FFFF, 0x80000, 0x100000, 0x200000, 0x400000, 0x7FFFFF],
                 np.uint32)
    b = (e[:, None] | m[None, :]).reshape(-1)
    return np.concatenate([b, b | 0x80000000]).astype(np.uint32)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("D", ["float8_e4m3", "float8_e5m2"])
def test_a5_rounds_float32_to_fp8_to_nearest_even_whatever_the_mode(backend, D):
    bits = f32_edges()
    with np.errstate(all="ignore"):
        want = bits.view(np.float32).astype({"float8_e4m3": ml_dtypes.float8_e4m3fn,
                                             "float8_e5m2": ml_dtypes.float8_e5m2}[D]).view(np.uint8)
    cols = 64
    for mode, sat in ((pto.RoundMode.CAST_RINT, None), (pto.RoundMode.CAST_TRUNC, pto.SaturationMode.ON),
                      (pto.RoundMode.CAST_CEIL, pto.SaturationMode.OFF)):
        got = np.concatenate([tcvt("a5", backend, pto.float32, F8[D], bits[k:k + cols], cols, mode, sat)
                              for k in range(0, len(bits), cols)])
        assert got.tobytes() == want.tobytes(), (D, mode, sat)


@pytest.mark.parametrize("backend", BACKENDS)
def test_a5_rounds_to_hifloat8_with_ties_away_as_the_vendor_goldens(backend):
    en = pytest.importorskip("en_dtypes")
    halves = np.arange(1 << 16, dtype=np.uint16)
    with np.errstate(all="ignore"):
        want = halves.view(np.float16).astype(np.float32).astype(en.hifloat8).view(np.uint8)
    got = np.concatenate([tcvt("a5", backend, pto.half, pto.hifloat8, halves[k:k + 256], 256,
                               pto.RoundMode.CAST_ROUND) for k in range(0, 1 << 16, 256)])
    assert got.tobytes() == want.tobytes()
    bits = f32_edges()
    with np.errstate(all="ignore"):
        want = bits.view(np.float32).astype(en.hifloat8).view(np.uint8)
    got = np.concatenate([tcvt("a5", backend, pto.float32, pto.hifloat8, bits[k:k + 64], 64, pto.RoundMode.CAST_FLOOR)
                          for k in range(0, len(bits), 64)])
    assert got.tobytes() == want.tobytes()


@pytest.mark.parametrize("backend", BACKENDS)
def test_a5_widens_every_8_bit_code_to_float32_exactly(backend):
    codes = np.arange(256, dtype=np.uint8)
    for T, ref in (("float8_e4m3", ml_dtypes.float8_e4m3fn), ("float8_e5m2", ml_dtypes.float8_e5m2)):
        got = tcvt("a5", backend, F8[T], pto.float32, codes, 256)
        assert got.tobytes() == codes.view(ref).astype(np.float32).tobytes(), T
    en = pytest.importorskip("en_dtypes")
    got = tcvt("a5", backend, pto.hifloat8, pto.float32, codes, 256)
    assert got.tobytes() == codes.view(en.hifloat8).astype(np.float32).tobytes()


def test_a5_writes_dst_valid_region_only_and_has_seven_pairs():
    got = tcvt("a5", "numpy", pto.float32, pto.float8_e4m3, np.full(32, 1.0, np.float32), 32, valid=5)
    assert list(got[:5]) == [0x38] * 5 and set(got[5:]) == {0xAB}
    for S, D in ((pto.half, pto.float8_e4m3), (pto.bfloat16, pto.float8_e5m2), (pto.float8_e4m3, pto.half),
                 (pto.float8_e4m3, pto.float8_e5m2)):
        with pytest.raises(PtoCheckError, match="no castData"):
            tcvt("a5", "numpy", S, D, np.zeros(64, np.uint8), 64)


def test_a2a3_has_no_8_bit_float_types():
    for D in F8.values():
        with pytest.raises(PtoCheckError, match="does not have") as e:
            tcvt("a2a3", "numpy", pto.float32, D, np.zeros(32, np.float32), 32)
        assert "[a2a3]" in str(e.value)


# The simulator's C++ (cpu/TCvt.hpp with MXTypes.hpp and Hifloat8.hpp, g++ 12 -std=c++20
# -D__CPU_SIM), TCVT float32 -> each type with SaturationMode::OFF, on these 32 values:
CPU_IN = np.array([0, -0., 1, 1.0625, 1.125, 1.1875, 448, 464, 480, 500, 1e6, np.inf, -np.inf, np.nan, -np.nan,
                   0.0009765625, 0.001953125, 0.0029296875, 1e-10, -3.3, 57344, 61440, 65536, 1e5, 2.5, 3.5, 0.75,
                   0.25, 5, 7, -6.5, 1.75], np.float32)
CPU_OUT = {
    "float8_e4m3": "0000383839397e7e7f7f5738b83cbc00010100c53637383c424634284a4ecd3e",
    "float8_e5m2": "00003c3c3c3c5f5f5f5f0b3cbc3ebe14181a00c27b7b7c7e41433a344547c63f",
    "hifloat8": "0000080a0c0e616262626e6eefefef747273009a6e6e6e6e141c08302226a510",
}


# ... and on values far below the types' range, where MXType's subnormal shift reaches 64 bits
# or more (undefined in C++; the headers built at -O0, x86-64: the count mod 64)
CPU_TINY = np.array([1e-40, -1e-40, 1e-30, 1e-25, 1e-22, 3e-21, 1e-20, 1e-19, 1e-18, 2e-38, 1.2e-38, 1e-39, -1e-30,
                     5e-45, 1e-44, 1e-41, 1e-42, 1e-43, 1e-37, 1e-36, 1e-35, 1e-34, 1e-33, 1e-32, 1e-31, 1e-29, 1e-28,
                     1e-27, 1e-26, 1e-24, 1e-23, 1e-21], np.float32)
CPU_TINY_OUT = {"float8_e4m3": "0080000000000000000000008000000100000000000000000000000000000001",
                "float8_e5m2": "0080000000000000000000008000000000020000000000000000000000010000"}


@pytest.mark.parametrize("D", list(CPU_TINY_OUT))
def test_the_simulator_shifts_tiny_values_as_x86_does(D):
    got = tcvt("cpu", "numpy", pto.float32, F8[D], CPU_TINY, 32)
    assert got.tobytes().hex() == CPU_TINY_OUT[D]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("D", list(CPU_OUT))
def test_the_simulator_truncates_wraps_and_looks_up_as_its_cpp_does(backend, D):
    for mode in (pto.RoundMode.CAST_RINT, pto.RoundMode.CAST_CEIL):            # (the mode is not read)
        got = tcvt("cpu", backend, pto.float32, F8[D], CPU_IN, 32, mode, pto.SaturationMode.OFF)
        assert got.tobytes().hex() == CPU_OUT[D], (D, mode)
    # SaturationMode ON clamps to numeric_limits of a type it does not specialise: [0, 0]
    assert not tcvt("cpu", backend, pto.float32, F8[D], CPU_IN, 32, sat=pto.SaturationMode.ON).any()


def test_the_simulator_rules_by_hand():
    # MXType<4,3,7>(500.0): 500 = 2^8 * 1.953125, the mantissa truncated to .875 (7/8): 0x7F,
    # which the simulator reads back as 480 (no NaN code); +inf wraps: exponent (2047 + 7 - 1023)
    # masked to 4 bits is 7, mantissa 0: 0x38 (1.0); -1e-10 shifts out to the sign alone, 0x80
    e4 = tcvt("cpu", "numpy", pto.float32, pto.float8_e4m3, np.array([500, np.inf, -1e-10], np.float32), 32, valid=3)
    assert list(e4[:3]) == [0x7F, 0x38, 0x80]
    back = tcvt("cpu", "numpy", pto.float8_e4m3, pto.float32, np.array([0x7F, 0x80, 0x4A, 0x01], np.uint8), 32,
                valid=4)
    assert list(back[:16].view(np.float32)) == [480.0, 0.0, 5.0, 2.0 ** -9]
    assert back[4:8].view(np.uint32)[0] == 0                # (-0 reads as +0)
    # e4m3 0x4A (5.0) to int32 (a C++ cast), to e5m2 (0x45) and to hifloat8 (0x22)
    assert tcvt("cpu", "numpy", pto.float8_e4m3, pto.int32, np.full(32, 0x4A, np.uint8), 32, valid=1)[:4].view(
        np.int32)[0] == 5
    for D, want in ((pto.float8_e5m2, 0x45), (pto.hifloat8, 0x22)):
        assert tcvt("cpu", "numpy", pto.float8_e4m3, D, np.full(32, 0x4A, np.uint8), 32, valid=1)[0] == want
    # hifloat8: the simulator's table gives codes 0x08-0x1F five and four mantissa bits (1.5 is
    # between 1.21875 (0x0F) and 2.0: 0x0F), ties go down (-2.0625: -2.125, 0x91), NaN to -inf
    h = tcvt("cpu", "numpy", pto.float32, pto.hifloat8,
             np.array([1.5, 0.75, -2.0625, 2.0625, np.nan, np.inf, -np.inf, 1e6], np.float32), 32, valid=8)
    assert list(h[:8]) == [0x0F, 0x08, 0x91, 0x10, 0xEF, 0x6E, 0xEF, 0x6E]


def test_tcvt_fuzzes_the_8_bit_floats_across_targets():
    from ptogpu.fuzz import FuzzConfig
    from ptogpu.fuzz import compare as C
    from ptogpu.fuzz import rules as R
    rep = C.campaign(FuzzConfig(instr="tcvt", op="float8_e4m3.rint", rows=2, cols=32, oob="undefined"), "cpu@numpy",
                     "a5@numpy", 300, seed=3, shrink=False)
    assert rep.check_error is None and rep.classes
    assert all(R.explained(c.mask) for c in rep.classes.values()), rep.classes
    assert any("TCVT 8- and 4-bit types" in c.name for c in rep.classes.values()), [c.name for c in rep.classes.values()]
