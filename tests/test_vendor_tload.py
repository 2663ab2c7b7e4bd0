"""The vendor's own system tests of TLOAD, ported to pytest.

Source: ``hw-native-sys/pto-isa`` (commit 3186c381):

* ``tests/cpu/st/testcase/tload/``              (target ``cpu``: 19 cases)
* ``tests/npu/a2a3/src/st/testcase/tload/``     (target ``a2a3``: 12 cases)
* ``tests/npu/a5/src/st/testcase/tload/``       (target ``a5``: the same 12 cases, the same kernel)
* ``tests/npu/a5/src/st/testcase/tload_shape2d/`` (target ``a5``: 16 cases, L1 ``Mat`` tiles)
* ``tests/npu/a5/src/st/testcase/tload_mix/``   (target ``a5``: its 11 ND2ND / DN2DN / DN2ZN cases)

(``main.cpp`` lists the cases and the block counts, ``tload_kernel.cpp`` holds the kernels and, for
``tload``, ``get_input_golden``: the C++ that writes the input -- element k holds ``(T)k`` -- and the
golden; ``tload/gen_data.py`` does nothing. The ``gen_data.py`` of ``tload_shape2d`` and
``tload_mix`` draw ``randint(1, 5)`` inputs and build the goldens.)

One test per (target, vendor case), on the ``numpy`` backend. Each test declares its tiles and
GlobalTensors as the vendor kernel does (element type, Rows x Cols, layouts, static or dynamic valid
dims and shapes, ``PadVal``, ``TASSIGN`` address 0), makes the kernel's calls and compares, byte for
byte, the bytes the vendor host compares, against a golden computed here with NumPy by the vendor's
formula (never by ptogpu):

* cpu: the kernel copies the whole tile to GM (``out[i] = vecTile.data()[i]``) and the host compares
  ``sizeof(gold_arr)`` bytes of that memset-0 buffer: the tile's first bytes, then zeros (the golden
  arrays are declared with ``out_byteSize`` *elements*, so the compared size is often larger than the
  golden data, and for the NZ cases larger than the data but smaller than the tile). The NZ cases'
  input covers only ``out_byteSize`` bytes of the tensor; the rest of the 4 MiB host buffer is taken
  as zeros (a fresh allocation), which the golden's zero tail needs.
* a2a3 / a5 ``tload``: each of the kernel's ``block_num`` blocks TLOADs ``shape3 / block_num`` rows
  of every ``shape0*shape1*shape2`` slab at ``src + block_idx * (shape3 / block_num) * shape4`` and
  TSTOREs them (a ``Tile<..., -1, kTCols>`` at the same UB address, fillers included) to a GM of
  ``shape4`` rounded up to 32 bytes (``tload_kernel.cpp:144-175``); the blocks run one after another
  on one core here (each block's TLOAD rewrites every UB byte its TSTORE reads). Compared: the whole
  output, the input with each row's 32-byte filler holding the pad value.
* a5 ``tload_shape2d`` / ``tload_mix``: TLOAD into an L1 ``Mat`` tile (NZ, ZN, ND or DN),
  ``copy_cbuf_to_ubuf`` of the whole tile to UB (a raw byte copy here) and TSTORE of a dense Vec
  tile; compared: all ``BASEM * BASEK`` elements. The NZ / ZN kernels zero the tile's L1 first
  (``create_cbuf_matrix``); the ND2ND / DN2DN kernels do not, so L1 starts here with a fixed filler
  (the device's L1 holds what earlier work left): the zeros the golden wants past the valid columns
  (rows) must come from TLOAD. Inputs: ``randint(1, 5)`` from a fixed ``RandomState`` per case (not
  the vendor's seed-19 stream); the ``uint16_t`` cases hold float16 bits as gen_data.py writes them.
  The vendor's ``ResultCmp(..., 0.001)`` over these small integers is an exact comparison.

cpu float4 cases: ``static_cast<float4_*x2_t>(k)`` is ``MXType(double)`` (``cpu/MXTypes.hpp:27-66``),
its low nibble stored by ``SetProperDataPart`` (element 2m in the low nibble of byte m); the pad
nibble is ``numeric_limits<float4_*x2_t>::max()``, raw 0x7 (``MXTypes.hpp:208-255``).

Not ported, of ``tload_mix`` (76 cases): the 12 ND2NZ / DN2NZ / NZ2NZ cases (their kernels call
``TFILLPAD`` on the L1 tile before the TLOAD, ``tload_mix_kernel.cpp:87, 125, 239``: ptogpu has no
TFILLPAD); the 48 ConvTile cases (``NC1HWC0``, ``FRACTAL_Z``, ``NHWC``, ``NCHW``, ``NCDHW`` layouts and
ConvTile, none of which ptogpu has); the 5 float4 cases (``TLOADMIXFUNCB4``: float4 into L1 tiles;
ptogpu moves 4-bit tiles ND -> RowMajor Vec only on a5, a PtoCheckError otherwise).

Cases where ptogpu disagrees with the vendor's C++ would be strict xfails, each with its reason: none
is left (the cpu DN-over-RowMajor loads and A5's L1 cube bursts were, until modelled).
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import ptogpu as pto
from vendor_common import assert_same_bytes
from ptogpu.errors import PtoCheckError

V, M = pto.TileType.Vec, pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
NB, SR, SC = pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
ND, DN, NZ = pto.Layout.ND, pto.Layout.DN, pto.Layout.NZ
PAD = {"Null": pto.PadValue.Null, "Zero": pto.PadValue.Zero, "Max": pto.PadValue.Max, "Min": pto.PadValue.Min}
SEED = 20261215
FILL = 0xCD                      # L1 bytes no instruction of the kernel writes before its TLOAD
pytestmark = pytest.mark.usefixtures("fresh_stack")

# vendor type name -> (ptogpu element type, numpy dtype of the elements; None: packed float4)
T = {"float": (pto.float32, np.float32), "int8": (pto.int8, np.int8), "uint8": (pto.uint8, np.uint8),
     "int16": (pto.int16, np.int16), "uint16": (pto.uint16, np.uint16), "int64": (pto.int64, np.int64),
     "uint64": (pto.uint64, np.uint64), "e2m1": (pto.float4_e2m1x2, None), "e1m2": (pto.float4_e1m2x2, None)}
FP4 = {"e2m1": (2, 1, 1), "e1m2": (1, 2, 1)}       # (exponent bits, mantissa bits, bias): MXTypes.hpp:144-152


def size(t) -> int:
    """sizeof(T) (a float4 pair type: 1 byte)."""
    return 1 if t in FP4 else np.dtype(T[t][1]).itemsize


def align32(n: int, t) -> int:
    """align_to_32B(x, T): n rounded up to a multiple of 32 / sizeof(T) elements."""
    k = 32 // size(t)
    return -(-n // k) * k


def mx_raw(values: np.ndarray, t) -> np.ndarray:
    """``MXType(double(v)).RawData() & 0xF`` (cpu/MXTypes.hpp:27-66) for integers v >= 0: exponent
    field (e + bias) and the top mantissa bits, both cut to their widths; 0 stays 0."""
    e, m, bias = FP4[t]
    bits = np.asarray(values, np.float64).view(np.int64)
    exp, man = (bits >> 52) & 0x7FF, bits & ((1 << 52) - 1)
    raw = (((exp + bias - 1023) & ((1 << e) - 1)) << m) | ((man >> (52 - m)) & ((1 << m) - 1))
    return np.where(np.asarray(values) == 0, 0, raw & 0xF).astype(np.uint8)


def pack(codes: np.ndarray) -> np.ndarray:
    """SetProperDataPart: element 2m in the low nibble of byte m, 2m+1 in the high one."""
    c = np.asarray(codes, np.uint8).reshape(-1)
    return (c[0::2] | (c[1::2] << 4)).astype(np.uint8)


def as_t(k: np.ndarray, t) -> np.ndarray:
    """``static_cast<T>(k)`` elements (integers wrap; float32 exact here); float4: raw nibble codes."""
    return mx_raw(k, t) if t in FP4 else np.asarray(k).astype(T[t][1])


def pad_elem(t, pad):
    """get_input_golden's pad element: +-infinity where numeric_limits<T>::has_infinity, else its
    max() / min(); 0 for Null and Zero."""
    if pad in ("Null", "Zero"):
        return 0
    if t == "float":
        return np.inf if pad == "Max" else -np.inf
    if t in FP4:
        return 0x7 if pad == "Max" else 0x1
    info = np.iinfo(T[t][1])
    return info.max if pad == "Max" else info.min


def raw(a: np.ndarray, t) -> np.ndarray:
    """The bytes of an element array (float4: nibble codes packed two a byte)."""
    return pack(a) if t in FP4 else np.ascontiguousarray(a).view(np.uint8).reshape(-1)


def gt(et, ptr, shape, stride, layout=ND, dyn=False):
    if not dyn:
        return pto.GlobalTensor[et, pto.Shape[tuple(shape)], pto.Stride[tuple(stride)], layout](ptr)
    sh, st = pto.Shape[(-1,) * 5], pto.Stride[(-1,) * 5]
    return pto.GlobalTensor[et, sh, st, layout](ptr, sh(*shape), st(*stride))


def put(core, elems: np.ndarray, t):
    """GM holding the elements (float4: their packed bytes, as a typed pointer)."""
    if t in FP4:
        return core.gm_put(pack(elems)).cast(T[t][0])
    return core.gm_put(np.ascontiguousarray(elems).reshape(-1))


def params(target, cases, xfails, at=1):
    """pytest params, one per (target, vendor case), the case's name at ``c[at]``; ``xfails``:
    {case name: (reason, exception)}."""
    out = []
    for c in cases:
        x = xfails.get(c[at])
        marks = [pytest.mark.xfail(strict=True, raises=x[1], reason=x[0])] if x else []
        out.append(pytest.param(c, id=f"{target}-{c[at]}", marks=marks))
    return out


# ============================================================================================
# cpu (tests/cpu/st/testcase/tload): (key, name, kernel, T, (Shape0..Shape4), kTRows, kTCols, dyn, PadVal)
# -- the golden's template arguments, which are also the kernel's and the launch's, but for key 10,
# whose kernel says Shape4 = 60 where its golden and launch say 64 (runTLOADDN does not read it)

CPU = [
    (1, "case_float_GT_128_128_VT_128_128_BLK1", "ND", "float", (1, 1, 1, 128, 128), 128, 128, 1, "Null"),
    (2, "case_float_GT_2_2_2_256_64_VT_256_64_BLK8", "ND", "float", (2, 2, 2, 256, 64), 256, 64, 1, "Null"),
    (3, "case_float_GT_128_127_VT_128_128_BLK1_PADMAX", "ND", "float", (1, 1, 1, 128, 127), 128, 128, 1, "Max"),
    (4, "case_s16_GT_128_127_VT_128_128_BLK1_PADMAX", "ND", "int16", (1, 1, 1, 128, 127), 128, 128, 1, "Max"),
    (5, "case_u8_GT_128_127_VT_128_128_BLK1_PADMIN", "ND", "uint8", (1, 1, 1, 128, 127), 128, 128, 1, "Min"),
    (6, "case_float_GT_32_64_128_VT_64_128_BLK32_DYN", "ND", "int16", (1, 1, 32, 64, 128), 64, 128, 1, "Null"),
    (7, "case_float_GT_32_64_128_VT_64_128_BLK32_STC", "ND", "int16", (1, 1, 32, 64, 128), 64, 128, 0, "Null"),
    (8, "case_float_GT_2_2_2_256_60_VT_256_64_BLK8_PADMAX", "ND", "float", (2, 2, 2, 256, 60), 256, 64, 1, "Max"),
    (9, "case_float_GT_32_64_128_VT_64_128_BLK32_DN", "DN", "float", (1, 1, 32, 64, 128), 64, 128, 1, "Null"),
    (10, "case_float_GT_2_2_2_255_60_VT_256_64_BLK8_DN", "DN", "float", (2, 2, 2, 255, 64), 256, 64, 1, "Null"),
    (11, "case_NZ_float_1_1_1_16_8_1_1_2_16_8", "NZ", "float", (1, 1, 1, 16, 8), 16, 8, 1, "Null"),
    (12, "case_NZ_int16_t_2_2_2_16_16_5_3_3_16_16", "NZ", "int16", (2, 2, 2, 16, 16), 16, 16, 1, "Null"),
    (13, "case_NZ_int8_t_1_2_1_16_32_2_4_2_16_32", "NZ", "uint8", (1, 2, 1, 16, 32), 16, 32, 1, "Null"),
    (14, "case_float4_e2m1x2_GT_128_128_VT_128_128_BLK1", "ND", "e2m1", (1, 1, 1, 128, 128), 128, 128, 1, "Null"),
    (15, "case_float4_e2m1x2_GT_2_2_2_256_64_VT_256_64_BLK8", "ND", "e2m1", (2, 2, 2, 256, 64), 256, 64, 1, "Null"),
    (16, "case_float4_e2m1x2_GT_128_127_VT_128_128_BLK1_PADMAX", "ND", "e2m1", (1, 1, 1, 128, 127), 128, 128, 1,
     "Max"),
    (17, "case_float4_e1m2x2_GT_128_128_VT_128_128_BLK1", "ND", "e1m2", (1, 1, 1, 128, 128), 128, 128, 1, "Null"),
    (18, "case_float4_e1m2x2_GT_2_2_2_256_64_VT_256_64_BLK8", "ND", "e1m2", (2, 2, 2, 256, 64), 256, 64, 1, "Null"),
    (19, "case_float4_e1m2x2_GT_128_127_VT_128_128_BLK1_PADMAX", "ND", "e1m2", (1, 1, 1, 128, 127), 128, 128, 1,
     "Max"),
]

CPU_XFAIL: dict = {}
"""(The simulator's dynamic kernels load a Layout::DN GlobalTensor into a RowMajor tile,
tload_kernel.cpp:69, 147: accepted -- cpu/TLoad.hpp:71-80 checks only the shapes -- and addressed
by the DN rule, tile_offsets.hpp:187-192; ptogpu's target.vec_layouts_pair is False for cpu.)"""


def cpu_golden_nd(t, S, pad):
    """get_input_golden_case (tload_kernel.cpp:408-461): sh3 = Shape3 / (Shape0*1*2) rows a slab;
    element k = (T)k; golden rows of align_to_32B(Shape4) with the pad element past Shape4.
    Returns (input elements, golden bytes of sizeof(gold_arr) = out_byteSize * sizeof(T))."""
    x = S[0] * S[1] * S[2]
    rows, cols, a = x * (S[3] // x), S[4], align32(S[4], t)
    k = np.arange(rows * cols).reshape(rows, cols)
    if t in FP4:
        grid = np.full((rows, a), pad_elem(t, pad), np.uint8)
    else:
        grid = np.full((rows, a), pad_elem(t, pad), T[t][1])
    grid[:, :cols] = as_t(k, t)
    gold = raw(grid, t)
    golden = np.zeros(gold.size * size(t), np.uint8)
    golden[:gold.size] = gold
    return as_t(k, t), golden


def cpu_golden_dn(t, S, pad):
    """get_input_golden_case_DN (tload_kernel.cpp:463-510): in[x][i][j] = k (Shape3 x sh4 a slab),
    gold[x][j][i] over align_to_32B(Shape3) rows with the pad element past Shape3: a ColMajor tile."""
    x = S[0] * S[1] * S[2]
    sh4, a = S[4] // x, align32(S[3], t)
    k = np.arange(x * S[3] * sh4).reshape(x, S[3], sh4)
    gold = np.full((x, sh4, a), pad_elem(t, pad), T[t][1])
    gold[:, :, :S[3]] = as_t(k, t).transpose(0, 2, 1)
    return as_t(k, t), raw(gold, t)


@pytest.mark.parametrize("case", params("cpu", CPU, CPU_XFAIL))
def test_tload_cpu(case):
    key, name, kind, t, S, TR, TC, dyn, pad = case
    et = T[t][0]
    x = S[0] * S[1] * S[2]
    if kind == "ND":             # runTLOADND (tload_kernel.cpp:139-161): Tile(kTRows, gCols)
        inp, golden = cpu_golden_nd(t, S, pad)
        r = TR // x              # kGTRows; getGlobalTensor (56-97): strides of the (kGTRows, Shape4) slabs
        shape, stride = (S[0], S[1], S[2], r, S[4]), (S[1] * S[2] * r * S[4], S[2] * r * S[4], r * S[4], S[4], 1)
        tile_t, valid = pto.Tile[V, et, TR, TC, RM, -1, -1, NB, 512, PAD[pad]], (TR, S[4])
        layouts = [ND, DN] if dyn else [ND]          # dyn: the vendor's Layout::DN, after the ND twin
        gm = inp
    elif kind == "DN":           # runTLOADDN (163-184): ColMajor Tile(gRows, gCols)
        inp, golden = cpu_golden_dn(t, S, pad)
        c = TC // x              # kGTCols
        shape, stride = (S[0], S[1], S[2], S[3], c), (S[1] * S[2] * S[3] * c, S[2] * S[3] * c, S[3] * c, c, 1)
        tile_t, valid = pto.Tile[V, et, TR, TC, CM, -1, -1, NB, 512, PAD[pad]], (S[3], S[4])
        layouts, gm = [DN], inp
    else:                        # runTLOADNZ (186-210): Nz Tile(Shape2*Shape3, Shape0*Shape1*Shape4)
        inp, golden = cpu_golden_nd(t, S, pad)
        c0 = 32 // size(t)       # getGlobalTensorNZ (99-134): (Shape0, Shape1, Shape2, 16, C0) fractals
        shape = (S[0], S[1], S[2], 16, c0)
        stride = (S[1] * S[2] * 16 * c0, S[2] * 16 * c0, 16 * c0, c0, 1)
        rows, cols = S[2] * S[3], S[0] * S[1] * S[4]
        tile_t, valid = pto.Tile[V, et, rows, align32(cols, t), CM, -1, -1, SR, 512], (rows, cols)
        gm = np.zeros(int(np.prod(shape)), inp.dtype)
        gm[:inp.size] = inp.reshape(-1)          # the host buffer past the input: zeros
        layouts = [NZ]
    for lay in layouts:
        with pto.Core("cpu", "numpy") as core:
            g = gt(et, put(core, gm, t), shape, stride, lay, bool(dyn))
            tile = tile_t(*valid)
            pto.TASSIGN(tile, 0)
            pto.TLOAD(tile, g)
            n = min(tile.nbytes, golden.size)    # out[i] = vecTile.data()[i] into a memset-0 buffer
            got = np.zeros(golden.size, np.uint8)
            got[:n] = core.read("ub", 0, n)
        assert_same_bytes(got, golden, f"cpu {name} ({lay.name} tensor)")


# ============================================================================================
# a2a3 and a5 (tests/npu/{a2a3,a5}/src/st/testcase/tload, one kernel):
# (key, name, T, (shape0..shape4), kTRows, kTCols, dyn, PadVal, block_num)

NPU = [
    (1, "case_float_GT_128_128_VT_128_128_BLK1", "float", (1, 1, 1, 128, 128), 128, 128, 1, "Null", 1),
    (2, "case_float_GT_2_2_2_256_64_VT_256_64_BLK8", "float", (2, 2, 2, 256, 64), 256, 64, 1, "Null", 8),
    (3, "case_float_GT_128_127_VT_128_128_BLK1_PADMAX", "float", (1, 1, 1, 128, 127), 128, 128, 1, "Max", 1),
    (4, "case_s16_GT_128_127_VT_128_128_BLK1_PADMAX", "int16", (1, 1, 1, 128, 127), 128, 128, 1, "Max", 1),
    (5, "case_u8_GT_128_127_VT_128_128_BLK1_PADMIN", "uint8", (1, 1, 1, 128, 127), 128, 128, 1, "Min", 1),
    (6, "case_float_GT_32_64_128_VT_64_128_BLK32_DYN", "int16", (1, 1, 32, 64, 128), 64, 128, 1, "Null", 32),
    (7, "case_float_GT_32_64_128_VT_64_128_BLK32_STC", "int16", (1, 1, 32, 64, 128), 64, 128, 0, "Null", 32),
    (8, "case_float_GT_2_2_2_256_60_VT_256_64_BLK8_PADMAX", "float", (2, 2, 2, 256, 60), 256, 64, 1, "Max", 8),
    (9, "case_int64_GT_128_128_VT_128_128_BLK1", "int64", (1, 1, 1, 128, 128), 128, 128, 1, "Null", 1),
    (10, "case_uint64_GT_128_125_VT_128_128_BLK1_PADZERO", "uint64", (1, 1, 1, 128, 125), 128, 128, 1, "Zero", 1),
    (11, "case_int64_GT_2_2_2_256_62_VT_256_64_BLK8_PADZERO", "int64", (2, 2, 2, 256, 62), 256, 64, 1, "Zero", 8),
    (12, "case_uint64_GT_2_2_2_256_64_VT_256_64_BLK8", "uint64", (2, 2, 2, 256, 64), 256, 64, 1, "Null", 8),
]


@pytest.mark.parametrize("case", params("a2a3", [(0, *c) for c in NPU], {}, 2)
                         + params("a5", [(1, *c) for c in NPU], {}, 2))
def test_tload_npu(case):
    which, key, name, t, S, TR, TC, dyn, pad, blocks = case
    target = ("a2a3", "a5")[which]
    et, nt = T[t]
    x = S[0] * S[1] * S[2]
    a = align32(S[4], t)                         # shape4_aligned
    # get_input_golden_case (tload_kernel.cpp:312-359): in[x][i][j] = (T)k over (slabs, shape3, shape4);
    # gold rows of shape4_aligned with the pad element past shape4
    inp = as_t(np.arange(x * S[3] * S[4]).reshape(x * S[3], S[4]), t)
    golden = np.full((x * S[3], a), pad_elem(t, pad), nt)
    golden[:, :S[4]] = inp
    r, per = TR // x, S[3] // blocks             # kGTRows, rows a block takes of each slab
    with pto.Core(target, "numpy") as core:
        src = core.gm_put(inp.reshape(-1))
        out = core.gm_alloc(golden.size, et)     # memset 0
        for b in range(blocks):                  # runTLOADND (tload_kernel.cpp:109-184), block_idx = b
            g = gt(et, src + b * per * S[4], (S[0], S[1], S[2], r, S[4]),
                   (S[1] * S[2] * S[3] * S[4], S[2] * S[3] * S[4], S[3] * S[4], S[4], 1), ND, bool(dyn))
            d = gt(et, out + b * per * a, (S[0], S[1], S[2], r, TC), (S[1] * S[2] * S[3] * a, S[2] * S[3] * a,
                                                                      S[3] * a, a, 1))
            tile = pto.Tile[V, et, TR, TC, RM, -1, -1, NB, 512, PAD[pad]](TR, S[4])
            pto.TASSIGN(tile, 0)
            tile_p = pto.Tile[V, et, TR, TC, RM, -1, TC](TR)
            pto.TASSIGN(tile_p, 0)
            pto.TLOAD(tile, g)
            pto.TSTORE(d, tile_p)
        got = core.read("gm", out.addr, golden.nbytes)
    assert_same_bytes(got, golden, f"{target} {name}")


# ============================================================================================
# a5 L1 loads: tload_shape2d (main.cpp:99-175, "TLOADSHAPE2DTest.") and the ND2ND / DN2DN / DN2ZN cases of
# tload_mix (main.cpp:158-242, "TLOADMIXTest."); formats 0 ND2NZ, 1 DN2NZ, 2 ND2ND, 3 DN2DN, 4 NZ2NZ,
# 5 DN2ZN; (name, T, format, (N1..N5), (WN1..WN5), BASEM, BASEK) as the TLOADMIXFUNC instantiations

S2, MX = "TLOADSHAPE2DTest.", "TLOADMIXTest."
L1 = [(S2 + n, *c) for n, *c in (
    ("1_1_1_128_128_half_ND2NZ", "uint16", 0, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128), 128, 128),
    ("1_1_1_128_128_int8_t_ND2NZ", "int8", 0, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128), 128, 128),
    ("1_1_1_128_128_float_ND2NZ", "float", 0, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128), 128, 128),
    ("1_1_1_64_128_half_DN2NZ", "uint16", 1, (1, 1, 1, 64, 128), (1, 1, 1, 64, 128), 64, 128),
    ("1_1_1_63_127_half_ND2NZ", "uint16", 0, (1, 1, 1, 63, 127), (1, 1, 1, 63, 127), 64, 128),
    ("1_1_1_128_128_float_ND2ND", "float", 2, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128), 128, 128),
    ("1_1_1_37_126_int8_t_ND2ND", "int8", 2, (1, 1, 1, 37, 126), (1, 1, 1, 37, 126), 37, 128),
    ("1_1_1_33_99_1_1_1_64_128_48_112_half_ND2NZ", "uint16", 0, (1, 1, 1, 33, 99), (1, 1, 1, 64, 128), 48, 112),
    ("1_1_1_59_119_1_1_1_64_128_64_128_int8_t_ND2NZ", "int8", 0, (1, 1, 1, 59, 119), (1, 1, 1, 64, 128), 64, 128),
    ("1_1_1_51_123_1_1_1_64_128_64_128_float_DN2NZ", "float", 1, (1, 1, 1, 51, 123), (1, 1, 1, 64, 128), 64, 128),
    ("1_1_1_63_127_1_1_1_63_127_64_128_half_DN2NZ", "uint16", 1, (1, 1, 1, 63, 127), (1, 1, 1, 63, 127), 64, 128),
    ("1_1_1_128_128_1_1_1_128_128_128_128_float_DN2DN", "float", 3, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128),
     128, 128),
    ("1_1_1_37_126_1_1_1_37_126_64_126_int8_t_DN2DN", "int8", 3, (1, 1, 1, 37, 126), (1, 1, 1, 37, 126), 64, 126),
    ("1_10_8_16_16_1_11_9_16_16_128_160_half_NZ2NZ", "uint16", 4, (1, 10, 8, 16, 16), (1, 11, 9, 16, 16), 128, 160),
    ("1_8_4_16_32_1_9_4_16_32_80_256_int8_t_NZ2NZ", "int8", 4, (1, 8, 4, 16, 32), (1, 9, 4, 16, 32), 80, 256),
    ("1_1_1_59_119_1_1_1_59_124_59_120_int64_t_ND2ND", "int64", 2, (1, 1, 1, 59, 119), (1, 1, 1, 59, 124), 59, 120),
)] + [(MX + n, *c) for n, *c in (
    ("1_1_1_128_128_float_ND2ND", "float", 2, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128), 128, 128),
    ("1_1_1_37_126_int8_t_ND2ND", "int8", 2, (1, 1, 1, 37, 126), (1, 1, 1, 37, 126), 37, 128),
    ("1_2_3_64_128_1_3_4_128_128_384_128_half_ND2ND", "uint16", 2, (1, 2, 3, 64, 128), (1, 3, 4, 128, 128), 384, 128),
    ("1_2_3_33_99_1_2_3_33_99_int8_t_ND2ND", "int8", 2, (1, 2, 3, 33, 99), (1, 2, 3, 33, 99), 198, 128),
    ("1_1_1_128_128_1_1_1_128_128_128_128_float_DN2DN", "float", 3, (1, 1, 1, 128, 128), (1, 1, 1, 128, 128),
     128, 128),
    ("1_1_1_37_126_1_1_1_37_126_64_126_int8_t_DN2DN", "int8", 3, (1, 1, 1, 37, 126), (1, 1, 1, 37, 126), 64, 126),
    ("1_2_3_64_128_1_3_4_96_128_64_768_half_DN2DN", "uint16", 3, (1, 2, 3, 64, 128), (1, 3, 4, 96, 128), 64, 768),
    ("1_1_1_59_119_1_1_1_59_124_59_120_int64_t_ND2ND", "int64", 2, (1, 1, 1, 59, 119), (1, 1, 1, 59, 124), 59, 120),
    ("1_2_1_64_128_1_3_4_128_128_128_128_uint64_t_ND2ND", "uint64", 2, (1, 2, 1, 64, 128), (1, 3, 4, 128, 128),
     128, 128),
    ("1_1_1_33_99_1_1_1_64_128_48_112_half_DN2ZN", "uint16", 5, (1, 1, 1, 33, 99), (1, 1, 1, 64, 128), 48, 112),
    ("1_1_1_59_119_1_1_1_64_128_64_128_int8_t_DN2ZN", "int8", 5, (1, 1, 1, 59, 119), (1, 1, 1, 64, 128), 64, 128),
)]

L1_XFAIL: dict = {}
"""(A5's TLoadCubeND2ND / DN2DN move every row (column) the GlobalTensor's shape spans, not the tile's
valid rows (columns): a5/TLoad.hpp:426, 441-467 and 484, 498-523, the goldens tload_mix/gen_data.py:
212-243; and right-pad each burst to its 32-byte block from the L1 pad register, data select on:
TLoad.hpp:426-433, 466 / 484-491, 522, register/tload_common.hpp:30-39. ptogpu: target.tload_mat
"cube_bursts". The ten cases that show both were strict xfails until it was modelled.)"""


def nz_image(g: np.ndarray, c0: int) -> np.ndarray:
    """gen_data.py's fractal golden: (rows/16, 16, cols/c0, c0).transpose(2, 0, 1, 3)."""
    rows, cols = g.shape
    return g.reshape(rows // 16, 16, cols // c0, c0).transpose(2, 0, 1, 3)


@pytest.mark.parametrize("case", params("a5", L1, L1_XFAIL, 0))
def test_tload_l1_a5(case):
    name, t, fmt, N, WN, bm, bk = case
    et, nt = T[t]
    sz, c0 = size(t), 32 // size(t)
    m, k = N[3], N[4]
    r = np.random.RandomState((SEED + zlib.crc32(f"a5/{name}".encode())) % 2 ** 32)

    def draw(shape):             # randint(1, 5).astype(src_type): float16 bits for the uint16_t cases
        v = r.randint(1, 5, size=shape)
        return v.astype(np.float16).view(np.uint16) if t == "uint16" else v.astype(nt)

    # gen_data.py (shape2d 28-174, mix 167-378): the input and the golden
    w = (WN[1] * WN[2] * WN[3] * WN[4], WN[2] * WN[3] * WN[4], WN[3] * WN[4])
    if fmt == 4:                 # NZ2NZ: [WN1..WN5] fractals; valid N3*M x N2*K
        x1 = draw(WN)
        sub = x1[:N[0], :N[1], :N[2], :m, :k].reshape(N[0] * N[1], N[2], m, k)
        golden = nz_image(np.zeros((bm, bk), nt), c0).copy()
        golden[:sub.shape[0], :sub.shape[1], :sub.shape[2], :sub.shape[3]] = sub
        rows, cols, wrows, wcols = N[2] * m, N[1] * k, WN[2] * WN[3], WN[1] * WN[4]
        shape, stride, lay = (1, cols // c0, rows // 16, 16, c0), (wcols * wrows, wrows * c0, 16 * c0, c0, 1), NZ
    elif fmt in (0, 2):          # ND: rows of WN5, the N1*N2*N3*M rows flattened
        x1 = draw(WN)
        sub = x1[:N[0], :N[1], :N[2], :m, :k].reshape(-1, k)
        golden = np.zeros((bm, bk), nt)
        golden[:sub.shape[0], :k] = sub
        shape, stride, lay = N, (*w, WN[4], 1), ND
    else:                        # DN: x1 is [WN1, WN2, WN3, WN5, WN4], element (r, c) at c * WN4 + r
        x1 = draw((*WN[:3], WN[4], WN[3]))
        sub = x1[:N[0], :N[1], :N[2], :k, :m].reshape(-1, m)
        golden = np.zeros((bk, bm), nt)
        golden[:sub.shape[0], :m] = sub
        shape, stride, lay = N, (*w, 1, WN[3]), DN
    if fmt in (0, 1, 5):         # the NZ (ZN: the transposed matrix's NZ) image of the golden
        golden = nz_image(golden.T if fmt == 1 else golden, c0)
    vr, vc = (N[2] * m, N[1] * k) if fmt == 4 else (m, k)
    bl, sl = {0: (CM, SR), 1: (CM, SR), 2: (RM, NB), 3: (CM, NB), 4: (CM, SR), 5: (RM, SC)}[fmt]
    ub_r, ub_c = (bk, bm) if fmt == 3 else (bm, bk)
    nbytes = bm * bk * sz
    with pto.Core("a5", "numpy") as core:
        core.write("l1", 0, np.full(nbytes, FILL, np.uint8))
        if fmt in (0, 1, 4, 5):  # create_cbuf_matrix: the tile's L1 bytes to 0
            core.write("l1", 0, np.zeros(nbytes, np.uint8))
        # shape2d: TileShape2D / BaseShape2D tensors (dynamic for formats 2-4); mix: static Shape / Stride
        g = gt(et, core.gm_put(x1.reshape(-1)), shape, stride, lay, dyn=name.startswith(S2) and fmt >= 2)
        mat = pto.Tile[M, et, bm, bk, bl, vr, vc, sl, 512]()
        pto.TASSIGN(mat, 0)
        pto.TLOAD(mat, g)
        core.write("ub", 0, core.read("l1", 0, nbytes))        # copy_cbuf_to_ubuf, the whole tile
        ub = pto.Tile[V, et, ub_r, ub_c, RM, -1, -1](ub_r, ub_c)
        pto.TASSIGN(ub, 0)
        out = core.gm_alloc(ub_r * ub_c, et)
        pto.TSTORE(gt(et, out, (1, 1, 1, ub_r, ub_c), (ub_r * ub_c,) * 3 + (ub_c, 1)), ub)
        got = core.read("gm", out.addr, nbytes)
    assert_same_bytes(got, golden, f"a5 {name}")
