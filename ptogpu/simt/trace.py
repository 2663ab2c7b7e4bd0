"""Thread traces: what each thread of a launch actually did, recorded by running its loop.

A trace writes thread ids instead of data: for every destination slot, the (warp, lane,
round, seq) of the thread that wrote it, the table element it read, and how many times it was
written. Backends:

* ``numpy`` — an independent NumPy model of the kernels' thread loops (warp by warp, lanes
  as vectors in lock-step): it shares only the launch-size formulas with the launch map;
* ``native`` / ``cupy`` — the trace kernels of ``cuda_src/simt_trace.cu`` (built on the same
  ``common.cuh`` geometry functions as the data kernels), through the host shim or on a GPU.

Tests compare every backend's trace with :func:`ptogpu.simt.launch_map`.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..semantics import a5_launch as g
from ..semantics.simt_case import SimtCase
from ..semantics.indexing import M32

FIELDS = ("warp", "lane", "round", "seq", "src", "count")


@dataclass(frozen=True, eq=False)
class Trace:
    """Per slot (the launch map's slot order): ``warp, lane, round, seq, src`` of the last
    writer (-1: never written) and ``count`` (writes to that slot; 1 everywhere = exactly
    once). ``warps``: the warps the launch ran with (as the kernel computed it)."""

    case: SimtCase
    warps: int
    warp: np.ndarray
    lane: np.ndarray
    round: np.ndarray
    seq: np.ndarray
    src: np.ndarray
    count: np.ndarray
    backend: str = "numpy"


def n_slots(case: SimtCase) -> int:
    if case.mode == "l1_elem":
        rows, cols = case.padded
        return rows * cols
    return case.vr * case.vc


def numpy_trace(case: SimtCase) -> Trace:
    n = n_slots(case)
    rec = {f: np.full(n, -1, np.int64) for f in FIELDS}
    rec["count"][:] = 0
    safe, read = case.remapped()
    VR, VC = case.vr, case.vc

    def put(slots, warp, lanes, rnd, seq, src):
        np.add.at(rec["count"], slots, 1)
        rec["warp"][slots] = warp
        rec["lane"][slots] = lanes
        rec["round"][slots] = rnd
        rec["seq"][slots] = seq
        rec["src"][slots] = src

    lanes = np.arange(g.LANES, dtype=np.int64)
    if case.mode == "row":
        rw, wpr = g.row_warps(VR), g.warps_per_row(VR, VC)
        warps, cs = rw * wpr, wpr * g.LANES
        for ty in range(warps):
            row_warp, seg = ty % rw, ty // rw
            seq = np.zeros(g.LANES, np.int64)
            rnd = 0
            for row in range(row_warp, VR, rw):          # warp-uniform outer loop
                col = seg * g.LANES + lanes
                while True:                              # inner loop in lock-step
                    act = col < VC
                    if not act.any():
                        break
                    base = (int(safe[row]) * VC) & M32
                    src = base + col[act] if read[row] else np.full(int(act.sum()), -1)
                    put(row * VC + col[act], ty, lanes[act], rnd, seq[act], src)
                    seq += act
                    rnd += 1
                    col = col + cs
    else:
        if case.mode == "elem":
            total = g.elem_total(VR, VC)
        else:
            rows, cols = case.padded
            total = g.elem_total(rows, cols)
        warps = g.elem_launch_warps(total)
        threads = warps * g.LANES
        for ty in range(warps):
            i = ty * g.LANES + lanes
            rnd = 0
            while (i < total).any():                     # grid-stride loop in lock-step
                act = i < total
                s = i[act]
                if case.mode == "elem":
                    r, c = (s, 0 * s) if VC == 1 else (s // VC, s % VC)
                    src = np.where(read[r, c], safe[r, c].astype(np.int64), -1)
                else:
                    rows, cols = case.padded
                    blk, rem = s // (rows * case.c0), s % (rows * case.c0)
                    r, c = rem // case.c0, blk * case.c0 + rem % case.c0
                    src = np.full(s.size, -1, np.int64)
                    v = (r < VR) & (c < VC)
                    ok = np.zeros(s.size, bool)
                    ok[v] = read[r[v], c[v]]
                    src[ok] = safe[r[ok], c[ok]].astype(np.int64)
                put(s, ty, lanes[act], rnd, rnd, src)
                rnd += 1
                i = i + threads
    return Trace(case, int(warps), backend="numpy", **rec)
