"""MGATHER static checks per target (mgather.md §4 step 1, §5.1, §6.1) and the A5 quirk.

Each rejected call must raise PtoCheckError before any memory changes (UB, L1 and GM are
compared byte for byte before and after).
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import CM, ELEM, M, NPU, OOB, RM, ROW, SRM, gt, nd_table, new_core, tile

F32 = pto.float32
L = pto.Layout


def _snap(core):
    return tuple(core.read(s, 0, core.arena(s).size).tobytes() for s in ("gm", "ub", "l1"))


def expect_check(core, call, rule_word=None):
    before = _snap(core)
    with pytest.raises(pto.PtoCheckError) as ei:
        call()
    assert _snap(core) == before
    assert core.target.name in str(ei.value)
    if rule_word:
        assert rule_word in str(ei.value)
    return ei.value


def _std(core, dt=F32, rows=8, cols=32, idx_dt=pto.int32):
    mat = np.zeros((16, cols), dtype=dt)
    table = nd_table(core, mat, dt)
    idx = tile(idx_dt, 1, 8, 0, vc=rows)
    dst = tile(dt, rows, cols, 0x400)
    return table, idx, dst


# -- element and index types (check 1-3) --------------------------------------------------------
@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("name", ["int64", "uint64"])
def test_npu_rejects_64_bit_element_types(target, name):
    """§5.1/§6.1 check 1: 64-bit types are in neither NPU list."""
    core = new_core(target)
    with core:
        table, idx, dst = _std(core, getattr(pto, name))
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


@pytest.mark.parametrize("name", ["hifloat8", "float8_e4m3", "float8_e5m2"])
def test_a2a3_rejects_fp8_and_hif8(name):
    """§6.1 check 1: A2/A3 has the 9-type list (no fp8 / hif8); A5 accepts them (§5.1)."""
    for target, ok in (("a2a3", False), ("a5", True)):
        core = new_core(target)
        with core:
            table, idx, dst = _std(core, getattr(pto, name))
            call = lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)  # noqa: E731
            if ok:
                call()
            else:
                expect_check(core, call)


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("name,cols", [("int16", 16), ("uint16", 16), ("int64", 8), ("int8", 32),
                                       ("float32", 8)])
def test_npu_index_type_must_be_int32_or_uint32(target, name, cols):
    """§5.1/§6.1 check 2: TIdx in {int32, uint32}."""
    core = new_core(target)
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(getattr(pto, name), 1, cols, 0, vc=8)
        dst = tile(F32, 8, 32, 0x400)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


def test_cpu_index_type_must_be_integral():
    """§4 step 1: is_integral<TIdx>."""
    core = new_core("cpu")
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(pto.float32, 1, 8, 0)
        dst = tile(F32, 8, 32, 0x400)
        expect_check(core, lambda: pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx))


@pytest.mark.parametrize("target", NPU)
def test_npu_table_type_must_equal_dst_type(target):
    """§5.1/§6.1 check 3: GlobalTable::DType == __gm__ T (same size is not enough on NPU)."""
    core = new_core(target)
    with core:
        table = nd_table(core, np.zeros((16, 32), np.int32))
        idx = tile(pto.int32, 1, 8, 0)
        dst = tile(F32, 8, 32, 0x400)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


# -- locations (checks 4-5) ---------------------------------------------------------------------
@pytest.mark.parametrize("target", NPU)
def test_npu_index_tile_must_be_vec(target):
    """§5.1/§6.1 check 5: TileIdx::Loc == Vec (a Mat index tile is rejected)."""
    core = new_core(target)
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(pto.int32, 1, 8, 0, loc=M)
        dst = tile(F32, 8, 32, 0x400)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("loc", [pto.TileType.Left, pto.TileType.Acc])
def test_npu_dst_must_be_vec(target, loc):
    """§5.1/§6.1 check 4: TileDst::Loc == Vec."""
    core = new_core(target)
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(pto.int32, 1, 8, 0)
        dst = pto.Tile[loc, F32, 8, 32]()
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


# -- Row shape checks ---------------------------------------------------------------------------
@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("ir,ic,ivr,ivc,bl", [(1, 8, 1, 4, RM), (2, 8, 2, 4, RM), (8, 8, 8, 8, RM),
                                              (16, 1, 16, 1, CM), (8, 8, 8, 2, RM)])
def test_row_index_tile_shape_must_match_dst_rows(target, ir, ic, ivr, ivc, bl):
    """§5.1 check 7 / §6.1 check 12: Row needs idx valid [1, dstVR] (or [dstVR, 1] on A5)."""
    core = new_core(target)
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(pto.int32, ir, ic, 0, bl=bl, vr=ivr, vc=ivc)
        dst = tile(F32, 8, 32, 0x400)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


def test_r_by_1_index_is_a5_only():
    """§5.1 check 7 allows [R,1]; §6.1 check 12 allows only [1,R] (RowMajor [R,1] included)."""
    for target, ok in (("a5", True), ("a2a3", False)):
        core = new_core(target)
        with core:
            table = nd_table(core, np.zeros((16, 32), np.float32))
            idx = tile(pto.int32, 8, 8, 0, vr=8, vc=1)          # RowMajor, valid [8, 1]
            dst = tile(F32, 8, 32, 0x400)
            call = lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)  # noqa: E731
            if ok:
                call()
            else:
                expect_check(core, call)


def test_a5_row_table_shape4_must_equal_dst_valid_col():
    """§5.1 check 8: staticShape[4] == dst ValidCol on A5; A2/A3 has no such check."""
    for target, ok in (("a5", False), ("a2a3", True)):
        core = new_core(target)
        with core:
            table = nd_table(core, np.zeros((16, 32), np.float32))
            idx = tile(pto.int32, 1, 8, 0)
            dst = tile(F32, 8, 32, 0x400, vc=16)
            call = lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)  # noqa: E731
            if ok:
                call()
            else:
                expect_check(core, call)


# -- Elem shape checks --------------------------------------------------------------------------
@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("ivr,ivc", [(4, 8), (8, 4), (1, 8)])
def test_elem_index_valid_shape_must_equal_dst(target, ivr, ivc):
    """§5.1 checks 9-10 / §6.1 check 13: idx valid shape == dst valid shape."""
    core = new_core(target)
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(pto.int32, 8, 8, 0, vr=ivr, vc=ivc)
        dst = tile(F32, 8, 8, 0x400)
        expect_check(core, lambda: pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx))


def test_cpu_has_no_shape_checks():
    """§4 step 1: no location/layout/shape checks on the CPU sim (mismatched Elem shapes run)."""
    core = new_core("cpu")
    with core:
        flat = np.arange(64, dtype=np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 8, 8), (64, 64, 64, 8, 1))
        idx = tile(pto.int32, 8, 8, 0, vr=2, vc=2)
        core.write("ub", 0, np.arange(64, dtype=np.int32)[::-1].copy())
        dst = tile(F32, 1, 8, 0x400)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)     # reads idx storage (0, 0..7)
        np.testing.assert_array_equal(dst.raw().view(np.uint32),
                                      flat[63 - np.arange(8)].view(np.uint32))


# -- A2/A3 layout checks (§6.1 checks 6-11) ----------------------------------------------------
def test_a2a3_index_tile_must_be_nonebox():
    """§6.1 check 7: idx SFractal == NoneBox."""
    core = new_core("a2a3")
    with core:
        table = nd_table(core, np.zeros((16, 32), np.float32))
        idx = tile(pto.int32, 16, 8, 0, sl=SRM, vr=1, vc=8)
        dst = tile(F32, 8, 32, 0x400)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


def test_a2a3_table_layout_must_be_nd_or_nz():
    """§6.1 check 8: a DN table is rejected on A2/A3; A5 does not check layout (§5.1)."""
    for target, ok in (("a2a3", False), ("a5", True)):
        core = new_core(target)
        with core:
            table = gt(core, np.zeros(16 * 32, np.float32), F32, (1, 1, 1, 16, 32),
                       (512, 512, 512, 1, 16), L.DN)
            idx = tile(pto.int32, 1, 8, 0)
            dst = tile(F32, 8, 32, 0x400)
            call = lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)  # noqa: E731
            if ok:
                call()
            else:
                expect_check(core, call)


@pytest.mark.parametrize("table_layout,dst_kind", [("ND", "NZ"), ("NZ", "ND"), ("ND", "CM"),
                                                   ("NZ", "Zz")])
def test_a2a3_table_and_dst_layouts_must_pair(table_layout, dst_kind):
    """§6.1 check 9: (ND table, ND dst) or (NZ table, NZ dst)."""
    core = new_core("a2a3")
    with core:
        if table_layout == "ND":
            table = nd_table(core, np.zeros((16, 16), np.float32))
        else:
            table = gt(core, np.zeros(256, np.float32), F32, (1, 2, 1, 16, 8),
                       (256, 128, 128, 8, 1), L.NZ)
        idx = tile(pto.int32, 1, 16, 0)
        kinds = {"NZ": dict(bl=CM, sl=SRM), "ND": dict(), "CM": dict(bl=CM), "Zz": dict(sl=SRM)}
        dst = tile(F32, 16, 16, 0x400, **kinds[dst_kind])
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


@pytest.mark.parametrize("shape,stride,rows", [
    ((1, 2, 1, 8, 8), (128, 64, 128, 8, 1), 16),     # staticShape[3] != 16
    ((1, 1, 1, 16, 16), (256, 256, 256, 16, 1), 16),  # staticShape[4] != C0 (8 for f32)
    ((1, 2, 1, 16, 8), (256, 128, 128, 8, 1), 8),     # Dst::Rows % 16 != 0 (Vec NZ, Rows 8)
])
def test_a2a3_nz_table_static_shape_rules(shape, stride, rows):
    """§6.1 check 11: NZ table needs Shape[3] == 16, Shape[4] == C0; dst Rows % 16 == 0."""
    core = new_core("a2a3")
    with core:
        table = gt(core, np.zeros(512, np.float32), F32, shape, stride, L.NZ)
        idx = tile(pto.int32, 1, 8, 0)
        dst = tile(F32, rows, 16, 0x400, bl=CM, sl=SRM, vr=8)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


def test_a2a3_nz_table_dims_3_and_4_must_be_static():
    """§6.1 check 11 reads staticShape[3..4]: a dynamic (-1) dim there fails the check."""
    core = new_core("a2a3")
    with core:
        sh, st = pto.Shape[1, 2, 1, -1, 8], pto.Stride[256, 128, 128, 8, 1]
        T = pto.GlobalTensor[F32, sh, st, L.NZ]
        table = T(core.gm_put(np.zeros(256, np.float32)), sh(16))
        idx = tile(pto.int32, 1, 16, 0)
        dst = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Clamp](dst, table, idx))


def test_a2a3_dynamic_dims_are_gated_out():
    """§6.1: A2/A3 gates with int, so DYNAMIC (-1) dims skip checks 12-13."""
    core = new_core("a2a3")
    with core:
        table = nd_table(core, (np.arange(16 * 32) % 97).astype(np.float32).reshape(16, 32))
        idx = tile(pto.int32, 1, 8, 0, vr=1, vc=8)
        dst = tile(F32, 8, 32, 0x400, vr=-1, vc=-1, valid=(8, 32))
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        idx2 = tile(pto.int32, 4, 8, 0x800, vr=-1, vc=-1, valid=(4, 8))
        dst2 = tile(F32, 4, 8, 0x1000)
        pto.MGATHER[ELEM, OOB.Clamp](dst2, table, idx2)


# -- the A5 dynamic-dimension quirk (§5.1) ------------------------------------------------------
def _quirk_cases():
    """(name, mode, idx (vr, vc), dst (vr, vc), table Shape[4] static?)"""
    return [
        ("row dst dynamic, idx static", ROW, (1, 8), (-1, -1), False),
        ("row dst VC dynamic, Shape[4] static", ROW, (1, -1), (-1, -1), True),
        ("row dst VC static, Shape[4] dynamic", ROW, (1, -1), (-1, 32), False),
        ("elem idx dynamic, dst static", ELEM, (-1, -1), (8, 32), None),
        ("elem idx static, dst dynamic", ELEM, (8, 32), (-1, -1), None),
    ]


@pytest.mark.parametrize("case", _quirk_cases(), ids=lambda c: c[0])
@pytest.mark.parametrize("quirk", [True, False])
def test_a5_dynamic_dim_cast_quirk(case, quirk):
    """§5.1 quirk: -1 is cast to 0xFFFFFFFF before the '> 0' gates, so a static/dynamic mix
    fails to compile on A5 (quirk on, the default) and passes with the quirk switched off."""
    _, mode, ivalid, dvalid, s4_static = case
    core = new_core("a5", quirks={"a5_dynamic_dim_cast": quirk})
    with core:
        mat = np.zeros((16, 32), np.float32)
        if s4_static is False:
            sh, st = pto.Shape[1, 1, 1, 16, -1], pto.Stride[512, 512, 512, 32, 1]
            table = pto.GlobalTensor[F32, sh, st](core.gm_put(mat.reshape(-1)), sh(32))
        else:
            table = nd_table(core, mat)
        full_i = (1, 8) if mode == ROW else (8, 32)
        iargs = tuple(full_i[k] for k, v in enumerate(ivalid) if v == -1)
        idx = tile(pto.int32, 8, 32, 0, vr=ivalid[0], vc=ivalid[1], valid=iargs)
        dargs = tuple((8, 32)[k] for k, v in enumerate(dvalid) if v == -1)
        dst = tile(F32, 8, 32, 0x800, vr=dvalid[0], vc=dvalid[1], valid=dargs)
        call = lambda: pto.MGATHER[mode, OOB.Clamp](dst, table, idx)  # noqa: E731
        if quirk:
            expect_check(core, call)
        else:
            call()


def test_a5_quirk_is_on_by_default_and_both_dynamic_passes():
    """§5.1: both-dynamic pairs pass by coincidence (0xFFFFFFFF == 0xFFFFFFFF)."""
    core = new_core("a5")
    assert core.quirks["a5_dynamic_dim_cast"] is True
    with core:
        mat = (np.arange(16 * 32) % 89).astype(np.float32).reshape(16, 32)
        sh, st = pto.Shape[1, 1, 1, 16, -1], pto.Stride[512, 512, 512, 32, 1]
        table = pto.GlobalTensor[F32, sh, st](core.gm_put(mat.reshape(-1)), sh(32))
        idx = tile(pto.int32, 1, 8, 0, vr=1, vc=-1, valid=(4,))
        idx.set(np.array([[3, 2, 1, 0]], np.int32))
        dst = tile(F32, 8, 32, 0x800, vr=-1, vc=-1, valid=(4, 32))
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        np.testing.assert_array_equal(dst.numpy().view(np.uint32), mat[[3, 2, 1, 0]].view(np.uint32))


def test_unknown_quirk_is_rejected():
    with pytest.raises(ValueError):
        pto.Core("a5", "numpy", quirks={"no_such_quirk": True})


# -- template arguments and operand kinds -------------------------------------------------------
@pytest.mark.parametrize("params", [(OOB.Clamp,), (ROW, ROW), (ROW, OOB.Zero, OOB.Zero),
                                    (ROW, OOB.Zero, pto.GatherExec.Simt, 1)])
def test_template_arguments_must_be_cmode_oob_exec(params):
    """§2: MGATHER<CMode[, Oob[, Exec]]> -- order and kinds as in C++."""
    with pytest.raises(pto.PtoCheckError):
        pto.MGATHER[params]


@pytest.mark.parametrize("target", ["cpu", "a2a3"])
def test_gather_exec_exists_only_on_a5(target):
    """§1.1/§2: GatherExec is defined only by the A5 header."""
    core = new_core(target)
    with core:
        table, idx, dst = _std(core)
        expect_check(core, lambda: pto.MGATHER[ELEM, OOB.Zero, pto.GatherExec.Scalar](
            dst, table, idx, table))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_operands_must_be_tile_and_global_tensor(target):
    core = new_core(target)
    with core:
        table, idx, dst = _std(core)
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Zero](np.zeros((8, 32)), table, idx))
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Zero](dst, np.zeros(8), idx))
        expect_check(core, lambda: pto.MGATHER[ROW, OOB.Zero](dst, table, [1, 2, 3]))
