"""TMRGSORT on the kernel backend (cuda_src/sort.cu ``tile_mrgsort`` through the host shim)
against the NumPy semantics, byte for byte over the whole of UB and in the executed counts:
every target (the simulator's record-by-record merge into dst, capped by dst and reading what it
wrote; the NPUs' merge into tmp then whole 32-byte blocks to dst), 2 to 4 lists, exhausted mode,
the single-list form, every value type each target takes, lists that share bytes with dst, random
valid shapes and memory (NaN heads, ties), with the kernel counted as having run."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import ptogpu as pto
import ptogpu.isa.sort.kernels as K
from ptogpu.backend import native_backend

pytestmark = pytest.mark.skipif(not native_backend.available()[0], reason="no native backend")

V, RM = pto.TileType.Vec, pto.BLayout.RowMajor
TYPES = {"cpu": [pto.float32, pto.half, pto.bfloat16, pto.int32, pto.uint16, pto.int8, pto.int64],
         "a2a3": [pto.float32, pto.half], "a5": [pto.float32, pto.half]}


def _lists(target, backend, ub, T, nl, vcs, dvc, addrs, exhausted):
    size = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
    cols = 256 // size
    with pto.Core(target, backend) as core:
        core.write("ub", 0, ub)
        srcs = [pto.Tile[V, T, 1, cols, RM, 1, vcs[j]]() for j in range(nl)]
        dst = pto.Tile[V, T, 1, 4 * cols, RM, 1, dvc]()
        tmp = pto.Tile[V, T, 1, 4 * cols]()
        for t, a in zip([*srcs, dst, tmp], addrs):
            pto.TASSIGN(t, a)
        ex = pto.MrgSortExecutedNumList()
        try:
            pto.TMRGSORT[exhausted](dst, ex, tmp, *srcs)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        counts = [ex.mrgSortList0, ex.mrgSortList1, ex.mrgSortList2, ex.mrgSortList3]
        return "ok", core.read("ub", 0, 0x4000).tobytes(), counts


def _single(target, backend, ub, T, svc, dvc, block, same):
    size = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
    cols = 1024 // size
    with pto.Core(target, backend) as core:
        core.write("ub", 0, ub)
        src = pto.Tile[V, T, 1, cols, RM, 1, svc]()
        dst = pto.Tile[V, T, 1, cols, RM, 1, dvc]()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(dst, 0 if same else 0x1000)
        try:
            pto.TMRGSORT(dst, src, block)
        except (pto.PtoCheckError, pto.PtoFault) as e:
            return type(e).__name__, str(e)
        return "ok", core.read("ub", 0, 0x2000).tobytes()


def _memory(rng, n):
    ub = rng.integers(0, 256, n, dtype=np.uint8)
    ub[::5] = 0                                     # ties (zeros) among NaNs and other patterns
    return ub


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_the_merge_kernel_gives_the_numpy_bytes_and_counts(target, monkeypatch, kernel_backend):
    ran = []
    real = K.run_tmrgsort
    monkeypatch.setattr(K, "run_tmrgsort", lambda *a: ran.append(real(*a)) or ran[-1])
    rng = np.random.default_rng(["cpu", "a2a3", "a5"].index(target) + 11)
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(60):
            T = TYPES[target][int(rng.integers(len(TYPES[target])))]
            size = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
            nl = int(rng.integers(2, 5))
            vcs = [int(rng.integers(0, 256 // size + 1)) for _ in range(nl)]
            dvc = int(rng.integers(0, 1024 // size + 1))
            addrs = [0x100 * j for j in range(nl)] + [0x800, 0x1800]
            if rng.random() < 0.25:
                addrs[-2] = addrs[0]                # dst is list 0 (the top-k merges a row into itself)
            if rng.random() < 0.1:
                addrs[-1] = addrs[1]                # tmp is list 1
            if rng.random() < 0.1:
                addrs[-2] = 0x3F00                  # dst runs past UB's first 16 KiB: fine, or a fault
            args = (T, nl, vcs, dvc, addrs, bool(rng.random() < 0.5))
            ub = _memory(rng, 0x4000)
            got = {be: _lists(target, be, ub, *args) for be in ("numpy", kernel_backend)}
            assert got["numpy"] == got[kernel_backend], (target, args)
            cases += got["numpy"][0] == "ok"
    assert cases >= 30 and sum(ran) >= cases // 2, (cases, sum(ran))


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_the_single_list_kernel_gives_the_numpy_bytes(target, monkeypatch, kernel_backend):
    ran = []
    real = K.run_tmrgsort_single
    monkeypatch.setattr(K, "run_tmrgsort_single", lambda *a: ran.append(real(*a)) or ran[-1])
    rng = np.random.default_rng(["cpu", "a2a3", "a5"].index(target) + 21)
    cases = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(40):
            T = TYPES[target][int(rng.integers(len(TYPES[target])))]
            size = np.dtype(pto.dtypes.storage(pto.dtypes.as_dtype(T))).itemsize
            cols = 1024 // size
            block = int(rng.choice([0, 1, 2, 4, 8, 16, 24, 32, 64]))
            args = (T, int(rng.integers(0, cols + 1)), int(rng.integers(0, cols + 1)), block,
                    bool(rng.random() < 0.2))
            ub = _memory(rng, 0x2000)
            got = {be: _single(target, be, ub, *args) for be in ("numpy", kernel_backend)}
            assert got["numpy"] == got[kernel_backend], (target, args)
            cases += got["numpy"][0] == "ok"
    assert cases >= 20 and sum(ran) >= cases // 3, (cases, sum(ran))


def test_a_batch_of_instances_takes_its_counts_from_the_kernel(kernel_backend):
    """A core of N: each instance's lists, merged in one launch, with its own counts."""
    outs = {}
    for be in ("numpy", kernel_backend):
        with pto.Core("a5", be, batch=16) as core:
            ub = np.stack([_memory(np.random.default_rng(k), 0x800) for k in range(16)])
            core.write("ub", 0, ub, per_instance=True)
            a, b = pto.Tile[V, pto.float32, 1, 64](), pto.Tile[V, pto.float32, 1, 64]()
            dst, tmp = pto.Tile[V, pto.float32, 1, 128](), pto.Tile[V, pto.float32, 1, 128]()
            for t, addr in ((a, 0), (b, 0x100), (dst, 0x200), (tmp, 0x400)):
                pto.TASSIGN(t, addr)
            ex = pto.MrgSortExecutedNumList()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                pto.TMRGSORT[True](dst, ex, tmp, a, b)
            outs[be] = (core.read("ub", 0, 0x800).tobytes(), list(ex.mrgSortList0), list(ex.mrgSortList1))
    assert outs["numpy"] == outs[kernel_backend]
    assert len(set(outs["numpy"][1])) > 1            # instances took different counts
