"""TINTERLEAVE / TDEINTERLEAVE element maps per target (other-ops.md §B).

Each function returns (dst tile, dst column, src tile, src column) index arrays per row; the
executor reads every source element as it was before the instruction, then writes only the
listed (valid-region) elements: stores are masked, so padding is never touched.
"""
from __future__ import annotations

import numpy as np

from ...errors import F_DST, F_TABLE, NotBatched, asserts_live
from ...semantics.tile_moves import copy_last_wins

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
    ub.check_many(sa, size, "interleave source read", t, code=F_TABLE)
    ub.check_many(da, size, "interleave dst write", t, code=F_DST)
    copy_last_wins(core, "ub", sa, da, size)


def odd_width_traps(core, VC: int) -> bool:
    """The simulator asserts an even valid width; a live assert traps (PtoFault)."""
    return core.target.interleave.engine == "cpu_loop" and VC % 2 == 1 and asserts_live(core)


# -- the CPU simulator's loops (cpu/TInterleave.hpp, cpu/TDeinterleave.hpp) --------------------
def cpu_statements(kind: str, VR: int, VC: int):
    """The simulator's assignments in program order, as (dst no., dst col, src no., src col)
    per row, for rows < VR: one ``dst[GetTileElementOffset(r, col)] = src[...]`` each.
    interleave (c < VC/2): dst0[2c]=src0[c], dst0[2c+1]=src1[c], dst1[2c]=src0[c+h],
    dst1[2c+1]=src1[c+h]; deint2: dst0[c]=src0[2c], dst1[c]=src0[2c+1], dst0[c+h]=src1[2c],
    dst1[c+h]=src1[2c+1]; deint1 (c < VC): dst0[c]=src[2c], dst1[c]=src[2c+1]."""
    if kind == "deint1":
        c = np.arange(VC, dtype=np.int64)
        z = np.zeros_like(c)
        st = [(z, c, z, 2 * c), (z + 1, c, z, 2 * c + 1)]
    else:
        h = VC // 2
        c = np.arange(h, dtype=np.int64)
        z = np.zeros_like(c)
        if kind == "interleave":
            st = [(z, 2 * c, z, c), (z, 2 * c + 1, z + 1, c), (z + 1, 2 * c, z, c + h),
                  (z + 1, 2 * c + 1, z + 1, c + h)]
        else:
            st = [(z, c, z, 2 * c), (z + 1, c, z, 2 * c + 1), (z, c + h, z + 1, 2 * c),
                  (z + 1, c + h, z + 1, 2 * c + 1)]
    # program order within a row: c outer, the statements inner
    return [np.stack([s[k] for s in st], axis=1).reshape(-1) for k in range(4)]


def cpu_execute(core, dsts, srcs, VR: int, stmts) -> None:
    """Run the statements for rows < VR through each tile's full layout offsets
    (``GetTileElementOffset``: fractal boxes included), converting each value from the source
    element type to the destination's as C++ assignment does. Where a destination shares bytes
    with a source the statements run one by one, so a later read sees an earlier write, as in
    the simulator; otherwise in one vectorised pass with the same result. Every address is
    checked first: nothing is written on a fault."""
    from ...semantics.cells import convert
    dn, dc, sn, sc = stmts
    if VR == 0 or dn.size == 0:
        return
    n = dn.size
    r = np.repeat(np.arange(VR, dtype=np.int64), n)
    dn, dc, sn, sc = (np.tile(x, VR) for x in (dn, dc, sn, sc))
    t = core.target.name
    daddr = np.empty(r.size, np.int64)
    saddr = np.empty(r.size, np.int64)
    for k, d in enumerate(dsts):
        m = dn == k
        daddr[m] = d.addr + d.offsets(r[m], dc[m]) * d.Element.itemsize
    for k, s in enumerate(srcs):
        m = sn == k
        saddr[m] = s.addr + s.offsets(r[m], sc[m]) * s.Element.itemsize
    D, S = dsts[0], srcs[0]
    darena, sarena = core.arena(D.space), core.arena(S.space)
    ssize, dsize = S.Element.itemsize, D.Element.itemsize
    sarena.check_many(saddr, ssize, "interleave source read", t, code=F_TABLE)
    darena.check_many(daddr, dsize, "interleave dst write", t, code=F_DST)
    if not any(d.shares_bytes(s) for d in dsts for s in srcs):
        ks = core.step_instances()
        vals = convert(core, core.banks[S.space].take_same(ks, saddr, S.Element), D, S.DType)
        j = np.arange(dsize, dtype=np.int64)
        u, first = np.unique((daddr[:, None] + j).reshape(-1)[::-1], return_index=True)
        b = np.ascontiguousarray(vals).view(np.uint8).reshape(len(ks), -1)[:, ::-1]
        core.banks[D.space].put(ks, u, b[:, first])
        return
    if core.all_at_once:
        raise NotBatched("TINTERLEAVE")         # aliasing: the statements one by one, each instance
    for a_s, a_d in zip(saddr.tolist(), daddr.tolist()):       # aliasing: program order
        v = convert(core, sarena.gather(np.array([a_s]), S.Element), D, S.DType)
        darena.scatter(np.array([a_d]), v)
