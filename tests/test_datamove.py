"""TLOAD / TSTORE between Vec tiles and ND / DN (/ NZ) GM tensors, and their error cases.

The tile's valid (r, c) takes the tensor's logical (r, c) (mgather.md §1.3 addressing); nothing
outside the valid region changes.
"""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import (CM, M, SRM, TARGETS, assert_bytes, gt, new_core, sentinel, tile,
                      ub_snapshot)

F32 = pto.float32
L = pto.Layout


@pytest.fixture(params=TARGETS)
def core(request):
    c = new_core(request.param)
    with c:
        yield c


def _gm(core):
    return core.read("gm", 0, core.gm.size).tobytes()


def test_tload_nd_into_row_major_tile(core):
    mat = (np.arange(32) * 1.5).astype(np.float32).reshape(4, 8)
    g = gt(core, mat, F32, (1, 1, 1, 4, 8), (32, 32, 32, 8, 1))
    t = tile(F32, 4, 8, 0x100)
    pto.TLOAD(t, g)
    assert_bytes(t.raw(), mat.reshape(-1))


def test_tload_partial_valid_region_from_padded_rows(core):
    """Row pitch Stride[3] = 16; the 3x5 valid region of the 4x8 tile is written, and on the
    NPU targets each row's DMA filler (cols 5..7, up to 32 bytes) takes the row's first element
    (other-ops.md §D.3, §D.4); the CPU simulator first fills the whole tile with its pad value, 0
    (cpu/TLoad.hpp TLOAD_TILE_IMPL: std::fill over GetSizeInUnits)."""
    buf = (np.arange(64) + 1).astype(np.float32)
    sh, st = pto.Shape[1, 1, 1, -1, -1], pto.Stride[1, 1, 1, -1, 1]
    g = pto.GlobalTensor[F32, sh, st](core.gm_put(buf), sh(3, 5), st(16))
    t = tile(F32, 4, 8, 0x100, vr=-1, vc=-1, valid=(3, 5))
    pto.TLOAD(t, g)
    want = sentinel(32, np.float32).reshape(4, 8)
    if core.target.name == "cpu":
        want[:] = 0
    want[:3, :5] = buf.reshape(4, 16)[:3, :5]
    if core.target.name != "cpu":
        want[:3, 5:8] = buf.reshape(4, 16)[:3, :1]
    assert_bytes(t.raw(), want.reshape(-1))


@pytest.mark.parametrize("dtype,cols,vc,end", [(pto.half, 32, 3, 16), (pto.half, 32, 17, 32),
                                               (pto.int8, 64, 33, 64), (F32, 16, 8, 8), (F32, 16, 9, 16)])
def test_tload_npu_row_filler_reaches_the_next_32_byte_boundary_only(core, dtype, cols, vc, end):
    """Filler elements [VC, roundup(VC*size, 32)/size) of each valid row; VC*size already a
    multiple of 32: none; rows past VR and columns past the boundary stay untouched (the
    simulator: every byte of the tile outside the valid region is 0)."""
    st = np.dtype(dtype)
    buf = (np.arange(3 * cols) % 100 + 1).astype(st)
    g = gt(core, buf, dtype, (1, 1, 1, 2, vc), (3 * cols, 3 * cols, 3 * cols, cols, 1))
    t = tile(dtype, 3, cols, 0x200, vr=2, vc=vc)
    pto.TLOAD(t, g)
    want = sentinel(3 * cols, st).reshape(3, cols)
    if core.target.name == "cpu":
        want[:] = 0
    rows = buf.reshape(3, cols)[:2]
    want[:2, :vc] = rows[:, :vc]
    if core.target.name != "cpu":
        want[:2, vc:end] = rows[:, :1]
    assert_bytes(t.raw(), want.reshape(-1))


@pytest.mark.parametrize("name", ["a2a3", "a5"])
def test_tload_row_filler_is_a_switchable_quirk(name):
    buf = (np.arange(16) + 1).astype(np.float32)
    with new_core(name, quirks={"npu_tload_filler": False}) as c:
        g = gt(c, buf, F32, (1, 1, 1, 2, 5), (16, 16, 16, 8, 1))
        t = tile(F32, 2, 8, 0x100, vc=5)
        pto.TLOAD(t, g)
        want = sentinel(16, np.float32).reshape(2, 8)
        want[:, :5] = buf.reshape(2, 8)[:, :5]
        assert_bytes(t.raw(), want.reshape(-1))


def test_tload_dn_loads_write_each_column_filler(core):
    """DN→ColMajor is one burst per column (a5 TLoadVecDN2DN, a2a3 TLoadGm2ubDn2dn: lenBurst =
    VR*sizeof, the tile's column pitch): on the NPUs each column's bytes past VR up to the 32-byte
    boundary are its first element (§D.3/§D.4), the rest of the padding rows stay untouched (the
    simulator's: 0, its whole-tile fill)."""
    buf = (np.arange(40) + 1).astype(np.float32)                  # (r, c) at c*8 + r
    g = gt(core, buf, F32, (1, 1, 1, 5, 5), (40, 40, 40, 1, 8), L.DN)
    t = tile(F32, 16, 8, 0x100, bl=CM, vr=5, vc=5)
    pto.TLOAD(t, g)
    want = sentinel(128, np.float32).reshape(8, 16)               # [column, row] storage
    if core.target.name == "cpu":
        want[:] = 0
    want[:5, :5] = buf.reshape(5, 8)[:, :5]
    if core.target.name != "cpu":                                 # 5 floats: 20 bytes, filler to 32
        want[:5, 5:8] = buf.reshape(5, 8)[:, :1]
    assert_bytes(t.raw(), want.reshape(-1))


def test_tload_4d_nd_tensor_stacks_outer_dims_as_rows(core):
    """§1.3 ND: rows run over (i0, i1, i2, i3) row-major."""
    buf = (np.arange(200) + 0.5).astype(np.float32)
    g = gt(core, buf, F32, (1, 2, 1, 3, 8), (200, 100, 50, 10, 1))
    t = tile(F32, 6, 8, 0x100)
    pto.TLOAD(t, g)
    want = np.stack([buf[i1 * 100 + i3 * 10: i1 * 100 + i3 * 10 + 8]
                     for i1 in range(2) for i3 in range(3)])
    assert_bytes(t.raw(), want.reshape(-1))


def test_tload_dn_into_col_major_tile(core):
    """DN Stride(RC,RC,RC,1,R) is column-major: a ColMajor tile stores the same image."""
    R, C = 8, 4
    colmajor = (np.arange(R * C) * 3).astype(np.int32)            # element (r, c) at c*R + r
    g = gt(core, colmajor, pto.int32, (1, 1, 1, R, C), (R * C, R * C, R * C, 1, R), L.DN)
    t = tile(pto.int32, R, C, 0x100, bl=CM)
    pto.TLOAD(t, g)
    assert_bytes(t.raw(), colmajor)
    np.testing.assert_array_equal(t.numpy(), colmajor.reshape(C, R).T)


def test_tload_r_by_1_dn_index_tensor(core):
    """§1.3: an [R,1] DN index tensor with Stride(1,1,1,1,1) is R contiguous indices."""
    ids = np.array([9, -1, 2**31 - 1, -2**31, 0, 5, 7, 3], np.int32)
    g = gt(core, ids, pto.int32, (1, 1, 1, 8, 1), (1, 1, 1, 1, 1), L.DN)
    t = tile(pto.int32, 8, 1, 0x100, bl=CM)
    pto.TLOAD(t, g)
    assert_bytes(t.raw(), ids)


def test_tload_nz_into_nz_vec_tile(core):
    """NZ tensor <-> NZ tile: the canonical NZ GM image is the NZ tile image."""
    R, C, C0 = 16, 16, 8
    mat = (np.arange(R * C) + 1).astype(np.float32).reshape(R, C)
    image = mat.reshape(R, C // C0, C0).transpose(1, 0, 2).reshape(-1)
    g = gt(core, image, F32, (1, C // C0, R // 16, 16, C0), (R * C, R * C0, 16 * C0, C0, 1), L.NZ)
    t = tile(F32, R, C, 0x100, bl=CM, sl=SRM)
    pto.TLOAD(t, g)
    assert_bytes(t.raw(), image)
    assert_bytes(t.numpy(), mat)


def test_tstore_writes_valid_region_into_padded_rows_only(core):
    buf = np.full(64, -1.0, np.float32)
    sh, st = pto.Shape[1, 1, 1, -1, -1], pto.Stride[1, 1, 1, -1, 1]
    ptr = core.gm_put(buf)
    g = pto.GlobalTensor[F32, sh, st](ptr, sh(3, 5), st(16))
    t = tile(F32, 4, 8, 0x100, vr=-1, vc=-1, valid=(3, 5))
    vals = (np.arange(15) + 100).astype(np.float32).reshape(3, 5)
    t.set(vals)
    pto.TSTORE(g, t)
    want = buf.reshape(4, 16).copy()
    want[:3, :5] = vals
    assert_bytes(ptr.numpy(64), want.reshape(-1))


@pytest.mark.parametrize("name", ["int8", "uint16", "int64", "half", "bfloat16", "float8_e4m3",
                                  "float8_e5m2", "hifloat8"])
def test_tload_tstore_round_trip_is_bytes_exact(core, name):
    """Every element type moves as bytes: NaN payloads, -0.0 and hif8 codes survive."""
    dt = getattr(pto, name)
    size = dt.itemsize
    cols = 64 // size
    raw = np.random.default_rng(2).integers(0, 256, 4 * cols * size, dtype=np.uint8)
    src = gt(core, raw.view(np.uint8 if name == "hifloat8" else dt), dt, (1, 1, 1, 4, cols),
             (4 * cols, 4 * cols, 4 * cols, cols, 1))
    out_ptr = core.gm_alloc(4 * cols, dt)
    T = pto.GlobalTensor[dt, pto.Shape[1, 1, 1, 4, cols], pto.Stride[(4 * cols,) * 3 + (cols, 1)]]
    out = T(out_ptr)
    t = tile(dt, 4, cols, 0x100)
    pto.TLOAD(t, src)
    pto.TSTORE(out, t)
    assert core.read("gm", out_ptr.addr, raw.size).tobytes() == raw.tobytes()


# -- errors ----------------------------------------------------------------------------------------
def test_element_types_must_match(core):
    g = gt(core, np.zeros(32, np.int32), pto.int32, (1, 1, 1, 4, 8), (32, 32, 32, 8, 1))
    t = tile(F32, 4, 8, 0x100)
    before = ub_snapshot(core), _gm(core)
    with pytest.raises(pto.PtoCheckError):
        pto.TLOAD(t, g)
    with pytest.raises(pto.PtoCheckError):
        pto.TSTORE(g, t)
    assert (ub_snapshot(core), _gm(core)) == before


def _sim_gm_offset(layout, S, St, r, c):
    """cpu/tile_offsets.hpp:180-200 MapTileIndicesToGlobalOffset, written out."""
    if layout == L.ND:
        i = (r // (S[3] * S[2] * S[1]), (r // (S[3] * S[2])) % S[1], (r // S[3]) % S[2], r % S[3], c)
    elif layout == L.DN:
        i = (c // (S[1] * S[2] * S[4]), (c // (S[4] * S[2])) % S[1], (c // S[4]) % S[2], r, c % S[4])
    else:
        i = ((c // S[4]) // S[1], (c // S[4]) % S[1], r // S[3], r % S[3], c % S[4])
    return sum(a * b for a, b in zip(i, St))


@pytest.mark.parametrize("layout,tile_kw", [(L.ND, dict(bl=CM)), (L.DN, dict()),
                                            (L.NZ, dict()), (L.ND, dict(bl=CM, sl=SRM))])
def test_vec_layouts_pair_on_the_npus_only(core, layout, tile_kw):
    """Vec TLOAD/TSTORE on the NPUs: ND with RowMajor, DN with ColMajor, NZ with NZ tiles (their
    static_asserts). The simulator checks neither (cpu/TLoad.hpp:71-80, TStore.hpp:123-127): each
    side is addressed by its own layout (MapTileIndicesToGlobalOffset for GM)."""
    S, St = (1, 2, 1, 16, 8), (256, 128, 128, 8, 1)
    g = gt(core, np.arange(512, dtype=np.float32), F32, S, St, layout)
    t = tile(F32, 16, 16, 0x100, **tile_kw)
    if core.target.name == "cpu":
        pto.TLOAD(t, g)
        r, c = np.meshgrid(np.arange(16), np.arange(16), indexing="ij")
        assert_bytes(t.numpy(), _sim_gm_offset(layout, S, St, r, c).astype(np.float32))
        return
    before = ub_snapshot(core), _gm(core)
    with pytest.raises(pto.PtoCheckError):
        pto.TLOAD(t, g)
    with pytest.raises(pto.PtoCheckError):
        pto.TSTORE(g, t)
    assert (ub_snapshot(core), _gm(core)) == before


def test_an_unassigned_tile_is_placed_automatically(core):
    """No TASSIGN: the tile gets its UB bytes from the core (ptogpu.placement) and loads."""
    g = gt(core, np.arange(32, dtype=np.float32), F32, (1, 1, 1, 4, 8), (32, 32, 32, 8, 1))
    t = pto.Tile[pto.TileType.Vec, F32, 4, 8]()
    pto.TLOAD(t, g)
    assert t.addr is not None and t.addr % 32 == 0
    assert t.numpy().reshape(-1).tolist() == list(range(32))


def test_tload_past_gm_faults_and_writes_nothing(core):
    """A tensor whose rows run past the GM arena: PtoFault, the tile unchanged."""
    g = gt(core, np.zeros(8, np.float32), F32, (1, 1, 1, 4, 8), (10**6, 10**6, 10**6, 10**5, 1))
    t = tile(F32, 4, 8, 0x100)
    before = ub_snapshot(core)
    with pytest.raises(pto.PtoFault):
        pto.TLOAD(t, g)
    assert ub_snapshot(core) == before


def test_tstore_past_gm_faults_and_writes_nothing(core):
    g = gt(core, np.zeros(8, np.float32), F32, (1, 1, 1, 4, 8), (32, 32, 32, -(2**40), 1))
    t = tile(F32, 4, 8, 0x100)
    before = _gm(core)
    with pytest.raises(pto.PtoFault):
        pto.TSTORE(g, t)
    assert _gm(core) == before


def test_zero_row_dim_faults_instead_of_dividing_by_zero(core):
    sh, st = pto.Shape[1, 1, 1, -1, 8], pto.Stride[64, 64, 64, 8, 1]
    g = pto.GlobalTensor[F32, sh, st](core.gm_put(np.zeros(64, np.float32)), sh(0))
    t = tile(F32, 4, 8, 0x100)
    with pytest.raises(pto.PtoFault):
        pto.TLOAD(t, g)


@pytest.mark.parametrize("valid", [(2**40, 2**40), (2**31, 8)])
def test_huge_dynamic_valid_region_faults(core, valid):
    g = gt(core, np.zeros(64, np.float32), F32, (1, 1, 1, 8, 8), (64, 64, 64, 8, 1))
    t = tile(F32, 8, 8, 0x100, vr=-1, vc=-1, valid=valid)
    with pytest.raises(pto.PtoFault):
        pto.TLOAD(t, g)


def test_mat_tile_loads_logical_region_into_nz_storage(core):
    """A Mat NZ tile loaded from an ND tensor holds (r, c) at its NZ offset."""
    mat = (np.arange(16 * 16) + 1).astype(np.float32).reshape(16, 16)
    g = gt(core, mat, F32, (1, 1, 1, 16, 16), (256, 256, 256, 16, 1))
    t = tile(F32, 16, 16, 0x0, bl=CM, sl=SRM, loc=M)
    pto.TLOAD(t, g)
    assert_bytes(t.raw(), mat.reshape(16, 2, 8).transpose(1, 0, 2).reshape(-1))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("delta", [-1000, -(1 << 40), 1 << 40])
def test_tload_tstore_with_a_gm_pointer_outside_gm_fault(target, delta):
    """A pointer moved below GM's start (or far past its end) is a PtoFault naming GM, not an
    OverflowError, and nothing is written."""
    import ptogpu as pto
    with pto.Core(target, "numpy") as core:
        p = core.gm_put(np.arange(64, dtype=np.float32))
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
        t = pto.Tile[pto.TileType.Vec, pto.float32, 1, 8]()
        pto.TASSIGN(t, 0)
        before = core.read("ub", 0, 32).tobytes(), core.read("gm", 0, 256).tobytes()
        with pytest.raises(pto.PtoFault, match="GM"):
            pto.TLOAD(t, G(p + delta))
        with pytest.raises(pto.PtoFault, match="GM"):
            pto.TSTORE(G(p + delta), t)
        assert (core.read("ub", 0, 32).tobytes(), core.read("gm", 0, 256).tobytes()) == before
