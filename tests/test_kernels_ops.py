"""Kernels of every other instruction family against the NumPy backend, byte for byte:
the DMA burst executor (dma.cu), MGATHER GM->L1 (mgather_l1.cu), TGATHERB (tgatherb.cu),
TINTERLEAVE / TDEINTERLEAVE (interleave.cu) and Reg::Gather / GatherB (reg_gather.cu).

Each random case runs twice from one seed, on a ``numpy`` core and on a ``native`` core (the
.cu sources compiled for the CPU through the host shim); GM, UB and L1 are compared as raw
bytes, faults must be the same fault (type and message), warnings the same warnings, and
returned register contents equal. Every test also asserts that the kernels really ran (a
counter on the launcher), so a silent NumPy fallback cannot pass for a kernel. The spec suites
of these instructions also run unchanged with every Core on native (tests/native_as_numpy_plugin.py).
"""
from __future__ import annotations

import collections
import os
import subprocess
import sys
import warnings
import zlib

import numpy as np
import pytest

import ptogpu as pto
from ptogpu import reg
from ptogpu.backend import backend_available, kernels
from ptogpu.semantics import dma

NATIVE_OK, NATIVE_WHY = backend_available("native")
pytestmark = pytest.mark.skipif(not NATIVE_OK, reason=f"native backend unavailable: {NATIVE_WHY}")
V, M = pto.TileType.Vec, pto.TileType.Mat
RM, CM = pto.BLayout.RowMajor, pto.BLayout.ColMajor
SRM = pto.SLayout.RowMajor
OOBS = tuple(pto.GatherOOB)
ADV32 = (2 ** 32 - 1, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 32, 0xFFFFFFE0)


class Counter:
    """Counts kernel launches by name (patched into ptogpu.backend.kernels)."""

    def __init__(self, monkeypatch=None):
        self.n = collections.Counter()
        orig = kernels.backend_module
        me = self

        def counting(name):
            mod = orig(name)

            class Wrap:
                @staticmethod
                def launch_raw(kernel, *a, **k):
                    me.n[kernel] += 1
                    return mod.launch_raw(kernel, *a, **k)
            return Wrap
        self._orig, self._new = orig, counting

    def __enter__(self):
        kernels.backend_module = self._new
        return self

    def __exit__(self, *exc):
        kernels.backend_module = self._orig


def run_both(target, build, seed, backend="native", quirks=None):
    """Run ``build(core, rng)`` on numpy and on ``backend``; assert identical effects.
    Returns (outcome, kernel launch counter)."""
    res = []
    counter = Counter()
    for be in ("numpy", backend):
        core = pto.Core(target, be, quirks=quirks)
        rng = np.random.default_rng(seed)
        for s in ("ub", "l1"):
            core.write(s, 0, rng.integers(0, 256, core.arena(s).size, dtype=np.uint8))
        err, out = None, None
        with core, warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                if be == "numpy":
                    out = build(core, rng)
                else:
                    with counter:
                        out = build(core, rng)
            except pto.PtoError as e:
                err = e
        res.append((core, err, out, [str(x.message) for x in w]))
    (c0, e0, o0, w0), (c1, e1, o1, w1) = res
    assert type(e0) is type(e1), f"seed {seed}: numpy {e0!r} vs {backend} {e1!r}"
    if e0 is not None:
        assert str(e0) == str(e1), f"seed {seed}: messages differ"
    assert w0 == w1, f"seed {seed}: warnings differ: {w0} vs {w1}"
    if o0 is not None:
        assert np.array_equal(np.asarray(o0).view(np.uint8), np.asarray(o1).view(np.uint8)), seed
    for s in ("gm", "ub", "l1"):
        a, b = c0.arena(s), c1.arena(s)
        assert a.size == b.size, (seed, s)
        if not np.array_equal(a.data, b.data):
            d = np.flatnonzero(a.data != b.data)
            raise AssertionError(f"seed {seed}: {s} differs at {d.size} bytes, first {d[:8]}")
    return ("fault" if e0 is not None else "ok"), counter.n


def _seeds(tag, n):
    return [zlib.crc32(f"{tag}/{k}".encode()) for k in range(n)]


# ---- the DMA burst executor ---------------------------------------------------------------
def build_bursts(dst_space):
    def build(core, r):
        elem = int(r.choice([1, 2, 4, 8]))
        K = int(r.integers(1, 40))
        da = core.arena(dst_space)
        src = core.gm_put(r.integers(0, 256, 8192, dtype=np.uint8)).addr
        s = src + r.integers(0, 6000, K) // elem * elem
        d = r.integers(0, 64, K) * 32 + (0 if r.random() < 0.8 else int(r.integers(0, 32)))
        if r.random() < 0.15:                                   # out of range, read or write
            (s if r.random() < 0.5 else d)[int(r.integers(0, K))] = \
                int(r.choice([-64, core.gm.size - 8, da.size - 16, 2 ** 40]))
        length = r.integers(0, 12, K) * elem if r.random() < 0.5 else int(r.integers(1, 12)) * elem
        left = int(r.integers(0, 32 // elem + 1)) * elem if r.random() < 0.4 else 0
        right = int(r.integers(0, 32 // elem + 1)) * elem if r.random() < 0.4 else 0
        pad = None if r.random() < 0.5 else bytes(r.integers(0, 256, elem, dtype=np.uint8))
        if pad is None and np.any(np.asarray(length) < elem):
            length = np.maximum(np.asarray(length), elem)
        b = dma.Bursts("TEST", "gm", dst_space, s, d, length, elem, left, right, pad,
                       fill=bool(r.random() < 0.7))
        hit = []
        dma.execute(core, b, prologue=lambda ks: hit.append(1) or core.write(dst_space, 0, b"\x00" * 64))
        return np.array(hit, np.uint8)
    return build


@pytest.mark.parametrize("dst", ["ub", "l1"])
def test_dma_bursts_random(dst):
    ran = 0
    for seed in _seeds(f"dma/{dst}", 60):
        out, n = run_both("a5", build_bursts(dst), seed)
        ran += n["dma_bursts"]
    assert ran >= 60


def test_dma_burst_list_batch_matches_numpy_one_by_one():
    """A batch of instances, each with its own burst list (per-instance parameter stride) and
    its own L1: equal to NumPy one by one; a faulting instance writes nothing."""
    from ptogpu.backend import dma_kernels, launch
    N, L1 = 6, pto.Core("a5", "numpy").l1.size
    rng = np.random.default_rng(5)
    gm = rng.integers(0, 256, 8192, dtype=np.uint8)
    lists = []
    for k in range(N):
        K = 9
        s = rng.integers(0, 8000, K)
        d = rng.integers(0, 100, K) * 32
        if k == 3:
            d[4] = L1 - 8                                        # L1 bound fault
        ln = rng.integers(1, 40, K)
        ln[4] = 40
        lists.append((s, d, ln))
    b0 = dma.Bursts("T", "gm", "l1", lists[0][0], lists[0][1], lists[0][2], 1, 0, 0, b"\x07")
    prms = [dma_kernels.burst_params(b0, s, d, ln) for s, d, ln in lists]
    P = np.stack(prms)
    l1 = np.zeros(N * L1, np.uint8)
    faults = launch.launch_batch("dma_bursts", N, {"gm": (gm, gm.size, 0), "l1": (l1, L1, L1)},
                                 P, prm_stride=P.shape[1], passes=2, backend="native")
    for k, (s, d, ln) in enumerate(lists):
        with pto.Core("a5", "numpy") as c:
            assert c.gm_put(gm).addr == 0
            c.l1.data[:] = 0
            b = dma.Bursts("T", "gm", "l1", s, d, ln, 1, 0, 0, b"\x07")
            try:
                dma.execute(c, b)
                bad = False
            except pto.PtoFault:
                bad = True
            assert bad == (int(faults[k, 0]) != kernels.NONE), k
            assert np.array_equal(l1[k * L1:(k + 1) * L1], c.l1.data[:L1]), k
    assert int(faults[3, 0]) >> 56 == 2                          # phase: destination write


# ---- MGATHER GM->L1 -----------------------------------------------------------------------
def build_l1(target, form, oob, dtype):
    def build(core, r):
        size = np.dtype(pto.dtypes.storage(dtype)).itemsize
        c0 = 32 // size
        rows = 16 * int(r.integers(1, 3))
        cols = c0 * int(r.integers(1, 4))
        VR, VC = int(r.integers(0, rows + 1)), int(r.integers(1, cols + 1))
        dT = pto.Tile[M, dtype, rows, cols, CM, VR, VC, SRM, 512]
        dst = dT()
        pto.TASSIGN(dst, 32 * int(r.integers(0, 40)) if r.random() < 0.95 else core.l1.size - 512)
        TR, TC = int(r.integers(1, 30)), VC + int(r.integers(0, 5))
        n = TR * TC + 64
        tptr = core.gm_put(r.integers(0, 256, n * size, dtype=np.uint8).view(pto.dtypes.storage(dtype)), dtype)
        shape = (1, 1, 1, TR, VC) if form == "row" else (1, 1, 1, 1, TR * TC)
        stride = (n, n, n, TC, 1)
        table = pto.GlobalTensor[dtype, pto.Shape[shape], pto.Stride[stride]](tptr)
        cap = TR if form == "row" else TR * TC
        m = max(VR, 1) * (VC if form != "row" else 1)
        vals = r.integers(0, cap + 3, m).astype(np.int64)
        pick = r.random(m) < 0.2
        vals[pick] = np.array(ADV32)[r.integers(0, len(ADV32), pick.sum())]
        itype = pto.int32 if r.random() < 0.7 else pto.uint32
        iv = (vals % 2 ** 32).astype(np.uint32).view(np.int32 if itype == pto.int32 else np.uint32)
        iptr = core.gm_put(iv, itype)
        if form == "row":
            idx = pto.GlobalTensor[itype, pto.Shape[1, 1, 1, 1, m], pto.Stride[m, m, m, m, 1]](iptr)
            pto.MGATHER[pto.Coalesce.Row, oob](dst, table, idx)
            return None
        idx = pto.GlobalTensor[itype, pto.Shape[1, 1, 1, max(VR, 1), VC],
                               pto.Stride[m, m, m, VC, 1]](iptr)
        N = rows * cols
        if r.random() < 0.1:                                    # the scratch aliases the table
            sptr = tptr + int(r.integers(0, n))
        else:
            sptr = core.gm_alloc(N, dtype)
        scratch = pto.GlobalTensor[dtype, pto.Shape[1, 1, 1, 1, N], pto.Stride[N, N, N, N, 1]](sptr)
        if form == "simt":
            pto.MGATHER[pto.Coalesce.Elem, oob, pto.GatherExec.Simt](dst, table, idx, scratch)
        else:
            pto.MGATHER[pto.Coalesce.Elem, oob](dst, table, idx, scratch)
        return None
    return build


L1_KERNEL = {"row": "mgather_l1_row", "scalar": "mgather_l1_elem_scalar", "simt": "mgather_l1_elem_simt"}


@pytest.mark.parametrize("target,form", [("a5", "row"), ("a5", "scalar"), ("a5", "simt"),
                                         ("a2a3", "row"), ("a2a3", "scalar")])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
def test_mgather_l1_random(target, form, oob):
    types = ("float32", "half", "int8", "uint16", "bfloat16", "int32")
    ran = 0
    for k, seed in enumerate(_seeds(f"l1/{target}/{form}/{oob.name}", 10)):
        _, n = run_both(target, build_l1(target, form, oob, types[k % len(types)]), seed)
        ran += n[L1_KERNEL[form]]
    assert ran >= 5


# ---- TGATHERB -------------------------------------------------------------------------------
def build_tgatherb(target):
    def build(core, r):
        dt = r.choice(["int8", "uint16", "half", "int32", "float32"])
        size = np.dtype(pto.dtypes.storage(dt)).itemsize
        E = 256 // size
        rows = int(r.integers(1, 6))
        cols = E * int(r.integers(1, 3)) if r.random() < 0.6 else (32 // size) * int(r.integers(1, 12))
        VR, VC = int(r.integers(0, rows + 1)), int(r.integers(1, cols + 1))
        if target == "cpu":
            VC = VC // (32 // size) * (32 // size)
        src = pto.Tile[V, dt, 16, E][()] if False else pto.Tile[V, dt, 16, E]()
        ocols = 8 * (-(-cols // E) + 1) * 2
        oT = pto.Tile[V, pto.uint32 if target != "cpu" or r.random() < 0.5 else pto.int16, rows, ocols]
        off = oT()
        dst = pto.Tile[V, dt, rows, cols, RM, VR, VC]()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(off, 0x4000)
        pto.TASSIGN(dst, 0x8000)
        o = r.integers(0, 16 * 256 // 32, off.Numel) * 32
        if r.random() < 0.3:
            o = o + r.integers(0, 32, off.Numel) * (r.random(off.Numel) < 0.2)
        if r.random() < 0.15:
            o[int(r.integers(0, o.size))] = int(r.choice(ADV32))
        core.write("ub", off.addr, (o % 2 ** 32).astype(np.uint32).astype(
            pto.dtypes.storage(off.Element), casting="unsafe"))
        pto.TGATHERB(dst, src, off)
    return build


TG_KERNEL = {"cpu": "tgatherb_cpu", "a5": "tgatherb_a5", "a2a3": "tgatherb_a2a3"}


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_tgatherb_random(target):
    ran = 0
    for seed in _seeds(f"tgb/{target}", 40):
        _, n = run_both(target, build_tgatherb(target), seed)
        ran += n[TG_KERNEL[target]]
    assert ran >= 20


# ---- TINTERLEAVE / TDEINTERLEAVE -------------------------------------------------------------
def build_interleave(kind):
    def build(core, r):
        dt = r.choice(["int8", "half", "float32", "int32"])
        size = np.dtype(pto.dtypes.storage(dt)).itemsize
        rows, cols = int(r.integers(1, 5)), (32 // size) * int(r.integers(1, 6))
        VR, VC = int(r.integers(1, rows + 1)), int(r.integers(1, cols + 1))   # static dims > 0
        if core.target.name == "cpu":            # the simulator asserts even widths
            VC = max(2, VC - VC % 2)
        T_ = pto.Tile[V, dt, rows, cols, RM, VR, VC]
        addrs = iter(np.arange(5) * 0x1000 + (0 if r.random() < 0.9 else 0x400))
        if kind == "deint1":
            s = pto.Tile[V, dt, rows, 2 * cols, RM, VR, 2 * VC]()
            pto.TASSIGN(s, 0x8000)
            core.write("ub", 0x8000, r.integers(0, 256, s.nbytes, dtype=np.uint8))
            d0, d1 = T_(), T_()
            pto.TASSIGN(d0, int(next(addrs)))
            pto.TASSIGN(d1, int(next(addrs)) if r.random() < 0.9 else core.ub.size - 64)
            pto.TDEINTERLEAVE(d1, d0, s)
            return None
        d0, d1, s0, s1 = T_(), T_(), T_(), T_()
        for t in (d0, d1, s0, s1):
            pto.TASSIGN(t, int(next(addrs)))
        if r.random() < 0.1:
            pto.TASSIGN(d1, s0.addr)                             # aliasing: NumPy semantics
        (pto.TINTERLEAVE if kind == "interleave" else pto.TDEINTERLEAVE)(d1, d0, s1, s0)
        return None
    return build


@pytest.mark.parametrize("target", ["cpu", "a5"])
@pytest.mark.parametrize("kind", ["interleave", "deint2", "deint1"])
def test_interleave_random(target, kind):
    ran = 0
    for seed in _seeds(f"il/{target}/{kind}", 30):
        _, n = run_both(target, build_interleave(kind), seed)
        ran += n["interleave"]
    assert ran >= 15


# ---- Reg::Gather / Reg::GatherB ----------------------------------------------------------------
GATHER_COMBOS = [("int16", "int8", "uint16"), ("uint16", "uint16", "uint16"), ("half", "half", "uint16"),
                 ("int32", "int32", "uint32"), ("float32", "float32", "uint32"),
                 ("int64", "int64", "uint32"), ("uint64", "uint64", "uint64")]


def build_reg(kind, combo=None, two=False):
    def build(core, r):
        if kind == "gatherb":
            d = reg.RegTensor[pto.float32]()
            ix = reg.RegTensor[pto.uint32]()
            v = r.integers(0, 0x2000, ix.lanes) // 32 * 32
            if r.random() < 0.3:
                v[:8] += r.integers(0, 32, 8)
            if r.random() < 0.2:
                v[int(r.integers(0, 8))] = int(r.choice(ADV32))
            ix.set(v.astype(np.uint32))
            m = reg.MaskReg(r.random(256) < 0.7)
            reg.GatherB(d, core.ub_ptr(0x100, pto.float32), ix, m)
            return d.raw()
        dT, sT, iT = combo
        trait = reg.RegTraitNumTwo if two else None
        d = reg.RegTensor[getattr(pto, dT), trait]() if trait else reg.RegTensor[getattr(pto, dT)]()
        ix = reg.RegTensor[getattr(pto, iT)]()
        hi = 0x3000 // max(1, np.dtype(pto.dtypes.storage(getattr(pto, sT))).itemsize)
        v = r.integers(0, hi, ix.lanes).astype(np.uint64)
        if r.random() < 0.2:
            v[int(r.integers(0, ix.lanes))] = int(np.iinfo(pto.dtypes.storage(getattr(pto, iT))).max)
        ix.set(v.astype(pto.dtypes.storage(getattr(pto, iT))))
        m = reg.MaskReg(r.random(256) < 0.8)
        reg.Gather(d, core.ub_ptr(0x200, getattr(pto, sT)), ix, m)
        return d.raw()
    return build


@pytest.mark.parametrize("combo", GATHER_COMBOS, ids=["/".join(c) for c in GATHER_COMBOS])
def test_reg_gather_random(combo):
    ran = 0
    for seed in _seeds(f"reg/{'/'.join(combo)}", 12):
        _, n = run_both("a5", build_reg("gather", combo, two=combo[0].endswith("64") and seed % 2 == 0), seed)
        ran += n["reg_gather"]
    assert ran >= 3


def test_reg_gatherb_random():
    ran = 0
    for seed in _seeds("regb", 30):
        _, n = run_both("a5", build_reg("gatherb"), seed)
        ran += n["reg_gatherb"]
    assert ran >= 15


# ---- the spec suites of these instructions, unchanged, on native ---------------------------------
def test_spec_suites_pass_on_native():
    here = os.path.dirname(os.path.abspath(__file__))
    files = [f for f in ("test_dma.py", "test_datamove.py", "test_asc.py", "test_tgatherb.py",
                         "test_tinterleave.py", "test_reg.py", "test_pad_values.py", "test_vendor_tload.py",
                         "test_vendor_tload_mat.py", "test_vendor_tstore.py") if os.path.exists(os.path.join(here, f))]
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          "-p", "native_as_numpy_plugin", *files], cwd=here, env=env,
                         capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-4000:] + res.stderr[-2000:]


# ---- batches: lock-step warps ("warps") == every thread ("threads") == NumPy -------------------
@pytest.mark.parametrize("mode", [pto.Coalesce.Elem, pto.Coalesce.Row], ids=["Elem", "Row"])
@pytest.mark.parametrize("oob", OOBS, ids=[o.name for o in OOBS])
@pytest.mark.parametrize("dtype", ["float32", "half", "int8"])
def test_a5_batch_lockstep_warps_match_every_thread_and_numpy(mode, oob, dtype):
    """mgather_a5_elem / mgather_a5_row over a batch of random index tiles (some adversarial:
    2^32-1, 2^31, just past the table) with one UB per instance: lock-step warps (the 32 lanes
    of each warp in SIMD steps) give the same UB bytes and fault records as running every
    thread of the dim3(32, warps) block on its own, and both equal NumPy tile by tile."""
    from ptogpu.backend import launch
    from ptogpu.isa.mgather import kernels as mgather_kernels
    rng = np.random.default_rng(zlib.crc32(f"{mode}/{oob}/{dtype}".encode()))
    N, VR, VC = 40, 7, 19
    size = np.dtype(pto.dtypes.storage(getattr(pto, dtype))).itemsize
    TR = 23
    tbytes = rng.integers(0, 256, TR * VC * size, dtype=np.uint8)
    UB = 8192

    def setup(c):
        ptr = c.gm_put(tbytes.view(pto.dtypes.storage(getattr(pto, dtype))), getattr(pto, dtype))
        n = TR * VC
        shape = (1, 1, 1, TR, VC) if mode == pto.Coalesce.Row else (1, 1, 1, 1, n)
        stride = (n, n, n, VC, 1) if mode == pto.Coalesce.Row else (n, n, n, n, 1)
        table = pto.GlobalTensor[getattr(pto, dtype), pto.Shape[shape], pto.Stride[stride]](ptr)
        if mode == pto.Coalesce.Row:
            it = pto.Tile[V, pto.int32, 1, 8, RM, 1, VR]()
        else:
            it = pto.Tile[V, pto.int32, VR, 24, RM, VR, VC]()
        dst = pto.Tile[V, getattr(pto, dtype), VR, 64 // size * 2, RM, VR, VC]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dst, 1024)
        return table, it, dst

    cap = TR if mode == pto.Coalesce.Row else TR * VC
    shape = (1, VR) if mode == pto.Coalesce.Row else (VR, VC)
    tiles = []
    for k in range(N):
        v = rng.integers(0, cap + 4, shape).astype(np.int64)
        if k % 5 == 0:
            v.reshape(-1)[rng.integers(0, v.size)] = int(rng.choice(ADV32 + (cap, cap + 1)))
        tiles.append((v % 2 ** 32).astype(np.uint32).view(np.int32))
    ub_init = rng.integers(0, 256, UB, dtype=np.uint8)
    ub_init[:1024] = 0                                     # the index tiles' padding
    want = []
    for k in range(N):
        with pto.Core("a5", "numpy") as c:
            table, it, dst = setup(c)
            c.ub.data[:UB] = ub_init
            it.set(tiles[k])
            try:
                pto.MGATHER[mode, oob](dst, table, it)
                err = None
            except pto.PtoFault as e:
                err = str(e)
            want.append((c.ub.data[:UB].copy(), err))
    with pto.Core("a5", "native") as c:
        table, it, dst = setup(c)
        plan = mgather_kernels.plan_mgather(c, mode, oob, dst, table, it)
        got = {}
        for threads in ("threads", "warps"):
            ub = np.tile(ub_init, N)
            for k in range(N):
                full = np.zeros((it.Rows, it.Cols), np.int32)
                full[: tiles[k].shape[0], : tiles[k].shape[1]] = tiles[k]
                ub[k * UB: k * UB + it.nbytes] = full.reshape(-1).view(np.uint8)
            f = launch.launch_batch(plan.kernel, N, {"gm": (c.gm._buf, c.gm.size, 0), "ub": (ub, UB, UB)},
                                    plan.params, passes=plan.passes, block=plan.block,
                                    backend="native", threads=threads)
            got[threads] = (ub, f)
        assert np.array_equal(got["warps"][0], got["threads"][0])
        assert np.array_equal(got["warps"][1], got["threads"][1])
        ub, f = got["warps"]
        for k in range(N):
            w, err = want[k]
            assert (err is None) == (int(f[k, 0]) == kernels.NONE), k
            if err is None:
                assert np.array_equal(ub[k * UB + 1024:(k + 1) * UB], w[1024:]), k
            else:
                assert mgather_kernels._fault(c, plan, f[k], mode, oob, dst, it).args[0] == err
                assert np.array_equal(ub[k * UB + 1024:(k + 1) * UB], ub_init[1024:]), k


def test_adversarial_batches_give_fault_records_not_crashes():
    """All indices 2^32-1 and huge table strides/bases, Undefined OOB: every instance faults
    with a record (no crash, nothing written)."""
    from ptogpu.backend import launch
    from ptogpu.isa.mgather import kernels as mgather_kernels
    N, UB = 64, 4096
    for mode in (pto.Coalesce.Elem, pto.Coalesce.Row):
        with pto.Core("a5", "native") as c:
            ptr = c.gm_put(np.arange(64, dtype=np.float32))
            big = 2 ** 40
            table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 8, 8],
                                     pto.Stride[big, big, big, big, 1]](ptr)
            it = pto.Tile[V, pto.int32, 8, 8]() if mode == pto.Coalesce.Elem else \
                pto.Tile[V, pto.int32, 1, 8]()
            dst = pto.Tile[V, pto.float32, 8, 8]()
            pto.TASSIGN(it, 0)
            pto.TASSIGN(dst, 1024)
            plan = mgather_kernels.plan_mgather(c, mode, pto.GatherOOB.Undefined, dst, table, it)
            ub = np.zeros(N * UB, np.uint8)
            ub.reshape(N, UB)[:, : it.nbytes] = 0xFF              # every index 2^32-1
            before = ub.copy()
            for threads in ("warps", "threads"):
                f = launch.launch_batch(plan.kernel, N, {"gm": (c.gm._buf, c.gm.size, 0),
                                                         "ub": (ub, UB, UB)},
                                        plan.params, passes=plan.passes, block=plan.block,
                                        backend="native", threads=threads)
                assert (f[:, 0] != np.uint64(kernels.NONE)).all()
                assert (f[:, 0] >> np.uint64(56) == 1).all()     # phase 1: the table read
                assert np.array_equal(ub, before)


# ---- cupy: the same comparisons on a device (skipped without one), and the glue without one -----
def _cupy_ok():
    try:
        return backend_available("cupy")
    except Exception as e:  # pragma: no cover
        return False, str(e)


OPS_CASES = ([("a5", build_bursts("ub"), "dma"), ("a5", build_bursts("l1"), "dma")]
             + [(t, build_l1(t, f, o, "float32"), f"l1/{f}/{o.name}")
                for t, f in (("a5", "row"), ("a5", "scalar"), ("a5", "simt"), ("a2a3", "scalar"))
                for o in OOBS]
             + [(t, build_tgatherb(t), "tgb") for t in ("cpu", "a2a3", "a5")]
             + [(t, build_interleave(k), f"il/{k}") for t in ("cpu", "a5")
                for k in ("interleave", "deint2", "deint1")]
             + [("a5", build_reg("gather", c), "reg") for c in GATHER_COMBOS[:5]]
             + [("a5", build_reg("gatherb"), "regb")])


@pytest.mark.gpu
@pytest.mark.parametrize("k", range(len(OPS_CASES)))
def test_cupy_matches_numpy_ops(k):
    ok, why = _cupy_ok()
    if not ok:
        pytest.skip(f"cupy backend unavailable: {why}")
    target, build, tag = OPS_CASES[k]
    for seed in _seeds(f"gpu/{tag}/{k}", 6):
        run_both(target, build, seed, backend="cupy")


@pytest.mark.gpu
@pytest.mark.parametrize("mode", [pto.Coalesce.Elem, pto.Coalesce.Row], ids=["Elem", "Row"])
def test_cupy_device_resident_batch_matches_native(mode):
    """A batch whose arenas are cupy arrays (nothing copied) equals the same batch on native."""
    ok, why = _cupy_ok()
    if not ok:
        pytest.skip(f"cupy backend unavailable: {why}")
    import cupy
    from ptogpu.backend import launch
    from ptogpu.isa.mgather import kernels as mgather_kernels
    N, UB = 3000, 2048
    rng = np.random.default_rng(9)
    with pto.Core("a5", "numpy") as c:
        ptr = c.gm_put(rng.standard_normal(4096).astype(np.float32))
        n = 4096
        if mode == pto.Coalesce.Elem:
            table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, n], pto.Stride[n, n, n, n, 1]](ptr)
            it = pto.Tile[V, pto.int32, 16, 16]()
        else:
            table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 64, 64], pto.Stride[n, n, n, 64, 1]](ptr)
            it = pto.Tile[V, pto.int32, 1, 16]()
        dst = pto.Tile[V, pto.float32, 16, 16 if mode == pto.Coalesce.Elem else 64]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dst, 1024 if mode == pto.Coalesce.Elem else 64)
        plan = mgather_kernels.plan_mgather(c, mode, pto.GatherOOB.Undefined, dst, table, it)
        ub = np.zeros((N, UB + 4096), np.uint8)
        vals = rng.integers(0, 5000 if mode == pto.Coalesce.Elem else 70, (N, it.Numel)).astype(np.int32)
        ub[:, : it.nbytes] = vals.view(np.uint8)
        ub = ub.reshape(-1)
        stride = UB + 4096
        a_host = ub.copy()
        f_host = launch.launch_batch(plan.kernel, N, {"gm": (c.gm._buf, c.gm.size, 0), "ub": (a_host, stride, stride)},
                                     plan.params, passes=2, block=plan.block, backend="native")
        d_ub = cupy.asarray(ub)
        d_gm = cupy.asarray(c.gm._buf[: c.gm.size])
        f_dev = launch.launch_batch(plan.kernel, N, {"gm": (d_gm, c.gm.size, 0), "ub": (d_ub, stride, stride)},
                                    plan.params, passes=2, block=plan.block, backend="cupy")
        assert np.array_equal(np.asarray(f_dev), f_host)
        assert np.array_equal(cupy.asnumpy(d_ub), a_host)


@pytest.mark.parametrize("k", [0, 2, 7, 13, 16, 19, 21, 23, 29, 32])
def test_cupy_glue_for_every_kernel_file_with_stand_in_device(monkeypatch, k):
    """cupy_backend (RawModule per .cu file, argument order, arenas copied in and back, the
    register arena) driven by a stand-in device that runs the host-shim build."""
    from test_kernels_mgather import _FakeCupy
    fake = _FakeCupy().install(monkeypatch)
    target, build, tag = OPS_CASES[k % len(OPS_CASES)]
    launched = collections.Counter()
    for seed in _seeds(f"fake/{tag}/{k}", 4):
        _, n = run_both(target, build, seed, backend="cupy")
        launched.update(n)
    assert sum(launched.values()) >= 1, tag


@pytest.mark.parametrize("oob", [pto.GatherOOB.Clamp, pto.GatherOOB.Wrap, pto.GatherOOB.Zero])
def test_batch_table_shape_larger_than_gm_faults_in_both_thread_modes(oob):
    """A table whose shape claims 2^20 elements over 64 real ones: indices that remap past GM
    fault (per instance, nothing written), the others gather -- in both host thread modes,
    through the vectorised Clamp fast path too."""
    from ptogpu.backend import launch
    from ptogpu.isa.mgather import kernels as mgather_kernels
    N, UB = 32, 4096
    with pto.Core("a5", "native") as c:
        ptr = c.gm_put(np.arange(64, dtype=np.float32))
        n = 1 << 20
        table = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, n], pto.Stride[n, n, n, n, 1]](ptr)
        it = pto.Tile[V, pto.int32, 8, 8]()
        dst = pto.Tile[V, pto.float32, 8, 8]()
        pto.TASSIGN(it, 0)
        pto.TASSIGN(dst, 1024)
        plan = mgather_kernels.plan_mgather(c, pto.Coalesce.Elem, oob, dst, table, it)
        rng = np.random.default_rng(1)
        vals = rng.integers(0, 60, (N, 64)).astype(np.int32)
        bad = np.arange(N) % 3 == 0
        vals[bad, 5] = -1 if oob == pto.GatherOOB.Clamp else n - 1     # clamps / wraps past GM
        out = {}
        for threads in ("warps", "threads"):
            ub = np.zeros(N * UB, np.uint8)
            ub.reshape(N, UB)[:, :256] = vals.view(np.uint8)
            f = launch.launch_batch(plan.kernel, N, {"gm": (c.gm._buf, c.gm.size, 0), "ub": (ub, UB, UB)},
                                    plan.params, passes=plan.passes, block=plan.block,
                                    backend="native", threads=threads)
            out[threads] = (ub, f)
        assert np.array_equal(out["warps"][0], out["threads"][0])
        assert np.array_equal(out["warps"][1], out["threads"][1])
        ub, f = out["warps"]
        faulted = f[:, 0] != np.uint64(kernels.NONE)
        assert np.array_equal(faulted, bad)
        for k in range(N):
            got = ub[k * UB + 1024: k * UB + 1280].view(np.float32)
            if faulted[k]:
                assert not got.any()
            else:
                v = vals[k].astype(np.int64) % 2 ** 32
                want = np.where(v < n, v, 0).astype(np.float32) if oob == pto.GatherOOB.Zero else v.astype(np.float32)
                assert np.array_equal(got, want), k


@pytest.mark.parametrize("otype", ["half", "bfloat16", "float32", "float8_e4m3", "float8_e5m2"])
def test_tgatherb_cpu_float_offsets(otype):
    """The CPU simulator converts float offsets through int64 (trunc; NaN/inf/huge -> 0 after
    the uint32 cast): every bit pattern of the 8-bit types, random ones of the wider types."""
    st = np.dtype(pto.dtypes.storage(getattr(pto, otype)))

    def build(core, r):
        src = pto.Tile[V, pto.int32, 16, 64]()
        off = pto.Tile[V, getattr(pto, otype), 4, 64]()
        dst = pto.Tile[V, pto.int32, 4, 64 * 8]()
        pto.TASSIGN(src, 0)
        pto.TASSIGN(off, 0x2000)
        pto.TASSIGN(dst, 0x4000)
        if st.itemsize == 1:
            bits = r.permutation(256).astype(np.uint8)
        else:
            vals = r.integers(-64, 140, 256).astype(np.float64) * 32 + r.random(256) * 40
            vals[r.integers(0, 256, 12)] = np.array([np.nan, np.inf, -np.inf, -0.5, 1e30, -1e30,
                                                     4095.9, 31.99, 2.0 ** 40, -2.0 ** 33, 1e-3, -1e-3])
            with np.errstate(all="ignore"):
                bits = vals.astype(st).view(np.uint8)
        core.write("ub", off.addr, bits)
        pto.TGATHERB(dst, src, off)
    ran = 0
    for seed in _seeds(f"tgb-float/{otype}", 8):
        _, n = run_both("cpu", build, seed)
        ran += n["tgatherb_cpu"]
    assert ran >= 8


def test_dma_trace_is_recorded_on_the_kernel_path():
    """core.trace() sees the same bursts whether the burst executor is NumPy or the kernel."""
    traces = {}
    for be in ("numpy", "native"):
        with pto.Core("a5", be) as core, Counter() as cnt:
            r = np.random.default_rng(4)
            core.write("l1", 0, r.integers(0, 256, core.l1.size, dtype=np.uint8))
            for seed in range(6):
                with core.trace() as tr:
                    build_bursts("l1")(core, np.random.default_rng(100 + seed))
                traces.setdefault(be, []).append([(b.instr, b.src, b.dst, b.length, b.left, b.right, b.fill)
                                                  for b in tr.bursts])
            if be == "native":
                assert cnt.n["dma_bursts"] >= 6
            traces[be].append(core.l1.data.copy())
    for a, b in zip(traces["numpy"], traces["native"]):
        if isinstance(a, np.ndarray):
            assert np.array_equal(a, b)
        else:
            assert a == b


@pytest.mark.parametrize("target,bursts", [("a2a3", True), ("a5", True), ("cpu", False)])
def test_npu_tstore_runs_the_burst_engine_with_numpy_s_bytes(target, bursts):
    """The NPUs' TSTORE of a Vec tile (ND and DN, partial valid region, strided GM rows) runs as
    its bursts through dma_bursts on native, on one core and on a core of 16, and writes what
    NumPy writes; the simulator's element copy launches nothing."""
    G = pto.GlobalTensor[pto.int16, pto.Shape[1, 1, 1, 3, 5], pto.Stride[1, 1, 1, 9, 1]]
    GD = pto.GlobalTensor[pto.int16, pto.Shape[1, 1, 1, 5, 3], pto.Stride[1, 1, 1, 1, 9], pto.Layout.DN]
    got = {}
    for be in ("numpy", "native"):
        for batch in (1, 16):
            with pto.Core(target, be, batch=batch) as core, Counter() as cnt:
                core.write("ub", 0, np.random.default_rng(7).integers(0, 256, 4096, dtype=np.uint8))
                out = core.gm_put(np.full(64, -1, np.int16))
                t = pto.Tile[pto.TileType.Vec, pto.int16, 4, 16, pto.BLayout.RowMajor, 3, 5]()
                d = pto.Tile[pto.TileType.Vec, pto.int16, 16, 4, pto.BLayout.ColMajor, 5, 3]()
                pto.TASSIGN(t, 0x40)
                pto.TASSIGN(d, 0x400)
                pto.TSTORE(G(out), t)
                pto.TSTORE(GD(out + 30), d)
                got[be, batch] = out.numpy(64).tobytes()
                if be == "native":
                    assert (cnt.n["dma_bursts"] > 0) == bursts
    assert got["numpy", 1] == got["native", 1]
    assert got["numpy", 16] == got["native", 16] == got["numpy", 1] * 16


@pytest.mark.parametrize("stopped", [3, 61], ids=["few stopped: set aside", "most stopped: the live alone"])
def test_a_launch_on_a_core_with_stopped_instances_leaves_them_as_they_were(stopped):
    """After some instances of a core of N fault (an MGATHER Elem index past GM on the
    simulator), the next instructions still run as kernels -- the live instances in a launch of
    their own, or the stopped ones' written bytes set aside and put back -- and every instance's
    UB and GM, stopped ones included, is what NumPy leaves."""
    N, V = 64, pto.TileType.Vec
    I = pto.GlobalTensor[pto.int32, pto.Shape[1, 1, 1, 2, 8], pto.Stride[16, 16, 16, 8, 1]]
    F = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 2, 8], pto.Stride[16, 16, 16, 8, 1]]
    T = pto.GlobalTensor[pto.float32, pto.Shape[1, 1, 1, 1, 64], pto.Stride[64, 64, 64, 64, 1]]
    idx = np.tile(np.arange(16, dtype=np.int32), (N, 1))
    idx[np.random.default_rng(stopped).permutation(N)[:stopped], 5] = 1 << 28     # past GM
    got = {}
    for be in ("numpy", "native"):
        with pto.Core("cpu", be, batch=N) as core, Counter() as cnt:
            table = T(core.gm_put(np.arange(64, dtype=np.float32) / 4))
            it, d, e = pto.Tile[V, pto.int32, 2, 8](), pto.Tile[V, pto.float32, 2, 8](), pto.Tile[V, pto.float32, 2, 8]()
            for t, at in ((it, 0), (d, 0x100), (e, 0x200)):
                pto.TASSIGN(t, at)
            pto.TEXPANDS(d, 7.0)
            pto.TEXPANDS(e, 3.0)
            pto.TLOAD(it, I(core.gm_put(idx, per_instance=True)))
            pto.MGATHER[pto.Coalesce.Elem](d, table, it)
            out = core.gm_alloc(16, pto.float32)
            pto.TADD(e, e, d)
            pto.TSTORE(F(out), e)
            live = int(core.live.sum())
            got[be] = (core.read("ub", 0, 1024).tobytes(), out.numpy(16).tobytes(), core.live.copy())
            if be == "native":
                assert cnt.n["tile_elementwise"] > 0 and cnt.n["mgather_cpu"] > 0
    assert live == N - stopped
    assert got["numpy"][2].tolist() == got["native"][2].tolist()
    assert got["numpy"][:2] == got["native"][:2]


def test_batches_with_the_portable_build():
    """The portable build (PTOGPU_NATIVE_MARCH=0: no -march=native, the compiler's baseline
    vector ISA) passes the same lock-step batch comparisons as the build for this CPU."""
    here = os.path.dirname(os.path.abspath(__file__))
    env = dict(os.environ, PTOGPU_NATIVE_MARCH="0")
    env["PYTHONPATH"] = os.pathsep.join([here, os.path.dirname(here), env.get("PYTHONPATH", "")])
    res = subprocess.run([sys.executable, "-m", "pytest", "-q", "-x", "-p", "no:cacheprovider",
                          "test_kernels_ops.py", "-k", "lockstep_warps or larger"],
                         cwd=here, env=env, capture_output=True, text=True, timeout=300)
    assert res.returncode == 0, res.stdout[-3000:] + res.stderr[-2000:]
    assert " passed" in res.stdout
