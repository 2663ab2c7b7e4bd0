"""SIMT launch maps agree with the kernels' own traces on every backend, and with the data."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.semantics import a5_launch as g
from ptogpu.simt import SimtCase, case_from_mgather, launch_map, trace

RNG = np.random.default_rng(7)


def _idx(shape, hi):
    return RNG.integers(-3, hi, shape)


CASES = [
    SimtCase("row", 8, 32), SimtCase("row", 16, 64), SimtCase("row", 3, 8), SimtCase("row", 64, 16),
    SimtCase("row", 3, 40), SimtCase("row", 70, 100, dtype="float16"), SimtCase("row", 1, 1),
    SimtCase("row", 33, 300, dtype="int8"), SimtCase("row", 5, 1030),
    SimtCase("row", 12, 40, indices=_idx(12, 20), oob="Zero", cap=9),
    SimtCase("row", 12, 40, indices=_idx(12, 20), oob="Clamp", cap=9),
    SimtCase("elem", 1, 1), SimtCase("elem", 40, 41), SimtCase("elem", 64, 64), SimtCase("elem", 3, 7),
    SimtCase("elem", 100, 1), SimtCase("elem", 1, 2000, dtype="float16"),
    SimtCase("elem", 9, 50, indices=_idx((9, 50), 900), oob="Wrap", cap=77),
    SimtCase("elem", 9, 50, indices=_idx((9, 50), 900), oob="Zero", cap=300),
    SimtCase("l1_elem", 5, 9, dtype="float16"), SimtCase("l1_elem", 16, 8),
    SimtCase("l1_elem", 33, 70, dtype="int8", indices=_idx((33, 70), 5000), oob="Zero", cap=2000),
    SimtCase("l1_elem", 1, 1, rows=64, cols=64),
]
IDS = [f"{c.mode}-{c.vr}x{c.vc}-{c.dtype}-{c.oob}" for c in CASES]
FIELDS = ("warp", "lane", "round", "seq", "src")


def _native_ok():
    from ptogpu.backend import backend_available
    ok, why = backend_available("native")
    return ok, why


def _cupy_ok():
    from ptogpu.backend import backend_available
    return backend_available("cupy")


def _check(case, backend):
    m = launch_map(case)
    t = trace(case, backend)
    assert t.warps == m.warps == g.launch_warps(case.mode, case.vr, case.vc, *case.padded)
    assert (t.count == 1).all(), "every slot is written exactly once"
    for f in FIELDS:
        np.testing.assert_array_equal(getattr(t, f), getattr(m, f), err_msg=f"{backend}: {f}")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_map_equals_numpy_thread_loop(case):
    _check(case, "numpy")


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_map_equals_native_trace_kernel(case):
    ok, why = _native_ok()
    if not ok:
        pytest.skip(why)
    _check(case, "native")


@pytest.mark.gpu
@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_map_equals_cupy_trace_kernel(case):
    ok, why = _cupy_ok()
    if not ok:
        pytest.skip(why)
    _check(case, "cupy")


def test_kernel_geometry_equals_python_geometry_over_many_shapes():
    """The trace kernels report launchWarps from common.cuh; geometry.py must agree."""
    ok, why = _native_ok()
    if not ok:
        pytest.skip(why)
    for vr in (1, 2, 3, 7, 16, 31, 32, 33, 100):
        for vc in (1, 5, 31, 32, 33, 64, 65, 200, 1025):
            for mode in ("row", "elem"):
                c = SimtCase(mode, vr, vc)
                assert trace(c, "native").warps == g.launch_warps(mode, vr, vc), (mode, vr, vc)


def test_spec_examples():
    """mgather.md §5.3 examples."""
    assert g.row_launch_warps(8, 32) == 8
    m = launch_map(SimtCase("row", 8, 32))
    np.testing.assert_array_equal(m.grid("warp"), np.repeat(np.arange(8)[:, None], 32, 1))
    np.testing.assert_array_equal(m.grid("lane"), np.repeat(np.arange(32)[None, :], 8, 0))
    m = launch_map(SimtCase("row", 16, 64))
    assert m.warps == 32
    r, c = np.meshgrid(np.arange(16), np.arange(64), indexing="ij")
    np.testing.assert_array_equal(m.grid("warp"), (c // 32) * 16 + r % 16)
    m = launch_map(SimtCase("row", 3, 8))
    assert m.warps == 3 and set(m.lane.tolist()) == set(range(8))
    m = launch_map(SimtCase("row", 64, 16))
    assert m.warps == 32
    assert m.thread_elements(5, 3).tolist() == [5 * 16 + 3, 37 * 16 + 3]    # rows ty, ty+32
    assert g.elem_launch_warps(0) == 1 and g.elem_launch_warps(33) == 2 and g.elem_launch_warps(10**6) == 32
    assert g.col_stride(16, 64) == 64 and g.free_warps(16) == 2 and g.col_chunks(65) == 3


def test_vectorised_geometry_equals_scalar():
    vr, vc = np.arange(0, 80), np.arange(0, 80)[::-1] * 7
    vec = g.row_launch_warps(vr, vc)
    assert [g.row_launch_warps(int(a), int(b)) for a, b in zip(vr, vc)] == vec.tolist()
    assert isinstance(g.row_launch_warps(3, 4), int)


def test_thread_elements_follow_program_order():
    m = launch_map(SimtCase("row", 40, 70))
    for w, l in ((0, 0), (8, 5), (39 % 32, 31)):
        sl = m.thread_elements(w, l)
        assert m.seq[sl].tolist() == list(range(sl.size))
        assert (np.diff(m.round[sl]) > 0).all()


def _run_mgather(backend, mode, VR, VC, idx_vals, oob=pto.GatherOOB.Undefined):
    core = pto.Core("a5", backend=backend)
    n = 4096
    with core:
        TableT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, n // VC if mode == "row" else 1,
                                                       VC if mode == "row" else n],
                                  pto.Stride[1, 1, 1, VC if mode == "row" else n, 1], pto.Layout.ND]
        table = TableT(core.gm_put(np.arange(n, dtype=np.int32)))
        cols = -(-VC // 8) * 8
        DstT = pto.Tile[pto.TileType.Vec, pto.int32, VR, cols, pto.BLayout.RowMajor, VR, VC]
        if mode == "row":
            IdxT = pto.Tile[pto.TileType.Vec, pto.int32, 1, -(-VR // 8) * 8, pto.BLayout.RowMajor, 1, VR]
        else:
            IdxT = pto.Tile[pto.TileType.Vec, pto.int32, VR, cols, pto.BLayout.RowMajor, VR, VC]
        dst, idx = DstT(), IdxT()
        pto.TASSIGN(idx, 0)
        pto.TASSIGN(dst, 0x4000)
        idx.set(np.asarray(idx_vals, np.int32).reshape(idx.valid_row, idx.valid_col))
        cm = pto.Coalesce.Row if mode == "row" else pto.Coalesce.Elem
        case = case_from_mgather(core, cm, oob, dst, table, idx)
        pto.MGATHER[cm, oob](dst, table, idx)
        return case, dst.numpy()


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("mode,VR,VC", [("row", 6, 40), ("row", 40, 24), ("elem", 7, 45), ("elem", 40, 40)])
def test_map_sources_equal_what_the_data_kernels_read(backend, mode, VR, VC):
    """Table element k holds k, so the data written is the source the map predicts."""
    if backend == "native" and not _native_ok()[0]:
        pytest.skip(_native_ok()[1])
    n = VR if mode == "row" else VR * VC
    hi = 4096 // VC if mode == "row" else 4096
    vals = RNG.integers(0, hi, n)
    case, out = _run_mgather(backend, mode, VR, VC, vals, pto.GatherOOB.Zero)
    m = launch_map(case)
    np.testing.assert_array_equal(np.where(m.src >= 0, m.src, 0).reshape(VR, VC), out)
    assert case.dst_addr == 0x4000 and case.cap == (4096 // VC if mode == "row" else 4096)


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("VR,VC,rows,cols", [(5, 9, 16, 16), (20, 30, 32, 32), (16, 8, 16, 8)])
def test_l1_map_sources_equal_the_scratch_image(backend, VR, VC, rows, cols):
    """GM->L1 Elem SIMT: scratch[off] holds table[src] of the map's slot off (0 where -1)."""
    if backend == "native" and not _native_ok()[0]:
        pytest.skip(_native_ok()[1])
    core = pto.Core("a5", backend=backend)
    n = 2048
    with core:
        TabT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, n], pto.Stride[1, 1, 1, n, 1], pto.Layout.ND]
        table = TabT(core.gm_put(np.arange(n, dtype=np.int32)))
        vals = RNG.integers(-5, n + 100, (VR, VC)).astype(np.int32)
        IdxT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, VR, VC], pto.Stride[1, 1, 1, VC, 1], pto.Layout.ND]
        idx = IdxT(core.gm_put(vals))
        ScrT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, rows * cols],
                                pto.Stride[1, 1, 1, rows * cols, 1], pto.Layout.ND]
        scratch = ScrT(core.gm_put(np.full(rows * cols, -9, np.int32)))
        DstT = pto.Tile[pto.TileType.Mat, pto.int32, rows, cols, pto.BLayout.ColMajor, VR, VC,
                        pto.SLayout.RowMajor, 512]
        dst = DstT()
        pto.TASSIGN(dst, 0x400)
        case = case_from_mgather(core, pto.Coalesce.Elem, pto.GatherOOB.Zero, dst, table, idx, scratch)
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Zero, pto.GatherExec.Simt](dst, table, idx, scratch)
        image = core.read("gm", scratch.addr, rows * cols * 4).view(np.int32)
    m = launch_map(case)
    assert case.mode == "l1_elem" and case.padded == (rows, cols)
    np.testing.assert_array_equal(np.where(m.src >= 0, m.src, 0), image)


@pytest.mark.parametrize("mode,VR,VC,dtype", [("row", 40, 70, pto.int32), ("row", 3, 8, pto.half),
                                              ("row", 64, 16, pto.int8), ("elem", 40, 41, pto.int32),
                                              ("elem", 5, 200, pto.half), ("elem", 64, 64, pto.float32)])
def test_map_equals_the_data_kernels_own_stores(mode, VR, VC, dtype):
    """mgather.cu itself, built with simt_trace_shim.h: every store's (warp, lane, position in
    the thread's stores) equals the map; each element is stored exactly once."""
    if not _native_ok()[0]:
        pytest.skip(_native_ok()[1])
    from ptogpu.simt.shim_trace import trace_mgather
    size = np.dtype(dtype).itemsize
    cols = -(-VC * size // 32) * 32 // size
    core = pto.Core("a5", backend="native")
    with core:
        n = 4096
        shape = (n // VC, VC) if mode == "row" else (1, n)
        TableT = pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, shape[0], shape[1]],
                                  pto.Stride[1, 1, 1, shape[1], 1], pto.Layout.ND]
        table = TableT(core.gm_put(np.zeros(n, dtype)))
        DstT = pto.Tile[pto.TileType.Vec, dtype, VR, cols, pto.BLayout.RowMajor, VR, VC]
        if mode == "row":
            IdxT = pto.Tile[pto.TileType.Vec, pto.int32, -(-VR // 8) * 8, 1, pto.BLayout.ColMajor, VR, 1]
        else:
            IdxT = pto.Tile[pto.TileType.Vec, pto.int32, VR, -(-VC // 8) * 8, pto.BLayout.RowMajor, VR, VC]
        dst, idx = DstT(), IdxT()
        pto.TASSIGN(idx, 0)
        pto.TASSIGN(dst, 0x8000)
        idx.set(RNG.integers(0, shape[0] if mode == "row" else n, (idx.valid_row, idx.valid_col)).astype(np.int32))
        cm = pto.Coalesce.Row if mode == "row" else pto.Coalesce.Elem
        m, got, count, stray = trace_mgather(core, cm, pto.GatherOOB.Clamp, dst, table, idx)
    assert stray == 0 and (count == 1).all()
    for f in ("warp", "lane", "seq"):
        np.testing.assert_array_equal(got[f], getattr(m, f), err_msg=f)


@pytest.mark.parametrize("VR,VC,rows,cols", [(5, 9, 16, 16), (40, 60, 48, 64), (16, 8, 16, 8)])
def test_l1_map_equals_the_data_kernels_own_stores(VR, VC, rows, cols):
    """mgather_l1_elem_simt (mgather_l1.cu) with the trace shim: its scratch stores."""
    if not _native_ok()[0]:
        pytest.skip(_native_ok()[1])
    from ptogpu.simt.shim_trace import trace_mgather_l1
    core = pto.Core("a5", backend="native")
    n = 2048
    with core:
        TabT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, n], pto.Stride[1, 1, 1, n, 1], pto.Layout.ND]
        table = TabT(core.gm_put(np.arange(n, dtype=np.int32)))
        IdxT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, VR, VC], pto.Stride[1, 1, 1, VC, 1], pto.Layout.ND]
        idx = IdxT(core.gm_put(RNG.integers(0, n, (VR, VC)).astype(np.int32)))
        ScrT = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 1, rows * cols],
                                pto.Stride[1, 1, 1, rows * cols, 1], pto.Layout.ND]
        scratch = ScrT(core.gm_put(np.zeros(rows * cols, np.int32)))
        DstT = pto.Tile[pto.TileType.Mat, pto.int32, rows, cols, pto.BLayout.ColMajor, VR, VC,
                        pto.SLayout.RowMajor, 512]
        dst = DstT()
        pto.TASSIGN(dst, 0)
        m, got, count, stray = trace_mgather_l1(core, pto.GatherOOB.Clamp, dst, table, idx, scratch)
    assert stray == 0 and (count == 1).all()
    for f in ("warp", "lane", "seq"):
        np.testing.assert_array_equal(got[f], getattr(m, f), err_msg=f)
