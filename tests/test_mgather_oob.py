"""MGATHER out-of-range indices: the four GatherOOB policies per target (mgather.md §3, §7).

NPU targets cast every index with static_cast<uint32_t>; the CPU sim with static_cast<size_t>
(sign-extending). Expected values come from conftest.cast_u / remap_ref, the §3 table in code.
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import (ELEM, NPU, OOB, ROW, TARGETS, assert_bytes, cast_u, gt, new_core, remap_ref,
                      sentinel, tile, ub_snapshot)

F32 = pto.float32
I32_VALUES = [-1, 2**31 - 1, -2**31, 0, -7, -10, 6, 7, 9, 10, 23]
U32_VALUES = [2**32 - 1, 2**31, 2**31 - 1, 0, 6, 7, 10, 2**32 - 7]


def _elem_case(core, cap, values, idx_dtype, oob):
    flat = (np.arange(cap) * 10 + 10).astype(np.float32)
    table = gt(core, flat, F32, (1, 1, 1, 1, cap), (cap, cap, cap, cap, 1))
    n = len(values)
    idx = tile(getattr(pto, idx_dtype), 1, 16, 0, vc=n)
    idx.set(np.array([values], dtype=np.int64).astype(idx_dtype))
    dst = tile(F32, 1, 16, 0x100, vc=n)
    pto.MGATHER[ELEM, oob](dst, table, idx)
    t = core.target.name
    want = sentinel(16, np.float32)
    for k, x in enumerate(values):
        u = cast_u(x, t, idx_signed=idx_dtype.startswith("int"))
        eff, read = remap_ref(u, cap, oob, t)
        want[k] = flat[eff] if read else np.float32(0)
    assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("cap", [7, 10, 8])
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_elem_int32_indices_remap_per_target(core, oob, cap):
    """§3: u32 cast on NPU, u64 (sign-extended) on CPU, then Clamp / Wrap / Zero against cap.
    E.g. Wrap cap 7: -1 -> 3 on NPU, 1 on CPU; Clamp: -1 -> cap-1 everywhere; Zero: 0."""
    _elem_case(core, cap, I32_VALUES, "int32", oob)


@pytest.mark.parametrize("cap", [7, 10])
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_elem_uint32_indices_are_zero_extended_everywhere(core, oob, cap):
    """§3: an unsigned index is zero-extended on CPU, so 0xFFFFFFFF wraps like on NPU."""
    _elem_case(core, cap, U32_VALUES, "uint32", oob)


@pytest.mark.parametrize("target,want", [("cpu", [10, 20, 10, 10]), ("a2a3", [40, 50, 30, 30]),
                                         ("a5", [40, 50, 30, 30])])
def test_negative_index_wrap_spec_table(target, want):
    """§3 table: Wrap cap 7 of -1 is 3 on NPU ((2^32-1) % 7) but 1 on CPU ((2^64-1) % 7);
    -7: NPU (2^32-7) % 7 = 4, CPU (2^64-7) % 7 = 2 ... checked against literal values."""
    core = new_core(target)
    with core:
        flat = (np.arange(7) * 10 + 10).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 1, 7), (7, 7, 7, 7, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=4)
        idx.set(np.array([[-1, -7, -2**31, 2**31 - 1]], np.int32))
        dst = tile(F32, 1, 8, 0x100, vc=4)
        pto.MGATHER[ELEM, OOB.Wrap](dst, table, idx)
        # NPU: (2^32-1)%7=3, (2^32-7)%7=4, 2^31%7=2, (2^31-1)%7=1 -> flat 40, 50, 30, 20
        # CPU: (2^64-1)%7=1, (2^64-7)%7=2, (2^64-2^31)%7=0, (2^31-1)%7=1 -> 20, 30, 10, 20
        lit = {"cpu": [20, 30, 10, 20], "a2a3": [40, 50, 30, 20], "a5": [40, 50, 30, 20]}[target]
        assert want  # parametrised literal kept for the docstring table
        got = dst.numpy()[0]
        assert_bytes(got, np.array(lit, np.float32))


@pytest.mark.parametrize("cap", [7, 10])
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_row_indices_remap_per_target(core, oob, cap):
    """§3 with the Row capacity (cap rows): an OOB row under Zero is VC zeros."""
    mat = (np.arange(cap * 8) + 1).astype(np.float32).reshape(cap, 8)
    table = gt(core, mat, F32, (1, 1, 1, cap, 8), (cap * 8, cap * 8, cap * 8, 8, 1))
    values = [-1, -2**31, 2**31 - 1, cap - 1, cap, cap + 3, -cap, 0]
    idx = tile(pto.int32, 1, 8, 0)
    idx.set(np.array([values], np.int32))
    dst = tile(F32, 8, 8, 0x100)
    pto.MGATHER[ROW, oob](dst, table, idx)
    t = core.target.name
    want = np.zeros((8, 8), np.float32)
    for r, x in enumerate(values):
        eff, read = remap_ref(cast_u(x, t), cap, oob, t)
        if read:
            want[r] = mat[eff]
    assert_bytes(dst.raw(), want.reshape(-1))


@pytest.mark.parametrize("value,dt", [(-1, "int32"), (2**31 - 1, "int32"), (-2**31, "int32"),
                                      (2**31, "uint32"), (2**32 - 1, "uint32")])
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_index_tile_full_of_adversarial_value(core, mode, oob, value, dt):
    """Index tiles full of -1 / INT32_MAX / INT32_MIN / 2^31 / 2^32-1 give the §3 answer."""
    cap_rows = 5
    mat = (np.arange(cap_rows * 8) + 1).astype(np.float32).reshape(cap_rows, 8)
    table = gt(core, mat, F32, (1, 1, 1, cap_rows, 8), (40, 40, 40, 8, 1))
    idx = tile(getattr(pto, dt), 8, 8, 0)
    idx.set(np.full((8, 8), value, dtype=np.int64).astype(dt))
    dst = tile(F32, 8, 8, 0x100)
    t = core.target.name
    u = cast_u(value, t, idx_signed=dt == "int32")
    if mode == ROW:
        idx = _row_view(idx)
        eff, read = remap_ref(u, cap_rows, oob, t)
        want = np.tile(mat[eff] if read else np.zeros(8, np.float32), (8, 1))
    else:
        eff, read = remap_ref(u, cap_rows * 8, oob, t)
        want = np.full((8, 8), mat.reshape(-1)[eff] if read else 0, np.float32)
    pto.MGATHER[mode, oob](dst, table, idx)
    assert_bytes(dst.raw(), want.reshape(-1))


def _row_view(idx_tile):
    t = pto.Tile[pto.TileType.Vec, idx_tile.DType, 1, idx_tile.Cols, pto.BLayout.RowMajor, 1,
                 idx_tile.Cols]()
    pto.TASSIGN(t, idx_tile.addr)
    return t


# -- GatherOOB::Undefined: whatever GM holds at the computed address ------------------------------
def _neighbours(core):
    """prev (16 f32 = 64 B) | table (4x8 f32) | after (32 f32), adjacent in GM."""
    prev = core.gm_put((np.arange(16) - 100).astype(np.float32))
    mat = (np.arange(32) + 1).astype(np.float32).reshape(4, 8)
    table = gt(core, mat, F32, (1, 1, 1, 4, 8), (32, 32, 32, 8, 1))
    after = core.gm_put((np.arange(32) + 500).astype(np.float32))
    assert table.addr == prev.addr + 64 and after.addr == table.addr + 128   # set-up
    return mat, table


def test_undefined_elem_reads_the_next_tensor(core):
    """§3: Undefined never remaps; index 32 + k reads element k of the tensor after the table."""
    mat, table = _neighbours(core)
    idx = tile(pto.int32, 1, 8, 0)
    idx.set(np.array([[0, 31, 32, 33, 63, 40, 5, 32]], np.int32))
    dst = tile(F32, 1, 8, 0x100)
    pto.MGATHER[ELEM, OOB.Undefined](dst, table, idx)
    after = np.arange(32) + 500
    assert_bytes(dst.raw(), np.array([1, 32, after[0], after[1], after[31], after[8], 6, after[0]],
                                     np.float32))


def test_undefined_row_reads_rows_past_the_table(core):
    """§3/§7: Row index 4..7 of a 4-row table reads the next tensor's bytes, on every target."""
    mat, table = _neighbours(core)
    idx = tile(pto.int32, 1, 8, 0, vc=3)
    idx.set(np.array([[4, 7, 1]], np.int32))
    dst = tile(F32, 3, 8, 0x100)
    pto.MGATHER[ROW, OOB.Undefined](dst, table, idx)
    after = (np.arange(32) + 500).astype(np.float32)
    assert_bytes(dst.raw(), np.concatenate([after[0:8], after[24:32], mat[1]]))


def test_undefined_reads_zeros_of_allocated_but_unwritten_gm(core):
    """GM from gm_alloc is zeroed: an Undefined read there gives 0."""
    flat = (np.arange(16) + 1).astype(np.float32)
    table = gt(core, flat, F32, (1, 1, 1, 2, 8), (16, 16, 16, 8, 1))
    space = core.gm_alloc(64, F32)
    assert space.addr == table.addr + 64
    idx = tile(pto.int32, 1, 8, 0)
    idx.set(np.array([[16, 17, 79, 0, 1, 2, 3, 15]], np.int32))
    dst = tile(F32, 1, 8, 0x100)
    pto.MGATHER[ELEM, OOB.Undefined](dst, table, idx)
    assert_bytes(dst.raw(), np.array([0, 0, 0, 1, 2, 3, 4, 16], np.float32))


@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_undefined_negative_index_on_cpu_reads_before_the_base(mode):
    """§3: on the CPU sim -1 sign-extends, so the address wraps to before the table: base[-1]
    (Elem) or the row before the table (Row, pitch Stride[3])."""
    core = new_core("cpu")
    with core:
        mat, table = _neighbours(core)
        prev = (np.arange(16) - 100).astype(np.float32)
        if mode == ELEM:
            idx = tile(pto.int32, 1, 8, 0, vc=2)
            idx.set(np.array([[-1, -16]], np.int32))
            dst = tile(F32, 1, 8, 0x100, vc=2)
            want = sentinel(8, np.float32)
            want[:2] = prev[[15, 0]]
        else:
            idx = tile(pto.int32, 1, 8, 0, vc=2)
            idx.set(np.array([[-1, -2]], np.int32))
            dst = tile(F32, 2, 8, 0x100)
            want = np.concatenate([prev[8:16], prev[0:8]])
        pto.MGATHER[mode, OOB.Undefined](dst, table, idx)
        assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_undefined_negative_index_on_npu_faults_past_gm(target, mode):
    """§3: on NPU -1 is 0xFFFFFFFF, ~4e9 elements past the base: outside the GM arena."""
    core = new_core(target)
    with core:
        _neighbours(core)
        table = _neighbours(core)[1]
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[0, -1]], np.int32))
        dst = tile(F32, 2, 8, 0x100, vr=2 if mode == ROW else 1, vc=8 if mode == ROW else 2)
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoFault) as ei:
            pto.MGATHER[mode, OOB.Undefined](dst, table, idx)
        assert ub_snapshot(core) == before                # nothing written on a fault
        msg = str(ei.value)
        assert "MGATHER" in msg and target in msg
        assert "(1,0)" in msg or "(0,1)" in msg          # names the faulting element
        assert "0x" in msg                                # and the address


@pytest.mark.parametrize("target,readable", [("a5", True), ("a2a3", False), ("cpu", False)])
def test_undefined_row_int32_min_wraps_to_row_0_only_on_a5(target, readable):
    """§5.3: A5 row offset is uint32(u*VC): 2^31*8 ≡ 0 -> row 0; a2a3/cpu leave GM."""
    core = new_core(target)
    with core:
        mat, table = _neighbours(core)
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[-2**31, 2]], np.int32))
        dst = tile(F32, 2, 8, 0x100)
        if readable:
            pto.MGATHER[ROW, OOB.Undefined](dst, table, idx)
            assert_bytes(dst.raw(), mat[[0, 2]].reshape(-1))
        else:
            before = ub_snapshot(core)
            with pytest.raises(pto.PtoFault):
                pto.MGATHER[ROW, OOB.Undefined](dst, table, idx)
            assert ub_snapshot(core) == before


@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_fault_after_valid_elements_writes_nothing(core, mode):
    """A fault on the last element leaves every dst byte untouched (checks precede writes)."""
    _, table = _neighbours(core)
    idx = tile(pto.int32, 1, 8, 0)
    idx.set(np.array([[0, 1, 2, 3, 0, 1, 2, 10**9]], np.int32))
    dst = tile(F32, 8, 8, 0x100, vr=8 if mode == ROW else 1)
    before = ub_snapshot(core)
    with pytest.raises(pto.PtoFault):
        pto.MGATHER[mode, OOB.Undefined](dst, table, idx)
    assert ub_snapshot(core) == before


# -- degenerate capacity 0 (§3) -----------------------------------------------------------------
def _cap0(core, mode):
    prev = core.gm_put((np.arange(16) - 100).astype(np.float32))
    data = (np.arange(32) + 1).astype(np.float32)
    shape = (1, 1, 1, 0, 8)                # Row cap Shape[3] = 0; Elem cap ∏ = 0
    table = gt(core, data, F32, shape, (32, 32, 32, 8, 1))
    assert table.addr == prev.addr + 64
    idx = tile(pto.int32, 1, 8, 0, vc=2)
    idx.set(np.array([[2, 1]], np.int32))
    dst = tile(F32, 2, 8, 0x100, vr=2 if mode == ROW else 1, vc=8 if mode == ROW else 2)
    return prev, data, table, idx, dst


@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_capacity_zero_wrap_faults(core, mode):
    """§3: Wrap with cap 0 divides by zero on every target: a PtoFault, nothing written."""
    _, _, table, idx, dst = _cap0(core, mode)
    before = ub_snapshot(core)
    with pytest.raises(pto.PtoFault):
        pto.MGATHER[mode, OOB.Wrap](dst, table, idx)
    assert ub_snapshot(core) == before


@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_capacity_zero_zero_policy_writes_zeros(core, mode):
    """§3: with cap 0 every index is out of range: Zero writes 0 to the valid region."""
    _, _, table, idx, dst = _cap0(core, mode)
    pto.MGATHER[mode, OOB.Zero](dst, table, idx)
    want = sentinel(16, np.float32)
    if mode == ROW:
        want[:] = 0
    else:
        want[:2] = 0
    assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("target", NPU)
@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_capacity_zero_clamp_reads_index_0xffffffff_on_npu(target, mode):
    """§3: NPU Clamp with cap 0 gives cap-1 = 0xFFFFFFFF: far outside GM -> PtoFault."""
    core = new_core(target)
    with core:
        _, _, table, idx, dst = _cap0(core, mode)
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoFault):
            pto.MGATHER[mode, OOB.Clamp](dst, table, idx)
        assert ub_snapshot(core) == before


def test_capacity_zero_clamp_on_cpu_is_std_clamp_to_size_max():
    """§3: CPU Clamp is std::clamp(u, 0, cap-1); with cap 0, cap-1 = SIZE_MAX and every u is
    already <= SIZE_MAX, so the index is used unchanged (reads the data behind the table)."""
    core = new_core("cpu")
    with core:
        _, data, table, idx, dst = _cap0(core, ELEM)
        pto.MGATHER[ELEM, OOB.Clamp](dst, table, idx)
        want = sentinel(16, np.float32)
        want[:2] = data[[2, 1]]
        assert_bytes(dst.raw(), want)


# -- adversarial tables and valid dims: a target answer or a PtoError, never NumPy noise --------
BIG = [0, 1, -1, -5, 2**31, 2**32, 2**32 + 3, 2**40, -2**40, 2**62, 2**63 - 1, -2**63, 2**64 + 5]


def _adversarial_run(core, mode, oob, shape, stride, layout=pto.Layout.ND):
    sh, st = pto.Shape[-1, -1, -1, -1, -1], pto.Stride[-1, -1, -1, -1, -1]
    if layout == pto.Layout.NZ:
        sh = pto.Shape[-1, -1, -1, 16, 8]
        shape = shape[:3]
    T = pto.GlobalTensor[F32, sh, st, layout]
    table = T(core.gm_put(np.arange(64, dtype=np.float32)), sh(*shape), st(*stride))
    idx = tile(pto.int32, 1, 8, 0)
    idx.set(np.array([[0, 1, 5, -1, 2**31 - 1, -2**31, 63, 7]], np.int32))
    if layout == pto.Layout.NZ:
        dst = tile(F32, 16, 8, 0x100, bl=pto.BLayout.ColMajor, sl=pto.SLayout.RowMajor,
                   vr=8 if mode == ROW else 1)
    else:
        dst = tile(F32, 8, 8, 0x100, vr=8 if mode == ROW else 1)
    before = ub_snapshot(core)
    try:
        pto.MGATHER[mode, oob](dst, table, idx)
    except pto.PtoError:
        assert ub_snapshot(core) == before           # nothing written on an error


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [ROW, ELEM])
@pytest.mark.parametrize("oob", list(OOB))
def test_adversarial_shapes_and_strides_never_escape(target, mode, oob):
    """Huge, negative and zero shapes/strides (2^40, 2^63-1, -2^40, 2^64+5 ...) either give the
    target's answer or raise a PtoError -- no NumPy warning, OverflowError or MemoryError."""
    core = new_core(target, quirks={"a5_dynamic_dim_cast": False} if target == "a5" else None)
    with core:
        for k, v in enumerate(BIG):
            shape = [1, 1, 1, 8, 8]
            stride = [64, 64, 64, 8, 1]
            shape[k % 5] = v
            stride[(k + 2) % 5] = BIG[-1 - k]
            _adversarial_run(core, mode, oob, shape, stride)
            _adversarial_run(core, mode, oob, [1, 1, v, 8, 8], [64, 64, 64, 8, 1])
            _adversarial_run(core, mode, oob, [1, 1, 1, 8, 8], [64, 64, 64, v, v])


@pytest.mark.parametrize("mode", [ROW, ELEM])
@pytest.mark.parametrize("oob", list(OOB))
def test_adversarial_nz_tables_never_escape(mode, oob):
    """§6.4/§6.6 with hostile gShape0..2 / gStride0..4: an answer or a PtoError."""
    core = new_core("a2a3")
    with core:
        for k, v in enumerate(BIG):
            shape = [1, 1, 1]
            shape[k % 3] = v
            stride = [128, 128, 128, 8, 1]
            stride[(k + 1) % 5] = BIG[-1 - k]
            _adversarial_run(core, mode, oob, shape, stride, pto.Layout.NZ)
            _adversarial_run(core, mode, oob, [v, v, v], [128, 128, 128, 8, 1], pto.Layout.NZ)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [ROW, ELEM])
@pytest.mark.parametrize("valid", [(2**40, 2**40), (2**31, 8), (1, 2**33), (2**20, 2**20)])
def test_huge_dynamic_valid_dims_fault_cleanly(target, mode, valid):
    """A runtime valid shape far beyond the tile cannot fit in UB: PtoFault, no MemoryError."""
    core = new_core(target, quirks={"a5_dynamic_dim_cast": False} if target == "a5" else None)
    with core:
        table = gt(core, np.arange(64, dtype=np.float32), F32, (1, 1, 1, 8, 8), (64, 64, 64, 8, 1))
        idx = tile(pto.int32, 1, 8, 0, vr=-1, vc=-1, valid=(1, valid[0]) if mode == ROW else valid)
        dst = tile(F32, 8, 8, 0x100, vr=-1, vc=-1, valid=valid)
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoError):
            pto.MGATHER[mode, OOB.Clamp](dst, table, idx)
        assert ub_snapshot(core) == before


@pytest.mark.parametrize("name,values", [
    ("int8", [-1, -128, 127, 6]), ("uint8", [255, 128, 7, 0]), ("int16", [-1, -32768, 9, 3]),
    ("uint16", [65535, 32768, 14, 1]), ("int64", [-1, 2**40, -2**40, 2**63 - 1]),
    ("uint64", [2**64 - 1, 2**40, 2**63, 13]),
])
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
def test_cpu_index_widths_sign_or_zero_extend_to_size_t(name, values, oob):
    """§3: static_cast<size_t> sign-extends signed index types and zero-extends unsigned ones."""
    core = new_core("cpu")
    with core:
        cap = 7
        flat = (np.arange(cap) * 10 + 10).astype(np.float32)
        table = gt(core, flat, F32, (1, 1, 1, 1, cap), (cap, cap, cap, cap, 1))
        dt = getattr(pto, name)
        cols = 32 // dt.itemsize
        idx = tile(dt, 1, cols, 0, vc=4)
        idx.set(np.array([values], dtype=object).astype(dt))
        dst = tile(F32, 1, 8, 0x100, vc=4)
        pto.MGATHER[ELEM, oob](dst, table, idx)
        want = sentinel(8, np.float32)
        for k, x in enumerate(values):
            eff, read = remap_ref(x % 2**64, cap, oob, "cpu")
            want[k] = flat[eff] if read else 0
        assert_bytes(dst.raw(), want)


# -- property: the implementation against a scalar model of §3-§6 written here ------------------
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _model(t, mode, oob, VR, VC, cols, shape, stride, base, gm, idx_vals, ub_dst):
    """Expected dst storage (float32 words) or "fault", per target, one element at a time."""
    width = 2**64 if t == "cpu" else 2**32
    out = ub_dst.copy()
    if mode == ELEM:
        cap = int(np.prod([int(s) for s in shape])) % width
    elif t == "a2a3":
        cap = int(np.prod([int(s) for s in shape[:4]])) % width
    else:
        cap = shape[3] % width
    writes = []
    for r in range(VR):
        for c in range(VC):
            x = int(idx_vals[r] if mode == ROW else idx_vals[r * 8 + c])
            u = cast_u(x, t)
            if oob == OOB.Wrap and cap == 0:
                return "fault"
            eff, read = remap_ref(u, cap, oob, t)
            if not read:
                writes.append((r * cols + c, 0.0))
                continue
            if mode == ELEM:
                el = eff
            elif t == "cpu":
                el = eff * stride[3] + c * stride[4]
            elif t == "a2a3":
                el = eff * stride[3] + c
            else:
                el = (eff * VC) % 2**32 + c
            addr = (base + el * 4) % 2**64
            if addr + 4 > gm.size:
                return "fault"
            writes.append((r * cols + c, gm[addr: addr + 4].view(np.float32)[0]))
    for off, v in writes:
        out[off] = v
    if mode == ROW and t == "a2a3":                   # §D.4 filler with the burst's first element
        end = -(-VC // 8) * 8
        for r in range(VR):
            eff, read = remap_ref(cast_u(int(idx_vals[r]), t), cap, oob, t)
            if read:
                out[r * cols + VC: r * cols + end] = out[r * cols]
    return out


IDX_VALUE = st.one_of(st.integers(0, 40), st.sampled_from([-1, -2, -2**31, 2**31 - 1, 2**29, 2**30]),
                      st.integers(-2**31, 2**31 - 1))


@settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck))
@given(t=st.sampled_from(TARGETS), mode=st.sampled_from([ROW, ELEM]), oob=st.sampled_from(list(OOB)),
       VR=st.integers(1, 6), VC=st.integers(1, 12), rows=st.integers(0, 9), pad=st.integers(0, 5),
       s4=st.integers(1, 2), outer=st.sampled_from([1, 2, 3]),
       vals=st.lists(IDX_VALUE, min_size=48, max_size=48))
def test_mgather_matches_scalar_model(t, mode, oob, VR, VC, rows, pad, s4, outer, vals):
    """Random shapes, strides and indices (in range, negative, INT32 extremes) on every target:
    the bytes written (or the fault) equal the §3-§6 model computed here element by element."""
    core = new_core(t)
    with core:
        shape = (outer, 1, 1, rows, VC)
        s3 = VC * s4 + pad
        stride = (outer * rows * s3, rows * s3, rows * s3, s3, s4)
        n = max(outer * rows * s3, 1)
        core.gm_put(np.arange(16, dtype=np.float32) - 50)           # something before the table
        data = (np.arange(n) + 1).astype(np.float32)
        table = gt(core, data, F32, shape, stride)
        core.gm_put(np.arange(64, dtype=np.float32) + 1000)        # something after it
        cols = -(-VC // 8) * 8
        if mode == ROW:
            idx = tile(pto.int32, 1, 8, 0, vc=VR)
            idx.set(np.array([vals[:VR]], np.int32))
            flat_idx = vals[:VR]
        else:
            idx = tile(pto.int32, 6, 8, 0, vr=VR, vc=VC if VC <= 8 else 8)
            if VC > 8:
                VC = 8
                cols = 8
            idx.set(np.array(vals, np.int32).reshape(6, 8)[:VR, :VC])
            flat_idx = vals
        dst = tile(F32, VR, cols, 0x400, vc=VC)
        gm = core.read("gm", 0, core.gm.size)
        before = dst.raw().copy()
        want = _model(t, mode, oob, VR, VC, cols, shape, stride, table.addr, gm, flat_idx,
                      before.view(np.float32))
        ub0 = ub_snapshot(core)
        if isinstance(want, str):
            with pytest.raises(pto.PtoFault):
                pto.MGATHER[mode, oob](dst, table, idx)
            assert ub_snapshot(core) == ub0
        else:
            pto.MGATHER[mode, oob](dst, table, idx)
            assert_bytes(dst.raw(), want)


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("mode", [ROW, ELEM])
def test_undefined_the_element_just_past_gm_faults(target, mode, backend):
    """A table that ends GM exactly (256 bytes, 64-aligned): Undefined index cap (Elem) or row
    4 of 4 (Row) addresses the first byte past GM, so the call faults and writes nothing; one
    index less reads the table's last element / row."""
    if backend == "native" and pto.Core(target, "auto").backend == "numpy":
        pytest.skip("no C++ compiler")
    flat = (np.arange(64) + 1).astype(np.float32)
    for last, bad in ((True, False), (False, True)):
        core = pto.Core(target, backend)
        core.write("ub", 0, np.full(core.ub.size, 0xCD, np.uint8))
        with core:
            table = gt(core, flat, F32, (1, 1, 1, 4, 16), (64, 64, 64, 16, 1))
            assert core.gm.size == 256                        # set-up: GM ends with the table
            n = 4 if mode == ROW else 64
            k = (n - 1) if last else n
            idx = tile(pto.int32, 1, 8, 0, vc=1)
            idx.set(np.array([[k]], np.int32))
            dst = tile(F32, 1, 16, 0x100, vc=16 if mode == ROW else 1)
            if not bad:
                pto.MGATHER[mode, OOB.Undefined](dst, table, idx)
                want = flat[48:64] if mode == ROW else flat[63:64]
                assert_bytes(dst.numpy().reshape(-1), want)
                continue
            before = ub_snapshot(core)
            with pytest.raises(pto.PtoFault, match=r"table read|burst read") as ei:
                pto.MGATHER[mode, OOB.Undefined](dst, table, idx)
            assert "GM byte address 0x100 " in str(ei.value), str(ei.value)   # the byte past GM
            assert ub_snapshot(core) == before


ROW_BY_ELEMENT = [t for t in TARGETS if not pto.targets.get_target(t).mgather.row_tail_fill]


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", ROW_BY_ELEMENT)
@pytest.mark.parametrize("S3, ks", [(4, (0, 13)), (4, (13, 0)), (4, (1, 2)), (4, (3, 15)), (4, (15, 3)),
                                     (1, (48, 49)), (1, (49, 48)), (1, (48, 48))])
def test_undefined_row_that_runs_past_gm_faults_at_its_first_element_past(target, backend, S3, ks):
    """Row, Undefined, a table that ends GM (64 float32): a row's source starts at element
    ``k * S3`` (CPU: the table's row stride, 4 or 1: overlapping rows; a row from element 49
    ends exactly one element past GM) or ``uint32(k * VC)``
    (A5), and reads VC = 16 elements on; the call faults at the first element (row-major) past
    GM and names it, its index and its byte address; a single core and each instance of a core
    of N alike. Targets whose Row reads are DMA bursts fault per burst (their own tests)."""
    if backend == "native" and pto.Core(target, "auto").backend == "numpy":
        pytest.skip("no C++ compiler")
    rules = pto.targets.get_target(target).mgather
    VC = 16

    def start(k):
        return k * S3 if rules.row_source == "strides" else (k * VC) % 2**32

    bad = [(r, c) for r, k in enumerate(ks) for c in range(VC) if start(k) + c >= 64]
    flat = (np.arange(64) + 1).astype(np.float32)

    def run(core, ids):
        table = gt(core, flat, F32, (1, 1, 1, 4, 16), (64, 64, 64, S3, 1))
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.asarray(ids, np.int32).reshape(*np.shape(ids)[:-1], 1, 2))
        dst = tile(F32, 2, 16, 0x100)
        pto.MGATHER[ROW, OOB.Undefined](dst, table, idx)
        return dst

    with pto.Core(target, backend) as core:
        assert core.gm.size == 0
        if not bad:
            dst = run(core, ks)
            want = np.array([[flat[start(k) + c] for c in range(VC)] for k in ks], np.float32)
            assert_bytes(dst.numpy(), want)
            return
        with pytest.raises(pto.PtoFault) as ei:
            run(core, ks)
    r, c = bad[0]
    msg = str(ei.value)
    assert f"dst({r},{c}) with index {ks[r]:#x}" in msg and f"GM byte address {4 * (start(ks[r]) + c):#x} " in msg, msg
    with pto.Core(target, backend, batch=3) as core:                # instances: the case, no fault, the case
        run(core, np.array([ks, (0, 0), ks]))
        assert [str(e) if e else None for e in core.faults] == [msg, None, msg]


@pytest.mark.parametrize("backend", ["numpy", "native"])
@pytest.mark.parametrize("target", ROW_BY_ELEMENT)
@pytest.mark.parametrize("oob", [OOB.Clamp, OOB.Wrap, OOB.Zero])
@pytest.mark.parametrize("extra", [0, 1])
def test_a_capacity_past_gm_faults_under_every_remapping_policy(target, backend, oob, extra):
    """Row, a table that ends GM (64 float32) read as rows of VC = 13 elements, 13 apart. The
    policies remap every index below the capacity Shape[3]: with 4 rows no read can leave GM
    (the kernels then skip their check pass), with 5 rows (``extra``) the last row ends
    exactly one element past GM (elements 52..64), so index 4 faults at that element, byte
    0x100, and nothing is written; index 3 reads elements 39..51."""
    if backend == "native" and pto.Core(target, "auto").backend == "numpy":
        pytest.skip("no C++ compiler")
    flat = (np.arange(64) + 1).astype(np.float32)
    rows, VC = 4 + extra, 13
    with pto.Core(target, backend) as core:
        table = gt(core, flat, F32, (1, 1, 1, rows, VC), (VC * rows, VC * rows, VC * rows, VC, 1))
        assert core.gm.size == 256
        idx = tile(pto.int32, 1, 8, 0, vc=2)
        idx.set(np.array([[3, rows - 1]], np.int32))
        dst = tile(F32, 2, 16, 0x100, vc=VC)
        if not extra:
            pto.MGATHER[ROW, oob](dst, table, idx)
            assert_bytes(dst.numpy()[:, :VC], np.stack([flat[39:52], flat[39:52]]))
            return
        before = ub_snapshot(core)
        with pytest.raises(pto.PtoFault, match=r"table read") as ei:
            pto.MGATHER[ROW, oob](dst, table, idx)
        assert "dst(1,12)" in str(ei.value) and "GM byte address 0x100 " in str(ei.value), str(ei.value)
        assert ub_snapshot(core) == before
