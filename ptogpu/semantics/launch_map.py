"""Launch maps: which (warp, lane, round) writes each destination element, and what it reads.

Closed forms over the elements, built from :mod:`ptogpu.semantics.a5_launch` (the kernels' formulas):

* Row (§5.3): warp ``ty`` = ``colSeg*rowWarps + rowWarp`` does rows ``rowWarp, +rowWarps, …``
  and, in each, columns ``colSeg*32 + tx, +colStride, …``.
* Elem (§5.4): thread ``tid = ty*32 + tx`` does linear positions ``tid, +launchThreads, …``.
* GM→L1 Elem SIMT (§5.8): the same grid-stride walk over the *padded* NZ tile; every slot of
  the scratch is written (a value inside the valid region, 0 outside).

``round`` is the warp's loop step in lock-step execution (lanes whose loop has ended idle
through it); ``seq`` is the position of the element in its own thread's program order.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from . import a5_launch as g
from .simt_case import SimtCase
from .indexing import M32


GRIDS = ("warp", "lane", "round", "seq", "src")   # what LaunchMap.grid lays out


@dataclass(frozen=True, eq=False)
class LaunchMap:
    """Per destination element (in ``slot`` order: ``r*vc + c``, or the padded NZ offset for
    l1_elem): logical ``r, c``; the ``warp, lane, round, seq`` that writes it; the table
    element offset ``src`` it reads (-1: no read, the element is written as 0); and the byte
    addresses of the table read, the destination write and the index read (-1: none)."""

    case: SimtCase
    warps: int
    r: np.ndarray
    c: np.ndarray
    warp: np.ndarray
    lane: np.ndarray
    round: np.ndarray
    seq: np.ndarray
    src: np.ndarray
    src_addr: np.ndarray
    dst_addr: np.ndarray
    idx_addr: np.ndarray

    @property
    def mode(self) -> str:
        return self.case.mode

    @property
    def threads(self) -> int:
        return g.LANES * self.warps

    @property
    def size(self) -> int:
        return int(self.r.size)

    @property
    def thread(self) -> np.ndarray:
        """Linear thread id ``ty*32 + tx`` of each element's writer."""
        return self.warp * g.LANES + self.lane

    def thread_elements(self, warp: int, lane: int) -> np.ndarray:
        """Slots handled by thread (warp, lane), in its program order."""
        sel = np.flatnonzero((self.warp == warp) & (self.lane == lane))
        return sel[np.argsort(self.seq[sel], kind="stable")]

    def grid(self, what: str = "warp") -> np.ndarray:
        """``what`` ("warp" | "lane" | "round" | "seq" | "src") laid out as the logical tile
        (vr x vc; the padded rows x cols for l1_elem); -1 where nothing is mapped."""
        if what not in GRIDS:
            raise ValueError(f"no grid {what!r}; one of {', '.join(GRIDS)}")
        rows, cols = (self.case.padded if self.mode == "l1_elem" else (self.case.vr, self.case.vc))
        out = np.full((rows, cols), -1, np.int64)
        out[self.r, self.c] = getattr(self, what)
        return out


def _row(case: SimtCase):
    VR, VC = case.vr, case.vc
    rw, wpr = g.row_warps(VR), g.warps_per_row(VR, VC)
    cs = g.col_stride(VR, VC)
    r, c = (a.reshape(-1) for a in np.meshgrid(np.arange(VR, dtype=np.int64),
                                               np.arange(VC, dtype=np.int64), indexing="ij"))
    chunk = c // g.LANES
    seg, col_iter = chunk % wpr, chunk // wpr
    lane = c % g.LANES
    row_iter = r // rw
    inner_warp = (VC - seg * g.LANES + cs - 1) // cs            # lane 0 runs longest
    inner_lane = (VC - seg * g.LANES - lane + cs - 1) // cs
    warp = seg * rw + r % rw
    rnd = row_iter * inner_warp + col_iter
    seq = row_iter * inner_lane + col_iter
    safe, read = case.remapped()
    with np.errstate(over="ignore"):
        base = ((safe * np.uint64(VC)) & np.uint64(M32)).astype(np.int64)   # A5: table + u32(safe*VC)
    src = np.where(read[r], base[r] + c, -1)
    idx_addr = case.idx_addr + r * case.idx_size                         # flat: indices[row]
    return g.row_launch_warps(VR, VC), r, c, warp, lane, rnd, seq, src, idx_addr


def _elem(case: SimtCase):
    VR, VC = case.vr, case.vc
    total = g.elem_total(VR, VC)
    warps = g.elem_launch_warps(total)
    threads = warps * g.LANES
    i = np.arange(total, dtype=np.int64)
    r, c = (i, np.zeros_like(i)) if VC == 1 else (i // VC, i % VC)
    tid, rnd = i % threads, i // threads
    safe, read = case.remapped()
    src = np.where(read[r, c], safe[r, c].astype(np.int64), -1)
    if case.idx_col_major:
        ioff = c * (case.idx_rows or VR) + r
    else:
        ioff = r * case.index_cols + c
    return warps, r, c, tid // g.LANES, tid % g.LANES, rnd, rnd, src, case.idx_addr + ioff * case.idx_size


def _l1_elem(case: SimtCase):
    rows, cols = case.padded
    total = g.elem_total(rows, cols)
    warps = g.elem_launch_warps(total)
    threads = warps * g.LANES
    off = np.arange(total, dtype=np.int64)
    r, c = g.nz_slot(off, rows, case.c0)
    tid, rnd = off % threads, off // threads
    valid = (r < case.vr) & (c < case.vc)
    safe, read = case.remapped()
    rv, cv = np.where(valid, r, 0), np.where(valid, c, 0)
    ok = valid & (read[rv, cv] if read.size else valid)
    src = np.where(ok, safe[rv, cv].astype(np.int64) if safe.size else 0, -1)
    idx_addr = np.where(valid, case.idx_addr + (r * case.index_stride + c) * case.idx_size, -1)
    return warps, r, c, tid // g.LANES, tid % g.LANES, rnd, rnd, src, idx_addr


def launch_map(case: SimtCase) -> LaunchMap:
    """The launch map of ``case`` (vectorised; 10^6 elements in well under a second)."""
    warps, r, c, warp, lane, rnd, seq, src, idx_addr = {"row": _row, "elem": _elem,
                                                         "l1_elem": _l1_elem}[case.mode](case)
    T = case.esize
    src_addr = np.where(src >= 0, case.table_addr + src * T, -1)
    if case.mode == "l1_elem":
        dst_off = np.arange(r.size, dtype=np.int64)             # scratch[off]
    elif case.dst_col_major:
        dst_off = c * case.padded[0] + r
    else:
        dst_off = r * case.padded[1] + c
    as64 = lambda a: np.asarray(a, np.int64)  # noqa: E731
    return LaunchMap(case, int(warps), as64(r), as64(c), as64(warp), as64(lane), as64(rnd),
                     as64(seq), as64(src), as64(src_addr), as64(case.dst_addr + dst_off * T),
                     as64(idx_addr))
