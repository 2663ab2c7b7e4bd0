"""TINTERLEAVE / TDEINTERLEAVE element maps per target (other-ops.md §B).

Each function returns (dst tile, dst column, src tile, src column) index arrays per row; the
executor reads every source element as it was before the instruction, then writes only the
listed (valid-region) elements: stores are masked, so padding is never touched.
"""
from __future__ import annotations

import numpy as np

from .tgatherb import write_last_wins

VL = 256


def interleave_count(core, VC: int, size: int) -> int:
    """Columns written in each dst row. CPU: ``2*(VC//2)`` (odd VC leaves VC-1 untouched).
    A5: the chunk loop stores ``min(VC, 2*R*E)`` with ``R = ceil(h/E)``; for odd VC that is VC
    unless ``h % E == 0`` (the hole: quirk ``a5_interleave_odd_hole``)."""
    rules = core.target.interleave
    h = VC >> 1
    if rules.odd_vc == "skip_last":
        return 2 * h
    E = VL // size
    if not core.quirks.get("a5_interleave_odd_hole", True):
        return VC
    return min(VC, 2 * (-(-h // E)) * E)


def interleave_map(core, VC: int, size: int):
    """dst_p[c] = (src0 if c even else src1)[base_p + c//2], base_0 = 0, base_1 = VC//2."""
    n = interleave_count(core, VC, size)
    c = np.arange(n, dtype=np.int64)
    h = VC >> 1
    out = []
    for p, base in ((0, 0), (1, h)):
        out.append((np.full(n, p), c, c % 2, base + c // 2))
    return [np.concatenate(x) for x in zip(*out)]


def deinterleave2_map(core, VC: int, size: int):
    """dst_{c%2}[base_s + c//2] = src_s[c], c < 2*(VC//2), base_0 = 0, base_1 = VC//2.
    Odd VC writes 2*(VC//2) columns on every target (no A5 golden exists; unverified)."""
    h = VC >> 1
    c = np.arange(2 * h, dtype=np.int64)
    out = [(c % 2, s * h + c // 2, np.full(c.size, s), c) for s in (0, 1)]
    return [np.concatenate(x) for x in zip(*out)]


def deinterleave1_map(n: int):
    """dst_{c%2}[c//2] = src[c], c < 2n."""
    c = np.arange(2 * n, dtype=np.int64)
    return c % 2, c // 2, np.zeros(c.size, np.int64), c


def execute(core, dsts, srcs, VR: int, cmap) -> None:
    """Copy along ``cmap`` = (dst no., dst col, src no., src col) for rows ``< VR``."""
    dn, dc, sn, sc = cmap
    if VR == 0 or dn.size == 0:
        return
    size = dsts[0].Element.itemsize
    r = np.arange(VR, dtype=np.int64)[:, None]
    d_base = np.array([d.addr for d in dsts], np.int64)[dn]
    d_cols = np.array([d.Cols for d in dsts], np.int64)[dn]
    s_base = np.array([s.addr for s in srcs], np.int64)[sn]
    s_cols = np.array([s.Cols for s in srcs], np.int64)[sn]
    da = (d_base + (r * d_cols + dc) * size).reshape(-1)
    sa = (s_base + (r * s_cols + sc) * size).reshape(-1)
    ub, t = core.ub, core.target.name
    ub.check_many(sa, size, "interleave source read", t)
    ub.check_many(da, size, "interleave dst write", t)
    j = np.arange(size, dtype=np.int64)
    data = ub.data[sa[:, None] + j]
    write_last_wins(ub, da[:, None] + j, data)
