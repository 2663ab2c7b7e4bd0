"""TSCATTER's NumPy semantics, batch-first over a step's instances (the index form's
destination addresses differ per instance; the mask forms' are static).

Every source and index element is read before any byte is written, and an instance whose
writes leave UB faults and writes nothing (not even the clear)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import MaskPattern
from ...errors import F_DST, F_INDEX, F_TABLE
from ...semantics.faults import Faults
from ...semantics.cells import convert
from ...semantics.tile_moves import (elems, grid, in_program_order, outside_ub, row_cols, vscatter_lanes, winners,
                                      zero_tile)


def index_offsets(raw: np.ndarray, how: str) -> np.ndarray:
    """The dst element offset an index value names (int64): ``u32`` static_cast<unsigned>;
    ``native`` its own value (negative reaches below dst); ``unsigned`` its bits as an
    unsigned lane offset of its width."""
    if how == "u32":
        return raw.astype(np.int64) & 0xFFFFFFFF
    if how == "unsigned":
        return raw.view(np.dtype(f"u{raw.dtype.itemsize}")).astype(np.int64)
    return raw.astype(np.int64)


def scatter_index(core, dst, src, idx) -> None:
    """``dst[idx[i, j]] = src[i, j]`` over idx's valid region (module docstring)."""
    R = core.target.tscatter
    VR, VC = idx.valid_row, idx.valid_col
    T = dst.Element.itemsize
    cols = row_cols(R.wide_cols, T, VC)
    i, j = grid(VR, cols)
    ks = core.step_instances()
    ub = core.banks["ub"]
    sa = src.addr + elems(src, i, j, R.addressing) * src.Element.itemsize
    ia = idx.addr + elems(idx, i, j, R.addressing) * idx.Element.itemsize
    faults = Faults(core, ks)
    t = core.target.name
    core.ub.check_many(ia, idx.Element.itemsize, "TSCATTER index read", t, code=F_INDEX)
    core.ub.check_many(sa, src.Element.itemsize, "TSCATTER source read", t, code=F_TABLE)
    raw = ub.take_same(ks, ia, dtypes.storage(idx.Element)).reshape(len(ks), -1)
    da = dst.addr + index_offsets(raw, R.index_cast) * T
    outside_ub(core, faults, da, T, "TSCATTER dst write", cols, F_DST)
    if R.loop and faults.ok.all() and _aliasing(core, dst, src, idx, da, T):
        return _loop(core, dst, src, idx, ia, sa, T)
    vals = ub.take_same(ks, sa, dtypes.storage(src.Element))
    vals = convert(core, vals, dst, src.DType) if src.DType != dst.DType else vals
    m = np.arange(i.size, dtype=np.int64)
    if R.lane_order == "lowest_lane":           # one vscatter per row chunk: its lowest lane wins
        B = vscatter_lanes(T, idx.Element.itemsize)
        chunk = i * (-(-max(cols, 1) // B)) + j // B
        pri = chunk * B + (B - 1 - j % B)
    else:
        pri = m
    ok = faults.ok
    if ok.any():
        kk = ks[ok]
        if R.clear:
            zero_tile(core, kk, dst)
        d = da[ok]
        w = winners(d, pri)
        v = np.broadcast_to(vals, (len(ks), i.size))[ok]
        ub.put_each(kk, d, np.take_along_axis(v, w, axis=1))
    faults.done()


def _aliasing(core, dst, src, idx, da, T) -> bool:
    """Does a write (any instance's; the clear's) land in src's or the indices' bytes?"""
    if core.target.tscatter.clear and (dst.shares_bytes(src) or dst.shares_bytes(idx)):
        return True
    for t in (src, idx):
        lo, hi = t.addr, t.addr + t.Rows * t.Cols * t.Element.itemsize
        if ((da < hi) & (da + T > lo)).any():
            return True
    return False


def _loop(core, dst, src, idx, ia, sa, T) -> None:
    """The scalar loop element by element (cpu/TScatter.hpp:37-43; a2a3:49-54 after its clear):
    a write lands in src or the indices, so a later element reads what an earlier one wrote."""
    R = core.target.tscatter
    isz = idx.Element.itemsize
    st = dtypes.storage(idx.Element)
    S = src.Element.itemsize

    def step(k):
        def run(ub):
            raw = ub.data[ia[k]: ia[k] + isz].copy().view(st)
            a = dst.addr + int(index_offsets(raw, R.index_cast)[0]) * T
            if not 0 <= a <= ub.size - T:
                raise ub.outside(a, T, "TSCATTER dst write", core.target.name, f"element {k}", code=F_DST)
            val = ub.data[sa[k]: sa[k] + S].copy().view(dtypes.storage(src.Element))
            if src.DType != dst.DType:
                val = convert(core, val, dst, src.DType)
            return a, np.ascontiguousarray(val).view(np.uint8)
        return run
    with core.ub.undo_on_error():
        if R.clear:
            core.ub.data[dst.addr: dst.addr + dst.Rows * dst.Cols * T] = 0
        in_program_order(core, (step(k) for k in range(len(ia))))


def mask_map(core, dst, src, pattern: MaskPattern, axis: int):
    """(dst element offsets, src element offsets, dst offsets zeroed) of the mask form, or
    the byte-run form of A2/A3's COL copy of 1-byte elements (see :func:`scatter_mask`)."""
    R = core.target.tscatter
    F, pos = pattern.factor, pattern.position
    T = dst.Element.itemsize
    if R.mask_cursor:                                # the simulator's loops (cpu/TScatter.hpp:47-90)
        if axis == 0:
            r, c = grid(src.valid_row, dst.valid_col)
            sel = pattern.selects(c)
            n = np.cumsum(sel) - 1                   # the running cursor over src (wraps at src.Cols)
            sr, sc = n // src.Cols, n % src.Cols
            do = np.asarray(dst.offsets(r, c), np.int64)
            so = np.asarray(src.offsets(sr[sel], sc[sel]), np.int64)
            return do[sel], so, do[~sel]
        r, c = grid(dst.valid_row, dst.valid_col)
        sel = pattern.selects(r)
        srow = np.cumsum(pattern.selects(np.arange(dst.valid_row))) - 1
        do = np.asarray(dst.offsets(r, c), np.int64)
        so = np.asarray(src.offsets(srow[r[sel]], c[sel]), np.int64)
        return do[sel], so, do[~sel]
    VC = row_cols(R.wide_cols, T, src.valid_col)
    i, j = grid(src.valid_row, VC)
    if axis == 0:                                    # a2a3/TScatter.hpp:143-150, a5:174-219
        return i * dst.RowStride + F * j + pos, i * src.Cols + j, np.zeros(0, np.int64)
    drow = (F * i + pos) * dst.Cols
    if R.col_offset_bits:
        drow &= (1 << R.col_offset_bits) - 1         # the offset is a uint16_t
    return drow + j, i * src.Cols + j, np.zeros(0, np.int64)


def scatter_mask(core, dst, src, pattern: MaskPattern, axis: int) -> None:
    """The mask form (P1111 is TMOV: :func:`tmov`)."""
    R = core.target.tscatter
    ks = core.step_instances()
    ub = core.banks["ub"]
    t = core.target.name
    T = dst.Element.itemsize
    if axis == 1 and R.col_unit_b16 and T == 1:      # a2a3: VC int16 units per row: 2*VC bytes
        i, j = grid(src.valid_row, 2 * src.valid_col)
        drow = (pattern.factor * i + pattern.position) * dst.Cols
        if R.col_offset_bits:
            drow &= (1 << R.col_offset_bits) - 1
        do, so, zo = drow + j, i * src.Cols + j, np.zeros(0, np.int64)
    else:
        do, so, zo = mask_map(core, dst, src, pattern, axis)
    sa, da, za = src.addr + so * src.Element.itemsize, dst.addr + do * T, dst.addr + zo * T
    core.ub.check_many(sa, src.Element.itemsize, "TSCATTER source read", t, code=F_TABLE)
    core.ub.check_many(da, T, "TSCATTER dst write", t, code=F_DST)
    core.ub.check_many(za, T, "TSCATTER dst write", t, code=F_DST)
    vals = ub.take_same(ks, sa, dtypes.storage(src.Element))
    vals = convert(core, vals, dst, src.DType) if src.DType != dst.DType else vals
    if R.clear:
        zero_tile(core, ks, dst)
    if za.size:
        ub.put(ks, za, np.zeros((len(ks), za.size), dtypes.storage(dst.Element)))
    if da.size:
        u, first = np.unique(da[::-1], return_index=True)        # the last store to a byte stays
        last = da.size - 1 - first
        ub.put(ks, u, np.asarray(vals).reshape(len(ks), -1)[:, last])


def tmov(core, dst, src) -> None:
    """TMOV_IMPL(dst, src) of the valid region: each element by position (the simulator
    converts its value: SetElement), every source element read first."""
    ks = core.step_instances()
    ub = core.banks["ub"]
    r, c = grid(src.valid_row, src.valid_col)
    t = core.target.name
    sa = src.addr + np.asarray(src.offsets(r, c), np.int64) * src.Element.itemsize
    da = dst.addr + np.asarray(dst.offsets(r, c), np.int64) * dst.Element.itemsize
    core.ub.check_many(sa, src.Element.itemsize, "TMOV source read", t, code=F_TABLE)
    core.ub.check_many(da, dst.Element.itemsize, "TMOV dst write", t, code=F_DST)
    vals = ub.take_same(ks, sa, dtypes.storage(src.Element))
    vals = convert(core, vals, dst, src.DType) if src.DType != dst.DType else vals
    if da.size:
        ub.put(ks, da, np.asarray(vals).reshape(len(ks), -1))


