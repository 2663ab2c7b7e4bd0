"""A2/A3 MGATHER with an NZ GM table into an NZ Vec tile (mgather.md §6.2, §6.4, §6.6, §1.3).

The GM image of the NZ table is built here element by element from the §1.3 NZ mapping
(dim1 = column block within a batch, dim0 = batch, dim2 = row block, dim3 = row in block,
dim4 = column in block); expected dst images use the NZ tile offset
(c//C0)*Rows*C0 + r*C0 + c%C0 (§1.2).
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import CM, ELEM, OOB, ROW, SRM, assert_bytes, new_core, sentinel, tile, ub_snapshot

F32, C0 = pto.float32, 8


def nz_image(mat, g0, g1, strides):
    """GM words of logical ``mat`` (LR x LC) stored NZ with the given 5 strides (elements)."""
    LR, LC = mat.shape
    assert LC == g0 * g1 * C0 and LR % 16 == 0
    offs = {}
    for lr in range(LR):
        for lc in range(LC):
            b = lc // C0
            i0, i1, i2, i3, i4 = b // g1, b % g1, lr // 16, lr % 16, lc % C0
            offs[(lr, lc)] = sum(i * s for i, s in zip((i0, i1, i2, i3, i4), strides))
    size = max(offs.values()) + 1
    img = np.full(size, -7.0, np.float32)          # gaps hold -7 (must never be gathered)
    for (lr, lc), o in offs.items():
        img[o] = mat[lr, lc]
    return img


def nz_table(core, mat, g0, g1, strides=None, dynamic=False):
    LR, LC = mat.shape
    if strides is None:
        strides = (g1 * LR * C0, LR * C0, 16 * C0, C0, 1)
    img = nz_image(mat, g0, g1, strides)
    ptr = core.gm_put(img)
    shape = (g0, g1, LR // 16, 16, C0)
    if dynamic:
        sh, st = pto.Shape[-1, -1, -1, 16, C0], pto.Stride[-1, -1, -1, -1, -1]
        return pto.GlobalTensor[F32, sh, st, pto.Layout.NZ](ptr, sh(*shape[:3]), st(*strides))
    T = pto.GlobalTensor[F32, pto.Shape[shape], pto.Stride[tuple(strides)], pto.Layout.NZ]
    return T(ptr)


def logical(LR, LC):
    return (np.arange(LR * LC) + 1).astype(np.float32).reshape(LR, LC)


def nz_offset(r, c, rows):
    return (c // C0) * rows * C0 + r * C0 + c % C0


def _core():
    return new_core("a2a3")


# -- Row, NZ (§6.4) ------------------------------------------------------------------------------
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Undefined])
def test_row_nz_copies_every_column_block_of_the_row(oob):
    """§6.4: for each valid r, all gShape0*gShape1 column blocks of row idx[r] land at
    (i*gShape1 + j)*Rows*C0 + r*C0 + k; rows >= VR are untouched."""
    core = _core()
    with core:
        mat = logical(32, 16)
        table = nz_table(core, mat, 1, 2)
        idx = tile(pto.int32, 1, 8, 0, vc=4)
        idx.set(np.array([[5, 31, 16, 0]], np.int32))
        dst = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM, vr=4)
        pto.MGATHER[ROW, oob](dst, table, idx)
        want = sentinel(256, np.float32)
        for r, row in enumerate([5, 31, 16, 0]):
            for c in range(16):
                want[nz_offset(r, c, 16)] = mat[row, c]
        assert_bytes(dst.raw(), want)


def test_row_nz_ignores_valid_col():
    """§6.4: ValidCol is ignored -- every column block of the table is copied; blocks of the
    tile beyond the table's are untouched."""
    core = _core()
    with core:
        mat = logical(16, 16)
        table = nz_table(core, mat, 1, 2)
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[3, 9]], np.int32))
        dst = tile(F32, 16, 32, 0x400, bl=CM, sl=SRM, vr=2, vc=4)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        want = sentinel(16 * 32, np.float32)
        for r, row in enumerate([3, 9]):
            for c in range(16):                      # both blocks, though VC = 4
                want[nz_offset(r, c, 16)] = mat[row, c]
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("idx_vals,oob,rows", [
    ([40, -1, -2**31], OOB.Clamp, [31, 31, 31]),
    ([40, -1, 33], OOB.Wrap, [8, (2**32 - 1) % 32, 1]),
])
def test_row_nz_capacity_is_16_times_gshape2(idx_vals, oob, rows):
    """§6.4: cap = gShape2*16 (logical rows), remap on u32."""
    core = _core()
    with core:
        mat = logical(32, 8)
        table = nz_table(core, mat, 1, 1)
        idx = tile(pto.int32, 1, 8, 0, vc=3)
        idx.set(np.array([idx_vals], np.int32))
        dst = tile(F32, 16, 8, 0x400, bl=CM, sl=SRM, vr=3)
        pto.MGATHER[ROW, oob](dst, table, idx)
        want = sentinel(128, np.float32)
        for r, row in enumerate(rows):
            want[r * C0: r * C0 + C0] = mat[row]
        assert_bytes(dst.raw(), want)


def test_row_nz_zero_prezeroes_the_whole_tile():
    """§6.4: with Zero the scalar unit zeroes all Rows*Cols elements first; OOB rows stay 0."""
    core = _core()
    with core:
        mat = logical(16, 16)
        table = nz_table(core, mat, 1, 2)
        idx = tile(pto.int32, 1, 8, 0, vc=3)
        idx.set(np.array([[2, 16, -1]], np.int32))
        dst = tile(F32, 32, 24, 0x400, bl=CM, sl=SRM, vr=3, vc=16)
        pto.MGATHER[ROW, OOB.Zero](dst, table, idx)
        want = np.zeros(32 * 24, np.float32)
        for c in range(16):
            want[nz_offset(0, c, 32)] = mat[2, c]
        assert_bytes(dst.raw(), want)


def test_row_nz_batches_and_padded_strides():
    """§6.4: batch i reads from i*gStride0, burst j from j*gStride1 (srcGap = gStride1 - C0)."""
    core = _core()
    with core:
        mat = logical(16, 32)                        # g0 = 2 batches x g1 = 2 blocks
        strides = (2 * 136 + 24, 136, 16 * C0, C0, 1)   # 8-word gaps between blocks
        table = nz_table(core, mat, 2, 2, strides)
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[15, 4]], np.int32))
        dst = tile(F32, 16, 32, 0x400, bl=CM, sl=SRM, vr=2)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        want = sentinel(512, np.float32)
        for r, row in enumerate([15, 4]):
            for c in range(32):
                want[nz_offset(r, c, 16)] = mat[row, c]
        assert_bytes(dst.raw(), want)


def test_row_nz_dynamic_outer_dims():
    """§6.2: gShape0..2 and all strides read at run time (dims 3-4 static, check 11)."""
    core = _core()
    with core:
        mat = logical(48, 16)
        table = nz_table(core, mat, 2, 1, dynamic=True)
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[47, 50]], np.int32))
        dst = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM, vr=2)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        want = sentinel(256, np.float32)
        for r in range(2):
            for c in range(16):
                want[nz_offset(r, c, 16)] = mat[47, c]
        assert_bytes(dst.raw(), want)


# -- Elem, NZ (§6.6) ------------------------------------------------------------------------------
@pytest.mark.parametrize("g0,g1", [(1, 2), (2, 1), (2, 2)])
def test_elem_nz_index_is_logical_row_major_position(g0, g1):
    """§6.6: idx = lr*nLogicalCols + lc; GM offset via MGatherNZGmOffset; dst at NZ offsets;
    padding untouched."""
    core = _core()
    with core:
        LR, LC = 32, g0 * g1 * C0
        mat = logical(LR, LC)
        table = nz_table(core, mat, g0, g1)
        rng = np.random.default_rng(g0 * 10 + g1)
        ix = rng.integers(0, LR * LC, (5, 12)).astype(np.int32)
        idx = tile(pto.int32, 8, 16, 0, vr=5, vc=12)
        idx.set(ix)
        dst = tile(F32, 16, 16, 0x800, bl=CM, sl=SRM, vr=5, vc=12)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(256, np.float32)
        for r in range(5):
            for c in range(12):
                want[nz_offset(r, c, 16)] = mat.reshape(-1)[ix[r, c]]
        assert_bytes(dst.raw(), want)


def test_elem_nz_padded_strides_and_element_stride():
    """§6.6: offset = o0*gStride0 + o1*gStride1 + br*gStride2 + ri*gStride3 + k0*gStride4."""
    core = _core()
    with core:
        mat = logical(16, 16)
        strides = (1000, 300, 20 * C0 * 2, 2 * C0 + 3, 2)      # every stride non-canonical
        table = nz_table(core, mat, 1, 2, strides)
        ix = (np.arange(16, dtype=np.int32).reshape(2, 8) * 17) % 256
        idx = tile(pto.int32, 2, 8, 0)
        idx.set(ix)
        dst = tile(F32, 16, 8, 0x400, bl=CM, sl=SRM, vr=2, vc=8)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(128, np.float32)
        for r in range(2):
            for c in range(8):
                want[nz_offset(r, c, 16)] = mat.reshape(-1)[ix[r, c]]
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_elem_nz_oob_policies_use_cap_16_gshape2_times_logical_cols(oob):
    """§6.6: cap = 16*gShape2*nLogicalCols; u32 cast; Zero writes 0."""
    core = _core()
    with core:
        mat = logical(16, 16)                        # cap 256
        table = nz_table(core, mat, 1, 2)
        vals = [255, 256, 300, -1, -2**31, 0, 17, -256]
        idx = tile(pto.int32, 1, 8, 0)
        idx.set(np.array([vals], np.int32))
        dst = tile(F32, 16, 8, 0x400, bl=CM, sl=SRM, vr=1)
        pto.MGATHER[ELEM, oob](dst, table, idx)
        want = sentinel(128, np.float32)
        for c, x in enumerate(vals):
            u = x % 2**32
            if oob == OOB.Clamp:
                v = mat.reshape(-1)[min(u, 255)]
            elif oob == OOB.Wrap:
                v = mat.reshape(-1)[u % 256]
            else:
                v = mat.reshape(-1)[u] if u < 256 else np.float32(0)
            want[nz_offset(0, c, 16)] = v
        assert_bytes(dst.raw(), want)


def test_elem_nz_does_not_prezero_with_zero():
    """§6.6: 'Padding untouched (no pre-zero in Elem)'."""
    core = _core()
    with core:
        table = nz_table(core, logical(16, 8), 1, 1)
        idx = tile(pto.int32, 1, 8, 0, vc=1)
        idx.set(np.array([[999]], np.int32))
        dst = tile(F32, 16, 8, 0x400, bl=CM, sl=SRM, vr=1, vc=1)
        pto.MGATHER[ELEM, OOB.Zero](dst, table, idx)
        want = sentinel(128, np.float32)
        want[0] = 0
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("g0,g1", [(2, 0), (0, 3), (3, 0)])
def test_elem_nz_zero_logical_cols_faults_instead_of_dividing_by_zero(g0, g1):
    """§6.6: nLogicalCols = 0 (gShape0 or gShape1 = 0) divides by zero in MGatherNZGmOffset:
    a PtoFault (no NumPy warning), nothing written; under Zero every index is OOB (cap 0)."""
    core = _core()
    with core:
        sh, st = pto.Shape[-1, -1, -1, 16, C0], pto.Stride[-1, -1, -1, -1, -1]
        T = pto.GlobalTensor[F32, sh, st, pto.Layout.NZ]
        table = T(core.gm_put(np.arange(512, dtype=np.float32)), sh(g0, g1, 1),
                  st(256, 128, 128, 8, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[1, 3]], np.int32))
        dst = tile(F32, 16, 8, 0x400, bl=CM, sl=SRM, vr=1, vc=2)
        before = ub_snapshot(core)
        for oob in (OOB.Undefined, OOB.Clamp):
            with pytest.raises(pto.PtoFault):
                pto.MGATHER[ELEM, oob](dst, table, idx)
            assert ub_snapshot(core) == before
        with pytest.raises(pto.PtoFault):
            pto.MGATHER[ELEM, OOB.Wrap](dst, table, idx)
        pto.MGATHER[ELEM, OOB.Zero](dst, table, idx)
        want = sentinel(128, np.float32)
        want[[0, 1]] = 0
        assert_bytes(dst.raw(), want)


def test_row_nz_with_zero_gshape0_copies_nothing():
    """§6.4: the batch loop i < gShape0 runs zero times (Clamp rows stay untouched)."""
    core = _core()
    with core:
        sh, st = pto.Shape[-1, -1, -1, 16, C0], pto.Stride[-1, -1, -1, -1, -1]
        T = pto.GlobalTensor[F32, sh, st, pto.Layout.NZ]
        table = T(core.gm_put(np.arange(256, dtype=np.float32)), sh(0, 2, 1),
                  st(256, 128, 128, 8, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[1, 3]], np.int32))
        dst = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM, vr=2)
        before = ub_snapshot(core)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        assert ub_snapshot(core) == before


def test_elem_nz_half_c0_16():
    """§6.6 with half: C0 = 16."""
    core = _core()
    with core:
        LR, LC = 16, 32
        mat = (np.arange(LR * LC) % 1000).astype(np.float16).reshape(LR, LC)
        img = np.empty(LR * LC, np.float16)
        for lr in range(LR):
            for lc in range(LC):
                img[(lc // 16) * LR * 16 + lr * 16 + lc % 16] = mat[lr, lc]
        T = pto.GlobalTensor[pto.half, pto.Shape[1, 2, 1, 16, 16], pto.Stride[512, 256, 256, 16, 1],
                             pto.Layout.NZ]
        table = T(core.gm_put(img))
        ix = (np.arange(32, dtype=np.int32).reshape(2, 16) * 13) % 512
        idx = tile(pto.int32, 2, 16, 0)
        idx.set(ix)
        dst = tile(pto.half, 16, 32, 0x400, bl=CM, sl=SRM, vr=2, vc=16)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(512, np.float16)
        for r in range(2):
            for c in range(16):
                want[(c // 16) * 16 * 16 + r * 16 + c % 16] = mat.reshape(-1)[ix[r, c]]
        assert_bytes(dst.raw(), want)


def test_row_nz_and_elem_nz_agree_on_in_range_rows():
    """Row NZ of row k equals Elem NZ of positions k*LC + c (the same logical matrix)."""
    core = _core()
    with core:
        mat = logical(32, 16)
        table = nz_table(core, mat, 1, 2, strides=(9999, 32 * C0 + 8, 16 * C0, C0, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=1)
        idx.set(np.array([[21]], np.int32))
        d1 = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM, vr=1)
        pto.MGATHER[ROW, OOB.Clamp](d1, table, idx)
        ie = tile(pto.int32, 1, 16, 0x800)
        ie.set((21 * 16 + np.arange(16, dtype=np.int32))[None, :])
        d2 = tile(F32, 16, 16, 0x1000, bl=CM, sl=SRM, vr=1)
        pto.MGATHER[ELEM, OOB.Clamp](d2, table, ie)
        assert_bytes(d1.numpy(), d2.numpy())
        assert_bytes(d1.numpy()[0], mat[21])


def test_nz_dims_and_strides_are_read_as_32_bit_int():
    """§6.2: gShape0..2 and gStride0..4 are read as int: 2^32 + s behaves exactly like s."""
    core = _core()
    with core:
        mat = logical(32, 16)
        plain = nz_table(core, mat, 1, 2)
        sh, st = pto.Shape[-1, -1, -1, 16, C0], pto.Stride[-1, -1, -1, -1, -1]
        T = pto.GlobalTensor[F32, sh, st, pto.Layout.NZ]
        big = T(plain.data(), sh(1 + 2**32, 2 + 2**32, 2 + 2**33),
                st(2**32 + 512, 2**33 + 256, 2**32 + 128, 2**34 + 8, 2**35 + 1))
        idx = tile(pto.int32, 1, 16, 0, vc=3)
        idx.set(np.array([[7, 30, 31]], np.int32))
        d1 = tile(F32, 16, 16, 0x400, bl=CM, sl=SRM, vr=3)
        pto.MGATHER[ROW, OOB.Clamp](d1, big, idx)
        ie = tile(pto.int32, 1, 16, 0x800)
        ie.set(((np.arange(16) * 31) % 512).astype(np.int32)[None, :])
        d2 = tile(F32, 16, 16, 0x1000, bl=CM, sl=SRM, vr=1)
        pto.MGATHER[ELEM, OOB.Clamp](d2, big, ie)
        want1 = sentinel(256, np.float32)
        for r, row in enumerate([7, 30, 31]):
            for c in range(16):
                want1[nz_offset(r, c, 16)] = mat[row, c]
        assert_bytes(d1.raw(), want1)
        want2 = sentinel(256, np.float32)
        for c in range(16):
            want2[nz_offset(0, c, 16)] = mat.reshape(-1)[(c * 31) % 512]
        assert_bytes(d2.raw(), want2)
