"""TGATHERB block semantics per target (other-ops.md §A). Checks happen in ``ops.tgatherb``.

Each offset moves one 32-byte block. Every engine builds a *plan* — block source and
destination byte addresses in issue order — then :func:`run_blocks` checks every address
against UB and only then writes (last writer wins; sources are read as they were before the
instruction, since src and dst must not overlap; the CPU simulator's byte loop runs in
program order where they do). Nothing is written on a fault.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ...errors import F_DST, F_INDEX, F_TABLE, NotBatched, PtoFault, asserts_live, warn
from ...semantics.faults import Faults

NAME = "TGATHERB"
BLK = 32
VL = 256
M32 = (1 << 32) - 1


@dataclass
class Plan:
    """Blocks in issue order: ``nbytes[i]`` bytes from ``src[i]`` (or zeros) to ``dst[i]``.
    Batch-first: ``src``, ``nbytes`` and ``zero`` hold one row per instance of the step
    (:meth:`Core.step_instances`) where they depend on the offsets, or one row for all;
    ``dst`` never does (block destinations are the tile's structure)."""
    src: np.ndarray      # int64 byte address of the source block (ignored where ``zero``)
    dst: np.ndarray      # int64 byte address where the block's first byte lands
    nbytes: np.ndarray   # bytes written per block (0..32)
    zero: np.ndarray     # bool: the block reads nothing (disabled: its written bytes are 0)
    who: list            # describe(j, i) -> str (instance j of the step, block i), for faults
    src_space: str = "ub"
    dst_space: str = "ub"


def run_blocks(core, plan: Plan) -> None:
    """Check every instance's block addresses (its first fault stops it: it writes nothing),
    then copy, the last writer of each byte winning, sources read as before the step."""
    sa, t = core.arena(plan.src_space), core.target.name
    ub = core.arena(plan.dst_space)
    ks = core.step_instances()
    K, nblk = len(ks), plan.dst.size
    if nblk == 0:
        return
    src, nb, zero = (np.broadcast_to(np.asarray(x).reshape(-1, nblk), (K, nblk))
                     for x in (plan.src, plan.nbytes, plan.zero))
    describe = plan.who[0] if plan.who else (lambda j, i: f"block {i}")
    faults = Faults(core, ks)
    # each instance's first bad block, in issue order
    faults.first_of(~zero & ((src < 0) | (src > sa.size - BLK)), lambda j, q: sa.outside(
        int(src[j, q[0]]), BLK, f"{NAME} source block read", t, describe(j, q[0]), code=F_TABLE))
    d = plan.dst
    faults.first_of((nb > 0) & ((d < 0) | (d + nb > ub.size)), lambda j, b: PtoFault(
        f"{NAME} dst write: {describe(j, b[0])} writes {ub.name.upper()} bytes "
        f"[{int(d[b[0]]):#x}, {int(d[b[0]] + nb[j, b[0]]):#x}), outside [0, {ub.size:#x})",
        rule="access outside arena", target=t, code=F_DST))
    faults.done()
    ok = faults.ok
    if not ok.any() or not (nb[ok] > 0).any():
        return
    ks, src, nb, zero = ks[ok], src[ok], nb[ok], zero[ok]
    uniform = K == 1 or ((nb == nb[:1]).all() and (zero == zero[:1]).all())
    if not _copy(core, plan, ks, src, nb, zero, uniform):
        for j in range(len(ks)):          # blocks overlap and differ per instance: one by one
            _copy(core, plan, ks[j:j + 1], src[j:j + 1], nb[j:j + 1], zero[j:j + 1], True)


def _copy(core, plan: Plan, ks, src, nb, zero, uniform: bool) -> bool:
    """The copy for instances ``ks``, the last writer of each byte found once for all of them;
    False when that cannot be (the writers differ per instance and some bytes have two)."""
    j = np.arange(BLK, dtype=np.int64)
    live = j[None, :] < nb.max(axis=0)[:, None]            # (blocks, 32): bytes any instance writes
    blk, byte = np.nonzero(live)                            # issue order
    pos = plan.dst[blk] + byte
    u, first = np.unique(pos[::-1], return_index=True)
    if not uniform and u.size != pos.size:
        return False
    wb, wj = blk[::-1][first], byte[::-1][first]            # each byte's last writer
    keep = wj[None, :] < nb[:, wb]                          # (instances, bytes)
    z = zero[:, wb]
    read = keep & ~z
    vals = core.banks[plan.src_space].take(ks, np.where(read, src[:, wb] + wj[None, :], 0), np.uint8)
    dbank = core.banks[plan.dst_space]
    cur = dbank.take_same(ks, u, np.uint8)
    dbank.put(ks, u, np.where(read, vals, np.where(keep, np.uint8(0), cur)))
    return True


# -- offsets ---------------------------------------------------------------------------------
def offsets_bits(core, off, flat: np.ndarray) -> np.ndarray:
    """NPU: ``((__ubuf__ uint32_t*)offset.data())[flat]`` as int64 (reads checked), one row
    per instance of the step."""
    addrs = off.addr + flat.astype(np.int64) * 4
    core.ub.check_many(addrs, 4, f"{NAME} offset read", core.target.name,
                       lambda i: f"offset entry {int(flat.reshape(-1)[i])}", code=F_INDEX)
    return core.banks["ub"].take_same(core.step_instances(), addrs, np.uint32).astype(np.int64)


def offsets_value(core, off, flat: np.ndarray) -> np.ndarray:
    """CPU: ``static_cast<uint32_t>(offset.data()[flat])`` (integers wrap mod 2^32; floats
    truncate toward zero first, NaN -> 0, as x86 does through int64); one row per instance."""
    size = off.Element.itemsize
    addrs = off.addr + flat.astype(np.int64) * size
    arena = core.arena(off.space)
    arena.check_many(addrs, size, f"{NAME} offset read", core.target.name,
                     lambda i: f"offset entry {int(flat.reshape(-1)[i])}", code=F_INDEX)
    raw = core.banks[off.space].take_same(core.step_instances(), addrs, off.Element)
    from ...semantics.sim_types import bf16_is_half
    if off.DType == "bfloat16" and bf16_is_half(core):
        raw = raw.view(np.float16)
    if raw.dtype.kind in "iub":
        return raw.astype(np.int64) & M32
    with np.errstate(all="ignore"):
        f = np.trunc(raw.astype(np.float64))
        f = np.where(np.isfinite(f) & (np.abs(f) < 2.0 ** 63), f, -(2.0 ** 63))
        return f.astype(np.int64) & M32


def round_down(core, offs: np.ndarray) -> np.ndarray:
    """NPU: a misaligned offset is rounded down to its 32-byte block (Reg::GatherB computes
    ``offset // 32``), with a warning: hardware behaviour is undocumented (other-ops.md §E)."""
    mis = offs % BLK != 0
    if mis.any():
        first = int(offs[mis].reshape(-1)[0])
        warn(f"[{core.target.name}] {NAME}: {int(mis.sum())} offset(s) not 32-byte aligned "
             f"(first {first:#x}); rounded down to the block")
    return offs & ~np.int64(BLK - 1)


# -- engines ---------------------------------------------------------------------------------
def plan_cpu(core, dst, src, off) -> Plan:
    """CPU simulator (§A.3): full blocks only; a block whose ``uint32(off + 32)`` exceeds the
    whole src tile is skipped; byte-granular offsets."""
    size = dst.Element.itemsize
    B = BLK // size
    VR, nblk = dst.valid_row, dst.valid_col // B
    r, k = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(nblk, dtype=np.int64),
                       indexing="ij")
    o = offsets_value(core, off, r * off.Cols + k)
    o = o.reshape(len(o), -1)
    ok = ((o + BLK) & M32) <= src.Rows * src.Cols * src.Element.itemsize
    r, k = r.reshape(-1), k.reshape(-1)
    return Plan(src=src.addr + o, dst=dst.addr + (r * dst.Cols + k * B) * size,
                nbytes=np.where(ok, BLK, 0).astype(np.int64), zero=~ok,
                who=[lambda j, i: f"block {int(k[i])} of row {int(r[i])} (offset {int(o[j, i]):#x})"],
                src_space=src.space, dst_space=dst.space)


def cpu_in_order(core, dst, src, off) -> None:
    """The simulator's loop when dst shares bytes with src or the offset tile: per row, per
    block, read the offset entry then copy the block byte by byte (cpu/TGatherB.hpp), so a
    later read sees an earlier write. Addresses are checked for the bytes as they stand before
    the loop starts (the plan); an offset that a store changes is checked when it is read.
    A fault part-way undoes every store."""
    if core.all_at_once:
        raise NotBatched(NAME)          # the byte loop runs instance by instance
    plan = plan_cpu(core, dst, src, off)
    sa, da = core.arena(src.space), core.arena(dst.space)
    t = core.target.name
    size = dst.Element.itemsize
    B = BLK // size
    n_src = src.Rows * src.Cols * src.Element.itemsize
    with da.undo_on_error():
        for q in range(plan.dst.size):
            r, k = divmod(q, max(dst.valid_col // B, 1))
            o = int(offsets_value(core, off, np.array([r * off.Cols + k]))[0, 0])
            if ((o + BLK) & M32) > n_src:
                continue
            s0, d0 = src.addr + o, int(plan.dst[q])
            sa.check_many(np.array([s0]), BLK, f"{NAME} source block read", t,
                          lambda i: plan.who[0](0, q), code=F_TABLE)
            da.check_many(np.array([d0]), BLK, f"{NAME} dst write", t, code=F_DST)
            for b in range(BLK):
                da.data[d0 + b] = sa.data[s0 + b]


def width_traps(core, valid_col: int) -> bool:
    """The simulator's assert(validCol * sizeof(TileDType) % 32 == 0), TileDType a pointer of
    8 bytes there: a width that is not a multiple of 4 traps where the assert is live."""
    return core.target.tgatherb.width_assert and valid_col % 4 != 0 and asserts_live(core)


def kernel_shape(core, dst, src, off) -> bool:
    """The kernels cover UB tiles, a RowMajor dst, and (the simulator's byte loop) no dst
    sharing bytes with src or the offsets; everything else runs here."""
    if any(x.space != "ub" for x in (dst, src, off)) or not dst.isRowMajor:
        return False
    return not (core.target.tgatherb.engine == "cpu" and (dst.shares_bytes(src) or dst.shares_bytes(off)))


def plan_a5(core, dst, src, off) -> Plan:
    """A5 register loop (§A.5): per row and 256-byte repeat, gather 8 blocks under the
    predicate "first ``count`` elements of T", store exactly ``count`` elements."""
    size = dst.Element.itemsize
    E = VL // size
    VR, VC = dst.valid_row, dst.valid_col
    R = -(-VC // E)
    if VR == 0 or R == 0:                 # VC == 0: lastRepeat would wrap; a no-op here
        return _empty()
    rowwise = -(-dst.Cols // E) > dst.Rows
    i, j, k = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(R, dtype=np.int64),
                          np.arange(8, dtype=np.int64), indexing="ij")
    if not rowwise:     # TGatherBColWise: repeats outer, rows inner (the store order)
        i, j, k = (x.transpose(1, 0, 2) for x in (i, j, k))
    i, j, k = i.reshape(-1), j.reshape(-1), k.reshape(-1)
    rem = VC % E or E
    count = np.where(j < R - 1, E, rem)
    cbytes = count * size
    if rowwise and core.quirks.get("a5_tgatherb_rowwise_b32_store", False):
        cbytes = -(-cbytes // 4) * 4      # NORM_B32 store: whole 4-byte groups
    stored = np.clip(cbytes - k * BLK, 0, BLK)
    enabled = 4 * k < count * size       # block k <- predicate bit 4k (element 4k/size)
    need = stored > 0
    if core.quirks.get("a5_tgatherb_unused_block_fault", False):
        need = enabled
    ors = off.RowStride
    flat = i * ors + 8 * j + k
    o = np.zeros((len(core.step_instances()), flat.size), np.int64)
    o[:, need] = round_down(core, offsets_bits(core, off, flat[need]))
    return Plan(src=src.addr + o, dst=dst.addr + (i * dst.RowStride + j * E) * size + k * BLK,
                nbytes=np.where(need, stored, 0), zero=~need,
                who=[lambda n, q: f"block {int(k[q])} of repeat {int(j[q])}, row {int(i[q])} "
                                  f"(offset {int(o[n, q]):#x})"])


def plan_a2a3(core, dst, src, off) -> Plan:
    """A2/A3 vgatherb repeat stream (§A.4): head repeats row by row, then the tail as one call
    per 255-row chunk (quirk ``a2a3_tgatherb_tail_stream``) or one call per row (PTOAS)."""
    size = dst.Element.itemsize
    E, B = VL // size, BLK // size
    VR, VC = dst.valid_row, dst.valid_col
    nrep, rem = VC // E, VC % E
    ors, drs = off.RowStride, dst.RowStride
    parts_o, parts_d, tags = [], [], []
    if VR and nrep:
        i, rr, jb = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(nrep, dtype=np.int64),
                                np.arange(8, dtype=np.int64), indexing="ij")
        parts_o.append((i * ors + rr * 8 + jb).reshape(-1))
        parts_d.append((dst.addr + i * drs * size + rr * VL + jb * BLK).reshape(-1))
        tags.append(np.stack([i, rr * 8 + jb], -1).reshape(-1, 2))
    if VR and rem:
        r, jb = np.meshgrid(np.arange(VR, dtype=np.int64), np.arange(8, dtype=np.int64),
                            indexing="ij")
        if core.quirks.get("a2a3_tgatherb_tail_stream", True):
            c0 = (r // 255) * 255                     # first row of the row's chunk
            rr = r - c0
            rep_stride = (drs // B) & 0xFF            # 8-bit dstRepStride field (inferred)
            o_flat = c0 * ors + nrep * 8 + rr * 8 + jb
            d = dst.addr + (c0 * drs + nrep * E) * size + BLK * (rr * rep_stride + jb)
        else:
            o_flat = r * ors + nrep * 8 + jb
            d = dst.addr + (r * drs + nrep * E) * size + BLK * jb
        parts_o.append(o_flat.reshape(-1))
        parts_d.append(d.reshape(-1))
        tags.append(np.stack([r, nrep * 8 + jb], -1).reshape(-1, 2))
    if not parts_o:
        return _empty()
    flat = np.concatenate(parts_o)
    o = round_down(core, offsets_bits(core, off, flat))
    tag = np.concatenate(tags)
    return Plan(src=src.addr + o, dst=np.concatenate(parts_d),
                nbytes=np.full(flat.size, BLK, np.int64), zero=np.zeros(flat.size, bool),
                who=[lambda n, q: f"block {int(tag[q, 1])} of row {int(tag[q, 0])} "
                                  f"(offset entry {int(flat[q])} = {int(o[n, q]):#x})"])


def _empty() -> Plan:
    z = np.zeros(0, np.int64)
    return Plan(src=z, dst=z, nbytes=z, zero=np.zeros(0, bool), who=[])


ENGINES = {"cpu": plan_cpu, "vreg": plan_a5, "vrepeat": plan_a2a3}


def tgatherb(core, dst, src, off) -> None:
    if core.target.tgatherb.engine == "cpu" and (dst.shares_bytes(src) or dst.shares_bytes(off)):
        return cpu_in_order(core, dst, src, off)
    run_blocks(core, ENGINES[core.target.tgatherb.engine](core, dst, src, off))
