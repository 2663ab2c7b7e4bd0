"""Tiles and GlobalTensors are arrays to the ecosystem, and arrays of any library go in with
one casting rule: a value that would change is refused with a message."""
from __future__ import annotations

import numpy as np
import pytest

import ptogpu as pto

V = pto.TileType.Vec


def _tile(dtype, rows=2, cols=8, addr=0):
    t = pto.Tile[V, dtype, rows, cols]()
    pto.TASSIGN(t, addr)
    return t


class _OnlyDLPack:
    """A foreign array that offers nothing but the DLPack protocol (as torch, JAX do)."""

    def __init__(self, a):
        self._a = a

    def __dlpack__(self, **kw):
        return self._a.__dlpack__(**kw)

    def __dlpack_device__(self):
        return self._a.__dlpack_device__()


def test_tile_and_global_tensor_are_arrays():
    with pto.Core("a5", "numpy") as core:
        t = _tile(pto.int32)
        vals = np.arange(16, dtype=np.int32).reshape(2, 8)
        t.set(vals)
        assert np.asarray(t).tobytes() == vals.tobytes() and np.asarray(t).dtype == np.int32
        assert np.from_dlpack(t).tobytes() == vals.tobytes() and t.__dlpack_device__() == (1, 0)
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 2, 3, 4], pto.Stride[24, 24, 12, 4, 1]]
        g = G(core.gm_put(np.arange(24, dtype=np.float32)))
        assert g.numpy().shape == (1, 1, 2, 3, 4)
        assert np.asarray(g).reshape(-1).tobytes() == np.arange(24, dtype=np.float32).tobytes()
        assert np.from_dlpack(g).shape == (1, 1, 2, 3, 4)
        # a strided view: every other element of a 2x8 block (stride 2 along dim 4)
        H = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 2, 4], pto.Stride[16, 16, 16, 8, 2]]
        h = H(core.gm_put(np.arange(16, dtype=np.float32)))
        assert h.numpy().reshape(2, 4).tolist() == [[0, 2, 4, 6], [8, 10, 12, 14]]


def test_global_tensor_outside_gm_is_a_fault():
    with pto.Core("a5", "numpy") as core:
        G = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, -1], pto.Stride[1, 1, 1, 1, 1]]
        p = core.gm_put(np.zeros(4, np.float32))
        with pytest.raises(pto.PtoFault):
            G(p, pto.Shape[1, 1, 1, 1, -1](1 << 40)).numpy()
        with pytest.raises(pto.PtoFault):
            G(p + (core.gm.size // 4 - 2), pto.Shape[1, 1, 1, 1, -1](8)).numpy()   # past GM's end


def test_bf16_and_fp8_tiles_round_trip_bytes_through_asarray():
    with pto.Core("a5", "numpy"):
        for dt in (pto.bfloat16, pto.float8_e4m3, pto.float8_e5m2, pto.half):
            t = _tile(dt, cols=32)
            raw = np.arange(64, dtype=np.uint8 if dt.itemsize == 1 else np.uint16).reshape(2, 32)
            v = raw.view(dt)
            t.set(v)                                          # same type: bytes exact, NaNs too
            assert np.asarray(t).view(raw.dtype).tobytes() == raw.tobytes()


def test_foreign_arrays_go_in_through_dlpack():
    with pto.Core("a5", "numpy") as core:
        t = _tile(pto.float32)
        vals = np.linspace(-1, 1, 16, dtype=np.float32).reshape(2, 8)
        t.set(_OnlyDLPack(vals))
        assert t.numpy().tobytes() == vals.tobytes()
        p = core.gm_put(_OnlyDLPack(vals.reshape(-1)))
        assert core.read("gm", p.addr, 64).tobytes() == vals.tobytes() and p.dtype == np.float32


def test_lossless_casts_are_taken_and_lossy_ones_refused():
    with pto.Core("a5", "numpy") as core:
        i8 = _tile(pto.int8, cols=32)
        i8.set(np.full((2, 32), 100, np.int64))               # fits
        assert (i8.numpy() == 100).all()
        i8.set(np.full((2, 32), -3.0))                        # an integral float fits
        assert (i8.numpy() == -3).all()
        with pytest.raises(ValueError, match="300.*does not fit int8"):
            i8.set(np.full((2, 32), 300))
        with pytest.raises(ValueError, match="not an integer"):
            i8.set(np.full((2, 32), 1.5))
        with pytest.raises(ValueError, match="not an integer"):
            i8.set(np.full((2, 32), np.nan))
        u32 = _tile(pto.uint32, addr=0x100)
        with pytest.raises(ValueError, match="does not fit uint32"):
            u32.set(np.full((2, 8), -1))
        u32.set(np.full((2, 8), 2**32 - 1, np.uint64))
        assert (u32.numpy() == 2**32 - 1).all()
        h = _tile(pto.half, cols=16, addr=0x200)
        h.set(np.full((2, 16), 0.1))                           # float rounding is the conversion
        assert h.numpy()[0, 0] == np.float16(0.1)
        with pytest.raises(ValueError, match="overflows half"):
            h.set(np.full((2, 16), 1e6))
        h.set(np.full((2, 16), np.inf))                        # infinities stay infinities
        assert np.isinf(h.numpy()).all()
        with pytest.raises(ValueError, match="complex"):
            h.set(np.full((2, 16), 1j))
        with pytest.raises(ValueError, match="does not fit int16"):
            core.gm_put(np.array([40000]), pto.int16)
        before = core.read("ub", 0, 64).tobytes()
        with pytest.raises(ValueError):
            i8.set(np.arange(64).reshape(2, 32) * 10)          # a refused set writes nothing
        assert core.read("ub", 0, 64).tobytes() == before


def test_cupy_arrays_go_in_where_a_device_answers():
    cupy = pytest.importorskip("cupy")
    try:
        x = cupy.arange(16, dtype=cupy.int32).reshape(2, 8)
    except Exception as e:                                      # no device here
        pytest.skip(f"no CUDA device: {type(e).__name__}")
    with pto.Core("a5", "numpy"):
        t = _tile(pto.int32)
        t.set(x)
        assert t.numpy().tolist() == x.get().tolist()
