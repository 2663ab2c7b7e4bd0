"""Shape, Stride and GlobalTensor: 5-D static/dynamic dims and ND/DN/NZ addressing (mgather.md §1.3)."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from conftest import new_core

L = pto.Layout


@pytest.fixture
def core():
    c = new_core("a5")
    with c:
        yield c


# -- Shape / Stride ------------------------------------------------------------------------------
def test_shape_with_fewer_dims_is_padded_with_leading_ones():
    assert pto.Shape[64, 32]().values == (1, 1, 1, 64, 32)
    assert pto.Shape[5]().values == (1, 1, 1, 1, 5)


def test_stride_needs_all_five_entries():
    with pytest.raises(TypeError):
        pto.Stride[32, 1]


def test_dynamic_dims_are_filled_in_dim_order():
    """§1.3: dynamic entries take the constructor arguments in dim order."""
    sh = pto.Shape[1, -1, 4, -1, -1]
    assert sh(2, 3, 5).values == (1, 2, 4, 3, 5)
    st = pto.Stride[-1, 9, -1, -1, 1]
    assert st(100, 10, 2).values == (100, 9, 10, 2, 1)


def test_default_constructed_dynamic_dims_are_one():
    """§1.3: default-constructed dynamic dims are 1."""
    assert pto.Shape[-1, -1, -1, 16, -1]().values == (1, 1, 1, 16, 1)
    assert pto.Shape[-1, -1, -1, 16, -1](7).values == (7, 1, 1, 16, 1)


def test_too_many_dynamic_values_is_an_error():
    with pytest.raises(TypeError):
        pto.Shape[1, 1, 1, -1, 8](3, 4)


def test_full_form_must_agree_with_static_dims():
    with pytest.raises(pto.PtoCheckError):
        pto.Shape[1, 1, 1, 16, -1](1, 1, 1, 15, 8)
    assert pto.Shape[1, 1, 1, 16, -1](1, 1, 1, 16, 8).values == (1, 1, 1, 16, 8)


# -- GlobalTensor ----------------------------------------------------------------------------------
def test_global_tensor_static_accessors(core):
    T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 2, 3, 4], pto.Stride[24, 24, 12, 4, 1]]
    g = T(core.gm_put(np.zeros(24, np.float32)))
    assert [g.GetShape(k) for k in range(5)] == [1, 1, 2, 3, 4]
    assert [g.GetStride(k) for k in range(5)] == [24, 24, 12, 4, 1]
    assert g.layout == L.ND and T.staticShape == (1, 1, 2, 3, 4)


def test_omitted_stride_is_packed_row_major(core):
    T = pto.GlobalTensor[pto.int16, pto.Shape[2, 1, 3, 4, 5]]
    g = T(core.gm_put(np.zeros(120, np.int16)))
    assert g.stride.values == (60, 60, 20, 5, 1)


def test_dynamic_global_tensor_takes_runtime_shape_and_stride(core):
    sh, st = pto.Shape[1, 1, 1, -1, -1], pto.Stride[1, 1, 1, -1, 1]
    T = pto.GlobalTensor[pto.float32, sh, st]
    g = T(core.gm_put(np.zeros(64, np.float32)), sh(4, 8), st(16))
    assert [g.GetShape(k) for k in (3, 4)] == [4, 8] and g.GetStride(3) == 16


def test_global_tensor_rejects_mismatching_static_values(core):
    T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 4, 8], pto.Stride[32, 32, 32, 8, 1]]
    with pytest.raises(pto.PtoCheckError):
        T(core.gm_put(np.zeros(32, np.float32)), pto.Shape[1, 1, 1, -1, 8](5))


def test_global_tensor_pointer_type_must_match(core):
    """GlobalTensor<T>::DType is __gm__ T: an int32* cannot back a float tensor."""
    T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 4, 8], pto.Stride[32, 32, 32, 8, 1]]
    with pytest.raises(pto.PtoCheckError):
        T(core.gm_put(np.zeros(32, np.int32)))
    with pytest.raises(pto.PtoCheckError):
        T(core.ub_ptr(0, pto.float32))                 # not a GM pointer


def test_tassign_global_tensor_replaces_base_pointer(core):
    """§1.4: TASSIGN(globalTensor, ptr) replaces the GM base pointer (element type must match)."""
    T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 8], pto.Stride[8, 8, 8, 8, 1]]
    a = core.gm_put(np.zeros(8, np.float32))
    b = core.gm_put(np.ones(8, np.float32))
    g = T(a)
    pto.TASSIGN(g, b)
    assert g.data().addr == b.addr
    with pytest.raises(pto.PtoCheckError):
        pto.TASSIGN(g, core.gm_put(np.ones(8, np.int32)))


# -- addressing (§1.3) -----------------------------------------------------------------------------
def _gt(core, layout, shape, stride):
    sh, st = pto.Shape[(-1,) * 5], pto.Stride[(-1,) * 5]
    T = pto.GlobalTensor[pto.float32, sh, st, layout]
    return T(core.gm_put(np.zeros(4, np.float32)), sh(*shape), st(*stride))


def test_nd_offsets_decompose_rows_row_major(core):
    """§1.3 ND: i4 = c; i3 = r % S3, i2 = (r/S3) % S2, i1 = (r/(S3*S2)) % S1, i0 = r/(S1*S2*S3)."""
    g = _gt(core, L.ND, (2, 3, 2, 4, 5), (100000, 10000, 1000, 10, 1))
    # r = 1*24 + 2*8 + 1*4 + 3 = 47 -> (i0, i1, i2, i3) = (1, 2, 1, 3); c = 4
    assert int(g.offsets(47, 4)) == 100000 + 20000 + 1000 + 30 + 4
    assert int(g.offsets(0, 0)) == 0 and int(g.offsets(5, 2)) == 1000 + 10 + 2


def test_canonical_2d_nd_and_dn(core):
    """§1.3: canonical ND Stride(RC,RC,RC,C,1) is r*C + c; DN Stride(RC,RC,RC,1,R) is c*R + r."""
    R, C = 6, 10
    nd = _gt(core, L.ND, (1, 1, 1, R, C), (R * C, R * C, R * C, C, 1))
    dn = _gt(core, L.DN, (1, 1, 1, R, C), (R * C, R * C, R * C, 1, R))
    r, c = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    np.testing.assert_array_equal(nd.offsets(r, c), r * C + c)
    np.testing.assert_array_equal(dn.offsets(r, c), c * R + r)


def test_dn_offsets_decompose_columns(core):
    """§1.3 DN: i3 = r; c decomposed into (i4, i2, i1, i0), i4 = c % S4 fastest."""
    g = _gt(core, L.DN, (2, 2, 3, 7, 4), (100000, 10000, 1000, 1, 10))
    # c = 1*24 + 1*12 + 2*4 + 3 = 47 -> i4 = 3, i2 = 2, i1 = 1, i0 = 1; r = 5
    assert int(g.offsets(5, 47)) == 100000 + 10000 + 2000 + 5 + 30


def test_nz_offsets_match_an_independently_built_nz_image(core):
    """§1.3 NZ canonical Shape(1, C/C0, R/16, 16, C0), Stride(C*R, R*C0, 16*C0, C0, 1)."""
    R, C, C0 = 32, 24, 8
    g = _gt(core, L.NZ, (1, C // C0, R // 16, 16, C0), (C * R, R * C0, 16 * C0, C0, 1))
    mat = np.arange(R * C).reshape(R, C)
    image = mat.reshape(R, C // C0, C0).transpose(1, 0, 2).reshape(-1)   # column blocks
    r, c = np.meshgrid(np.arange(R), np.arange(C), indexing="ij")
    np.testing.assert_array_equal(image[g.offsets(r, c)], mat)


def test_nz_offsets_split_column_blocks_over_dims_0_and_1(core):
    """§1.3 NZ: i0 = (c/S4)/S1, i1 = (c/S4)%S1."""
    g = _gt(core, L.NZ, (3, 2, 2, 16, 8), (100000, 10000, 1000, 10, 1))
    # c = 5*8 + 6 -> block 5 -> i0 = 2, i1 = 1; r = 21 -> i2 = 1, i3 = 5
    assert int(g.offsets(21, 46)) == 200000 + 10000 + 1000 + 50 + 6


@pytest.mark.parametrize("layout,shape", [(L.ND, (1, 1, 1, 0, 8)), (L.ND, (1, 0, 1, 4, 8)),
                                          (L.DN, (1, 1, 1, 4, 0)), (L.NZ, (1, 0, 1, 16, 8)),
                                          (L.NZ, (1, 1, 1, 16, 0)), (L.ND, (1, 1, -3, 4, 8))])
def test_zero_or_negative_divisor_dims_fault(core, layout, shape):
    """A dim the layout divides by must be positive: PtoFault, not a NumPy divide warning."""
    g = _gt(core, layout, shape, (64, 64, 64, 8, 1))
    with pytest.raises(pto.PtoFault):
        g.offsets(np.arange(3), np.arange(3))
    assert g.offsets(np.zeros(0, np.int64), np.zeros(0, np.int64)).size == 0


@pytest.mark.parametrize("big", [2**40, 2**62, 2**63 - 1, 2**64 + 7, -2**40])
def test_huge_strides_wrap_as_64_bit_addresses(core, big):
    """Huge strides are 64-bit address arithmetic (mod 2^64), never an OverflowError."""
    g = _gt(core, L.ND, (1, 1, 1, 4, 8), (1, 1, 1, big, 1))
    got = g.offsets(np.array([0, 1, 3]), np.array([0, 0, 5]))
    want = [(r * big + c) % 2**64 for r, c in ((0, 0), (1, 0), (3, 5))]
    assert [int(x) % 2**64 for x in got] == want


@pytest.mark.parametrize("big", [2**40, 2**63 - 1, 2**64 + 7])
def test_huge_shapes_address_like_unbounded_dims(core, big):
    g = _gt(core, L.ND, (big, big, big, big, 8), (0, 0, 0, 8, 1))
    np.testing.assert_array_equal(g.offsets(np.array([0, 5, 1000]), np.array([1, 2, 3])),
                                  [1, 42, 8003])


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_extreme_dynamic_shape_and_stride_values_give_pto_errors_not_tracebacks(target):
    """Every dim of Shape and Stride at -2^63, -1, 0, 2^31, 2^63-1, 2^64, 2^70, through TLOAD,
    TSTORE and MGATHER: the target's answer or a PtoError, never another exception."""
    import itertools

    import numpy as np
    import ptogpu as pto
    values = [-2**63, -1, 0, 2**31, 2**63 - 1, 2**64, 2**70]
    with pto.Core(target, "numpy") as core:
        p = core.gm_put(np.arange(4096, dtype=np.float32))
        tl = pto.Tile[pto.TileType.Vec, pto.float32, 8, 8]()
        pto.TASSIGN(tl, 0)
        idx = pto.Tile[pto.TileType.Vec, pto.int32, 8, 8]()
        pto.TASSIGN(idx, 0x1000)
        idx.set(np.arange(64, dtype=np.int32).reshape(8, 8))
        for k, v, kind in itertools.product(range(5), values, ("shape", "stride")):
            sh, st = [1, 1, 1, 8, 8], [64, 64, 64, 8, 1]
            dims = [d if i != k else -1 for i, d in enumerate(sh if kind == "shape" else st)]
            try:
                if kind == "shape":
                    G = pto.GlobalTensor[pto.float32, pto.Shape[tuple(dims)], pto.Stride[tuple(st)]]
                    g = G(p, pto.Shape[tuple(dims)](v))
                else:
                    G = pto.GlobalTensor[pto.float32, pto.Shape[tuple(sh)], pto.Stride[tuple(dims)]]
                    g = G(p, None, pto.Stride[tuple(dims)](v))
            except pto.PtoError:
                continue
            for op in (lambda: pto.TLOAD(tl, g), lambda: pto.TSTORE(g, tl),
                       lambda: pto.MGATHER[pto.Coalesce.Elem, pto.GatherOOB.Wrap](tl, g, idx)):
                try:
                    op()
                except pto.PtoError:
                    pass
