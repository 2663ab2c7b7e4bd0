"""TGATHER's NumPy semantics, batch-first over a step's instances (the index and compare
forms read addresses that differ per instance; the mask form's are static). Every element is
read before any byte is written; an instance whose reads leave UB faults and writes nothing."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...enums import CmpMode, MaskPattern
from ...errors import F_DST, F_INDEX, F_TABLE
from ...semantics.faults import Faults
from ...semantics.tile_moves import (copy_last_wins, elems, grid, in_program_order, outside_ub, overlaps,
                                      row_cols, winners)


def source_addrs(core, src0, raw: np.ndarray, T: int) -> tuple[np.ndarray, np.ndarray | None]:
    """Per instance, the byte address each index value reads, and (the simulator) which
    indices lie inside src0 (the others give 0): the target's offset rule."""
    R = core.target.tgather
    if R.offset_math == "logical":              # cpu/TGather.hpp:97-111
        v = raw.astype(np.int64) if raw.dtype.kind == "i" else raw.astype(np.uint64).astype(np.int64)
        inside = (v >= 0) & (v < src0.Rows * src0.Cols)
        v = np.where(inside, v, 0)
        so = np.asarray(src0.offsets(v // src0.Cols, v % src0.Cols), np.int64)
        return src0.addr + so * T, inside
    if R.offset_math == "bytes32":              # a2a3: vmuls idx*sizeof(T) (int32), a u32 byte offset
        return src0.addr + ((raw.astype(np.int64) * T) & 0xFFFFFFFF), None
    u = raw.view(np.dtype(f"u{raw.dtype.itemsize}")).astype(np.int64)    # a5: vgather2's unsigned lanes
    return src0.addr + u * T, None


def gather_index(core, dst, src0, idx, tmp) -> None:
    """``dst[r, c] = src0_flat[idx[r, c]]`` over dst's valid region."""
    R = core.target.tgather
    t = core.target.name
    T, isz = dst.Element.itemsize, idx.Element.itemsize
    VR, VC = dst.valid_row, dst.valid_col
    cols = row_cols(R.wide_cols, T, VC)
    r, c = grid(VR, cols)
    ks = core.step_instances()
    ub = core.banks["ub"]
    ia = idx.addr + elems(idx, r, c, R.addressing) * isz
    da = dst.addr + elems(dst, r, c, R.addressing) * T
    core.ub.check_many(ia, isz, "TGATHER index read", t, code=F_INDEX)
    core.ub.check_many(da, T, "TGATHER dst write", t, code=F_DST)
    scratch = None
    if R.tmp_scratch and T == 2:                 # a2a3:73-89: the byte offsets go to tmp (int32, dst's Cols)
        scratch = tmp.addr + (r * dst.Cols + c) * 4
        core.ub.check_many(scratch, 4, "TGATHER tmp write", t, code=F_DST)
    raw = ub.take_same(ks, ia, dtypes.storage(idx.Element)).reshape(len(ks), -1)
    sa, inside = source_addrs(core, src0, raw, T)
    faults = Faults(core, ks)
    outside_ub(core, faults, sa, T, "TGATHER source read", cols, F_TABLE)
    if R.loop and faults.ok.all() and (overlaps(dst, src0) or overlaps(dst, idx)):
        return _cpu_loop(core, dst, src0, idx, ia, da)
    ok = faults.ok
    if ok.any():
        kk = ks[ok]
        u = np.dtype(f"u{T}")
        vals = ub.take(kk, sa[ok], u)
        if inside is not None:
            vals = np.where(inside[ok], vals, u.type(0))
        if scratch is not None:
            ub.put(kk, scratch, ((raw[ok].astype(np.int64) * T) & 0xFFFFFFFF).astype(np.uint32))
        ub.put(kk, da, vals)
    faults.done()


def _cpu_loop(core, dst, src0, idx, ia, da) -> None:
    """cpu/TGather.hpp:92-114 element by element: dst shares bytes with src0 or the indices,
    so a later element reads what an earlier one wrote."""
    T, isz = dst.Element.itemsize, idx.Element.itemsize
    signed = dtypes.storage(idx.Element).kind == "i"

    def step(k):
        def run(ub):
            v = int.from_bytes(ub.data[ia[k]: ia[k] + isz].tobytes(), "little", signed=signed)
            if not 0 <= v < src0.Rows * src0.Cols:
                return int(da[k]), np.zeros(T, np.uint8)
            a = src0.addr + int(np.asarray(src0.offsets(np.array([v // src0.Cols]), np.array([v % src0.Cols])))[0]) * T
            return int(da[k]), ub.data[a: a + T].copy()
        return run
    in_program_order(core, (step(k) for k in range(len(da))))


def mask_map(core, dst, src, pattern: MaskPattern, axis: int) -> tuple[np.ndarray, np.ndarray]:
    """(dst element offsets, src element offsets) of the mask form, in program order."""
    R = core.target.tgather
    F, pos = pattern.factor, pattern.position
    T = dst.Element.itemsize
    layout = "layout" if R.addressing == "layout" else "row_major"
    if axis == 0:
        if T == 8 and R.b64_row_stride:        # a5:278-303 (Int64GatherPattern)
            cnt = min(src.valid_col // F, R.wide_cols or 64)
            r, k = grid(src.valid_row, cnt)
            return r * (dst.Cols // F) + k, r * src.Cols + F * k + pos
        r, c = grid(src.valid_row, src.valid_col)
        sel = pattern.selects(c)
        base = int(np.asarray(dst.offsets(np.array([0]), np.array([0])))[0]) if layout == "layout" else 0
        return base + np.arange(int(sel.sum()), dtype=np.int64), elems(src, r[sel], c[sel], layout)
    if R.col_rows == "selected":               # cpu:143-159: the selected rows, in order
        rows = np.flatnonzero(pattern.selects(np.arange(src.valid_row)))
        j, c = grid(rows.size, src.valid_col)
        return elems(dst, j, c, layout), elems(src, rows[j], c, layout)
    i, c = grid(src.valid_row, src.valid_col)  # a2a3:123-128, a5:240-252: src.VR rows (over-run)
    return i * dst.RowStride + c, (F * i + pos) * src.RowStride + c


def gather_mask(core, dst, src, pattern: MaskPattern, axis: int) -> None:
    """The mask form: a bit copy (same element size) along :func:`mask_map`."""
    t = core.target.name
    T = dst.Element.itemsize
    do, so = mask_map(core, dst, src, pattern, axis)
    sa, da = src.addr + so * T, dst.addr + do * T
    core.ub.check_many(sa, T, "TGATHER source read", t, code=F_TABLE)
    core.ub.check_many(da, T, "TGATHER dst write", t, code=F_DST)
    copy_last_wins(core, "ub", sa, da, T)                  # (a bit copy: one element size)


def _round_s32(x: np.ndarray) -> np.ndarray:
    """vcvt f32 -> s32 ROUND_R: to nearest, ties to even, saturating (NaN: 0)."""
    with np.errstate(invalid="ignore", over="ignore"):      # (NaN and infinities are scores too)
        r = np.rint(np.nan_to_num(x.astype(np.float64), nan=0.0))
        return np.clip(r, -2 ** 31, 2 ** 31 - 1).astype(np.int64)


def compare_scores(core, src0, k, row_vals: np.ndarray, rows: np.ndarray, mode: CmpMode):
    """(n, VR, W) bool: which columns of each row match ``src cmp k[row]`` on this target."""
    R = core.target.tgather
    ks = core.step_instances()
    ub = core.banks["ub"]
    s = src0.DType
    if R.compare == "a2a3":                     # a2a3:172-232: k converted to S, a compare in S's type
        if s == "float32":
            kv = ub.take_same(ks, k.addr + rows * 4, np.dtype(np.int32)).astype(np.float32)
        elif s == "half":
            kv = ub.take_same(ks, k.addr + rows * 2, np.dtype(np.int16)).astype(np.float16)
        else:
            kv = ub.take_same(ks, k.addr + rows * k.Element.itemsize, dtypes.storage(k.Element)).astype(np.int64)
            kv = ((kv + 2 ** 31) % 2 ** 32 - 2 ** 31)
        with np.errstate(invalid="ignore"):
            sv = row_vals.astype(np.float64) if s != "int32" else row_vals.astype(np.int64)
        kv = kv.astype(sv.dtype)[..., None]
        return sv > kv if mode == CmpMode.GT else sv == kv
    kraw = ub.take_same(ks, k.addr + rows * k.Element.itemsize, dtypes.storage(k.Element)).astype(np.int64)
    if s == "float32":                          # a5:341-447: round the score, compare as u32
        sv, kv = _round_s32(row_vals) & 0xFFFFFFFF, kraw & 0xFFFFFFFF
    elif s == "half":                           # a5:652-767: (float)(int16)k, a float compare
        sv = row_vals.astype(np.float64)
        kv = ((kraw + 2 ** 15) % 2 ** 16 - 2 ** 15).astype(np.float64)
    else:                                       # zero-extended lanes vs (u32)k
        sv = row_vals.view(np.dtype(f"u{row_vals.dtype.itemsize}")).astype(np.int64)
        kv = kraw & 0xFFFFFFFF
    kv = kv[..., None]
    if s == "uint16" and mode == CmpMode.GT:    # a5:941-946: every other b16 case runs b16_eq
        mode = CmpMode.EQ
    return sv > kv if mode == CmpMode.GT else sv == kv


def compare_width(core, src0, VC: int) -> tuple[int, int]:
    """(columns compared per row, the row's index stride) on this target."""
    R = core.target.tgather
    if R.compare == "a2a3":
        return VC, src0.Cols
    E = 128 if src0.Element.itemsize == 1 else 64
    padded = -(-VC // E) * E
    tail = src0.DType in ("float32", "int32", "uint32")        # plt(VC) on these paths only
    return (VC if tail else padded), padded


def gather_compare(core, dst, src0, k, cdst, mode: CmpMode, offset: int) -> None:
    """For each src0 row i (< valid rows): the indices ``offset + i*stride + j`` of the columns
    that match, left-packed into dst row i; the count into cdst[i]."""
    R = core.target.tgather
    t = core.target.name
    VR, VC = src0.valid_row, src0.valid_col
    W, stride = compare_width(core, src0, VC)
    S = src0.Element.itemsize
    rows = np.arange(VR, dtype=np.int64)
    r, j = grid(VR, W)
    sa = src0.addr + (r * src0.Cols + j) * S
    core.ub.check_many(sa, S, "TGATHER source read", t, code=F_TABLE)
    ks = core.step_instances()
    ub = core.banks["ub"]
    sv = ub.take_same(ks, sa, dtypes.storage(src0.Element)).reshape(len(ks), VR, W)
    hit = compare_scores(core, src0, k, sv, rows, mode)
    D, C = dst.Element.itemsize, cdst.Element.itemsize
    rstride = dst.RowStride if R.compare == "a2a3" else dst.Cols
    n = hit.sum(axis=2)                                           # (n, VR)
    slot = np.cumsum(hit, axis=2) - 1                             # left-packed positions
    da = dst.addr + (rows[:, None] * rstride + slot) * D          # (n, VR, W)
    ca = cdst.addr + rows * C
    core.ub.check_many(ca, C, "TGATHER cdst write", t, code=F_DST)
    faults = Faults(core, ks)
    wa = np.where(hit, da, dst.addr)
    outside_ub(core, faults, wa.reshape(len(ks), -1), D, "TGATHER dst write", W, F_DST)
    ok = faults.ok
    if ok.any():
        kk = ks[ok]
        idxv = (offset + rows[:, None] * stride + np.arange(W)) & ((1 << (8 * D)) - 1)
        order = (rows[:, None] * W + np.arange(W)).reshape(-1)     # row by row: a later row overwrites
        addrs = wa[ok].reshape(len(kk), -1)
        live = hit[ok].reshape(len(kk), -1)
        pri = np.where(live, order, -1)                            # non-matches write nothing
        w = winners(np.where(live, addrs, -1 - np.arange(addrs.shape[1])), pri)
        vals = np.broadcast_to(idxv.reshape(-1), addrs.shape)
        got = np.take_along_axis(vals, w, axis=1).astype(np.dtype(f"u{D}"))
        keep = np.take_along_axis(live, w, axis=1)
        _put_where(ub, kk, addrs, got, keep)
        ub.put(kk, ca, n[ok].astype(np.dtype(f"u{C}")))
    faults.done()


def _put_where(ub, ks: np.ndarray, addrs: np.ndarray, vals: np.ndarray, keep: np.ndarray) -> None:
    """Per instance, write only the kept entries (rows differ in how many: one put each)."""
    for j, k in enumerate(ks):
        m = keep[j]
        if m.any():
            ub.put(np.array([k]), addrs[j][m], vals[j][m])
