"""MGATHER on the kernel backends: lower a checked call to a kernel launch (cuda_src/mgather.cu).

:func:`run_mgather_ub` is the one entry point ``api.py`` calls, at the two places
where it would hand a checked call to the NumPy semantics (the CPU simulator's generic routine,
and the A2/A3 / A5 UB paths). It returns ``False`` (the caller then runs NumPy) when the core's
backend is ``numpy`` or when the call is outside what the kernels cover:

* dst and table element types differ (the CPU simulator's value conversion);
* the index reads may see the destination's stores, or valid destination cells share storage
  on a GPU (NumPy runs each target's store order);
* ``GatherOOB.Wrap`` with capacity 0, an NZ table with no logical columns, or a region larger
  than its arena (NumPy raises its own fault for those, before touching memory);
* operands not bound to this core;
* a path NumPy runs through the DMA engine (A2/A3 Row) while ``core.trace()`` records bursts,
  or with a destination that is not 32-byte aligned (TASSIGN never makes one).

Everything else runs the kernel, which matches the NumPy backend byte for byte and reports
the same first fault (same exception type, same message, nothing written).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ... import dtypes
from ...enums import BLayout, Coalesce, GatherOOB, Layout, SLayout
from ...errors import F_DST, F_INDEX, F_TABLE, PtoFault
from ...tensor import GlobalTensor
from ...backend import kernel_ok
from ...backend.kernels import Consts, ParamBlock, launch_instances, launch_on, use_kernels
from ...semantics.a5_launch import elem_launch_warps, row_launch_warps
from ...lowering.tiles import bound_to_core, tile_desc
from ...semantics.indexing import prod
from ...semantics.cells import cells_alias, storage_overlaps
from .semantics import dst_addrs

M32 = (1 << 32) - 1
M64 = (1 << 64) - 1
NAME = "MGATHER"


FILE = "mgather.cu"
K = Consts(FILE)
"""The kernels' enum constants (``K.NAME``), read from their source."""




def _i64(v: int) -> int:
    """A Python int as the int64 with the same low 64 bits (uint64 arithmetic in the kernel)."""
    v = int(v) & M64
    return v - (1 << 64) if v >= 1 << 63 else v


def _i32(v: int) -> int:
    """``static_cast<int>``: the low 32 bits, two's complement."""
    v = int(v) & M32
    return v - (1 << 32) if v >> 31 else v


@dataclass(frozen=True)
class Plan:
    kernel: str | None                 # None: nothing to do (empty valid region)
    block: tuple[int, int, int] = (1, 1, 1)
    passes: int = 1
    params: np.ndarray | None = None
    path: str = "gather"               # "gather" | "row_nz" | "elem_nz": fault message shapes


def _ordered(core, mode, dst, idx) -> bool:
    """The bytes depend on the order of loads and stores: index reads that may see the
    destination's stores, or valid cells sharing storage on a GPU (whose warps run
    concurrently; the host shim and NumPy both follow the emulation's one schedule)."""
    if storage_overlaps(dst, idx, mode):
        return True
    return core.backend == "cupy" and cells_alias(dst)


def plan_mgather(core, mode: Coalesce, oob: GatherOOB, dst, table, idx) -> Plan | None:
    """The launch that performs this checked MGATHER, or None to leave it to NumPy."""
    rules = core.target.mgather
    if not (bound_to_core(core, dst) and bound_to_core(core, table) and bound_to_core(core, idx)):
        return None
    if dtypes.name_of(dst.Element) != dtypes.name_of(table.Element):
        return None
    if _ordered(core, mode, dst, idx):
        return None
    T = dst.Element.itemsize
    VR, VC = dst.valid_row, dst.valid_col
    nz = table.layout == Layout.NZ and rules.nz_tables
    S = [table.GetShape(k) for k in range(5)]
    St = [table.GetStride(k) for k in range(5)]
    if nz:                     # §6.2: the NZ paths read gShape/gStride as 32-bit int
        S, St = [_i32(v) for v in S], [_i32(v) for v in St]
    arena = core.arena(dst.space)
    dma = mode == Coalesce.Row and (nz or (not rules.simt and rules.row_tail_fill))
    if dma and (dst.addr % 32 or getattr(core, "_tracers", None)):
        return None            # DMA paths: unaligned bursts, or a trace that must see them

    p = ParamBlock(FILE, "MG_", VR=VR, VC=VC, OOB=int(oob), T=T, TBASE=table.addr,
                   MODE=K.MODE_ROW if mode == Coalesce.Row else K.MODE_ELEM, DST_NBYTES=dst.nbytes)
    for k in range(5):
        setattr(p, f"S{k}", S[k])
        setattr(p, f"ST{k}", St[k])

    if nz:
        c0 = 32 // T
        p.BITS = 32
        p.block("DST", tile_desc(dst, "full"))
        p.block("IDX", tile_desc(idx, "full", "TK_ROW"))
        if mode == Coalesce.Row:
            nblk = max(S[0], 0) * (S[1] & 0xFFFF)
            if VR * nblk * c0 * T > arena.size:
                return None
            cap = (S[2] * 16) & M32
            if oob == GatherOOB.Wrap and cap == 0:
                return None
            p.CAP = cap
            return Plan("mgather_a2a3_row_nz", params=p.words, path="row_nz")
        if VR == 0 or VC == 0:
            return Plan(None)
        n_lc = (S[0] * S[1] * c0) & M32
        if VR * VC * T > arena.size or n_lc == 0 or (S[0] != 1 and S[1] & M32 == 0):
            return None        # NumPy's divide-by-zero faults (when anything is read)
        cap = ((S[2] * 16) * n_lc) & M32
        if oob == GatherOOB.Wrap and cap == 0:
            return None
        p.CAP = cap
        return Plan("mgather_a2a3_elem_nz", params=p.words, path="elem_nz")

    if VR == 0 or VC == 0:
        return Plan(None)
    if VR * VC * T > arena.size:
        return None
    bits = rules.index_bits
    mask = M32 if bits == 32 else M64
    if mode == Coalesce.Elem:
        cap = prod(S) & mask
    else:
        cap = (S[3] if rules.row_capacity == "shape3" else prod(S[:4])) & mask
    if oob == GatherOOB.Wrap and cap == 0:
        return None
    p.BITS, p.CAP = bits, cap
    p.ROWSRC = K[{"strides": "ROWSRC_STRIDES", "stride3": "ROWSRC_STRIDE3",
                   "valid_cols": "ROWSRC_VALID_COLS"}[rules.row_source]]
    p.TAIL = int(mode == Coalesce.Row and rules.row_tail_fill)
    p.block("DST", tile_desc(dst, rules.tile_offsets))
    p.block("IDX", tile_desc(idx, rules.tile_offsets))
    prm = p.words
    if rules.simt:
        if mode == Coalesce.Row:
            return Plan("mgather_a5_row", (32, row_launch_warps(VR, VC), 1), 2, prm)
        if rules.scalar_1x1 and dst.ValidRow == 1 and dst.ValidCol == 1:
            return Plan("mgather_a5_scalar", params=prm)
        return Plan("mgather_a5_elem", (32, elem_launch_warps(VR * VC), 1), 2, prm)
    if rules.checks == "cpu":
        return Plan("mgather_cpu", params=prm)
    return Plan("mgather_a2a3_row_nd" if mode == Coalesce.Row else "mgather_a2a3_elem_nd",
                params=prm)


def _fault(core, plan: Plan, rec: np.ndarray, mode, oob, dst, idx, sizes: dict | None = None,
           vc: int | None = None) -> PtoFault:
    """The PtoFault the NumPy backend raises for the same first fault (same message);
    ``sizes`` and ``vc``: the arenas' sizes and dst's valid columns when it happened (a
    LazyFault builds it later)."""
    key, addr, u = int(rec[0]), int(rec[1]), int(rec[2])
    phase, lin = key >> 56, key & ((1 << 56) - 1)
    VC = max(dst.valid_col, 1) if vc is None else vc
    r, c = divmod(lin, VC)
    T = dst.Element.itemsize
    if phase == K.PHASE_INDEX:
        arena = core.gm if isinstance(idx, GlobalTensor) else core.arena(idx.space)
        nbytes, what, code = idx.Element.itemsize, f"{NAME} index read", F_INDEX
        if plan.path == "elem_nz":
            who = f"idx({r},{c})"
        elif plan.path == "gather" and mode == Coalesce.Elem:
            who = f"idx of dst({r},{c})"
        else:
            who = f"row index {lin}"
    elif phase == K.PHASE_TABLE:
        arena, nbytes, code = core.gm, T, F_TABLE
        if plan.path == "row_nz":
            what, who = f"{NAME} NZ row burst read", f"element {lin}"
        else:
            nz = " NZ" if plan.path == "elem_nz" else ""
            what, who = f"{NAME}{nz} ({oob.name}) table read", f"dst({r},{c}) with index {u:#x}"
    else:
        arena, nbytes, code = core.arena(dst.space), T, F_DST
        what = f"{NAME} NZ row burst write" if plan.path == "row_nz" else f"{NAME} dst write"
        who = f"element {lin}"
    a = _i64(addr)
    size = arena.size if sizes is None else sizes[arena.name]
    return PtoFault(f"{what}: {who} accesses {arena.name.upper()} byte address {a:#x} "
                    f"(+{nbytes}), outside [0, {size:#x})",
                    rule="access outside arena", target=core.target.name, code=code)


_PHASE_CODES = {"PHASE_INDEX": F_INDEX, "PHASE_TABLE": F_TABLE}


def _fault_group(core, plan: Plan, recs: np.ndarray, mode, oob, dst, idx) -> None:
    """The faults of a launch's faulting instances (records ``recs``, one row each), built
    when read (of the arenas' sizes and dst's valid columns of now); codes by phase."""
    ks = np.flatnonzero(recs[:, 0] != np.uint64(M64))
    if not ks.size:
        return
    rec = recs[ks].copy()
    phase = (rec[:, 0] >> np.uint64(56)).astype(np.int64)
    codes = np.full(len(ks), F_DST, np.int8)
    for name, code in _PHASE_CODES.items():
        codes[phase == K[name]] = code
    sizes, vc = {s: b.size for s, b in core.banks.items()}, max(dst.valid_col, 1)
    core.fault_group(ks, lambda i: _fault(core, plan, rec[i], mode, oob, dst, idx, sizes, vc), codes)


CELL_WRITERS = ("mgather_a5_row", "mgather_a5_elem", "mgather_a5_scalar", "mgather_cpu", "mgather_a2a3_elem_nd")
"""Kernels that write dst's valid cells and nothing else (A2/A3's Row DMA also fills each
row's burst to 32 bytes; the NZ kernels write fractal bursts)."""


def _dst_span(core, plan: Plan, dst):
    """What a launch of ``plan`` writes: ``(space, lo, hi)`` around dst's valid cells (the
    addresses the NumPy semantics stores to), with 32 bytes more for A2/A3's Row bursts of a
    RowMajor tile; just the space where that is not known."""
    burst = plan.kernel == "mgather_a2a3_row_nd" and dst.BLayout == BLayout.RowMajor
    if plan.kernel not in CELL_WRITERS and not burst:
        return dst.space
    VR, VC = dst.valid_row, dst.valid_col
    if VR <= 0 or VC <= 0:
        return (dst.space, 0, 0)
    r, c = np.meshgrid(np.arange(VR), np.arange(VC), indexing="ij")
    a = dst_addrs(core, dst, r, c)
    return (dst.space, int(a.min()), int(a.max()) + dst.Element.itemsize + (32 if burst else 0))


def run_plan(core, mode: Coalesce, oob: GatherOOB, dst, table, idx) -> bool:
    """Run a checked MGATHER (Vec destination, or any destination of the CPU simulator's
    generic routine) as a kernel on ``core.backend``. Returns False when NumPy must run it."""
    if not use_kernels(core):
        return False
    plan = plan_mgather(core, Coalesce(mode), GatherOOB(oob), dst, table, idx)
    if plan is None:
        return False
    if plan.kernel is None:
        return True
    if core.all_at_once:            # a core of N: one launch over N blocks
        rec = launch_instances(core, plan.kernel, plan.params, block=plan.block, passes=plan.passes,
                               writes=(_dst_span(core, plan, dst),))
        _fault_group(core, plan, rec, Coalesce(mode), GatherOOB(oob), dst, idx)
        return True
    fault = launch_on(core, plan.kernel, plan.params, block=plan.block, passes=plan.passes,
                      writes=(dst.space,))
    if int(fault[0, 0]) != M64:
        raise _fault(core, plan, fault[0], Coalesce(mode), GatherOOB(oob), dst, idx)
    return True


def run_mgather_ub(core, mode, oob, dst, table, idx) -> bool:
    """Run a checked MGATHER as a kernel when ``core.backend`` has one; False: run NumPy."""
    if not kernel_ok(core, dst, idx):
        return False
    return run_plan(core, mode, oob, dst, table, idx)
