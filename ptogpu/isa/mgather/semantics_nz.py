"""A2/A3 MGATHER with an NZ GM table into an NZ UB tile (mgather.md §6.4, §6.6)."""
from __future__ import annotations

import numpy as np

from ...enums import Coalesce, GatherOOB
from ...errors import F_DST, F_OTHER, F_TABLE, PtoFault
from ...semantics.indexing import M32, cast_index, nz_gm_dims, remap, u64, wrap_addr
from .semantics import NAME, read_indices
from ...semantics.cells import guard_region, storage_overlaps


def row_nz(core, oob: GatherOOB, dst, table, idx, sel=None, prezero: bool = True) -> None:
    """Rows ``sel`` (default: all valid rows) of §6.4; ``prezero``: the Zero pre-zero step."""
    t = core.target.name
    VR = dst.valid_row
    sel = np.arange(VR, dtype=np.int64) if sel is None else sel
    S, St = nz_gm_dims(table)
    T, C0, R = dst.Element.itemsize, dst.C0, dst.Rows
    ub = core.arena(dst.space)
    cap = (S[2] * 16) & M32
    iaddr = idx.addr + sel * idx.Element.itemsize
    u = cast_index(read_indices(core, idx, iaddr, lambda i: f"row index {sel[i]}"), 32)
    safe, read = remap(u, cap, oob, 32, rule="GatherOOB.Wrap", target=t)
    keep = np.ones(len(sel), bool) if read is None else read
    rows = sel[keep]
    nb = S[1] & 0xFFFF                                  # nBurst is a uint16
    nblk = max(S[0], 0) * nb
    guard_region(core, ub, len(rows) * nblk * C0, T)
    with np.errstate(over="ignore"):
        s = safe[keep].astype(np.uint64)
        sbr, sri = s // np.uint64(16), s % np.uint64(16)
        i, j, k = np.meshgrid(np.arange(max(S[0], 0), dtype=np.uint64), np.arange(nb, dtype=np.uint64),
                              np.arange(C0, dtype=np.uint64), indexing="ij")
        i, j, k = (x.reshape(-1)[None, :] for x in (i, j, k))
        src_el = (i * u64(St[0]) + j * u64(St[1]) + sbr[:, None] * u64(St[2])
                  + sri[:, None] * u64(St[3]) + k)
        src = wrap_addr(u64(table.addr) + src_el * np.uint64(T))
        dst_el = ((i * u64(S[1]) + j) * u64(R * C0) + rows[:, None].astype(np.uint64) * u64(C0) + k)
        daddr = wrap_addr(u64(dst.addr) + dst_el * np.uint64(T))
    core.gm.check_many(src, T, f"{NAME} NZ row burst read", t, code=F_TABLE)
    ub.check_many(daddr, T, f"{NAME} NZ row burst write", t, code=F_DST)
    if oob == GatherOOB.Zero and prezero:                # whole tile pre-zeroed by the scalar unit
        ub.data[dst.addr: dst.addr + dst.nbytes] = 0
    # One multi-burst DMA per (row, batch): nBurst = gShape1 bursts of 32 bytes (§6.4).
    from ...semantics.dma import Bursts, execute
    shp = (len(rows), nblk, C0)
    execute(core, Bursts(NAME, "gm", dst.space, src.reshape(shp)[..., 0], daddr.reshape(shp)[..., 0],
                         C0 * T, T))


def elem_nz(core, oob: GatherOOB, dst, table, idx, cells=None) -> None:
    """Cells ``(r, c)`` (default: the whole valid region) of §6.6."""
    t = core.target.name
    VR, VC = dst.valid_row, dst.valid_col
    if VR == 0 or VC == 0:
        return
    S, St = nz_gm_dims(table)
    T, C0, R = dst.Element.itemsize, dst.C0, dst.Rows
    ub = core.arena(dst.space)
    guard_region(core, ub, VR * VC, T)
    # int arithmetic (wrapping at 32 bits), then unsigned 32-bit division by these values
    n_lc = (S[0] * S[1] * C0) & M32
    cap = ((S[2] * 16) * n_lc) & M32
    if cells is None:
        r, c = (g.reshape(-1) for g in np.meshgrid(np.arange(VR, dtype=np.int64),
                                                   np.arange(VC, dtype=np.int64), indexing="ij"))
    else:
        r, c = cells
    iaddr = idx.addr + (r * idx.Cols + c) * idx.Element.itemsize
    u = cast_index(read_indices(core, idx, iaddr, lambda i: f"idx({r[i]},{c[i]})"), 32)
    safe, read = remap(u, cap, oob, 32, rule="GatherOOB.Wrap", target=t)
    rd = np.ones(r.shape, bool) if read is None else read
    s = safe[rd].astype(np.uint64)
    g1 = S[1] & M32
    if s.size and n_lc == 0:
        raise PtoFault("NZ table with zero logical columns (gShape0*gShape1*C0 = 0) divides by "
                       "zero", rule="MGatherNZGmOffset", target=t, code=F_OTHER)
    if s.size and S[0] != 1 and g1 == 0:
        raise PtoFault("gShape1 = 0 with gShape0 != 1 divides by zero", rule="MGatherNZGmOffset",
                       target=t, code=F_OTHER)
    with np.errstate(over="ignore"):
        n = np.uint64(max(n_lc, 1))
        lr, lc = s // n, s % n
        c0, f16 = np.uint64(C0), np.uint64(16)
        bcc, k0, br, ri = lc // c0, lc % c0, lr // f16, lr % f16
        if S[0] == 1:
            o0, o1 = np.zeros_like(bcc), bcc
        else:
            g = np.uint64(max(g1, 1))
            o0, o1 = bcc // g, bcc % g
        off = (o0 * u64(St[0]) + o1 * u64(St[1]) + br * u64(St[2]) + ri * u64(St[3])
               + k0 * u64(St[4]))
        src = wrap_addr(u64(table.addr) + off * np.uint64(T))
    pos = np.flatnonzero(rd)
    core.gm.check_many(src, T, f"{NAME} NZ ({oob.name}) table read", t,
                       lambda i: f"dst({r[pos[i]]},{c[pos[i]]}) with index {int(u[pos[i]]):#x}", code=F_TABLE)
    vals = np.zeros(r.shape, table.Element)
    vals[rd] = core.gm.gather(src, table.Element)
    daddr = dst.addr + ((c // C0) * R * C0 + r * C0 + c % C0) * T
    ub.check_many(daddr, T, f"{NAME} dst write", t, code=F_DST)
    ub.scatter(daddr, vals)


def gather_nz(core, mode: Coalesce, oob: GatherOOB, dst, table, idx) -> None:
    """A2/A3 NZ MGATHER. When the dst aliases the index tile, the scalar loop's order decides
    what later index loads see, so run it step by step: Row — pre-zero (Zero), then one row at
    a time; Elem — column block, then row, then column in the block (§6.6) — and undo every
    store if a step faults."""
    if not storage_overlaps(dst, idx, mode):
        return (row_nz if mode == Coalesce.Row else elem_nz)(core, oob, dst, table, idx)
    arena = core.arena(dst.space)
    VR, VC, C0 = dst.valid_row, dst.valid_col, dst.C0
    with arena.undo_on_error():
        if mode == Coalesce.Row:
            if oob == GatherOOB.Zero:
                arena.data[dst.addr: dst.addr + dst.nbytes] = 0
            for r in range(VR):
                row_nz(core, oob, dst, table, idx, np.array([r], np.int64), prezero=False)
        else:
            for b in range(-(-VC // C0)):
                for r in range(VR):
                    for c in range(b * C0, min(VC, (b + 1) * C0)):
                        elem_nz(core, oob, dst, table, idx,
                                (np.array([r], np.int64), np.array([c], np.int64)))
