"""Driver of the executing campaign engine (cuda_src/fuzz.cu ``pto_fuzz_exec``, backend
``native``): per tile, indices generated into a UB image, both sides' *kernels* run on it (the
A5 SIMT launches as lock-step warps, every lane of every warp-round; the scalar targets' loops)
and their bytes and fault records compared in the same pass; only class counts and first
instance numbers come back.

It runs exactly the kernels and launch plans the batch path runs (``execution.kernels.batch_world``,
``plan_mgather``), so its reports equal the batch path's (tests/test_fuzz_execute.py) while no
index, output or fault array crosses into Python. Covered: what the fused formula engine covers
(MGATHER into UB, ND tiles, 32-bit index types, counter generators, any destination fill) with
both sides on native, or both on cupy: there the same engine is the ``fuzz_exec_campaign``
kernel, one block per tile (its code runs in the tests through the host shim; no GPU here).
"""
from __future__ import annotations

import numpy as np

from ..backend.kernels import Consts
from ..backend import sources
from ..execution.config import FuzzConfig
from ..execution import engine
from ..execution.single import layout
from .classes import instance_configs

K = Consts("fuzz.cu")
"""The kernels' enum constants (``K.NAME``), read from their source."""



def _MG(name: str) -> int:
    return sources.enum_values("mgather.cu")[name]


def prepare(a: FuzzConfig, b: FuzzConfig, gen, sa, sb, rel: int = 0, shapes: bool = False) -> "Campaign | None":
    """The campaign (a, b) for this engine, or None where it does not run it exactly as the
    batch path would: it needs both sides on native (``pto_fuzz_exec``) or both on cupy (the
    ``fuzz_exec_campaign`` kernel)."""
    from . import fused
    if sa.backend != sb.backend or sa.backend not in ("native", "cupy"):
        return None
    if not fused.covers(a.with_(dst_fill=0), b.with_(dst_fill=0), gen, sa, sb):   # (fill: ours)
        return None
    if layout(a) != layout(b):
        return None
    try:
        engine.lib()
        camp = Campaign(a, b, gen, rel, shapes=shapes)
        if sa.backend == "cupy":
            camp.kernel_params()
    except (LookupError, AttributeError, OSError, RuntimeError):
        return None
    return camp


KINDS = {"mgather_a5_elem": "MGK_A5_ELEM", "mgather_a5_row": "MGK_A5_ROW", "mgather_a5_scalar": "MGK_A5_SCALAR",
         "mgather_a2a3_row_nd": "MGK_A2A3_ROW_ND", "mgather_a2a3_elem_nd": "MGK_A2A3_ELEM_ND",
         "mgather_cpu": "MGK_CPU"}
"""The kernels whose per-instance bodies the engine's kernel form and specialised builds call."""


class Campaign:
    """Everything ``pto_fuzz_exec`` needs besides the instance range."""

    def __init__(self, a: FuzzConfig, b: FuzzConfig, gen, rel: int, threads: str = "warps",
                 shapes: bool = False):
        self.base_a, self.base_b = a, b    # the campaign's configurations, as given
        if shapes:                         # tiles laid out for the full shape, valid dims dynamic
            a, b = (c.with_(storage=(c.rows, c.cols)) for c in (a, b))
        self.a, self.b, self.gen, self.rel, self.shapes, self.threads = a, b, gen, rel, shapes, threads
        self.tiles = {"specialised": 0, "generic": 0}   # tiles each engine ran
        self.spec = None                   # its specialised engine (specialise.Spec), once planned
        self.n_tiles = 0                   # the campaign's length, when run() knows it
        self.sa, self.sb = engine.Side(a, threads), engine.Side(b, threads)
        self.L = self.sa.L
        self.gm = self.sa.gm
        if self.sb.gm.size != self.gm.size or not np.array_equal(self.gm, self.sb.gm):
            raise LookupError("sides hold different GM images")
        self.ub = [self.sa.ub, self.sb.ub]
        self.ipos = engine.index_positions(a, self.L)
        if shapes and any(s.params.size != _MG("MG_WORDS") for s in (self.sa, self.sb)):
            raise LookupError("shape fuzzing needs MGATHER parameter blocks")
        self.ex = engine.exec_block(a, [self.sa, self.sb], shapes)

    def plan(self, n_tiles: int, prm: np.ndarray | None = None) -> None:
        """Decide, for a campaign of ``n_tiles`` tiles, whether its chunks run a specialised
        build (ptogpu.fuzz.specialise: cached, built now, or built in the background)."""
        from . import fused, specialise
        if prm is None:
            prm = fused.params(self.a, self.b, self.gen.seed, self.gen.counter_kind, 0, self.rel)
        self.spec = specialise.Spec(self, prm, n_tiles)

    def run_chunk(self, start: int, n: int) -> np.ndarray:
        from . import fused
        f, _, threads = engine.lib()
        prm = fused.params(self.a, self.b, self.gen.seed, self.gen.counter_kind, start, self.rel)
        res = fused.empty_results(max(1, threads))
        if self.spec is None:
            self.plan(self.n_tiles or n, prm)
        fn = self.spec.get()
        if fn is not None:
            if fn(prm.ctypes.data, self.ex.ctypes.data, self.ipos.ctypes.data, self.sa.params.ctypes.data,
                  self.sb.params.ctypes.data, self.gm.ctypes.data, int(self.gm.size), self.ub[0].ctypes.data,
                  self.ub[1].ctypes.data, int(n), res.ctypes.data, int(res.shape[0])) == 0:
                self.tiles["specialised"] += n
                return res
            self.spec.refused()
        self.tiles["generic"] += n
        f(prm.ctypes.data, self.ex.ctypes.data, self.ipos.ctypes.data, self.sa.fn,
          self.sa.params.ctypes.data, self.sb.fn, self.sb.params.ctypes.data, self.gm.ctypes.data,
          int(self.gm.size), self.ub[0].ctypes.data, self.ub[1].ctypes.data, int(n), res.ctypes.data, int(res.shape[0]))
        return res

    def kernel_kinds(self) -> tuple[int, int]:
        """Each side's kernel as the engine's kernel form and specialised builds call it
        (``MGK_*`` of mgather_impl.cuh); LookupError for a kernel they do not call."""
        out = []
        for sd in (self.sa, self.sb):
            if sd.kernel not in KINDS or sd.params.size != _MG("MG_WORDS"):
                raise LookupError(f"{sd.kernel}: no kernel form of the executing engine")
            out.append(_MG(KINDS[sd.kernel]))
        return out[0], out[1]

    # -- the same engine as one kernel launch per chunk (fuzz_exec_campaign) -------------
    def kernel_params(self) -> tuple[np.ndarray, int, int]:
        """(parameter array, UB window bytes per instance, UB arena size) of
        ``fuzz_exec_campaign``: [campaign | exec | side A | side B | ipos]."""
        from . import fused
        ext = -(-(self.L["dst_addr"] + self.sa.dst.nbytes) // 64) * 64
        x = self.ex.copy()
        x[K.EX_KIND_A], x[K.EX_KIND_B] = self.kernel_kinds()
        x[K.EX_WIN_B], x[K.EX_REC] = ext, 2 * ext
        head = fused.params(self.a, self.b, self.gen.seed, self.gen.counter_kind, 0, self.rel)
        prm = np.concatenate([head, x, self.sa.params, self.sb.params, self.ipos]).astype(np.int64)
        return prm, 2 * ext + 64, max(int(self.ub[0].size), int(self.ub[1].size))

    def run_kernel_chunk(self, start: int, n: int, backend: str = "native") -> np.ndarray:
        """Tiles start .. start+n-1 through the ``fuzz_exec_campaign`` kernel: on cupy one block
        per tile on the GPU; on native the same kernel through the host shim, thread by thread
        (what the tests run: slower than :meth:`run_chunk`, same counts)."""
        from . import fused
        prm, stride, ub_size = self.kernel_params()
        prm[K.FZ_INST0] = start
        res = fused.empty_results(1)
        span = (n - 1) * stride + ub_size
        z, i64 = np.int64(0), np.int64
        if backend == "cupy":
            import cupy as cp
            from ..backend import cupy_backend
            fn = cupy_backend.module("fuzz.cu").get_function("fuzz_exec_campaign")
            dgm, dub, dprm, dres = cp.asarray(self.gm), cp.zeros(span, cp.uint8), cp.asarray(prm), cp.asarray(res)
            for p in range(4):
                fn((n,), (32, 32, 1), (dgm, i64(self.gm.size), z, dub, i64(ub_size), i64(stride), dgm, z, z,
                                       dprm, z, dres, i64(n), np.int32(p)))
            return cp.asnumpy(dres)
        from ..backend import native_backend
        f = native_backend.host_fn("fuzz_exec_campaign", "hostp_")
        ub = np.zeros(span, np.uint8)
        l1 = np.zeros(64, np.uint8)
        f(n, 32, 32, 1, 4, self.gm.ctypes.data, int(self.gm.size), 0, ub.ctypes.data, ub_size, stride,
          l1.ctypes.data, 0, 0, prm.ctypes.data, 0, res.ctypes.data, n, 0)
        return res


# Tiles per call: a progress update every few tenths of a second at the bench's rate.
CHUNK = 1 << 18
# Tiles per fuzz_exec_campaign launch on cupy (UB windows of a few KiB each on the device).
GPU_CHUNK = 1 << 16


def run(camp: "Campaign", backend: str, n, start, rep, *, chunk=None, progress=None) -> None:
    """Tiles start .. start+n-1 of a prepared campaign, into report ``rep``."""
    from . import fused
    a, b, gen, shapes = camp.base_a, camp.base_b, camp.gen, camp.shapes
    fused.check_generator(gen, a.n_idx, a.cap, start, (a.rows, a.cols, a.mode == "row") if shapes else None)
    gpu = backend == "cupy"
    step = int(chunk or (GPU_CHUNK if gpu else CHUNK))
    if not gpu:                            # (planned on the first chunk, for all n tiles)
        camp.tiles = {"specialised": 0, "generic": 0}
        camp.spec, camp.n_tiles = None, n
    done = 0
    allres = []
    for s in range(start, start + n, step):
        m = min(step, start + n - s)
        allres.append(camp.run_kernel_chunk(s, m, "cupy") if gpu else camp.run_chunk(s, m))
        done += m
        if progress:
            progress(done, n)
    fused.merge(rep, np.concatenate(allres) if allres else fused.empty_results(0), gen)
    if shapes:                             # each class's example in its first instance's shape
        for c in rep.classes.values():
            if c.first:
                ia, ib = instance_configs(a, b, gen, c.first[0])
                c.shape = (ia.rows, ia.cols)
                c.example = gen(np.array(c.first[:1], np.int64), ia.n_idx, ia.cap)[0]
    how = backend
    if not gpu and camp.tiles["specialised"]:
        how += (" (specialised build)" if not camp.tiles["generic"] else
                f" (specialised build for {camp.tiles['specialised']:,} tiles, generic for {camp.tiles['generic']:,})")
    rep.engine = (f"executing {how}: {camp.sa.kernel} vs {camp.sb.kernel}, both run per tile"
                  + (", valid shape drawn per tile" if shapes else ""))
