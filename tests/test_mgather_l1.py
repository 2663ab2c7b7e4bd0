"""MGATHER from GM into an L1 (TileType.Mat, NZ) tile, per target (mgather.md §2, §4, §5.6-§5.8,
§6.7). Expected L1 images are built here from the spec's NZ offset formula
``(c // C0) * Rows * C0 + r * C0 + c % C0``; L1 starts filled with SENT bytes ("untouched").
"""
from __future__ import annotations

import dataclasses

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.isa.mgather.api_l1 import read_nd, read_nz
from ptogpu.targets import A5
from conftest import ELEM, M, NPU, OOB, ROW, SENT, TARGETS, gt, new_core, sentinel, tile

F32 = pto.float32
CM, SRM = pto.BLayout.ColMajor, pto.SLayout.RowMajor
EXEC = pto.GatherExec


def nz_tile(dtype, rows, cols, addr=0, vr=None, vc=None, valid=()):
    return tile(dtype, rows, cols, addr, bl=CM, sl=SRM, loc=M, vr=vr, vc=vc, valid=valid)


def nz_off(r, c, rows, c0):
    return (c // c0) * rows * c0 + r * c0 + c % c0


def l1_image(core, t):
    return core.read("l1", t.addr, t.nbytes).view(np.dtype(t.Element) if t.DType != "hifloat8" else np.uint8)


# -- Row: a padded ND table, capacity and strides per target -----------------------------------
# Table: Shape(1,1,2,5,20), Stride(240,240,120,24,1): 10 rows of 20 floats, row pitch 24.
TSHAPE, TSTRIDE = (1, 1, 2, 5, 20), (240, 240, 120, 24, 1)
TFLAT = np.arange(240, dtype=np.float32) + 1000


def row_setup(core, idx_vals, vr=4, vc=13, dtype=F32):
    table = gt(core, TFLAT.astype(dtype), dtype, TSHAPE, TSTRIDE)
    idx = gt(core, np.asarray(idx_vals, np.int32), pto.int32, (1, 1, 1, 1, len(idx_vals)),
             (len(idx_vals),) * 4 + (1,))
    dst = nz_tile(dtype, 16, 24, 0x200, vr=vr, vc=vc)
    return table, idx, dst


def expected_row(target, idx_vals, oob, vr=4, vc=13, rows=16, cols=24, c0=8):
    """NPU: cap ∏Shape[0..3] = 10, source safe*24 + c, the last C0 block's tail 0, Zero
    pre-zeroes the tile. CPU: cap Shape[3] = 5, source row*24 + c*1, nothing else written."""
    img = sentinel(rows * cols, np.float32).copy()
    npu = target != "cpu"
    cap = 10 if npu else 5
    if npu and oob == OOB.Zero:
        img[:] = 0
    for r in range(vr):
        u = idx_vals[r] % (2**32 if npu else 2**64)
        if oob == OOB.Clamp:
            u = min(u, cap - 1)
        elif oob == OOB.Wrap:
            u %= cap
        if oob == OOB.Zero and u >= cap:
            for c in range(vc):
                img[nz_off(r, c, rows, c0)] = 0
            continue
        for c in range(vc):
            img[nz_off(r, c, rows, c0)] = TFLAT[u * 24 + c]
        if npu:
            for c in range(vc, -(-vc // c0) * c0):
                img[nz_off(r, c, rows, c0)] = 0
    return img


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_row_per_target(target, oob):
    idx_vals = [7, 2, -1, 12]
    core = new_core(target)
    with core:
        table, idx, dst = row_setup(core, idx_vals)
        pto.MGATHER[ROW, oob](dst, table, idx)
        got = l1_image(core, dst)
    np.testing.assert_array_equal(got.view(np.uint8), expected_row(target, idx_vals, oob).view(np.uint8))


def test_row_hand_values_a5():
    core = new_core("a5")
    with core:
        table, idx, dst = row_setup(core, [7, 2, -1, 12])
        pto.MGATHER[ROW, OOB.Wrap](dst, table, idx)
        nd = read_nd(dst)
    assert nd[0, :3].tolist() == [1000 + 7 * 24, 1001 + 7 * 24, 1002 + 7 * 24]
    assert nd[2, 0] == 1000 + 5 * 24                    # u32(-1) % 10 = 5
    assert nd[3, 0] == 1000 + 2 * 24                    # 12 % 10 = 2
    assert nd[0, 13:16].tolist() == [0, 0, 0]           # nd2nz tail of the last C0 block


def test_row_undefined_and_plain_call_and_forced_row(npu_core):
    core = npu_core
    vals = [3, 9, 0, 5]
    table, idx, dst = row_setup(core, vals)
    pto.MGATHER(dst, table, idx)                         # plain: Row, Undefined
    a = l1_image(core, dst).copy()
    core.write("l1", 0, np.full(8192, SENT, np.uint8))
    pto.MGATHER[ELEM, OOB.Undefined](dst, table, idx)   # 3-arg Mat: CMode ignored, Row
    b = l1_image(core, dst).copy()
    np.testing.assert_array_equal(a.view(np.uint8), b.view(np.uint8))
    np.testing.assert_array_equal(a.view(np.uint8), expected_row(core.target.name, vals, OOB.Undefined).view(np.uint8))


def test_row_on_cpu_honours_elem_mode():
    core = new_core("cpu")
    with core:
        table = gt(core, TFLAT, F32, TSHAPE, TSTRIDE)
        iv = np.array([[1, 2, 3], [40, 41, 42]], np.int32)
        idx = gt(core, iv, pto.int32, (1, 1, 1, 2, 3), (6, 6, 6, 3, 1))
        dst = nz_tile(F32, 16, 16, 0, vr=2, vc=3)
        pto.MGATHER[ELEM, OOB.Undefined](dst, table, idx)   # flat table[idx]
        assert read_nd(dst, full=False).tolist() == [[1001, 1002, 1003], [1040, 1041, 1042]]
        raw = read_nz(dst)
        assert (raw[0, 2:].view(np.uint8) == SENT).all()     # nothing else written (§4)


def test_row_index_read_flat_ignoring_its_strides(npu_core):
    core = npu_core
    table = gt(core, TFLAT, F32, TSHAPE, TSTRIDE)
    # a 2x2 index tensor with row pitch 5: the NPU reads idx[0..3] flat = 1, 2, 8, 8
    idx = gt(core, np.array([1, 2, 8, 8, 8, 3, 4], np.int32), pto.int32, (1, 1, 1, 2, 2), (10, 10, 10, 5, 1))
    dst = nz_tile(F32, 16, 8, 0, vr=4, vc=8)
    pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
    assert read_nd(dst, full=False)[:, 0].tolist() == [1000 + 24, 1000 + 48, 1000 + 192, 1000 + 192]


def test_row_vc_multiple_of_c0_has_no_tail(npu_core):
    core = npu_core
    table, idx, dst = row_setup(core, [1, 2], vr=2, vc=16)
    with core.trace() as tr:
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
    raw = read_nz(dst)
    assert (raw[2].view(np.uint8) == SENT).all()          # third column block untouched
    assert tr.totals() == {"bursts": 4, "payload_bytes": 4 * 32, "padding_bytes": 0}


@pytest.mark.parametrize("dtype, c0", [(pto.int8, 32), (pto.half, 16), (pto.bfloat16, 16), (pto.uint32, 8)])
def test_row_other_element_sizes(npu_core, dtype, c0):
    core = npu_core
    st = np.dtype(dtype)
    flat = (np.arange(10 * 40) % 100).astype(st)
    table = gt(core, flat, dtype, (1, 1, 1, 10, 40), (400, 400, 400, 40, 1))
    idx = gt(core, np.array([9, 0, 4], np.int32), pto.int32, (1, 1, 1, 1, 3), (3, 3, 3, 3, 1))
    dst = nz_tile(dtype, 16, 2 * c0, 0, vr=3, vc=c0 + 3)
    pto.MGATHER[ROW, OOB.Undefined](dst, table, idx)
    img = sentinel(16 * 2 * c0, st).copy()
    for r, row in enumerate([9, 0, 4]):
        for c in range(2 * c0):
            img[nz_off(r, c, 16, c0)] = flat[row * 40 + c] if c < c0 + 3 else 0
    np.testing.assert_array_equal(l1_image(core, dst).view(np.uint8), img.view(np.uint8))


def test_row_fp8_and_hifloat8_on_a5_only():
    for dtype in (pto.float8_e4m3, pto.hifloat8, pto.float8_e5m2):
        for target in NPU:
            core = new_core(target)
            with core:
                flat = np.arange(4 * 32, dtype=np.uint8)
                table = gt(core, flat, dtype, (1, 1, 1, 4, 32), (128, 128, 128, 32, 1)) if dtype == pto.hifloat8 \
                    else gt(core, flat.view(dtype), dtype, (1, 1, 1, 4, 32), (128, 128, 128, 32, 1))
                idx = gt(core, np.array([2, 1], np.int32), pto.int32, (1, 1, 1, 1, 2), (2, 2, 2, 2, 1))
                dst = nz_tile(dtype, 16, 32, 0, vr=2, vc=32)
                if target == "a2a3":
                    with pytest.raises(pto.PtoCheckError):
                        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
                    continue
                pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
                got = core.read("l1", 0, 64)
                assert bytes(got) == bytes(flat[64:96]) + bytes(flat[32:64])


def test_row_undefined_outside_gm_faults_without_writing(npu_core):
    core = npu_core
    table, idx, dst = row_setup(core, [1, 2**31 - 1])
    before = bytes(core.read("l1", 0, 8192))
    with pytest.raises(pto.PtoFault):
        pto.MGATHER[ROW, OOB.Undefined](dst, table, idx)
    assert bytes(core.read("l1", 0, 8192)) == before


def test_row_zero_prezero_even_with_no_valid_rows():
    for target in TARGETS:
        core = new_core(target)
        with core:
            table = gt(core, TFLAT, F32, TSHAPE, TSTRIDE)
            idx = gt(core, np.array([1], np.int32), pto.int32, (1, 1, 1, 1, 1), (1, 1, 1, 1, 1))
            DynT = pto.Tile[M, F32, 16, 16, CM, -1, -1, SRM, 512]
            dst = DynT(0, 5)
            pto.TASSIGN(dst, 0)
            pto.MGATHER[ROW, OOB.Zero](dst, table, idx)
            raw = core.read("l1", 0, dst.nbytes)
            assert (raw == (SENT if target == "cpu" else 0)).all()


def test_row_traces_one_burst_per_c0_block(npu_core):
    core = npu_core
    table, idx, dst = row_setup(core, [7, 2, 50, 12])            # Zero: row 2 and 3 skipped
    with core.trace() as tr:
        pto.MGATHER[ROW, OOB.Zero](dst, table, idx)
    b = tr.bursts
    assert [(x.src_addr - table.addr, x.dst_addr - dst.addr, x.nbytes, x.fill) for x in b] == [
        (7 * 24 * 4, 0, 32, 0), (7 * 24 * 4 + 32, 16 * 32, 20, 12),
        (2 * 24 * 4, 32, 32, 0), (2 * 24 * 4 + 32, 16 * 32 + 32, 20, 12)]
    assert tr.totals() == {"bursts": 4, "payload_bytes": 104, "padding_bytes": 24}


def test_nd2nz_tail_switch_in_target_table():
    t = dataclasses.replace(A5, dma=dataclasses.replace(A5.dma, nd2nz_tail=None))
    core = pto.Core(t, "numpy")
    core.write("l1", 0, np.full(8192, SENT, np.uint8))
    with core:
        table, idx, dst = row_setup(core, [1, 2], vr=2, vc=13)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        raw = read_nz(dst)
    assert (raw[1, 0, 5:].view(np.uint8) == SENT).all()


# -- Elem with a GM scratch ---------------------------------------------------------------------
ETAB = np.arange(64, dtype=np.float32) * 2 + 0.5
GUARD = np.arange(16, dtype=np.float32) - 100                   # the GM right after the table


def elem_setup(core, iv, rows=16, cols=16, idx_pitch=None):
    table = gt(core, ETAB, F32, (1, 1, 1, 1, 64), (64, 64, 64, 64, 1))
    core.gm_put(GUARD)                                            # at table + 256 bytes
    iv = np.asarray(iv, np.int32)
    vr, vc = iv.shape
    p = idx_pitch or vc
    buf = np.full((vr, p), 7777, np.int32)
    buf[:, :vc] = iv
    idx = gt(core, buf, pto.int32, (1, 1, 1, vr, vc), (vr * p, vr * p, vr * p, p, 1))
    scratch = gt(core, np.full(rows * cols, -9.0, np.float32), F32, (1, 1, 1, 1, rows * cols),
                 (rows * cols,) * 4 + (1,))
    dst = nz_tile(F32, rows, cols, 0x400, vr=vr, vc=vc)
    return table, idx, scratch, dst


def expected_elem(target, iv, oob, rows=16, cols=16, c0=8):
    """NPU: whole tile rewritten (0 outside the valid region and for Zero-OOB); flat table,
    cap 64; Undefined past the table reads the next GM bytes. CPU: valid region only."""
    iv = np.asarray(iv)
    npu = target != "cpu"
    img = np.zeros(rows * cols, np.float32) if npu else sentinel(rows * cols, np.float32).copy()
    full = np.concatenate([ETAB, GUARD])
    for r in range(iv.shape[0]):
        for c in range(iv.shape[1]):
            u = int(iv[r, c]) % (2**32 if npu else 2**64)
            v = None
            if oob == OOB.Clamp:
                u = min(u, 63)
            elif oob == OOB.Wrap:
                u %= 64
            elif oob == OOB.Zero and u >= 64:
                v = 0.0
            img[nz_off(r, c, rows, c0)] = full[u] if v is None else v
    return img


IV = [[0, 5, 63, 64, 70, -1, 3, 2, 1, 9], [10, 11, 12, 13, 14, 15, 16, 17, 18, 200],
      [2**31 - 1, -2**31, 8, 8, 8, 8, 8, 8, 8, 8]]


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_elem_per_target_with_scratch_image(target, oob):
    core = new_core(target)
    with core:
        table, idx, scratch, dst = elem_setup(core, IV, idx_pitch=13)
        pto.MGATHER[ELEM, oob](dst, table, idx, scratch)
        got = l1_image(core, dst)
        scr = core.read("gm", scratch.addr, 16 * 16 * 4).view(np.float32)
    want = expected_elem(target, IV, oob)
    np.testing.assert_array_equal(got.view(np.uint8), want.view(np.uint8))
    if target == "cpu":
        assert (scr == -9.0).all()                                # scratch ignored (cpu:109-120)
    else:
        np.testing.assert_array_equal(scr.view(np.uint8), want.view(np.uint8))   # NZ image left in GM


def test_elem_undefined_reads_the_gm_after_the_table(npu_core):
    iv = [[64, 65, 70, 1]]
    table, idx, scratch, dst = elem_setup(npu_core, iv)
    pto.MGATHER[ELEM, OOB.Undefined](dst, table, idx, scratch)
    assert read_nd(dst, full=False).tolist() == [[-100.0, -99.0, -94.0, 2.5]]


def test_elem_forced_in_the_four_argument_form(npu_core):
    table, idx, scratch, dst = elem_setup(npu_core, IV)
    pto.MGATHER[ROW, OOB.Clamp](dst, table, idx, scratch)       # CMode ignored: Elem
    np.testing.assert_array_equal(l1_image(npu_core, dst).view(np.uint8),
                                  expected_elem(npu_core.target.name, IV, OOB.Clamp).view(np.uint8))


@pytest.mark.parametrize("oob", list(OOB))
@pytest.mark.parametrize("seed", range(3))
def test_a5_simt_and_scalar_executors_agree(oob, seed):
    rng = np.random.default_rng(seed)
    vr, vc = int(rng.integers(1, 17)), int(rng.integers(1, 25))
    iv = rng.integers(-3, 90 if oob != OOB.Undefined else 64, (vr, vc)).astype(np.int32)
    if oob == OOB.Undefined:
        iv = np.abs(iv)
    out = []
    for ex in (EXEC.Scalar, EXEC.Simt, None):
        core = new_core("a5")
        with core, core.trace() as tr:
            table, idx, scratch, dst = elem_setup(core, iv, rows=16, cols=24)
            form = pto.MGATHER[ELEM, oob] if ex is None else pto.MGATHER[ELEM, oob, ex]
            form(dst, table, idx, scratch)
            out.append((bytes(l1_image(core, dst)), bytes(core.read("gm", scratch.addr, 16 * 24 * 4)),
                        tr.totals()))
    assert out[0] == out[1] == out[2]
    assert out[0][2] == {"bursts": 1, "payload_bytes": 16 * 24 * 4, "padding_bytes": 0}


def test_a5_and_a2a3_agree_on_l1_paths():
    res = []
    for target in NPU:
        core = new_core(target)
        with core:
            table, idx, scratch, dst = elem_setup(core, IV)
            pto.MGATHER[ELEM, OOB.Wrap](dst, table, idx, scratch)
            e = bytes(l1_image(core, dst))
            table, ridx, rdst = row_setup(core, [9, 3, -5, 1])
            pto.MGATHER[ROW, OOB.Wrap](rdst, table, ridx)
            res.append((e, bytes(l1_image(core, rdst))))
    assert res[0] == res[1]


def test_elem_with_no_valid_elements_still_rewrites_the_tile(npu_core):
    core = npu_core
    table = gt(core, ETAB, F32, (1, 1, 1, 1, 64), (64, 64, 64, 64, 1))
    idx = gt(core, np.zeros(4, np.int32), pto.int32, (1, 1, 1, 2, 2), (4, 4, 4, 2, 1))
    scratch = gt(core, np.full(256, 3.0, np.float32), F32, (1, 1, 1, 1, 256), (256, 256, 256, 256, 1))
    DynT = pto.Tile[M, F32, 16, 16, CM, -1, -1, SRM, 512]
    dst = DynT(0, 0)
    pto.TASSIGN(dst, 0)
    pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx, scratch)
    assert (core.read("l1", 0, 1024) == 0).all()
    assert (core.read("gm", scratch.addr, 1024) == 0).all()


def test_elem_faults_write_nothing(npu_core):
    core = npu_core
    table, idx, scratch, dst = elem_setup(core, [[1, 2**31 - 1]])
    l1 = bytes(core.read("l1", 0, 4096))
    scr = bytes(core.read("gm", scratch.addr, 1024))
    with pytest.raises(pto.PtoFault):
        pto.MGATHER[ELEM, OOB.Undefined](dst, table, idx, scratch)
    assert bytes(core.read("l1", 0, 4096)) == l1 and bytes(core.read("gm", scratch.addr, 1024)) == scr
    # a scratch that runs past the end of GM
    table, idx, _, dst = elem_setup(core, [[1, 2]])
    T = pto.GlobalTensor[F32, pto.Shape[1, 1, 1, 1, 256], pto.Stride[256, 256, 256, 256, 1]]
    tail = T(core.gm_ptr(core.gm.size - 64, F32))
    with pytest.raises(pto.PtoFault):
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx, tail)
    assert bytes(core.read("l1", 0, 4096)) == l1


def test_scalar_executor_sees_its_own_scratch_stores():
    """Scratch aliasing the table: the scalar unit zeroes scratch first, then loads element by
    element, so later loads see earlier stores (§5.7 order). Reference: the loop itself."""
    core = new_core("a5")
    with core:
        data = np.arange(384, dtype=np.float32) + 1
        ptr = core.gm_put(data)
        table = pto.GlobalTensor[F32, pto.Shape[1, 1, 1, 1, 384], pto.Stride[384, 384, 384, 384, 1]](ptr)
        scratch = pto.GlobalTensor[F32, pto.Shape[1, 1, 1, 1, 256], pto.Stride[256, 256, 256, 256, 1]](ptr + 128)
        iv = np.array([[0, 5, 9], [128, 129, 140]], np.int32)
        idx = gt(core, iv, pto.int32, (1, 1, 1, 2, 3), (6, 6, 6, 3, 1))
        dst = nz_tile(F32, 16, 16, 0, vr=2, vc=3)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx, scratch)
        got = read_nd(dst, full=False)
        mem = data.copy()
        mem[128:] = 0
        for r in range(2):
            for c in range(3):
                mem[128 + nz_off(r, c, 16, 8)] = mem[iv[r, c]]
        assert got.tolist() == [[mem[128 + nz_off(r, c, 16, 8)] for c in range(3)] for r in range(2)]
        assert got.tolist() == [[1, 6, 10], [1, 6, 0]]              # row 1 reads row 0's stores
        with pytest.warns(pto.PtoHazard):
            pto.MGATHER[ELEM, OOB.Clamp, EXEC.Simt](dst, table, idx, scratch)


# -- checks (MGatherCheckGm2L1 and the forms) ------------------------------------------------------
def _bad(core, kind):
    table = gt(core, ETAB, F32, (1, 1, 1, 1, 64), (64, 64, 64, 64, 1))
    idx = gt(core, np.zeros(4, np.int32), pto.int32, (1, 1, 1, 1, 4), (4, 4, 4, 4, 1))
    scratch = gt(core, np.zeros(256, np.float32), F32, (1, 1, 1, 1, 256), (256,) * 4 + (1,))
    dst = nz_tile(F32, 16, 16, 0, vr=1, vc=4)
    if kind == "nd_mat":
        dst = tile(F32, 16, 16, 0, loc=M, vr=1, vc=4)
    elif kind == "zn_mat":
        dst = tile(F32, 16, 16, 0, bl=pto.BLayout.RowMajor, sl=pto.SLayout.ColMajor, loc=M, vr=1, vc=4)
    elif kind == "fractal1024":
        dst = tile(F32, 16, 16, 0, bl=CM, sl=SRM, fs=1024, loc=M, vr=1, vc=4)
    elif kind == "vec_dst":
        dst = tile(F32, 16, 16, 0, vr=1, vc=4)
    elif kind == "tile_idx":
        idx = tile(pto.int32, 1, 8, 0, vc=4)
    elif kind == "idx_int16":
        idx = gt(core, np.zeros(4, np.int16), pto.int16, (1, 1, 1, 1, 4), (4, 4, 4, 4, 1))
    elif kind == "dn_table":
        table = gt(core, ETAB, F32, (1, 1, 1, 64, 1), (64, 64, 64, 1, 64), pto.Layout.DN)
    elif kind == "table_dtype":
        table = gt(core, ETAB.view(np.int32), pto.int32, (1, 1, 1, 1, 64), (64, 64, 64, 64, 1))
    elif kind == "scratch_dtype":
        scratch = gt(core, np.zeros(256, np.int32), pto.int32, (1, 1, 1, 1, 256), (256,) * 4 + (1,))
    return dst, table, idx, scratch


@pytest.mark.parametrize("kind", ["nd_mat", "zn_mat", "fractal1024", "tile_idx", "idx_int16",
                                  "dn_table", "table_dtype"])
@pytest.mark.parametrize("nargs", [3, 4])
def test_gm2l1_checks(npu_core, kind, nargs):
    dst, table, idx, scratch = _bad(npu_core, kind)
    before = bytes(npu_core.read("l1", 0, 2048))
    with pytest.raises(pto.PtoCheckError):
        if nargs == 3:
            pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
        else:
            pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx, scratch)
    assert bytes(npu_core.read("l1", 0, 2048)) == before


@pytest.mark.parametrize("kind", ["scratch_dtype", "vec_dst"])
def test_four_argument_checks(npu_core, kind):
    dst, table, idx, scratch = _bad(npu_core, kind)
    with pytest.raises(pto.PtoCheckError):
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx, scratch)


def test_gather_exec_rules():
    core = new_core("a5")
    with core:
        dst, table, idx, scratch = _bad(core, None)
        with pytest.raises(pto.PtoCheckError):                     # Simt needs Elem
            pto.MGATHER[ROW, OOB.Clamp, EXEC.Simt](dst, table, idx, scratch)
        with pytest.raises(pto.PtoCheckError):                     # Exec only in the 4-arg form
            pto.MGATHER[ELEM, OOB.Clamp, EXEC.Simt](dst, table, idx)
        pto.MGATHER[ROW, OOB.Clamp, EXEC.Scalar](dst, table, idx, scratch)   # forced Elem
        assert read_nd(dst, full=False).tolist() == [[0.5] * 4]
    for target in ("a2a3", "cpu"):
        core = new_core(target)
        with core:
            dst, table, idx, scratch = _bad(core, None)
            for ex in EXEC:
                with pytest.raises(pto.PtoCheckError):
                    pto.MGATHER[ELEM, OOB.Clamp, ex](dst, table, idx, scratch)


# -- reading L1 tiles back, TLOAD/TSTORE with a Mat tile ---------------------------------------
def test_read_helpers_and_tload_tstore_mat():
    core = new_core("a5")
    with core:
        m = np.arange(16 * 16, dtype=np.float32).reshape(16, 16)
        src = gt(core, m, F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
        dst = nz_tile(F32, 16, 16, 0x800)
        pto.TLOAD(dst, src)
        np.testing.assert_array_equal(read_nd(dst), m)
        np.testing.assert_array_equal(dst.numpy(), m)
        nz = read_nz(dst)
        assert nz.shape == (2, 16, 8)
        np.testing.assert_array_equal(nz[1], m[:, 8:16])
        np.testing.assert_array_equal(dst.raw(), np.concatenate([m[:, :8].reshape(-1), m[:, 8:].reshape(-1)]))
        out = gt(core, np.zeros(256, np.float32), F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
        pto.TSTORE(out, dst)
        np.testing.assert_array_equal(core.read("gm", out.addr, 1024).view(np.float32).reshape(16, 16), m)


def test_table_stride4_honoured_on_cpu_only():
    """Row source: CPU ``row*s3 + c*s4``; A2/A3 and A5 GM→L1 ``row*s3 + c`` (§4, §5.6, §7)."""
    flat = np.arange(200, dtype=np.float32)
    got = {}
    for target in TARGETS:
        core = new_core(target)
        with core:
            table = gt(core, flat, F32, (1, 1, 1, 4, 8), (200, 200, 200, 40, 2))
            idx = gt(core, np.array([2, 1], np.int32), pto.int32, (1, 1, 1, 1, 2), (2, 2, 2, 2, 1))
            dst = nz_tile(F32, 16, 8, 0, vr=2, vc=8)
            pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
            got[target] = read_nd(dst, full=False).tolist()
    assert got["cpu"] == [[80 + 2 * c for c in range(8)], [40 + 2 * c for c in range(8)]]
    assert got["a2a3"] == got["a5"] == [[80 + c for c in range(8)], [40 + c for c in range(8)]]


def test_cpu_four_argument_form_honours_row_mode():
    core = new_core("cpu")
    with core:
        table = gt(core, TFLAT, F32, TSHAPE, TSTRIDE)
        idx = gt(core, np.array([4, 0], np.int32), pto.int32, (1, 1, 1, 1, 2), (2, 2, 2, 2, 1))
        scratch = gt(core, np.zeros(256, np.float32), F32, (1, 1, 1, 1, 256), (256,) * 4 + (1,))
        dst = nz_tile(F32, 16, 16, 0, vr=2, vc=3)
        pto.MGATHER[ROW, OOB.Clamp](dst, table, idx, scratch)
        assert read_nd(dst, full=False).tolist() == [[1096, 1097, 1098], [1000, 1001, 1002]]
        assert (core.read("gm", scratch.addr, 1024) == 0).all()


def test_an_unassigned_mat_dst_is_placed_in_l1_automatically(npu_core):
    table = gt(npu_core, ETAB, F32, (1, 1, 1, 1, 64), (64, 64, 64, 64, 1))
    idx = gt(npu_core, np.zeros(4, np.int32), pto.int32, (1, 1, 1, 1, 4), (4, 4, 4, 4, 1))
    dst = pto.Tile[M, F32, 16, 16, CM, 1, 4, SRM, 512]()
    pto.MGATHER[ROW, OOB.Clamp](dst, table, idx)
    assert dst.space == "l1" and dst.addr is not None and dst.addr % 32 == 0


def test_plain_four_argument_call_is_elem_undefined():
    for target in TARGETS:
        core = new_core(target)
        with core:
            iv = [[1, 70, 3]]
            table, idx, scratch, dst = elem_setup(core, iv)
            pto.MGATHER(dst, table, idx, scratch)
            want = expected_elem(target, iv, OOB.Undefined)
            np.testing.assert_array_equal(l1_image(core, dst).view(np.uint8), want.view(np.uint8))


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target,ex", [("a2a3", None), ("a5", EXEC.Scalar), ("a5", EXEC.Simt)])
@pytest.mark.parametrize("vr,vc", [(20, 16), (3, 40), (20, 20)])
def test_elem_dynamic_valid_region_larger_than_the_tile(backend, target, ex, vr, vc, request):
    """A dynamic ValidRow > Rows or ValidCol > Cols: the scalar loop stores every valid (r, c)
    at its NZ offset, past the scratch into the GM after it (c >= Cols) or onto another
    position (r >= Rows; row-major order, the last store stays); SIMT threads visit only the
    padded tile's positions. The L1 tile is the scratch's first Rows*Cols elements."""
    if backend == "native":
        request.getfixturevalue("native_available")
    core = pto.Core(target, backend)
    with core:
        tab = np.arange(64, dtype=np.float32) + 0.5
        table = gt(core, tab, F32, (1, 1, 1, 1, 64), (64, 64, 64, 64, 1))
        iv = ((np.arange(vr * vc) * 7) % 64).astype(np.int32).reshape(vr, vc)
        idx = gt(core, iv, pto.int32, (1, 1, 1, vr, vc), (vr * vc,) * 3 + (vc, 1))
        scratch = gt(core, np.full(1024, -9.0, np.float32), F32, (1, 1, 1, 1, 1024), (1024,) * 4 + (1,))
        T = pto.Tile[M, F32, 16, 16, CM, -1, -1, SRM, 512]
        dst = T(vr, vc)
        pto.TASSIGN(dst, 0x400)
        (pto.MGATHER[ELEM, OOB.Clamp, ex] if ex is not None else pto.MGATHER[ELEM, OOB.Clamp])(dst, table, idx, scratch)
        got_l1 = l1_image(core, dst)
        got_gm = core.read("gm", scratch.addr, 4096).view(np.float32)
    want = np.full(1024, -9.0, np.float32)
    want[:256] = 0
    for r in range(vr):
        for c in range(vc):
            if ex == EXEC.Simt and (r >= 16 or c >= 16):
                continue
            want[nz_off(r, c, 16, 8)] = tab[iv[r, c]]
    np.testing.assert_array_equal(got_gm.view(np.uint32), want.view(np.uint32))
    np.testing.assert_array_equal(got_l1.view(np.uint32), want[:256].view(np.uint32))
