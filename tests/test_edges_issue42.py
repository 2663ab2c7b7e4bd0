"""Issue 42, item 6: edge inputs of TLOAD/TSTORE and MGATHER GM->L1 get the target's verdict
(a PtoFault or the bytes), the same on the numpy and native backends, never an OverflowError,
a MemoryError or a NumPy ValueError, and never an allocation the size of a huge valid region.

Tests that could allocate a huge region run under a capped address space (a few GiB above what
the process maps), so a regression is a quick MemoryError, not a machine out of memory.
"""
from __future__ import annotations

import contextlib
import resource
import sys

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.backend import backend_available

BACKENDS = ["numpy"] + (["native"] if backend_available("native")[0] else [])
TARGETS = ("cpu", "a2a3", "a5")
NPU = ("a2a3", "a5")
D = pto.DYNAMIC
V, M = pto.TileType.Vec, pto.TileType.Mat
CM, SRM = pto.BLayout.ColMajor, pto.SLayout.RowMajor
SENT = 0xCD
OUTSIDE = "access outside arena"


@contextlib.contextmanager
def address_space_cap(extra_gib: int = 6):
    """Cap this process's address space ``extra_gib`` GiB above what it maps now (Linux)."""
    if not sys.platform.startswith("linux"):
        pytest.skip("the address-space cap reads /proc/self/status")
    with open("/proc/self/status") as f:
        vm = next(int(ln.split()[1]) * 1024 for ln in f if ln.startswith("VmSize:"))
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    cap = vm + (extra_gib << 30)
    if hard != resource.RLIM_INFINITY:
        cap = min(cap, hard)
    resource.setrlimit(resource.RLIMIT_AS, (cap, hard))
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, (soft, hard))


def seeded_core(target: str, backend: str) -> pto.Core:
    core = pto.Core(target, backend)
    core.write("ub", 0, np.full(core.ub.size, SENT, np.uint8))
    core.write("l1", 0, np.full(core.l1.size, SENT, np.uint8))
    return core


def memory(core) -> tuple[bytes, bytes, bytes]:
    return (core.read("gm", 0, core.gm.size).tobytes(), core.read("ub", 0, core.ub.size).tobytes(),
            core.read("l1", 0, core.l1.size).tobytes())


def filled(core, before, tile, op: str):
    """``before`` as a TLOAD on the simulator leaves it: the tile's bytes zeroed first, whatever
    the valid region (cpu/TLoad.hpp's std::fill over the whole tile); unchanged elsewhere."""
    if op != "TLOAD" or not core.target.tload_fill:
        return before
    ub = bytearray(before[1])
    ub[tile.addr: tile.addr + tile.nbytes] = bytes(tile.nbytes)
    return before[0], bytes(ub), before[2]


def verdict(fn):
    """('ok', None) or (exception class name, rule): what a call ends with."""
    try:
        fn()
        return "ok", None
    except pto.PtoError as e:
        return type(e).__name__, e.rule


# -- 1. a GlobalTensor shape dim of -2^63 ------------------------------------------------------
DIVIDES_BY = {"ND": (1, 2, 3), "DN": (1, 2, 4), "NZ": (1, 3, 4)}


def _data_tile(layout: str, rows_valid: int):
    """A 16x8 float32 Vec tile pairing with a ``layout`` tensor, ``rows_valid`` valid rows."""
    if layout == "ND":
        T = pto.Tile[V, pto.float32, 16, 8, pto.BLayout.RowMajor, D, 8]
    elif layout == "DN":
        T = pto.Tile[V, pto.float32, 16, 8, CM, D, 8]
    else:
        T = pto.Tile[V, pto.float32, 16, 8, CM, D, 8, SRM]
    t = T(rows_valid)
    pto.TASSIGN(t, 0x100)
    return t


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("layout", ["ND", "DN", "NZ"])
@pytest.mark.parametrize("dim", range(5))
@pytest.mark.parametrize("op", ["TLOAD", "TSTORE"])
def test_shape_dim_min_int64_is_used_only_when_elements_are_placed(target, layout, dim, op):
    """Shape[dim] = -2^63 (an OverflowError in GlobalTensor.offsets on an empty region): an
    empty valid region places no element, so no dim is divided by and nothing moves, as with
    any other negative dim; a non-empty one faults on a dim its layout divides by. numpy and
    native agree on the verdicts and the bytes."""
    shape = [1, 1, 1, 16, 8]
    shape[dim] = -2**63
    got = {}
    for backend in BACKENDS:
        for rows_valid in (0, 4):
            with seeded_core(target, backend) as core:
                G = pto.GlobalTensor[pto.float32, pto.Shape[(D,) * 5], pto.Stride[128, 128, 128, 8, 1],
                                     getattr(pto.Layout, layout)]
                g = G(core.gm_put(np.arange(128, dtype=np.float32)), pto.Shape[(D,) * 5](*shape))
                t = _data_tile(layout, rows_valid)
                before = memory(core)
                v = verdict(lambda: pto.TLOAD(t, g) if op == "TLOAD" else pto.TSTORE(g, t))
                if rows_valid == 0:
                    assert v == ("ok", None)
                    assert memory(core) == filled(core, before, t, op)
                elif dim in DIVIDES_BY[layout]:
                    assert v == ("PtoFault", "GlobalTensor layout addressing")
                    assert memory(core) == before
                got[backend, rows_valid] = v, memory(core)
    for rows_valid in (0, 4):
        assert len({got[b, rows_valid] for b in BACKENDS}) == 1


# -- 2. valid regions past the arena, and empty ones with a huge other dim ---------------------
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["TLOAD", "TSTORE"])
def test_tload_tstore_valid_cols_2_31_fault_before_allocating(backend, op):
    """ValidCol = 2^31 (set_valid_col) with a huge tensor stride, GM grown past 2 GiB: the
    region cannot fit in UB, a PtoFault at once (it built 16 GiB index grids: MemoryError)."""
    with seeded_core("a5", backend) as core, address_space_cap(6):
        core.gm_alloc(1 << 31, pto.uint8)
        G = pto.GlobalTensor[pto.int8, pto.Shape[1, 1, 1, 1, D], pto.Stride[1, 1, 1, D, D]]
        g = G(core.gm_ptr(0, pto.int8), pto.Shape[1, 1, 1, 1, D](2**31), pto.Stride[1, 1, 1, D, D](1, 2**40))
        t = pto.Tile[V, pto.int8, 1, 32, pto.BLayout.RowMajor, 1, D]()
        t.set_valid_col(2**31)
        pto.TASSIGN(t, 0)
        ub = core.read("ub", 0, core.ub.size).tobytes()
        v = verdict(lambda: pto.TLOAD(t, g) if op == "TLOAD" else pto.TSTORE(g, t))
        assert v == ("PtoFault", OUTSIDE)
        assert core.read("ub", 0, core.ub.size).tobytes() == ub
        assert not core.read("gm", 0, 1 << 16).any()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("valid", [(0, 2**31), (2**31, 0)])
@pytest.mark.parametrize("op", ["TLOAD", "TSTORE"])
def test_tload_tstore_empty_region_with_a_huge_other_dim_moves_nothing(backend, target, valid, op):
    """A 0 x 2^31 (or 2^31 x 0) valid region moves nothing and builds no 2^31-long array."""
    with seeded_core(target, backend) as core, address_space_cap(4):
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, D, D], pto.Stride[1, 1, 1, D, D]]
        g = G(core.gm_put(np.arange(64, dtype=np.float32)), pto.Shape[1, 1, 1, D, D](*valid),
              pto.Stride[1, 1, 1, D, D](2**40, 1))
        t = pto.Tile[V, pto.float32, 8, 8, pto.BLayout.RowMajor, D, D](*valid)
        pto.TASSIGN(t, 0x100)
        before = memory(core)
        assert verdict(lambda: pto.TLOAD(t, g) if op == "TLOAD" else pto.TSTORE(g, t)) == ("ok", None)
        assert memory(core) == filled(core, before, t, op)


def _l1_operands(core, vr, vc, idx_value=0):
    """A 16x16 float32 table, a 16x16 int32 index tensor, a scratch and an NZ Mat dst (vr x vc)."""
    sh, st = pto.Shape[1, 1, 1, 16, 16], pto.Stride[256, 256, 256, 16, 1]
    table = pto.GlobalTensor[pto.float32, sh, st](core.gm_put(np.arange(256, dtype=np.float32) + 1))
    idx = pto.GlobalTensor[pto.int32, sh, st](core.gm_put(np.full(256, idx_value, np.int32)))
    scratch = pto.GlobalTensor[pto.float32, sh, st](core.gm_alloc(256, pto.float32))
    dst = pto.Tile[M, pto.float32, 16, 16, CM, D, D, SRM, 512](vr, vc)
    pto.TASSIGN(dst, 0x400)
    return table, idx, scratch, dst


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("oob", ["Clamp", "Zero"])
def test_mgather_l1_row_with_more_rows_than_gm_holds_faults_at_once(backend, target, oob):
    """Row, ValidRow 2^31 and ValidCol 0: one index read per row, 8 GiB of indices past a GM
    of a few KiB -- a PtoFault before anything is built or looped over (it was a 16 GiB
    MemoryError on numpy, and a 2^31-row kernel loop before the same on native)."""
    with seeded_core(target, backend) as core, address_space_cap(4):
        table, idx, _, dst = _l1_operands(core, 2**31, 0)
        before = memory(core)
        v = verdict(lambda: pto.MGATHER[pto.Coalesce.Row, getattr(pto.GatherOOB, oob)](dst, table, idx))
        assert v == ("PtoFault", OUTSIDE)
        assert memory(core) == before


L1_EMPTY_FORMS = [("row", (0, 2**40)), ("elem", (2**31, 0)), ("elem", (0, 2**40)),
                  ("simt", (2**31, 0)), ("simt", (0, 2**40))]


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("form,valid", L1_EMPTY_FORMS)
def test_mgather_l1_empty_region_with_a_huge_other_dim_matches_across_backends(target, form, valid):
    """An empty valid region whose other dim is 2^31 or 2^40 builds no array that long; Row
    moves nothing, Elem copies the scratch's zero image into the tile; numpy and native agree
    byte for byte."""
    if form == "simt" and target != "a5":
        pytest.skip("GatherExec::Simt is A5's")
    got = {}
    for backend in BACKENDS:
        with seeded_core(target, backend) as core, address_space_cap(4):
            table, idx, scratch, dst = _l1_operands(core, *valid)
            before = memory(core)
            clamp = pto.GatherOOB.Clamp
            if form == "row":
                form_ = pto.MGATHER[pto.Coalesce.Row, clamp]
                args = (dst, table, idx)
            elif form == "elem":
                form_ = pto.MGATHER[pto.Coalesce.Elem, clamp]
                args = (dst, table, idx, scratch)
            else:
                form_ = pto.MGATHER[pto.Coalesce.Elem, clamp, pto.GatherExec.Simt]
                args = (dst, table, idx, scratch)
            call = lambda: form_(*args)  # noqa: E731
            assert verdict(call) == ("ok", None)
            after = memory(core)
            if form == "row":
                assert after == before
            else:
                assert not dst.raw().view(np.uint8).any()         # the zero image of the scratch
            got[backend] = after
    assert len(set(got.values())) == 1


# -- 3. MGATHER GM->L1 Row with ValidCol 0 -----------------------------------------------------
@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("oob", ["Undefined", "Clamp", "Wrap", "Zero"])
@pytest.mark.parametrize("vr", [1, 16])
@pytest.mark.parametrize("idx_value", [3, 100])
def test_mgather_l1_row_with_zero_valid_cols_matches_native(target, oob, vr, idx_value):
    """Row with ValidCol 0 issues no burst: Zero still pre-zeroes the tile, the other modes
    leave it untouched (numpy raised a ValueError for Zero, reshaping no burst flags)."""
    got = {}
    for backend in BACKENDS:
        with seeded_core(target, backend) as core:
            table, idx, _, dst = _l1_operands(core, vr, 0, idx_value)
            before = memory(core)
            assert verdict(lambda: pto.MGATHER[pto.Coalesce.Row, getattr(pto.GatherOOB, oob)](
                dst, table, idx)) == ("ok", None)
            raw = dst.raw().view(np.uint8)
            if oob == "Zero":
                assert not raw.any()
            else:
                assert (raw == SENT).all()
            assert core.read("gm", 0, core.gm.size).tobytes() == before[0]
            got[backend] = memory(core)
    assert len(set(got.values())) == 1


# -- 4. MGATHER Elem from a table 64 elements below GM -----------------------------------------


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("target,loc", [("cpu", "Mat"), ("cpu", "Vec"), ("a2a3", "Vec"), ("a5", "Vec")])
@pytest.mark.parametrize("oob", ["Clamp", "Wrap", "Zero"])
def test_mgather_elem_from_a_table_below_gm_faults(backend, target, loc, oob):
    """Elem from a table whose pointer is 64 elements before GM (gm_ptr(0) - 64): every read
    lands below GM, a PtoFault (access outside arena) and nothing written, on every backend."""
    with seeded_core(target, backend) as core:
        sh, st = pto.Shape[1, 1, 1, 16, 16], pto.Stride[256, 256, 256, 16, 1]
        core.gm_put(np.arange(256, dtype=np.float32) + 1)
        table = pto.GlobalTensor[pto.float32, sh, st](core.gm_ptr(0, pto.float32) - 64)
        if loc == "Mat":        # the CPU simulator's generic routine: index from GM, L1 dst
            idx = pto.GlobalTensor[pto.int32, sh, st](core.gm_put(np.zeros(256, np.int32)))
            dst = pto.Tile[M, pto.float32, 16, 16, CM, 16, 16, SRM, 512]()
        else:
            idx = pto.Tile[V, pto.int32, 8, 8]()
            pto.TASSIGN(idx, 0x1000)
            idx.set(np.zeros((8, 8), np.int32))
            dst = pto.Tile[V, pto.float32, 8, 8]()
        pto.TASSIGN(dst, 0)
        before = memory(core)
        v = verdict(lambda: pto.MGATHER[pto.Coalesce.Elem, getattr(pto.GatherOOB, oob)](dst, table, idx))
        assert v == ("PtoFault", OUTSIDE)
        assert memory(core) == before
