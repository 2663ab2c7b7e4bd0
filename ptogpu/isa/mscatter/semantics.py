"""MSCATTER array semantics: every target's writes as data, then applied in its order.

A call is first turned into its **writes** (:class:`Writes`): one entry per element store the
target's code performs — GM byte address, value, the position in the emulation's schedule,
and on A5's source-centric kernels the SIMT thread and that thread's own sequence number.
Three consumers read the same list, so they cannot disagree:

* :func:`apply` performs the writes in schedule order (last writer wins; atomics fold);
* :func:`outcomes` computes, per GM element, every value the hardware may leave there
  (``ptogpu.semantics.scatter_outcomes``);
* the SIMT maps draw which lane wrote which slot.

Every address is checked before anything is written: an index or source read outside its
arena, or a write outside GM, is a PtoFault and GM is untouched.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import dtypes
from ...enums import Coalesce, Layout, ScatterAtomicOp, ScatterConflict, ScatterOOB
from ...errors import F_DST, F_INDEX, F_OTHER, F_TABLE, PtoFault
from ...semantics import a5_launch
from ...semantics.indexing import M32, M64, cast_index, prod, u64, wrap_addr
from ...semantics.indexing import nz_gm_dims

NAME = "MSCATTER"


@dataclass(frozen=True)
class Call:
    """One checked MSCATTER: the effective template arguments and the path the target takes."""
    mode: Coalesce
    atomic: ScatterAtomicOp
    oob: ScatterOOB
    conflict: ScatterConflict
    path: str      # cpu | a2a3_nd | a2a3_nz | a5_default | a5_last | a5_scalar

    @property
    def label(self) -> str:
        return (f"MSCATTER<{self.mode.name}, {self.atomic.cname}, {self.oob.name}, "
                f"{self.conflict.name}> ({PATHS[self.path]})")


PATHS = {
    "cpu": "the simulator's sequential loop",
    "a2a3_nd": "A2/A3 scalar loop, ND table",
    "a2a3_nz": "A2/A3 scalar loop, NZ table",
    "a5_default": "A5 source-centric SIMT kernel",
    "a5_last": "A5 slot-centric SIMT kernel (Conflict::Last)",
    "a5_scalar": "A5 scalar path (static 1x1)",
}


def choose_path(core, mode: Coalesce, atomic: ScatterAtomicOp, conflict: ScatterConflict, table,
                src) -> str:
    rules = core.target.mscatter
    if rules.simt:
        if mode == Coalesce.Elem and rules.scalar_1x1 and src.ValidRow == 1 and src.ValidCol == 1:
            return "a5_scalar"
        if atomic == ScatterAtomicOp.None_ and conflict == ScatterConflict.Last:
            return "a5_last"
        return "a5_default"
    if rules.nz_tables:
        return "a2a3_nz" if table.layout == Layout.NZ else "a2a3_nd"
    return "cpu"


@dataclass
class Writes:
    """The element stores of one call, in no particular order (``order`` sorts them)."""
    addr: np.ndarray            # int64 GM byte address (uint64 arithmetic, wrapped)
    vals: np.ndarray            # the values, in the table's storage dtype
    order: np.ndarray           # int64 position in the emulation's schedule
    r: np.ndarray               # source row of each store
    c: np.ndarray               # source column of each store (the table column for Row NZ)
    thread: np.ndarray | None = None   # A5 source-centric: tid = 32*ty + tx
    seq: np.ndarray | None = None      # that thread's own step (its program order)
    reads: np.ndarray | None = None    # cpu Row Max/Min: the element each store compares with
    raw: np.ndarray | None = None      # cpu, src type != table type: the source values unconverted


def capacity(core, call: Call, table) -> int:
    """Slots of the table: the remap bound, per target and path (masked to the index width)."""
    rules = core.target.mscatter
    S = [table.GetShape(k) for k in range(5)]
    if call.path == "a2a3_nz":
        S = nz_gm_dims(table)[0]
        if call.mode == Coalesce.Row:
            return (S[2] * 16) & M32
        c0 = 32 // table.Element.itemsize
        nlc = ((S[0] * S[1]) & M32) * c0 & M32
        return ((S[2] * 16) & M32) * nlc & M32
    mask = M32 if rules.index_bits == 32 else M64
    if call.mode == Coalesce.Elem:
        return prod(S) & mask
    return (S[3] if rules.row_capacity == "shape3" else prod(S[:4])) & mask


def remap(u: np.ndarray, cap: int, oob: ScatterOOB, bits: int, t: str, last: bool = False):
    """(slot, written?) per the ScatterOOB rule on ``bits``-wide unsigned values. ``last``: the
    slot-centric kernels, which only ever write a slot below ``cap`` (Undefined acts as Skip,
    and Wrap with no slots divides nothing)."""
    mask = M32 if bits == 32 else M64
    capu = np.uint64(cap & mask)
    if oob == ScatterOOB.Clamp:
        lastslot = np.uint64((cap - 1) & mask)
        slot = np.minimum(u, lastslot) if bits == 64 else np.where(u >= capu, lastslot, u)
        ok = np.ones(u.shape, bool)
    elif oob == ScatterOOB.Wrap:
        if cap == 0:
            if last:
                return u, np.zeros(u.shape, bool)
            raise PtoFault("ScatterOOB::Wrap with capacity 0 divides by zero (idx % 0)",
                           rule="MSCATTER Wrap", target=t, code=F_OTHER)
        slot, ok = u % capu, np.ones(u.shape, bool)
    elif oob == ScatterOOB.Skip:
        slot, ok = u, u < capu
    else:
        slot, ok = u, np.ones(u.shape, bool)
    if last:
        ok = ok & (slot < capu)
    return slot, ok


def _offsets(tile, r, c, how: str):
    return tile.offsets(r, c) if how == "full" else tile.plain_offsets(r, c)


def _read(core, tile, addrs, what: str, describe, code: int) -> np.ndarray:
    arena = core.arena(tile.space)
    a = np.asarray(addrs, np.int64)
    arena.check_many(a, tile.Element.itemsize, what, core.target.name, describe, code=code)
    return arena.gather(a, tile.Element)


def _src_vals(core, src, table, r, c, how: str, keep: list | None = None) -> np.ndarray:
    """Source elements at (r, c), as the table's type (the simulator converts by value);
    ``keep`` receives the unconverted values when the types differ."""
    size = src.Element.itemsize
    a = src.addr + _offsets(src, r, c, how) * size
    v = _read(core, src, a.reshape(-1), f"{NAME} src read",
              lambda i: f"src({r.reshape(-1)[i]},{c.reshape(-1)[i]})", F_OTHER)
    if dtypes.name_of(src.Element) != dtypes.name_of(table.Element):
        from ...semantics.cells import convert
        if keep is not None:
            keep.append(v)
        v = convert(core, v, table, src.DType)
    return v.view(dtypes.storage(table.Element))


def writes(core, call: Call, table, src, idx) -> Writes:
    """Every element store of the call (checked reads, unchecked write addresses)."""
    t = core.target.name
    rules = core.target.mscatter
    VR, VC = src.valid_row, src.valid_col
    st = dtypes.storage(table.Element)
    empty = np.zeros(0, np.int64)
    if VR == 0 or VC == 0:
        return Writes(empty, np.zeros(0, st), empty, empty, empty)
    from ...semantics.cells import guard_region
    guard_region(core, core.arena(src.space), VR * VC, src.Element.itemsize, NAME)
    cap = capacity(core, call, table)
    bits = rules.index_bits
    T = table.Element.itemsize
    base = u64(table.addr)
    how = "full" if call.path == "a2a3_nz" else rules.tile_offsets
    last = call.path == "a5_last"
    isz = idx.Element.itemsize
    with np.errstate(over="ignore"):
        if call.mode == Coalesce.Row:
            rows = np.arange(VR, dtype=np.int64)
            raw = _read(core, idx, idx.addr + rows * isz, f"{NAME} index read",
                        lambda i: f"row index {i}", F_INDEX)
            u = cast_index(raw, bits)
            slot, ok = remap(u, cap, call.oob, bits, t, last)
            if call.path == "a2a3_nz":
                return _row_nz(core, table, src, rows[ok], slot[ok])
            rr, cc = np.meshgrid(rows[ok], np.arange(VC, dtype=np.int64), indexing="ij")
            sl = np.broadcast_to(slot[ok][:, None], rr.shape)
            cu = cc.astype(np.uint64)
            if rules.row_dst == "strides":
                off = sl * u64(table.GetStride(3)) + cu * u64(table.GetStride(4))
            elif rules.row_dst == "stride3":
                off = sl * np.uint64(table.GetStride(3) & M32) + cu
            else:                                # A5: row pitch hard-wired to VC, 32-bit product
                off = ((sl * np.uint64(VC)) & np.uint64(M32)) + cu
            addr = wrap_addr(base + off * np.uint64(T))
            keep: list = []
            vals = _src_vals(core, src, table, rr, cc, how, keep)
            reads = None
            if call.path == "cpu" and call.atomic in (ScatterAtomicOp.Max, ScatterAtomicOp.Min) \
                    and core.quirks.get("cpu_mscatter_row_minmax_operand", False):
                reads = wrap_addr(base + sl * np.uint64(T)).reshape(-1)
            W = Writes(addr.reshape(-1), vals, (rr * VC + cc).reshape(-1), rr.reshape(-1),
                       cc.reshape(-1), reads=reads, raw=keep[0] if keep else None)
        else:
            r, c = np.divmod(np.arange(VR * VC, dtype=np.int64), VC)
            if call.path == "a2a3_nz":        # column block, then rows, then the block's columns
                c0 = 32 // T
                b = c // c0
                o = np.lexsort((c, r, b))
                r, c = r[o], c[o]
            ia = idx.addr + _offsets(idx, r, c, "plain" if call.path == "a2a3_nz" else how) * isz
            raw = _read(core, idx, ia, f"{NAME} index read", lambda i: f"idx({r[i]},{c[i]})", F_INDEX)
            u = cast_index(raw, bits)
            slot, ok = remap(u, cap, call.oob, bits, t, last)
            keep = []
            vals = _src_vals(core, src, table, r[ok], c[ok], how, keep)
            order = np.arange(r.size, dtype=np.int64)[ok]
            if call.path == "a2a3_nz":
                off = _nz_elem_offset(table, slot[ok])
            else:
                off = slot[ok]
            addr = wrap_addr(base + off * np.uint64(T))
            W = Writes(addr, vals, order if call.path == "a2a3_nz" else r[ok] * VC + c[ok],
                       r[ok], c[ok], raw=keep[0] if keep else None)
    if call.path == "a5_default":
        a5_schedule(call.mode, VR, VC, W)
    return W


def a5_schedule(mode: Coalesce, VR: int, VC: int, W: Writes) -> None:
    """The source-centric launch: each store's thread, its own step, and its place in the
    emulation's schedule (warp after warp, each warp's steps in order, lanes in lock-step)."""
    r, c = W.r, W.c
    W.order = np.argsort(a5_launch.store_order(mode.name.lower(), VR, VC, r, c), kind="stable")
    if mode == Coalesce.Row:
        rw, wpr = a5_launch.row_warps(VR), a5_launch.warps_per_row(VR, VC)
        q = c // 32
        ty = r % rw + rw * (q % wpr)
        W.thread = 32 * ty + c % 32
        W.seq = (r // rw) * (1 << 32) + q // wpr
    else:
        lt = 32 * a5_launch.elem_launch_warps(a5_launch.elem_total(VR, VC))
        p = r * VC + c
        W.thread, W.seq = p % lt, p // lt


def _nz_elem_offset(table, slot: np.ndarray) -> np.ndarray:
    """``MScatterNZGmOffset``: a logical row-major slot of the un-tiled matrix to its NZ element
    offset (uint64; gShape/gStride read as 32-bit int)."""
    S, St = nz_gm_dims(table)
    St = [np.uint64(v & M64) for v in St]
    c0 = 32 // table.Element.itemsize
    nlc = np.uint64(((S[0] * S[1]) & M32) * c0 & M32)
    lr, lc = slot // nlc, slot % nlc
    bcc, k0 = lc // np.uint64(c0), lc % np.uint64(c0)
    br, ri = lr // np.uint64(16), lr % np.uint64(16)
    if S[0] == 1:
        o0, o1 = np.zeros_like(bcc), bcc
    else:
        g1 = np.uint64(S[1] & M32)
        o0, o1 = bcc // g1, bcc % g1
    return o0 * St[0] + o1 * St[1] + br * St[2] + ri * St[3] + k0 * St[4]


def _row_nz(core, table, src, rows: np.ndarray, slot: np.ndarray) -> Writes:
    """A2/A3 Row into an NZ table: each written source row is gShape0 multi-burst DMAs of
    gShape1 32-byte bursts, so the whole table row is written, tile columns past ValidCol
    (padding, or UB past the tile) included."""
    S, St = nz_gm_dims(table)
    St = [np.uint64(v & M64) for v in St]
    T = table.Element.itemsize
    c0 = 32 // T
    n0, nb = max(S[0], 0), S[1] & 0xFFFF
    R = src.Rows
    i, j, k = np.meshgrid(np.arange(n0, dtype=np.int64), np.arange(nb, dtype=np.int64),
                          np.arange(c0, dtype=np.int64), indexing="ij")
    i, j, k = i.reshape(-1), j.reshape(-1), k.reshape(-1)
    blk = (i * (S[1] if S[1] > 0 else 0) + j)
    ncol = i.size
    rr = np.repeat(rows, ncol)
    ss = np.repeat(slot, ncol)
    ii, jj, kk, bb = (np.tile(x, rows.size) for x in (i, j, k, blk))
    with np.errstate(over="ignore"):
        el = (ii.astype(np.uint64) * St[0] + jj.astype(np.uint64) * St[1]
              + (ss // np.uint64(16)) * St[2] + (ss % np.uint64(16)) * St[3] + kk.astype(np.uint64))
        addr = wrap_addr(u64(table.addr) + el * np.uint64(T))
    ub = src.addr + (bb * R * c0 + rr * c0 + kk) * T
    v = _read(core, src, ub, f"{NAME} NZ row burst read", lambda q: f"element {q}", F_TABLE)
    order = np.arange(rr.size, dtype=np.int64)
    return Writes(addr, v.view(dtypes.storage(table.Element)), order, rr, bb * c0 + kk)


def check_writes(core, W: Writes, T: int, call: Call) -> None:
    """Every store (and the simulator's Row Max/Min operand read) inside GM, or a PtoFault
    naming the first one in program order."""
    o = np.argsort(W.order, kind="stable")
    if W.reads is not None:
        core.gm.check_many(W.reads[o], T, f"{NAME}<Row, {call.atomic.cname}> operand read base[u]",
                           core.target.name, lambda i: f"src({W.r[o[i]]},{W.c[o[i]]})", code=F_OTHER)
    core.gm.check_many(W.addr[o], T, f"{NAME} ({call.oob.name}) table write", core.target.name,
                       lambda i: f"src({W.r[o[i]]},{W.c[o[i]]})", code=F_DST)


# ---- arithmetic of the atomics ----------------------------------------------------------------
def arith_dtype(core, table) -> np.dtype:
    """The type the table's elements are added / compared in: the element type, except the
    simulator's bfloat16 when it is _Float16 (quirk ``cpu_bfloat16_is_half``)."""
    from ...semantics.sim_types import bf16_is_half
    name = dtypes.name_of(table.Element)
    if name == "bfloat16" and bf16_is_half(core):
        return np.dtype(np.float16)
    return table.Element


def _f32_add(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """float32 addition with x86's NaN rule made explicit (a compiler may swap the operands of
    ``+``): a NaN operand comes back quieted, the first one first; a new NaN (inf - inf) is
    the default NaN 0xFFC00000."""
    a, b = np.asarray(a, np.float32), np.asarray(b, np.float32)
    with np.errstate(invalid="ignore", over="ignore"):
        r = (a + b).view(np.uint32)
    qa, qb = a.view(np.uint32) | np.uint32(0x400000), b.view(np.uint32) | np.uint32(0x400000)
    r = np.where(np.isnan(r.view(np.float32)), np.uint32(0xFFC00000), r)
    r = np.where(np.isnan(b), qb, r)
    return np.where(np.isnan(a), qa, r).astype(np.uint32).view(np.float32)


def f32_to_half_bits(f: np.ndarray) -> np.ndarray:
    """float32 -> IEEE half, round to nearest even; a NaN keeps its top payload bits (and stays
    a NaN): NumPy's own rule, written out so every backend shares it bit for bit."""
    x = np.asarray(f, np.float32).view(np.uint32).astype(np.int64)
    s = (x >> 16) & 0x8000
    e = (x >> 23) & 0xFF
    m = x & 0x7FFFFF
    ee = e - 127 + 15
    nan = np.where((m >> 13) != 0, m >> 13, 1)
    out = np.where(e == 0xFF, np.where(m != 0, s | 0x7C00 | nan, s | 0x7C00), 0)
    # normal
    h = s | (np.clip(ee, 0, 31) << 10) | (m >> 13)
    rem = m & 0x1FFF
    h = h + ((rem > 0x1000) | ((rem == 0x1000) & ((h & 1) == 1)))
    # subnormal
    mm = m | 0x800000
    sh = np.clip(14 - ee, 1, 63)
    hm = mm >> sh
    rem2 = mm & ((1 << sh) - 1)
    half = 1 << (sh - 1)
    hm = hm + ((rem2 > half) | ((rem2 == half) & ((hm & 1) == 1)))
    sub = np.where(ee < -10, s, s | hm)
    res = np.where(e == 0xFF, out, np.where(ee >= 31, s | 0x7C00, np.where(ee <= 0, sub, h)))
    return res.astype(np.uint16)


def f32_to_bf16_bits(f: np.ndarray) -> np.ndarray:
    """float32 -> bfloat16, round to nearest even; NaN -> the quiet NaN of its sign."""
    x = np.asarray(f, np.float32).view(np.uint32).astype(np.uint64)
    nan = ((x & 0x7F800000) == 0x7F800000) & ((x & 0x7FFFFF) != 0)
    r = (x + 0x7FFF + ((x >> 16) & 1)) >> 16
    return np.where(nan, ((x >> 16) & 0x8000) | 0x7FC0, r).astype(np.uint16)


def _narrow_add(old: np.ndarray, v: np.ndarray) -> np.ndarray:
    """half / bfloat16 addition: both widened to float (exact), one float add, one rounding."""
    name = "half" if old.dtype == np.float16 else "bfloat16"
    r = _f32_add(old.astype(np.float32), v.astype(np.float32))
    bits = f32_to_half_bits(r) if name == "half" else f32_to_bf16_bits(r)
    return bits.view(old.dtype)


def combine(atomic: ScatterAtomicOp, old: np.ndarray, v: np.ndarray) -> np.ndarray:
    """One atomic step in the element type: integers wrap; half and bfloat16 add through float
    with one rounding to nearest-even (the A2/A3 detour; the simulator's _Float16; assumed for
    A5's atomicAdd); ``std::max(old, v)`` keeps ``old`` unless ``old < v`` (a NaN in the table
    stays, a NaN source is ignored, ``-0``/``+0`` ties keep the old value)."""
    with np.errstate(over="ignore", invalid="ignore"):
        if atomic == ScatterAtomicOp.Add:
            if old.dtype == np.float32:
                return _f32_add(old, v)
            if old.dtype.kind == "f" or dtypes.name_of(old.dtype) == "bfloat16":
                return _narrow_add(old, v)
            return (old + v).astype(old.dtype)
        if atomic == ScatterAtomicOp.Max:
            return np.where(old < v, v, old)
        return np.where(v < old, v, old)


def fold(atomic: ScatterAtomicOp, dt: np.dtype, init: np.ndarray, group: np.ndarray,
         vals: np.ndarray, step=None) -> np.ndarray:
    """Fold ``vals`` (already in schedule order) into ``init[group]``, one step per writer:
    vectorised over the groups, one pass per rank (so all-equal indices cost N passes over one
    element, and distinct indices one pass)."""
    acc = init.copy()
    if not group.size:
        return acc
    o = np.argsort(group, kind="stable")
    g = group[o]
    start = np.r_[0, np.flatnonzero(g[1:] != g[:-1]) + 1]
    rank = np.arange(g.size) - np.repeat(start, np.diff(np.r_[start, g.size]))
    step = step or (lambda a, v: combine(atomic, a, v))
    for k in range(int(rank.max()) + 1):
        sel = o[rank == k]
        acc[group[sel]] = step(acc[group[sel]], vals[sel])
    return acc


def _mixed_add(table_dt: np.dtype, src_dt: np.dtype):
    """The simulator's ``base[i] += v`` with an integer table and a floating source: the old
    value converted to the source's type, added in float (x86 GCC evaluates _Float16 and
    bfloat16 arithmetic in float: excess precision), converted back truncating."""
    def step(old, v):
        with np.errstate(all="ignore"):
            a = old.astype(src_dt).astype(np.float32)
            r = _f32_add(a, v.astype(np.float32))
            return np.trunc(r.astype(np.float64)).astype(table_dt)
    return step


def last_per(group: np.ndarray, key: np.ndarray, n: int) -> np.ndarray:
    """For each of the ``n`` groups, the position of its entry with the greatest ``key``."""
    o = np.lexsort((key, group))
    g = group[o]
    ends = np.r_[np.flatnonzero(g[1:] != g[:-1]), g.size - 1]
    out = np.empty(n, np.int64)
    out[g[ends]] = o[ends]
    return out


def survivors(group: np.ndarray, thread: np.ndarray, seq: np.ndarray) -> np.ndarray:
    """Positions of the stores that can be the one left in their element: each thread's last
    store to it (only a thread's own program order is guaranteed), sorted by (element, thread)."""
    o = np.lexsort((seq, thread, group))
    g, th = group[o], thread[o]
    return o[np.r_[(g[1:] != g[:-1]) | (th[1:] != th[:-1]), True]] if o.size else o


def stepwise(core, call: Call, W: Writes, dt: np.dtype, uniq: np.ndarray, o: np.ndarray) -> np.ndarray:
    """The simulator's Row Max/Min (``W.reads``): store ``k`` writes ``op(base[u], v)`` to its
    own address, reading the row's first element as it is at that step; the final values of
    ``uniq`` (the written addresses), GM left untouched."""
    st = dtypes.storage(dt)
    where = np.unique(np.r_[W.addr, W.reads])
    mem = core.gm.gather(where, st).view(dt).copy()
    a_at, r_at = np.searchsorted(where, W.addr[o]), np.searchsorted(where, W.reads[o])
    for a, rd, v in zip(a_at, r_at, W.vals[o].view(dt)):
        mem[a] = combine(call.atomic, mem[rd:rd + 1], np.array([v], dt))[0]
    return mem[np.searchsorted(where, uniq)]


def apply(core, call: Call, table, W: Writes) -> None:
    """Perform the checked writes in schedule order."""
    T = table.Element.itemsize
    st = dtypes.storage(table.Element)
    check_writes(core, W, T, call)
    if not W.addr.size:
        return
    gm = core.gm
    uniq, group = np.unique(W.addr, return_inverse=True)
    if call.atomic == ScatterAtomicOp.None_:         # the last store in schedule order stays
        gm.scatter(uniq, W.vals[last_per(group, W.order, uniq.size)])
        return
    o = np.argsort(W.order, kind="stable")
    dt = arith_dtype(core, table)
    if W.reads is not None:                  # the simulator's Row Max/Min: step by step
        gm.scatter(uniq, stepwise(core, call, W, dt, uniq, o).view(st))
        return
    init = gm.gather(uniq, st).view(dt)
    mixed = W.raw is not None and call.atomic == ScatterAtomicOp.Add and dt.kind in "iu" and \
        dtypes.name_of(W.raw.dtype) in ("half", "bfloat16", "float32")
    if mixed:
        acc = fold(call.atomic, dt, init, group[o], W.raw[o], step=_mixed_add(dt, W.raw.dtype))
    else:
        acc = fold(call.atomic, dt, init, group[o], W.vals[o].view(dt))
    gm.scatter(uniq, acc.view(st))
