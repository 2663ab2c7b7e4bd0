"""UB hazards of A5 SIMT MGATHER: found when tiles alias, never reported when they do not."""
from __future__ import annotations

import time
import warnings

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.simt import SimtCase, case_from_mgather, launch_map
from ptogpu.semantics.hazards import (Memory, analyse, byte_pairs, schedules, scalar_program,
                                 simt_program, spans_overlap)

N = 4096


def _setup(core, mode, VR, VC, dst_addr, idx_addr, dtype=pto.int32, seed=0, idx_dtype=pto.int32):
    rng = np.random.default_rng(seed)
    esize = np.dtype(dtype).itemsize
    cols = -(-VC * esize // 32) * 32 // esize
    TableT = pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, N // VC if mode == "row" else 1, VC if mode == "row" else N],
                              pto.Stride[1, 1, 1, VC if mode == "row" else N, 1], pto.Layout.ND]
    table = TableT(core.gm_put(rng.integers(0, 100, N).astype(dtype)))
    DstT = pto.Tile[pto.TileType.Vec, dtype, VR, cols, pto.BLayout.RowMajor, VR, VC]
    if mode == "row":
        IdxT = pto.Tile[pto.TileType.Vec, idx_dtype, 1, -(-VR // 8) * 8, pto.BLayout.RowMajor, 1, VR]
        hi = N // VC
    else:
        IdxT = pto.Tile[pto.TileType.Vec, idx_dtype, VR, -(-VC // 8) * 8, pto.BLayout.RowMajor, VR, VC]
        hi = N
    dst, idx = DstT(), IdxT()
    pto.TASSIGN(idx, idx_addr)
    pto.TASSIGN(dst, dst_addr)
    idx.set(rng.integers(0, hi, (idx.valid_row, idx.valid_col)).astype(idx_dtype))
    return dst, table, idx


def _mgather(mode):
    cm = pto.Coalesce.Row if mode == "row" else pto.Coalesce.Elem
    return pto.MGATHER[cm, pto.GatherOOB.Clamp], cm


def _analyse(core, mode, dst, table, idx, force=False):
    cm = pto.Coalesce.Row if mode == "row" else pto.Coalesce.Elem
    case = case_from_mgather(core, cm, pto.GatherOOB.Clamp, dst, table, idx)
    return analyse(launch_map(case), Memory(core.ub.data, core.gm.data, case), force=force)


ALIASED = [("elem", 40, 40, 0x200, 0), ("elem", 9, 37, 0x40, 0), ("row", 8, 32, 0, 0),
           ("row", 40, 48, 0x20, 0), ("elem", 64, 64, 0x3020, 0)]


@pytest.mark.parametrize("mode,VR,VC,dst_addr,idx_addr", ALIASED)
def test_aliasing_is_reported_with_writers_readers_and_elements(mode, VR, VC, dst_addr, idx_addr):
    core = pto.Core("a5", backend="numpy")
    with core:
        dst, table, idx = _setup(core, mode, VR, VC, dst_addr, idx_addr)
        rep = _analyse(core, mode, dst, table, idx)
        assert rep is not None and rep.hazard and rep.n_races > 0 and rep.overlap_bytes > 0
        assert len(rep.divergent) > 0, "some element must depend on the schedule"
        race = rep.races[0]
        assert race.writer[:2] != race.reader[:2]
        lo, hi = race.bytes
        assert spans_overlap(lo, hi, dst.addr, dst.addr + dst.nbytes)
        assert spans_overlap(lo, hi, idx.addr, idx.addr + idx.nbytes)
        # the schedules that do differ really differ at the reported elements
        ref = rep.values["scalar (sequential)"]
        lm = launch_map(case_from_mgather(core, _mgather(mode)[1], pto.GatherOOB.Clamp, dst, table, idx))
        diff = np.zeros(lm.size, bool)
        for v in rep.values.values():
            diff |= (v != ref).any(axis=1)
        assert sorted(map(tuple, rep.divergent.tolist())) == sorted(zip(lm.r[diff].tolist(), lm.c[diff].tolist()))
        form, _ = _mgather(mode)
        with pytest.warns(pto.PtoHazard, match="race"):
            form(dst, table, idx)


def test_aliasing_within_one_thread_is_ordered_not_a_race():
    """dst element i lands on index element i + 3072, which the same thread loads 3 rounds
    later (1024 threads): program order fixes it, so every order agrees and nothing is said."""
    core = pto.Core("a5", backend="numpy", strict_hazards=True)
    with core:
        dst, table, idx = _setup(core, "elem", 64, 64, 0x3000, 0)
        rep = _analyse(core, "elem", dst, table, idx)
        assert rep.overlap_bytes == 4096 and rep.n_races == 0 and len(rep.divergent) == 0
        rep = _analyse(core, "elem", dst, table, idx, force=True)                # every order
        assert rep.n_races == 0 and len(rep.divergent) == 0 and len(rep.values) == 10
        pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)     # no raise
        # the stored value of element i feeds element i + 3072 (not "all loads first")
        want = rep.values["scalar (sequential)"].view(np.int32).reshape(64, 64)
        np.testing.assert_array_equal(dst.numpy(), want)


def test_strict_hazards_raise_before_anything_is_written():
    core = pto.Core("a5", backend="numpy", strict_hazards=True)
    with core:
        dst, table, idx = _setup(core, "elem", 40, 40, 0x200, 0)
        before = core.read("ub", 0, 0x4000)
        with pytest.raises(pto.PtoHazard, match=r"writes dst\(\d+, \d+\)"):
            pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
        assert (core.read("ub", 0, 0x4000) == before).all()


@pytest.mark.parametrize("seed", range(12))
def test_no_aliasing_no_report_and_every_order_agrees(seed):
    rng = np.random.default_rng(100 + seed)
    mode = ("row", "elem")[seed % 2]
    dtype = (pto.int32, pto.half, pto.int8, pto.float32)[seed % 4]
    VR, VC = int(rng.integers(1, 40)), int(rng.integers(1, 70))
    core = pto.Core("a5", backend="numpy", strict_hazards=True)
    with core:
        dst, table, idx = _setup(core, mode, VR, VC, 0x8000, 0, dtype=dtype, seed=seed)
        rep = _analyse(core, mode, dst, table, idx, force=True)     # run every schedule anyway
        assert rep.n_races == 0 and rep.overlap_bytes == 0 and len(rep.divergent) == 0
        for v in rep.values.values():
            np.testing.assert_array_equal(v, rep.values["scalar (sequential)"])
        assert _analyse(core, mode, dst, table, idx) is None
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            _mgather(mode)[0](dst, table, idx)                     # strict: would raise
        ref = rep.values["scalar (sequential)"].view(np.dtype(dtype)).reshape(VR, VC)
        np.testing.assert_array_equal(dst.numpy().view(ref.dtype), ref)


def test_padding_overlap_is_not_a_hazard():
    """The index tile sits in the destination's padding rows: storage overlaps, bytes don't."""
    core = pto.Core("a5", backend="numpy", strict_hazards=True)
    with core:
        DstT = pto.Tile[pto.TileType.Vec, pto.half, 8, 16, pto.BLayout.RowMajor, 4, 16]
        IdxT = pto.Tile[pto.TileType.Vec, pto.int32, 1, 8, pto.BLayout.RowMajor, 1, 4]
        TableT = pto.GlobalTensor[pto.half, pto.Shape[1, 1, 1, 64, 16], pto.Stride[1, 1, 1, 16, 1], pto.Layout.ND]
        table = TableT(core.gm_put(np.arange(64 * 16).astype(np.float16)))
        dst, idx = DstT(), IdxT()
        pto.TASSIGN(dst, 0x100)
        pto.TASSIGN(idx, 0x100 + 4 * 16 * 2)          # row 4 of dst: padding
        idx.set(np.array([[3, 1, 4, 1]], np.int32))
        assert spans_overlap(dst.addr, dst.addr + dst.nbytes, idx.addr, idx.addr + idx.nbytes)
        pto.MGATHER[pto.Coalesce.Row, pto.GatherOOB.Clamp](dst, table, idx)     # no PtoHazard
        assert dst.numpy()[0, 0] == 3 * 16


def test_byte_granular_pairs_on_fp16():
    """fp16 elements at bytes [0,2) and [2,4); an index at [2,6): only element 1 conflicts,
    although element 0 shares the index's 4-byte word."""
    pairs = byte_pairs(np.array([0, 2]), 2, np.array([2]), 4)
    assert pairs.tolist() == [[1, 0]]
    assert byte_pairs(np.array([0, 1, 2, 3]), 1, np.array([4]), 4).size == 0        # fp8 next to it


def test_schedules_keep_each_threads_program_order():
    m = launch_map(SimtCase("row", 40, 70, idx_addr=0x1000, dst_addr=0))
    p = simt_program(m)
    for name, steps in schedules(p, seed=3).items():
        seen = np.concatenate(steps)
        assert np.sort(seen).tolist() == list(range(p.kind.size)), name
        pos = np.empty(p.kind.size, np.int64)
        pos[seen] = np.arange(seen.size)
        for t in np.unique(p.thread)[:40]:
            ops = np.flatnonzero(p.thread == t)
            ops = ops[np.argsort(p.instr[ops])]
            assert (np.diff(pos[ops]) > 0).all(), (name, t)
    sp = scalar_program(m)
    assert (sp.kind == 1).sum() == m.size and (sp.kind == 0).sum() == 40


def test_no_overlap_check_is_cheap():
    core = pto.Core("a5", backend="numpy")
    with core:
        dst, table, idx = _setup(core, "elem", 64, 64, 0x8000, 0)
        from ptogpu.semantics.hazards import check_mgather
        t = time.perf_counter()
        for _ in range(2000):
            assert check_mgather(core, pto.Coalesce.Elem, pto.GatherOOB.Clamp, dst, table, idx) is False
        assert (time.perf_counter() - t) / 2000 < 50e-6


def test_a_huge_overlapping_region_faults_before_the_hazard_check_builds_anything():
    """dst and idx share storage with dynamic valid dims of 2^20 x 2^20: a PtoFault naming UB
    (the region cannot fit), not an IndexError or MemoryError from the schedule analysis."""
    import numpy as np
    import ptogpu as pto
    with pto.Core("a5", "numpy") as core:
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 8, 8], pto.Stride[64, 64, 64, 8, 1]]
        table = G(core.gm_put(np.arange(64, dtype=np.float32)))
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 8, 8, pto.BLayout.RowMajor, -1, -1](2**20, 2**20)
        dst = pto.Tile[pto.TileType.Vec, pto.float32, 8, 8, pto.BLayout.RowMajor, -1, -1](2**20, 2**20)
        pto.TASSIGN(idx, 0)
        pto.TASSIGN(dst, 0)
        with pytest.raises(pto.PtoFault, match="cannot fit in UB"):
            pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Clamp](dst, table, idx)
