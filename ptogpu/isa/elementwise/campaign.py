"""The element-wise campaign engine (cuda_src/elementwise_fuzz.cu): a single-instruction campaign
of a tile-tile, unary or scalar call run per tile in C, both sides and the classification there,
only class counts and first instances coming back (as the MGATHER engines of fuzz.cu do).

It runs where both sides are on ``native`` (``pto_ew_fuzz_native``, OpenMP over tiles) or both on
``cupy`` (the ``ew_fuzz_campaign`` kernel, one thread per tile), the call
on 1-, 2- or 4-byte integers or float32 computes the element's operation only on both targets
and on every hybrid target the explanation asks (``kernels.plain_call``), the operation is one
the kernel has (no integer division) and the generator is a counter kind. Everything else runs
through the batch path. Per tile the engine computes each side with ``ew_apply``, the function
``tile_elementwise`` runs, from the targets' model words (``kernels.model_words``).

References: each side's bytes are checked against the NumPy semantics (and the engine's class
against the batch path's verdict) on a sample -- the first :data:`SAMPLE` instances and each
class's first instances -- which the report states; an instance where they disagree takes the
batch path's class marked ``backend disagreement`` (an emulator bug). The sample's engine
classes come from the native engine (``pto_ew_fuzz_classes``) on either backend.
``ew_fuzz_campaign`` is the same engine as a kernel (one thread per tile), run in the tests
through the host shim."""
from __future__ import annotations

import ctypes
from itertools import combinations

import numpy as np

from ...backend.kernels import Consts
from ...targets import get_target
from .api import BINARY, SCALAR, UNARY
from .kernels import KINDS, model_words, plain_call

K = Consts("elementwise_fuzz.cu")
SAMPLE = 1024
"""Instances from the campaign's start whose bytes and class the batch path checks."""
KINDS32 = tuple(k for k in KINDS if k not in ("int64", "uint64"))


def _call(cfg) -> str | None:
    call = getattr(cfg.instruction, "call", None)
    return call if call in BINARY or call in UNARY or call in SCALAR else None


def _op(call: str) -> str:
    return BINARY.get(call) or UNARY.get(call) or SCALAR[call]


def _words(cfg) -> list[int]:
    call = _call(cfg)
    R = get_target(cfg.target).elementwise
    w = [0] * K.EW_WORDS
    for name, v in model_words(R, _op(call), cfg.dtype, call in SCALAR).items():
        w[K[f"EW_{name}"]] = v
    return w


def _alternatives(ca, cb) -> list[tuple[int, int, int, object]]:
    """(tier, direction, bits, hybrid config) in explain()'s tiers: each side with the other's
    field (or pair of fields), as ``explain`` asks them."""
    from ...fuzz import rules as R
    from ...fuzz.explain import hybrid
    cand = [f for f in R.differing(ca.instr, ca.space, ca.target, cb.target)
            if f.path not in ca.instruction.inert_rules(ca)]
    tiers = [[(f,) for f in cand if not f.coarse], [(f,) for f in cand if f.coarse], list(combinations(cand, 2))]
    out = []
    for t, tier in enumerate(tiers):
        for fs in tier:
            for d, mine, other in ((0, cb, ca), (1, ca, cb)):
                out.append((t, d, sum(f.bit for f in fs), hybrid(mine, other, fs)))
    return out


def covers(ca, cb, gen, sa, sb) -> bool:
    """Does the engine run this campaign exactly as the batch path would classify it?"""
    call = _call(ca)
    if call is None or sa.backend != sb.backend or sa.backend not in ("native", "cupy") or gen.counter_kind is None:
        return False
    if ca.dtype not in KINDS32 or (_op(call) == "div" and ca.dtype != "float32") or ca.rows * ca.cols == 0:
        return False
    alts = _alternatives(ca, cb)
    if len(alts) > K.EWF_MAX_ALT:
        return False
    return all(plain_call(get_target(c.target).elementwise, call, ca.dtype, ca.cols)
               for c in [ca, cb] + [h for *_, h in alts])


def params(ca, cb, gen, inst0: int) -> np.ndarray:
    """The campaign block (EWF_*)."""
    from ...fuzz import rules as R
    call = _call(ca)
    p = [0] * K.EWF_WORDS
    seed = gen.seed & (2**64 - 1)
    p[K.EWF_SEED], p[K.EWF_INST0] = seed - (1 << 64) if seed >> 63 else seed, int(inst0)
    p[K.EWF_GEN], p[K.EWF_GCAP] = gen.counter_kind, ca.cap & 0xFFFFFFFF
    p[K.EWF_N], p[K.EWF_NVAL] = ca.rows * ca.cols, ca.n_idx
    p[K.EWF_TWO], p[K.EWF_SCALAR] = int(call in BINARY), int(call in SCALAR)
    p[K.EWF_MASK] = (1 << (8 * ca.esize)) - 1
    p[K.EWF_UNEXPLAINED] = R.UNEXPLAINED
    p[K.EWF_A: K.EWF_A + K.EW_WORDS] = _words(ca)
    p[K.EWF_B: K.EWF_B + K.EW_WORDS] = _words(cb)
    alts = _alternatives(ca, cb)
    p[K.EWF_NALT] = len(alts)
    for j, (t, d, bits, h) in enumerate(alts):
        at = K.EWF_ALT + j * K.EWF_ALT_WORDS
        p[at: at + K.EWF_ALT_WORDS] = [t, d, bits] + _words(h)
    return np.array(p, np.int64)


def _lib():
    from ...backend import native_backend
    return native_backend.load("elementwise_fuzz")


def classes_of(prm: np.ndarray, inst: np.ndarray) -> np.ndarray:
    """The engine's class of each instance (0: the sides agree)."""
    inst = np.ascontiguousarray(inst, np.int64)
    out = np.zeros(inst.size, np.uint64)
    _lib().pto_ew_fuzz_classes(ctypes.c_void_p(prm.ctypes.data), ctypes.c_void_p(inst.ctypes.data),
                               ctypes.c_longlong(inst.size), ctypes.c_void_p(out.ctypes.data))
    return out.astype(np.int64)


def _native_chunk(prm: np.ndarray, m: int) -> np.ndarray:
    from ...fuzz import fused
    lib = _lib()
    f = lib.pto_ew_fuzz_native
    f.restype = None
    res = fused.empty_results(max(1, int(lib.pto_host_shim_threads())))
    f(ctypes.c_void_p(prm.ctypes.data), ctypes.c_longlong(m), ctypes.c_void_p(res.ctypes.data),
      ctypes.c_int(res.shape[0]))
    return res


def _cupy_chunk(prm: np.ndarray, m: int) -> np.ndarray:
    """``ew_fuzz_campaign``: one thread per tile (its code runs in the tests through the host shim)."""
    import cupy as cp
    from ...backend import cupy_backend
    from ...fuzz import fused
    fn = cupy_backend.module("elementwise_fuzz.cu").get_function("ew_fuzz_campaign")
    res, dprm = cp.asarray(fused.empty_results(1)), cp.asarray(prm)
    dummy = cp.zeros(8, cp.uint8)
    z, threads = np.int64(0), 256
    grid = int(min(max(1, -(-m // threads)), 65535 * 8))
    fn((grid,), (threads, 1, 1), (dummy, z, z, dummy, z, z, dummy, z, z, dprm, z, res, np.int64(m), np.int32(0)))
    return cp.asnumpy(res)


def run(ca, cb, gen, sa, sb, n: int, start: int, rep, *, chunk=None, progress=None) -> None:
    """Instances start .. start+n-1 into ``rep``; then the sample checked on the batch path."""
    from ...fuzz import fused
    fused.check_generator(gen, ca.n_idx, ca.cap, start)
    step = int(chunk or 1 << 20)
    chunk_of = _native_chunk if sa.backend == "native" else _cupy_chunk
    allres, done = [], 0
    for s in range(start, start + n, step):
        m = min(step, start + n - s)
        allres.append(chunk_of(params(ca, cb, gen, s), m))
        done += m
        if progress:
            progress(done, n)
    fused.merge(rep, np.concatenate(allres), gen)
    # the sample: the batch path's bytes, references and verdicts against the engine's classes
    firsts = [i for c in rep.classes.values() for i in c.first]
    sample = np.unique(np.concatenate([np.arange(start, start + min(n, SAMPLE)), np.array(firsts, np.int64)]))
    got = classes_of(params(ca, cb, gen, start), sample)
    want, rep.ref_bad_a, rep.ref_bad_b = _verdicts(ca, cb, gen, sa, sb, sample)
    for i in np.flatnonzero(got != want):
        _reclass(rep, gen, ca, int(sample[i]), int(got[i]), int(want[i]))
    rep.engine = f"element-wise engine (cuda_src/elementwise_fuzz.cu), {sa.backend}"
    rep.references = {k: f"numpy semantics on {sample.size:,} sampled instances (the first {min(n, SAMPLE):,} and "
                         "each class's first), where the engine's class is also checked against the batch path's "
                         "verdict; the other instances ran the engine alone" for k in ("a", "b")}


def _verdicts(ca, cb, gen, sa, sb, inst: np.ndarray) -> tuple[np.ndarray, int, int]:
    """The batch path's class masks of these instances (each side's kernel run, checked against
    its NumPy reference, the two compared and explained), and the reference mismatches."""
    from ...execution.batch import run_chunk
    from ...execution.single import cast_indices
    from ...fuzz import rules as R
    from ...fuzz.classes import relation
    from ...fuzz.explain import verdicts
    vals = gen(inst, ca.n_idx, ca.cap)
    raw = cast_indices(ca, vals).reshape(inst.size, -1)
    ra = run_chunk(ca, inst, gen, sa.backend, values=vals, raw=raw, digest=False)
    rb = run_chunk(cb, inst, gen, sb.backend, values=vals, raw=raw, digest=False)
    mk = verdicts(ca, cb, sa, sb, inst, gen, raw, ra, rb, relation(sa, sb))
    return mk, int(np.count_nonzero(mk & R.REF_A)), int(np.count_nonzero(mk & R.REF_B))


def _reclass(rep, gen, cfg, inst: int, got: int, want: int) -> None:
    """An instance the engine classes otherwise than the batch path: the batch path's class,
    marked BACKEND (an emulator bug: two executions of one configuration disagree) unless a
    side already disagrees with its reference there."""
    from ...fuzz import rules as R
    from ...fuzz.classes import note_sparse
    if got:
        c = rep.classes[got]
        c.count -= 1
        c.first = [i for i in c.first if i != inst]
        rep.divergent -= 1
        if not c.count:
            del rep.classes[got]
    mask = want if want & (R.REF_A | R.REF_B) else want | R.BACKEND
    note_sparse(rep, np.array([inst], np.int64), np.array([mask], np.int64), gen, cfg)
