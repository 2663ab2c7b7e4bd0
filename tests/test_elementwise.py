"""The element-wise family per target (docs/elementwise.md), bytes against goldens derived here
from each rule with Python integers and float64 -- never from ptogpu's own functions."""
from __future__ import annotations

import struct

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto

V, M = pto.TileType.Vec, pto.TileType.Mat
TARGETS = ("cpu", "a2a3", "a5")
pytestmark = pytest.mark.usefixtures("fresh_stack")
NP = {"int8": np.int8, "uint8": np.uint8, "int16": np.int16, "uint16": np.uint16, "int32": np.int32,
      "uint32": np.uint32, "int64": np.int64, "uint64": np.uint64, "half": np.float16,
      "bfloat16": ml_dtypes.bfloat16, "float32": np.float32}


def tiles(dt, rows, cols, n, vr=None, vc=None, layout=pto.BLayout.RowMajor, base=0x100, step=0x800):
    T = pto.Tile[V, getattr(pto, dt), rows, cols, layout, rows if vr is None else vr, cols if vc is None else vc]
    out = [T() for _ in range(n)]
    for k, t in enumerate(out):
        pto.TASSIGN(t, base + k * step)
    return out


def wrap(v: int, dt: str) -> int:
    bits = np.dtype(NP[dt]).itemsize * 8
    v &= (1 << bits) - 1
    return v - (1 << bits) if dt.startswith("int") and v >> (bits - 1) else v


def rand_ints(rng, dt, shape):
    info = np.iinfo(NP[dt])
    return rng.integers(info.min, info.max, shape, dtype=NP[dt], endpoint=True)


def f32bits(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


# -- integer arithmetic: modulo 2^width on every target -------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("call, op", [("TADD", lambda a, b: a + b), ("TSUB", lambda a, b: a - b),
                                      ("TMUL", lambda a, b: a * b)])
def test_integer_arithmetic_wraps(target, call, op):
    rng = np.random.default_rng(1)
    allowed = pto.TARGETS[target].elementwise.dtypes.get(call)
    for dt in ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64"):
        if allowed is not None and dt not in allowed:
            continue
        with pto.Core(target, "numpy"):
            d, a, b = tiles(dt, 4, 32, 3)
            x, y = rand_ints(rng, dt, (4, 32)), rand_ints(rng, dt, (4, 32))
            a.set(x), b.set(y)
            getattr(pto, call)(d, a, b)
            want = [[wrap(op(int(p), int(q)), dt) for p, q in zip(r, s)] for r, s in zip(x, y)]
            assert d.numpy().tolist() == want, (target, dt)


@pytest.mark.parametrize("target", TARGETS)
def test_float_add_and_mul_round_once_and_the_npus_flush_denormals(target):
    rng = np.random.default_rng(2)
    x = rng.standard_normal((2, 16)).astype(np.float32) * np.float32(3)
    y = rng.standard_normal((2, 16)).astype(np.float32)
    x[0, 0], y[0, 0] = np.float32(1e-39), np.float32(1e-39)          # denormals: the NPUs flush them
    with pto.Core(target, "numpy"):
        d, a, b = tiles("float32", 2, 16, 3)
        a.set(x), b.set(y)
        pto.TADD(d, a, b)
        s = d.numpy()
        pto.TMUL(d, a, b)
        p = d.numpy()
    for i in range(2):
        for j in range(16):
            xs, ys = float(x[i, j]), float(y[i, j])
            if target != "cpu" and abs(xs) < 2.0 ** -126:
                xs = ys = 0.0
            assert f32bits(float(s[i, j])) == f32bits(float(np.float32(xs + ys)))   # exact in f64, rounded once
            assert f32bits(float(p[i, j])) == f32bits(float(np.float32(xs * ys)))


@pytest.mark.parametrize("dt", ["half", "bfloat16"])
def test_half_and_bfloat16_are_rounded_once_from_the_exact_sum(dt):
    """1 + 2^-11 (half) / 1 + 2^-8 (bf16) is a tie: RNE keeps 1; 1 + 3*2^-11 rounds up."""
    eps = {"half": 2.0 ** -11, "bfloat16": 2.0 ** -8}[dt]
    with pto.Core("cpu", "numpy"):
        d, a, b = tiles(dt, 1, 16, 3)
        a.set(np.full((1, 16), 1.0, NP[dt]))
        b.set(np.array([[eps, 3 * eps] + [0.0] * 14], NP[dt]))
        pto.TADD(d, a, b)
        got = d.numpy().astype(np.float64)[0]
    assert got[0] == 1.0 and got[1] == 1.0 + 4 * eps


# -- division ---------------------------------------------------------------------------------------
def test_cpu_integer_division_truncates_and_traps_on_zero_and_min_over_minus_one():
    with pto.Core("cpu", "numpy"):
        d, a, b = tiles("int32", 1, 8, 3)
        a.set(np.array([[7, -7, 7, -7, 0, 5, 9, -9]], np.int32))
        b.set(np.array([[2, 2, -2, -2, 3, 1, 4, 4]], np.int32))
        pto.TDIV(d, a, b)
        assert d.numpy().tolist() == [[3, -3, -3, 3, 0, 5, 2, -2]]
        b.set(np.array([[2, 2, 0, 1, 1, 1, 1, 1]], np.int32))
        before = d.raw().copy()
        with pytest.raises(pto.PtoFault, match=r"SIGFPE.* at \(0, 2\)"):
            pto.TDIV(d, a, b)
        assert d.raw().tobytes() == before.tobytes()                 # nothing written
        a.set(np.array([[-2 ** 31] + [1] * 7], np.int32))
        b.set(np.array([[-1] * 8], np.int32))
        with pytest.raises(pto.PtoFault, match="MIN / -1"):
            pto.TDIV(d, a, b)
        d8, a8, b8 = tiles("int8", 1, 32, 3, base=0x4000)
        a8.set(np.full((1, 32), -128, np.int8)), b8.set(np.full((1, 32), -1, np.int8))
        pto.TDIV(d8, a8, b8)                                      # promoted to int: 128 wraps to -128
        assert d8.numpy().tolist() == [[-128] * 32]


def test_a5_integer_division():
    """vdiv on integer lanes: truncation, as the vendor's own a5 tdiv test expects (x/0 and
    MIN/-1 modelled as the 8-byte long division gives them); 8-byte: the long division."""
    with pto.Core("a5", "numpy"):
        d, a, b = tiles("int32", 1, 8, 3)
        a.set(np.array([[7, -7, 7, -7, 5, -2 ** 31, 9, 1]], np.int32))
        b.set(np.array([[2, 2, -2, -2, 0, -1, 4, 1]], np.int32))
        pto.TDIV(d, a, b)
        assert d.numpy().tolist() == [[3, -3, -3, 3, 0, -2 ** 31, 2, 1]]
        d, a, b = tiles("int64", 1, 8, 3, base=0x4000)
        a.set(np.array([[7, -7, 5, -2 ** 63, 9, 1, 2, 3]], np.int64))
        b.set(np.array([[2, 2, 0, -1, -4, 1, 1, 1]], np.int64))
        pto.TDIV(d, a, b)
        assert d.numpy().tolist() == [[3, -3, 0, -2 ** 63, -2, 1, 2, 3]]    # x/0 = 0, MIN/-1 = MIN


# -- max / min ---------------------------------------------------------------------------------------
NAN = float("nan")
MAX_IN = ([NAN, 1.0, 0.0, -0.0, 2.0], [1.0, NAN, -0.0, 0.0, 2.0])


@pytest.mark.parametrize("target, want", [
    ("cpu", [NAN, 1.0, 0.0, -0.0, 2.0]),          # std::max: src0 on NaN and ties
    ("a2a3", [NAN, NAN, -0.0, 0.0, 2.0]),         # vmax: NaN wins; (a > b) ? a : b
    ("a5", [NAN, NAN, -0.0, 0.0, 2.0])])
def test_tmax_nan_and_signed_zero(target, want):
    with pto.Core(target, "numpy"):
        d, a, b = tiles("float32", 1, 8, 3)
        a.set(np.array([MAX_IN[0] + [0, 0, 0]], np.float32)), b.set(np.array([MAX_IN[1] + [0, 0, 0]], np.float32))
        pto.TMAX(d, a, b)
        got = d.numpy()[0, :5]
    assert [f32bits(float(g)) for g in got] == [f32bits(w) for w in want]


@pytest.mark.parametrize("target, want", [("cpu", [NAN, 1.0, 5.0]), ("a5", [5.0, NAN, 5.0])])
def test_tmaxs_nan(target, want):
    """std::max(src, s) keeps src on NaN and ties; the ISA page's (src > s) ? src : s gives s."""
    with pto.Core(target, "numpy"):
        d, a = tiles("float32", 1, 8, 2)
        a.set(np.array([[NAN, 1.0, 5.0, 0, 0, 0, 0, 0]], np.float32))
        pto.TMAXS(d, a, 5.0 if target == "a5" else 1.0)
        if target == "a5":
            pto.TMAXS(d, a, NAN)
            nan_s = d.numpy()[0, 1]
            pto.TMAXS(d, a, 5.0)
            got = [d.numpy()[0, 0], nan_s, d.numpy()[0, 2]]
        else:
            got = list(d.numpy()[0, :3])
    assert [f32bits(float(g)) for g in got] == [f32bits(w) for w in want]


# -- shifts ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("target, want", [
    ("cpu", [-32766, 0, -1, 0x4001 >> 1, -1]),    # promoted to int; a count of 40 is 40 & 31 = 8: -5 >> 8 = -1
    ("a5", [-32766, 0, -1, 0x4001 >> 1, -1])])    # a count >= 16: 0 / the sign
def test_int16_shifts(target, want):
    with pto.Core(target, "numpy"):
        d, a, b = tiles("int16", 1, 16, 3)
        a.set(np.array([[0x4001, -5, -5, 0x4001, -5] + [0] * 11], np.int16))
        b.set(np.array([[1, 20, 20, 1, 40] + [0] * 11], np.int16))
        pto.TSHL(d, a, b)
        shl = d.numpy()[0]
        pto.TSHR(d, a, b)
        shr = d.numpy()[0]
    assert [shl[0], shl[1], shr[2], shr[3], shr[4]] == want


def test_a5_uint32_shift_past_the_width_gives_zero_where_the_simulator_masks_the_count():
    got = {}
    for target in ("cpu", "a5"):
        with pto.Core(target, "numpy"):
            d, a, b = tiles("uint32", 1, 8, 3)
            a.set(np.full((1, 8), 0x80000001, np.uint32)), b.set(np.full((1, 8), 33, np.uint32))
            pto.TSHR(d, a, b)
            got[target] = int(d.numpy()[0, 0])
    assert got == {"cpu": 0x80000001 >> 1, "a5": 0}


# -- unary -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_tneg_and_tabs_of_signed_zero_and_nan(target):
    bits = [0x80000000, 0xFFC00001, 0x3F800000, 0x00000001]      # -0.0, -NaN (payload 1), 1.0, a denormal
    with pto.Core(target, "numpy"):
        d, a = tiles("float32", 1, 8, 2)
        a.set(np.array([bits + [0] * 4], np.uint32).view(np.float32))
        pto.TABS(d, a)
        ab = d.raw().view(np.uint32)[:4].tolist()
        pto.TNEG(d, a)
        ng = d.raw().view(np.uint32)[:4].tolist()
    if target == "cpu":      # x < 0 ? -x : x; -x flips the sign bit
        assert ab == bits and ng == [0x00000000, 0x7FC00001, 0xBF800000, 0x80000001]
    else:                    # vabs clears the sign; vmuls(x, -1): NaN quieted, its sign kept; FTZ
        assert ab == [0x00000000, 0x7FC00001, 0x3F800000, 0x00000001]
        assert ng == [0x00000000, 0xFFC00001, 0xBF800000, 0x80000000]


def test_tabs_and_tneg_of_int_min_wrap():
    with pto.Core("cpu", "numpy"):
        d, a = tiles("int8", 1, 32, 2)
        a.set(np.array([[-128, -1, 5] + [0] * 29], np.int8))
        pto.TABS(d, a)
        assert d.numpy()[0, :3].tolist() == [-128, 1, 5]
        pto.TNEG(d, a)
        assert d.numpy()[0, :3].tolist() == [-128, 1, -5]


# -- scalar forms --------------------------------------------------------------------------------------
def test_a2a3_tsubs_goes_through_float():
    got = {}
    for target in ("cpu", "a2a3", "a5"):
        with pto.Core(target, "numpy"):
            d, a = tiles("int32", 1, 8, 2)
            a.set(np.zeros((1, 8), np.int32))
            pto.TSUBS(d, a, 16777217)
            got[target] = int(d.numpy()[0, 0])
    assert got == {"cpu": -16777217, "a2a3": -16777216, "a5": -16777217}   # (float)16777217 = 16777216


def test_a2a3_tdivs_in_place_multiplies_by_the_rounded_reciprocal():
    x = np.float32(10.0)
    with pto.Core("a2a3", "numpy"):
        d, a = tiles("float32", 1, 8, 2)
        a.set(np.full((1, 8), x, np.float32))
        pto.TDIVS(d, a, 3.0)                 # out of place: IEEE division
        out = float(d.numpy()[0, 0])
        pto.TDIVS(a, a, 3.0)                 # in place: 10 * (float)(1/3)
        inplace = float(a.numpy()[0, 0])
    assert f32bits(out) == f32bits(float(np.float32(10.0 / 3.0)))
    assert f32bits(inplace) == f32bits(float(np.float32(10.0 * float(np.float32(1.0 / 3.0)))))
    assert out != inplace


def test_a2a3_scalar_over_tile_in_place_divides_s_by_s():
    with pto.Core("a2a3", "numpy"):
        (a,) = tiles("float32", 1, 8, 1)
        a.set(np.arange(1, 9, dtype=np.float32).reshape(1, 8))
        pto.TDIVS(a, 6.0, a)
        assert a.numpy().tolist() == [[1.0] * 8]
    with pto.Core("a5", "numpy"):
        (a,) = tiles("float32", 1, 8, 1)
        a.set(np.arange(1, 9, dtype=np.float32).reshape(1, 8))
        pto.TDIVS(a, 6.0, a)
        assert a.numpy()[0, :3].tolist() == [6.0, 3.0, 2.0]


def test_cpu_scalar_over_tile_asserts_every_divisor_is_nonzero_even_for_floats():
    with pto.Core("cpu", "numpy"):
        d, a = tiles("float32", 1, 8, 2)
        a.set(np.array([[1, 2, -0.0, 4, 5, 6, 7, 8]], np.float32))
        with pytest.raises(pto.PtoFault, match=r"src != 0.* at \(0, 2\)"):
            pto.TDIVS(d, 1.0, a)
    with pto.Core("cpu", "numpy", quirks={"cpu_asserts": False}):
        d, a = tiles("float32", 1, 8, 2)
        a.set(np.array([[1, 2, -0.0, 4, 5, 6, 7, 8]], np.float32))
        pto.TDIVS(d, 1.0, a)
        assert d.numpy()[0, 2] == -np.inf


@pytest.mark.parametrize("target, want", [("cpu", [0x0F & 0x3C, 0x0F | 0x3C, 0x0F ^ 0x3C]),
                                          ("a2a3", [0x3C, 0x3C, 0x0F & ~0x3C]),
                                          ("a5", [0x0F & 0x3C, 0x0F | 0x3C, 0x0F ^ 0x3C])])
def test_bitwise_scalar_forms_in_place(target, want):
    got = []
    for call in ("TANDS", "TORS", "TXORS"):
        with pto.Core(target, "numpy"):
            a, tmp = tiles("int16", 1, 16, 2)
            a.set(np.full((1, 16), 0x0F, np.int16))
            getattr(pto, call)(a, a, 0x3C, *((tmp,) if call == "TXORS" else ()))
            got.append(int(a.numpy()[0, 0]))
    assert got == want


def test_scalar_arguments_convert_as_cpp_converts_them():
    with pto.Core("cpu", "numpy"):
        d, a = tiles("uint8", 1, 32, 2)
        a.set(np.zeros((1, 32), np.uint8))
        pto.TADDS(d, a, 300)                              # 300 mod 256
        assert int(d.numpy()[0, 0]) == 44
        pto.TADDS(d, a, 2.7)                              # truncated toward zero
        assert int(d.numpy()[0, 0]) == 2
        for bad in (-2.7, 1e30, float("nan")):          # out of uint8's range: undefined in C++
            with pytest.raises(pto.PtoCheckError, match="does not convert"):
                pto.TADDS(d, a, bad)


# -- where they write ------------------------------------------------------------------------------
def test_a2a3_bitwise_on_bytes_with_an_odd_width_writes_one_byte_more_per_row():
    for target, extra in (("a2a3", True), ("a5", False), ("cpu", False)):
        with pto.Core(target, "numpy") as core:
            d, a, b = tiles("uint8", 2, 32, 3, vr=2, vc=5)
            core.write("ub", 0, np.full(0x4000, 0xAA, np.uint8))
            x = np.full((2, 32), 0x0F, np.uint8)
            core.write("ub", a.addr, x.tobytes()), core.write("ub", b.addr, np.full(64, 0x3C, np.uint8))
            pto.TAND(d, a, b)
            row = core.read("ub", d.addr, 64).reshape(2, 32)
        assert row[0, :5].tolist() == [0x0C] * 5 and row[1, :5].tolist() == [0x0C] * 5
        assert row[0, 5] == (0x0C if extra else 0xAA) and row[1, 5] == (0x0C if extra else 0xAA), target
        assert row[0, 6] == 0xAA


def test_a2a3_txor_writes_src0_or_src1_into_tmp():
    for target, clobbers in (("a2a3", True), ("a5", False)):
        with pto.Core(target, "numpy"):
            d, a, b, tmp = tiles("int16", 1, 16, 4)
            a.set(np.full((1, 16), 0x0F, np.int16)), b.set(np.full((1, 16), 0x3C, np.int16))
            tmp.set(np.zeros((1, 16), np.int16))
            pto.TXOR(d, a, b, tmp)
            assert d.numpy()[0, 0] == 0x0F ^ 0x3C
            assert int(tmp.numpy()[0, 0]) == (0x0F | 0x3C if clobbers else 0)


def test_texpands_a2a3_fills_a_static_partial_tile_flat():
    for target in ("cpu", "a2a3"):
        with pto.Core(target, "numpy") as core:
            (d,) = tiles("int32", 2, 8, 1, vr=2, vc=3)
            core.write("ub", d.addr, bytes(64))
            pto.TEXPANDS(d, 7)
            got = core.read("ub", d.addr, 64).view(np.int32).reshape(2, 8)
        if target == "cpu":
            assert got.tolist() == [[7, 7, 7, 0, 0, 0, 0, 0]] * 2
        else:                          # VR*VC = 6 elements from the start
            assert got.tolist() == [[7] * 6 + [0, 0], [0] * 8]


def test_texpands_column_major_on_the_simulator_fills_through_the_layout():
    with pto.Core("cpu", "numpy") as core:
        (d,) = tiles("int16", 16, 4, 1, vr=2, vc=3, layout=pto.BLayout.ColMajor)
        pto.TEXPANDS(d, 9)
        got = core.read("ub", d.addr, 16 * 4 * 2).view(np.int16)
    want = np.zeros(64, np.int16)
    for c in range(3):
        for r in range(2):
            want[c * 16 + r] = 9                       # c * Rows + r
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize("target", TARGETS)
def test_tci(target):
    with pto.Core(target, "numpy"):
        (d, tmp) = tiles("int32", 1, 16, 2, vr=1, vc=5)
        T = type(d)
        pto.TCI[T, pto.int32, 0](d, 10)
        assert d.numpy().tolist() == [[10, 11, 12, 13, 14]]
        pto.TCI[T, pto.int32, 1](d, 10)
        assert d.numpy().tolist() == [[10, 9, 8, 7, 6]]
        if target == "cpu":
            with pytest.raises(pto.PtoCheckError, match="no TCI overload with tmp"):
                pto.TCI[T, T, pto.int32, 1](d, 10, tmp)
        else:
            pto.TCI[T, T, pto.int32, 1](d, 10, tmp)
            assert d.numpy().tolist() == ([[-10, -11, -12, -13, -14]] if target == "a2a3" else [[10, 9, 8, 7, 6]])
        with pytest.raises(pto.PtoCheckError, match="no default"):
            pto.TCI(d, 10)


# -- static checks -------------------------------------------------------------------------------
@pytest.mark.parametrize("target, call, dt, ok", [
    ("a2a3", "TADD", "int8", False), ("a5", "TADD", "int8", True), ("cpu", "TADD", "int8", True),
    ("a5", "TMUL", "uint8", False), ("a2a3", "TDIV", "int32", False), ("cpu", "TAND", "float32", False),
    ("a2a3", "TAND", "half", True),
    ("a5", "TAND", "float32", True), ("a5", "TXOR", "float32", False), ("a2a3", "TABS", "int32", False),
    ("a5", "TABS", "int32", True), ("a2a3", "TSHL", "uint8", True), ("a5", "TNEG", "int8", False)])
def test_element_types_per_target(target, call, dt, ok):
    with pto.Core(target, "numpy"):
        ts = tiles(dt, 1, 32, 4)
        n = {"TABS": 2, "TNEG": 2, "TXOR": 4}.get(call, 3)
        if ok:
            getattr(pto, call)(*ts[:n])
        else:
            with pytest.raises(pto.PtoCheckError, match="Invalid data type|not defined for floating"):
                getattr(pto, call)(*ts[:n])


def test_layout_and_tile_type_checks():
    with pto.Core("a5", "numpy"):
        d, a, b = tiles("float32", 8, 8, 3, layout=pto.BLayout.ColMajor)
        with pytest.raises(pto.PtoCheckError, match="row major"):
            pto.TADD(d, a, b)
    with pto.Core("cpu", "numpy"):
        d, a = tiles("float32", 8, 8, 2)
        (b,) = tiles("float32", 8, 16, 1, vc=8, base=0x4000)
        with pytest.raises(pto.PtoCheckError, match="one tile type"):
            pto.TADD(d, a, b)
        pto.TSUB(d, a, b)                                # the other calls take their own types
        (x,) = tiles("int32", 8, 8, 1, base=0x8000)
        with pytest.raises(pto.PtoCheckError, match="consistent"):
            pto.TSUB(d, a, x)
        with pytest.raises(pto.PtoCheckError, match=r"template argument 1 .* does not match"):
            pto.TSUB[type(d), type(x)](d, a, b)


def test_cpu_valid_shape_assert_of_the_element_tile_ops():
    with pto.Core("cpu", "numpy"):
        d, a, b = tiles("int32", 2, 8, 3)
        (s,) = tiles("int32", 2, 8, 1, vr=1, vc=8, base=0x4000)
        with pytest.raises(pto.PtoFault, match="valid shapes"):
            pto.TMIN(d, a, s)                          # ElementTileOp.h: a C assert, live
        pto.TADD(d, a, b)                              # PTO_ASSERT: a _DEBUG build only


# -- a core of N: each instance its own values, its own fault -------------------------------------
def test_a_core_of_n_is_n_single_cores():
    rng = np.random.default_rng(5)
    x = rng.integers(-50, 50, (3, 2, 8)).astype(np.int32)
    y = rng.integers(-3, 3, (3, 2, 8)).astype(np.int32)
    y[1, 0, 3] = 0                                          # instance 1 divides by zero
    y[0] = np.where(y[0] == 0, 1, y[0])
    y[2] = np.where(y[2] == 0, 2, y[2])
    with pto.Core("cpu", "numpy", batch=3) as core:
        d, a, b = tiles("int32", 2, 8, 3)
        a.set(x), b.set(y)
        pto.TDIV(d, a, b)
        pto.TADDS(d, d, 1)
        got = d.numpy()
        assert core.faults[1] is not None and core.faults[0] is None and core.faults[2] is None
        assert "SIGFPE" in str(core.faults[1])
    for k in (0, 2):
        want = [[wrap(int(np.trunc(p / q)) + 1, "int32") for p, q in zip(r, s)] for r, s in zip(x[k], y[k])]
        assert got[k].tolist() == want
