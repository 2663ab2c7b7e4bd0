"""TCMP / TCMPS / TSEL / TSELS on the kernel backend (cuda_src/compare.cu through the host shim)
against the NumPy semantics, byte for byte over the whole of UB: every target, every element
type, every CmpMode, random valid shapes and memory (NaN patterns, infinities, signed zeros
among the random bytes), with the kernel counted as having run -- a call the kernel declines
runs NumPy, which would make the comparison vacuous."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.isa.compare.kernels as K
from ptogpu.backend import native_backend

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
TYPES = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "half", "bfloat16", "float32")


def _run(target, backend, ub, call, T, mdt, VR, VC, mode, scal, in_place=False):
    cols = 256 // np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
    with pto.Core(target, backend) as core:
        core.write("ub", 0, ub)
        S = pto.Tile[V, getattr(pto, T), 4, cols, RM, VR, VC]
        s0, s1, d = S(), S(), S()
        mc = 32 if mdt == "uint8" else 8
        m = pto.Tile[V, getattr(pto, mdt), 4, mc, RM, VR, mc]()
        tmp = pto.Tile[V, pto.int32, 1, 8]()
        at = {"TSEL": 0x1000, "TSELS": 0x0}.get(call, 0x2000) if in_place else 0x2000   # dst = its source
        for t, a in ((s0, 0x0), (s1, 0x1000), (d, at), (m, 0x3000), (tmp, 0x3800)):
            pto.TASSIGN(t, a)
        try:
            if call == "TCMP":
                pto.TCMP(m, s0, s1, mode)
            elif call == "TCMPS":
                pto.TCMPS(m, s0, scal, mode)
            elif call == "TSEL":
                pto.TSEL(d, m, s0, s1, tmp)
            else:
                pto.TSELS(d, m, s0, tmp, scal)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        return "ok", core.read("ub", 0, 0x4000).tobytes()


def _random_calls(target, call, kernel_backend, seed, n, in_place=False):
    """``n`` random calls on both backends, compared; the cases that ran and the kernel's runs."""
    ran = []
    real = K._launch
    rng = np.random.default_rng(seed)
    cases = 0
    with warnings.catch_warnings(), pytest.MonkeyPatch.context() as mp:
        mp.setattr(K, "_launch", lambda core, w: ran.append(real(core, w)) or ran[-1])
        warnings.simplefilter("ignore")
        for _ in range(n):
            T = str(rng.choice(TYPES))
            size = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
            VR, VC = int(rng.integers(1 if in_place else 0, 5)), int(rng.integers(1, 256 // size + 1))
            mode = pto.CmpMode(int(rng.integers(0, 6)))
            mdt = str(rng.choice(["uint8", "uint32"])) if target == "cpu" else "uint8"
            scal = int(rng.choice([0, 1, 3, 7])) if "int" in T else float(rng.choice([0.0, -0.0, np.nan, 1.5, np.inf]))
            ub = rng.integers(0, 256, 0x8000, dtype=np.uint8)
            got = {be: _run(target, be, ub, call, T, mdt, VR, VC, mode, scal, in_place)
                   for be in ("numpy", kernel_backend)}
            assert got["numpy"] == got[kernel_backend], (target, call, T, mode, VR, VC, mdt, scal, in_place)
            cases += got["numpy"][0] == "ok"
    return cases, sum(ran)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("call", ["TCMP", "TCMPS", "TSEL", "TSELS"])
def test_the_kernel_gives_the_numpy_bytes(target, call, kernel_backend):
    seed = ["cpu", "a2a3", "a5"].index(target) * 4 + ["TCMP", "TCMPS", "TSEL", "TSELS"].index(call)
    cases, ran = _random_calls(target, call, kernel_backend, seed, 40)
    assert cases >= 5 and ran >= cases // 2, (cases, ran)


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("call", ["TSEL", "TSELS"])
def test_select_in_place_runs_the_kernel_with_the_numpy_bytes(target, call, kernel_backend):
    """TSEL(dst, mask, src0, dst) (the hash probe's form) and TSELS(dst, mask, dst, s): a source
    that is dst itself is read element by element before that element is written, as NumPy's
    read-everything-first gives: the kernel runs (no NumPy fallback) and gives NumPy's bytes."""
    cases, ran = _random_calls(target, call, kernel_backend, 40 + ["cpu", "a2a3", "a5"].index(target) * 2
                               + (call == "TSELS"), 20, in_place=True)
    assert cases >= 10 and ran >= cases, (cases, ran)
