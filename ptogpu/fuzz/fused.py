"""Driver of the fused campaign kernel (cuda_src/fuzz.cu): indices generated in the kernel,
both sides run and compared there, only class counts and first instance numbers come back.

Covered: MGATHER into UB, Row and Elem, every GatherOOB, 32-bit index types, element sizes
1/2/4/8, counter generators, both sides on the same backend. ``native`` runs
``pto_fuzz_native`` (OpenMP over tiles, tiles held in arrays); ``cupy`` launches the
``fuzz_campaign`` kernel (one thread per tile); ``numpy`` runs the same algorithm in array code
(``fused_numpy``, worker processes for big campaigns). Other campaigns run through
``ptogpu.execution.batch``.
"""
from __future__ import annotations

import ctypes

import numpy as np

from ..backend.kernels import Consts
from ..backend import sources
from ..enums import GatherOOB
from ..targets import get_target
from ..execution.config import FuzzConfig
from ..execution.single import layout
from . import fused_numpy
from .classes import FIRST, DivClass, example_of, note_sparse
from .fused_numpy import caps

K = Consts("fuzz.cu")
"""The kernels' enum constants (``K.NAME``), read from their source."""

EMPTY = np.uint64(0xFFFFFFFFFFFFFFFF)
ROWSRC = {"strides": "RS_STRIDES", "stride3": "RS_STRIDE3", "valid_cols": "RS_VALID_COLS"}




def _i64(v: int) -> int:
    v = int(v) & ((1 << 64) - 1)
    return v - (1 << 64) if v >> 63 else v


def covers(a: FuzzConfig, b: FuzzConfig, gen, sa, sb) -> bool:
    if sa.backend != sb.backend or sa.backend not in ("native", "cupy", "numpy"):
        return False
    if gen.counter_kind is None:
        return False
    for c in (a, b):
        if c.instruction.formula_fields(c) is None or c.layout != "nd" or c.dst_fill:
            return False
        if c.esize not in (1, 2, 4, 8) or c.rows == 0 or c.cols == 0:
            return False
        if c.oob == "wrap" and caps(c)[0] == 0:
            return False
    if (a.mode, a.oob, a.dtype, a.index_dtype, a.rows, a.cols, a.shape5, a.stride5) != \
            (b.mode, b.oob, b.dtype, b.index_dtype, b.rows, b.cols, b.shape5, b.stride5):
        return False
    if sa.backend == "numpy":
        return True                      # fused_numpy: the same algorithm in array code
    if not (sources.source_dir() / "fuzz.cu").exists():
        return False
    if sa.backend == "native":
        try:
            _lib()
        except Exception:
            return False
    return True


def side_words(c: FuzzConfig) -> list[int]:
    """One side's rule words (SD_*, cuda_src/ref/mgather_ref.cuh) from its target table."""
    m = get_target(c.target).mgather
    cap, bits = caps(c)
    w = [0] * K.SIDE_WORDS
    w[K.SD_BITS], w[K.SD_CAP] = bits, _i64(cap)
    w[K.SD_ROWSRC] = K[ROWSRC[m.row_source]]
    w[K.SD_TAIL] = int(c.mode == "row" and m.row_tail_fill)
    # a row that is one DMA burst reads its VC elements contiguously (a burst has no column
    # stride: the semantics' _row_dma), whatever the row source rule says of Stride[4]
    tail = c.mode == "row" and m.row_tail_fill
    w[K.SD_S3], w[K.SD_S4] = _i64(c.stride5[3]), 1 if tail else _i64(c.stride5[4])
    w[K.SD_SIMT] = int(m.simt and c.exec != "scalar")
    return w


def explanation_block(a: FuzzConfig, b: FuzzConfig) -> np.ndarray:
    """The explanation block (XP_*): the verdict bits and, per candidate rule field (then pair
    of fields) whose values differ between the sides' targets, the alternative side blocks of
    the hybrid targets (each side with the other's field), in the tiers of ``explain``."""
    from itertools import combinations
    from . import rules as R
    from .explain import hybrid
    cand = [f for f in R.differing("mgather", "ub", a.target, b.target) if f.path != "mgather.tile_offsets"]
    tiers = [[(f,) for f in cand if not f.coarse], [(f,) for f in cand if f.coarse], list(combinations(cand, 2))]
    x = [0] * K.XP_HEAD
    x[K.XP_UNEXPLAINED], x[K.XP_FAULT] = R.UNEXPLAINED, R.FAULT
    x[K.XP_REF_A], x[K.XP_REF_B], x[K.XP_WINDOW] = R.REF_A, R.REF_B, R.WINDOW
    n = 0
    for t, tier in enumerate(tiers):
        for fs in tier:
            for d, mine, other in ((0, b, a), (1, a, b)):
                x += [t, d, sum(f.bit for f in fs)] + side_words(hybrid(mine, other, fs))
                n += 1
    if n > K.XP_MAX:
        raise LookupError(f"{n} alternative side blocks: more than XP_MAX")
    x[K.XP_N] = n
    x += [0] * (K.XP_WORDS - len(x))
    return np.array(x, np.int64)


def params(a: FuzzConfig, b: FuzzConfig, seed: int, kind: int, inst0: int, rel: int) -> np.ndarray:
    """[campaign block | explanation block] of the engines of cuda_src/fuzz.cu."""
    L = layout(a)
    p = [0] * K.FZ_WORDS
    p[K.FZ_SEED], p[K.FZ_INST0] = _i64(seed), int(inst0)
    p[K.FZ_GEN], p[K.FZ_GCAP] = kind, a.cap & 0xFFFFFFFF
    p[K.FZ_MODE] = K.MODE_ELEM_ if a.mode == "elem" else K.MODE_ROW_
    p[K.FZ_OOB] = int(getattr(GatherOOB, a.oob.capitalize()))
    p[K.FZ_T], p[K.FZ_VR], p[K.FZ_VC] = a.esize, a.rows, a.cols
    p[K.FZ_R], p[K.FZ_C] = L["dst_shape"]
    p[K.FZ_SIGNED] = int(a.index_dtype == "int32")
    p[K.FZ_GMSIZE] = L["gm_size"]
    p[K.FZ_REL], p[K.FZ_FILL] = rel, int(a.dst_fill) & 0xFF
    for base, c in ((K.FZ_A, a), (K.FZ_B, b)):
        p[base: base + K.SIDE_WORDS] = side_words(c)
    return np.concatenate([np.array(p, np.int64), explanation_block(a, b)])


def gm_image(a: FuzzConfig) -> np.ndarray:
    L = layout(a)
    gm = np.zeros(L["gm_size"], np.uint8)
    gm[: L["table_bytes"]] = a.table.view(np.uint8)
    return gm


_fn = None


def _lib():
    global _fn
    if _fn is None:
        from ..backend import native_backend
        lib = native_backend.load()
        f = lib.pto_fuzz_native
        f.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong, ctypes.c_void_p, ctypes.c_int]
        f.restype = None
        _fn = (f, lib.pto_host_shim_threads())
    return _fn


def check_generator(gen, n_elem: int, cap: int, start: int, shapes: tuple | None = None) -> None:
    """The kernels generate each tile's indices themselves (counter_rng.cuh): their first tiles
    must be rng.py's, bit for bit, or every report and reproducer of the run would describe
    other tiles than the ones that ran. EmulatorBug otherwise."""
    from ..backend import native_backend
    from ..errors import EmulatorBug
    from ..execution.rng import shapes as draw
    lib = native_backend.load("fuzz")
    k, n = 8, max(int(n_elem), 1)
    a, b, w = (np.zeros(k * n, np.int64), np.zeros(k * n, np.int64), np.zeros(k * n, np.uint32))
    p = lambda x: x.ctypes.data_as(ctypes.c_void_p)  # noqa: E731
    lib.pto_fuzz_gen(ctypes.c_uint64(gen.seed & (2**64 - 1)), ctypes.c_int(gen.counter_kind),
                     ctypes.c_uint64(cap & 0xFFFFFFFF), ctypes.c_uint64(start), ctypes.c_longlong(k),
                     ctypes.c_longlong(n), p(a), p(b), p(w))
    want = gen.lo32(np.arange(start, start + k), n, cap).reshape(-1)
    if not (np.array_equal(w, want) and np.array_equal(a.astype(np.uint32), want)):
        raise EmulatorBug(f"the kernels' index generator (cuda_src/counter_rng.cuh) disagrees with "
                          f"ptogpu/execution/rng.py on {gen.kind} tiles {start}..{start + k - 1}")
    if shapes:
        rows, cols, row_mode = shapes
        vr, vc = np.zeros(k, np.int64), np.zeros(k, np.int64)
        lib.pto_fuzz_shapes(ctypes.c_uint64(gen.seed & (2**64 - 1)), ctypes.c_longlong(rows), ctypes.c_longlong(cols),
                            ctypes.c_int(int(row_mode)), ctypes.c_uint64(start), ctypes.c_longlong(k), p(vr), p(vc))
        pr, pc = draw(gen.seed, np.arange(start, start + k), rows, cols, row_mode)
        if not (np.array_equal(vr, pr) and np.array_equal(vc, pc)):
            raise EmulatorBug("the kernels' shape draw (cuda_src/counter_rng.cuh rng_shape) disagrees with "
                              "ptogpu/execution/rng.py shapes()")


def empty_results(n: int) -> np.ndarray:
    W, H, S = K.FZ_RESULT_WORDS, K.FZ_HEAD, K.FZ_SLOT
    res = np.zeros((n, W), np.uint64)
    res[:, H::S] = EMPTY
    return res


def run_native_chunk(prm: np.ndarray, gm: np.ndarray, n: int) -> np.ndarray:
    f, threads = _lib()
    res = empty_results(max(1, threads))
    f(prm.ctypes.data, gm.ctypes.data, int(n), res.ctypes.data, int(res.shape[0]))
    return res


def run_cupy_chunk(prm: np.ndarray, gm: np.ndarray, n: int) -> np.ndarray:
    import cupy as cp
    from ..backend import cupy_backend
    fn = cupy_backend.module("fuzz.cu").get_function("fuzz_campaign")
    res = cp.asarray(empty_results(1))
    dgm, dprm = cp.asarray(gm), cp.asarray(prm)
    threads = 256
    grid = int(min(max(1, -(-n // threads)), 65535 * 8))
    z = np.int64(0)
    fn((grid,), (threads, 1, 1), (dgm, np.int64(gm.size), z, dgm, z, z, dgm, z, z, dprm, z, res,
                                  np.int64(n), np.int32(0)))
    return cp.asnumpy(res)


def merge(rep, res: np.ndarray, gen) -> None:
    """Fold per-thread result records into the report's classes."""
    H, S, NF = K.FZ_HEAD, K.FZ_SLOT, K.FZ_FIRST
    for rec in res:
        rep.faults_a += int(rec[K.FZ_FAULTS_A])
        rep.faults_b += int(rec[K.FZ_FAULTS_B])
        rep.ref_bad_a += int(rec[K.FZ_REFBAD_A])
        rep.ref_bad_b += int(rec[K.FZ_REFBAD_B])
        rep.divergent += int(rec[K.FZ_DIVERGENT])
        over = int(rec[K.FZ_OVERFLOW])
        if over:                          # never seen: counted as unexplained, to be safe
            from . import rules as R
            c = rep.classes.setdefault(R.UNEXPLAINED, DivClass(R.UNEXPLAINED))
            c.count += over
        for s in range(K.FZ_MAXC):
            sl = rec[H + s * S: H + (s + 1) * S]
            if sl[0] == EMPTY:
                break
            c = rep.classes.setdefault(int(sl[0]), DivClass(int(sl[0])))
            c.count += int(sl[1])
            c.first = sorted(c.first + [int(x) for x in sl[3: 3 + min(int(sl[2]), NF)]])[:FIRST]
    for c in rep.classes.values():
        c.example = example_of(rep, gen, c)


def run_numpy(a, b, gen, n, start, rep, rel, *, chunk=None, progress=None, executor=None,
              share: bool = True) -> None:
    """The same campaign in NumPy array code (fused_numpy), in worker processes when big;
    ``share``: one run serves both sides where their target-table rules are equal."""
    from ..execution import executors
    camp = fused_numpy.Campaign(a, b, gen, rel, share=share)
    ex, ran_on = executors.choose(executor, n * a.n_idx)
    step = int(chunk or max(1, (CHUNK_VALUES if ex is not None else CHUNK_VALUES_HERE) // max(1, a.n_idx)))
    per = step * (TASK_CHUNKS if ex is not None else 1)
    tasks = ((s, min(per, start + n - s), step) for s in range(start, start + n, per))
    done = 0
    for res in executors.ordered_map(fused_numpy.run_task, tasks, ex, shared=camp):
        for s, m, fa, fb, div, masks in res:
            rep.faults_a += fa
            rep.faults_b += fb
            note_sparse(rep, s + div, masks, gen, a)
            done += m
        if progress:
            progress(done, n)
    rep.engine = "fused numpy" + (", one run for both sides (equal target-table rules)" if camp.same else "") \
        + (f", {ran_on}" if ran_on else "")


# NumPy: index values per chunk and chunks per worker task. Measured on the bench campaign:
# workers (heap kept) are fastest at 2^17 (the arrays stay in L2); in the calling process 2^15
# is 1.5x faster than 2^17, because glibc maps arrays of 128 KiB and more afresh each time and
# they page-fault in again (0.34 vs 0.23 M tiles/s).
CHUNK_VALUES = 1 << 17
CHUNK_VALUES_HERE = 1 << 15
TASK_CHUNKS = 8


def run(a, b, gen, sa, sb, n, start, rep, rel, *, chunk=None, progress=None, executor=None,
        share: bool = True) -> None:
    if sa.backend == "numpy":
        run_numpy(a, b, gen, n, start, rep, rel, chunk=chunk, progress=progress, executor=executor,
                  share=share)
        return
    gm = gm_image(a)
    check_generator(gen, a.n_idx, a.cap, start)
    step = int(chunk or (1 << 22 if sa.backend == "native" else 1 << 26))
    run_chunk = run_native_chunk if sa.backend == "native" else run_cupy_chunk
    done = 0
    allres = []
    for s in range(start, start + n, step):
        m = min(step, start + n - s)
        allres.append(run_chunk(params(a, b, gen.seed, gen.counter_kind, s, rel), gm, m))
        done += m
        if progress:
            progress(done, n)
    merge(rep, np.concatenate(allres) if allres else empty_results(0), gen)
    rep.engine = f"fused {sa.backend}"
