"""MGATHER into a Vec tile: Row and Elem, per target (mgather.md §2, §4, §5.2-§5.5, §6.3, §6.5, §7).

Every expected image is built here from the spec's formulas; results are compared as raw bytes,
including the padding the instruction must leave untouched (UB starts filled with SENT bytes).
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import (CM, ELEM, M, NPU, OOB, RM, ROW, SRM, TARGETS, V, assert_bytes, gt,
                      nd_table, new_core, sentinel, tile, ub_snapshot)

F32 = pto.float32
IDX = np.array([3, 1, 4, 1, 5, 9, 2, 6], np.int32)


def table16x32(core, dtype=np.float32):
    mat = (np.arange(16 * 32) % 251).astype(dtype).reshape(16, 32)
    return mat, nd_table(core, mat)


# -- Row mode: the common case ---------------------------------------------------------------
@pytest.mark.parametrize("oob", list(OOB))
def test_row_gathers_whole_rows_on_every_target(core, oob):
    """§3-§6: in-range indices give dst[r, :] = table[idx[r], :] under every policy."""
    mat, table = table16x32(core)
    idx = tile(pto.int32, 1, 8, 0x0)
    dst = tile(F32, 8, 32, 0x100)
    idx.set(IDX[None, :])
    pto.MGATHER[ROW, oob](dst, table, idx)
    assert_bytes(dst.raw(), mat[IDX].reshape(-1))


NPU_DTYPES = ["int8", "uint8", "int16", "uint16", "int32", "uint32", "half", "bfloat16", "float32"]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("name", NPU_DTYPES)
def test_row_moves_bytes_of_every_common_dtype(target, name):
    """§5.1/§6.1 check 1: the nine common element types; bytes move unchanged (NaN too)."""
    dt = getattr(pto, name)
    cols = 32 // dt.itemsize * 2
    core = new_core(target)
    with core:
        raw = np.random.default_rng(1).integers(0, 256, 8 * cols * dt.itemsize, dtype=np.uint8)
        mat = raw.view(dt).reshape(8, cols)
        table = nd_table(core, mat, dt)
        idx = tile(pto.int32, 1, 8, 0)
        dst = tile(dt, 4, cols, 0x100)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, _idx_view_set(idx, [7, 0, 3, 3]))
        assert_bytes(dst.raw(), mat[[7, 0, 3, 3]].reshape(-1))


def _idx_view(idx_tile, n):
    """A [1, n]-valid index tile over the same UB bytes as ``idx_tile`` (aliasing view)."""
    t = pto.Tile[V, idx_tile.DType, 1, idx_tile.Cols, RM, 1, n]()
    pto.TASSIGN(t, idx_tile.addr)
    return t


@pytest.mark.parametrize("name", ["hifloat8", "float8_e4m3", "float8_e5m2"])
def test_a5_moves_fp8_and_hif8_codes_unchanged(name):
    """§5.1 check 1: A5 takes hifloat8 and both fp8 types; every code (NaNs too) moves as is."""
    dt = getattr(pto, name)
    core = new_core("a5")
    with core:
        codes = np.arange(256, dtype=np.uint8).reshape(8, 32)
        table = gt(core, codes.view(np.uint8) if name == "hifloat8" else codes.view(dt),
                   dt, (1, 1, 1, 8, 32), (256, 256, 256, 32, 1))
        idx = tile(pto.int32, 1, 8, 0)
        dst = tile(dt, 8, 32, 0x100)
        order = np.array([7, 6, 5, 4, 3, 2, 1, 0], np.int32)
        idx.set(order[None, :])
        pto.MGATHER[ROW](dst, table, idx)
        assert_bytes(dst.raw().view(np.uint8), codes[order].reshape(-1))


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("idx_dtype", ["int32", "uint32"])
def test_npu_index_tile_may_be_int32_or_uint32(target, idx_dtype):
    """§5.1/§6.1 check 2: TIdx in {int32, uint32}."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        idx = tile(getattr(pto, idx_dtype), 1, 8, 0)
        dst = tile(F32, 8, 32, 0x100)
        idx.set(IDX[None, :].astype(idx_dtype))
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), mat[IDX].reshape(-1))


@pytest.mark.parametrize("idx_dtype,cols", [("int8", 32), ("int16", 16), ("uint16", 16),
                                            ("int64", 8), ("uint64", 8), ("uint8", 32)])
def test_cpu_accepts_any_integral_index_type(idx_dtype, cols):
    """§4 step 1: the CPU sim only requires an integral index type."""
    core = new_core("cpu")
    with core:
        mat, table = table16x32(core)
        idx = tile(getattr(pto, idx_dtype), 1, cols, 0, vc=8)
        dst = tile(F32, 8, 32, 0x100)
        idx.set(IDX[None, :].astype(idx_dtype))
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), mat[IDX].reshape(-1))


# -- dispatch: defaults of the plain call (§2) -------------------------------------------------
def _mode_probe(core):
    """A call that is legal in both modes but answers differently: idx storage [2,5,1,0,...]."""
    mat = (np.arange(4 * 8) * 10).astype(np.float32).reshape(4, 8)
    table = nd_table(core, mat)
    idx = tile(pto.int32, 1, 8, 0, vr=1, vc=1)
    core.write("ub", 0, np.array([2, 5, 1, 0, 3, 3, 3, 3], np.int32))
    dst = tile(F32, 1, 8, 0x100)
    return mat, table, idx, dst


@pytest.mark.parametrize("target,mode", [("cpu", ELEM), ("a2a3", ROW), ("a5", ROW)])
def test_plain_call_defaults_to_target_mode(target, mode):
    """§2: plain MGATHER is Elem on the CPU sim, Row on A2/A3 and A5."""
    core = new_core(target)
    with core:
        mat, table, idx, dst = _mode_probe(core)
        pto.MGATHER(dst, table, idx)
        if mode == ELEM:   # CPU Elem walks dst (0, c) and reads idx storage (0, c) -- no checks
            want = mat.reshape(-1)[[2, 5, 1, 0, 3, 3, 3, 3]]
        else:              # Row: dst row 0 = table row idx[0] = 2
            want = mat[2]
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("target", TARGETS)
def test_one_template_argument_keeps_mode_and_undefined_oob(target):
    """§2: MGATHER<CMode>(…) = CMode with GatherOOB::Undefined: an OOB row is read past the table."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        after = core.gm_put(np.arange(1000, 1032, dtype=np.float32))
        assert after.addr == table.addr + 16 * 32 * 4          # set-up: tensors are adjacent
        idx = tile(pto.int32, 1, 8, 0)
        dst = tile(F32, 1, 32, 0x100)
        pto.MGATHER[ROW](dst, table, _idx_view_set(idx, [16]))
        assert_bytes(dst.raw(), np.arange(1000, 1032, dtype=np.float32))


def _idx_view_set(idx_tile, values):
    v = _idx_view(idx_tile, len(values))
    v.set(np.array([values], dtype=idx_tile.Element))
    return v


def test_doc_auto_example_is_elem_on_cpu_and_rejected_on_npu():
    """§2: plain MGATHER with a 16x16 index tile compiles (Elem) on CPU, fails Row checks on NPU."""
    for target in TARGETS:
        core = new_core(target)
        with core:
            mat = np.arange(256, dtype=np.float32).reshape(16, 16)
            table = nd_table(core, mat)
            idx = tile(pto.int32, 16, 16, 0)
            dst = tile(F32, 16, 16, 0x400)
            ix = (np.arange(256, dtype=np.int32).reshape(16, 16) * 7) % 256
            idx.set(ix)
            if target == "cpu":
                pto.MGATHER(dst, table, idx)
                assert_bytes(dst.raw(), mat.reshape(-1)[ix].reshape(-1))
            else:
                before = ub_snapshot(core)
                with pytest.raises(pto.PtoCheckError):
                    pto.MGATHER(dst, table, idx)
                assert ub_snapshot(core) == before


# -- Row capacity and source address (§7) ------------------------------------------------------
def _cap_table(core):
    """Shape(2,1,1,4,8), packed: 8 rows of 8 in memory; Row cap is 4 (cpu, a5) or 8 (a2a3)."""
    mat = (np.arange(64) + 100).astype(np.float32).reshape(8, 8)
    return mat, gt(core, mat, F32, (2, 1, 1, 4, 8), (32, 32, 32, 8, 1))


@pytest.mark.parametrize("oob,want", [
    (OOB.Clamp, {"a2a3": [6, 5, 3, 7], "cpu": [3, 3, 3, 3], "a5": [3, 3, 3, 3]}),
    (OOB.Wrap, {"a2a3": [6, 5, 3, 4], "cpu": [2, 1, 3, 0], "a5": [2, 1, 3, 0]}),
])
def test_row_capacity_is_shape3_or_product_of_dims_0_to_3(core, oob, want):
    """§5.2/§6.2/§4: Row cap = Shape[3] (cpu, a5) vs ∏Shape[0..3] (a2a3), dims 0-2 ≠ 1."""
    mat, table = _cap_table(core)
    idx = tile(pto.int32, 1, 8, 0)
    dst = tile(F32, 4, 8, 0x100)
    pto.MGATHER[ROW, oob](dst, table, _idx_view_set(idx, [6, 5, 3, 100]))
    assert_bytes(dst.raw(), mat[want[core.target.name]].reshape(-1))


def test_row_zero_capacity_divergence(core):
    """§7: with Zero, row 6 is in range on a2a3 (cap 8) but out of range (zeros) on cpu/a5."""
    mat, table = _cap_table(core)
    idx = tile(pto.int32, 1, 8, 0)
    dst = tile(F32, 2, 8, 0x100)
    pto.MGATHER[ROW, OOB.Zero](dst, table, _idx_view_set(idx, [6, 1]))
    first = mat[6] if core.target.name == "a2a3" else np.zeros(8, np.float32)
    assert_bytes(dst.raw(), np.concatenate([first, mat[1]]))


def _padded_table(core, s4=1):
    """4 logical rows of 8 stored with row pitch 16 (and element pitch ``s4``)."""
    buf = (np.arange(4 * 16) + 1).astype(np.float32)
    return buf, gt(core, buf, F32, (1, 1, 1, 4, 8), (64, 64, 64, 16, s4))


def test_row_stride_padded_table_diverges(core):
    """§5.3/§6.3/§4: row pitch = Stride[3] on cpu and a2a3; A5 ignores strides (pitch = VC)."""
    buf, table = _padded_table(core)
    rows = [2, 0, 3, 1]
    idx = tile(pto.int32, 1, 8, 0)
    dst = tile(F32, 4, 8, 0x100)
    pto.MGATHER[ROW, OOB.Clamp](dst, table, _idx_view_set(idx, rows))
    pitch = 8 if core.target.name == "a5" else 16
    want = np.stack([buf[r * pitch: r * pitch + 8] for r in rows])
    assert_bytes(dst.raw(), want.reshape(-1))


def test_row_element_pitch_only_on_cpu(core):
    """§7: Row source is row*s3 + c*s4 (cpu), row*s3 + c (a2a3), row*VC + c (a5)."""
    buf, table = _padded_table(core, s4=2)
    rows = [1, 3]
    idx = tile(pto.int32, 1, 8, 0)
    dst = tile(F32, 2, 8, 0x100)
    pto.MGATHER[ROW, OOB.Clamp](dst, table, _idx_view_set(idx, rows))
    t = core.target.name
    c = np.arange(8)
    want = np.stack([buf[{"cpu": r * 16 + 2 * c, "a2a3": r * 16 + c, "a5": r * 8 + c}[t]]
                     for r in rows])
    assert_bytes(dst.raw(), want.reshape(-1))


def test_a5_row_offset_is_32_bit(core):
    """§5.3: A5 srcRow = table + uint32(safe*VC): index 2^29 with VC = 8 wraps to row 0;
    a2a3/cpu compute it in 64 bits and leave GM (PtoFault)."""
    mat, table = table16x32(core)
    tbl8 = gt(core, mat[:, :8].copy(), F32, (1, 1, 1, 16, 8), (128, 128, 128, 8, 1))
    idx = tile(pto.int32, 1, 8, 0)
    dst = tile(F32, 2, 8, 0x100)
    iv = _idx_view_set(idx, [2**29, 2**29 + 3])
    if core.target.name == "a5":
        pto.MGATHER[ROW, OOB.Undefined](dst, tbl8, iv)
        assert_bytes(dst.raw(), mat[[0, 3], :8].reshape(-1))
    else:
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoFault):
            pto.MGATHER[ROW, OOB.Undefined](dst, tbl8, iv)
        assert ub_snapshot(core) == before


# -- Row: index tile shapes and destination layouts --------------------------------------------
@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_row_accepts_r_by_1_colmajor_index_tile(target):
    """§5.1 check 7 / §4: an [R,1] ColMajor index tile is read flat (offset of (r,0) is r)."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        idx = tile(pto.int32, 8, 1, 0, bl=CM)
        idx.set(IDX[:, None])
        dst = tile(F32, 8, 32, 0x100)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), mat[IDX].reshape(-1))


def test_a2a3_rejects_colmajor_index_tile():
    """§6.1 checks 6 and 12: A2/A3 takes only a [1, R] RowMajor index tile."""
    core = new_core("a2a3")
    with core:
        _, table = table16x32(core)
        idx = tile(pto.int32, 8, 1, 0, bl=CM)
        dst = tile(F32, 8, 32, 0x100)
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoCheckError):
            pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert ub_snapshot(core) == before


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_row_index_is_flat_even_for_r_by_1_rowmajor_tile(target):
    """§5.3/§4: a [R,1]-valid RowMajor index tile is still read flat: element k of its storage."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        idx = tile(pto.int32, 4, 8, 0, vr=4, vc=1)
        storage = np.array([5, 7, 9, 11, 0, 0, 0, 0] * 4, np.int32)
        core.write("ub", 0, storage)
        dst = tile(F32, 4, 32, 0x100)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), mat[[5, 7, 9, 11]].reshape(-1))


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_row_into_colmajor_destination(target):
    """§5.3 tile_offset_2d / §4 SetElement: a ColMajor dst puts (r, c) at c*Rows + r."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        t8 = gt(core, mat[:, :8].copy(), F32, (1, 1, 1, 16, 8), (128, 128, 128, 8, 1))
        idx = tile(pto.int32, 1, 8, 0)
        idx.set(IDX[None, :])
        dst = tile(F32, 8, 8, 0x100, bl=CM)
        pto.MGATHER[ROW, OOB.Clamp](dst, t8, idx)
        want = mat[IDX, :8]                        # (r, c)
        assert_bytes(dst.raw(), want.T.reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_row_writes_only_valid_region(target):
    """§5.3 'nothing else is written' (a5), §4 step 6 (cpu); a2a3 only up to the 32-B boundary."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        idx = tile(pto.int32, 1, 8, 0, vc=3)
        dst = tile(F32, 8, 32, 0x100, vr=3, vc=16)
        t16 = gt(core, mat[:, :16].copy(), F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
        idx.set(np.array([[4, 0, 15]], np.int32))
        pto.MGATHER[ROW, OOB.Clamp](dst, t16, idx)
        want = sentinel(8 * 32, np.float32).reshape(8, 32)
        want[:3, :16] = mat[[4, 0, 15], :16]
        assert_bytes(dst.raw(), want.reshape(-1))


# -- A2/A3 Row tail fill (other-ops.md §D.4) --------------------------------------------------
@pytest.mark.parametrize("dt,vc,cols", [("float32", 5, 16), ("half", 20, 32), ("int8", 33, 96),
                                        ("float32", 1, 8)])
def test_a2a3_row_fills_to_32_byte_boundary_with_first_element(dt, vc, cols):
    """§6.3 + §D.4: the burst of VC elements is followed by copies of its first element up to
    the next 32-byte boundary; bytes beyond stay untouched."""
    core = new_core("a2a3")
    with core:
        dtype = getattr(pto, dt)
        size = dtype.itemsize
        mat = (np.arange(6 * vc) % 100 + 1).astype(dtype).reshape(6, vc)
        table = gt(core, mat, dtype, (1, 1, 1, 6, vc), (6 * vc, 6 * vc, 6 * vc, vc, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=3)
        idx.set(np.array([[5, 2, 0]], np.int32))
        dst = tile(dtype, 4, cols, 0x100, vr=3, vc=vc)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        end = -(-vc * size // 32) * 32 // size
        want = sentinel(4 * cols, dtype).reshape(4, cols)
        for r, row in enumerate([5, 2, 0]):
            want[r, :vc] = mat[row]
            want[r, vc:end] = mat[row, 0]
        assert_bytes(dst.raw(), want.reshape(-1))


def test_a2a3_row_zero_rows_get_no_tail_fill():
    """§6.3: a Zero-OOB row is a scalar loop writing 0 for c < VC only (no DMA, no filler)."""
    core = new_core("a2a3")
    with core:
        mat = (np.arange(4 * 5) + 1).astype(np.float32).reshape(4, 5)
        table = gt(core, mat, F32, (1, 1, 1, 4, 5), (20, 20, 20, 5, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[9, 1]], np.int32))
        dst = tile(F32, 2, 16, 0x100, vc=5)
        pto.MGATHER[ROW, OOB.Zero](dst, table, idx)
        want = sentinel(32, np.float32).reshape(2, 16)
        want[0, :5] = 0
        want[1, :5] = mat[1]
        want[1, 5:8] = mat[1, 0]
        assert_bytes(dst.raw(), want.reshape(-1))


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_partial_row_has_no_tail_fill_on_cpu_and_a5(target):
    """§4 step 6 / §5.3: only the valid (r, c) are written."""
    core = new_core(target)
    with core:
        mat = (np.arange(4 * 5) + 1).astype(np.float32).reshape(4, 5)
        table = gt(core, mat, F32, (1, 1, 1, 4, 5), (20, 20, 20, 5, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[3, 1]], np.int32))
        dst = tile(F32, 2, 16, 0x100, vc=5)
        pto.MGATHER[ROW, OOB.Zero](dst, table, idx)
        want = sentinel(32, np.float32).reshape(2, 16)
        want[:, :5] = mat[[3, 1]]
        assert_bytes(dst.raw(), want.reshape(-1))


# -- Elem mode ---------------------------------------------------------------------------------
@pytest.mark.parametrize("oob", list(OOB))
def test_elem_gathers_flat_elements_on_every_target(core, oob):
    """§4/§5.4/§6.5: dst[r, c] = table.flat[idx[r, c]] for in-range indices."""
    flat = (np.arange(200) * 3 + 1).astype(np.float32)
    table = gt(core, flat, F32, (1, 1, 1, 10, 20), (200, 200, 200, 20, 1))
    ix = np.random.default_rng(7).integers(0, 200, (4, 8)).astype(np.int32)
    idx = tile(pto.int32, 4, 8, 0)
    dst = tile(F32, 4, 8, 0x100)
    idx.set(ix)
    pto.MGATHER[ELEM, oob](dst, table, idx)
    assert_bytes(dst.raw(), flat[ix].reshape(-1))


def test_elem_ignores_table_strides_but_uses_shape_product_as_cap(core):
    """§4/§5.4/§6.5: the table is addressed flat from data(); cap = ∏Shape[0..4]."""
    buf = (np.arange(64) + 0.5).astype(np.float32)
    table = gt(core, buf, F32, (1, 1, 2, 2, 8), (999, 999, 40, 17, 3))   # cap 32
    idx = tile(pto.int32, 1, 8, 0)
    dst = tile(F32, 1, 8, 0x100)
    idx.set(np.array([[0, 1, 9, 17, 31, 32, 40, 63]], np.int32))
    pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
    assert_bytes(dst.raw(), buf[[0, 1, 9, 17, 31, 31, 31, 31]])


def test_elem_large_tile_over_1024_elements(core):
    """§5.4: tiles with more than 1024 valid elements are covered (grid-stride rounds)."""
    flat = np.arange(4096, dtype=np.int32) * 5
    table = gt(core, flat, pto.int32, (1, 1, 1, 64, 64), (4096, 4096, 4096, 64, 1))
    ix = np.random.default_rng(3).integers(0, 4096, (40, 64)).astype(np.int32)
    idx = tile(pto.int32, 40, 64, 0)
    dst = tile(pto.int32, 40, 64, 0x4000)
    idx.set(ix)
    pto.MGATHER[ELEM, OOB.Wrap](dst, table, idx)
    assert_bytes(dst.raw(), flat[ix].reshape(-1))


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_elem_index_and_dst_may_have_different_blayouts(target):
    """§5.4/§4: index read at its own layout offset, dst written at its own (ColMajor here)."""
    core = new_core(target)
    with core:
        flat = (np.arange(64) * 2).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 8, 8), (64, 64, 64, 8, 1))
        ix = np.random.default_rng(5).integers(0, 64, (8, 8)).astype(np.int32)
        idx = tile(pto.int32, 8, 8, 0, bl=CM)
        core.write("ub", 0, np.ascontiguousarray(ix.T))       # ColMajor storage: c*8 + r
        dst = tile(F32, 8, 8, 0x100)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), flat[ix].reshape(-1))


def test_boxed_vec_dst_is_plain_colmajor_on_a5_but_nz_on_cpu():
    """§5.3 tile_offset_2d ignores SLayout on A5; the CPU sim uses the full NZ offset (§1.2)."""
    ix = (np.arange(16 * 16, dtype=np.int32).reshape(16, 16) * 3) % 256
    flat = (np.arange(256) + 1000).astype(np.float32)
    for target in ("cpu", "a5"):
        core = new_core(target)
        with core:
            table = gt(core, flat, F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
            idx = tile(pto.int32, 16, 16, 0)
            idx.set(ix)
            dst = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM)
            pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
            vals = flat[ix]                                  # logical (r, c)
            if target == "a5":
                want = vals.T.reshape(-1)                    # c*16 + r
            else:                                            # (c//8)*16*8 + r*8 + c%8
                want = vals.reshape(16, 2, 8).transpose(1, 0, 2).reshape(-1)
            assert_bytes(dst.raw(), want)


def test_cpu_elem_reads_boxed_index_tile_with_full_offsets():
    """§4 step 5: CPU Elem reads the index at the full layout offset (a Zz-boxed tile here)."""
    core = new_core("cpu")
    with core:
        flat = (np.arange(512) + 7).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 16, 32), (512, 512, 512, 32, 1))
        ix = (np.arange(16 * 16, dtype=np.int32).reshape(16, 16) * 5) % 512
        idx = tile(pto.int32, 16, 16, 0, bl=RM, sl=SRM)       # Zz, box 16 x 8
        # storage of Zz: (sr, sc, ir, ic) -> boxes of 16x8 row-major, boxes in row-major order
        core.write("ub", 0, np.ascontiguousarray(ix.reshape(1, 16, 2, 8).transpose(0, 2, 1, 3)))
        dst = tile(F32, 16, 16, 0x400)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), flat[ix].reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_elem_static_1x1(target):
    """§5.5: a static 1x1 Elem (A5 scalar path) reads idx[0] and writes dst[0] only."""
    core = new_core(target)
    with core:
        flat = (np.arange(40) + 0.25).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 5, 8), (40, 40, 40, 8, 1))
        idx = tile(pto.int32, 1, 8, 0, vr=1, vc=1)
        idx.set(np.array([[33]], np.int32))
        dst = tile(F32, 1, 8, 0x100, vr=1, vc=1)
        pto.MGATHER[ELEM, OOB.Zero](dst, table, idx)
        want = sentinel(8, np.float32)
        want[0] = flat[33]
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("target", TARGETS)
def test_dynamic_runtime_1x1_matches_static_1x1(target):
    """§5.2: a dynamic tile with runtime 1x1 goes through SIMT; same bytes as the scalar path."""
    core = new_core(target, quirks={"a5_dynamic_dim_cast": False} if target == "a5" else None)
    with core:
        flat = (np.arange(40) + 0.25).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 5, 8), (40, 40, 40, 8, 1))
        idx = tile(pto.int32, 1, 8, 0, vr=-1, vc=-1, valid=(1, 1))
        idx.set(np.array([[39]], np.int32))
        dst = tile(F32, 1, 8, 0x100, vr=-1, vc=-1, valid=(1, 1))
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(8, np.float32)
        want[0] = flat[39]
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("target", TARGETS)
def test_row_1x1(target):
    """R = 1 is allowed in Row mode: one row of VC elements."""
    core = new_core(target)
    with core:
        mat, table = table16x32(core)
        idx = tile(pto.int32, 1, 8, 0, vc=1)
        idx.set(np.array([[11]], np.int32))
        dst = tile(F32, 1, 32, 0x100)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), mat[11])


# -- dynamic valid shapes ----------------------------------------------------------------------
@pytest.mark.parametrize("target", TARGETS)
def test_row_dynamic_shapes_use_runtime_valid_dims(target):
    """§1.2/§5.2: runtime VR, VC; A5 passes because every compared dim is dynamic (§5.1)."""
    core = new_core(target)
    with core:
        mat = (np.arange(16 * 16) + 3).astype(np.float32).reshape(16, 16)
        sh, st = pto.Shape[1, 1, 1, -1, -1], pto.Stride[1, 1, 1, -1, 1]
        T = pto.GlobalTensor[F32, sh, st, pto.Layout.ND]
        table = T(core.gm_put(mat.reshape(-1)), sh(16, 16), st(16))
        idx = tile(pto.int32, 1, 8, 0, vr=1, vc=-1, valid=(3,))
        idx.set(np.array([[7, 2, 13]], np.int32))
        dst = tile(F32, 4, 16, 0x100, vr=-1, vc=-1, valid=(3, 16))
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        want = sentinel(64, np.float32).reshape(4, 16)
        want[:3] = mat[[7, 2, 13]]
        assert_bytes(dst.raw(), want.reshape(-1))


@pytest.mark.parametrize("target", TARGETS)
def test_elem_dynamic_shapes_write_runtime_region_only(target):
    """§4/§5.4/§6.5 with dynamic dst and idx (both dynamic: passes the A5 quirk)."""
    core = new_core(target)
    with core:
        flat = (np.arange(100) * 1.5).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 10, 10), (100, 100, 100, 10, 1))
        ix = np.random.default_rng(11).integers(0, 100, (3, 5)).astype(np.int32)
        idx = tile(pto.int32, 4, 8, 0, vr=-1, vc=-1, valid=(3, 5))
        idx.set(ix)
        dst = tile(F32, 4, 8, 0x100, vr=-1, vc=-1)
        dst.set_valid_row(3)
        dst.set_valid_col(5)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(32, np.float32).reshape(4, 8)
        want[:3, :5] = flat[ix]
        assert_bytes(dst.raw(), want.reshape(-1))


@pytest.mark.parametrize("mode", [ROW, ELEM])
@pytest.mark.parametrize("valid", [(0, 8), (2, 0), (0, 0)])
def test_zero_size_valid_region_writes_nothing(core, mode, valid):
    """§4 step 2 and the launch formulas: VR == 0 or VC == 0 changes no byte."""
    _, table = table16x32(core)
    t = core.target.name
    idx_valid = (1, valid[0]) if mode == ROW else valid
    if t == "a5":
        core.quirks["a5_dynamic_dim_cast"] = False
    idx = tile(pto.int32, 2, 8, 0, vr=-1, vc=-1, valid=idx_valid)
    dst = tile(F32, 2, 32, 0x100, vr=-1, vc=-1, valid=valid)
    before = ub_snapshot(core)
    pto.MGATHER[mode, OOB.Wrap](dst, table, idx)
    assert ub_snapshot(core) == before


@pytest.mark.parametrize("target", TARGETS)
def test_static_zero_valid_dst_does_not_compile_dynamic_zero_gathers_nothing(target):
    """pto_tile.hpp defines GetValidRow/Col only for a dim > 0 or DYNAMIC; a tile with a static
    0 still constructs (Tile()). MGATHER's code calls dst.GetValidRow/Col on every target, so a
    static-0 dst does not compile (PtoCheckError); the index tile's valid dims are never read, so
    a static-0 index tile compiles (tests/test_static_valid_zero.py). A dynamic dst of 0 rows
    gathers nothing."""
    core = new_core(target)
    with core:
        _, table = table16x32(core)
        zero_dst = tile(F32, 2, 32, 0x100, vr=0)            # constructs
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoCheckError, match=r"dst\.GetValidRow\(\)") as e:
            pto.MGATHER[ROW, OOB.Clamp](zero_dst, table, tile(pto.int32, 1, 8, 0, vc=2))
        assert e.value.target == target
        dst = tile(F32, 2, 32, 0x100, vr=-1, valid=(0,))
        for idx in (tile(pto.int32, 1, 8, 0, vc=-1, valid=(0,)), tile(pto.int32, 1, 8, 0, vc=0)):
            pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert ub_snapshot(core) == before


# -- CPU-only behaviour ------------------------------------------------------------------------
def test_cpu_converts_values_between_same_size_types():
    """§4 step 1: dst and table types may differ if sizes match; the copy is a value conversion."""
    core = new_core("cpu")
    with core:
        flat = np.array([2.75, -3.5, 100.0, 0.0, 7.9, -0.2, 1e3, 5.0], np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 1, 8), (8, 8, 8, 8, 1))
        idx = tile(pto.int32, 1, 8, 0)
        idx.set(np.arange(8, dtype=np.int32)[None, ::-1].copy())
        dst = tile(pto.int32, 1, 8, 0x100)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), np.array([5, 1000, 0, 7, 0, 100, -3, 2], np.int32))


def test_cpu_rejects_different_element_sizes():
    """§4 step 1: sizeof(dst T) == sizeof(table T)."""
    core = new_core("cpu")
    with core:
        table = gt(core, np.zeros(16, np.float32), F32, (1, 1, 1, 2, 8), (16, 16, 16, 8, 1))
        idx = tile(pto.int32, 1, 8, 0)
        dst = tile(pto.half, 1, 16, 0x100)
        with pytest.raises(pto.PtoCheckError):
            pto.MGATHER[ELEM](dst, table, idx)


def test_cpu_row_rejects_boxed_index_tile():
    """§4 step 5: Row mode on CPU needs an index tile with SFractal NoneBox."""
    core = new_core("cpu")
    with core:
        _, table = table16x32(core)
        idx = tile(pto.int32, 16, 16, 0, sl=SRM)
        dst = tile(F32, 8, 32, 0x400)
        with pytest.raises(pto.PtoCheckError):
            pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)


def test_cpu_gathers_into_mat_tile_with_cmode_honoured():
    """§2: on the CPU sim a 3-arg call with a Mat dst honours CMode (same generic code)."""
    core = new_core("cpu")
    with core:
        flat = (np.arange(256) + 1).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
        idx = tile(pto.int32, 2, 8, 0)
        ix = np.array([[0, 5, 10, 15, 20, 25, 30, 35], [255, 1, 2, 3, 4, 5, 6, 7]], np.int32)
        idx.set(ix)
        dst = tile(F32, 16, 8, 0x0, bl=CM, sl=SRM, loc=M, vr=2, vc=8)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(16 * 8, np.float32)
        for r in range(2):
            for c in range(8):          # NZ offset (c//8)*16*8 + r*8 + c%8
                want[r * 8 + c] = flat[ix[r, c]]
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("which", ["dst", "idx"])
def test_an_unassigned_operand_tile_is_placed_automatically(core, which):
    """A tile that was never TASSIGNed gets its UB bytes from the core (ptogpu.placement) when
    MGATHER first takes it, clear of the tiles placed by hand here (those sit below 0x1000)."""
    _, table = table16x32(core)
    idx = tile(pto.int32, 1, 8, 0) if which == "dst" else pto.Tile[V, pto.int32, 1, 8]()
    dst = pto.Tile[V, F32, 8, 32]() if which == "dst" else tile(F32, 8, 32, 0x100)
    pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
    placed = dst if which == "dst" else idx
    assert placed.addr is not None and placed.addr % 32 == 0


# -- more per-target address rules ---------------------------------------------------------------
def test_a2a3_row_source_ignores_strides_0_to_2():
    """§6.3: A2/A3 reads row u at table + u*Stride[3] -- the outer strides never enter, even
    when dims 0-2 make rows >= Shape[3] live elsewhere under the 5-D layout."""
    core = new_core("a2a3")
    with core:
        buf = (np.arange(2000) + 1).astype(np.float32)
        table = gt(core, buf, F32, (2, 1, 1, 4, 8), (1000, 1000, 1000, 8, 1))   # cap 8
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[6, 7]], np.int32))
        dst = tile(F32, 2, 8, 0x100)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert_bytes(dst.raw(), np.concatenate([buf[48:56], buf[56:64]]))


@pytest.mark.parametrize("target", TARGETS)
def test_elem_capacity_product_wraps_at_32_bits_on_npu(target):
    """§5.2/§6.2: NPU tableSize = ∏Shape as uint32 (2^32 + 2^16 -> 2^16); the CPU sim's
    size_t product does not wrap (§4), so index 70000 is in range there."""
    core = new_core(target)
    with core:
        buf = (np.arange(80000) % 10007).astype(np.float32)
        table = gt(core, buf, F32, (1, 1, 1, 65536, 65537), (1, 1, 1, 65537, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[70000, 5]], np.int32))
        dst = tile(F32, 1, 8, 0x100, vc=2)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(8, np.float32)
        want[:2] = buf[[70000 if target == "cpu" else 65535, 5]]
        assert_bytes(dst.raw(), want)


def test_a5_boxed_index_tile_is_read_as_plain_layout():
    """§5.4/§7: A5 reads a boxed (Zz) index tile at plain RowMajor offsets r*Cols + c; the CPU
    sim at its full Zz offset."""
    ix = (np.arange(256, dtype=np.int32).reshape(16, 16) * 7) % 256
    flat = (np.arange(256) + 3).astype(np.float32)
    storage = ix.reshape(-1)                      # plain RowMajor image of ix
    for target in ("a5", "cpu"):
        core = new_core(target)
        with core:
            table = gt(core, flat, F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
            idx = tile(pto.int32, 16, 16, 0, sl=SRM)              # Zz, boxes 16 x 8
            core.write("ub", 0, storage)
            dst = tile(F32, 16, 16, 0x400)
            pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
            if target == "a5":
                logical = ix
            else:   # Zz offset of (r, c) = (c//8)*128 + r*8 + c%8 (one row band of 16)
                r, c = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
                logical = storage[(c // 8) * 128 + r * 8 + c % 8]
            assert_bytes(dst.raw(), flat[logical].reshape(-1))


def test_cpu_gm_index_tensor_row_is_flat_and_elem_uses_stride3():
    """§4 step 5: a GlobalTensor index: Row reads element r flat; Elem reads r*Stride[3] + c."""
    core = new_core("cpu")
    with core:
        mat, table = table16x32(core)
        gidx = gt(core, np.array([4, 9, 1, 0, 15, 2, 3, 7, 8, 5, 6, 11], np.int32), pto.int32,
                  (1, 1, 1, 2, 4), (12, 12, 12, 6, 1))
        dst = tile(F32, 3, 32, 0x100)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, gidx)
        assert_bytes(dst.raw(), mat[[4, 9, 1]].reshape(-1))
        d2 = tile(F32, 2, 8, 0x1000, vc=4)
        pto.MGATHER[ELEM, OOB.Clamp](d2, table, gidx)
        want = sentinel(16, np.float32).reshape(2, 8)
        want[0, :4] = mat.reshape(-1)[[4, 9, 1, 0]]
        want[1, :4] = mat.reshape(-1)[[3, 7, 8, 5]]            # row 1 starts at Stride[3] = 6
        assert_bytes(d2.raw(), want.reshape(-1))


@pytest.mark.parametrize("target", NPU)
def test_npu_ub_destination_rejects_gm_index_tensor(target):
    """§5.1/§6.1 check 5: a Vec destination needs a Vec index tile."""
    core = new_core(target)
    with core:
        _, table = table16x32(core)
        gidx = gt(core, np.arange(8, dtype=np.int32), pto.int32, (1, 1, 1, 1, 8), (8, 8, 8, 8, 1))
        dst = tile(F32, 8, 32, 0x100)
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoCheckError):
            pto.MGATHER[ROW, OOB.Clamp](dst, table, gidx)
        assert ub_snapshot(core) == before


def test_cpu_four_argument_form_honours_cmode_and_ignores_scratch():
    """§2: CPU 4-arg (scratch) forms are the same generic routine; scratch is never touched."""
    core = new_core("cpu")
    with core:
        flat = (np.arange(64) + 1).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 8, 8), (64, 64, 64, 8, 1))
        scratch = gt(core, np.full(64, 9.0, np.float32), F32, (1, 1, 1, 8, 8), (64, 64, 64, 8, 1))
        idx = tile(pto.int32, 1, 8, 0)
        idx.set(np.array([[63, 0, 1, 2, 3, 4, 5, 6]], np.int32))
        dst = tile(F32, 1, 8, 0x100)
        gm_before = core.read("gm", scratch.addr, 256).tobytes()
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx, scratch)
        assert_bytes(dst.raw(), flat[[63, 0, 1, 2, 3, 4, 5, 6]])
        assert core.read("gm", scratch.addr, 256).tobytes() == gm_before
