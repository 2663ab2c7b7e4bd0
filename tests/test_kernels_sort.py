"""TSORT32 on the kernel backend (cuda_src/sort.cu through the host shim) against the NumPy
semantics, byte for byte over the whole of UB: every target (the simulator's partial block and
index-value ties, the NPUs' dropped or NaN-padded tail and positional ties, one idx row for
every row), every value type, with and without tmp, random valid shapes and memory (NaNs,
ties), with the kernel counted as having run."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.isa.sort.kernels as K
from ptogpu.backend import native_backend

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor


def _run(target, backend, ub, T, rows, cols, VR, VC, ivr, with_tmp):
    size = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
    with pto.Core(target, backend) as core:
        core.write("ub", 0, ub)
        src = pto.Tile[V, T, rows, cols, RM, VR, VC]()
        idx = pto.Tile[V, pto.uint32, rows, cols, RM, ivr, VC]()
        dst = pto.Tile[V, T, rows, cols * 8 // size, RM, VR, cols * 8 // size]()
        tmp = pto.Tile[V, T, 1, cols + 64]()
        for t, a in ((src, 0x0), (idx, 0x2000), (dst, 0x4000), (tmp, 0xC000)):
            pto.TASSIGN(t, a)
        try:
            pto.TSORT32(dst, src, idx, tmp) if with_tmp else pto.TSORT32(dst, src, idx)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        return "ok", core.read("ub", 0, 0x10000).tobytes()


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_the_kernel_gives_the_numpy_bytes(target, monkeypatch, kernel_backend):
    ran = []
    real = K.run_tsort32
    monkeypatch.setattr(K, "run_tsort32", lambda *a: ran.append(real(*a)) or ran[-1])
    rng = np.random.default_rng(["cpu", "a2a3", "a5"].index(target) + 7)
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(40):
            T = rng.choice([pto.float32, pto.half, pto.int32, pto.int16, pto.bfloat16])
            rows, cols = int(rng.integers(1, 4)), 32 * int(rng.integers(1, 4))
            VR, VC = int(rng.integers(0, rows + 1)), int(rng.integers(0, cols + 1))
            ivr = VR if rng.random() < 0.7 else int(rng.integers(0, rows + 1))
            ub = rng.integers(0, 256, 0x10000, dtype=np.uint8)
            ub[:0x800:7] = 0                      # ties (zeros), among NaN and other patterns
            args = (T, rows, cols, VR, VC, ivr, bool(rng.random() < 0.5))
            got = {be: _run(target, be, ub, *args) for be in ("numpy", kernel_backend)}
            assert got["numpy"] == got[kernel_backend], (target, args)
            cases += got["numpy"][0] == "ok"
    assert cases >= 10 and sum(ran) >= cases // 3, (cases, sum(ran))
