"""TMOV between plain Vec tiles on the kernel backend (cuda_src/tmov.cu through the host shim)
against the NumPy semantics, byte for byte over the whole of UB: every target's copy (the
simulator's element loop, A2/A3's 32-byte bursts flat or per row, A5's row copy), random shapes,
valid regions and element sizes, with the kernel counted as having run."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.isa.tmov.kernels as K
from ptogpu.backend import native_backend

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor


def _run(target, backend, ub, T, shapes):
    (sr, sc, svr, svc), (dr, dc, dvr, dvc) = shapes
    with pto.Core(target, backend) as core:
        core.write("ub", 0, ub)
        src, dst = pto.Tile[V, T, sr, sc, RM, svr, svc](), pto.Tile[V, T, dr, dc, RM, dvr, dvc]()
        pto.TASSIGN(src, 0x0)
        pto.TASSIGN(dst, 0x4000)
        try:
            pto.TMOV(dst, src)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        return "ok", core.read("ub", 0, 0x8000).tobytes()


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_the_kernel_gives_the_numpy_bytes(target, monkeypatch):
    ran = []
    real = K.run
    monkeypatch.setattr(K, "run", lambda core, d, s: ran.append(real(core, d, s)) or ran[-1])
    rng = np.random.default_rng(["cpu", "a2a3", "a5"].index(target))
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(60):
            T = rng.choice([pto.int8, pto.half, pto.float32, pto.int64])
            e = 32 // np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
            rows, cols = int(rng.integers(1, 9)), e * int(rng.integers(1, 5))
            d_rows, d_cols = (rows, cols) if rng.random() < 0.6 else (int(rng.integers(1, 9)), e * int(rng.integers(1, 5)))
            svr, svc = int(rng.integers(0, rows + 1)), int(rng.integers(0, cols + 1))
            dvr, dvc = ((min(svr, d_rows), min(svc, d_cols)) if rng.random() < 0.5 else
                        (int(rng.integers(0, d_rows + 1)), d_cols if rng.random() < 0.3 else int(rng.integers(0, d_cols + 1))))
            shapes = ((rows, cols, svr, svc), (d_rows, d_cols, dvr, dvc))
            ub = rng.integers(0, 256, 0x8000, dtype=np.uint8)
            got = {be: _run(target, be, ub, T, shapes) for be in ("numpy", "native")}
            assert got["numpy"] == got["native"], (target, T, shapes)
            cases += got["numpy"][0] == "ok"
    assert cases >= 15 and sum(ran) >= cases // 2, (cases, sum(ran))
