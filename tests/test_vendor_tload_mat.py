"""The vendor's A2/A3 system tests of TLOAD into L1 (``Mat``) tiles, ported to pytest.

Source: ``hw-native-sys/pto-isa`` (commit 3186c381), ``tests/npu/a2a3/src/st/testcase/tload_gm2mat/``:
``main.cpp`` (``TLoadGM2L1Test``: the cases, ``TestTload``'s buffer sizes and comparison),
``tload_gm2mat_kernel.cpp`` (the kernels and the ``LaunchTLoad`` instantiations, whose template
arguments are used here: the NZ int16 case named ``2_16_11`` runs ``2, 15, 11``), ``gen_data.py``
(inputs ``randint(-5, 5).astype(T)`` over the whole tensor ``[W0..W4]`` -- DN and DN2ZN:
``[W0, W1, W2, W4, W3]`` --, and the goldens). Conventions of ``tests/test_vendor_tload.py``: one
test per vendor case (target ``a2a3``), numpy backend, tiles and GlobalTensors declared as the
kernel declares them (static shapes and strides, dynamic valid dims, ``TASSIGN`` 0), inputs from a
fixed ``RandomState`` per case (not the vendor's single seed-19 stream) with gen_data.py's
distribution; the ``bfloat16_t`` cases hold float16 bits, as gen_data.py writes them (``LaunchTLoad``
reinterprets the ``uint16_t`` buffers). Goldens are NumPy, from gen_data.py's formula.

Each kernel TLOADs into an L1 tile it has not cleared (L1 starts here with a fixed filler byte:
the device's L1 holds what earlier cases left), then ``TSTORE_MAT2GM`` (kernel.cpp:34-71) copies
L1 to GM with one raw ``copy_cbuf_to_gm`` (nBurst, lenBurst and the L1 gap in 32-byte blocks, GM
gap 0): ND ``(VR, ceil(VC/b), (Cols-VC)/b)``, DN ``(VC, ceil(VR/b), (Rows-VR)/b)``, NZ
``(ceil(VC/b), VR, Rows-VR)``, ZN ``(ceil(VR/b), VC, Cols-VC)`` (b = 32/sizeof(T)); done here on
the bytes ``core.read("l1")`` returns. The host compares ``dstDataSize`` bytes (main.cpp:56-74,
116: the product of the shape, Shape4 (ND2NZ) or Shape3 (DN2ZN) rounded up to C0): the GM image's
first bytes (the 1 x 201 int8 and 156 x 1 float bursts run past that buffer's end; not compared).
``ResultCmp(..., 0.001)`` over these small integers is an exact comparison.

The two ``Rows == 1`` / ``Cols == 1`` tiles (``ND_int8_t_1_1_1_1_201``, ``DN_float_1_1_1_156_1``)
take A2/A3's vector-input path, an nd2nz of one row into a C0 stride of 1 block
(tload_common.hpp:175-214, 224-238): the same bytes as the valid region over the compared size.

Not ported (25 cases): formats 5-8, ``NC1HWC02NC1HWC0``, ``FZ2FZ``, ``FZ4D2FZ4D``,
``NDC1HWC02NDC1HWC0`` (``ConvTile`` with ``Layout::NC1HWC0 / FRACTAL_Z / NDC1HWC0``,
kernel.cpp:249-414, a2a3/TLoad.hpp:46-97, 199-293): ptogpu has neither ConvTile nor those layouts.
Nor A5's ``tload_mx_ND_DN`` (20 cases) and ``tload_mx_gmtensor`` (24): ``float8_e8m0_t`` scale
tiles with ``Layout::MX_A_ND / MX_A_DN / MX_A_ZZ / MX_B_ND / MX_B_DN / MX_B_NN`` tensors and
``SFractalSize`` 32, none of which ptogpu has.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

import ptogpu as pto
from vendor_common import assert_same_bytes

M = pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
NB, SR, SC = pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
ND, DN, NZ = pto.Layout.ND, pto.Layout.DN, pto.Layout.NZ
SEED = 20261215
FILL = 0xCD                      # the L1 bytes before the kernel's TLOAD
pytestmark = pytest.mark.usefixtures("fresh_stack")

# vendor type -> (ptogpu element type, numpy dtype of the elements as gen_data.py writes them)
T = {"float": (pto.float32, np.float32), "int16": (pto.int16, np.int16), "int8": (pto.int8, np.int8),
     "bf16": (pto.bfloat16, np.float16), "int64": (pto.int64, np.int64), "uint64": (pto.uint64, np.uint64)}

# (gtest name, format, T, (gShape0..4), (gWholeShape0..4)): main.cpp:121-244 / kernel.cpp:481-516;
# format 0 ND2ND, 1 DN2DN, 2 NZ2NZ, 3 ND2NZ, 4 DN2ZN
CASES = [
    ("ND_float_1_1_1_3_128_3_3_3_32_128", 0, "float", (1, 1, 1, 3, 128), (3, 3, 3, 32, 128)),
    ("ND_int16_t_2_2_1_2_32_3_3_3_111_64", 0, "int16", (2, 2, 1, 2, 32), (3, 3, 3, 111, 64)),
    ("ND_int8_t_1_2_1_11_32_1_3_2_93_32", 0, "int8", (1, 2, 1, 11, 32), (1, 3, 2, 93, 32)),
    ("ND_int8_t_1_1_1_1_201_1_1_1_1_201", 0, "int8", (1, 1, 1, 1, 201), (1, 1, 1, 1, 201)),
    ("DN_float_1_1_1_128_3_3_3_3_128_32", 1, "float", (1, 1, 1, 128, 3), (3, 3, 3, 128, 32)),
    ("DN_int16_t_2_2_1_32_2_3_3_3_64_111", 1, "int16", (2, 2, 1, 32, 2), (3, 3, 3, 64, 111)),
    ("DN_int8_t_1_2_1_32_11_1_3_2_32_93", 1, "int8", (1, 2, 1, 32, 11), (1, 3, 2, 32, 93)),
    ("DN_float_1_1_1_156_1_1_1_1_156_1", 1, "float", (1, 1, 1, 156, 1), (1, 1, 1, 156, 1)),
    ("NZ_float_1_5_21_16_8_1_5_21_16_8", 2, "float", (1, 5, 21, 16, 8), (1, 5, 21, 16, 8)),
    ("NZ_int16_t_2_16_11_16_16_3_23_13_16_16", 2, "int16", (2, 15, 11, 16, 16), (3, 23, 13, 16, 16)),
    ("NZ_int8_t_1_16_32_16_32_1_32_32_16_32", 2, "int8", (1, 16, 32, 16, 32), (1, 32, 32, 16, 32)),
    ("ND2NZ_float_t_1_1_1_49_35_1_1_1_49_35", 3, "float", (1, 1, 1, 49, 35), (1, 1, 1, 49, 35)),
    ("ND2NZ_int16_t_1_1_1_155_250_1_1_1_752_1000", 3, "int16", (1, 1, 1, 155, 250), (1, 1, 1, 752, 1000)),
    ("ND2NZ_int8_t_1_1_1_1023_511_1_1_1_1024_1024", 3, "int8", (1, 1, 1, 1023, 511), (1, 1, 1, 1024, 1024)),
    ("ND2NZ_bfloat16_t_1_1_1_1023_51_1_1_1_1024_1024", 3, "bf16", (1, 1, 1, 1023, 51), (1, 1, 1, 1024, 1024)),
    ("ND_bfloat16_t_1_1_1_128_128_1_1_1_256_256", 0, "bf16", (1, 1, 1, 128, 128), (1, 1, 1, 256, 256)),
    ("DN_bfloat16_t_1_2_2_128_311_4_3_3_256_400", 1, "bf16", (1, 2, 2, 128, 311), (4, 3, 3, 256, 400)),
    ("NZ_bfloat16_t_2_4_5_16_16_7_7_7_16_16", 2, "bf16", (2, 4, 5, 16, 16), (7, 7, 7, 16, 16)),
    ("ND2NZ_bfloat16_t_1_1_1_1_1_1_1_1_1_1", 3, "bf16", (1, 1, 1, 1, 1), (1, 1, 1, 1, 1)),
    ("ND2NZ_bfloat16_t_1_1_1_1_1_1_1_1_16_16", 3, "bf16", (1, 1, 1, 1, 1), (1, 1, 1, 16, 16)),
    ("ND2NZ_bfloat16_t_1_1_1_256_1024_1_1_1_256_1024", 3, "bf16", (1, 1, 1, 256, 1024), (1, 1, 1, 256, 1024)),
    ("ND_int64_1_1_1_3_128_3_3_3_32_128", 0, "int64", (1, 1, 1, 3, 128), (3, 3, 3, 32, 128)),
    ("ND_uint64_2_2_1_2_32_3_3_3_111_64", 0, "uint64", (2, 2, 1, 2, 32), (3, 3, 3, 111, 64)),
    ("ND_int64_1_2_1_11_32_1_3_2_93_32", 0, "int64", (1, 2, 1, 11, 32), (1, 3, 2, 93, 32)),
    ("DN_uint64_1_1_1_128_3_3_3_3_128_32", 1, "uint64", (1, 1, 1, 128, 3), (3, 3, 3, 128, 32)),
    ("DN_int64_2_2_1_32_2_3_3_3_64_111", 1, "int64", (2, 2, 1, 32, 2), (3, 3, 3, 64, 111)),
    ("DN_uint64_1_2_1_32_11_1_3_2_32_93", 1, "uint64", (1, 2, 1, 32, 11), (1, 3, 2, 32, 93)),
    ("DN2ZN_bfloat16_t_1_1_1_256_1024_1_1_1_256_1024", 4, "bf16", (1, 1, 1, 256, 1024), (1, 1, 1, 256, 1024)),
    ("DN2ZN_float_t_1_1_1_49_35_1_1_1_49_35", 4, "float", (1, 1, 1, 49, 35), (1, 1, 1, 49, 35)),
    ("DN2ZN_int16_t_1_1_1_155_250_1_1_1_752_1000", 4, "int16", (1, 1, 1, 155, 250), (1, 1, 1, 752, 1000)),
    ("DN2ZN_int8_t_1_1_1_1023_511_1_1_1_1024_1024", 4, "int8", (1, 1, 1, 1023, 511), (1, 1, 1, 1024, 1024)),
]

# ND2NZ / DN2ZN loads whose Shape4 (Shape3) is not a multiple of C0 show the nd2nz zero tail: one
# pto_copy_gm_to_cbuf_multi_nd2nz (tload_common.hpp:251-273, 275-297) writes the rest of each row's
# (column's) last C0 block as 0, which gen_data.py:49-69's golden wants in an L1 the kernel
# (tload_gm2mat_kernel.cpp:179-247) never clears. ptogpu: target.tload_nd2nz with dma.nd2nz_tail
# (the nine such cases were strict xfails until it was modelled).


def c0(t) -> int:
    return 32 // np.dtype(T[t][1]).itemsize


def align(n: int, k: int) -> int:
    return -(-n // k) * k


def params():
    out = []
    for case in CASES:
        out.append(pytest.param(case, id=f"a2a3-{case[0]}"))
    return out


def golden_of(fmt, t, x, g):
    """gen_data.py:33-69: the golden elements (gen_data.py's dtype), in GM order."""
    nt = T[t][1]
    if fmt in (0, 2):            # ND, NZ: the sub-tensor as is
        return x[:g[0], :g[1], :g[2], :g[3], :g[4]]
    if fmt == 1:                 # DN: x is [W0, W1, W2, W4, W3]
        return x[:g[0], :g[1], :g[2], :g[4], :g[3]]
    k = c0(t)
    if fmt == 3:                 # ND2NZ: Shape4 zero-padded to C0, then (C0 blocks, ..., Shape3, C0)
        a = align(g[4], k)
        out = np.zeros((*g[:4], a), nt)
        out[..., :g[4]] = x[:g[0], :g[1], :g[2], :g[3], :g[4]]
        return out.reshape(*g[:4], a // k, k).transpose(4, 0, 1, 2, 3, 5)
    a = align(g[3], k)           # DN2ZN: Shape3 zero-padded to C0, then (..., C0 blocks, Shape4, C0)
    out = np.zeros((*g[:3], g[4], a), nt)
    out[..., :g[3]] = x[:g[0], :g[1], :g[2], :g[4], :g[3]]
    return out.reshape(*g[:3], g[4], a // k, k).transpose(0, 1, 2, 4, 3, 5)


def cbuf_to_gm(l1: np.ndarray, n_burst: int, len_burst: int, l1_gap: int) -> np.ndarray:
    """copy_cbuf_to_gm(dst, src, 0, nBurst, lenBurst, l1Gap, 0): burst i reads lenBurst 32-byte
    blocks at block i*(lenBurst + l1Gap) of L1 and writes them at block i*lenBurst of GM."""
    blocks = l1.reshape(-1, 32)
    idx = (np.arange(n_burst)[:, None] * (len_burst + l1_gap) + np.arange(len_burst)).reshape(-1)
    return blocks[idx].reshape(-1)


@pytest.mark.parametrize("case", params())
def test_tload_gm2mat_a2a3(case):
    name, fmt, t, g, w = case
    et, nt = T[t]
    size, b = np.dtype(nt).itemsize, c0(t)     # b: blockSizeElem = c0_size = 32 / sizeof(T)
    r = np.random.RandomState((SEED + zlib.crc32(f"a2a3/{name}".encode())) % 2 ** 32)
    # gen_data.py: randint(-5, 5) over the whole tensor, astype(T) (uint64: the negatives wrap)
    x = r.randint(-5, 5, size=(*w[:3], w[4], w[3]) if fmt in (1, 4) else w).astype(nt)
    golden = golden_of(fmt, t, x, g)
    s012 = (w[1] * w[2] * w[3] * w[4], w[2] * w[3] * w[4], w[3] * w[4])
    stride, lay = {0: ((*s012, w[4], 1), ND), 1: ((*s012, 1, w[3]), DN), 2: ((*s012, w[4], 1), NZ),
                   3: ((*s012, w[4], 1), ND), 4: ((*s012, 1, w[3]), DN)}[fmt]
    vr, vc = {0: (g[0] * g[1] * g[2] * g[3], g[4]), 1: (g[3], g[0] * g[1] * g[2] * g[4]),
              2: (g[2] * g[3], g[0] * g[1] * g[4]), 3: (g[0] * g[1] * g[2] * g[3], g[4]),
              4: (g[3], g[4])}[fmt]
    rows, cols, bl, sl = {0: (vr, align(vc, b), RM, NB),          # RunTLoadND2ND (kernel.cpp:76-107)
                          1: (align(vr, b), vc, CM, NB),          # RunTLoadDN2DN (111-143)
                          2: (vr, vc, CM, SR),                    # RunTLoadNZ2NZ (148-177)
                          3: (align(vr, 16), align(vc, b), CM, SR),   # RunTLoadND2NZ (182-212)
                          4: (align(vr, b), align(vc, 16), RM, SC)}[fmt]  # RunTLoadDN2ZN (217-247)
    # TSTORE_MAT2GM (kernel.cpp:45-70): (nBurst, lenBurst, l1Gap)
    burst = {0: (vr, -(-vc // b), (cols - vc) // b), 1: (vc, -(-vr // b), (rows - vr) // b),
             2: (-(-vc // b), vr, rows - vr), 3: (-(-vc // b), vr, rows - vr),
             4: (-(-vr // b), vc, cols - vc)}[fmt]
    with pto.Core("a2a3", "numpy") as core:
        src = core.gm_put(x.reshape(-1).view(np.uint16) if t == "bf16" else x.reshape(-1))
        if t == "bf16":
            src = src.cast(et)
        gt = pto.GlobalTensor[et, pto.Shape[tuple(g)], pto.Stride[stride], lay](src)
        nz = () if sl == NB else (sl, 512)      # NZ / ZN: SLayout and SFractalSize 512
        tile = pto.Tile[(M, et, rows, cols, bl, -1, -1, *nz)](vr, vc)
        nbytes = rows * cols * size
        core.write("l1", 0, np.full(nbytes, FILL, np.uint8))
        pto.TASSIGN(tile, 0)
        pto.TLOAD(tile, gt)
        l1 = core.read("l1", 0, align(nbytes, 32))
    out = cbuf_to_gm(l1, *burst)
    assert_same_bytes(out[:golden.nbytes], golden, f"a2a3 {name}")
