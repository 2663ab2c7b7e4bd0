"""The 4-bit element types (int4, float4_e2m1x2, float4_e1m2x2) per target: where they exist,
how TLOAD/TSTORE move them, how TCVT converts them. Goldens are derived here from the rules
(docs/tcvt.md "4-bit types"); the simulator's vectors marked so were run through the vendor's
headers (cpu/TCvt.hpp, MXTypes.hpp built with g++ 12)."""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto

V, RM, SL = pto.TileType.Vec, pto.BLayout.RowMajor, pto.SLayout
RND, SAT = pto.RoundMode, pto.SaturationMode
E2M1, E1M2 = pto.float4_e2m1x2, pto.float4_e1m2x2
pytestmark = pytest.mark.usefixtures("fresh_stack")


def gt(dtype, ptr, rows, cols, stride):
    return pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, rows, cols], pto.Stride[1, 1, 1, stride, 1]](ptr)


def typed(core, raw, dtype):
    return core.gm_put(np.ascontiguousarray(raw, np.uint8).reshape(-1)).cast(dtype)


def nib(raw: np.ndarray, k: np.ndarray) -> np.ndarray:
    """Nibble k of a byte array, the even element low."""
    return (raw[k // 2] >> (4 * (k % 2))) & 0xF


# -- where the types exist --------------------------------------------------------------------------
@pytest.mark.parametrize("target,dtype,ok", [
    ("cpu", pto.int4, True), ("cpu", E2M1, True), ("cpu", E1M2, True),
    ("a2a3", pto.int4, True), ("a2a3", E2M1, False), ("a2a3", E1M2, False),
    ("a5", E2M1, True), ("a5", E1M2, True), ("a5", pto.int4, False)])
def test_four_bit_types_exist_where_the_targets_code_has_them(target, dtype, ok):
    with pto.Core(target, "numpy"):
        if ok:
            T = pto.Tile[V, dtype, 4, 64]
            assert T.nbytes == (4 * 64 if T.DType == "int4" else 4 * 32)     # GetSizeInBytes
        else:
            with pytest.raises(pto.PtoCheckError, match="Tile: element type"):
                pto.Tile[V, dtype, 4, 64]


def test_the_32_byte_rule_counts_sizeof_1_so_a_float4_row_of_32_is_16_bytes():
    with pto.Core("a5", "numpy"):
        assert pto.Tile[V, E2M1, 4, 32].nbytes == 64
        with pytest.raises(pto.PtoCheckError, match="32-byte rule"):
            pto.Tile[V, E2M1, 4, 16]


def test_other_instructions_refuse_four_bit_tiles():
    with pto.Core("cpu", "numpy"):
        a, b = pto.Tile[V, pto.int4, 1, 32](), pto.Tile[V, pto.int4, 1, 32]()
        pto.TASSIGN(a, 0)
        pto.TASSIGN(b, 64)
        with pytest.raises(pto.PtoCheckError, match="TADD: 4-bit element types"):
            pto.TADD(a, a, b)


def test_a2a3_tload_of_an_int4_tile_is_its_static_assert():
    with pto.Core("a2a3", "numpy") as core:
        t = pto.Tile[V, pto.int4, 1, 64]()
        pto.TASSIGN(t, 0)
        with pytest.raises(pto.PtoCheckError, match="Data type must be int8_t"):
            pto.TLOAD(t, gt(pto.int4, core.gm_put(np.zeros(64, np.uint8), "int4"), 1, 64, 64))


def test_tcvt_between_float8_and_float4_is_refused_on_the_simulator():
    with pto.Core("cpu", "numpy"):
        a, b = pto.Tile[V, pto.float8_e4m3, 1, 32](), pto.Tile[V, E2M1, 1, 32]()
        pto.TASSIGN(a, 0)
        pto.TASSIGN(b, 64)
        with pytest.raises(pto.PtoCheckError, match="ptogpu converts 4-bit types"):
            pto.TCVT(b, a, RND.CAST_RINT)


# -- TLOAD / TSTORE ---------------------------------------------------------------------------------
def test_cpu_moves_float4_element_by_element_repacking_odd_strides():
    """GetElement/SetElement: GM element k is nibble k of the buffer; a GM row stride of 33
    elements starts odd rows mid-byte, the tile's rows (64 elements) on bytes; the tile is
    zero-filled first (Numel/2 bytes); TSTORE writes the valid nibbles only."""
    raw = (np.arange(200) * 37 % 256).astype(np.uint8)
    with pto.Core("cpu", "numpy") as core:
        core.write("ub", 0, np.full(256, 0xEE, np.uint8))
        t = pto.Tile[V, E2M1, 3, 64, RM, -1, -1](3, 5)
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gt(E2M1, typed(core, raw, E2M1), 3, 5, 33))
        ub = core.read("ub", 0, 128)
        want = np.zeros(96, np.uint8)
        for r in range(3):
            for c in range(5):
                k = r * 64 + c
                want[k // 2] |= nib(raw, np.array(r * 33 + c)) << (4 * (k % 2))
        assert ub[:96].tobytes() == want.tobytes() and (ub[96:] == 0xEE).all()
        np.testing.assert_array_equal(t.numpy(), np.array([[nib(raw, np.array(r * 33 + c)) for c in range(5)]
                                                           for r in range(3)]))
        out = typed(core, np.full(60, 0xFF, np.uint8), E2M1)
        pto.TSTORE(gt(E2M1, out, 3, 5, 33), t)
        g = core.read("gm", out.addr, 60)
        want_g = np.full(60, 0xFF, np.uint8)
        for r in range(3):
            for c in range(5):
                k = r * 33 + c
                want_g[k // 2] = (want_g[k // 2] & (0xF0 if k % 2 == 0 else 0x0F)) | \
                    (nib(raw, np.array(k)) << (4 * (k % 2)))
        assert g.tobytes() == want_g.tobytes()


@pytest.mark.parametrize("pad", [None, pto.PadValue.Max, pto.PadCustom(0x1234)])
def test_a5_float4_row_filler_follows_the_pad_value(pad):
    """Each row's burst of ceil(VC/2) bytes is followed by its filler to the 32-byte boundary:
    the burst's first byte without a PadVal (no data select), else the pad register's low byte
    (PadValueMap<float4_e1m2x2_t, *> = 0; a custom value's bits & 0xFF)."""
    raw = (np.arange(200) * 11 % 256 + 1).astype(np.uint8)
    params = () if pad is None else (SL.NoneBox, 512, pad)
    with pto.Core("a5", "numpy") as core:
        core.write("ub", 0, np.full(256, 0xEE, np.uint8))
        t = pto.Tile[V, E1M2, 3, 128, RM, -1, -1, *params](3, 5)
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gt(E1M2, typed(core, raw, E1M2), 3, 5, 33))
        ub = core.read("ub", 0, 192).reshape(3, 64)
        for r in range(3):
            fill = raw[17 * r] if pad is None else (0 if pad is pto.PadValue.Max else 0x34)
            assert ub[r, :3].tobytes() == raw[17 * r: 17 * r + 3].tobytes()
            assert (ub[r, 3:32] == fill).all() and (ub[r, 32:] == 0xEE).all()


def test_a5_moves_float4_rows_as_ceil_half_byte_bursts():
    """TLoadVecND2ND: ceil(VC/2) bytes a row (an odd width's boundary byte whole), GM rows
    ceil(33/2) = 17 bytes apart, UB rows Cols/2; TSTORE the same bytes back. The rest of each
    32-byte row is the burst's filler (its first byte: the tile has no PadVal)."""
    raw = (np.arange(200) * 11 % 256).astype(np.uint8)
    with pto.Core("a5", "numpy") as core:
        core.write("ub", 0, np.full(128, 0xEE, np.uint8))
        t = pto.Tile[V, E1M2, 3, 64, RM, -1, -1](3, 5)
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gt(E1M2, typed(core, raw, E1M2), 3, 5, 33))
        ub = core.read("ub", 0, 96).reshape(3, 32)
        for r in range(3):
            assert ub[r, :3].tobytes() == raw[17 * r: 17 * r + 3].tobytes() and (ub[r, 3:] == raw[17 * r]).all()
        out = typed(core, np.zeros(60, np.uint8), E1M2)
        pto.TSTORE(gt(E1M2, out, 3, 5, 33), t)
        g = core.read("gm", out.addr, 60)
        want = np.zeros(60, np.uint8)
        for r in range(3):
            want[17 * r: 17 * r + 3] = raw[17 * r: 17 * r + 3]
        assert g.tobytes() == want.tobytes()


def test_cpu_int4_moves_one_byte_an_element_high_nibble_and_all():
    raw = np.array([0x3F, 0xA1, 0x07, 0x88] * 8, np.uint8)
    with pto.Core("cpu", "numpy") as core:
        t = pto.Tile[V, pto.int4, 1, 32]()
        pto.TASSIGN(t, 0)
        pto.TLOAD(t, gt(pto.int4, core.gm_put(raw, "int4"), 1, 32, 32))
        assert core.read("ub", 0, 32).tobytes() == raw.tobytes()


# -- TCVT, the simulator (vectors run through the vendor's headers) ----------------------------------
def cpu_convert(src_dtype, dst_dtype, values, mode, sat):
    n = len(values)
    with pto.Core("cpu", "numpy") as core:
        s = pto.Tile[V, src_dtype, 1, 32, RM, 1, n]()
        d = pto.Tile[V, dst_dtype, 1, 32, RM, 1, n]()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 256)
        core.write("ub", 256, np.zeros(128, np.uint8))
        packed = ("float4_e2m1x2", "float4_e1m2x2")
        if pto.dtypes.name_of(src_dtype) in packed:
            s.set(np.asarray(values, np.uint8).reshape(1, n))
        else:
            core.write("ub", 0, np.asarray(values, pto.dtypes.storage(src_dtype)).view(np.uint8))
        pto.TCVT(d, s, mode, sat)
        nb = (n + 1) // 2 if pto.dtypes.name_of(dst_dtype) in packed else n * pto.dtypes.as_dtype(dst_dtype).itemsize
        return core.read("ub", 256, nb)


def test_cpu_float_to_e2m1_truncates_wraps_and_rounds_first():
    """Vectors from the vendor's headers: RINT then MXType(double): e2m1 ON {1, 6, NaN, -NaN,
    inf, 3.7} -> 72 77 67; OFF -> 72 b3 62; e1m2 ON {3.5, -4, NaN, 1.6, 2, 0.4, 1, 6} -> c4 04 00 44."""
    nan = np.float32(np.nan)
    e2 = np.array([1, 6, nan, -nan, np.inf, 3.7], np.float32)
    assert cpu_convert(pto.float32, E2M1, e2, RND.CAST_RINT, SAT.ON).tobytes().hex() == "727767"
    assert cpu_convert(pto.float32, E2M1, e2, RND.CAST_RINT, SAT.OFF).tobytes().hex() == "72b362"
    e1 = np.array([3.5, -4, nan, 1.6, 2, 0.4, 1, 6], np.float32)
    assert cpu_convert(pto.float32, E1M2, e1, RND.CAST_RINT, SAT.ON).tobytes().hex() == "c4040044"


def test_cpu_float_to_e2m1_without_rounding_keeps_the_truncating_encoder():
    """CAST_NONE reaches MXType(double) unrounded: 0.5 -> 0 (no implicit bit at exponent 0), 0.75
    -> 0.5, 1.5 -> 0x3, 5 -> 4 (0x6), 8 -> 0 (the exponent wraps), 12 -> 0.5, -0.0 -> +0."""
    v = np.array([0.5, 0.75, 1.5, 5, 8, 12, -0.0, -1.0], np.float32)
    codes = [0x0, 0x1, 0x3, 0x6, 0x0, 0x1, 0x0, 0xA]
    want = bytes((codes[i] | codes[i + 1] << 4) for i in range(0, 8, 2))
    assert cpu_convert(pto.float32, E2M1, v, RND.CAST_NONE, SAT.OFF).tobytes() == want


def test_cpu_float_to_int4_always_clamps_nan_to_7():
    v = np.array([-9.5, -7.5, -0.5, 0.5, 1.5, 2.5, 6.5, 7.5, np.nan, np.inf, -np.inf], np.float32)
    want = [0x8, 0x8, 0x0, 0x0, 0x2, 0x2, 0x6, 0x7, 0x7, 0x7, 0x8]
    for sat in (SAT.OFF, SAT.ON):
        assert list(cpu_convert(pto.float32, pto.int4, v, RND.CAST_RINT, sat)) == want


def test_cpu_e2m1_to_float_rounds_and_reads_0x8_as_plus_zero():
    codes = np.arange(16, dtype=np.uint8)
    got = cpu_convert(E2M1, pto.float32, codes, RND.CAST_RINT, SAT.OFF).view(np.float32)
    want = np.array([0, 0, 1, 2, 2, 3, 4, 6, 0, -0.0, -1, -2, -2, -3, -4, -6], np.float32)
    assert got.tobytes() == want.tobytes()


# -- TCVT, A5 ---------------------------------------------------------------------------------------
def test_a5_bf16_to_e2m1_rounds_to_the_even_code_saturates_and_zeroes_rows():
    """Ties to the even code, past 6 saturating, x < 0 the sign; an odd valid width drops its last
    element (its byte 0) and the valid rows are zeroed to Cols/2 bytes first; rows past VR kept."""
    v = np.array([0.25, 0.75, 1.25, 1.75, 2.5, 3.5, 5, 7, -0.1, -0.0, -9, 0.3, 1], np.float32)
    codes = [0, 2, 2, 4, 4, 6, 6, 7, 8, 0, 15, 1]                 # (the 13th is dropped)
    with pto.Core("a5", "numpy") as core:
        core.write("ub", 0x1000, np.full(64, 0xEE, np.uint8))
        s = pto.Tile[V, pto.bfloat16, 2, 64, RM, -1, -1](1, 13)
        d = pto.Tile[V, E2M1, 2, 64, RM, -1, -1](1, 13)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        core.write("ub", 0, v.astype(ml_dtypes.bfloat16).view(np.uint8))
        pto.TCVT(d, s, RND.CAST_RINT)
        got = core.read("ub", 0x1000, 64)
    want = np.array([codes[i] | codes[i + 1] << 4 for i in range(0, 12, 2)] + [0] * 26 + [0xEE] * 32, np.uint8)
    assert got.tobytes() == want.tobytes()


def test_a5_fp4_to_bf16_over_a_run_past_256_writes_128_values_too_many():
    """The two predicates step by 128 where a loop step takes 256: a run of 300 writes elements
    [0, 428), the ones past 300 decoded from the bytes after the valid ones."""
    raw = (np.arange(256) * 73 % 256).astype(np.uint8)
    grid = np.array([0, .5, 1, 1.5, 2, 3, 4, 6])
    with pto.Core("a5", "numpy") as core:
        core.write("ub", 0, raw)
        core.write("ub", 0x2000, np.full(1024, 0xEE, np.uint8))
        s = pto.Tile[V, E2M1, 1, 512, RM, -1, -1](1, 300)
        d = pto.Tile[V, pto.bfloat16, 1, 512, RM, -1, -1](1, 300)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x2000)
        pto.TCVT(d, s, RND.CAST_RINT)
        got = core.read("ub", 0x2000, 1024)
    k = np.arange(428)
    c = nib(raw, k)
    vals = np.where(c & 8, -grid[c & 7], grid[c & 7]).astype(ml_dtypes.bfloat16).view(np.uint8)
    assert got[:856].tobytes() == vals.tobytes() and (got[856:] == 0xEE).all()


def test_a5_tcvt_on_a_core_of_n_converts_each_instance():
    rows = np.array([[0.7, -2.4, 5.5, 100]] * 3, np.float32) * np.array([[1], [-1], [0.5]], np.float32)
    grid = np.array([0, .5, 1, 1.5, 2, 3, 4, 6])

    def enc(x):                                   # nearest, ties to the even code, saturating
        a = min(abs(x), 6.0)
        d = np.abs(grid - a)
        best = np.flatnonzero(d == d.min())
        return int(best[best % 2 == 0][0] if (best % 2 == 0).any() else best[0]) | (8 if x < 0 else 0)
    with pto.Core("a5", "numpy", batch=3):
        s = pto.Tile[V, pto.bfloat16, 1, 64]()
        d = pto.Tile[V, E2M1, 1, 64, RM, 1, 4]()
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x400)
        full = np.zeros((3, 1, 64), ml_dtypes.bfloat16)
        full[:, 0, :4] = rows.astype(ml_dtypes.bfloat16)
        s.set(full)
        pto.TCVT(d, s, RND.CAST_RINT)
        got = d.numpy()
    want = np.array([[[enc(float(x)) for x in r.astype(ml_dtypes.bfloat16).astype(np.float32)]] for r in rows])
    np.testing.assert_array_equal(got, want)


# -- TCVT, A2/A3 --------------------------------------------------------------------------------------
def test_a2a3_half_to_int4_puts_a_tail_past_128_columns_64_bytes_a_repeat_on():
    """Rows Cols bytes apart, the head's 128 elements packed from the row's start, the tail's
    packed pointer advanced 128 bytes a repeat (a2a3/TCvt.hpp:1140): with 200 valid columns the
    tail's 72 elements land at bytes 128..163; bytes 64..127 stay."""
    v = (np.arange(200) % 16 - 8).astype(np.float16)
    with pto.Core("a2a3", "numpy") as core:
        core.write("ub", 0x1000, np.full(256, 0xEE, np.uint8))
        s = pto.Tile[V, pto.half, 1, 256, RM, -1, -1](1, 200)
        d = pto.Tile[V, pto.int4, 1, 256, RM, -1, -1](1, 200)
        pto.TASSIGN(s, 0)
        pto.TASSIGN(d, 0x1000)
        core.write("ub", 0, v.view(np.uint8))
        pto.TCVT(d, s, RND.CAST_RINT)
        got = core.read("ub", 0x1000, 256)
    q = (v.astype(np.int64) & 0xF).astype(np.uint8)
    want = np.full(256, 0xEE, np.uint8)
    want[:64] = q[0:128:2] | q[1:128:2] << 4
    want[128:164] = q[128:200:2] | q[129:200:2] << 4
    assert got.tobytes() == want.tobytes()


def test_the_simulators_tassign_bound_counts_a_float4_tile_unpacked():
    """NPUMemoryModel's bound is Numel * sizeof(T): a 64x64 float4 tile (2 KiB of bytes) counts 4
    KiB, so at 3 KiB below UB's end it faults on the simulator; A5 places it (it fits)."""
    for target, faults in (("cpu", True), ("a5", False)):
        with pto.Core(target, "numpy") as core:
            t = pto.Tile[V, E2M1, 64, 64]()
            at = core.ub.size - 3 * 1024
            if faults:
                with pytest.raises(pto.PtoFault, match="tile of 4096 bytes"):
                    pto.TASSIGN(t, at)
            else:
                pto.TASSIGN(t, at)
                assert t.addr == at and t.nbytes == 2048


def test_a_float4_tiles_codes_round_trip_on_a_core_of_n():
    codes = np.array([[[1, 15, 8, 7, 0]], [[2, 3, 4, 5, 6]], [[9, 10, 11, 12, 13]]], np.uint8)
    with pto.Core("a5", "numpy", batch=3) as core:
        t = pto.Tile[V, E1M2, 1, 32, RM, 1, 5]()
        pto.TASSIGN(t, 0x40)
        core.write("ub", 0x40, np.full(16, 0xEE, np.uint8))
        t.set(codes)
        np.testing.assert_array_equal(t.numpy(), codes)
        raw = core.read("ub", 0x40, 4)
    want = np.array([[c[0, 0] | c[0, 1] << 4, c[0, 2] | c[0, 3] << 4, c[0, 4] | 0xE0, 0xEE] for c in codes], np.uint8)
    assert raw.tobytes() == want.tobytes()
    with pto.Core("a5", "numpy"):
        t = pto.Tile[V, E1M2, 1, 32, RM, 1, 2]()
        pto.TASSIGN(t, 0)
        with pytest.raises(ValueError, match="4-bit code"):
            t.set(np.array([[3, 16]], np.uint8))


def test_a5_refuses_the_float4_moves_it_does_not_model():
    """ptogpu moves A5's 4-bit tiles ND <-> RowMajor, DN <-> ColMajor and NZ <-> NZ Vec only; a Mat
    tile is a PtoCheckError naming that limit, and nothing moves."""
    with pto.Core("a5", "numpy") as core:
        src = typed(core, np.arange(64, dtype=np.uint8), E2M1)
        t = pto.Tile[pto.TileType.Mat, E2M1, 16, 64]()
        g = gt(E2M1, src, 2, 64, 64)
        pto.TASSIGN(t, 0)
        before = core.read("l1", 0, 64).copy()
        for f, args in ((pto.TLOAD, (t, g)), (pto.TSTORE, (g, t))):
            with pytest.raises(pto.PtoCheckError, match="NZ <-> NZ Vec only"):
                f(*args)
        assert (core.read("l1", 0, 64) == before).all()


def test_a5_moves_float4_dn_columns_as_ceil_half_byte_bursts():
    """TLoadVecDN2DN / TStoreVecDN: each valid column a burst of ceil(VR/2) bytes (an odd height's
    boundary byte whole), GM columns ceil(Stride[4]/2) bytes apart, UB columns Rows/2; each load
    burst followed by its filler to 32 bytes (its first byte: no PadVal); TSTORE the bytes back."""
    raw = (np.arange(200) * 7 % 256 + 1).astype(np.uint8)
    VR, VC, ST = 5, 3, 33                                   # GM column k at byte ceil(33/2) * k = 17k
    with pto.Core("a5", "numpy") as core:
        core.write("ub", 0, np.full(256, 0xEE, np.uint8))
        t = pto.Tile[V, E2M1, 64, 4, pto.BLayout.ColMajor, -1, -1](VR, VC)
        pto.TASSIGN(t, 0)
        G = pto.GlobalTensor[E2M1, pto.Shape[1, 1, 1, VR, VC], pto.Stride[1, 1, 1, 1, ST], pto.Layout.DN]
        pto.TLOAD(t, G(typed(core, raw, E2M1)))
        ub = core.read("ub", 0, 128).reshape(4, 32)        # column c at c * 64/2 bytes
        for c in range(VC):
            assert ub[c, :3].tobytes() == raw[17 * c: 17 * c + 3].tobytes() and (ub[c, 3:] == raw[17 * c]).all()
        assert (ub[VC:] == 0xEE).all()
        out = typed(core, np.zeros(60, np.uint8), E2M1)
        pto.TSTORE(G(out), t)
        want = np.zeros(60, np.uint8)
        for c in range(VC):
            want[17 * c: 17 * c + 3] = raw[17 * c: 17 * c + 3]
        assert core.read("gm", out.addr, 60).tobytes() == want.tobytes()
