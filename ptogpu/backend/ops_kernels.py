"""The register gathers on the kernel backends (cuda_src/reg_gather.cu).

Each ``run_*`` is the hook its instruction calls after the static checks. It returns False
(NumPy runs) on the numpy backend, for operands of another core, and whenever the kernel's
check pass reports a fault or a read inside the bytes the instruction writes: the kernel wrote
nothing, so NumPy raises the same fault, or reads the sources as they were before the
instruction, exactly as on the numpy backend.
"""
from __future__ import annotations

import numpy as np

from .. import dtypes
from ..errors import warn
from .kernels import ALIAS_FLAG_WORD, NONE, ParamBlock, all_clean, enum, i64, launch_on, use_kernels


# ---- Reg::Gather / Reg::GatherB ----------------------------------------------------------------
def _reg_launch(core, kernel, block, p, nbytes) -> np.ndarray | None:
    out = np.zeros(max(nbytes, 1), np.uint8)
    ub = core.ub
    arenas = {"gm": (np.zeros(1, np.uint8), 0, 0), "ub": (ub._buf, ub.size, 0),
              "l1": (out, nbytes, 0)}
    rec = launch_on(core, kernel, p, block=block, passes=2, arenas=arenas, writes=("l1",))[0]
    return out if int(rec[0]) == NONE else None


def run_reg_gather(core, dst, base, idx: np.ndarray, active: np.ndarray, mode: str) -> bool:
    """Lanes of ``dst`` from ``base`` (a UB pointer); ``mode``: "same", "b8_to_b16", "b64"."""
    if not use_kernels(core):
        return False
    E = lambda k: enum("reg_gather.cu", k)  # noqa: E731
    n = dst.lanes
    dsize = dst.dtype.itemsize
    p = np.zeros(E("RG_HDR") + 2 * n, np.int64)
    p[E("RG_LANES")], p[E("RG_SSIZE")], p[E("RG_DSIZE")] = n, base.dtype.itemsize, dsize
    p[E("RG_MODE")] = E({"same": "RG_SAME", "b8_to_b16": "RG_B8_TO_B16", "b64": "RG_B64_WORDS"}[mode])
    p[E("RG_BASE")] = i64(base.addr)
    p[E("RG_HDR"): E("RG_HDR") + n] = idx[:n]
    p[E("RG_HDR") + n:] = active[:n].astype(np.int64)
    out = _reg_launch(core, "reg_gather", (32, -(-n // 32), 1), p, n * dsize)
    if out is None:
        return False
    dst._put(out[: n * dsize].view(dtypes.storage(dst.dtype)))
    return True


def run_reg_gatherb(core, dst, base, off: np.ndarray, on: np.ndarray) -> bool:
    """Blocks of ``dst`` (8 x 32 bytes) from ``base`` + ``off[k]`` (rounded down in-kernel)."""
    if not use_kernels(core):
        return False
    E = lambda k: enum("reg_gather.cu", k)  # noqa: E731
    p = np.zeros(E("RG_HDR") + 16, np.int64)
    p[E("RG_LANES")], p[E("RG_MODE")] = 8, E("RG_BLOCKS")
    p[E("RG_BASE")] = i64(base.addr)
    p[E("RG_HDR"): E("RG_HDR") + 8] = np.asarray(off[:8], np.int64)
    p[E("RG_HDR") + 8:] = np.asarray(on[:8], np.int64)
    out = _reg_launch(core, "reg_gatherb", (8, 1, 1), p, 256)
    if out is None:
        return False
    dst._b[0] = out[:256]
    return True
