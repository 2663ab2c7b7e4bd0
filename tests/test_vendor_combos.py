"""The vendor's system tests of TEXPANDS on Mat (L1) tiles and of two kernels that chain two
element-wise instructions, ported to pytest.

Source: ``hw-native-sys/pto-isa`` (commit 3186c381), the directories

* ``tests/npu/a2a3/src/st/testcase/texpands_mat/``  (target ``a2a3``, cases 1-5 of 9)
* ``tests/npu/a5/src/st/testcase/texpands_mat/``    (target ``a5``, cases 1-5 of 9)
* ``tests/npu/a5/src/st/testcase/tmul_tadds/``      (target ``a5``: TMUL then TADDS, 4 cases)
* ``tests/npu/a5/src/st/testcase/tadd_tdiv/``       (target ``a5``: TADD then TDIV, 2 cases)

(``main.cpp`` lists the cases and the host compare, ``*_kernel.cpp`` holds the tile declarations,
the ``TASSIGN`` addresses and the calls, ``gen_data.py`` draws the inputs and the goldens).

One test per (target, vendor case), on the ``numpy`` backend. Each test declares the kernel's tiles
(same element types, shapes, valid shapes -- static or dynamic as the kernel has them --, layouts,
``TASSIGN`` addresses), makes the kernel's ``TLOAD`` / ``TSTORE`` calls on GM tensors of the
kernel's ``Shape`` / ``Stride``, and compares what the host compares (the whole GM output buffer)
with a golden computed here with NumPy by the ``gen_data.py`` formula (never by ptogpu). Inputs come
from a fixed per-case ``np.random.RandomState`` seed drawn as ``gen_data.py`` draws them
(``randint(1, 10)`` in the input dtype), not the vendor's random stream.

Comparison: exact bytes where the formula is exact (the fills; TMUL+TADDS, whose products and
sums of 1..9 are exact in every dtype). TADD+TDIV's float division (``vdiv``, its precision left to
the hardware) is compared as the vendor host does: ``ResultCmp`` with eps 0.001
(``tests/common/test_common.h:231``; ``tadd_tdiv/main.cpp:94``).

Harness details reproduced from the vendor kernels and hosts:

* TEXPANDS Mat: the tile is ``Tile<Mat, T, R, C, RowMajor, R, C[, NoneBox]>`` at L1 ``0x0`` and the
  fill is ``pto_create_cbuf_matrix`` over ``R*C*sizeof(T)/32`` blocks (the whole tile;
  ``a2a3/TExpandS.hpp:97-114``, ``a5/TExpandS.hpp:84-101``). A2/A3 then ``TSTORE``s the Mat tile
  (``texpands_mat_kernel.cpp:50-51``); A5's cube core copies the L1 bytes to UB ``0x0``
  (``copy_cbuf_to_ubuf``, ``blockLen = R*C*sizeof(T)/32``, once per vector core: the same bytes
  twice) where the vector core ``TSTORE``s ``Tile<Vec, T, R, C, RowMajor, R, C>``
  (``texpands_mat_kernel.cpp:19-55``); the raw copy is done here with ``core.read`` /
  ``core.write``. L1, UB and the GM output start as a 0xA5 filler (the vendor's L1 and UB and
  its ``aclrtMallocHost`` output buffer are uninitialised), so a missed byte shows (A5 case5's
  zero fill included).
* ``case5``: main.cpp says ``uint16_t``, gen_data.py ``bfloat16``. A2/A3's kernel swaps a
  ``uint16_t`` T for ``bfloat16_t`` with the literal 7 (``texpands_mat_kernel.cpp:83-84``), as the
  golden (bf16 7) expects; A5's swaps only a ``bfloat16_t`` T (``texpands_mat_kernel.cpp:122``),
  so it fills a uint16 tile with the launch's 0 (``:148``): the same bytes as the golden's bf16 0.
* TMUL+TADDS: the scalar is ``src2[0]``, the first element of ``input3.bin`` in the tile's type
  (``tmul_tadds_kernel.cpp:49``); the golden adds ``input3[0, 0]``.

Not ported:

* ``texpands_mat`` cases 6-9 on both targets: ``ConvTile<Mat, T, ..., Layout::NC1HWC0 /
  NDC1HWC0, ConvTileShape<...>>`` (``texpands_mat_kernel.cpp`` ``runTSetValue_ConvTile`` /
  ``runTexpands_ConvTile[_3d]``): ptogpu has no ConvTile and no NC1HWC0 / NDC1HWC0 layout.
* A5 ``tmov_ub2l1`` cases 7-9: the kernel calls ``TEXTRACT(matTile, tmpTile, IndexRows,
  IndexCols)`` (``tmov_ub2l1_kernel.cpp:83-84``, launched with nonzero indices at ``:142-147``),
  which ptogpu does not have. (Cases 1-6 are in ``test_vendor_compare_cvt_sort.py``.)

No case here is an xfail: ptogpu gives the vendor's bytes on every ported case.
"""
from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto
from vendor_common import assert_bytes, result_cmp

pytestmark = pytest.mark.usefixtures("fresh_stack")

V, M = pto.TileType.Vec, pto.TileType.Mat
RM = pto.BLayout.RowMajor
SEED = 20260822
FILLER = 0xA5

# dtype key -> (tile element type, numpy dtype, vendor name in case names)
DT = {"f32": (pto.float32, np.float32, "float"), "f16": (pto.half, np.float16, "half"),
      "bf16": (pto.bfloat16, ml_dtypes.bfloat16, "bf16"), "i8": (pto.int8, np.int8, "int8"),
      "i16": (pto.int16, np.int16, "int16"), "u16": (pto.uint16, np.uint16, "uint16"),
      "i32": (pto.int32, np.int32, "int32")}
FLOATS = ("f32", "f16", "bf16")


# --------------------------------------------------------------------------------------------
# helpers


def npd(key):
    return np.dtype(DT[key][1])


def rng(*key) -> np.random.RandomState:
    """A fixed stream per case (legacy RandomState: the draws gen_data.py's np.random.* make)."""
    return np.random.RandomState((SEED + sum(map(ord, "/".join(map(str, key))))) % (2 ** 32))


def params(cases):
    return [pytest.param(c, id=f"{c['target']}-{c['dir']}-{c['name']}") for c in cases]


def gm_out(core, key, n: int):
    """The host's output buffer: n elements, uninitialised (here: the filler byte)."""
    return core.gm_put(np.full(n * npd(key).itemsize, FILLER, np.uint8).view(npd(key)))


def scalar_of(key, v):
    return float(v) if key in FLOATS else int(v)


# ============================================================================================
# TEXPANDS on a Mat tile (texpands_mat): case, tile dtype, Rows, Cols, the kernel's fill value,
# gen_data.py's golden dtype and value

TEXPANDS_MAT = []
for _target, _cases in (
        ("a2a3", [("case1", "f16", 128, 128, 2, np.float16, 2), ("case2", "i16", 32, 64, 5, np.int16, 5),
                  ("case3", "f32", 32, 32, 3, np.float32, 3), ("case4", "i8", 32, 32, 1, np.int8, 1),
                  # TEXPANDS_KERNEL<uint16_t> runs runTExpandS_Tile<bfloat16_t>(out, 7)
                  ("case5", "bf16", 256, 256, 7, ml_dtypes.bfloat16, 7)]),
        ("a5", [("case1", "f16", 128, 128, 2, np.float16, 2), ("case2", "i16", 32, 64, 5, np.int16, 5),
                ("case3", "f32", 32, 32, 3, np.float32, 3), ("case4", "i8", 32, 32, 1, np.int8, 1),
                # TEXPANDS_KERNEL<uint16_t, ...>(out, 0): a uint16 tile filled with 0 (golden: bf16 0)
                ("case5", "u16", 256, 256, 0, ml_dtypes.bfloat16, 0)])):
    for _name, _k, _R, _C, _v, _gdt, _gv in _cases:
        TEXPANDS_MAT.append(dict(target=_target, dir="texpands_mat", name=_name, k=_k, R=_R, C=_C, value=_v,
                                 golden=np.full((_R, _C), _gv, dtype=_gdt)))


@pytest.mark.parametrize("c", params(TEXPANDS_MAT))
def test_texpands_mat(c):
    k, R, C = c["k"], c["R"], c["C"]
    el, nbytes = DT[k][0], R * C * npd(k).itemsize
    golden = c["golden"]
    assert golden.itemsize == npd(k).itemsize                     # the host compares bytes of T
    with pto.Core(c["target"], "numpy") as core:
        core.write("l1", 0x0, np.full(nbytes, FILLER, np.uint8))  # L1 and UB are uninitialised on the device
        core.write("ub", 0x0, np.full(nbytes, FILLER, np.uint8))
        G = pto.GlobalTensor[el, pto.Shape[1, 1, 1, R, C], pto.Stride[R * C, R * C, R * C, C, 1]]
        out = gm_out(core, k, R * C)
        g = G(out)
        if c["target"] == "a2a3":
            mat = pto.Tile[M, el, R, C, RM, R, C]()
        else:
            mat = pto.Tile[M, el, R, C, RM, R, C, pto.SLayout.NoneBox]()
        pto.TASSIGN(mat, 0x0)
        pto.TEXPANDS(mat, scalar_of(k, c["value"]))
        if c["target"] == "a2a3":
            pto.TSTORE(g, mat)                                     # texpands_mat_kernel.cpp:51
        else:
            vec = pto.Tile[V, el, R, C, RM, R, C]()
            pto.TASSIGN(vec, 0x0)
            block_len = R * C * npd(k).itemsize // 32              # copy_cbuf_to_ubuf, vector 0 and 1
            for _ in range(2):
                core.write("ub", 0x0, core.read("l1", 0x0, block_len * 32))
            pto.TSTORE(g, vec)                                     # texpands_mat_kernel.cpp:52
        got = core.read("gm", out.addr, nbytes)
    assert_bytes(got.view(golden.dtype), golden, f"{c['target']} texpands_mat {c['name']}")


# ============================================================================================
# Two instructions in one kernel (a5 tmul_tadds, tadd_tdiv): Tile<Vec, T, R, C, RowMajor, -1, -1>(vR, vC)
# at i * R*C*sizeof(T); GM Shape<1, 1, 1, vR, vC>, Stride<1, 1, 1, C, 1>; the host compares R*C elements.

COMBOS = []
for _k, _R, _C in (("f32", 64, 64), ("i32", 64, 64), ("i16", 64, 64), ("f16", 16, 256)):
    COMBOS.append(dict(target="a5", dir="tmul_tadds", name=f"case_{DT[_k][2]}_{_R}x{_C}_{_R}x{_C}", k=_k,
                       R=_R, C=_C, valid=(_R, _C), eps=None))     # exact: (1..9)*(1..9) + (1..9)
for _k, _R, _C in (("f32", 64, 64), ("f16", 16, 256)):
    COMBOS.append(dict(target="a5", dir="tadd_tdiv", name=f"case_{DT[_k][2]}_{_R}x{_C}_{_R}x{_C}", k=_k,
                       R=_R, C=_C, valid=(_R, _C), eps=0.001))    # vdiv: the host's ResultCmp(0.001)


def combo_golden(d, x, y, z, vr, vc):
    """gen_data.py: the formula over the whole array, zeros outside the valid region."""
    if d == "tmul_tadds":
        golden = np.multiply(x, y)
        golden = (golden + z[0, 0]).astype(x.dtype)               # golden[i, j] + input3[0, 0], in T
    else:
        golden = np.divide(x + y, z).astype(x.dtype)
    out = np.zeros_like(golden)
    out[:vr, :vc] = golden[:vr, :vc]
    return out


@pytest.mark.parametrize("c", params(COMBOS))
def test_combo(c):
    k, R, C = c["k"], c["R"], c["C"]
    vr, vc = c["valid"]
    el, dt = DT[k][0], npd(k)
    r = rng(c["target"], c["dir"], c["name"])
    x, y, z = (r.randint(1, 10, size=[R, C]).astype(dt) for _ in range(3))
    with np.errstate(all="ignore"):
        golden = combo_golden(c["dir"], x, y, z, vr, vc)
    n = R * C * dt.itemsize
    with pto.Core(c["target"], "numpy") as core:
        G = pto.GlobalTensor[el, pto.Shape[1, 1, 1, vr, vc], pto.Stride[1, 1, 1, C, 1]]
        T = pto.Tile[V, el, R, C, RM, -1, -1]
        out = gm_out(core, k, R * C)
        g0, g1, g2, gd = G(core.gm_put(x)), G(core.gm_put(y)), G(core.gm_put(z)), G(out)
        if c["dir"] == "tmul_tadds":                               # tmul_tadds_kernel.cpp:29-54
            s0, s1, tmp, dst = (T(vr, vc) for _ in range(4))
            for i, t in enumerate((s0, s1, tmp, dst)):
                pto.TASSIGN(t, i * n)
            pto.TLOAD(s0, g0)
            pto.TLOAD(s1, g1)
            pto.TMUL(tmp, s0, s1)
            pto.TADDS(dst, tmp, scalar_of(k, z[0, 0]))            # src2[0]: a T read from GM
        else:                                                      # tadd_tdiv_kernel.cpp:29-58
            s0, s1, s2, tmp, dst = (T(vr, vc) for _ in range(5))
            for i, t in enumerate((s0, s1, s2, tmp, dst)):
                pto.TASSIGN(t, i * n)
            pto.TLOAD(s0, g0)
            pto.TLOAD(s1, g1)
            pto.TLOAD(s2, g2)
            pto.TADD(tmp, s0, s1)
            pto.TDIV(dst, tmp, s2)
        pto.TSTORE(gd, dst)
        got = core.read("gm", out.addr, n).view(dt).reshape(R, C)
    what = f"{c['target']} {c['dir']} {c['name']}"
    if c["eps"] is None:
        assert_bytes(got, golden, what)
    else:
        result_cmp(golden, got, c["eps"], what)
