"""cuda_src/mscatter.cu through the host shim against the NumPy reference, byte for byte, over
random calls of every target, mode, atomic, OOB policy and conflict policy (duplicate-heavy
indices, out-of-range and negative values); both host schedules of the A5 kernels (lock-step
warps, and every thread one after another: the GPU's per-thread code)."""
import os

import ml_dtypes
import numpy as np
import pytest

import ptogpu as pto
from ptogpu.backend import native_backend
from ptogpu.isa.mscatter import kernels as mscatter_kernels
from ptogpu.isa.mscatter import semantics as sem

V, RM, CM = pto.TileType.Vec, pto.BLayout.RowMajor, pto.BLayout.ColMajor
DTYPES = {"cpu": [np.float32, np.int32, np.float16, np.int8, ml_dtypes.bfloat16, np.uint16],
          "a2a3": [np.float32, np.int32, np.float16, np.int8, ml_dtypes.bfloat16],
          "a5": [np.float32, np.int32, np.uint32, np.float16, ml_dtypes.bfloat16, ml_dtypes.float8_e5m2]}


def _case(rng, target):
    mode = pto.Coalesce(int(rng.integers(2)))
    atomic = pto.ScatterAtomicOp(int(rng.integers(4)))
    oob = pto.ScatterOOB(int(rng.integers(4)))
    conflict = pto.ScatterConflict(int(rng.integers(2)))
    dt = DTYPES[target][int(rng.integers(len(DTYPES[target])))]
    vr, vc = int(rng.integers(1, 40)), int(rng.integers(1, 40))
    if mode == pto.Coalesce.Elem and rng.random() < 0.2:
        vr, vc = 1, 1
    slots = int(rng.choice([0, 1, 3, 7, 16, 64]))
    gen = rng.integers(5)
    n = vr if mode == pto.Coalesce.Row else vr * vc
    if gen == 0:
        raw = rng.integers(0, max(slots, 1), n)
    elif gen == 1:
        raw = np.full(n, rng.integers(0, max(slots, 1)))
    elif gen == 2:
        raw = rng.integers(-3, slots + 4, n)
    elif gen == 3:
        raw = rng.permutation(max(n, 1))[:n]
    else:
        raw = rng.choice([-1, -2**31, 2**31 - 1, 0, 1, slots, slots - 1], n)
    return mode, atomic, oob, conflict, dt, vr, vc, slots, raw


def _run(target, backend, case, threads="warps"):
    mode, atomic, oob, conflict, dt, vr, vc, slots, raw = case
    core = pto.Core(target, backend)
    e = 32 // np.dtype(dt).itemsize
    cols = vc
    rows_tab = max(slots, 1)
    n = rows_tab * cols if mode == pto.Coalesce.Row else max(slots, 1)
    rng = np.random.default_rng(len(raw))
    g = rng.integers(0, 256, (n + 2048) * np.dtype(dt).itemsize).astype(np.uint8)
    form = pto.MSCATTER[mode, atomic, oob] if target == "a2a3" else pto.MSCATTER[mode, atomic, oob, conflict]
    with core:
        ptr0 = core.gm_put(g.view(dt) if np.dtype(dt).kind != "V" else g)
        base = ptr0 + 1024
        if mode == pto.Coalesce.Row:
            T = pto.GlobalTensor[dt, pto.Shape[1, 1, 1, slots, cols], pto.Stride[1, 1, 1, cols, 1]]
            it = pto.Tile[V, np.int32, 1, -(-vr // 8) * 8, RM, 1, vr]()
            idx_vals = np.asarray(raw, np.int64).astype(np.int32).reshape(1, vr)
        else:
            T = pto.GlobalTensor[dt, pto.Shape[1, 1, 1, 1, slots], pto.Stride[1, 1, 1, slots, 1]]
            it = pto.Tile[V, np.int32, vr, -(-vc // 8) * 8, RM, vr, vc]()
            idx_vals = np.asarray(raw, np.int64).astype(np.int32).reshape(vr, vc)
        st = pto.Tile[V, dt, vr, -(-vc // e) * e, RM, vr, vc]()
        pto.TASSIGN(st, 0)
        pto.TASSIGN(it, 0x10000)
        core.write("ub", 0, rng.integers(0, 256, 0x10000).astype(np.uint8))
        it.set(idx_vals)
        saved = os.environ.get("PTOGPU_NATIVE_THREADS")
        os.environ["PTOGPU_NATIVE_THREADS"] = threads
        try:
            table = T(base)
            call = form._prepare(core, table, st, it)
            kernel = backend != "numpy" and mscatter_kernels.params(core, call, table, st, it) is not None
            err = None
            try:
                form(table, st, it)
            except (pto.PtoFault, pto.PtoCheckError) as ex:
                err = f"{type(ex).__name__}: {ex}"
        except pto.PtoCheckError as ex:
            return ("check", str(ex)), None, False
        finally:
            if saved is None:
                os.environ.pop("PTOGPU_NATIVE_THREADS")
            else:
                os.environ["PTOGPU_NATIVE_THREADS"] = saved
        return err, core.read("gm", 0, core.gm.size).tobytes(), kernel


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("seed", range(4))
def test_native_matches_numpy_on_random_calls(target, seed):
    rng = np.random.default_rng(100 * seed + len(target))
    ran = 0
    for _ in range(60):
        case = _case(rng, target)
        a = _run(target, "numpy", case)
        b = _run(target, "native", case)
        assert a[0] == b[0] and a[1] == b[1], case
        ran += b[2]
    assert ran >= 10                      # the kernels ran (not NumPy under the kernel's name)


@pytest.mark.parametrize("seed", range(3))
def test_a5_per_thread_schedule_gives_the_same_bytes(seed):
    """hostp_ runs every thread of the block one after another (the GPU's per-thread code, pass
    0 for all threads then pass 1): warp order is the same, so the bytes are too."""
    rng = np.random.default_rng(seed)
    for _ in range(40):
        case = _case(rng, "a5")
        a = _run("a5", "native", case)
        b = _run("a5", "native", case, threads="threads")
        assert a[:2] == b[:2], case


def test_kernel_paths_cover_the_a5_launches():
    assert set(mscatter_kernels.KERNEL.values()) == {"mscatter_seq", "mscatter_a5_source", "mscatter_a5_last"}
    assert {"mscatter_a5_source", "mscatter_a5_last"} <= native_backend.lockstep_kernels()
    assert set(sem.PATHS) - set(mscatter_kernels.KERNEL) == {"a2a3_nz"}


@pytest.mark.parametrize("seed", range(3))
def test_a5_last_owner_scan_gives_the_reverse_scans_bytes(seed, monkeypatch):
    rng = np.random.default_rng(50 + seed)
    for _ in range(40):
        case = _case(rng, "a5")
        a = _run("a5", "numpy", case)
        monkeypatch.setattr(mscatter_kernels, "LAST_SCAN", "owner")
        b = _run("a5", "native", case)
        monkeypatch.setattr(mscatter_kernels, "LAST_SCAN", "reverse")
        assert a[:2] == b[:2], case


@pytest.mark.gpu
@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
def test_cupy_matches_numpy(target):
    """On a GPU: the kernels cupy runs (slot-centric, scalar loops, integer atomics) and the
    calls it hands to NumPy (Default stores, float atomics) give NumPy's bytes."""
    from ptogpu.backend import backend_available
    if not backend_available("cupy")[0]:
        pytest.skip("no CUDA device")
    rng = np.random.default_rng(9 + len(target))
    for _ in range(40):
        case = _case(rng, target)
        assert _run(target, "numpy", case)[:2] == _run(target, "cupy", case)[:2], case


def _run_at_gm_end(target, backend, dt, vr, vc, off):
    """Elem Undefined, every index 0 but the last, which is the element `off` from the end of
    GM (0: the first element past it; -1: the last inside): (error, GM bytes)."""
    core = pto.Core(target, backend)
    itemsize = np.dtype(dt).itemsize
    e = 32 // itemsize
    form = (pto.MSCATTER[pto.Coalesce.Elem, pto.ScatterAtomicOp.None_, pto.ScatterOOB.Undefined]
            if target == "a2a3" else
            pto.MSCATTER[pto.Coalesce.Elem, pto.ScatterAtomicOp.None_, pto.ScatterOOB.Undefined,
                         pto.ScatterConflict.Default])
    with core:
        ptr0 = core.gm_put(np.arange(64 + 2048).astype(np.uint8).view(np.dtype(dt)))
        base = ptr0 + 64
        end = (core.gm.size - base.addr) // itemsize     # the first element past GM
        T = pto.GlobalTensor[dt, pto.Shape[1, 1, 1, 1, 64], pto.Stride[1, 1, 1, 64, 1]]
        it = pto.Tile[V, np.int32, vr, -(-vc // 8) * 8, RM, vr, vc]()
        st = pto.Tile[V, dt, vr, -(-vc // e) * e, RM, vr, vc]()
        pto.TASSIGN(st, 0)
        pto.TASSIGN(it, 0x10000)
        core.write("ub", 0, np.random.default_rng(7).integers(0, 256, 0x10000).astype(np.uint8))
        idx = np.zeros(vr * vc, np.int64)
        idx[-1] = end + off
        it.set(idx.astype(np.int32).reshape(vr, vc))
        err = None
        try:
            form(T(base), st, it)
        except (pto.PtoFault, pto.PtoCheckError) as ex:
            err = f"{type(ex).__name__}: {ex}"
        return err, core.read("gm", 0, core.gm.size).tobytes()


@pytest.mark.parametrize("target", ["cpu", "a2a3", "a5"])
@pytest.mark.parametrize("dt", [np.float32, np.int8])
@pytest.mark.parametrize("off", [-1, 0])
def test_a_write_at_the_end_of_gm_faults_exactly_past_it(target, dt, off):
    """The fast kernels' bound on the last slot inside GM: the last element inside is written,
    the first past it faults, as in NumPy (tiles of whole 32-byte rows: the linear shapes the
    fast forms take)."""
    vc = max(16, 32 // np.dtype(dt).itemsize)
    a = _run_at_gm_end(target, "numpy", dt, 8, vc, off)
    b = _run_at_gm_end(target, "native", dt, 8, vc, off)
    assert (a[0] is None) == (off < 0)
    assert a == b
