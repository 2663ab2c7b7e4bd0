"""MGATHER GM→L1 on the NPU targets (mgather.md §5.6-§5.8, §6.7): execution only.

Row: one ``copy_gm_to_cbuf_multi_nd2nz`` per read row (n 1, d VC), i.e. one burst per C0
column block of the NZ tile, run by the DMA engine. Elem: the NZ image is built in the GM
scratch (zeros first, so padding and Zero-OOB positions are 0) and one burst copies it into
L1. The Scalar and SIMT executors give the same bytes; they differ only in the order a fault
is found in, and in what happens when the scratch aliases the index or the table.
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import dtypes
from ...enums import GatherOOB
from ...errors import F_DST, F_INDEX, F_TABLE, NotBatched, PtoFault, PtoHazard
from ...semantics.dma import Bursts, execute
from ...semantics.faults import Faults, at
from ...semantics.indexing import M32, cast_index, prod, remap, u64, wrap_addr
from .semantics import NAME, read_indices


def nz_offsets(r, c, rows: int, c0: int):
    """Element offset of logical (r, c) in a 512-byte NZ tile of ``rows`` padded rows."""
    return (c // c0) * rows * c0 + r * c0 + c % c0


def row(core, oob: GatherOOB, dst, table, idx) -> None:
    """§5.6 / §6.7 Row: capacity ∏Shape[0..3], source row ``safe*Stride[3]``, Zero pre-zeroes
    the whole tile; the nd2nz tail of a row's last C0 block per ``target.dma.nd2nz_tail``.
    Batch-first: each instance of the step issues the bursts of the rows it reads."""
    t = core.target.name
    VR, VC = dst.valid_row, dst.valid_col
    size, C0, R = dst.Element.itemsize, dst.C0, dst.Rows
    S = [table.GetShape(k) for k in range(5)]
    cap = prod(S[:4]) & M32
    ks = core.step_instances()
    if VR > 0:
        iaddr = idx.addr + np.arange(VR, dtype=np.int64) * idx.Element.itemsize
        bits = core.target.mgather.index_bits
        u = cast_index(read_indices(core, idx, iaddr, lambda i: f"row index {i}", ks), bits)
        safe, read = remap(u, cap, oob, bits, rule="GatherOOB.Wrap", target=t)
    else:
        safe, read = np.zeros((len(ks), 0), np.uint64), None
    nblk = -(-VC // C0) if VR else 0       # bursts per row (no row: no burst, whatever VC)
    b = np.arange(nblk, dtype=np.int64)[None, :]
    rows = np.arange(VR, dtype=np.int64)
    with np.errstate(over="ignore"):
        start = safe * u64(table.GetStride(3))
        src = wrap_addr(u64(table.addr) + (start[:, :, None] + (b * C0).astype(np.uint64)) * np.uint64(size))
    daddr = dst.addr + (b * R + rows[:, None]) * C0 * size
    length = np.broadcast_to(np.minimum(C0, VC - b * C0) * size, daddr.shape)
    live = None if read is None else np.broadcast_to(read[:, :, None], src.shape).reshape(len(ks), -1)
    tail = core.target.dma.nd2nz_tail
    pad = None if tail is None else (int(tail) & ((1 << (8 * size)) - 1)).to_bytes(size, "little")

    def prezero(ok: np.ndarray) -> None:
        if oob == GatherOOB.Zero:           # create_cbuf_matrix(…, 0) over the whole tile
            core.banks["l1"].put(ok, np.arange(dst.addr, dst.addr + dst.nbytes), np.zeros(dst.nbytes, np.uint8))

    execute(core, Bursts(NAME, "gm", "l1", src.reshape(len(ks), -1), daddr.reshape(-1), length.reshape(-1),
                         size, pad=pad or b"\0" * size, fill=tail is not None, live=live),
            prologue=prezero, ks=ks)


def elem(core, oob: GatherOOB, dst, table, idx, scratch, simt: bool) -> None:
    """§5.7 (Scalar) / §5.8 (SIMT) / §6.7 Elem: NZ image in scratch, then scratch → L1.
    Batch-first: every instance of the step builds its own image (its first fault stops it)."""
    t = core.target.name
    VR, VC = dst.valid_row, dst.valid_col
    size, C0, R = dst.Element.itemsize, dst.C0, dst.Rows
    N = dst.Numel
    cap = prod(table.GetShape(k) for k in range(5)) & M32
    if VR and VC:
        r, c = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(VC, dtype=np.int64), indexing="ij")
    else:                               # empty: no arange of the other dim (2^31 x 0)
        r = c = np.zeros((VR, VC), np.int64)
    off = nz_offsets(r, c, R, C0)
    # Fault order: the scalar loop walks row-major; SIMT threads walk the padded NZ tile.
    order = np.argsort(off, axis=None, kind="stable") if simt else np.arange(VR * VC)
    r, c, off = (a.reshape(-1)[order] for a in (r, c, off))
    if simt:
        # the threads walk the padded tile's positions: a dynamic valid region wider or taller
        # than the tile has elements no thread visits (their indices are never read)
        inside = (r < R) & (c < dst.Cols)
        r, c, off = r[inside], c[inside], off[inside]
    # the scalar loop stores (r, c) at its NZ offset whatever the tile's size: past the scratch
    # (c >= Cols) into the GM after it, or onto another position (r >= Rows), row-major order
    end = max(N, int(off.max()) + 1 if off.size else 0)
    ks = core.step_instances()
    with np.errstate(over="ignore"):
        iaddr = idx.addr + (r * idx.GetStride(3) + c) * idx.Element.itemsize
    raw = read_indices(core, idx, iaddr, lambda i: f"idx of dst({r[i]},{c[i]})", ks)
    bits = core.target.mgather.index_bits
    u = cast_index(raw, bits)
    safe, read = remap(u, cap, oob, bits, rule="GatherOOB.Wrap", target=t)
    rd = np.ones(u.shape, bool) if read is None else read
    with np.errstate(over="ignore"):
        src = wrap_addr(u64(table.addr) + safe * np.uint64(size))
    faults = Faults(core, ks)
    faults.first_of(rd & ((src < 0) | (src > core.gm.size - size)), lambda j, p: at(core.gm.outside(
        int(src[j][p]), size, f"{NAME} ({oob.name}) table read", t,
        f"dst({r[p[0]]},{c[p[0]]}) with index {int(u[j][p]):#x}", code=F_TABLE), r[p[0]], c[p[0]]))
    # faults of the call, not of an instance's data
    calls = [lambda: core.gm.check(scratch.addr, N * size, f"{NAME} scratch write ({N} elements)", t, code=F_DST)]
    past = off >= N
    if past.any():
        beyond = np.flatnonzero(past)
        calls.append(lambda: core.gm.check_many(
            scratch.addr + off[past] * size, size,
            f"{NAME} scratch write past its {N} elements (valid region wider than the tile)", t,
            lambda i: f"dst({r[beyond[i]]},{c[beyond[i]]})", code=F_DST))
    for check in calls:
        try:
            check()
        except PtoFault as e:
            for j in range(len(ks)):
                faults.add(j, e)
    s0, s1 = scratch.addr, scratch.addr + end * size
    isz = idx.Element.itemsize
    alias = bool(((iaddr + isz > s0) & (iaddr < s1)).any()) | \
        (rd & (src + size > s0) & (src < s1)).any(axis=1)
    if alias.any() and not simt:
        if core.all_at_once:
            raise NotBatched(NAME)          # the scalar executor's own stores feed its loads
        faults.done()
        _elem_scalar_aliased(core, oob, dst, table, idx, scratch, r, off, iaddr, cap)
        return execute(core, Bursts(NAME, "gm", "l1", np.array([s0]), np.array([dst.addr]), N * size, size))
    if alias.any():
        warnings.warn(f"[{t}] {NAME}<Elem, Simt>: the scratch overlaps the index or the table; "
                      f"lanes race (emulated as all reads before all writes)", PtoHazard, stacklevel=4)
    faults.done()
    ok = faults.ok
    ks, src, rd = ks[ok], src[ok], rd[ok]
    if not len(ks):
        return
    st = dtypes.storage(table.Element)
    vals = core.banks["gm"].take(ks, np.where(rd, src, 0), table.Element).view(st)
    vals[~rd] = 0
    last = off.size - 1 - np.unique(off[::-1], return_index=True)[1]   # the last store wins
    img = np.zeros((len(ks), N), st)
    inn = off[last] < N
    img[:, off[last][inn]] = vals[:, last[inn]]
    gm = core.banks["gm"]
    gm.put(ks, s0 + np.arange(N, dtype=np.int64) * size, img)
    for k in last[~inn]:
        gm.put(ks, np.array([s0 + int(off[k]) * size]), vals[:, k:k + 1])
    execute(core, Bursts(NAME, "gm", "l1", np.array([s0]), np.array([dst.addr]), N * size, size), ks=ks)


def _elem_scalar_aliased(core, oob, dst, table, idx, scratch, r, off, iaddr, cap) -> None:
    """The scalar executor, element by element, when its own stores feed later loads."""
    size = dst.Element.itemsize
    core.gm.data[scratch.addr: scratch.addr + dst.Numel * size] = 0
    st = dtypes.storage(table.Element)
    zero = np.zeros(1, st)
    for k in range(r.size):
        a = int(iaddr[k])
        core.gm.check(a, idx.Element.itemsize, f"{NAME} index read", core.target.name, code=F_INDEX)
        raw = core.gm.gather(np.array([a]), idx.Element)
        bits = core.target.mgather.index_bits
        u = cast_index(raw, bits)
        s, ok = remap(u, cap, oob, bits, rule="GatherOOB.Wrap", target=core.target.name)
        v = zero
        if ok is None or bool(ok[0]):
            with np.errstate(over="ignore"):
                sa = int(wrap_addr(u64(table.addr) + s * np.uint64(size))[0])
            core.gm.check(sa, size, f"{NAME} table read", core.target.name, code=F_TABLE)
            v = core.gm.gather(np.array([sa]), table.Element)
        core.gm.write(scratch.addr + int(off[k]) * size, v)
