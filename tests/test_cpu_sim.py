"""The ``cpu`` target against the vendor's CPU simulator (include/pto/cpu/): memory sizes,
what it accepts and rejects, its loops' addressing and order. Goldens come from the rules,
written out here over plain byte arrays."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto

V, M = pto.TileType.Vec, pto.TileType.Mat
KiB = 1024


def test_cpu_ub_is_512_kib_and_resizable_the_npus_are_fixed():
    assert pto.Core("cpu", "numpy").ub.size == 512 * KiB
    with pto.Core("cpu", "numpy"):
        t = pto.Tile[V, pto.float32, 1, 8]()
        pto.TASSIGN(t, 400 * KiB)                      # past A5's 216 KiB, inside the simulator's UB
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(t, 512 * KiB)
    big = pto.Core("cpu", "numpy", ub_bytes=2048 * KiB, l1_bytes=1024 * KiB)
    assert (big.ub.size, big.l1.size) == (2048 * KiB, 1024 * KiB)
    with big:
        pto.TASSIGN(pto.Tile[V, pto.float32, 1, 8](), 1500 * KiB)
        pto.TASSIGN(pto.Tile[M, pto.float32, 16, 8, pto.BLayout.ColMajor, 16, 8, pto.SLayout.RowMajor, 512](),
                    900 * KiB)
    for target in ("a2a3", "a5"):
        with pytest.raises(ValueError, match="fixed by the hardware"):
            pto.Core(target, "numpy", ub_bytes=1024 * KiB)
    with pto.Core("a5", "numpy"):
        with pytest.raises(pto.PtoFault):
            pto.TASSIGN(pto.Tile[V, pto.float32, 1, 8](), 400 * KiB)


CM, RM = pto.BLayout.ColMajor, pto.BLayout.RowMajor
NB, SRM, SCM = pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
# (Tile parameters, accepted?): pto_tile.hpp:1399-1425 (inner box), :1516-1531 (the asserts)
TILE_RULES = [
    ((V, pto.float32, 16, 8, RM, 16, 8, NB, 1024), False),    # NoneBox 1024 still has a 16x16 box: Cols % 16
    ((V, pto.float32, 16, 16, RM, 16, 16, NB, 1024), True),
    ((V, pto.float32, 3, 16, RM, 3, 16, NB, 1024), True),     # Vec: exempt from Rows % InnerRows
    ((M, pto.float32, 3, 16, RM, 3, 16, NB, 1024), False),    # Mat: Rows % 16
    ((M, pto.float32, 1, 16, RM, 1, 16, NB, 1024), True),     # ... unless Rows == 1
    ((V, pto.int8, 4, 8, RM, 4, 8, NB, 32), False),           # NoneBox MX: a 2x16 box, Cols % 16
    ((M, pto.int8, 3, 32, RM, 3, 32, SRM, 32), True),         # boxed MX: exempt from Rows % InnerRows
    ((M, pto.float32, 1, 16, CM, 1, 16, SRM, 512), True),     # boxed, Rows == 1: exempt
    ((M, pto.float32, 8, 16, CM, 8, 16, SRM, 512), False),    # boxed Mat: Rows % 16
    ((V, pto.float32, 8, 16, CM, 8, 16, SRM, 512), True),     # boxed Vec: exempt
]


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("params,ok", TILE_RULES, ids=[str(i) for i in range(len(TILE_RULES))])
def test_tile_template_asserts_as_pto_tile_hpp(target, params, ok):
    with pto.Core(target, "numpy"):
        if ok:
            pto.Tile[params]()
        else:
            with pytest.raises(pto.PtoCheckError, match="Inner"):
                pto.Tile[params]()


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_cpu_misaligned_tiles_gather_like_aligned_ones(backend):
    """Unaligned TASSIGN on cpu binds (bounds only); MGATHER then writes dst(r, c) at its
    byte address + 4*(r*Cols + c) with table[idx] — on every backend."""
    import warnings
    with pto.Core("cpu", backend) as core, warnings.catch_warnings():
        warnings.simplefilter("ignore", pto.PtoPortabilityWarning)
        vals = np.arange(64, dtype=np.float32) * 3
        T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
        table = T(core.gm_put(vals))
        idx, dst = pto.Tile[V, pto.int32, 2, 8](), pto.Tile[V, pto.float32, 2, 8]()
        pto.TASSIGN(idx, 0x104)
        pto.TASSIGN(dst, 0x205)
        ii = (np.arange(16, dtype=np.int32).reshape(2, 8) * 5) % 64
        idx.set(ii)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        assert core.read("ub", 0x205, 64).tobytes() == vals[ii].tobytes()


# -- TINTERLEAVE / TDEINTERLEAVE: the simulator's loops ----------------------------------------
def _zz_off(r, c, cols, c0=16):
    """Zz (RowMajor boxes of 16 x c0, boxes row-major): the simulator's GetTileElementOffset."""
    return ((r // 16) * (cols // c0) + c // c0) * 16 * c0 + (r % 16) * c0 + c % c0


def _loop_interleave(mem, d1, d0, s1, s0, VR, VC, off_d, off_s, dsz, ssz, conv):
    """cpu/TInterleave.hpp: per (r, c < VC/2) four assignments in program order, each reading
    its source element just before its store."""
    def rd(t, o):
        return np.frombuffer(bytes(mem[t + o * ssz:t + (o + 1) * ssz]), conv[0])[0]

    def wr(t, o, v):
        mem[t + o * dsz:t + (o + 1) * dsz] = np.array([v]).astype(conv[1]).tobytes()
    h = VC // 2
    for r in range(VR):
        for c in range(h):
            L, R = off_s(r, c), off_s(r, c + h)
            wr(d0, off_d(r, 2 * c), rd(s0, L))
            wr(d0, off_d(r, 2 * c + 1), rd(s1, L))
            wr(d1, off_d(r, 2 * c), rd(s0, R))
            wr(d1, off_d(r, 2 * c + 1), rd(s1, R))


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_cpu_interleave_addresses_every_element_through_the_full_layout(backend):
    Zz = pto.Tile[V, pto.int16, 16, 32, RM, 16, 32, SRM, 512]
    with pto.Core("cpu", backend) as core:
        core.write("ub", 0, np.random.default_rng(3).integers(0, 256, 0x8000, dtype=np.uint8))
        tiles = [Zz() for _ in range(4)]
        for k, t in enumerate(tiles):
            pto.TASSIGN(t, 0x1000 * k)
        d1, d0, s1, s0 = tiles
        mem = bytearray(core.read("ub", 0, 0x8000).tobytes())
        pto.TINTERLEAVE(d1, d0, s1, s0)
        off = lambda r, c: _zz_off(r, c, 32)  # noqa: E731
        _loop_interleave(mem, 0x0, 0x1000, 0x2000, 0x3000, 16, 32, off, off, 2, 2, (np.int16, np.int16))
        assert core.read("ub", 0, 0x8000).tobytes() == bytes(mem)
        assert off(1, 0) == 16                      # row 1 starts at element 16, not 32


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_cpu_interleave_converts_values_between_element_types(backend):
    """dst int16, src float32: each element is converted by value (C++ assignment)."""
    D = pto.Tile[V, pto.int16, 2, 16, RM, 2, 16]
    S = pto.Tile[V, pto.float32, 2, 16, RM, 2, 16]
    with pto.Core("cpu", backend) as core:
        d1, d0, s1, s0 = D(), D(), S(), S()
        for k, t in enumerate((d1, d0, s1, s0)):
            pto.TASSIGN(t, 0x400 * k)
        a = (np.arange(32, dtype=np.float32).reshape(2, 16) - 10.75)
        s0.set(a)
        s1.set(a * 100)
        mem = bytearray(core.read("ub", 0, 0x1000).tobytes())
        pto.TINTERLEAVE(d1, d0, s1, s0)
        plain = lambda cols: (lambda r, c: r * cols + c)  # noqa: E731
        _loop_interleave(mem, 0x0, 0x400, 0x800, 0xC00, 2, 16, plain(16), plain(16), 2, 4,
                         (np.float32, np.int16))
        assert core.read("ub", 0, 0x1000).tobytes() == bytes(mem)
        assert d0.numpy()[0, :4].tolist() == [-10, -1075, -9, -975]     # truncation toward 0


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_cpu_interleave_with_aliasing_runs_the_loop_in_program_order(backend):
    """dst0 is src1's storage: later statements read what earlier ones stored."""
    Ty = pto.Tile[V, pto.int32, 1, 16, RM, 1, 16]
    with pto.Core("cpu", backend) as core:
        d1, d0, s0 = Ty(), Ty(), Ty()
        pto.TASSIGN(d1, 0x0)
        pto.TASSIGN(d0, 0x100)
        pto.TASSIGN(s0, 0x200)
        s1 = d0                                    # aliasing: dst0 is src1
        s0.set(np.arange(16, dtype=np.int32)[None] + 100)
        d0.set(np.arange(16, dtype=np.int32)[None] + 500)
        mem = bytearray(core.read("ub", 0, 0x300).tobytes())
        pto.TINTERLEAVE(d1, d0, s1, s0)
        plain = lambda r, c: c  # noqa: E731
        _loop_interleave(mem, 0x0, 0x100, 0x100, 0x200, 1, 16, plain, plain, 4, 4, (np.int32, np.int32))
        got = core.read("ub", 0, 0x300).tobytes()
        assert got == bytes(mem)
        eager = np.empty(16, np.int32)             # what "read every source first" gives
        eager[0::2], eager[1::2] = np.arange(8) + 100, np.arange(8) + 500
        assert np.frombuffer(got[0x100:0x140], np.int32).tolist() != eager.tolist()


def test_cpu_interleave_takes_mat_tiles_a5_does_not():
    Mt = pto.Tile[M, pto.float32, 1, 16, RM, 1, 16]
    for target, ok in (("cpu", True), ("a5", False)):
        with pto.Core(target, "numpy") as core:
            tiles = [Mt() for _ in range(4)]
            for k, t in enumerate(tiles):
                pto.TASSIGN(t, 0x100 * k)
            tiles[3].set(np.arange(16, dtype=np.float32)[None])
            tiles[2].set(np.arange(16, dtype=np.float32)[None] + 50)
            if ok:
                pto.TINTERLEAVE(*tiles)
                assert tiles[1].numpy()[0, :4].tolist() == [0, 50, 1, 51]
            else:
                with pytest.raises(pto.PtoCheckError, match="Vec"):
                    pto.TINTERLEAVE(*tiles)


# -- TGATHERB --------------------------------------------------------------------------------
def test_a5_tgatherb_colmajor_dst_runs_as_the_code_does():
    """A5 has no layout check: dst row j goes to j * RowStride (1 for ColMajor), repeats outer
    and rows inner (TGatherBColWise), so row j's 8 floats land at element j and later rows
    overwrite the overlap."""
    with pto.Core("a5", "numpy") as core:
        rng = np.random.default_rng(8)
        core.write("ub", 0, rng.integers(0, 256, 0x2000, dtype=np.uint8))
        d = pto.Tile[V, pto.float32, 8, 8, CM, 8, 8]()
        s = pto.Tile[V, pto.float32, 1, 256]()
        o = pto.Tile[V, pto.uint32, 8, 8]()
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(o, 0x400)
        pto.TASSIGN(d, 0x600)
        offs = rng.integers(0, 32, (8, 8)).astype(np.uint32) * 32
        o.set(offs)
        mem = bytearray(core.read("ub", 0, 0x2000).tobytes())
        pto.TGATHERB(d, s, o)
        for j in range(8):                          # the one (last) repeat, rows in order
            off = int(offs[j, 0])
            mem[0x600 + 4 * j:0x600 + 4 * j + 32] = mem[off:off + 32]
        assert core.read("ub", 0, 0x2000).tobytes() == bytes(mem)


@pytest.mark.parametrize("backend", ["numpy", "native"])
def test_cpu_tgatherb_byte_loop_in_program_order_when_dst_meets_src(backend):
    """cpu/TGatherB.hpp copies block by block, byte by byte: a block whose source is an
    earlier block's destination reads what that block wrote."""
    with pto.Core("cpu", backend) as core:
        rng = np.random.default_rng(2)
        core.write("ub", 0, rng.integers(0, 256, 0x1000, dtype=np.uint8))
        s = pto.Tile[V, pto.uint8, 1, 256]()
        d = pto.Tile[V, pto.uint8, 1, 128]()
        o = pto.Tile[V, pto.uint32, 1, 8]()
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, 0x40)                        # dst bytes 0x40.. are src bytes 64..
        pto.TASSIGN(o, 0x800)
        offs = np.array([[0, 64, 80, 100, 0, 0, 0, 0]], np.uint32)   # block 1 reads block 0's output
        o.set(offs)
        mem = bytearray(core.read("ub", 0, 0x1000).tobytes())
        pto.TGATHERB(d, s, o)
        for c in range(4):                          # validCol 128 / 32 = 4 blocks, in order
            off = int(offs[0, c])
            if off + 32 <= 256:
                for b in range(32):
                    mem[0x40 + 32 * c + b] = mem[off + b]
        assert core.read("ub", 0, 0x1000).tobytes() == bytes(mem)


def test_cpu_tgatherb_takes_mat_tiles():
    with pto.Core("cpu", "numpy") as core:
        s = pto.Tile[M, pto.float32, 1, 64]()
        d = pto.Tile[M, pto.float32, 1, 16]()
        o = pto.Tile[V, pto.uint32, 1, 8]()
        pto.TASSIGN(s, 0x0)
        pto.TASSIGN(d, 0x400)
        pto.TASSIGN(o, 0x0)
        s.set(np.arange(64, dtype=np.float32)[None])
        o.set(np.array([[64, 0, 0, 0, 0, 0, 0, 0]], np.uint32))
        pto.TGATHERB(d, s, o)                       # L1 -> L1, offsets from UB
        assert d.numpy()[0].tolist() == list(range(16, 24)) + list(range(0, 8))


# -- the simulator's fp8 classes (cpu/MXTypes.hpp) ---------------------------------------------
def _mx_encode_ref(v: float, E: int, M: int, B: int) -> int:
    """MXType(double), written out for one value: truncate the mantissa, wrap the exponent."""
    import struct
    if v == 0.0:
        return 0
    bits = struct.unpack("<Q", struct.pack("<d", v))[0]
    sign, e, m = bits >> 63, (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    if e == 0:
        return 0
    om, oe = m >> (52 - M), e + B - 1023
    if oe < 0:
        om = (om | (1 << M)) >> ((1 - oe) % 64)           # (UB from 64 on: x86-64 masks the count)
        oe = 0
    return (sign << (M + E)) | ((oe & ((1 << E) - 1)) << M) | (om & ((1 << M) - 1))


@pytest.mark.parametrize("name,E,M,B", [("float8_e4m3", 4, 3, 7), ("float8_e5m2", 5, 2, 15)])
def test_cpu_mgather_into_fp8_truncates_as_the_simulator_s_type(name, E, M, B):
    """int8 table, fp8 dst (same size): dst = MXType(double(v)); 19 -> e4m3 0x59 (not the
    round-to-nearest 0x5A)."""
    vals = np.array([19, -19, 1, 0, 127, -128, 100, 7], np.int8)
    with pto.Core("cpu", "numpy") as core:
        T = pto.GlobalTensor[pto.int8, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        table = T(core.gm_put(vals))
        idx = pto.Tile[V, pto.int32, 1, 8]()
        dst = pto.Tile[V, getattr(pto, name), 1, 32, RM, 1, 8]()
        pto.TASSIGN(idx, 0)
        pto.TASSIGN(dst, 0x100)
        idx.set(np.arange(8, dtype=np.int32)[None])
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        got = core.read("ub", 0x100, 8).tolist()
    assert got == [_mx_encode_ref(float(v), E, M, B) for v in vals]
    if name == "float8_e4m3":
        assert got[0] == 0x59


def _gather8(table_dtype, table_vals, dst_dtype, dst_cols, **core_kw) -> np.ndarray:
    """MGATHER<Elem, Clamp> of an 8-element table through indices 0..7 on cpu: dst row 0."""
    with pto.Core("cpu", "numpy", **core_kw) as core:
        T = pto.GlobalTensor[table_dtype, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        table = T(core.gm_put(table_vals))
        idx = pto.Tile[V, pto.int32, 1, 8]()
        dst = pto.Tile[V, dst_dtype, 1, dst_cols, RM, 1, 8]()
        pto.TASSIGN(idx, 0)
        pto.TASSIGN(dst, 0x100)
        idx.set(np.arange(8, dtype=np.int32)[None])
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        return dst.numpy()[0]


def test_cpu_mgather_out_of_fp8_decodes_as_the_simulator_s_type():
    """e4m3 table, int8 dst: operator double (no NaN: 0x7F is 480), then truncation."""
    codes = np.array([0x59, 0xD9, 0x01, 0x7F & 0x37, 0x30, 0x38, 0x3C, 0x44], np.uint8)
    got = _gather8(pto.float8_e4m3, codes.view(pto.float8_e4m3), pto.int8, 32).tolist()
    def dec(c):                                  # normal codes: (1 + m/8) * 2^(e - 7)
        s, e, m = c >> 7, (c >> 3) & 15, c & 7
        return (-1) ** s * (1 + m / 8) * 2.0 ** (e - 7) if e else (-1) ** s * m / 8 * 2.0 ** -6
    assert got == [int(dec(int(c))) for c in codes]


def test_conversions_the_simulator_does_not_have_do_not_compile():
    with pto.Core("cpu", "numpy") as core:
        T = pto.GlobalTensor[pto.float8_e4m3, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        table = T(core.gm_put(np.zeros(8, np.uint8).view(pto.float8_e4m3)))
        idx = pto.Tile[V, pto.int32, 1, 8]()
        pto.TASSIGN(idx, 0)
        for other in (pto.float8_e5m2, pto.hifloat8):
            dst = pto.Tile[V, other, 1, 32, RM, 1, 8]()
            pto.TASSIGN(dst, 0x100)
            with pytest.raises(pto.PtoCheckError, match="no conversion"):
                pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        dst = pto.Tile[V, pto.float8_e4m3, 1, 32, RM, 1, 8]()
        pto.TASSIGN(dst, 0x100)
        with pytest.raises(pto.PtoCheckError, match="common type"):
            pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Zero](dst, table, idx)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)   # same type: fine
        D = pto.Tile[V, pto.float8_e5m2, 1, 32, RM, 1, 32]
        S = pto.Tile[V, pto.float8_e4m3, 1, 32, RM, 1, 32]
        tiles = [D(), D(), S(), S()]
        for k, t in enumerate(tiles):
            pto.TASSIGN(t, 0x200 + 0x40 * k)
        with pytest.raises(pto.PtoCheckError, match="no conversion"):
            pto.TINTERLEAVE(*tiles)


def _hif8_table():
    """Every code's value as the simulator's decodeHiF8Mathematically computes it."""
    import math
    out = []
    for b in range(256):
        s, p = (-1.0 if b & 0x80 else 1.0), b & 0x7F
        if p >> 3 == 0:
            out.append((math.nan if b & 0x80 else 0.0) if p & 7 == 0 else s * 2.0 ** ((p & 7) - 23))
            continue
        eb, rem = ((4, p & 31) if p >> 5 == 3 else (3, p & 31) if p >> 5 == 2 else (2, p & 31)
                   if p >> 5 == 1 else (1, p & 15) if p >> 4 == 1 else (0, p & 7))
        mb = 5 - eb                      # (D=0 keeps 5 mantissa bits of 3: the simulator's code)
        re, rm = rem >> mb, rem & ((1 << mb) - 1)
        e = 0.0
        if eb:
            sb = re & (1 << (eb - 1))
            e = float((1 << (eb - 1)) | (re - sb)) * (-1 if sb else 1)
        out.append(s * math.inf if (eb == 4 and e == 15 and rm == 1) else s * 2.0 ** e * (1 + rm / (1 << mb)))
    return out


def test_cpu_hifloat8_converts_values_not_codes():
    """int8 table -> hifloat8 dst: hifloat8_t(double): the nearest value of the table (a tie to
    the smaller); hifloat8 table -> uint8 dst: the code's value, truncated."""
    import math
    table = _hif8_table()
    finite = sorted((v, b) for b, v in enumerate(table) if not math.isnan(v))
    def enc(x):
        best = None
        for v, b in finite:
            if best is None or abs(v - x) < abs(best[0] - x):
                best = (v, b)
        return best[1]
    vals = np.array([19, -19, 1, 0, 100, -128, 3, 127], np.int8)
    with pto.Core("cpu", "numpy") as core:
        T = pto.GlobalTensor[pto.int8, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        t8 = T(core.gm_put(vals))
        idx = pto.Tile[V, pto.int32, 1, 8]()
        pto.TASSIGN(idx, 0)
        idx.set(np.arange(8, dtype=np.int32)[None])
        dst = pto.Tile[V, pto.hifloat8, 1, 32, RM, 1, 8]()
        pto.TASSIGN(dst, 0x100)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, t8, idx)
        codes = core.read("ub", 0x100, 8).tolist()
        assert codes == [enc(float(v)) for v in vals] and codes != vals.view(np.uint8).tolist()
        H = pto.GlobalTensor[pto.hifloat8, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        src_codes = np.array([0x41, 0x38, 0x2A, 0x10, 0x09, 0x00, 0x52, 0x60], np.uint8)
        th = H(core.gm_put(src_codes, pto.hifloat8))
        u8 = pto.Tile[V, pto.uint8, 1, 32, RM, 1, 8]()
        pto.TASSIGN(u8, 0x200)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](u8, th, idx)
        assert u8.numpy()[0].tolist() == [int(table[c]) % 256 if table[c] >= 0 else int(table[c]) % 256
                                           for c in src_codes]


@pytest.mark.parametrize("quirk", [False, True])
def test_cpu_bfloat16_is_half_quirk(quirk):
    """bf16 table -> int16 dst (same size): the value of the bits, as IEEE half with the quirk
    on (the default: the simulator's CMake builds below C++23 with GCC < 14), as bfloat16 off."""
    bits = np.array([0x4120, 0xC2F6, 0x3F80, 0x4049, 0x0000, 0x4480, 0x4000, 0x3C00], np.uint16)
    got = _gather8(pto.bfloat16, bits.view(pto.bfloat16), pto.int16, 16,
                   quirks={"cpu_bfloat16_is_half": quirk}).tolist()
    import struct
    def val(b):
        if quirk:
            return struct.unpack("<e", struct.pack("<H", int(b)))[0]
        return struct.unpack("<f", struct.pack("<I", int(b) << 16))[0]
    assert got == [int(val(b)) for b in bits]
