"""A5 SIMT launch geometry: the one Python copy of the formulas in ``cuda_src/common.cuh``.

``MGATHER`` on Ascend 950 runs as ``cce::async_invoke<kernel>(dim3{32, warps})``
(mgather.md §5.3, §5.4, §5.8). Launch maps, metrics, sweeps and the NumPy thread-loop
trace all read these functions, and the kernel trace (``cuda_src/simt_trace.cu``, built on the
C++ originals) is compared against them in the tests, so the two copies cannot drift.

Every function takes Python ints or NumPy integer arrays (vectorised over shapes) and keeps
the kernels' uint32 arithmetic.
"""
from __future__ import annotations

import numpy as np

LANES = 32
"""threadIdx.x extent: lanes per warp."""
MAX_WARPS = 32
"""threadIdx.y bound: ``LAUNCH_BOUND(1024)`` = 32 warps."""


def _out(x, like):
    return int(x) if np.ndim(like) == 0 and not isinstance(like, np.ndarray) else x


def _u(x):
    return np.asarray(x, dtype=np.int64)


def row_warps(vr):
    """``rowWarps = VR == 0 ? 1 : min(VR, 32)``: warps that split the rows."""
    v = _u(vr)
    return _out(np.where(v == 0, 1, np.minimum(v, MAX_WARPS)), vr)


def free_warps(vr):
    """``freeWarps = 32 / rowWarps``: warps left over to split the columns."""
    return _out(MAX_WARPS // _u(row_warps(vr)), vr)


def col_chunks(vc):
    """``colChunks = ceil(VC / 32)``: 32-column chunks of a row."""
    return _out((_u(vc) + LANES - 1) // LANES, vc)


def warps_per_row(vr, vc):
    """``warpsPerRow = max(1, min(freeWarps, colChunks))``."""
    return _out(np.maximum(1, np.minimum(_u(free_warps(vr)), _u(col_chunks(vc)))), vr)


def row_launch_warps(vr, vc):
    """Row mode ``launchWarps = rowWarps * warpsPerRow`` (<= 32)."""
    return _out(_u(row_warps(vr)) * _u(warps_per_row(vr, vc)), vr)


def col_stride(vr, vc):
    """Row mode ``colStride = warpsPerRow * 32``: a lane's step along its row."""
    return _out(_u(warps_per_row(vr, vc)) * LANES, vr)


def elem_launch_warps(total):
    """Elem modes ``launchWarps = clamp(ceil(total / 32), 1, 32)`` (grid-stride rounds after)."""
    t = _u(total) & 0xFFFFFFFF                   # total is a uint32 in the kernels
    return _out(np.clip((t + LANES - 1) // LANES, 1, MAX_WARPS), total)


def elem_total(vr, vc):
    """``total = VR * VC`` as the kernels' uint32."""
    return _out((_u(vr) * _u(vc)) & 0xFFFFFFFF, vr)


def launch_warps(mode: str, vr, vc, rows=None, cols=None):
    """Warps of the launch of ``mode`` ("row" | "elem" | "l1_elem"; l1 uses the padded tile)."""
    if mode == "row":
        return row_launch_warps(vr, vc)
    if mode == "elem":
        return elem_launch_warps(elem_total(vr, vc))
    if mode == "l1_elem":
        return elem_launch_warps(elem_total(rows, cols))
    raise ValueError(f"unknown SIMT mode {mode!r}; choose row, elem or l1_elem")


def nz_slot(off, rows: int, c0: int):
    """GM→L1 SIMT (§5.8): padded NZ offset ``off`` -> logical (r, c)."""
    off = _u(off)
    block_col, rem = off // (rows * c0), off % (rows * c0)
    return rem // c0, block_col * c0 + rem % c0


def store_order(mode: str, vr: int, vc: int, r: np.ndarray, c: np.ndarray) -> np.ndarray:
    """Positions of the cells ``(r, c)`` sorted by when their store issues in the emulation's
    schedule of the launch: warp after warp, each warp's rounds in order, its 32 lanes in
    lock-step (lane order within a round). Only the order of stores to a shared byte depends on
    it (destination rows that overlap); hardware runs warps concurrently, so this is one legal
    schedule, the one the native and numpy backends both follow."""
    r, c = _u(r).ravel(), _u(c).ravel()
    if mode == "row":
        rw, wpr = row_warps(vr), warps_per_row(vr, vc)
        warp = r % rw + rw * ((c // LANES) % wpr)
        keys = (c % LANES, c // (wpr * LANES), r // rw, warp)
    else:
        i = r * vc + c
        warps = elem_launch_warps(elem_total(vr, vc))
        keys = (i % LANES, (i // LANES) // warps, (i // LANES) % warps)
    return np.lexsort(keys)
