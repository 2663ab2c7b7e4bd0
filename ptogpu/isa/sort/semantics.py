"""TSORT32 and TMRGSORT in NumPy, per target (docs/sort.md). Records are 8 bytes, little endian:
a float's value then its uint32 index; a half's value, two pad bytes (0), then the index.
Sorting is descending by value, NaN last (the ISA pages put the NaN padding "at the bottom");
equal values keep their input order on the NPUs (the pages: stable) and go by index value on the
simulator (its comparator)."""
from __future__ import annotations

import numpy as np

from ... import dtypes
from ...errors import F_DST, F_OTHER
from ...semantics.tile_moves import grid

NAN_BITS = {2: 0x7E00, 4: 0x7FC00000}        # -(0.0/0.0): the quiet NaN of the type (modelled)


def _u(size: int) -> np.dtype:
    return np.dtype(f"u{size}")


def read(core, tile, addrs: np.ndarray, size: int, what: str) -> np.ndarray:
    core.arena(tile.space).check_many(addrs, size, what, core.target.name, code=F_OTHER)
    ks = core.step_instances()
    return core.banks[tile.space].take_same(ks, addrs, _u(size)).reshape(len(ks), *addrs.shape)


def write(core, tile, addrs: np.ndarray, values: np.ndarray, size: int, what: str) -> None:
    core.arena(tile.space).check_many(addrs, size, what, core.target.name, code=F_DST)
    ks = core.step_instances()
    core.banks[tile.space].put(ks, addrs.reshape(-1),
                               np.ascontiguousarray(np.broadcast_to(values, (len(ks), *addrs.shape)).reshape(len(ks), -1)))


def keys(bits: np.ndarray, T: str) -> np.ndarray:
    """Value bits as float64 sort keys (integers exact)."""
    dt = dtypes.as_dtype(T)
    v = bits.astype(_u(dt.itemsize)).view(dt)
    with np.errstate(invalid="ignore"):              # (NaN payloads cast as they are)
        return v.astype(np.float64)


def order(vals: np.ndarray, idx: np.ndarray, ties: str) -> np.ndarray:
    """Per last axis, the permutation sorting descending by value, NaN last; ties by input
    position ("position") or by the index value ("idx")."""
    nan = np.isnan(vals)
    neg = np.where(nan, 0.0, -vals)
    ks = (np.arange(vals.shape[-1]) + np.zeros_like(idx, np.int64), neg, nan) if ties == "position" else \
        (idx.astype(np.int64), neg, nan)
    return np.lexsort(ks, axis=-1)


def records(vbits: np.ndarray, ibits: np.ndarray, size: int) -> np.ndarray:
    """Value and index bits as 8-byte records (uint8, trailing axis 8)."""
    out = np.zeros((*vbits.shape, 8), np.uint8)
    out[..., :size] = vbits.astype(_u(size))[..., None].view(np.uint8).reshape(*vbits.shape, size)
    out[..., 4:] = ibits.astype(np.uint32)[..., None].view(np.uint8).reshape(*vbits.shape, 4)
    return out


def tail_block(R, C: int, size: int, tmp) -> int | None:
    """The NPUs' 4-operand tail path on a row of more than 8160 (R.large_tmp_unit) -- its
    LargeTmpBufferImpl (a2a3/TSort32.hpp:24-72, a5/TSort32.hpp:59-115): the row sorted in calls
    of 255 blocks, the last call one block short, then the tail block copied to tmp, padded and
    sorted alone. Returns the element offset the tail copy reads from within the row (its block
    ``(j * 255 + (nb % 255) - 1) * 32`` in 32-bit unsigned arithmetic, j the last call), or None
    where the whole row is copied to tmp (or there is no tmp path)."""
    if tmp is None or R.tail != "drop" or not C % 32:
        return None
    if (C if R.large_tmp_unit == "elements" else C * size) <= 8160:
        return None
    nb = -(-C // 32)
    j = -(-nb // 255) - 1
    return ((j * 255 + (nb % 255) - 1) & 0xFFFFFFFF) * 32 & 0xFFFFFFFF


def tail_bytes(C: int, size: int) -> int:
    """The bytes the large-tmp path copies to tmp: the tail's whole 32-byte blocks."""
    return -(-(C % 32) * size // 32) * 32


def tsort32(core, dst, src, idx, tmp) -> None:
    R = core.target.sort
    T, size = src.DType, src.Element.itemsize
    E = 8 // size
    C = src.valid_col
    if R.idx_same_shape and (src.valid_row == 0 or C == 0 or
                             (idx.valid_row, idx.valid_col) != (src.valid_row, src.valid_col)):
        return                                      # cpu/TSort32.hpp:121-126: silently nothing
    rows = src.valid_row if R.rows_from == "src" else dst.valid_row
    if R.tail == "partial":
        nb, lanes = -(-C // 32), C
    elif tmp is None:
        nb = C // 32
        lanes = nb * 32
    else:
        nb = -(-C // 32)
        lanes = nb * 32
    if rows == 0 or nb == 0:
        return
    r, c = grid(rows, nb * 32)
    ri = np.zeros_like(r) if (R.idx_broadcast and idx.valid_row == 1) else r
    inside = c < lanes if R.tail == "partial" else c < nb * 32
    real = c < C
    large = tail_block(R, C, size, tmp)
    if large is not None:                           # the tail copy's bytes, read first (they may be outside UB)
        rl = np.arange(rows, dtype=np.int64)[:, None]
        read(core, src, src.addr + (rl * src.Cols + large) * size + np.arange(tail_bytes(C, size)), 1,
             "TSORT32 src read")
    bug = large is not None and nb % 255 == 0       # the last call's repeat (nb % 255) - 1 as uint8: 255 blocks
    if bug:
        real = c < nb * 32                          # the tail block sorted as a whole block of memory, and
        b = large // 32                             # block b re-sorted from tmp: its first C % 32 lanes, NaN
        pad_b = (c // 32 == b) & (c % 32 >= C % 32)
    sa = src.addr + (r * src.Cols + np.where(real, c, 0)) * size
    ia = idx.addr + (ri * idx.Cols + np.where(inside, c, 0)) * 4
    vb = read(core, src, sa, size, "TSORT32 src read").reshape(-1, rows, nb, 32)
    ib = read(core, idx, ia, 4, "TSORT32 idx read").reshape(-1, rows, nb, 32)
    pad = (~real if not bug else pad_b).reshape(rows, nb, 32)
    vb = np.where(pad, _u(size).type(NAN_BITS[size]) if size in NAN_BITS else 0, vb)
    valid = inside.reshape(rows, nb, 32)
    vals = np.where(valid, keys(vb, T), np.nan)
    perm = order(vals, ib, R.ties)
    vs = np.take_along_axis(vb, perm, axis=-1)
    iss = np.take_along_axis(ib, perm, axis=-1)
    recs = records(vs, iss, size)                   # (n, rows, nb, 32, 8)
    n = recs.shape[0]
    rr, bb, pp = np.meshgrid(np.arange(rows), np.arange(nb), np.arange(32), indexing="ij")
    count = np.full((rows, nb), 32)
    if R.tail == "partial":
        count[:, -1] = C - 32 * (nb - 1)
    keep = pp < count[:, :, None]
    if R.chunk_bug and tmp is None and nb >= 255 and nb % 255 == 0:
        keep &= bb < nb - 255                       # the last chunk's repeat is 0: never sorted
    if R.half_block_bug and size == 2:
        base = rr * dst.Cols + 2 * (32 * bb)        # cpu/TSort32.hpp:51: block j at element 2*j
    else:
        base = rr * dst.Cols + 32 * bb * E
    ea = dst.addr + (base + pp * E) * size          # each record's first byte
    byte = ea[..., None] + np.arange(8)
    sel = keep
    if R.half_block_bug and size == 2 and nb > 1:   # later blocks overwrite earlier ones: write in block order
        order_b = np.argsort(bb[sel], kind="stable")
        addrs = byte[sel][order_b]
        data = recs[:, sel][:, order_b]
    else:
        addrs, data = byte[sel], recs[:, sel]
    write(core, dst, addrs.reshape(-1), data.reshape(n, -1), 1, "TSORT32 dst write")
    tmp_tail(core, dst, src, tmp)


def tmp_tail(core, dst, src, tmp) -> None:
    """After the sort (NumPy's or the kernel's): the NPUs' 4-operand tail path leaves the last
    row, its tail padded, in tmp."""
    R = core.target.sort
    C = src.valid_col
    rows = src.valid_row if R.rows_from == "src" else dst.valid_row
    if tmp is not None and R.tail == "drop" and C % 32 and rows:
        _pad_tmp(core, src, tmp, rows, C, src.Element.itemsize, tail_block(R, C, src.Element.itemsize, tmp))


def _pad_tmp(core, src, tmp, rows: int, C: int, size: int, large: int | None) -> None:
    """The 4-operand tail path's scratch: the row copied to tmp (whole 32-byte blocks), its tail
    block's lanes from C on set to the NaN pad (A2/A3: 32 elements further too); the last
    row's copy is what tmp keeps. ``large``: LargeTmpBufferImpl copies only the tail's 32-byte
    blocks, from that element offset, to tmp's start, and pads there."""
    R = core.target.sort
    t = C % 32
    nbytes = -(-C * size // 32) * 32 if large is None else tail_bytes(C, size)
    r = rows - 1
    at = r * src.Cols * size + (0 if large is None else large * size)
    row = read(core, src, src.addr + at + np.arange(nbytes, dtype=np.int64), 1, "TSORT32 src read")
    write(core, tmp, tmp.addr + np.arange(nbytes, dtype=np.int64), row, 1, "TSORT32 tmp write")
    base = (C // 32) * 32 if large is None else 0
    start = base + t
    end = base + 32 + R.pad_tmp_extra
    e = np.arange(start, end, dtype=np.int64)
    write(core, tmp, tmp.addr + e * size, np.full(e.size, NAN_BITS[size], _u(size)), size, "TSORT32 tmp write")


# -- TMRGSORT ---------------------------------------------------------------------------------------
def _pairs(core, tile, n: int, what: str) -> np.ndarray:
    """(instances, n, 8) records from the start of a one-row tile."""
    if n == 0:
        return np.zeros((len(core.step_instances()), 0, 8), np.uint8)
    a = tile.addr + np.arange(n * 8, dtype=np.int64)
    return read(core, tile, a, 1, what).reshape(-1, n, 8)


def _value(rec: np.ndarray, T: str) -> float:
    size = dtypes.as_dtype(T).itemsize
    return float(rec[:size].view(dtypes.as_dtype(T))[0])


def merge(lists: list, T: str, exhausted: bool, cap: int | None):
    """One instance's k-way merge of record lists (each (n, 8)): the head with the greatest
    value, the lower list on a tie (strict >); ``exhausted``: stop after the record that
    empties any list; ``cap``: at most this many records. (records, heads)."""
    heads = [0] * len(lists)
    vals = [[_value(r, T) for r in lst] for lst in lists]
    out = []
    while cap is None or len(out) < cap:
        pick = None
        for k, lst in enumerate(lists):
            if heads[k] < len(lst) and (pick is None or vals[k][heads[k]] > vals[pick][heads[pick]]):
                pick = k
        if pick is None:
            break
        out.append(lists[pick][heads[pick]])
        heads[pick] += 1
        if exhausted and any(heads[k] == len(lst) for k, lst in enumerate(lists)):
            break
    return (np.stack(out) if out else np.zeros((0, 8), np.uint8)), heads


def tmrgsort(core, dst, counts, tmp, srcs: list, exhausted: bool) -> None:
    R = core.target.sort
    T, size = dst.DType, dst.Element.itemsize
    E = 8 // size
    ns = [s.valid_col // E for s in srcs]
    cap = dst.valid_col // E
    if R.merge_into == "dst":
        return _merge_in_memory(core, dst, counts, srcs, ns, cap, T, exhausted)
    lists = [_pairs(core, s, n, "TMRGSORT src read") for s, n in zip(srcs, ns)]
    ks = core.step_instances()
    results, heads = [], []
    for j in range(len(ks)):
        got, h = merge([lst[j] for lst in lists], T, exhausted, None)
        results.append(got)
        heads.append(h + [0] * (4 - len(h)))
    total = sum(ns)
    ta = tmp.addr + np.arange(total * 8, dtype=np.int64)
    core.arena(tmp.space).check_many(ta, 1, "TMRGSORT tmp write", core.target.name, code=F_DST)
    for j, k in enumerate(ks):
        if len(results[j]):
            core.banks[tmp.space].put(np.array([k]), ta[:len(results[j]) * 8], results[j].reshape(1, -1))
    nbytes = -(-dst.valid_col * size // 32) * 32
    off = np.arange(nbytes, dtype=np.int64)
    data = read(core, tmp, tmp.addr + off, 1, "TMRGSORT tmp read")
    write(core, dst, dst.addr + off, data, 1, "TMRGSORT dst write")
    if counts is not None and (exhausted or R.counts_always):
        counts._set(ks, np.array(heads, np.int64) & 0xFFFF)


def _merge_in_memory(core, dst, counts, srcs, ns, cap: int, T: str, exhausted: bool) -> None:
    """cpu/TMrgSort.hpp:115-174 record by record in each instance's memory: a record is written
    to dst before the next heads are read, so a dst that shares bytes with a list (the vendor's
    top-k merges a row into itself) reads what the merge wrote."""
    ks = core.step_instances()
    size = dtypes.as_dtype(T).itemsize
    lo = min([dst.addr] + [s.addr for s in srcs])
    hi = max([dst.addr + cap * 8] + [s.addr + n * 8 for s, n in zip(srcs, ns)])
    if hi <= lo:
        return
    span = np.arange(lo, hi, dtype=np.int64)
    for s, n in zip(srcs, ns):
        core.arena(s.space).check_many(s.addr + np.arange(n * 8, dtype=np.int64), 1, "TMRGSORT src read",
                                       core.target.name, code=F_OTHER)
    core.arena(dst.space).check_many(dst.addr + np.arange(cap * 8, dtype=np.int64), 1, "TMRGSORT dst write",
                                     core.target.name, code=F_DST)
    mems = core.banks[dst.space].take_same(ks, span, np.dtype("u1")).reshape(len(ks), -1)
    heads_all, outs = [], []
    dt = dtypes.as_dtype(T)
    for j in range(len(ks)):
        mem = mems[j].copy()
        heads, out = [0] * len(srcs), 0

        def value(k):
            a = srcs[k].addr - lo + 8 * heads[k]
            return float(mem[a:a + size].view(dt)[0])
        while out < cap:
            pick, pv = None, None
            for k in range(len(srcs)):
                if heads[k] < ns[k]:
                    v = value(k)
                    if pick is None or v > pv:
                        pick, pv = k, v
            if pick is None:
                break
            a = srcs[pick].addr - lo + 8 * heads[pick]
            rec = mem[a:a + 8].copy()
            d = dst.addr - lo + 8 * out
            mem[d:d + 8] = rec
            out += 1
            heads[pick] += 1
            if exhausted and any(heads[k] == ns[k] for k in range(len(srcs))):
                break
        heads_all.append(heads + [0] * (4 - len(heads)))
        outs.append((out, mem))
    for j, (out, mem) in enumerate(outs):
        if out:
            d = dst.addr - lo
            core.banks[dst.space].put(np.array([ks[j]]), dst.addr + np.arange(out * 8, dtype=np.int64),
                                      mem[d:d + out * 8].reshape(1, -1))
    if counts is not None:
        counts._set(ks, np.array(heads_all, np.int64) & 0xFFFF)


def tmrgsort_single(core, dst, src, block_len: int) -> None:
    """Groups of 4 sorted blocks of ``block_len`` elements, each group merged in place into dst."""
    R = core.target.sort
    T, size = src.DType, src.Element.itemsize
    E = 8 // size
    if R.single_checks and (block_len == 0 or block_len % E):
        return
    S = block_len // E
    if R.single_from == "dst":
        groups = dst.valid_col // (4 * block_len) if block_len else 0
    else:
        groups = (src.valid_col // (4 * block_len)) % 256 if block_len else 0     # uint8 repeat
    if groups == 0 or S == 0:
        return
    recs = _pairs(core, src, groups * 4 * S, "TMRGSORT src read")               # (n, groups*4*S, 8)
    out = np.empty_like(recs)
    for j in range(recs.shape[0]):
        for g in range(groups):
            blocks = [recs[j, (g * 4 + b) * S:(g * 4 + b + 1) * S] for b in range(4)]
            got, _ = merge(blocks, T, False, None)
            out[j, g * 4 * S:(g + 1) * 4 * S] = got
    a = dst.addr + np.arange(groups * 4 * S * 8, dtype=np.int64)
    write(core, dst, a, out.reshape(out.shape[0], -1), 1, "TMRGSORT dst write")
