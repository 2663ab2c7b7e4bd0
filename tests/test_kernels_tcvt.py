"""TCVT on the kernel backend (cuda_src/cvt.cu through the host shim) against the NumPy
semantics, byte for byte over the whole of UB: every target's pairs, every RoundMode, saturation
on and off, over memory full of edge values (NaN payloads, signed zeros, infinities, denormals,
the types' extremes, rounding ties) and random bits, with the kernel counted as having run."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.isa.tcvt.kernels as K
from ptogpu.backend import native_backend
from ptogpu.execution.inputs import edge_pool
from ptogpu.targets import get_target

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")

V = pto.TileType.Vec
TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "half", "bfloat16", "float32")


def _memory(rng, S: str) -> np.ndarray:
    dt = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(S)))
    ub = rng.integers(0, 256, 0x4000, dtype=np.uint8)
    n = 0x2000 // dt.itemsize
    vals = ub[:0x2000].view(dt).copy()
    pool = edge_pool(S)
    pick = rng.random(n) < 0.6
    vals[pick] = pool[rng.integers(0, pool.size, int(pick.sum()))]
    ub[:0x2000] = vals.view(np.uint8)
    return ub


def _run(target, backend, ub, S, D, mode, sat):
    ss, ds = (np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(x))).itemsize for x in (S, D))
    with pto.Core(target, backend) as core:
        core.write("ub", 0, ub)
        src, dst = pto.Tile[V, getattr(pto, S), 4, 256 // ss](), pto.Tile[V, getattr(pto, D), 4, 256 // ss]()
        pto.TASSIGN(src, 0x0)
        pto.TASSIGN(dst, 0x2000)
        try:
            pto.TCVT(dst, src, mode) if sat is None else pto.TCVT(dst, src, mode, sat)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        return "ok", core.read("ub", 0, 0x4000).tobytes()


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_the_kernel_gives_the_numpy_bytes(target, monkeypatch, kernel_backend):
    ran = []
    real = K.run
    monkeypatch.setattr(K, "run", lambda *a, **k: ran.append(real(*a, **k)) or ran[-1])
    pairs = sorted(get_target(target).tcvt.pairs or [(a, b) for a in TYPES for b in TYPES])
    pairs = [p for p in pairs if p[0] in TYPES and p[1] in TYPES]
    rng = np.random.default_rng(["cpu", "a2a3", "a5"].index(target))
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for S, D in pairs:
            for mode in pto.RoundMode:
                sat = [None, pto.SaturationMode.ON, pto.SaturationMode.OFF][int(rng.integers(0, 3))]
                ub = _memory(rng, S)
                got = {be: _run(target, be, ub, S, D, mode, sat) for be in ("numpy", kernel_backend)}
                if got["numpy"] != got[kernel_backend]:
                    a, b = (np.frombuffer(got[k][1], np.uint8) for k in ("numpy", kernel_backend))
                    at = int(np.flatnonzero(a != b)[0]) if got["numpy"][0] == got[kernel_backend][0] == "ok" else -1
                    raise AssertionError((target, S, D, mode, sat, at, got["numpy"][0], got[kernel_backend][0]))
                cases += got["numpy"][0] == "ok"
    assert cases >= 20 and sum(ran) >= cases // 2, (cases, sum(ran))


F8 = ("float8_e4m3", "float8_e5m2", "hifloat8")


@pytest.mark.parametrize("target", ["cpu", "a5"])
def test_the_kernel_converts_the_8_bit_floats_as_numpy(target, monkeypatch, kernel_backend):
    """Both models (A5's vcvt: OCP e4m3/e5m2 and HiFloat8 with ties away; the simulator's
    MXType and its hifloat8 table) in the kernel, every pair with an 8-bit side each target
    compiles, over every 8-bit code and the wider types' edge values."""
    ran = []
    real = K.run
    monkeypatch.setattr(K, "run", lambda *a, **k: ran.append(real(*a, **k)) or ran[-1])
    every = TYPES + F8
    pairs = sorted(get_target(target).tcvt.pairs or [(a, b) for a in every for b in every])
    pairs = [p for p in pairs if (p[0] in F8 or p[1] in F8) and p[0] in every and p[1] in every]
    rng = np.random.default_rng(7)
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for S, D in pairs:
            for mode, sat in ((pto.RoundMode.CAST_RINT, None), (pto.RoundMode.CAST_ROUND, pto.SaturationMode.ON),
                              (pto.RoundMode.CAST_TRUNC, pto.SaturationMode.OFF)):
                ub = _memory(rng, S) if S not in F8 else np.resize(np.arange(256, dtype=np.uint8), 0x4000)
                got = {be: _run(target, be, ub, S, D, mode, sat) for be in ("numpy", kernel_backend)}
                assert got["numpy"] == got[kernel_backend], (target, S, D, mode, sat, got["numpy"][0])
                cases += got["numpy"][0] == "ok"
    assert len(pairs) >= (7 if target == "a5" else 60) and cases and sum(ran) == cases, (len(pairs), cases, sum(ran))


def test_the_kernel_runs_a2a3_nonsattorch_tmp_form_as_numpy(monkeypatch, kernel_backend):
    """TCVT(dst, src, tmp, mode, OFF) on A2/A3's NonSatTorch pairs: saturated to int32 (NaN 0),
    its low bits kept, every RoundMode."""
    ran = []
    real = K.run
    monkeypatch.setattr(K, "run", lambda *a, **k: ran.append(real(*a, **k)) or ran[-1])
    rng = np.random.default_rng(11)
    for S, D in get_target("a2a3").tcvt.torch_pairs:
        for mode in pto.RoundMode:
            ub = _memory(rng, S)
            got = {}
            for be in ("numpy", kernel_backend):
                with pto.Core("a2a3", be) as core:
                    core.write("ub", 0, ub)
                    src, dst = pto.Tile[V, getattr(pto, S), 4, 64](), pto.Tile[V, getattr(pto, D), 4, 64]()
                    tmp = pto.Tile[V, pto.int32, 4, 64]()
                    for t, at in ((src, 0x0), (dst, 0x2000), (tmp, 0x3000)):
                        pto.TASSIGN(t, at)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        pto.TCVT(dst, src, tmp, mode, pto.SaturationMode.OFF)
                    got[be] = core.read("ub", 0, 0x4000).tobytes()
            assert got["numpy"] == got[kernel_backend], (S, D, mode)
    assert len(ran) == 2 * len(get_target("a2a3").tcvt.torch_pairs) * len(pto.RoundMode) and all(ran[1::2]), ran
