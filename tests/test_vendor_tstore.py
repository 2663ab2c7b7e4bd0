"""The vendor's own system tests of TSTORE (Vec and Mat tiles to GM), ported to pytest.

Source: ``hw-native-sys/pto-isa`` (commit 3186c381):

* ``tests/cpu/st/testcase/tstore/``                  (target ``cpu``: 17 cases)
* ``tests/npu/a2a3/src/st/testcase/tstore/``         (target ``a2a3``: 13 cases, the cpu kernel)
* ``tests/npu/a2a3/src/st/testcase/tstore_mat2gm/``  (target ``a2a3``: 14 cases, L1 ``Mat`` tiles)
* ``tests/npu/a5/src/st/testcase/tstore/``           (target ``a5``: 15 cases, the cpu kernel + B4)

Every case is ``test_tstore<format, T, gShape0..4, gWholeShape0..4>`` (``main.cpp``): a ``Shape``
sub-tensor of a ``WholeShape`` tensor, the same static GlobalTensor type (strides of the whole) over
``src`` and over a memset-0 ``out`` of the same size; the kernel (``tstore_kernel.cpp``,
``tstore_mat2gm_kernel.cpp``) TLOADs the sub-tensor into a tile at ``TASSIGN(tile, 0)`` and TSTOREs
it back, one block:

* format 0, ND: ``Tile<Vec|Mat, T, S0*S1*S2*S3, align(S4), RowMajor, -1, -1>(S0*S1*S2*S3, S4)``;
* format 1, DN: ``Tile<Vec|Mat, T, align(S3), S0*S1*S2*S4, ColMajor, -1, -1>(S3, S0*S1*S2*S4)``,
  tensor strides ``(.., .., W3*W4, 1, W3)``;
* format 2, NZ: ``Tile<Vec|Mat, T, S2*S3, S0*S1*S4, ColMajor, -1, -1, SLayout::RowMajor, 512>``;

``align`` rounds up to ``blockSize = 32 / sizeof(T)`` elements (A5's kernel: 64 for float4); no
PadVal (Null). ``gen_data.py`` draws ``randint(-5, 5)`` over the whole tensor (DN: shaped
``(W0, W1, W2, W4, W3)``) and the golden is zeros but for the sub-tensor, a copy of the input;
compared: all ``dataSize = prod(W) * sizeof(T)`` bytes of ``out`` (``ResultCmp`` over small
integers, 0 or 0.001 tolerance: exact). Inputs here: ``randint(-5, 5)`` from a ``RandomState`` per
case (not the vendor's one seed-19 stream), cast as gen_data.py casts (``astype``; the mat2gm
``uint16_t`` cases hold float16 bits and their kernel moves them as ``bfloat16_t``).

Float4: the cpu cases (``float4_e2m1x2_t`` / ``float4_e1m2x2_t``, ``dataSize`` halved, dims in
elements) get uniform 4-bit codes (gen_data.py casts ``randint(-5, 5)`` through ``en_dtypes``; a
pure copy moves any code) packed as its ``pack_fp4`` packs them (element 2m in the high nibble): every
sub-tensor edge falls on a byte, so the golden is the input's bytes either nibble order. A5's
``fp4case*`` (``LaunchTStoreB4``) take ``uint8_t`` ``randint(-5, 5)`` bytes and run the kernel as
``float4_e1m2x2_t`` with the innermost dim (ND, NZ: Shape4; DN: Shape3) doubled.

The mat2gm kernels chain TLOAD and TSTORE by an ``Event<Op::TLOAD, Op::TSTORE_MAT>``: here, one after
the other.

No xfail: A5's ``fp4case1`` (NZ) and ``fp4case3`` (DN) were strict xfails (ptogpu refused the
float4 NZ2NZ and DN2DN moves A5 makes as b8 bursts with the offsets halved: a5/TLoad.hpp:81-124,
register/tload_common.hpp:74-121, a5/TStore.hpp:239-287, register/tstore_common.hpp:305-344)
until it modelled them.

Not ported: the other TSTORE forms, in their own dirs, not in the four above -- Acc (L0C) to GM
(``tstore_acc2gm`` of cpu, a2a3, a5), the quantised / relu forms (cpu ``tstore_quant``) and ConvTile
stores (cpu ``tstore_conv``): ptogpu emulates neither L0C nor ConvTile.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.errors import PtoCheckError
from vendor_common import assert_same_bytes

V, M = pto.TileType.Vec, pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
NB, SR = pto.SLayout.NoneBox, pto.SLayout.RowMajor
LAYOUT = {0: pto.Layout.ND, 1: pto.Layout.DN, 2: pto.Layout.NZ}
SEED = 20261215
pytestmark = pytest.mark.usefixtures("fresh_stack")

# vendor type -> (ptogpu element type, numpy dtype gen_data.py draws into, sizeof(T) in the kernel)
TYPES = {
    "float": (pto.float32, np.float32, 4), "int8_t": (pto.int8, np.int8, 1), "uint8_t": (pto.uint8, np.uint8, 1),
    "int16_t": (pto.int16, np.int16, 2), "uint16_t": (pto.uint16, np.uint16, 2),
    "int64_t": (pto.int64, np.int64, 8), "uint64_t": (pto.uint64, np.uint64, 8),
    "bf16": (pto.bfloat16, np.float16, 2),            # mat2gm uint16_t: float16 bits, moved as bfloat16_t
    "e2m1": (pto.float4_e2m1x2, None, 1), "e1m2": (pto.float4_e1m2x2, None, 1),   # cpu float4 (dims: nibbles)
    "b4": (pto.float4_e1m2x2, np.uint8, 1),           # A5 LaunchTStoreB4: uint8_t bytes, float4 kernel
}


def spec(s: str):
    """``"fmt T s0 s1 s2 s3 s4 w0 w1 w2 w3 w4"`` -> (format, T, Shape, WholeShape)."""
    f, t, *d = s.split()
    return int(f), t, tuple(map(int, d[:5])), tuple(map(int, d[5:]))


CPU = {   # tests/cpu/st/testcase/tstore/main.cpp:98-150
    "ND_float_1_1_1_2_128_1_1_1_2_128": "0 float 1 1 1 2 128 1 1 1 2 128",
    "ND_int16_t_1_2_1_23_121_3_2_2_35_125": "0 int16_t 1 2 1 23 121 3 2 2 35 125",
    "ND_int8_t_2_2_3_23_47_3_3_4_32_50": "0 int8_t 2 2 3 23 47 3 3 4 32 50",
    "DN_float_1_1_1_4_21_1_1_1_8_32": "1 float 1 1 1 4 21 1 1 1 8 32",
    "DN_int16_t_3_1_1_1_124_5_1_1_2_128": "1 int16_t 3 1 1 1 124 5 1 1 2 128",
    "DN_int8_t_2_1_2_32_32_3_4_3_64_35": "1 int8_t 2 1 2 32 32 3 4 3 64 35",
    "NZ_float_1_1_1_16_8_1_1_2_16_8": "2 float 1 1 1 16 8 1 1 2 16 8",
    "NZ_int16_t_2_2_2_16_16_5_3_3_16_16": "2 int16_t 2 2 2 16 16 5 3 3 16 16",
    "NZ_int8_t_1_2_1_16_32_2_4_2_16_32": "2 int8_t 1 2 1 16 32 2 4 2 16 32",
    "ND_int64_1_1_1_2_128_1_1_1_2_128": "0 int64_t 1 1 1 2 128 1 1 1 2 128",
    "ND_uint64_t_1_2_1_23_121_3_2_2_35_125": "0 uint64_t 1 2 1 23 121 3 2 2 35 125",
    "DN_int64_1_1_1_4_21_1_1_1_8_32": "1 int64_t 1 1 1 4 21 1 1 1 8 32",
    "DN_uint64_t_3_1_1_1_124_5_1_1_2_128": "1 uint64_t 3 1 1 1 124 5 1 1 2 128",
    "ND_float4_e2m1x2_1_1_1_2_128_1_1_1_2_128": "0 e2m1 1 1 1 2 128 1 1 1 2 128",
    "DN_float4_e2m1x2_1_1_1_4_21_1_1_1_8_32": "1 e2m1 1 1 1 4 21 1 1 1 8 32",
    "ND_float4_e1m2x2_1_1_1_2_128_1_1_1_2_128": "0 e1m2 1 1 1 2 128 1 1 1 2 128",
    "DN_float4_e1m2x2_1_1_1_4_21_1_1_1_8_32": "1 e1m2 1 1 1 4 21 1 1 1 8 32",
}
A2A3 = {k: v for k, v in CPU.items() if "float4" not in k}   # a2a3 tstore/main.cpp:92-125: the same 13
A5 = {    # tests/npu/a5/src/st/testcase/tstore/main.cpp:95-117, 173-175
    "case1": "2 float 1 1 1 16 8 1 1 2 16 8", "case2": "2 uint8_t 1 2 1 16 32 2 4 2 16 32",
    "case3": "2 int16_t 2 2 2 16 16 5 3 3 16 16", "case4": "0 float 2 1 1 39 47 3 2 1 43 61",
    "case5": "0 int16_t 1 2 1 23 121 3 2 2 35 125", "case6": "0 int8_t 2 2 3 23 47 3 3 4 32 50",
    "case7": "1 float 1 1 1 4 21 1 1 1 8 32", "case8": "1 uint16_t 3 1 1 1 124 5 1 1 2 128",
    "case9": "1 int8_t 2 3 7 47 13 2 3 7 55 29", "case10": "0 int64_t 1 1 2 16 16 2 2 2 16 16",
    "case11": "1 uint64_t 1 1 2 16 64 2 2 2 16 64", "case12": "0 int64_t 1 1 2 39 47 2 2 2 43 50",
    "fp4case1": "2 b4 1 2 1 16 32 2 4 2 16 32", "fp4case2": "0 b4 2 2 3 23 47 3 3 4 32 50",
    "fp4case3": "1 b4 2 3 7 47 13 2 3 7 55 29",
}
MAT = {   # tests/npu/a2a3/src/st/testcase/tstore_mat2gm/main.cpp:92-118 (TStoreMat2GMTest)
    "case_nd1": "0 int64_t 1 2 1 11 32 1 3 2 93 32", "case_nd2": "0 float 1 1 1 3 128 3 3 3 32 128",
    "case_nd3": "0 int16_t 2 2 1 2 32 3 3 3 111 64", "case_nd4": "0 int8_t 1 2 1 11 32 1 3 2 93 32",
    "case_nd5": "0 bf16 1 1 1 128 128 1 1 1 256 256",
    "case_dn1": "1 int64_t 2 2 1 32 2 3 3 3 64 111", "case_dn2": "1 float 1 1 1 128 3 3 3 3 128 32",
    "case_dn3": "1 int16_t 2 2 1 32 2 3 3 3 64 111", "case_dn4": "1 int8_t 1 2 1 32 11 1 3 2 32 93",
    "case_dn5": "1 bf16 1 2 2 128 311 4 3 3 256 400",
    "case_nz1": "2 float 1 5 21 16 8 1 5 21 16 8", "case_nz2": "2 int16_t 2 15 11 16 16 3 23 13 16 16",
    "case_nz3": "2 int8_t 1 16 32 16 32 1 32 32 16 32", "case_nz4": "2 bf16 2 4 5 16 16 7 7 7 16 16",
}

XFAIL: dict = {}


def params(target, cases):
    out = []
    for name, s in cases.items():
        x = XFAIL.get((target, name))
        marks = [pytest.mark.xfail(strict=True, raises=x[1], reason=x[0])] if x else []
        out.append(pytest.param(target, name, *spec(s), id=f"{target}-{name}", marks=marks))
    return out


def pack_fp4(codes: np.ndarray) -> np.ndarray:
    """gen_data.py pack_fp4: element 2m in the high nibble of byte m."""
    c = codes.reshape(-1, 2).astype(np.uint8)
    return ((c[:, 0] << 4) | c[:, 1]).astype(np.uint8)


def vendor_data(key: str, t: str, fmt: int, S, W):
    """gen_data.py's input and golden (bytes) for a case: the whole tensor (DN: its last two dims
    swapped), zeros but for the ``Shape`` corner, which copies the input."""
    r = np.random.RandomState((SEED + zlib.crc32(key.encode())) % 2 ** 32)
    dims = (*W[:3], W[4], W[3]) if fmt == 1 else W
    corner = tuple(slice(0, n) for n in ((*S[:3], S[4], S[3]) if fmt == 1 else S))
    nt = TYPES[t][1]
    if nt is None:                                   # cpu float4: 4-bit codes, two a byte
        inp = r.randint(0, 16, size=dims).astype(np.uint8)
    else:
        v = r.randint(-5, 5, size=dims)
        inp = v.astype(np.float16).view(np.uint16) if t == "bf16" else v.astype(nt)
    gold = np.zeros_like(inp)
    gold[corner] = inp[corner]
    if nt is None:
        return pack_fp4(inp), pack_fp4(gold)
    return inp.reshape(-1).view(np.uint8), gold.reshape(-1).view(np.uint8)


def run_kernel(target: str, loc, t: str, fmt: int, S, W, inp: np.ndarray) -> np.ndarray:
    """TStoreKernel / RunTStore{RowMajor,ColMajor,NZ} (tstore_kernel.cpp) or RunTStore{ND2ND,DN2DN,
    NZ2NZ} (tstore_mat2gm_kernel.cpp): the tile and tensor types as the kernel declares them, TLOAD
    then TSTORE; returns the ``dataSize`` bytes of ``out``."""
    et, _, size = TYPES[t]
    if t == "b4":                                    # LaunchTStoreB4 (a5 tstore_kernel.cpp:192-210)
        S, W = list(S), list(W)
        k = 3 if fmt == 1 else 4
        S[k], W[k] = 2 * S[k], 2 * W[k]
    block = 64 if (t == "b4" and target == "a5") else 32 // size    # GetBlockSize<T>() / 32 / sizeof(T)
    align = lambda n: -(-n // block) * block                         # noqa: E731
    if fmt == 1:
        stride = (W[1] * W[2] * W[3] * W[4], W[2] * W[3] * W[4], W[3] * W[4], 1, W[3])
    else:
        stride = (W[1] * W[2] * W[3] * W[4], W[2] * W[3] * W[4], W[3] * W[4], W[4], 1)
    if fmt == 0:
        rows, cols, valid, bl, sl = S[0] * S[1] * S[2] * S[3], align(S[4]), (S[0] * S[1] * S[2] * S[3], S[4]), RM, NB
    elif fmt == 1:
        rows, cols, valid, bl, sl = align(S[3]), S[0] * S[1] * S[2] * S[4], (S[3], S[0] * S[1] * S[2] * S[4]), CM, NB
    else:
        rows, cols, valid, bl, sl = S[2] * S[3], S[0] * S[1] * S[4], (S[2] * S[3], S[0] * S[1] * S[4]), CM, SR
    G = pto.GlobalTensor[et, pto.Shape[tuple(S)], pto.Stride[stride], LAYOUT[fmt]]
    with pto.Core(target, "numpy") as core:
        src = core.gm_put(inp).cast(et)
        out = core.gm_alloc(inp.size, pto.uint8).cast(et)          # aclrtMemset(dst, 0)
        tile = pto.Tile[loc, et, rows, cols, bl, -1, -1, sl, 512](*valid)
        pto.TASSIGN(tile, 0x0)
        pto.TLOAD(tile, G(src))
        pto.TSTORE(G(out), tile)
        return core.read("gm", out.addr, inp.size)


@pytest.mark.parametrize("target,name,fmt,t,S,W", params("cpu", CPU) + params("a2a3", A2A3) + params("a5", A5))
def test_tstore_vec(target, name, fmt, t, S, W):
    inp, golden = vendor_data(f"{target}/{name}", t, fmt, S, W)
    assert inp.size == int(np.prod(W)) * TYPES[t][2] // (2 if TYPES[t][1] is None else 1)   # dataSize
    got = run_kernel(target, V, t, fmt, S, W, inp)
    assert_same_bytes(got, golden, f"{target} TStoreTest.{name}")


@pytest.mark.parametrize("target,name,fmt,t,S,W", params("a2a3", MAT))
def test_tstore_mat2gm(target, name, fmt, t, S, W):
    inp, golden = vendor_data(f"{target}/mat/{name}", t, fmt, S, W)
    got = run_kernel(target, M, t, fmt, S, W, inp)
    assert_same_bytes(got, golden, f"{target} TStoreMat2GMTest.{name}")
