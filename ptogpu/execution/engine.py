"""The executing engine's kernels, per tile, in the native library: the launch of one side
(:class:`Side`: the one-block entry point of its kernel, block, passes, parameters), the
exec block the engine reads (:func:`exec_block`), and a batch of one configuration run that
way (:func:`run_tiles`: ``cuda_src/fuzz.cu`` pto_batch_exec), which ``run_batch`` takes on
native for MGATHER into UB with 32-bit indices from a counter generator.

The tiles run the same kernel, block and passes as the batched core's launch; what differs
is where the time goes: each tile is generated, run, digested and checked for stray writes
in cache, with no per-instance memory to fill, copy back or watch
(``tests/test_batch_engine.py`` shows the bytes, faults, digests and stray marks equal to the
batched core's)."""
from __future__ import annotations

import ctypes
from math import prod

import numpy as np

from ..backend.kernels import Consts
from ..backend import sources
from .config import FuzzConfig
from .kernels import batch_world, idx_tile
from .single import F_DST, F_INDEX, F_OTHER, F_TABLE, layout

K = Consts("fuzz.cu")
"""The kernels' enum constants (``K.NAME``), read from their source."""

_fn = None




def _MG(name: str) -> int:
    return sources.enum_values("mgather.cu")[name]


def lib():
    """(pto_fuzz_exec, the native library, its thread count)."""
    global _fn
    if _fn is None:
        from ..backend import native_backend
        lib_ = native_backend.load()
        f = lib_.pto_fuzz_exec
        f.argtypes = [ctypes.c_void_p] * 8 + [ctypes.c_longlong, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_longlong,
                                              ctypes.c_void_p, ctypes.c_int]
        f.restype = None
        _fn = (f, lib_, lib_.pto_host_shim_threads())
    return _fn


class Side:
    """One side's launch: the one-block entry point of its kernel, block, passes, parameters."""

    def __init__(self, cfg: FuzzConfig, threads: str = "warps"):
        from ..backend import native_backend
        self.core, plan, self.L, self.dst = batch_world(cfg)
        if plan is None or plan.kernel is None:
            raise LookupError(f"{cfg.label}: no kernel launch")
        _, lib_, _ = lib()
        lock = threads == "warps" and plan.kernel in native_backend.lockstep_kernels()
        sym = ("host1w_" if lock else "host1_") + plan.kernel
        self.fn = ctypes.cast(getattr(lib_, sym), ctypes.c_void_p).value
        self.kernel, self.block, self.passes = plan.kernel, plan.block, plan.passes
        self.params = np.ascontiguousarray(plan.params, np.int64)
        self.gm = np.ascontiguousarray(self.core.gm._buf[: self.core.gm.size]).copy()
        self.ub = np.ascontiguousarray(self.core.ub._buf[: self.core.ub.size]).copy()


def index_positions(cfg: FuzzConfig, L: dict) -> np.ndarray:
    """The element offsets of the index tile's n_idx values (row-major valid grid)."""
    ir, ic, ivr, ivc = L["idx_shape"]
    rr, cc = np.meshgrid(np.arange(ivr), np.arange(ivc), indexing="ij")
    ipos = np.ascontiguousarray(type(idx_tile(cfg, L)).offsets(rr, cc).reshape(-1), np.int64)
    if L["isz"] != 4 or ipos.size != cfg.n_idx:
        raise LookupError("index tile is not n_idx 32-bit words")
    return ipos


def exec_block(cfg: FuzzConfig, sides: list[Side], shapes: bool = False) -> np.ndarray:
    """The engine's exec block (EX_*) for side A (and B)."""
    L = sides[0].L
    x = [0] * K.EX_WORDS
    x[K.EX_N_IDX], x[K.EX_IDX_ADDR] = cfg.n_idx, L["idx_addr"]
    x[K.EX_DST_ADDR], x[K.EX_DST_NBYTES] = L["dst_addr"], sides[0].dst.nbytes
    x[K.EX_DST_COLS] = L["dst_shape"][1]
    x[K.EX_DST_FILL] = int(cfg.dst_fill) & 0xFF
    for k, s in zip("AB", sides):
        by = s.block[1]
        if shapes and s.block[0] == 32:
            by = 32      # per-thread SIMT launches: a block for any shape (extra warps return)
        x[K[f"EX_BX_{k}"]], x[K[f"EX_BY_{k}"]] = s.block[0], by
        x[K[f"EX_PASSES_{k}"]], x[K[f"EX_UB_{k}"]] = s.passes, s.core.ub.size
    x[K.EX_SHAPES], x[K.EX_PWORDS] = int(shapes), _MG("MG_WORDS")
    x[K.EX_VR_WORD], x[K.EX_VC_WORD] = _MG("MG_VR"), _MG("MG_VC")
    return np.array(x, np.int64)


def covers(cfg: FuzzConfig, gen) -> bool:
    """Does :func:`run_tiles` run this configuration (its tiles from this generator)? MGATHER
    into UB with 32-bit indices (the instruction's formula fields exist), the nd layout, a
    counter generator, GM of at most :data:`PRIVATE_GM` bytes; not Wrap over a capacity that
    may be 0 (no kernel runs there)."""
    if gen.counter_kind is None or cfg.instruction.formula_fields(cfg) is None or cfg.layout != "nd":
        return False
    if layout(cfg)["gm_size"] > PRIVATE_GM:
        return False
    S = cfg.shape5
    return not (cfg.oob == "wrap" and any(c % (1 << 32) == 0 for c in (S[3], prod(S[:4]), prod(S))))


PRIVATE_GM = 64 << 20
"""GM bytes up to which each engine thread runs on (and checks) a private copy of GM; bigger
tables run on cores of N."""

_WORLDS: dict = {}


def _world(cfg: FuzzConfig):
    """(side, exec block, index positions, fault codes by phase) of a configuration, cached."""
    w = _WORLDS.get(cfg)
    if w is None:
        side = Side(cfg)
        codes = np.array([F_INDEX, F_TABLE, F_DST, F_OTHER], np.int8)   # PHASE_INDEX, _TABLE, _DST
        w = _WORLDS[cfg] = (side, exec_block(cfg, [side]), index_positions(cfg, side.L), codes)
        while len(_WORLDS) > 8:
            _WORLDS.pop(next(iter(_WORLDS)))
    return w


def run_tiles(cfg: FuzzConfig, gen, start: int, n: int, keep_outputs: bool = True,
              out: np.ndarray | None = None):
    """Tiles ``start .. start+n-1`` of ``cfg`` (``covers``): (outputs (n, bytes) or None,
    fault codes, digests, stray mask); ``out``: a C-contiguous (n, bytes) array to write the
    outputs into."""
    side, ex, ipos, codes = _world(cfg)
    _, lib_, _ = lib()
    f = lib_.pto_batch_exec
    f.restype = None
    dn = int(ex[K.EX_DST_NBYTES])
    if not keep_outputs:
        out = None
    elif out is None or not out.flags.c_contiguous or out.shape != (n, dn):
        out = np.empty((n, dn), np.uint8)
    code = np.empty(n, np.int8)
    dig = np.empty(n, np.uint64)
    stray = np.empty(n, np.uint8)
    p = lambda a: ctypes.c_void_p(a.ctypes.data)  # noqa: E731
    f(p(ex), p(ipos), ctypes.c_void_p(side.fn), p(side.params), p(side.gm), ctypes.c_longlong(side.gm.size),
      p(side.ub), ctypes.c_uint64(gen.seed & 0xFFFFFFFFFFFFFFFF), ctypes.c_int(gen.counter_kind),
      ctypes.c_uint64(cfg.cap & 0xFFFFFFFF), ctypes.c_longlong(start), ctypes.c_longlong(n), p(codes),
      p(out) if out is not None else ctypes.c_void_p(0), p(code), p(dig), p(stray))
    return out, code, dig, stray.astype(bool)
