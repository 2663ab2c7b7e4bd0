"""Register-level (SIMD) lane maps agree with what TGATHERB / TINTERLEAVE write on A5."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto
from ptogpu.simt.simd import tgatherb_map, tinterleave_map

BACKENDS = ["numpy", "native"]


def _core(backend):
    if backend == "native":
        from ptogpu.backend import backend_available
        ok, why = backend_available("native")
        if not ok:
            pytest.skip(why)
    return pto.Core("a5", backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("VR,VC", [(2, 64), (3, 72), (1, 200), (4, 8)])
def test_tgatherb_map_sources(backend, VR, VC):
    rng = np.random.default_rng(VC)
    with _core(backend):
        nb = -(-VC // 8)
        stride = max(8, -(-nb // 8) * 8)
        SrcT = pto.Tile[pto.TileType.Vec, pto.int32, 64, 64]
        DstT = pto.Tile[pto.TileType.Vec, pto.int32, VR, -(-VC // 8) * 8, pto.BLayout.RowMajor, VR, VC]
        OffT = pto.Tile[pto.TileType.Vec, pto.uint32, VR, stride]
        src, dst, off = SrcT(), DstT(), OffT()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(off, 0x4000)
        pto.TASSIGN(dst, 0x8000)
        src.set(np.arange(64 * 64, dtype=np.int32).reshape(64, 64))
        offs = (rng.integers(0, 64 * 64 // 8, (VR, stride)) * 32).astype(np.uint32)
        off.set(offs)
        pto.TGATHERB(dst, src, off)
        out = dst.numpy()
    m = tgatherb_map(VR, VC, "int32", offs, stride)
    np.testing.assert_array_equal(out[m.r, m.c], m.src_off // 4)
    met = m.metrics()
    assert met["vector_stores"] == VR * -(-VC // 64)
    assert met["elements"] == VR * VC and met["lane_utilisation"] == VC / (64 * -(-VC // 64))


@pytest.mark.filterwarnings("ignore:.*odd valid cols")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype,VC", [(pto.int32, 64), (pto.int32, 200), (pto.half, 130), (pto.int32, 9)])
def test_tinterleave_map_sources(backend, dtype, VC):
    VR = 3
    with _core(backend):
        size = np.dtype(dtype).itemsize
        cols = -(-VC * size // 32) * 32 // size
        T = pto.Tile[pto.TileType.Vec, dtype, VR, cols, pto.BLayout.RowMajor, VR, VC]
        d1, d0, s1, s0 = T(), T(), T(), T()
        for k, t in enumerate((d1, d0, s1, s0)):
            pto.TASSIGN(t, 0x2000 * k)
        RS, OFF = (400, 200) if size == 2 else (1000, 500)      # exact in fp16 (< 2048)
        base = np.arange(VR)[:, None] * RS + np.arange(VC)[None, :]
        s0.set(base.astype(dtype))
        s1.set((base + OFF).astype(dtype))
        pto.TINTERLEAVE(d1, d0, s1, s0)
        outs = (d0.numpy().astype(np.int64), d1.numpy().astype(np.int64))
    m = tinterleave_map(VR, VC, np.dtype(dtype))
    want = m.r * RS + m.src_off + OFF * m.src
    got = np.where(m.dst == 0, outs[0][m.r, m.c], outs[1][m.r, m.c])
    np.testing.assert_array_equal(got, want)


def test_tinterleave_lanes_and_stores():
    m = tinterleave_map(1, 200, "float32")           # E = 64, h = 100, R = 2 chunks per pass
    met = m.metrics()
    assert met["vector_stores"] == 2 * 4               # lo+hi per chunk, 2 chunks, 2 passes
    assert set(m.lane.tolist()) == set(range(64))
    assert met["elements"] == 400
