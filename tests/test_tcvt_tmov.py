"""TCVT and TMOV per target (docs/tcvt.md, docs/tmov.md): bytes against goldens derived here from
each rule (the round modes' definitions, x86's cvtt* results, the pair tables, the copy engines)."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import ptogpu as pto

V, M = pto.TileType.Vec, pto.TileType.Mat
RM = pto.RoundMode
pytestmark = pytest.mark.usefixtures("fresh_stack")
XS = [2.5, -2.5, 3.5, 0.5, 1.5, -0.7, 7.0, 1e-3]


def tile(dt, rows, cols, addr, vr=None, vc=None, loc=V, bl=pto.BLayout.RowMajor, sl=pto.SLayout.NoneBox):
    t = pto.Tile[loc, getattr(pto, dt), rows, cols, bl, rows if vr is None else vr, cols if vc is None else vc, sl]()
    pto.TASSIGN(t, addr)
    return t


def rounded(x: float, mode) -> int:
    fl = math.floor(x)
    frac = x - fl
    return {RM.CAST_RINT: round(x),                       # Python's round: ties to even
            RM.CAST_ROUND: fl + 1 if frac > 0.5 or (frac == 0.5 and x > 0) else fl,
            RM.CAST_FLOOR: fl, RM.CAST_CEIL: math.ceil(x), RM.CAST_TRUNC: math.trunc(x),
            RM.CAST_ODD: fl + 1 if frac > 0.5 else fl if frac < 0.5 else (fl if fl % 2 else fl + 1),
            RM.CAST_NONE: math.trunc(x)}[mode]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("mode", list(RM))
def test_float_to_int32_round_modes(target, mode):
    with pto.Core(target, "numpy"):
        f, i = tile("float32", 1, 8, 0x0), tile("int32", 1, 8, 0x100)
        f.set(np.array([XS], np.float32))
        pto.TCVT(i, f, mode)
        got = i.numpy()[0].tolist()
    m = mode
    if target != "cpu" and mode in (RM.CAST_NONE, RM.CAST_ODD):
        m = RM.CAST_TRUNC                           # no ODD for f32->s32 on the NPUs; NONE: Z
    assert got == [rounded(float(np.float32(x)), m) for x in XS]


def test_out_of_range_float_to_int():
    """The simulator's cast is undefined: x86 gives INT_MIN (8/16-bit: its low bits, 300 -> 44);
    the NPUs saturate by default (NaN modelled as 0)."""
    xs = [3e9, -3e9, float("nan"), float("inf"), 300.0, -200.0, 70000.0, 1.0]
    got = {}
    for target in ("cpu", "a5"):
        with pto.Core(target, "numpy"):
            f = tile("float32", 1, 8, 0x0)
            i, h = tile("int32", 1, 8, 0x100), tile("half", 1, 16, 0x200, vc=8)
            i16 = tile("int16", 1, 16, 0x300, vc=8)
            f.set(np.array([xs], np.float32))
            pto.TCVT(i, f, RM.CAST_RINT)
            if target == "cpu":
                pto.TCVT(i16, f, RM.CAST_RINT)
                got["cpu16"] = i16.numpy()[0].tolist()
            got[target] = i.numpy()[0].tolist()
    m = -2 ** 31
    assert got["cpu"] == [m, m, m, m, 300, -200, 70000, 1]
    assert got["cpu16"] == [0, 0, 0, 0, 300, -200, 70000 - 65536, 1]   # low 16 bits of the int32 result
    assert got["a5"] == [2 ** 31 - 1, m, 0, 2 ** 31 - 1, 300, -200, 70000, 1]


def test_npu_f32_to_f32_rounds_to_an_integral_value_where_the_simulator_copies():
    got = {}
    for target in ("cpu", "a5"):
        with pto.Core(target, "numpy"):
            a, b = tile("float32", 1, 8, 0x0), tile("float32", 1, 8, 0x100)
            a.set(np.array([XS], np.float32))
            pto.TCVT(b, a, RM.CAST_FLOOR)
            got[target] = b.numpy()[0].tolist()
    assert got["cpu"] == [float(np.float32(x)) for x in XS]
    assert got["a5"] == [float(math.floor(np.float32(x))) for x in XS]


@pytest.mark.parametrize("mode, want", [(RM.CAST_RINT, 0x3C00), (RM.CAST_CEIL, 0x3C01), (RM.CAST_FLOOR, 0x3C00),
                                        (RM.CAST_TRUNC, 0x3C00), (RM.CAST_ODD, 0x3C01)])
def test_a5_f32_to_f16_modes(mode, want):
    """1 + 2^-12 lies between 1.0 (0x3C00) and 1 + 2^-10 (0x3C01); round-to-odd picks the odd one."""
    with pto.Core("a5", "numpy"):
        a, h = tile("float32", 1, 8, 0x0), tile("half", 1, 16, 0x100, vc=8)
        a.set(np.full((1, 8), 1 + 2.0 ** -12, np.float32))
        pto.TCVT(h, a, mode)
        assert int(h.raw().view(np.uint16)[0]) == want


def test_pairs_the_code_lacks():
    with pto.Core("a5", "numpy"):
        a, b = tile("int32", 1, 8, 0x0), tile("uint32", 1, 8, 0x100)
        with pytest.raises(pto.PtoCheckError, match="no castData for int32 -> uint32"):
            pto.TCVT(b, a, RM.CAST_NONE)
    with pto.Core("a2a3", "numpy") as core:
        a, b = tile("int32", 1, 8, 0x0), tile("uint32", 1, 8, 0x100)
        core.write("ub", 0x100, np.full(32, 0xAB, np.uint8))
        a.set(np.arange(8, dtype=np.int32).reshape(1, 8))
        with pytest.warns(pto.PtoPortabilityWarning, match="writes nothing"):
            pto.TCVT(b, a, RM.CAST_NONE)
        assert core.read("ub", 0x100, 32).tolist() == [0xAB] * 32
    with pto.Core("cpu", "numpy"):
        a, b = tile("int32", 1, 8, 0x0), tile("uint32", 1, 8, 0x100)
        a.set(np.array([[-1, -2, 0, 1, 2, 3, 4, 5]], np.int32))
        pto.TCVT(b, a, RM.CAST_NONE)
        assert b.numpy()[0, :2].tolist() == [2 ** 32 - 1, 2 ** 32 - 2]


def test_saturation_defaults_and_a2a3_forcing_it_on():
    xs = [40000, -40000, 5, 0, 0, 0, 0, 0]
    got = {}
    for target, sat in (("cpu", None), ("a5", None), ("a5", pto.SaturationMode.ON), ("a2a3", pto.SaturationMode.OFF)):
        with pto.Core(target, "numpy"):
            a, b = tile("int32", 1, 8, 0x0), tile("int16", 1, 16, 0x100, vc=8)
            a.set(np.array([xs], np.int32))
            pto.TCVT(b, a, RM.CAST_NONE, *(() if sat is None else (sat,)))
            got[(target, sat)] = b.numpy()[0, :3].tolist()
    wrap = [40000 - 65536, -40000 + 65536, 5]
    assert got[("cpu", None)] == wrap                       # C++: modulo 2^16
    assert got[("a5", None)] == wrap                        # s32 -> s16 defaults to OFF on the NPUs
    assert got[("a5", pto.SaturationMode.ON)] == [32767, -32768, 5]
    assert got[("a2a3", pto.SaturationMode.OFF)] == wrap    # a narrowing pair: OFF honoured


def test_tcvt_region_is_src_valid_on_the_simulator_and_dst_valid_on_the_npus():
    for target, n in (("cpu", 3), ("a5", 5)):
        with pto.Core(target, "numpy") as core:
            a, b = tile("int32", 1, 8, 0x0, vc=3), tile("float32", 1, 8, 0x100, vc=5)
            core.write("ub", 0, np.arange(8, dtype=np.int32).tobytes())
            core.write("ub", 0x100, np.full(8, -1, np.float32).tobytes())
            pto.TCVT(b, a, RM.CAST_RINT)
            got = core.read("ub", 0x100, 32).view(np.float32).tolist()
        assert got == [float(k) for k in range(n)] + [-1.0] * (8 - n)


# -- TMOV ------------------------------------------------------------------------------------------
def test_tmov_vec_to_vec_per_target():
    out = {}
    for target in ("cpu", "a2a3", "a5"):
        with pto.Core(target, "numpy") as core:
            src, dst = tile("int16", 2, 32, 0x0, vc=5), tile("int16", 2, 32, 0x100, vc=5)
            core.write("ub", 0, np.arange(64, dtype=np.int16).tobytes())
            core.write("ub", 0x100, np.full(64, -1, np.int16).tobytes())
            pto.TMOV(dst, src)
            out[target] = core.read("ub", 0x100, 128).view(np.int16).reshape(2, 32)
    for target in ("cpu", "a5"):                 # exactly the valid 5 columns a row
        assert out[target][:, :5].tolist() == [list(range(5)), list(range(32, 37))]
        assert (out[target][:, 5:] == -1).all()
    # A2/A3: ceil(5 * 2 / 32) = 1 block (16 elements) a row
    assert out["a2a3"][:, :16].tolist() == [list(range(16)), list(range(32, 48))]
    assert (out["a2a3"][:, 16:] == -1).all()


def test_tmov_converts_values_on_the_simulator_and_refuses_other_sizes_on_a2a3():
    with pto.Core("cpu", "numpy"):
        a, b = tile("float32", 1, 8, 0x0), tile("half", 1, 16, 0x100, vc=8)
        a.set(np.array([[1.5, 65520.0, -0.0, 3.0, 0, 0, 0, 0]], np.float32))
        pto.TMOV(b, a)
        assert b.numpy()[0, :4].tolist() == [1.5, float("inf"), -0.0, 3.0]
    with pto.Core("a2a3", "numpy"):
        a, b = tile("float32", 1, 8, 0x0), tile("half", 1, 16, 0x100)
        with pytest.raises(pto.PtoCheckError):
            pto.TMOV(b, a)


def test_tmov_mat_to_vec():
    for target in ("cpu", "a2a3", "a5"):
        with pto.Core(target, "numpy") as core:
            m = tile("half", 16, 16, 0x0, loc=M, bl=pto.BLayout.ColMajor, sl=pto.SLayout.RowMajor)    # NZ in L1
            v = tile("half", 16, 16, 0x0)
            core.write("l1", 0, np.arange(256, dtype=np.float16).tobytes())
            core.write("ub", 0, np.full(256, -1, np.float16).tobytes())
            if target == "a2a3":
                with pytest.raises(pto.PtoCheckError, match="Invalid TileType"):
                    pto.TMOV(v, m)
                continue
            if target == "a5":
                with pytest.warns(pto.PtoPortabilityWarning, match="writes nothing"):
                    pto.TMOV(v, m)
                assert (v.numpy() == -1).all()
                continue
            pto.TMOV(v, m)
            got = v.numpy()
        # NZ half: (c / 16) * 16 * 16 + r * 16 + c % 16
        assert got[1, 0] == 16 and got[0, 1] == 1 and got[3, 5] == 3 * 16 + 5


def test_a5_tmov_nd_to_nz_lays_fractal_columns_by_the_valid_rows():
    with pto.Core("a5", "numpy") as core:
        src = tile("half", 20, 32, 0x0)
        dst = tile("half", 32, 32, 0x1000, vr=20, bl=pto.BLayout.ColMajor, sl=pto.SLayout.RowMajor)
        core.write("ub", 0x1000, np.full(1024, -1, np.float16).tobytes())
        src.set(np.arange(640, dtype=np.float16).reshape(20, 32))
        pto.TMOV(dst, src)
        got = core.read("ub", 0x1000, 2048).view(np.float16)
    V_ = 32                                   # ceil16(20)
    for r, c in ((0, 0), (19, 31), (5, 17)):
        assert got[(c // 16) * V_ * 16 + r * 16 + c % 16] == r * 32 + c
    assert got[(0 * V_ + 25) * 16] == -1      # pad rows 20..31 are not written


def test_a5_nz_vec_to_l1_is_bursts_with_the_src_gap():
    # a5/TExtract.hpp:416-421: ceil(VC/C0) bursts of ceil16(VR) blocks, src stepping Src::Rows rows
    # (its NZ column blocks), dst Dst::Rows-aligned: a 40-row NZ Vec tile into a 32-row Mat tile,
    # 20 valid rows (ceil16: 32 rows moved per block), 20 valid float columns (C0 = 8: 3 bursts)
    import ptogpu as pto
    V, M, CM, SR = pto.TileType.Vec, pto.TileType.Mat, pto.BLayout.ColMajor, pto.SLayout.RowMajor
    with pto.Core("a5", "numpy") as core:
        src = pto.Tile[V, pto.float32, 40, 24, CM, 20, 20, SR]()
        dst = pto.Tile[M, pto.float32, 32, 24, CM, 20, 20, SR]()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(dst, 0)
        ub = np.arange(40 * 24, dtype=np.uint32)
        core.write("ub", 0, ub.tobytes())
        core.write("l1", 0, np.full(32 * 24, 0xDEADBEEF, np.uint32).tobytes())
        pto.TMOV(dst, src)
        got = np.frombuffer(core.read("l1", 0, 32 * 24 * 4).tobytes(), np.uint32)
    want = np.full(32 * 24, 0xDEADBEEF, np.uint32)
    for k in range(3):                            # 32 rows x 8 floats = 256 words a burst
        want[k * 256:(k + 1) * 256] = ub[k * 40 * 8: k * 40 * 8 + 256]
    assert got.tolist() == want.tolist()


def test_a5_vec_to_l1_from_another_layout_writes_nothing():
    import ptogpu as pto
    V, M = pto.TileType.Vec, pto.TileType.Mat
    with pto.Core("a5", "numpy") as core:
        src = pto.Tile[V, pto.float32, 16, 16, pto.BLayout.RowMajor, 16, 16, pto.SLayout.ColMajor]()   # ZN
        dst = pto.Tile[M, pto.float32, 16, 16, pto.BLayout.ColMajor, 16, 16, pto.SLayout.RowMajor]()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(dst, 0)
        core.write("ub", 0, bytes(range(256)) * 4)
        with pytest.warns(pto.PtoPortabilityWarning, match="writes nothing"):
            pto.TMOV(dst, src)
        assert core.read("l1", 0, 1024).tobytes() == bytes(1024)
