"""The Tile template: static checks, layouts and element offsets, dynamic valid dims
(mgather.md §1.2), and tile.numpy() / set() / raw()."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import CM, M, NB, RM, SCM, SRM, V, assert_bytes, new_core, sentinel, tile

F32 = pto.float32


@pytest.fixture
def core():
    c = new_core("a5")
    with c:
        yield c


# -- static checks (§1.2) ---------------------------------------------------------------------------
@pytest.mark.parametrize("params,rule", [
    ((V, F32, 0, 8), "Rows > 0"),
    ((V, F32, 8, 0), "Cols > 0"),
    ((V, F32, -1, 8), "Rows > 0"),
    ((V, F32, 8, 8, RM, 9, 8), "ValidRow <= Rows"),
    ((V, F32, 8, 8, RM, 8, 9), "ValidCol <= Cols"),
    ((V, F32, 8, 4), "32-byte rule"),                           # 4*4 = 16 bytes per row
    ((V, pto.half, 8, 24), "32-byte rule"),                     # 48 bytes
    ((V, pto.int32, 4, 1, CM), "32-byte rule"),                 # [R,1] ColMajor needs R % 8
    ((V, pto.int8, 16, 32, CM), "32-byte rule"),                # 16 rows of int8 = 16 bytes
    ((V, F32, 16, 12, CM, 16, 12, SRM), "Cols % InnerCols"),    # Nz box 16 x 8
    ((V, F32, 16, 8, RM, 16, 8, SRM, 1024), "Cols % InnerCols"),  # 1024: box 16 x 16
    ((V, F32, 16, 3, RM, 16, 3, SRM, 32), "Cols % InnerCols"),  # MX: box 16 x 2
    ((M, F32, 8, 16, CM, 8, 16, SRM), "Rows % InnerRows"),      # boxed non-Vec
    ((M, F32, 16, 16, RM, 16, 16, SCM), "Rows % InnerRows"),    # Zn box 8 x 16: 16 % 8 ok...
    ((V, F32, 16, 16, CM, 16, 16, SRM, 256), "SFractalSize"),
])
def test_static_checks_are_check_errors(params, rule):
    """§1.2: every static_assert of the Tile template is a PtoCheckError naming the rule."""
    if rule == "Rows % InnerRows" and params[7] == SCM:
        params = (M, F32, 12, 16, RM, 12, 16, SCM)              # 12 % 8 != 0
    with pytest.raises(pto.PtoCheckError) as ei:
        pto.Tile[params]
    assert rule in str(ei.value)


@pytest.mark.parametrize("params", [
    (V, F32, 8, 16, CM, 8, 16, SRM),          # boxed Vec tiles skip the Rows % InnerRows rule
    (V, pto.int32, 8, 1, CM),                 # [R,1] ColMajor with R % 8 == 0
    (V, pto.int32, 1, 8, RM, 1, 3),           # [1,R] RowMajor: Cols % 8, valid R may be smaller
    (V, F32, 8, 8, RM, 0, 0),                 # a static empty valid region
    (V, F32, 8, 8, RM, -1, -1),               # dynamic
    (M, F32, 16, 16, CM, 16, 16, SRM),        # the NZ Mat tile
    (V, pto.int64, 2, 4),                     # 4*8 = 32 bytes
    (V, pto.hifloat8, 1, 32),
])
def test_legal_tiles_are_accepted(params):
    T = pto.Tile[params]
    assert T.Rows == params[2] and T.Cols == params[3]


def test_template_defaults_and_derived_constants():
    """§1.2: BLayout RowMajor, valid = full, NoneBox, 512; RowStride/ColStride; Numel."""
    T = pto.Tile[V, F32, 4, 16]
    assert (T.BLayout, T.ValidRow, T.ValidCol, T.SLayout, T.SFractalSize) == (RM, 4, 16, NB, 512)
    assert (T.RowStride, T.ColStride, T.Numel, T.isRowMajor) == (16, 1, 64, True)
    C = pto.Tile[V, F32, 8, 4, CM]
    assert (C.RowStride, C.ColStride, C.isRowMajor) == (1, 8, False)


def test_wrong_template_arity_is_a_type_error():
    with pytest.raises(TypeError):
        pto.Tile[V, F32, 8]


# -- element offsets --------------------------------------------------------------------------------
def _image(mat, kind, ir, ic):
    """Storage image of logical ``mat`` built from the box order of each layout (§1.2)."""
    R, C = mat.shape
    b = mat.reshape(R // ir, ir, C // ic, ic)           # (sr, ir, sc, ic)
    order = {"Nz": (2, 0, 1, 3),                        # sc, sr, ir, ic
             "Zz": (0, 2, 1, 3),                        # sr, sc, ir, ic
             "Zn": (0, 2, 3, 1),                        # sr, sc, ic, ir
             "Nn": (2, 0, 3, 1)}[kind]                  # sc, sr, ic, ir
    return b.transpose(order).reshape(-1)


@pytest.mark.parametrize("kind,bl,sl,fs,box", [
    ("Nz", CM, SRM, 512, (16, 8)), ("Zz", RM, SRM, 512, (16, 8)),
    ("Zn", RM, SCM, 512, (8, 16)), ("Nn", CM, SCM, 512, (8, 16)),
    ("Zz", RM, SRM, 1024, (16, 16)), ("Nz", CM, SRM, 32, (16, 2)), ("Nn", CM, SCM, 32, (2, 16)),
])
def test_boxed_offsets_match_box_order(core, kind, bl, sl, fs, box):
    """§1.2 Nz/Zn/Zz/Nn: tile.set() places (r, c) where the box order says (f32: C0 = 8)."""
    R, C = 32, 32
    mat = (np.arange(R * C) + 1).astype(np.float32).reshape(R, C)
    t = tile(F32, R, C, 0x1000, bl=bl, sl=sl, fs=fs)
    t.set(mat)
    assert_bytes(t.raw(), _image(mat, kind, *box))
    assert_bytes(t.numpy(), mat)


def test_nz_offset_hand_computed():
    """§1.2: 512-B NZ half tile: (c//C0)*Rows*C0 + r*C0 + c%C0 with C0 = 16."""
    T = pto.Tile[V, pto.half, 16, 32, CM, 16, 32, SRM]
    assert int(T.offsets(1, 17)) == 1 * 16 * 16 + 1 * 16 + 1 == 273
    assert int(T.offsets(15, 15)) == 15 * 16 + 15
    Zn = pto.Tile[V, F32, 16, 32, RM, 16, 32, SCM]           # box 8 x 16
    # r = 9 -> sr 1, ir 1; c = 20 -> sc 1, ic 4: sr*Cols*8 + sc*128 + ic*8 + ir
    assert int(Zn.offsets(9, 20)) == 1 * 32 * 8 + 1 * 128 + 4 * 8 + 1


@pytest.mark.parametrize("bl", [RM, CM])
def test_nonebox_offsets(core, bl):
    """§1.2: RowMajor r*Cols + c; ColMajor c*Rows + r (padded extents)."""
    t = tile(pto.int16, 16, 32, 0x400, bl=bl, vr=3, vc=5)
    vals = (np.arange(15, dtype=np.int16) + 1).reshape(3, 5)
    t.set(vals)
    want = sentinel(16 * 32, np.int16)
    for r in range(3):
        for c in range(5):
            want[r * 32 + c if bl == RM else c * 16 + r] = vals[r, c]
    assert_bytes(t.raw(), want)


# -- dynamic valid dims ------------------------------------------------------------------------------
def test_dynamic_both_dims():
    T = pto.Tile[V, F32, 8, 16, RM, -1, -1]
    t = T(3, 5)
    assert (t.GetValidRow(), t.GetValidCol()) == (3, 5)
    t.SetValidRow(7)
    t.set_valid_col(16)
    assert (t.valid_row, t.valid_col) == (7, 16)


def test_dynamic_row_only_and_col_only():
    """§1.2: Tile(VR) when only the row is dynamic, Tile(VC) when only the column is."""
    assert pto.Tile[V, F32, 8, 16, RM, -1, 16](4).GetValidRow() == 4
    t = pto.Tile[V, F32, 8, 16, RM, 8, -1](9)
    assert (t.GetValidRow(), t.GetValidCol()) == (8, 9)


def test_static_dims_report_their_static_value():
    t = pto.Tile[V, F32, 8, 16, RM, 2, 3]()
    assert (t.GetValidRow(), t.GetValidCol()) == (2, 3)


@pytest.mark.parametrize("T,args", [
    (pto.Tile[V, F32, 8, 16, RM, 8, 16], (2, 3)),
    (pto.Tile[V, F32, 8, 16, RM, -1, 16], (2, 3)),
    (pto.Tile[V, F32, 8, 16, RM, -1, -1], (2,)),
    (pto.Tile[V, F32, 8, 16, RM, 8, 16], (2,)),
])
def test_constructor_forms_must_match_dynamic_dims(T, args):
    with pytest.raises(pto.PtoCheckError):
        T(*args)


def test_set_valid_on_static_dim_is_rejected():
    t = pto.Tile[V, F32, 8, 16, RM, -1, 16](4)
    t.set_valid_row(2)
    with pytest.raises(pto.PtoCheckError):
        t.set_valid_col(3)


def test_negative_runtime_valid_dim_is_rejected():
    T = pto.Tile[V, F32, 8, 16, RM, -1, -1]
    with pytest.raises(pto.PtoError):
        T(-2, 3)
    t = T(1, 1)
    with pytest.raises(pto.PtoError):
        t.set_valid_row(-1)


# -- numpy / set / raw -------------------------------------------------------------------------------
def test_set_writes_only_the_valid_region_and_numpy_reads_it(core):
    t = tile(F32, 4, 8, 0x200, vr=-1, vc=-1, valid=(2, 3))
    vals = np.array([[1.5, -0.0, np.inf], [np.nan, 2.0, -3.0]], np.float32)
    t.set(vals)
    got = t.numpy()
    assert got.shape == (2, 3) and got.dtype == np.float32
    assert_bytes(got, vals)
    want = sentinel(32, np.float32).reshape(4, 8)
    want[:2, :3] = vals
    assert_bytes(t.raw(), want.reshape(-1))


def test_set_with_wrong_shape_is_rejected(core):
    t = tile(F32, 4, 8, 0x200)
    with pytest.raises(ValueError):
        t.set(np.zeros((4, 7), np.float32))


def test_hifloat8_tiles_hold_codes(core):
    t = tile(pto.hifloat8, 2, 32, 0x200)
    codes = np.arange(64, dtype=np.uint8).reshape(2, 32) * 3
    t.set(codes)
    assert t.numpy().tobytes() == codes.tobytes() and t.raw().tobytes() == codes.tobytes()


def test_unassigned_tile_access_faults():
    t = pto.Tile[V, F32, 4, 8]()
    for call in (t.numpy, t.raw, lambda: t.set(np.zeros((4, 8), np.float32))):
        with pytest.raises(pto.PtoFault):
            call()


@pytest.mark.parametrize("valid", [(2**40, 2**40), (2**31, 8), (1, 2**36)])
def test_huge_runtime_valid_dims_fault_not_exhaust_memory(core, valid):
    t = tile(F32, 4, 8, 0x200, vr=-1, vc=-1, valid=valid)
    with pytest.raises(pto.PtoFault):
        t.numpy()
    with pytest.raises((pto.PtoFault, ValueError)):
        t.set(np.zeros((1, 1), np.float32))


def test_valid_region_past_the_end_of_ub_faults(core):
    """A runtime valid row beyond Rows reaching past the physical UB end: PtoFault."""
    t = tile(F32, 4, 8, 216 * 1024 - 128, vr=-1, vc=-1, valid=(2000, 8))
    with pytest.raises(pto.PtoFault):
        t.numpy()


def test_huge_static_tile_cannot_be_assigned(core):
    """A 2^40-row tile is a legal type but cannot fit in UB: TASSIGN faults."""
    T = pto.Tile[V, F32, 2**40, 8]
    with pytest.raises(pto.PtoFault):
        pto.TASSIGN(T(), 0)


def test_element_type_may_be_named():
    assert pto.Tile[V, "float32", 1, 8].Element == F32
    assert pto.Tile[V, "hifloat8", 1, 32].DType == "hifloat8"
    assert pto.DYNAMIC == -1


def test_an_empty_valid_region_of_a_huge_dim_reads_and_writes_nothing():
    import numpy as np

    import ptogpu as pto
    with pto.Core("a5", "numpy"):
        for vr, vc in ((2**40, 0), (0, 2**40)):
            t = pto.Tile[pto.TileType.Vec, pto.float32, 4, 8, pto.BLayout.RowMajor, pto.DYNAMIC, pto.DYNAMIC](vr, vc)
            pto.TASSIGN(t, 0)
            assert t.numpy().shape == (vr, vc) and t.element_addrs().size == 0
            t.set(np.zeros((vr, vc), np.float32))


def test_a_tile_reads_like_its_valid_region(core):
    """shape, dtype, size, ndim, len, indexing, slicing and iteration are the valid region's
    (as numpy() returns it); [] assignment is refused (set() writes); a tile is truthy."""
    t = tile(F32, 4, 8, 0x200, vr=-1, vc=-1, valid=(3, 5))
    vals = np.arange(15, dtype=np.float32).reshape(3, 5) - 7.5
    t.set(vals)
    assert t.shape == (3, 5) and t.dtype == np.float32 and t.size == 15 and t.ndim == 2 and len(t) == 3
    assert t[1, 2] == vals[1, 2] and t[-1, -1] == vals[-1, -1]
    assert_bytes(t[1:, ::2], vals[1:, ::2])
    assert [r.tolist() for r in t] == vals.tolist()
    with pytest.raises(IndexError):
        t[3, 0]                                   # row 3 is padding, not valid
    with pytest.raises(TypeError, match="read-only"):
        t[0, 0] = 1.0
    t.set_valid_row(0)
    assert t.shape == (0, 5) and len(t) == 0 and bool(t)
    h = tile(pto.bfloat16, 2, 16, 0x400)
    assert h.dtype == np.dtype(pto.bfloat16) and h.shape == (2, 16)
