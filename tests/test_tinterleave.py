"""TINTERLEAVE / TDEINTERLEAVE per target (other-ops.md §B), byte-exact over the whole UB.

References: the B.2 formulas, the CPU loop (B.3), and a literal replay of the A5 register loop
(B.4: E-element loads, vintlv lo/hi, predicated stores) written here, not taken from ptogpu.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto

V = pto.TileType.Vec
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
NPU9 = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32"]
ADDR = (0x0000, 0x4000, 0x8000, 0xC000, 0x10000, 0x14000)


pytestmark = pytest.mark.usefixtures("fresh_stack")


def T(dt, rows, cols, vr=None, vc=None, layout=RM):
    return pto.Tile[V, getattr(pto, dt), rows, cols, layout,
                    rows if vr is None else vr, cols if vc is None else vc]


def setup(target, types, quirks=None, seed=0):
    core = pto.Core(target, "numpy", quirks=quirks).__enter__()
    core.write("ub", 0, np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8))
    tiles = [t() for t in types]
    for tile, a in zip(tiles, ADDR):
        pto.TASSIGN(tile, a)
    return core, tiles


def ub(core):
    return core.read("ub", 0, core.ub.size)


def row(mem, tile, r, n, start=0):
    """``n`` elements of ``tile``'s flat row ``r`` from column ``start`` (may run into padding)."""
    size = tile.Element.itemsize
    a = tile.addr + (r * tile.Cols + start) * size
    return mem[a: a + n * size].reshape(n, size)


def put(out, tile, r, c, elem_bytes):
    size = tile.Element.itemsize
    a = tile.addr + (r * tile.Cols + c) * size
    out[a: a + size] = elem_bytes


def ref_formula(mem, d1, d0, s1, s0, VR, VC, odd="golden"):
    """B.2 for even VC. Odd VC: "golden" (A5 test golden), "cpu" (VC-1 untouched)."""
    out = mem.copy()
    h = VC // 2
    for r in range(VR):
        a0, a1 = row(mem, s0, r, VC), row(mem, s1, r, VC)
        if odd == "cpu":
            n, base1 = 2 * h, h
        else:
            n, base1 = VC, h
        for c in range(n):
            put(out, d0, r, c, (a0 if c % 2 == 0 else a1)[c // 2])
            put(out, d1, r, c, (a0 if c % 2 == 0 else a1)[base1 + c // 2])
    return out


def ref_a5_loop(mem, d1, d0, s1, s0, VR, VC):
    """Literal A5 loop: per row two passes, chunks j < ceil(h/E), vintlv, masked stores."""
    out = mem.copy()
    size = d0.Element.itemsize
    E = 256 // size
    h = VC >> 1
    R = -(-h // E)
    for r in range(VR):
        for dst, base in ((d0, 0), (d1, h)):
            for j in range(R):
                a = row(mem, s0, r, E, base + j * E)
                b = row(mem, s1, r, E, base + j * E)
                lo = np.stack([a[: E // 2], b[: E // 2]], 1).reshape(E, size)
                hi = np.stack([a[E // 2:], b[E // 2:]], 1).reshape(E, size)
                rem = VC - 2 * j * E
                for c in range(min(rem, E)):
                    put(out, dst, r, 2 * j * E + c, lo[c])
                if rem > E:
                    for c in range(min(rem - E, E)):
                        put(out, dst, r, 2 * j * E + E + c, hi[c])
    return out


# -- TINTERLEAVE -----------------------------------------------------------------------------------
def test_hand_golden_float():
    core, (s0, s1, d0, d1) = setup("a5", [T("float32", 1, 8)] * 4)
    s0.set(np.arange(8, dtype=np.float32)[None])
    s1.set(np.arange(10, 18, dtype=np.float32)[None])
    pto.TINTERLEAVE(d1, d0, s1, s0)
    assert d0.numpy().tolist() == [[0, 10, 1, 11, 2, 12, 3, 13]]
    assert d1.numpy().tolist() == [[4, 14, 5, 15, 6, 16, 7, 17]]


@pytest.mark.parametrize("target,dt", [("a5", d) for d in NPU9] + [("cpu", d) for d in
                         ["int64", "uint64", "float8_e4m3", "float8_e5m2", "hifloat8", "bfloat16",
                          "half", "uint8"]])
def test_even_vc_bytes(target, dt):
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = 512 // size
    vc = cols - 64 // size                                       # leaves padding columns
    ty = T(dt, 3, cols, 3, vc)
    core, (s0, s1, d0, d1) = setup(target, [ty] * 4)
    before = ub(core)
    pto.TINTERLEAVE(d1, d0, s1, s0)
    exp = ref_formula(before, d1, d0, s1, s0, 3, vc)
    assert ub(core).tobytes() == exp.tobytes()
    if target == "a5":
        assert exp.tobytes() == ref_a5_loop(before, d1, d0, s1, s0, 3, vc).tobytes()


def test_nan_payloads_survive():
    ty = T("half", 1, 16)
    core, (s0, s1, d0, d1) = setup("a5", [ty] * 4)
    v0 = np.full(16, 0x7E01, np.uint16).view(np.float16)
    v1 = np.full(16, 0xFC03, np.uint16).view(np.float16)
    s0.set(v0[None])
    s1.set(v1[None])
    pto.TINTERLEAVE(d1, d0, s1, s0)
    assert d0.raw().view(np.uint16).tolist() == [0x7E01, 0xFC03] * 8


def test_different_tile_types_and_chunks():
    """Dst and src tile types differ in Cols; half VC=600 needs 3 chunks per pass."""
    sT, dT = T("half", 2, 640, 2, 600), T("half", 2, 704, 2, 600)
    core, (s0, s1, d0, d1) = setup("a5", [sT, sT, dT, dT])
    before = ub(core)
    pto.TINTERLEAVE(d1, d0, s1, s0)
    assert ub(core).tobytes() == ref_formula(before, d1, d0, s1, s0, 2, 600).tobytes()


@pytest.mark.parametrize("dt,vc", [("float32", 7), ("float32", 9), ("float32", 65),
                                   ("float32", 131), ("half", 129), ("uint8", 257), ("int16", 3),
                                   ("uint8", 511)])
def test_a5_odd_vc_golden(dt, vc):
    """Odd VC without the hole: dst0[VC-1] = src0[h], dst1[0] = src0[h], dst1[VC-1] = src0[VC-1]."""
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = -(-vc * size // 32) * 32 // size
    ty = T(dt, 2, cols, 2, vc)
    core, (s0, s1, d0, d1) = setup("a5", [ty] * 4)
    before = ub(core)
    pto.TINTERLEAVE(d1, d0, s1, s0)
    got = ub(core)
    assert got.tobytes() == ref_formula(before, d1, d0, s1, s0, 2, vc).tobytes()
    assert got.tobytes() == ref_a5_loop(before, d1, d0, s1, s0, 2, vc).tobytes()
    h = vc // 2
    a, b, c = d0.numpy(), d1.numpy(), s0.numpy()
    assert a[:, vc - 1].tobytes() == c[:, h].tobytes() == b[:, 0].tobytes()
    assert b[:, vc - 1].tobytes() == c[:, vc - 1].tobytes()


@pytest.mark.parametrize("dt,vc", [("float32", 129), ("half", 257), ("uint8", 513),
                                   ("float32", 1), ("int8", 1)])
@pytest.mark.parametrize("hole", [True, False])
def test_a5_odd_hole(dt, vc, hole):
    """h % E == 0: the loop writes 2h elements, the last column of both dsts stays unwritten;
    with the quirk off, the golden is produced instead."""
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = -(-vc * size // 32) * 32 // size
    ty = T(dt, 2, cols, 2, vc)
    core, (s0, s1, d0, d1) = setup("a5", [ty] * 4, quirks={"a5_interleave_odd_hole": hole})
    before = ub(core)
    pto.TINTERLEAVE(d1, d0, s1, s0)
    got = ub(core)
    if hole:
        assert got.tobytes() == ref_a5_loop(before, d1, d0, s1, s0, 2, vc).tobytes()
        for d in (d0, d1):
            for r in range(2):
                a = d.addr + (r * d.Cols + vc - 1) * size
                assert got[a: a + size].tobytes() == before[a: a + size].tobytes()
    else:
        assert got.tobytes() == ref_formula(before, d1, d0, s1, s0, 2, vc).tobytes()


def test_cpu_odd_vc_traps_on_the_assert_or_leaves_the_last_column_without_it():
    """cpu/TInterleave.hpp asserts validCol % 2 == 0 (live unless NDEBUG): PtoFault, nothing
    written; with the asserts compiled out the loop runs c < VC/2 and leaves column VC-1."""
    ty = T("int32", 2, 16, 2, 7)
    core, (s0, s1, d0, d1) = setup("cpu", [ty] * 4)
    before = ub(core)
    with pytest.raises(pto.PtoFault, match="validCol % 2 == 0"):
        pto.TINTERLEAVE(d1, d0, s1, s0)
    assert ub(core).tobytes() == before.tobytes()
    core, (s0, s1, d0, d1) = setup("cpu", [ty] * 4, quirks={"cpu_asserts": False})
    before = ub(core)
    with pytest.warns(pto.PtoAssertWarning, match="odd"):
        pto.TINTERLEAVE(d1, d0, s1, s0)
    assert ub(core).tobytes() == ref_formula(before, d1, d0, s1, s0, 2, 7, odd="cpu").tobytes()


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("vr,vc", [(0, 8), (3, 0)])
def test_zero_valid_noop(target, vr, vc):
    ty = pto.Tile[V, pto.float32, 4, 16, RM, -1, -1]
    core = pto.Core(target, "numpy").__enter__()
    core.write("ub", 0, np.random.default_rng(0).integers(0, 256, core.ub.size, dtype=np.uint8))
    tiles = [ty(vr, vc) for _ in range(4)]
    for t, a in zip(tiles, ADDR):
        pto.TASSIGN(t, a)
    before = ub(core)
    pto.TINTERLEAVE(*tiles)
    pto.TDEINTERLEAVE(*tiles)
    assert ub(core).tobytes() == before.tobytes()


# -- TDEINTERLEAVE ---------------------------------------------------------------------------------
def ref_deinterleave2(mem, d1, d0, s1, s0, VR, VC):
    out = mem.copy()
    H = VC // 2
    for r in range(VR):
        a0, a1 = row(mem, s0, r, VC), row(mem, s1, r, VC)
        for k in range(H):
            put(out, d0, r, k, a0[2 * k])
            put(out, d1, r, k, a0[2 * k + 1])
            put(out, d0, r, H + k, a1[2 * k])
            put(out, d1, r, H + k, a1[2 * k + 1])
    return out


@pytest.mark.parametrize("target,dt,vc", [("a5", "half", 200), ("a5", "uint8", 64),
                                          ("a5", "float32", 6), ("cpu", "int64", 8),
                                          ("cpu", "float8_e5m2", 32), ("a5", "bfloat16", 7),
                                          ("cpu", "float32", 7)])
def test_deinterleave_two_source(target, dt, vc):
    size = np.dtype(getattr(pto, dt)).itemsize
    cols = -(-vc * size // 32) * 32 // size + 32 // size
    ty = T(dt, 2, cols, 2, vc)
    core, (s0, s1, d0, d1) = setup(target, [ty] * 4)
    before = ub(core)
    if target == "cpu" and vc % 2:              # cpu/TDeinterleave.hpp: assert(validCol % 2 == 0)
        with pytest.raises(pto.PtoFault, match="validCol % 2"):
            pto.TDEINTERLEAVE(d1, d0, s1, s0)
        assert ub(core).tobytes() == before.tobytes()
        return
    pto.TDEINTERLEAVE(d1, d0, s1, s0)
    assert ub(core).tobytes() == ref_deinterleave2(before, d1, d0, s1, s0, 2, vc).tobytes()


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_deinterleave_inverts_interleave(target):
    ty = T("bfloat16", 4, 48, 4, 40)
    core, (s0, s1, d0, d1, e0, e1) = setup(target, [ty] * 6)
    pto.TINTERLEAVE(d1, d0, s1, s0)
    pto.TDEINTERLEAVE(e1, e0, d1, d0)
    assert e0.numpy().tobytes() == s0.numpy().tobytes()
    assert e1.numpy().tobytes() == s1.numpy().tobytes()


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_deinterleave_single_source(target):
    sT, dT = T("int16", 3, 64, 3, 48), T("int16", 3, 32, 3, 24)
    core, (src, d0, d1) = setup(target, [sT, dT, dT])
    before = ub(core)
    pto.TDEINTERLEAVE(d1, d0, src)
    exp = before.copy()
    for r in range(3):
        a = row(before, src, r, 48)
        for k in range(24):
            put(exp, d0, r, k, a[2 * k])
            put(exp, d1, r, k, a[2 * k + 1])
    assert ub(core).tobytes() == exp.tobytes()


def test_single_source_counts_per_target():
    """A5 counts srcVC//2 (odd srcVC allowed); the CPU asserts an even dst width and
    srcVC == 2*dstVC (live asserts: PtoFault)."""
    sT, dT = T("int16", 1, 64, 1, 51), T("int16", 1, 32, 1, 25)
    core, (src, d0, d1) = setup("a5", [sT, dT, dT])
    pto.TDEINTERLEAVE(d1, d0, src)
    assert d0.numpy().tobytes() == src.numpy()[:, 0:50:2].tobytes()
    core.__exit__()
    core, (src, d0, d1) = setup("cpu", [sT, dT, dT])
    with pytest.raises(pto.PtoFault, match="assert"):
        pto.TDEINTERLEAVE(d1, d0, src)


# -- checks and hazards ----------------------------------------------------------------------------
def test_a2a3_has_no_implementation():
    ty = T("float32", 1, 8)
    core, tiles = setup("a2a3", [ty] * 4)
    before = ub(core)
    for fn in (pto.TINTERLEAVE, pto.TDEINTERLEAVE):
        with pytest.raises(pto.PtoCheckError, match="a2a3"):
            fn(*tiles)
    with pytest.raises(pto.PtoCheckError):
        pto.TDEINTERLEAVE(tiles[0], tiles[1], tiles[2])
    assert ub(core).tobytes() == before.tobytes()


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_colmajor_rejected(target):
    good, bad = T("float32", 8, 8), T("float32", 8, 8, layout=CM)
    core, tiles = setup(target, [good, good, bad, good])
    with pytest.raises(pto.PtoCheckError, match="RowMajor"):
        pto.TINTERLEAVE(*tiles)


@pytest.mark.parametrize("dt", ["int64", "uint64", "float8_e4m3", "hifloat8"])
def test_a5_rejects_types(dt):
    cols = 32 // np.dtype(getattr(pto, dt)).itemsize
    core, tiles = setup("a5", [T(dt, 1, cols)] * 4)
    with pytest.raises(pto.PtoCheckError, match="DType"):
        pto.TINTERLEAVE(*tiles)


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_mismatches_rejected(target):
    """The two sources (and the two destinations) are one template type: different types do
    not compile. Valid shapes are run-time asserts: the simulator's assert traps by default,
    A5's PTO_ASSERT only in a debug build (else it warns and runs dst0's shape)."""
    a, b = T("float32", 1, 16), T("int32", 1, 16)
    core, tiles = setup(target, [a, a, b, a])
    with pytest.raises(pto.PtoCheckError, match="one Tile type"):
        pto.TINTERLEAVE(*tiles)
    core.__exit__()
    dyn = pto.Tile[V, pto.float32, 1, 16, RM, -1, -1]
    for debug in (False, True):
        core = pto.Core(target, "numpy", quirks={"cpu_asserts" if target == "cpu" else "pto_debug_asserts": debug})
        core.__enter__()
        tiles = [dyn(1, 16), dyn(1, 16), dyn(1, 8), dyn(1, 16)]
        for k, t in enumerate(tiles):
            pto.TASSIGN(t, 0x100 * k)
        before = ub(core)
        if debug:
            with pytest.raises(pto.PtoFault, match="src1 valid shape"):
                pto.TINTERLEAVE(*tiles)
            assert ub(core).tobytes() == before.tobytes()
        else:
            with pytest.warns(pto.PtoAssertWarning, match="src1 valid shape"):
                pto.TINTERLEAVE(*tiles)
        with pytest.raises(pto.PtoCheckError):
            pto.TINTERLEAVE(tiles[0], tiles[1], tiles[2], np.zeros(3))
        core.__exit__()


def test_aliasing_warns_hazard():
    ty = T("float32", 1, 16)
    core, (s0, s1, d0, d1) = setup("a5", [ty] * 4)
    with pytest.warns(pto.PtoHazard):
        warnings.simplefilter("always")
        pto.TINTERLEAVE(d1, s0, s1, s0)


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("vr,vc,addrs", [(1, 48, (32, 0, 2048, 1024)), (2, 40, (0, 64, 1024, 2048)),
                                         (3, 20, (96, 0, 1024, 2048))])
def test_cpu_deinterleave_dynamic_width_past_cols_in_program_order(backend, vr, vc, addrs, request):
    """A dynamic ValidCol wider than Cols runs each destination's rows into the next and past
    the tile; where the two destinations' stores meet, the simulator's program order (per row:
    c outer, dst0[c], dst1[c], dst0[c+h], dst1[c+h]) decides the bytes, on every backend."""
    if backend == "native":
        request.getfixturevalue("native_available")
    D = pto.Tile[V, pto.float32, 1, 8, RM, -1, -1]
    init = (np.arange(4096) % 251).astype(np.uint8)
    with pto.Core("cpu", backend) as core:
        core.write("ub", 0, init)
        tiles = [D(vr, vc) for _ in range(4)]
        for t, a in zip(tiles, addrs):
            pto.TASSIGN(t, a)
        pto.TDEINTERLEAVE(*tiles)
        got = core.read("ub", 0, 4096)
    d1, d0, s1, s0 = addrs
    mem = init.view(np.float32).copy()
    src = init.view(np.float32)
    h = vc // 2
    el = lambda base, r, c: base // 4 + r * 8 + c
    for r in range(vr):
        for c in range(h):
            mem[el(d0, r, c)] = src[el(s0, r, 2 * c)]
            mem[el(d1, r, c)] = src[el(s0, r, 2 * c + 1)]
            mem[el(d0, r, c + h)] = src[el(s1, r, 2 * c)]
            mem[el(d1, r, c + h)] = src[el(s1, r, 2 * c + 1)]
    assert got.tobytes() == mem.view(np.uint8).tobytes()


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("sdt", ["int16", "uint16", "half"])
@pytest.mark.parametrize("is_half", [True, False])
def test_cpu_deinterleave_16_bit_sources_into_bfloat16(backend, sdt, is_half, request):
    """dst0[c] = src0[2c] converts as C++ assigns: into the simulator's bfloat16_t, which is
    _Float16 where its CMake builds below C++23 (quirk cpu_bfloat16_is_half, on by default:
    the destination holds the IEEE half of the value; a half source is copied bit for bit),
    else std::bfloat16_t (round to nearest even)."""
    if backend == "native":
        request.getfixturevalue("native_available")
    import ml_dtypes
    S = pto.Tile[V, getattr(pto, sdt), 2, 16, RM, 2, 16]
    D = pto.Tile[V, pto.bfloat16, 2, 16, RM, 2, 16]
    rng = np.random.default_rng(7)
    lo = 0 if sdt == "uint16" else -3000
    src = [rng.integers(lo, 3000, (2, 16)).astype(sdt) if sdt != "half" else
           (rng.normal(size=(2, 16)) * 100).astype(np.float16) for _ in range(2)]
    with pto.Core("cpu", backend, quirks={"cpu_bfloat16_is_half": is_half}):
        s0, s1, d0, d1 = S(), S(), D(), D()
        for t, a in zip((s0, s1, d0, d1), (0, 0x100, 0x200, 0x300)):
            pto.TASSIGN(t, a)
        s0.set(src[0])
        s1.set(src[1])
        pto.TDEINTERLEAVE(d1, d0, s1, s0)
        got = (d0.raw()[:32].view(np.uint16).reshape(2, 16), d1.raw()[:32].view(np.uint16).reshape(2, 16))
    conv = (lambda x: x.astype(np.float16).view(np.uint16)) if is_half else \
        (lambda x: x.astype(np.float32).astype(ml_dtypes.bfloat16).view(np.uint16))
    h = 8
    want0 = np.concatenate([conv(src[0][:, 0::2]), conv(src[1][:, 0::2])], axis=1)
    want1 = np.concatenate([conv(src[0][:, 1::2]), conv(src[1][:, 1::2])], axis=1)
    assert want0.shape == (2, 2 * h)
    assert got[0].tobytes() == want0.tobytes() and got[1].tobytes() == want1.tobytes()


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_template_arguments_spelled_out(target):
    """``TINTERLEAVE<TileDataDst, TileDataSrc>`` and ``TDEINTERLEAVE<...>`` (pto_instr.hpp:2572-2596)
    with the arguments written out: the same bytes as deduced; a type that is not the operands'
    does not compile (each parameter types two operands: dst1 and dst0, src1 and src0)."""
    ty, other = T("int16", 2, 32), T("int16", 2, 64)
    core, (s0, s1, d0, d1) = setup(target, [ty] * 4)
    pto.TINTERLEAVE(d1, d0, s1, s0)
    deduced = ub(core)
    core.__exit__(None, None, None)
    core, (s0, s1, d0, d1) = setup(target, [ty] * 4)
    pto.TINTERLEAVE[ty, ty](d1, d0, s1, s0)
    assert ub(core).tobytes() == deduced.tobytes()
    pto.TDEINTERLEAVE[ty, ty](s1, s0, d1, d0)
    wide = other()
    pto.TASSIGN(wide, ADDR[4])
    pto.TDEINTERLEAVE[ty, other](s1, s0, wide)
    for call, args in ((pto.TINTERLEAVE[ty, other], (d1, d0, s1, s0)),
                       (pto.TINTERLEAVE[other], (d1, d0, s1, s0)),
                       (pto.TDEINTERLEAVE[ty, other], (d1, d0, s1, s0))):
        with pytest.raises(pto.PtoCheckError, match="template deduction"):
            call(*args)
