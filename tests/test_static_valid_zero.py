"""Static valid dims of 0 (issue 42 item 10), per target, on backends numpy and native.

A tile whose static ValidRow or ValidCol is 0 constructs (``Tile()``, pto_tile.hpp:1458); what
does not exist for it is ``GetValidRow()`` / ``GetValidCol()`` (pto_tile.hpp:1591-1613 define them
for a static dim > 0 or DYNAMIC only). So an instruction is judged by whose Gets its code calls:

* MGATHER, MSCATTER: the data tile's (dst / src), on every target and form. The index tile's
  valid dims only gate static checks (``if constexpr (kIdxValidR > 0)``): the code reads index
  cell (r, c) for every valid data cell (r, c) -- Elem at the index tile's layout offset of
  (r, c), Row the r-th element of its storage.
* TGATHERB: dst's (A5: GetValidCol in the branch taken when ValidCol is not > 0). src's and
  offset's valid dims are never read: block k of dst row r is the 32 bytes at src + the offset
  tile's storage element r * Cols + k.
* TINTERLEAVE / TDEINTERLEAVE: dst0's; the other operands' only inside the run-time assert (cpu
  ``assert``: quirk cpu_asserts; A5 ``PTO_ASSERT``: quirk pto_debug_asserts). The one-source A5
  TDEINTERLEAVE reads src's and asserts the destinations'.
* TLOAD / TSTORE: the tile's, on every target.

A call whose code calls a Get on a static 0 is a PtoCheckError naming the instruction, the
operand and the target; any other runs as the code does. Goldens are these rules written out
here (never ptogpu's output), compared byte for byte over the whole UB (or the GM table).
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto

TARGETS = ("cpu", "a2a3", "a5")
V, M = pto.TileType.Vec, pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
ROW, ELEM = pto.Coalesce.Row, pto.Coalesce.Elem
OOB = pto.GatherOOB
ASSERT_QUIRK = {"cpu": "cpu_asserts", "a5": "pto_debug_asserts"}

TABLE = np.arange(128, dtype=np.float32) * 3 + 0.5         # a 16 x 8 float table


@pytest.fixture(params=("numpy", "native"))
def backend(request):
    if request.param == "native":
        request.getfixturevalue("native_available")
    return request.param


def mk(target: str, backend: str = "numpy", quirks=None, seed: int = 0) -> pto.Core:
    """A core whose UB holds random bytes (so every byte an instruction must not touch is checked)."""
    core = pto.Core(target, backend, quirks=quirks)
    core.write("ub", 0, np.random.default_rng(seed).integers(0, 256, core.ub.size, dtype=np.uint8))
    return core


def ub(core) -> np.ndarray:
    return core.read("ub", 0, core.ub.size).copy()


def T(dt, rows, cols, vr=None, vc=None, loc=V, bl=RM, *rest):
    return pto.Tile[loc, dt, rows, cols, bl, rows if vr is None else vr, cols if vc is None else vc, *rest]


def at(TileT, addr: int, *valid):
    t = TileT(*valid)
    pto.TASSIGN(t, addr)
    return t


def table16x8(core):
    return pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 16, 8], pto.Stride[128, 128, 128, 8, 1],
                            pto.Layout.ND](core.gm_put(TABLE))


def getter_rule(instr: str, name: str, dim: str) -> str:
    return f"{instr}: {name}.Get{dim}() needs a static {dim} > 0 or DYNAMIC"


def dim_of(vr: int, vc: int) -> str:
    return "ValidRow" if vr == 0 else "ValidCol"


# -- the tile itself ---------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vr,vc", [(0, 8), (2, 0), (0, 0)])
def test_tile_with_static_zero_constructs_assigns_and_reads_empty(target, backend, vr, vc):
    """Tile() exists for any static valid dims (pto_tile.hpp:1458); TASSIGN reads no valid dim
    (TAssign.hpp of every target); numpy()/set() cover a region of vr x vc = 0 elements."""
    with mk(target, backend) as core:
        t = at(T(pto.int32, 2, 8, vr, vc), 0x40)
        before = ub(core)
        assert t.shape == (vr, vc) and t.size == 0 and t.numpy().shape == (vr, vc)
        t.set(np.zeros((vr, vc), np.int32))
        assert ub(core).tobytes() == before.tobytes()
        for dim, get in (("ValidRow", t.GetValidRow), ("ValidCol", t.GetValidCol)):
            if getattr(type(t), dim) == 0:          # the C++ member does not exist: no call compiles
                with pytest.raises(pto.PtoCheckError) as e:
                    get()
                assert e.value.target == target and f"Get{dim}" in e.value.rule
            else:
                assert get() == getattr(type(t), dim)


# -- MGATHER -----------------------------------------------------------------------------------
IDX, DST = 0x0000, 0x0400


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("ivr,ivc", [(0, 8), (2, 0), (0, 0)])
def test_mgather_elem_static_zero_index_tile_runs(target, backend, ivr, ivc):
    """dst (r, c) = table[index storage at r * 8 + c] for the 2 x 8 valid dst cells (index
    tile 2 x 8 RowMajor: the layout offset on every target), whatever the index's valid dims."""
    with mk(target, backend) as core:
        table = table16x8(core)
        idx = at(T(pto.int32, 2, 8, ivr, ivc), IDX)
        dst = at(T(pto.float32, 2, 8), DST)
        vals = np.random.default_rng(1).integers(0, 128, 16).astype(np.int32)
        core.write("ub", IDX, vals)
        want = ub(core)
        want[DST: DST + 64] = TABLE[vals].view(np.uint8)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        assert ub(core).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
@pytest.mark.parametrize("dynamic", [False, True])
def test_mgather_elem_empty_index_tile_read_past_into_dst_in_program_order(target, backend, dynamic):
    """The index cells read are dst's valid cells (4 x 8) through the index tile's layout, not
    its own (empty) valid region: a 1 x 8 index tile right below dst is read past its end into
    dst, and the scalar loops (cpu/MGather.hpp:48-52, a2a3 MGatherElemImpl) read each index just
    before the store: cell (r, c), r >= 1, takes table[dst(r - 1, c)] as just written."""
    Idx = T(pto.int32, 1, 8, -1, 8) if dynamic else T(pto.int32, 1, 8, 0, 8)
    table_vals = ((np.arange(64) * 7 + 3) % 64).astype(np.int32)
    with mk(target, backend) as core:
        table = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 8, 8], pto.Stride[64, 64, 64, 8, 1],
                                 pto.Layout.ND](core.gm_put(table_vals))
        idx = at(Idx, 0x00, *((0,) if dynamic else ()))
        dst = at(T(pto.int32, 4, 8), 0x20)
        core.write("ub", 0x00, np.array([5, 0, 63, 9, 17, 33, 2, 40], np.int32))
        want = ub(core)
        mem = want[: 0x20 + 128].view(np.int32)             # idx storage, then dst
        for r in range(4):
            for c in range(8):
                mem[8 + r * 8 + c] = table_vals[mem[r * 8 + c]]
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        assert ub(core).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("shape", ["Rx1", "1xR"])
def test_mgather_row_static_zero_index_tile_runs(target, backend, shape):
    """Row: dst row r = table row (index storage element r), for the 4 valid dst rows; an [R, 1]
    index tile of ValidRow 0 and a [1, R] one of ValidCol 0 alike (the shape gates are skipped:
    their static dims are not > 0)."""
    IdxT = T(pto.int32, 4, 8, 0, 1) if shape == "Rx1" else T(pto.int32, 1, 8, 1, 0)
    with mk(target, backend) as core:
        table = table16x8(core)
        idx = at(IdxT, IDX)
        dst = at(T(pto.float32, 4, 8), DST)
        vals = np.random.default_rng(2).integers(0, 16, IdxT.Rows * 8).astype(np.int32)
        core.write("ub", IDX, vals)
        want = ub(core)
        want[DST: DST + 128] = TABLE.reshape(16, 8)[vals[:4]].view(np.uint8).reshape(-1)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert ub(core).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [ROW, ELEM])
@pytest.mark.parametrize("vr,vc", [(0, 8), (2, 0)])
def test_mgather_static_zero_dst_does_not_compile(target, mode, vr, vc):
    """Every target's MGATHER calls dst.GetValidRow/Col: a static 0 there is a PtoCheckError,
    nothing written. The same call with a full dst runs (the static gates all pass)."""
    with mk(target) as core:
        table = table16x8(core)
        idx = at(T(pto.int32, 1, 8, 1, 2) if mode == ROW else T(pto.int32, 2, 8), IDX)
        core.write("ub", IDX, np.zeros(16 if mode == ELEM else 8, np.int32))
        pto.MGATHER[mode, OOB.Clamp](at(T(pto.float32, 2, 8), DST), table, idx)
        before = ub(core)
        with pytest.raises(pto.PtoCheckError) as e:
            pto.MGATHER[mode, OOB.Clamp](at(T(pto.float32, 2, 8, vr, vc), DST), table, idx)
        assert (e.value.target, e.value.rule) == (target, getter_rule("MGATHER", "dst", dim_of(vr, vc)))
        assert ub(core).tobytes() == before.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vr,vc", [(0, 13), (4, 0)])
def test_mgather_gm_to_l1_static_zero_dst_does_not_compile(target, vr, vc):
    """The GM -> L1 forms call dst.GetValidRow/Col too (a2a3/MGather.hpp:493, a5:550; the
    simulator's runs its UB routine, cpu/MGather.hpp:29)."""
    with mk(target) as core:
        table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 2, 5, 20], pto.Stride[240, 240, 120, 24, 1],
                                 pto.Layout.ND](core.gm_put(np.arange(240, dtype=np.float32)))
        gidx = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, 4], pto.Stride[4, 4, 4, 4, 1],
                                pto.Layout.ND](core.gm_put(np.array([1, 0, 3, 2], np.int32)))
        nz = (M, CM, pto.SLayout.RowMajor, 512)
        pto.MGATHER[ROW, OOB.Clamp](at(T(pto.float32, 16, 24, 4, 13, nz[0], nz[1], *nz[2:]), 0x200), table, gidx)
        before = core.read("l1", 0, core.l1.size).tobytes()
        with pytest.raises(pto.PtoCheckError) as e:
            pto.MGATHER[ROW, OOB.Clamp](at(T(pto.float32, 16, 24, vr, vc, nz[0], nz[1], *nz[2:]), 0x200),
                                        table, gidx)
        assert (e.value.target, e.value.rule) == (target, getter_rule("MGATHER", "dst", dim_of(vr, vc)))
        assert core.read("l1", 0, core.l1.size).tobytes() == before


# -- MSCATTER ----------------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("ivr,ivc", [(0, 8), (2, 0)])
def test_mscatter_elem_static_zero_index_tile_runs(target, backend, ivr, ivc):
    """table[index storage at r * 8 + c] = src (r, c) for the 2 x 8 valid src cells (distinct
    indices: no conflict); the rest of the table stays."""
    with mk(target, backend) as core:
        start = np.full(128, -1.0, np.float32)
        table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 16, 8], pto.Stride[128, 128, 128, 8, 1],
                                 pto.Layout.ND](core.gm_put(start))
        idx = at(T(pto.int32, 2, 8, ivr, ivc), IDX)
        src = at(T(pto.float32, 2, 8), DST)
        vals = np.random.default_rng(3).permutation(128)[:16].astype(np.int32)
        core.write("ub", IDX, vals)
        srcv = (np.arange(16, dtype=np.float32) + 100).reshape(2, 8)
        src.set(srcv)
        want = start.copy()
        want[vals] = srcv.reshape(-1)
        pto.MSCATTER[ELEM](table, src, idx)
        assert core.read("gm", table.addr, 512).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vr,vc", [(0, 8), (2, 0)])
def test_mscatter_static_zero_src_does_not_compile(target, vr, vc):
    """Every target's MSCATTER calls src.GetValidRow/Col (cpu/MScatter.hpp:35, a2a3:489, a5:500)."""
    with mk(target) as core:
        table = table16x8(core)
        idx = at(T(pto.int32, 2, 8), IDX)
        core.write("ub", IDX, np.arange(16, dtype=np.int32))
        pto.MSCATTER[ELEM](table, at(T(pto.float32, 2, 8), DST), idx)
        gm = core.read("gm", table.addr, 512).tobytes()
        with pytest.raises(pto.PtoCheckError) as e:
            pto.MSCATTER[ELEM](table, at(T(pto.float32, 2, 8, vr, vc), DST), idx)
        assert (e.value.target, e.value.rule) == (target, getter_rule("MSCATTER", "src", dim_of(vr, vc)))
        assert core.read("gm", table.addr, 512).tobytes() == gm


# -- TGATHERB ----------------------------------------------------------------------------------
SRC, OFF, TDST = 0x0000, 0x1000, 0x2000


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("role,vr,vc", [("offset", 0, 8), ("offset", 2, 0), ("src", 0, 64), ("src", 4, 0)])
def test_tgatherb_static_zero_offset_or_src_runs(target, backend, role, vr, vc):
    """Block k of dst row r = the 32 bytes at src + offset storage element r * 8 + k (offsets
    32-byte aligned, inside the 1 KiB src tile), for the 2 rows x 8 blocks of dst; the offset
    tile's and src tile's valid dims are never read."""
    SrcT = T(pto.float32, 4, 64, vr, vc) if role == "src" else T(pto.float32, 4, 64)
    OffT = T(pto.uint32, 2, 8, vr, vc) if role == "offset" else T(pto.uint32, 2, 8)
    with mk(target, backend) as core:
        dst, src, off = at(T(pto.float32, 2, 64), TDST), at(SrcT, SRC), at(OffT, OFF)
        offs = (np.random.default_rng(4).integers(0, 32, 16) * 32).astype(np.uint32)
        core.write("ub", OFF, offs)
        before = ub(core)
        want = before.copy()
        for r in range(2):
            for k in range(8):
                o = int(offs[r * 8 + k])
                want[TDST + r * 256 + k * 32: TDST + r * 256 + (k + 1) * 32] = before[SRC + o: SRC + o + 32]
        pto.TGATHERB(dst, src, off)
        assert ub(core).tobytes() == want.tobytes()


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("vr,vc", [(0, 64), (2, 0)])
def test_tgatherb_static_zero_dst_does_not_compile(target, vr, vc):
    """dst.GetValidRow/Col on every target (A5: GetValidCol in the `ValidCol > 0` else branch,
    a5/TGatherB.hpp:125, the one a static 0 takes)."""
    with mk(target) as core:
        src, off = at(T(pto.float32, 4, 64), SRC), at(T(pto.uint32, 2, 8), OFF)
        core.write("ub", OFF, np.zeros(16, np.uint32))
        pto.TGATHERB(at(T(pto.float32, 2, 64), TDST), src, off)
        before = ub(core)
        with pytest.raises(pto.PtoCheckError) as e:
            pto.TGATHERB(at(T(pto.float32, 2, 64, vr, vc), TDST), src, off)
        assert (e.value.target, e.value.rule) == (target, getter_rule("TGATHERB", "dst", dim_of(vr, vc)))
        assert ub(core).tobytes() == before.tobytes()


# -- TINTERLEAVE / TDEINTERLEAVE ---------------------------------------------------------------
A0, A1, B0, B1 = 0x0000, 0x0100, 0x0200, 0x0300         # dst0, dst1, src0 (or src), src1


def _int_image(core, addr, n) -> np.ndarray:
    return core.read("ub", addr, 4 * n).view(np.int32).copy()


def _put(want: np.ndarray, addr: int, vals: np.ndarray) -> None:
    want[addr: addr + vals.nbytes] = np.ascontiguousarray(vals, np.int32).view(np.uint8).reshape(-1)


def _interleave_call(instr, dst1, dst0, src1, src0):
    with warnings.catch_warnings():     # a compiled-out assert's shape mismatch: a warning only
        warnings.simplefilter("ignore", pto.PtoAssertWarning)
        getattr(pto, instr)(dst1, dst0, src1, src0)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("instr", ["TINTERLEAVE", "TDEINTERLEAVE"])
@pytest.mark.parametrize("vr,vc", [(0, 16), (2, 0)])
def test_interleave_static_zero_dst_does_not_compile(target, instr, vr, vc):
    """dst0.GetValidRow/Col outside any assert (cpu/TInterleave.hpp:45, TDeinterleave.hpp:59;
    a5/TInterleave.hpp:36, TDeInterleave.hpp:36); A2/A3 has no implementation at all."""
    with mk(target) as core:
        D = T(pto.int32, 2, 16, vr, vc)
        src1, src0 = at(T(pto.int32, 2, 16), B1), at(T(pto.int32, 2, 16), B0)
        before = ub(core)
        with pytest.raises(pto.PtoCheckError) as e:
            _interleave_call(instr, at(D, A1), at(D, A0), src1, src0)
        rule = (f"{instr}: target support" if target == "a2a3"
                else getter_rule(instr, "dst0", dim_of(vr, vc)))
        assert (e.value.target, e.value.rule) == (target, rule)
        assert ub(core).tobytes() == before.tobytes()


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("instr", ["TINTERLEAVE", "TDEINTERLEAVE"])
@pytest.mark.parametrize("asserts", [True, False])
@pytest.mark.parametrize("vr,vc", [(0, 16), (2, 0)])
def test_interleave_static_zero_src_only_in_asserts(target, backend, instr, asserts, vr, vc):
    """src0/src1's Gets sit only in the run-time asserts (cpu/TInterleave.hpp:49-50,
    TDeinterleave.hpp:63-64: assert; a5/TInterleave.hpp:42-47, TDeInterleave.hpp:38-43:
    PTO_ASSERT): compiled in, a PtoCheckError; compiled out, the loop runs over dst0's 2 x 16,
    reading the sources' storage: TINTERLEAVE dst0[r, 2c] = src0[r, c], dst0[r, 2c+1] = src1[r, c],
    dst1 the same from column c + 8; TDEINTERLEAVE dst0[r, c] = src0[r, 2c], dst1[r, c] =
    src0[r, 2c+1], columns 8 + c from src1."""
    with mk(target, backend, quirks={ASSERT_QUIRK[target]: asserts}) as core:
        S = T(pto.int32, 2, 16, vr, vc)
        dst1, dst0 = at(T(pto.int32, 2, 16), A1), at(T(pto.int32, 2, 16), A0)
        src1, src0 = at(S, B1), at(S, B0)
        s0, s1 = _int_image(core, B0, 32).reshape(2, 16), _int_image(core, B1, 32).reshape(2, 16)
        before = ub(core)
        if asserts:
            with pytest.raises(pto.PtoCheckError) as e:
                _interleave_call(instr, dst1, dst0, src1, src0)
            assert (e.value.target, e.value.rule) == (target, getter_rule(instr, "src0", dim_of(vr, vc)))
            assert ub(core).tobytes() == before.tobytes()
            return
        d0, d1 = np.empty((2, 16), np.int32), np.empty((2, 16), np.int32)
        if instr == "TINTERLEAVE":
            d0[:, 0::2], d0[:, 1::2] = s0[:, :8], s1[:, :8]
            d1[:, 0::2], d1[:, 1::2] = s0[:, 8:], s1[:, 8:]
        else:
            d0[:, :8], d1[:, :8] = s0[:, 0::2], s0[:, 1::2]
            d0[:, 8:], d1[:, 8:] = s1[:, 0::2], s1[:, 1::2]
        want = before.copy()
        _put(want, A0, d0)
        _put(want, A1, d1)
        _interleave_call(instr, dst1, dst0, src1, src0)
        assert ub(core).tobytes() == want.tobytes()


def _deint1(dst1, dst0, src):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", pto.PtoAssertWarning)
        pto.TDEINTERLEAVE(dst1, dst0, src)


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("zero", ["dst", "src"])
@pytest.mark.parametrize("asserts", [True, False])
def test_deinterleave_one_src_static_zero(target, backend, zero, asserts):
    """TDEINTERLEAVE(dst1, dst0, src): the simulator calls dst0's Gets (cpu/TDeinterleave.hpp:75-76)
    and src's in assert() (79); A5 calls src's (a5/TDeInterleave.hpp:197-198, 254) and the dsts'
    in PTO_ASSERT (200-205). Where the zero tile's Gets are compiled: PtoCheckError; else the loop
    runs over the other tile's shape (cpu: dst0's 2 x 8; A5: src's 2 rows, 16 / 2 columns):
    dst0[r, c] = src[r, 2c], dst1[r, c] = src[r, 2c+1]."""
    with mk(target, backend, quirks={ASSERT_QUIRK[target]: asserts}) as core:
        D = T(pto.int32, 2, 8, 0, 8) if zero == "dst" else T(pto.int32, 2, 8)
        S = T(pto.int32, 2, 16, 2, 0) if zero == "src" else T(pto.int32, 2, 16)
        dst1, dst0, src = at(D, A1), at(D, A0), at(S, B0)
        s = _int_image(core, B0, 32).reshape(2, 16)
        before = ub(core)
        compiled = {("cpu", "dst"): True, ("cpu", "src"): asserts,
                    ("a5", "src"): True, ("a5", "dst"): asserts}[target, zero]
        if compiled:
            with pytest.raises(pto.PtoCheckError) as e:
                _deint1(dst1, dst0, src)
            name, dim = ("dst0", "ValidRow") if zero == "dst" else ("src", "ValidCol")
            assert (e.value.target, e.value.rule) == (target, getter_rule("TDEINTERLEAVE", name, dim))
            assert ub(core).tobytes() == before.tobytes()
            return
        want = before.copy()
        _put(want, A0, s[:, 0::2])
        _put(want, A1, s[:, 1::2])
        _deint1(dst1, dst0, src)
        assert ub(core).tobytes() == want.tobytes()


# -- TLOAD / TSTORE ----------------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("instr", ["TLOAD", "TSTORE"])
def test_tload_tstore_static_zero_tile_does_not_compile(target, instr):
    """cpu/TLoad.hpp:131-132, common/arch/memory/tload_common.hpp:346-379, a5/TLoad.hpp:543;
    cpu/TStore.hpp:51-52, a2a3/TStore.hpp:262, a5/TStore.hpp:312: the tile's Gets, every target."""
    with mk(target) as core:
        g = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 2, 8], pto.Stride[16, 16, 16, 8, 1],
                             pto.Layout.ND](core.gm_put(np.zeros(16, np.float32)))
        t = at(T(pto.float32, 2, 8, 0, 8), DST)
        with pytest.raises(pto.PtoCheckError) as e:
            pto.TLOAD(t, g) if instr == "TLOAD" else pto.TSTORE(g, t)
        assert (e.value.target, e.value.rule) == (target, getter_rule(instr, "tile", "ValidRow"))
