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
def test_the_kernel_gives_the_numpy_bytes(target, monkeypatch, kernel_backend):
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
            got = {be: _run(target, be, ub, T, shapes) for be in ("numpy", kernel_backend)}
            assert got["numpy"] == got[kernel_backend], (target, T, shapes)
            cases += got["numpy"][0] == "ok"
    assert cases >= 15 and sum(ran) >= cases // 2, (cases, sum(ran))


def _relayout(backend, ub, T, form, shapes):
    (sr, sc, svr, svc), (dr, dc, dvr, dvc) = shapes
    CM, NB, SR, SC = pto.BLayout.ColMajor, pto.SLayout.NoneBox, pto.SLayout.RowMajor, pto.SLayout.ColMajor
    plus1 = form == "nz_plus1"           # a CompactMode::RowPlusOne dst of one more row (a5/TMov.hpp:517-520)
    form = "nz" if plus1 else form
    dr += plus1
    compact = pto.CompactMode.RowPlusOne if plus1 else pto.CompactMode.Null
    src_bl, src_sl, dst_bl, dst_sl, loc = {"nz": (RM, NB, CM, SR, V), "zn": (RM, NB, RM, SC, V),
                                           "flat": (RM, NB, CM, SR, pto.TileType.Mat),
                                           "nz_bursts": (CM, SR, CM, SR, pto.TileType.Mat)}[form]
    with pto.Core("a5", backend) as core:
        core.write("ub", 0, ub)
        core.write("l1", 0, ub[::-1].copy())
        src = pto.Tile[V, T, sr, sc, src_bl, -1, -1, src_sl](svr, svc)
        dst = pto.Tile[loc, T, dr, dc, dst_bl, -1, -1, dst_sl, 512, pto.PadValue.Null, compact](dvr, dvc)
        pto.TASSIGN(src, 0x0)
        pto.TASSIGN(dst, 0x4000 if loc == V else 0x100)
        try:
            pto.TMOV(dst, src)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        return "ok", core.read("ub", 0, 0x8000).tobytes(), core.read("l1", 0, 0x8000).tobytes()


@pytest.mark.parametrize("form", ["nz", "nz_plus1", "zn", "flat", "nz_bursts"])
def test_a5_relayouts_give_the_numpy_bytes(form, monkeypatch, kernel_backend):
    """A5's ND -> NZ (and into a RowPlusOne tile) and ND -> ZN (UB) and Vec -> Mat (L1, flat and
    NZ bursts) as tile_move_map."""
    ran = []
    real = K.run_map
    monkeypatch.setattr(K, "run_map", lambda *a: ran.append(real(*a)) or ran[-1])
    rng = np.random.default_rng(["nz", "zn", "flat", "nz_bursts", "nz_plus1"].index(form) + 40)
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(30):
            T = rng.choice([pto.int8, pto.half, pto.float32])
            c0 = 32 // np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
            rows, cols = 16 * int(rng.integers(1, 4)), max(c0, 16) * int(rng.integers(1, 4))
            d_rows = rows if rng.random() < 0.7 else 16 * int(rng.integers(1, 4))
            svr, svc = int(rng.integers(1, rows + 1)), int(rng.integers(1, cols + 1))
            dvr, dvc = int(rng.integers(1, d_rows + 1)), int(rng.integers(1, cols + 1))
            shapes = ((rows, cols, svr, svc), (d_rows, cols, dvr, dvc))
            ub = rng.integers(0, 256, 0x8000, dtype=np.uint8)
            got = {be: _relayout(be, ub, T, form, shapes) for be in ("numpy", kernel_backend)}
            assert got["numpy"] == got[kernel_backend], (form, T, shapes)
            cases += got["numpy"][0] == "ok"
    assert cases >= 10 and sum(ran) >= cases // 2, (cases, sum(ran))


def test_the_simulators_converting_tmov_runs_tcvts_kernel_as_numpy(monkeypatch, kernel_backend):
    """cpu/TMov.hpp assigns element by element: between types, a C++ cast (toward zero, no
    saturation; the 8-bit floats' classes too) -- the simulator's TCVT cast, which TCVT's kernel
    runs; every pair of types, over edge values and random bits."""
    import ptogpu.isa.tcvt.kernels as C
    from ptogpu.execution.inputs import edge_pool
    ran = []
    real = C.run
    monkeypatch.setattr(C, "run", lambda *a, **k: ran.append(real(*a, **k)) or ran[-1])
    types = ("int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "half", "bfloat16", "float32",
             "float8_e4m3", "float8_e5m2", "hifloat8")
    rng = np.random.default_rng(5)
    for S in types:
        ss = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(S))).itemsize
        ub = rng.integers(0, 256, 0x8000, dtype=np.uint8)
        pool = edge_pool(S).view(np.uint8)
        ub[:pool.size] = pool
        for D in types:
            if D == S:
                continue
            got = {}
            for be in ("numpy", kernel_backend):
                with pto.Core("cpu", be) as core:
                    core.write("ub", 0, ub)
                    vc = min(40, 256 // ss)
                    src = pto.Tile[V, getattr(pto, S), 4, 256 // ss, RM, 3, vc]()
                    dst = pto.Tile[V, getattr(pto, D), 4, 256 // ss, RM, 3, vc]()
                    pto.TASSIGN(src, 0x0)
                    pto.TASSIGN(dst, 0x4000)
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        pto.TMOV(dst, src)
                    got[be] = core.read("ub", 0, 0x8000).tobytes()
            assert got["numpy"] == got[kernel_backend], (S, D)
    assert sum(ran) == len(types) * (len(types) - 1), sum(ran)
