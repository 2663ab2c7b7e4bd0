"""A2/A3 MGATHER with an NZ GM table into an NZ UB tile (mgather.md §6.4, §6.6)."""
from __future__ import annotations

import numpy as np

from ..enums import GatherOOB
from ..errors import PtoFault
from .indexing import M32, cast_index, remap, u64, wrap_addr
from .mgather import NAME, guard_region, read_indices


def _i32(v: int) -> int:
    """``static_cast<int>``: the low 32 bits, two's complement."""
    v = int(v) & M32
    return v - (1 << 32) if v >> 31 else v


def _gm_dims(table):
    """§6.2: the NZ paths read gShape0..2 and gStride0..4 as ``int`` (32-bit); offsets are then
    64-bit pointer arithmetic (wrapping, like the hardware's address adder)."""
    return ([_i32(table.GetShape(k)) for k in range(5)],
            [_i32(table.GetStride(k)) for k in range(5)])


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
        s = safe[rows].astype(np.uint64)
        sbr, sri = s // np.uint64(16), s % np.uint64(16)
        i, j, k = np.meshgrid(np.arange(max(S[0], 0), dtype=np.uint64), np.arange(nb, dtype=np.uint64),
                              np.arange(C0, dtype=np.uint64), indexing="ij")
        i, j, k = (x.reshape(-1)[None, :] for x in (i, j, k))
        src_el = (i * u64(St[0]) + j * u64(St[1]) + sbr[:, None] * u64(St[2])
                  + sri[:, None] * u64(St[3]) + k)
        src = wrap_addr(u64(table.addr) + src_el * np.uint64(T))
        dst_el = ((i * u64(S[1]) + j) * u64(R * C0) + rows[:, None].astype(np.uint64) * u64(C0) + k)
        daddr = wrap_addr(u64(dst.addr) + dst_el * np.uint64(T))
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
    # int arithmetic (wrapping at 32 bits), then unsigned 32-bit division by these values
    n_lc = (S[0] * S[1] * C0) & M32
    cap = ((S[2] * 16) * n_lc) & M32
    r, c = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(VC, dtype=np.int64), indexing="ij")
    iaddr = idx.addr + (r * idx.Cols + c) * idx.Element.itemsize
    u = cast_index(read_indices(core, idx, iaddr, lambda i: f"idx({i // VC},{i % VC})"), 32)
    safe, read = remap(u, cap, oob, 32, rule="GatherOOB.Wrap", target=t)
    rd = np.ones((VR, VC), bool) if read is None else read
    s = safe[rd].astype(np.uint64)
    g1 = S[1] & M32
    if s.size and n_lc == 0:
        raise PtoFault("NZ table with zero logical columns (gShape0*gShape1*C0 = 0) divides by "
                       "zero", rule="MGatherNZGmOffset", target=t)
    if s.size and S[0] != 1 and g1 == 0:
        raise PtoFault("gShape1 = 0 with gShape0 != 1 divides by zero", rule="MGatherNZGmOffset",
                       target=t)
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
    pos = np.argwhere(rd)
    core.gm.check_many(src, T, f"{NAME} NZ ({oob.name}) table read", t,
                       lambda i: f"dst({pos[i][0]},{pos[i][1]}) with index {int(u[tuple(pos[i])]):#x}")
    vals = np.zeros((VR, VC), table.Element)
    vals[rd] = core.gm.gather(src, table.Element)
    daddr = dst.addr + ((c // C0) * R * C0 + r * C0 + c % C0) * T
    ub.check_many(daddr, T, f"{NAME} dst write", t)
    ub.scatter(daddr, vals)
