"""MGATHER array semantics (mgather.md §3-§6). Checks happen before; this only executes.

Every path computes all source and destination addresses first, checks them against their
arenas (a fault names the element), and only then writes: nothing is written on a fault.
"""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import Coalesce, GatherOOB
from ...errors import F_DST, F_INDEX, F_OTHER, F_TABLE, NotBatched, PtoFault
from ...memory import outside_fault
from ...tensor import GlobalTensor
from ...semantics import a5_launch
from ...semantics.faults import Faults, at
from ...semantics.cells import cells_alias, convert, guard_region, storage_overlaps
from ...semantics.indexing import M32, M64, cast_index, prod, remap, remap_lanes, u64, wrap_addr

NAME = "MGATHER"


def read_indices(core, idx, addrs: np.ndarray, what, ks: np.ndarray | None = None) -> np.ndarray:
    """Index values at ``addrs``: of the instance executing, or (``ks``: the instances of a
    batch-first step, the same addresses in each) shape (len(ks), ...)."""
    space = "gm" if isinstance(idx, GlobalTensor) else idx.space
    arena = core.arena(space)
    a = addrs.astype(np.int64)
    arena.check_many(a, idx.Element.itemsize, f"{NAME} index read", core.target.name, what, code=F_INDEX)
    if ks is None:
        return arena.gather(a, idx.Element)
    return core.banks[space].take_same(ks, a, idx.Element)


def _index_addrs_elem(idx, r, c, tile_offsets: str) -> np.ndarray:
    if isinstance(idx, GlobalTensor):
        return idx.addr + (r * idx.GetStride(3) + c) * idx.Element.itemsize
    off = idx.offsets(r, c) if tile_offsets == "full" else idx.plain_offsets(r, c)
    return idx.addr + off * idx.Element.itemsize


def gather(core, mode: Coalesce, oob: GatherOOB, dst, table, idx) -> None:
    """MGATHER from an ND (or flat-addressed) table into ``dst``, parameterised by the target."""
    VR, VC = dst.valid_row, dst.valid_col
    if VR == 0 or VC == 0:
        return
    guard_region(core, core.arena(dst.space), VR * VC, dst.Element.itemsize)
    rows, cols = np.arange(VR, dtype=np.int64), np.arange(VC, dtype=np.int64)
    if not core.target.mgather.simt and storage_overlaps(dst, idx, mode):
        return _in_program_order(core, mode, oob, dst, table, idx, rows, cols)
    _gather_cells(core, mode, oob, dst, table, idx, rows, cols)


def _in_program_order(core, mode, oob, dst, table, idx, rows, cols) -> None:
    """The scalar loops (CPU simulator, A2/A3) read each index just before its stores, so when
    the dst aliases the index tile a later index load sees an earlier store. Run the reference
    loop order — row by row (Row: one index per row; Elem: row-major, element by element) —
    and undo every store if one step faults, so nothing is written on a fault."""
    with core.arena(dst.space).undo_on_error():
        for r in rows:
            if mode == Coalesce.Row:
                _gather_cells(core, mode, oob, dst, table, idx, rows[r:r + 1], cols)
            else:
                for c in cols:
                    _gather_cells(core, mode, oob, dst, table, idx, rows[r:r + 1], cols[c:c + 1])


def _gather_cells(core, mode, oob, dst, table, idx, rows, cols) -> None:
    """One vectorised step over the cells ``rows x cols`` (every index read before any store),
    batch-first: along the instances :func:`instances` names (one on a single core; every live
    one of a core of N while it runs all at once), each with its own first fault."""
    rules = core.target.mgather
    t = core.target.name
    VR, VC = dst.valid_row, dst.valid_col
    dma_row = mode == Coalesce.Row and rules.row_tail_fill
    ks = core.step_instances()
    faults = Faults(core, ks)
    bits = rules.index_bits
    mask = M32 if bits == 32 else M64
    T = table.Element.itemsize
    base = u64(table.addr)
    z = np.zeros((len(rows), len(cols)), np.int64)           # (cheaper than meshgrid)
    r, c = rows[:, None] + z, cols + z
    shape = [table.GetShape(k) for k in range(5)]
    with np.errstate(over="ignore"):
        if mode == Coalesce.Elem:
            iaddr = _index_addrs_elem(idx, r, c, rules.tile_offsets)
            raw = read_indices(core, idx, iaddr, lambda i: f"idx of dst({r.flat[i]},{c.flat[i]})", ks)
            cap = prod(shape) & mask
            lanes = remap_lanes(raw, cap, oob, bits, clamp=False) if table.addr % T == 0 and \
                0 <= table.addr and table.addr + cap * T <= core.gm.size else None
            if lanes is not None:       # every read lies in GM: no fault, no byte addresses
                return _store(core, ks, dst, r, c, VR, VC, table, cap, *lanes)
            u = cast_index(raw, bits)
            safe, read = remap(u, cap, oob, bits, rule="GatherOOB.Wrap", target=t)
            src = wrap_addr(base + safe * np.uint64(T))
        else:
            iaddr = idx.addr + rows * idx.Element.itemsize
            raw = read_indices(core, idx, iaddr, lambda i: f"row index {rows[i]}", ks)
            u = cast_index(raw, bits)
            cap = (shape[3] if rules.row_capacity == "shape3" else prod(shape[:4])) & mask
            safe, read = remap(u, cap, oob, bits, rule="GatherOOB.Wrap", target=t)
            if not dma_row and _row_runs(core, ks, faults, oob, dst, table, u, safe, read, rows, cols, r, c):
                return
            cu = c.astype(np.uint64)
            if rules.row_source == "strides":
                off = safe[..., None] * u64(table.GetStride(3)) + cu * u64(table.GetStride(4))
            elif rules.row_source == "stride3":
                off = safe[..., None] * u64(table.GetStride(3)) + cu
            else:  # "valid_cols": srcRow = table + uint32(safe * VC)
                off = ((safe * np.uint64(VC)) & np.uint64(M32))[..., None] + cu
            src = wrap_addr(base + off * np.uint64(T))
            if read is not None:
                read = np.broadcast_to(read[..., None], src.shape)
        rd = np.ones(src.shape, bool) if read is None else read
        gm_size = core.gm.size
        if src.size and not (int(src.min()) >= 0 and int(src.max()) <= gm_size - T):
            # (a fault is built when read: of the values bound now)
            faults.first_of(rd & ((src < 0) | (src > gm_size - T)), lambda j, p, src=src, u=u, r=r, c=c: _table_fault(
                gm_size, int(src[j][p]), T, oob, t, r[p], c[p], _index_of(u[j], p, mode, VC)), code=F_TABLE)
        ok = faults.ok
        src, rd, ks_ok = src[ok], rd[ok], ks[ok]
        vdt = dtypes.storage(table.Element)
        if read is None:                # every cell reads the table
            vals = core.banks["gm"].take(ks_ok, src, table.Element).astype(vdt, copy=False)
        else:
            vals = np.zeros(src.shape, vdt)
            if rd.any():
                got = core.banks["gm"].take(ks_ok, np.where(rd, src, 0), table.Element)
                vals[rd] = got[rd]
        if dma_row:
            vals = convert(core, vals, dst, table.DType)
            faults.done()
            if len(ks_ok):
                _row_dma(core, ks_ok, dst, src, dst_addrs(core, dst, r, c), vals, rd)
            return
        faults.done()
        _put(core, ks_ok, dst, mode, r, c, VR, VC, convert(core, vals, dst, table.DType))


def _table_fault(gm_size: int, addr: int, T: int, oob, t: str, r, c, index: int):
    """The fault of dst cell (r, c)'s table read at byte ``addr`` outside GM (of ``gm_size``
    bytes when it happened: a batch builds it when read)."""
    return at(outside_fault("gm", gm_size, addr, T, f"{NAME} ({oob.name}) table read", t,
                            f"dst({r},{c}) with index {index:#x}", code=F_TABLE), r, c)


def _row_runs(core, ks, faults, oob, dst, table, u, safe, read, rows, cols, r, c) -> bool:
    """Row mode by rows, not cells: each row's source is one run of addresses ``start + col *
    step``, so where the run cannot wrap (its span fits in GM) a row lies in GM exactly when
    its start and end do, an instance's first faulting cell is its first bad row's first
    column past GM (arithmetic), and the rows are read as runs -- the same bytes and faults
    as the per-cell path, with (instances x rows) work instead of (instances x cells).
    False where that does not hold (the caller takes the per-cell path)."""
    rules, t, VC = core.target.mgather, core.target.name, dst.valid_col
    T = table.Element.itemsize
    if not cols.size or cols[0] != 0 or cols[-1] != cols.size - 1:
        return False
    step = T * ((table.GetStride(4) & M64) if rules.row_source == "strides" else 1) & M64
    span, lim = (cols.size - 1) * step, core.gm.size - T
    if lim < 0 or span > lim:
        return False
    if rules.row_source == "valid_cols":          # srcRow = table + uint32(safe * VC)
        row_off = (safe * np.uint64(VC)) & np.uint64(M32)
    else:
        row_off = safe * u64(table.GetStride(3))
    start = u64(table.addr) + row_off * np.uint64(T)                  # (K, R) uint64, wrapping
    rd = np.ones(start.shape, bool) if read is None else read
    inside = start <= np.uint64(lim - span)
    bad = rd & ~inside
    if bad.any():
        past = start > np.uint64(lim)                                  # (negative: past too)
        with np.errstate(divide="ignore"):
            first_col = np.where(past, 0, (np.uint64(lim) - np.minimum(start, np.uint64(lim))) // np.uint64(max(step, 1)) + 1)
        gm_size = core.gm.size

        def fault(j, p, start=start, first_col=first_col):
            ri = p[0]
            ci = int(first_col[j, ri])
            a = (int(start[j, ri]) + ci * step) & M64
            return _table_fault(gm_size, a - (1 << 64) if a >> 63 else a, T, oob, t, rows[ri], cols[ci], int(u[j][ri]))
        faults.first_of(bad, fault, code=F_TABLE)
    ok = faults.ok
    ks_ok, start, rd = ks[ok], start[ok].view(np.int64), rd[ok]
    vdt = dtypes.storage(table.Element)
    vals = core.banks["gm"].take_runs(ks_ok, np.where(rd, start, 0), cols.size, step, table.Element)
    vals = vals.astype(vdt, copy=False)
    if read is not None:
        vals[~rd] = 0
    faults.done()
    _put(core, ks_ok, dst, Coalesce.Row, r, c, dst.valid_row, VC, convert(core, vals, dst, table.DType))
    return True


def _store(core, ks, dst, r, c, VR, VC, table, cap, safe, read) -> None:
    """Elem whose every read lies in GM (:func:`remap_lanes`): the values at element numbers
    ``safe`` of the table (Clamp's clipped to its ``cap`` elements by the gather; 0 where
    ``read`` is False) into ``dst``."""
    vals = core.banks["gm"].take_run(ks, table.addr, safe, table.Element, clip=cap)
    if table.DType == "hifloat8":
        vals = vals.view(np.uint8)
    if read is not None:
        vals[~read] = 0
    _put(core, ks, dst, Coalesce.Elem, r, c, VR, VC, convert(core, vals, dst, table.DType))


def dst_addrs(core, dst, r, c) -> np.ndarray:
    full = core.target.mgather.tile_offsets == "full"
    return dst.addr + (dst.offsets(r, c) if full else dst.plain_offsets(r, c)) * dst.Element.itemsize


def _put(core, ks, dst, mode, r, c, VR, VC, vals) -> None:
    """The values of cells ``r x c`` (one row per instance of ``ks``) into ``dst``, in the
    target's store order where cells share storage."""
    daddr = dst_addrs(core, dst, r, c)
    if len(ks):
        core.arena(dst.space).check_many(daddr, dst.Element.itemsize, f"{NAME} dst write", core.target.name, code=F_DST)
    if core.target.mgather.simt and cells_alias(dst):
        o = a5_launch.store_order(mode.name.lower(), VR, VC, r, c)
        daddr, vals = daddr.reshape(-1)[o], vals.reshape(len(ks), -1)[:, o]
    core.banks[dst.space].put(ks, daddr, vals)


def _index_of(u, p, mode, VC) -> int:
    return int(u[p[0], p[1]]) if mode == Coalesce.Elem else int(u[p[0]])


def _row_dma(core, ks, dst, src, daddr, vals, rd) -> None:
    """A2/A3 Row: each read row is one ``copy_gm_to_ubuf_align`` burst (nBurst 1, no pads), run
    by the DMA engine, so the bytes from VC to the next 32-byte boundary take the burst's
    first element (other-ops.md §D.4); Zero-OOB rows are written by the scalar unit.
    Batch-first over the instances ``ks`` (one row of ``src``, ``vals``, ``rd`` each)."""
    from ...semantics.dma import Bursts, execute
    arena = core.arena(dst.space)
    size = dst.Element.itemsize
    t = core.target.name
    rows = rd[:, :, 0]                          # the rows each instance reads
    if cells_alias(dst):
        if core.all_at_once:
            raise NotBatched(NAME)              # rows overwrite each other in loop order
        rows, src, vals = rows[0], src[0], vals[0]
        arena.check_many(daddr[~rows], size, f"{NAME} dst write", t, code=F_DST)
        with arena.undo_on_error():             # the loop's order: row after row
            for k in range(len(rows)):
                if rows[k]:
                    execute(core, Bursts(NAME, "gm", dst.space, src[k:k + 1, 0], daddr[k:k + 1, 0],
                                         vals.shape[1] * size, size))
                else:
                    arena.scatter(daddr[k], vals[k])
        return
    faults = Faults(core, ks)
    outside = (daddr < 0) | (daddr > arena.size - size)
    if outside.any():                           # a row the scalar unit writes leaves the arena
        def fault(j, p):
            mine = np.flatnonzero(np.broadcast_to(~rows[j][:, None], daddr.shape))
            i = int(np.searchsorted(mine, np.ravel_multi_index(p, daddr.shape)))
            return arena.outside(int(daddr[p]), size, f"{NAME} dst write", t, f"element {i}", code=F_DST)
        faults.first_of(~rows[:, :, None] & outside, fault)
    faults.done()
    ok = faults.ok
    ks, src, vals, rows = ks[ok], src[ok], vals[ok], rows[ok]

    def zero_rows(ok: np.ndarray) -> None:      # the scalar unit's rows (vals hold 0 there)
        if (~rows).any():
            sel = np.isin(ks, ok)
            bank = core.banks[dst.space]
            keep = bank.take_same(ok, daddr, vals.dtype)
            bank.put(ok, daddr, np.where(rows[sel][:, :, None], keep, vals[sel]))

    execute(core, Bursts(NAME, "gm", dst.space, src[:, :, 0], daddr[:, 0], vals.shape[2] * size, size,
                         live=rows), prologue=zero_rows, ks=ks)
