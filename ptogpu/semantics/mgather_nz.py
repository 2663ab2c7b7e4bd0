"""A2/A3 MGATHER with an NZ GM table into an NZ UB tile (mgather.md §6.4, §6.6)."""
from __future__ import annotations

import numpy as np

from ..enums import GatherOOB
from ..errors import PtoFault
from .indexing import M32, cast_index, remap, u64, wrap_addr
from .mgather import NAME, guard_region, read_indices


def _gm_dims(table):
    return [table.GetShape(k) for k in range(5)], [table.GetStride(k) for k in range(5)]


def row_nz(core, oob: GatherOOB, dst, table, idx) -> None:
    t = core.target.name
    VR = dst.valid_row
    S, St = _gm_dims(table)
    T, C0, R = dst.Element.itemsize, dst.C0, dst.Rows
    ub = core.arena(dst.space)
    cap = (S[2] * 16) & M32
    iaddr = idx.addr + np.arange(VR, dtype=np.int64) * idx.Element.itemsize
    u = cast_index(read_indices(core, idx, iaddr, lambda i: f"row index {i}"), 32)
    safe, read = remap(u, cap, oob, 32, rule="GatherOOB.Wrap", target=t)
    rows = np.arange(VR) if read is None else np.flatnonzero(read)
    nb = S[1] & 0xFFFF                                  # nBurst is a uint16
    nblk = max(S[0], 0) * nb
    guard_region(core, ub, len(rows) * nblk * C0, T)
    with np.errstate(over="ignore"):
        s = safe[rows].astype(np.int64)
        sbr, sri = s // 16, s % 16
        i, j, k = np.meshgrid(np.arange(max(S[0], 0)), np.arange(nb), np.arange(C0), indexing="ij")
        i, j, k = (x.reshape(-1)[None, :] for x in (i, j, k))
        src_el = (i * St[0] + j * St[1] + sbr[:, None] * St[2] + sri[:, None] * St[3] + k)
        src = wrap_addr(u64(table.addr) + src_el.astype(np.uint64) * np.uint64(T))
        dst_el = (i * S[1] + j) * R * C0 + rows[:, None].astype(np.int64) * C0 + k
        daddr = dst.addr + dst_el * T
    core.gm.check_many(src, T, f"{NAME} NZ row burst read", t)
    ub.check_many(daddr, T, f"{NAME} NZ row burst write", t)
    if oob == GatherOOB.Zero:                            # whole tile pre-zeroed by the scalar unit
        ub.data[dst.addr: dst.addr + dst.nbytes] = 0
    # One multi-burst DMA per (row, batch): nBurst = gShape1 bursts of 32 bytes (§6.4).
    from .dma import Bursts, execute
    shp = (len(rows), nblk, C0)
    execute(core, Bursts(NAME, "gm", dst.space, src.reshape(shp)[..., 0], daddr.reshape(shp)[..., 0],
                         C0 * T, T))


def elem_nz(core, oob: GatherOOB, dst, table, idx) -> None:
    t = core.target.name
    VR, VC = dst.valid_row, dst.valid_col
    if VR == 0 or VC == 0:
        return
    S, St = _gm_dims(table)
    T, C0, R = dst.Element.itemsize, dst.C0, dst.Rows
    ub = core.arena(dst.space)
    guard_region(core, ub, VR * VC, T)
    n_lc = S[0] * S[1] * C0
    cap = ((S[2] * 16) * n_lc) & M32
    r, c = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(VC, dtype=np.int64), indexing="ij")
    iaddr = idx.addr + (r * idx.Cols + c) * idx.Element.itemsize
    u = cast_index(read_indices(core, idx, iaddr, lambda i: f"idx({i // VC},{i % VC})"), 32)
    safe, read = remap(u, cap, oob, 32, rule="GatherOOB.Wrap", target=t)
    rd = np.ones((VR, VC), bool) if read is None else read
    s = safe[rd].astype(np.int64)
    if s.size and n_lc == 0:
        raise PtoFault("NZ table with zero logical columns divides by zero", rule="MGatherNZGmOffset",
                       target=t)
    with np.errstate(over="ignore"):
        n = max(n_lc, 1)
        lr, lc = s // n, s % n
        bcc, k0, br, ri = lc // C0, lc % C0, lr // 16, lr % 16
        if S[0] == 1:
            o0, o1 = np.zeros_like(bcc), bcc
        else:
            g1 = max(S[1], 1)
            o0, o1 = bcc // g1, bcc % g1
        off = (o0 * St[0] + o1 * St[1] + br * St[2] + ri * St[3] + k0 * St[4]).astype(np.uint64)
        src = wrap_addr(u64(table.addr) + off * np.uint64(T))
    pos = np.argwhere(rd)
    core.gm.check_many(src, T, f"{NAME} NZ ({oob.name}) table read", t,
                       lambda i: f"dst({pos[i][0]},{pos[i][1]}) with index {int(u[tuple(pos[i])]):#x}")
    vals = np.zeros((VR, VC), table.Element)
    vals[rd] = core.gm.gather(src, table.Element)
    daddr = dst.addr + ((c // C0) * R * C0 + r * C0 + c % C0) * T
    ub.check_many(daddr, T, f"{NAME} dst write", t)
    ub.scatter(daddr, vals)
